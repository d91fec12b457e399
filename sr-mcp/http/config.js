'use strict';
// config.js - sr-mcp-http's command line, its tokens and its tenants'
// state directories. Errors are thrown as Fatal (one line, an exit code as
// in the rest of sr: 100 for usage, 111 for a system failure).
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const VERSION = '0.2.0';
const EXIT_USAGE = 100, EXIT_SYS = 111;

class Fatal extends Error {
  constructor(code, message) { super(message); this.code = code; }
}
const usageError = (msg) => new Fatal(EXIT_USAGE, msg);

const usage = `usage: sr-mcp-http [options] [-- sr-mcp options]   (MCP over Streamable HTTP; see sr-mcp-http(1))
      --listen HOST:PORT   where to listen (default 127.0.0.1:8080)
      --tokens FILE        bearer tokens, one 'TENANT TOKEN [NETWORK...]' per
                           line, private; NETWORK: the tenant's own
                           --network=MODE, --net-allow=HOST, --net-deny=HOST
                           (else SR_MCP_TOKEN: one token, tenant 'default')
      --secrets FILE       secrets per tenant, one 'TENANT NAME=HOST:HEADER
                           VALUE-FILE' per line, private; the tenant's sr-mcp
                           gets --secret and --secret-file (its network: allow)
      --state-dir DIR      a state directory per tenant under DIR
                           (default $XDG_STATE_HOME/sr-http)
      --allow-origin ORIGIN  a web origin that may call (repeatable; default none
                           but the server's own)
      --allow-host HOST    a Host header to accept besides the listen address (repeatable)
      --max-body SIZE      a request body, at most (default 4M)
      --max-sessions N     sessions at once, all tenants (default 64)
      --tenant-sessions N  sessions at once per tenant (default 16)
      --idle-timeout DURATION  end a session idle that long (default 30m)
      --tenant-rate N      messages a second one tenant may send, 0 for no
                           bound (default 500; bursts of twice that)
      --max-connections N  connections at once, all clients (default 512)
      --address-connections N  connections at once from one client address
                           (default 64)
      --header-timeout DURATION  a request's headers must arrive within it,
                           and its body within 3 times it (default 10s)
      --authorization-server URL  the OAuth authorization server that
                           /.well-known/oauth-protected-resource names
      --public-url URL     this server's address as clients see it (for that document)
      --link-key FILE      the key that signs download links, private (default
                           STATE-DIR/.link.key, made at first start)
      --link-ttl DURATION  how long a download link lives (default 1h, at most 24h)
      --sr-mcp PATH        the sr-mcp to run (default: the one installed beside)
  -h, --help               show this help
  -V, --version            show the version
`;

function duration(name, v) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(v);
  if (!m) throw usageError(`${name}: expected a duration such as 90s, 30m or 2h: '${v}'`);
  const ms = Number(m[1]) * { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2] || 's'];
  if (ms < 1000) throw usageError(`${name}: at least 1s: '${v}'`);
  return ms;
}

function size(name, v) {
  const m = /^(\d+)([KMG])?$/i.exec(v);
  if (!m) throw usageError(`${name}: expected a size such as 512K or 4M: '${v}'`);
  const n = Number(m[1]) * { '': 1, K: 1024, M: 1 << 20, G: 1 << 30 }[(m[2] || '').toUpperCase()];
  if (n < 1024) throw usageError(`${name}: at least 1K: '${v}'`);
  return n;
}

function count(name, v) {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100000)
    throw usageError(`${name}: expected a number from 1 to 100000: '${v}'`);
  return Number(v);
}

function listenAddr(v) {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(v);
  if (!m || Number(m[3]) > 65535)
    throw usageError(`--listen: expected HOST:PORT, such as 127.0.0.1:8080 or [::1]:8080: '${v}'`);
  return { host: m[1] || m[2], port: Number(m[3]) };
}

function origin(v) {
  let u;
  try { u = new URL(v); } catch { u = null; }
  if (!u || !/^https?:$/.test(u.protocol) || u.origin !== v.replace(/\/$/, '').toLowerCase())
    throw usageError(`--allow-origin: expected an origin such as https://claude.ai (scheme://host[:port], no path): '${v}'`);
  return u.origin;
}

function url(name, v) {
  let u;
  try { u = new URL(v); } catch { u = null; }
  if (!u || !/^https?:$/.test(u.protocol)) throw usageError(`${name}: expected an http(s) URL: '${v}'`);
  return u.href.replace(/\/$/, '');
}

