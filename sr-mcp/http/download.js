'use strict';
// download.js - a run's files at signed URLs, for a browser or any program
// that speaks no MCP (the Go code-runner's download links):
//   GET /dl/TENANT/WORKSPACE/PATH?e=EXPIRY&s=SIGNATURE
// SIGNATURE is HMAC-SHA256, under the key of --link-key FILE (else
// STATE-DIR/.link.key, made at first start, mode 600; no tenant is named
// with a leading dot), of the tenant, the
// workspace, the path and the expiry (Unix seconds); --link-ttl sets how
// long a link lives (default 1h, at most 24h). Results on their way out
// get a link beside each resource_link of a workspace file (annotate).
// GET needs no bearer token: the signature is the permission. Refused,
// with a body that says why: an altered URL (403), an expired one (410),
// a path with '..', '.' or an empty part (400), a symbolic link anywhere on
// the path (403), a directory or anything not a regular file (403), no such
// file (404). The file is opened a component at a time, each with
// O_NOFOLLOW under the descriptor of the one before (through
// /proc/self/fd/N, which is openat from Node), beneath the tenant's
// workspaces directory.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { Fatal, EXIT_SYS, TENANT_RE, readPrivate } = require('./config');

const PREFIX = '/dl/';
const WS_RE = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
const URI_PREFIX = 'sr://workspaces/';
const MAX_PATH = 4096;
const C = fs.constants;

// The key: --link-key FILE (the administrator's, private), else
// STATE-DIR/.link.key, made once (32 random bytes, mode 600, never through a link).
function loadKey(cfg) {
  const file = cfg.linkKeyFile || path.join(cfg.stateDir, '.link.key');
  if (!cfg.linkKeyFile) {
    try {
      const fd = fs.openSync(file, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
      fs.writeSync(fd, crypto.randomBytes(32).toString('hex') + '\n');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    } catch (e) {
      if (e.code !== 'EEXIST') throw new Fatal(EXIT_SYS, `unable to make the link key ${file}: ${e.message}`);
    }
  }
  const text = readPrivate(file, 'link key').trim();
  if (text.length < 32) throw new Fatal(EXIT_SYS, `refusing the link key ${file}: under 32 characters (make one with: openssl rand -hex 32 > ${file})`);
  return Buffer.from(text);
}

function signature(key, tenant, ws, rel, exp) {
  return crypto.createHmac('sha256', key).update(`${tenant}\0${ws}\0${rel}\0${exp}`).digest('base64url');
}

function base(cfg) {
  const h = cfg.listen.host.includes(':') ? `[${cfg.listen.host}]` : cfg.listen.host;
  return (cfg.publicUrl || `http://${h}:${cfg.listen.port}`).replace(/\/$/, '');
}

// The signed URL of file rel of workspace ws of tenant, valid until exp.
function urlOf(cfg, tenant, ws, rel, exp) {
  const p = [tenant, ws, ...rel.split('/')].map(encodeURIComponent).join('/');
  return `${base(cfg)}${PREFIX}${p}?e=${exp}&s=${signature(cfg.linkKey, tenant, ws, rel, exp)}`;
}

// A result's resource_links of workspace files get _meta
// "dev.sr/download_url" and "dev.sr/download_expires", and a text block
// lists the links for the model to hand on.
function annotate(cfg, tenant, m) {
  const content = m && m.result && Array.isArray(m.result.content) ? m.result.content : null;
  if (!content || !cfg.linkKey) return;
  const exp = Math.floor(Date.now() / 1000) + Math.floor(cfg.linkTtlMs / 1000);
  const lines = [];
  for (const b of content) {
    if (!b || b.type !== 'resource_link' || typeof b.uri !== 'string' || !b.uri.startsWith(URI_PREFIX)) continue;
    const mm = /^([^/]+)\/files\/(.+)$/.exec(b.uri.slice(URI_PREFIX.length));
    let rel;
    try { rel = mm && decodeURIComponent(mm[2]); } catch { rel = null; }
    if (!rel || !WS_RE.test(mm[1]) || rel.length > MAX_PATH) continue;
    const u = urlOf(cfg, tenant, mm[1], rel, exp);
    b._meta = { ...(b._meta || {}), 'dev.sr/download_url': u, 'dev.sr/download_expires': new Date(exp * 1000).toISOString() };
    lines.push(`${rel}: ${u}`);
  }
  if (lines.length)
    content.push({ type: 'text', text: `Download links (plain HTTP GET, no token; valid until ${new Date(exp * 1000).toISOString()}):\n${lines.join('\n')}` });
}

class Refused extends Error {
  constructor(status, why) { super(why); this.status = status; }
}

// The request's tenant, workspace, path and expiry, signature checked.
function parse(cfg, req) {
  // the path as sent: new URL() would resolve '..' and '.' before we see them
  const q = req.url.indexOf('?');
  const u = new URL(req.url, 'http://h');
  const raw = (q < 0 ? req.url : req.url.slice(0, q)).slice(PREFIX.length).split('/');
  let parts;
  try { parts = raw.map(decodeURIComponent); } catch { throw new Refused(400, 'Bad Request: the path has a bad %-escape.'); }
  if (parts.length < 3) throw new Refused(404, 'Not Found: a download URL is /dl/TENANT/WORKSPACE/PATH?e=..&s=.., as a result gave it.');
  const [tenant, ws, ...rest] = parts;
  if (rest.some((x) => x === '' || x === '.' || x === '..' || x.includes('/') || x.includes('\0')))
    throw new Refused(400, "Bad Request: a path with '..', '.' or an empty part is never served.");
  if (!TENANT_RE.test(tenant) || !WS_RE.test(ws)) throw new Refused(404, 'Not Found: no such tenant or workspace name.');
  const rel = rest.join('/');
  const e = u.searchParams.get('e') || '', s = u.searchParams.get('s') || '';
  const want = /^\d{1,12}$/.test(e) ? Buffer.from(signature(cfg.linkKey, tenant, ws, rel, e)) : null;
  if (!want || want.length !== Buffer.byteLength(s) || !crypto.timingSafeEqual(want, Buffer.from(s)))
    throw new Refused(403, 'Forbidden: the signature does not match this URL (altered, or not made by this server).');
  if (Number(e) * 1000 < Date.now()) throw new Refused(410, `Gone: this link expired at ${new Date(Number(e) * 1000).toISOString()}; run list_files or the code again for a new one.`);
  return { tenant, ws, rest };
}

// The file opened beneath STATE/TENANT/workspaces/WS, no link followed.
function openBeneath(cfg, { tenant, ws, rest }) {
  const fds = [];
  // O_NOFOLLOW refuses a link as ELOOP, with O_DIRECTORY as ENOTDIR: lstat tells
  const isLink = (at, name) => { try { return fs.lstatSync(`/proc/self/fd/${at}/${name}`).isSymbolicLink(); } catch { return false; } };
  const why = (e, at, name, i) => (e.code === 'ELOOP' || e.code === 'ENOTDIR') && isLink(at, name)
    ? new Refused(403, `Forbidden: '${name}' is a symbolic link; links are never followed.`)
    : e.code === 'ENOENT' && !i ? new Refused(404, `Not Found: no workspace ${ws} of this tenant.`)
      : e.code === 'ENOENT' ? new Refused(404, `Not Found: no file '${rest.join('/')}' in workspace ${ws} (removed since?).`)
        : e.code === 'ENOTDIR' ? new Refused(404, `Not Found: '${name}' is not a directory.`) : new Refused(403, `Forbidden: '${name}': ${e.code}.`);
  try {
    let fd = fs.openSync(path.join(cfg.stateDir, tenant, 'workspaces'), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
    fds.push(fd);
    for (const [i, name] of [ws, ...rest].entries()) {
      const last = i === rest.length;
      const flags = C.O_RDONLY | C.O_NOFOLLOW | (last ? C.O_NONBLOCK : C.O_DIRECTORY);
      try { fd = fs.openSync(`/proc/self/fd/${fd}/${name}`, flags); } catch (e) { throw why(e, fd, name, i); }
      fds.push(fd);
    }
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Refused(403, `Forbidden: '${rest.join('/')}' is ${st.isDirectory() ? 'a directory' : 'not a regular file'}; only files are served.`);
    fds.pop();
    return { fd, size: st.size };
  } catch (e) {
    if (e instanceof Refused) throw e;
    throw new Refused(404, `Not Found: no workspace ${ws} of this tenant.`);
  } finally {
    for (const x of fds) fs.closeSync(x);
  }
}

function serve(reg, req, res) {
  const cfg = reg.cfg;
  const no = (status, text, headers = {}) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
    res.end(text + '\n');
  };
  if (!cfg.linkKey) return no(404, 'Not Found: download links are off on this server.');
  if (req.method !== 'GET' && req.method !== 'HEAD') return no(405, `Method Not Allowed: ${req.method}; a download is a GET.`, { Allow: 'GET, HEAD' });
  let f;
  try { f = openBeneath(cfg, parse(cfg, req)); } catch (e) {
    if (!(e instanceof Refused)) throw e;
    return no(e.status, e.message);
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(f.size),
    'Content-Disposition': 'attachment', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-store' });
  if (req.method === 'HEAD' || !f.size) { fs.closeSync(f.fd); return res.end(); }
  fs.createReadStream(null, { fd: f.fd, start: 0, end: Math.max(0, f.size - 1) }).pipe(res);
}

module.exports = { PREFIX, loadKey, annotate, serve, urlOf, signature, base };