// Options that take a value: how each is read.
const valued = {
  '--listen': (c, v) => { c.listen = listenAddr(v); },
  '--tokens': (c, v) => { c.tokensFile = v; },
  '--secrets': (c, v) => { c.secretsFile = path.resolve(v); },
  '--state-dir': (c, v) => { c.stateDir = path.resolve(v); },
  '--allow-origin': (c, v) => { c.origins.push(origin(v)); },
  '--allow-host': (c, v) => { c.hosts.push(v.toLowerCase()); },
  '--max-body': (c, v) => { c.maxBody = size('--max-body', v); },
  '--max-sessions': (c, v) => { c.maxSessions = count('--max-sessions', v); },
  '--tenant-sessions': (c, v) => { c.tenantSessions = count('--tenant-sessions', v); },
  '--idle-timeout': (c, v) => { c.idleMs = duration('--idle-timeout', v); },
  '--max-connections': (c, v) => { c.maxConns = count('--max-connections', v); },
  '--tenant-rate': (c, v) => { c.tenantRate = v === '0' ? 0 : count('--tenant-rate', v); },
  '--address-connections': (c, v) => { c.addrConns = count('--address-connections', v); },
  '--header-timeout': (c, v) => { c.headerMs = duration('--header-timeout', v); },
  '--authorization-server': (c, v) => { c.authServer = url('--authorization-server', v); },
  '--public-url': (c, v) => { c.publicUrl = url('--public-url', v); },
  '--sr-mcp': (c, v) => { c.srMcp = v; },
  '--link-key': (c, v) => { c.linkKeyFile = path.resolve(v); },
  '--link-ttl': (c, v) => {
    c.linkTtlMs = duration('--link-ttl', v);
    if (c.linkTtlMs > 864e5) throw usageError(`--link-ttl: at most 24h: '${v}'`);
  },
};

// sr-mcp options sr-mcp-http sets itself, per tenant.
const owned = { '--state-dir': '--state-dir of sr-mcp-http (a directory per tenant is made under it)',
  '--spool': 'nothing: each tenant has its own spool, in its own state directory',
  '--tenant': 'nothing: the tenant is the name of the token' };

function defaults() {
  const home = process.env.XDG_STATE_HOME || (process.env.HOME && path.join(process.env.HOME, '.local/state'));
  return { listen: { host: '127.0.0.1', port: 8080 }, origins: [], hosts: [], maxBody: 4 << 20,
    maxSessions: 64, tenantSessions: 16, idleMs: 30 * 6e4, path: '/mcp',
    maxConns: 512, addrConns: 64, headerMs: 10000, tenantRate: 500, hostDirs: [], linkTtlMs: 36e5,
    stateDir: home ? path.join(home, 'sr-http') : null, srMcp: null, srArgs: [] };
}

function parseArgs(argv) {
  const c = defaults();
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i], v;
    if (a === '--') { c.srArgs = argv.slice(i + 1); break; }
    if (a === '-h' || a === '--help') return { help: true };
    if (a === '-V' || a === '--version') return { version: true };
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) { v = a.slice(eq + 1); a = a.slice(0, eq); }
    if (!valued[a]) throw usageError(`unknown option '${argv[i]}'; see sr-mcp-http --help`);
    if (v === undefined) {
      if (i + 1 >= argv.length) throw usageError(`${a}: a value is needed`);
      v = argv[++i];
    }
    valued[a](c, v);
  }
  for (const a of c.srArgs) {
    const k = a.split('=')[0];
    if (owned[k]) throw usageError(`the sr-mcp option ${k} is set by sr-mcp-http; use ${owned[k]}`);
  }
  c.srArgs = hostDirs(c, c.srArgs);
  if (!c.stateDir) throw usageError('no state directory: set HOME, XDG_STATE_HOME or --state-dir');
  c.tenantNet = new Map();     // tenant -> its own network options (the tokens file)
  c.argsOf = (tenant) => [...c.hostDirs.flatMap((d) => ['--host-dir', `${d}/${tenant}`]),
    ...(c.tenantNet.has(tenant) ? [...withoutNet(c.srArgs), ...c.tenantNet.get(tenant)] : c.srArgs),
    ...(c.tenantSecrets.get(tenant) || [])];
  c.tenantSecrets = new Map(); // tenant -> its --secret and --secret-file (the secrets file)
  c.waitMaxMs = waitMax(c.srArgs);
  return c;
}

// The longest sr-mcp makes a request wait for its answer (its --wait-max,
// or SR_MCP_WAIT_MAX; 55 s by default): how long a request in flight can
// hold its session, as Retry-After says.
function waitMax(args) {
  let v = process.env.SR_MCP_WAIT_MAX;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--wait-max' && i + 1 < args.length) v = args[++i];
    else if (args[i].startsWith('--wait-max=')) v = args[i].slice('--wait-max='.length);
  }
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(v || '');
  return m ? Number(m[1]) * { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2] || 's'] : 55e3;
}

// sr-mcp's --host-dir DIR (and SR_MCP_HOST_DIRS) become DIR/TENANT, one
// private directory per tenant: no tenant imports what another exported.
function hostDirs(c, args) {
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    let d;
    if (a === '--host-dir') {
      if (i + 1 >= args.length) throw usageError('--host-dir: a value is needed');
      d = args[++i];
    } else if (a.startsWith('--host-dir=')) {
      d = a.slice('--host-dir='.length);
    } else {
      rest.push(a);
      continue;
    }
    c.hostDirs.push(hostDir(d));
  }
  if (!c.hostDirs.length && process.env.SR_MCP_HOST_DIRS)
    for (const d of process.env.SR_MCP_HOST_DIRS.split(':').filter(Boolean)) c.hostDirs.push(hostDir(d));
  return rest;
}

function hostDir(d) {
  if (!path.isAbsolute(d)) throw usageError(`--host-dir: an absolute path is expected: '${d}'`);
  return path.resolve(d);
}

// A file only its owner can read, opened without following a link.
function readPrivate(file, what = 'tokens file') {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    throw new Fatal(EXIT_SYS, `unable to open the ${what} ${file}: ${e.code === 'ELOOP' ? 'it is a symbolic link' : e.message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Fatal(EXIT_SYS, `refusing the ${what} ${file}: not a regular file`);
    if (st.uid !== process.getuid())
      throw new Fatal(EXIT_SYS, `refusing the ${what} ${file}: owned by uid ${st.uid}, not by you (${process.getuid()})`);
    if (st.mode & 0o077)
      throw new Fatal(EXIT_SYS, `refusing the ${what} ${file}: mode ${(st.mode & 0o777).toString(8).padStart(4, '0')} lets others read it; chmod 600 ${file}`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

const TENANT_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;
const TOKEN_RE = /^[\x21-\x7e]{16,4096}$/;

function addToken(list, name, token, where) {
  if (!TENANT_RE.test(name))
    throw new Fatal(EXIT_SYS, `${where}: a tenant name is 1 to 64 of A-Z a-z 0-9 . _ - (not first '.' or '-'): '${name}'`);
  if (!TOKEN_RE.test(token))
    throw new Fatal(EXIT_SYS, `${where}: the token of tenant ${name} must be 16 to 4096 printable characters, no spaces (make one with: openssl rand -hex 32)`);
  if (list.some((t) => t.name === name)) throw new Fatal(EXIT_SYS, `${where}: tenant ${name} is named twice`);
  const hash = crypto.createHash('sha256').update(token).digest();
  if (list.some((t) => crypto.timingSafeEqual(t.hash, hash)))
    throw new Fatal(EXIT_SYS, `${where}: the token of tenant ${name} is also another tenant's`);
  list.push({ name, hash });
}

// sr-mcp's network options, which a tenant's line in the tokens file may
// set for that tenant alone: then none of those after -- apply to it.
const NET_OPTS = ['--network', '--net-allow', '--net-deny'];
function withoutNet(args) {
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    if (NET_OPTS.includes(args[i])) i++;
    else if (!NET_OPTS.includes(args[i].split('=')[0])) rest.push(args[i]);
  }
  return rest;
}

// A tenant's own network options: --network=MODE, --net-allow=HOST[:PORTS],
// --net-deny=HOST[:PORTS], one word each; sr-mcp checks the values at start.
function tenantNet(words, name, where) {
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq < 0 || !NET_OPTS.includes(w.slice(0, eq)) || eq === w.length - 1)
      throw new Fatal(EXIT_SYS, `${where}: after the token of tenant ${name}, expected --network=MODE, --net-allow=HOST or --net-deny=HOST: '${w}'`);
  }
  if (!words.some((w) => w.startsWith('--network=')))
    throw new Fatal(EXIT_SYS, `${where}: tenant ${name} has --net-allow or --net-deny without --network=allow`);
  return words;
}

// The tenants: from --tokens FILE ('TENANT TOKEN [NETWORK...]' per line,
// # comments), else SR_MCP_TOKEN (tenant 'default'). Only their hashes are
// kept, and each tenant's own network options in c.tenantNet.
function loadTokens(c) {
  const list = [];
  if (c.tokensFile) {
    readPrivate(c.tokensFile).split('\n').forEach((line, i) => {
      const l = line.trim();
      if (!l || l.startsWith('#')) return;
      const f = l.split(/\s+/);
      const where = `${c.tokensFile}:${i + 1}`;
      if (f.length < 2) throw new Fatal(EXIT_SYS, `${where}: expected 'TENANT TOKEN [NETWORK...]'`);
      addToken(list, f[0], f[1], where);
      if (f.length > 2) c.tenantNet.set(f[0], tenantNet(f.slice(2), f[0], where));
    });
    if (!list.length) throw new Fatal(EXIT_SYS, `${c.tokensFile}: no token in it; add a line 'TENANT TOKEN'`);
  } else if (process.env.SR_MCP_TOKEN) {
    addToken(list, 'default', process.env.SR_MCP_TOKEN, 'SR_MCP_TOKEN');
  } else {
    throw usageError('no token: give --tokens FILE or set SR_MCP_TOKEN (never a token on the command line)');
  }
  return list;
}

// The tenants' secrets: from --secrets FILE ('TENANT NAME=HOST:HEADER
// VALUE-FILE' per line, # comments), each tenant's sr-mcp given its own as
// --secret NAME=HOST:HEADER --secret-file NAME=VALUE-FILE: no value on a
// command line or in our memory (sr-mcp checks VALUE-FILE, sr-net reads
// it). A tenant with a secret needs --network allow, its own or the one
// after --.
function loadSecrets(c) {
  if (!c.secretsFile) return;
  readPrivate(c.secretsFile, 'secrets file').split('\n').forEach((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith('#')) return;
    const f = l.split(/\s+/), where = `${c.secretsFile}:${i + 1}`;
    if (f.length !== 3 || !/^[A-Za-z_][A-Za-z0-9_]*=[^=\s]+:[A-Za-z0-9_-]+$/.test(f[1]) || !path.isAbsolute(f[2]))
      throw new Fatal(EXIT_SYS, `${where}: expected 'TENANT NAME=HOST:HEADER VALUE-FILE' (VALUE-FILE an absolute path)`);
    if (!c.tokens.some((t) => t.name === f[0])) throw new Fatal(EXIT_SYS, `${where}: no tenant ${f[0]} in the tokens`);
    if (!allowed(c.argsOf(f[0])))
      throw new Fatal(EXIT_SYS, `${where}: tenant ${f[0]} has a secret but not --network allow (in its tokens line, or after --)`);
    const name = f[1].split('=')[0];
    c.tenantSecrets.set(f[0], [...(c.tenantSecrets.get(f[0]) || []),
      '--secret', f[1], '--secret-file', `${name}=${f[2]}`]);
  });
}

// --network allow among sr-mcp's options (the last --network wins).
function allowed(args) {
  let mode = null;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--network') mode = args[++i];
    else if (args[i].startsWith('--network=')) mode = args[i].slice('--network='.length);
  }
  return mode === 'allow';
}

// The tenant whose token this is, or null: every hash is compared, in
// constant time, whatever matched.
function tenantOf(tokens, given) {
  const hash = crypto.createHash('sha256').update(given).digest();
  let found = null;
  for (const t of tokens)
    if (crypto.timingSafeEqual(t.hash, hash)) found = t.name;
  return found;
}

// A private directory of ours: made if missing, refused if it is a link,
// someone else's, or writable by others.
function privateDir(dir, what = 'state directory') {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new Fatal(EXIT_SYS, `unable to make the ${what} ${dir}: ${e.message}`);
  }
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new Fatal(EXIT_SYS, `refusing the ${what} ${dir}: not a directory (a link?)`);
  if (st.uid !== process.getuid()) throw new Fatal(EXIT_SYS, `refusing the ${what} ${dir}: owned by uid ${st.uid}, not by you`);
  if (st.mode & 0o022) throw new Fatal(EXIT_SYS, `refusing the ${what} ${dir}: others may write it; chmod go-w ${dir}`);
}

// The sr-mcp to run: --sr-mcp, else the one make install put in BINDIR
// (paths.json, written by it), else the one beside us in a build tree
// (sr-mcp/http/..), else sr-mcp on PATH.
function findSrMcp(c) {
  if (c.srMcp) return c.srMcp;
  const here = path.dirname(fs.realpathSync(process.argv[1] || __filename));
  try {
    return JSON.parse(fs.readFileSync(path.join(here, 'paths.json'), 'utf8')).srMcp;
  } catch { /* not installed */ }
  const built = path.join(here, '../sr-mcp');
  return fs.existsSync(built) ? built : 'sr-mcp';
}

module.exports = { VERSION, hostDir, EXIT_USAGE, EXIT_SYS, Fatal, usage, parseArgs, loadTokens, loadSecrets, tenantOf,
  privateDir, findSrMcp, TENANT_RE, readPrivate };
