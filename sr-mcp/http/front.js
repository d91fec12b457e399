'use strict';
// front.js - the HTTP side: Host and Origin checks, the bearer token, the
// limits, and the three methods of Streamable HTTP on one endpoint (POST a
// message, GET a server stream, DELETE the session). Checks come first, in
// this order, and a refused request reaches no sr-mcp: Host (403), Origin
// (403), path (404), token (401), method (405), session (404), size (413).
const { Session, KEEPALIVE_MS, isRequest } = require('./session');
const { tenantOf } = require('./config');

const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];
const CORS_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';

class Refusal extends Error {
  constructor(status, message, headers = {}) { super(message); this.status = status; this.headers = headers; }
}

// The sessions, counted per tenant against the limits.
class Registry {
  constructor(cfg) {
    this.cfg = cfg;
    this.sessions = new Map();
    this.all = new Set();
    this.timer = setInterval(() => this.sweep(), Math.min(1000, cfg.idleMs / 4));
    this.timer.unref();
    this.beat = setInterval(() => { for (const s of this.all) s.keepalive(); }, KEEPALIVE_MS);
    this.beat.unref();
  }

  tenantDir(t) { return `${this.cfg.stateDir}/${t}`; }
  count(t) { let n = 0; for (const s of this.all) if (s.tenant === t) n++; return n; }

  open(tenant, oneShot) {
    const c = this.cfg;
    if (this.all.size >= c.maxSessions)
      throw new Refusal(503, `This server has ${c.maxSessions} MCP sessions open, the most it allows (--max-sessions): end one (DELETE /mcp with its Mcp-Session-Id) or retry later.`, { 'Retry-After': '30' });
    if (this.count(tenant) >= c.tenantSessions)
      throw new Refusal(429, `Tenant ${tenant} has ${c.tenantSessions} MCP sessions open, the most one tenant may (--tenant-sessions): end one (DELETE /mcp with its Mcp-Session-Id) or let one idle out (${c.idleMs / 1000} s).`, { 'Retry-After': '30' });
    const s = new Session(this, tenant, oneShot);
    this.all.add(s);
    if (!oneShot) this.sessions.set(s.id, s);
    return s;
  }

  // A session of this tenant's (another tenant's is as unknown as none).
  get(id, tenant) {
    const s = this.sessions.get(id);
    return s && s.tenant === tenant && !s.closed ? s : null;
  }

  forget(s) { this.all.delete(s); this.sessions.delete(s.id); }

  sweep() {
    const now = Date.now();
    for (const s of this.all)
      if (!s.busy() && now - s.last > this.cfg.idleMs) s.close(`idle for ${Math.round(this.cfg.idleMs / 1000)} s`);
  }

  closeAll(why) { for (const s of [...this.all]) s.close(why); }
}

function refuse(res, status, message, headers = {}) {
  if (res.headersSent) return res.end();
  const code = status === 400 && /JSON/.test(message) ? -32700 : status >= 500 ? -32603 : -32600;
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

// Host: the listen address, loopback names when listening on loopback,
// and --allow-host; any when listening on every address without one.
function hostOk(cfg, host) {
  if (!host) return false;
  host = host.toLowerCase();
  const { host: lh, port } = cfg.listen;
  const name = host.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  if (cfg.hosts.includes(host) || cfg.hosts.includes(name)) return true;
  if (!cfg.hosts.length && (lh === '0.0.0.0' || lh === '::')) return true;
  const names = LOOPBACK.includes(lh) ? LOOPBACK : [lh.toLowerCase()];
  return names.includes(name) && host.endsWith(`:${port}`);
}

// Origin (sent by browsers): --allow-origin, or the server's own.
function originOk(cfg, origin, host) {
  if (cfg.origins.includes(origin)) return true;
  try {
    const u = new URL(origin);
    return /^https?:$/.test(u.protocol) && u.host === String(host).toLowerCase();
  } catch {
    return false;
  }
}

function challenge(cfg, error) {
  let h = 'Bearer realm="sr-mcp"';
  if (cfg.authServer) h += `, resource_metadata="${resourceUrl(cfg, '/.well-known/oauth-protected-resource')}"`;
  if (error) h += `, error="invalid_token", error_description="${error}"`;
  return { 'WWW-Authenticate': h };
}

function resourceUrl(cfg, p) {
  const base = cfg.publicUrl || `http://${cfg.listen.host.includes(':') ? `[${cfg.listen.host}]` : cfg.listen.host}:${cfg.listen.port}`;
  return base.replace(/\/$/, '') + p;
}

function authenticate(cfg, req) {
  const h = req.headers.authorization;
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(h || '');
  if (!m)
    throw new Refusal(401, 'Authentication required: send the header "Authorization: Bearer TOKEN" with a token the administrator gave you.', challenge(cfg, h ? 'not a Bearer token' : null));
  const t = tenantOf(cfg.tokens, m[1]);
  if (!t) throw new Refusal(401, 'The bearer token is not valid here: ask the administrator for a token of this server.', challenge(cfg, 'unknown token'));
  return t;
}

function readBody(cfg, req) {
  return new Promise((resolve, reject) => {
    const big = () => new Refusal(413, `The request body is larger than this server takes (${cfg.maxBody} bytes, --max-body): send less at once (big files: several write_file calls, or import_files).`, { Connection: 'close' });
    if (Number(req.headers['content-length']) > cfg.maxBody) return reject(big());
    const parts = [];
    let n = 0;
    req.on('data', (d) => {
      n += d.length;
      if (n > cfg.maxBody) { req.pause(); reject(big()); } else parts.push(d);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

const accepts = (req, type) => (req.headers.accept || '').split(',').some((a) => {
  const t = a.split(';')[0].trim();
  return t === type || t === '*/*';
});

function parseMessages(body) {
  let parsed;
  try { parsed = JSON.parse(body); } catch { throw new Refusal(400, 'Parse error: the body is not JSON; send a JSON-RPC message.'); }
  const msgs = Array.isArray(parsed) ? parsed : [parsed];
  if (!msgs.length || msgs.some((m) => !m || typeof m !== 'object' || m.jsonrpc !== '2.0'))
    throw new Refusal(400, 'Invalid Request: the body must be a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0"), or an array of them.');
  return { msgs, batch: Array.isArray(parsed) };
}

function sessionOf(reg, req, tenant) {
  const id = req.headers['mcp-session-id'];
  if (id === undefined) throw new Refusal(400, 'Bad Request: the Mcp-Session-Id header is missing; send the id the initialize response gave.');
  const s = reg.get(String(id), tenant);
  if (!s) throw new Refusal(404, 'Session not found: it was closed, idled out, or the server restarted. Start a new session with initialize (jobs and workspaces of this tenant are kept).');
  s.touch();
  return s;
}

async function post(reg, req, res, tenant) {
  const v = req.headers['mcp-protocol-version'];
  if (v !== undefined && !VERSIONS.includes(v))
    throw new Refusal(400, `Bad Request: unsupported MCP-Protocol-Version ${v}; this server speaks ${VERSIONS.join(', ')}.`);
  if (!/^application\/json\b/i.test(req.headers['content-type'] || ''))
    throw new Refusal(415, 'Unsupported Media Type: send the message with Content-Type: application/json.');
  if (!accepts(req, 'application/json') && !accepts(req, 'text/event-stream'))
    throw new Refusal(406, 'Not Acceptable: the client must accept application/json and text/event-stream.');
  const { msgs, batch } = parseMessages(await readBody(reg.cfg, req));
  let s;
  if (msgs.some((m) => m.method === 'initialize')) {
    if (req.headers['mcp-session-id'] !== undefined)
      throw new Refusal(400, 'Bad Request: initialize opens a new session; send it without an Mcp-Session-Id header.');
    if (msgs.length > 1) throw new Refusal(400, 'Invalid Request: send initialize alone, not in a batch.');
    s = reg.open(tenant, false);
    res.setHeader('Mcp-Session-Id', s.id);
  } else if (req.headers['mcp-session-id'] !== undefined) {
    s = sessionOf(reg, req, tenant);
  } else {
    s = reg.open(tenant, true);   // 2026-07-28: no session, an sr-mcp for this request
  }
  const dup = msgs.find((m) => isRequest(m) && s.byRequest.has(JSON.stringify(m.id)));
  if (dup) {
    if (s.oneShot) s.close('its request was refused');
    throw new Refusal(409, `Conflict: request id ${JSON.stringify(dup.id)} is already in use by an unanswered request of this session; give each request a new id.`);
  }
  if (!msgs.some(isRequest)) {
    s.send(msgs, null);
    res.writeHead(202).end();
    if (s.oneShot) s.close('a request without a session ended');
    return;
  }
  s.send(msgs, s.openStream(res, accepts(req, 'text/event-stream'), batch));
}

function get(reg, req, res, tenant) {
  if (!accepts(req, 'text/event-stream'))
    throw new Refusal(406, 'Not Acceptable: GET opens an event stream; send Accept: text/event-stream.');
  const s = sessionOf(reg, req, tenant);
  const last = req.headers['last-event-id'];
  if (last !== undefined ? s.resume(last, res) : s.openStandalone(res)) return;
  if (last !== undefined) throw new Refusal(404, 'No such event stream to resume in this session (too old, or not of this session); send the request again.');
  throw new Refusal(409, 'Conflict: this session has an event stream open already; use that one.');
}

function metadata(cfg, res) {
  if (!cfg.authServer) return refuse(res, 404, 'No OAuth metadata here: this server takes bearer tokens its administrator hands out.');
  res.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
  res.end(JSON.stringify({ resource: resourceUrl(cfg, cfg.path), authorization_servers: [cfg.authServer],
    bearer_methods_supported: ['header'], resource_name: 'sr-mcp' }));
}

function cors(cfg, req, res) {
  const o = req.headers.origin;
  if (o === undefined) return;
  res.setHeader('Access-Control-Allow-Origin', o);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, WWW-Authenticate');
}

async function handle(reg, req, res) {
  const cfg = reg.cfg;
  if (!hostOk(cfg, req.headers.host))
    throw new Refusal(403, `Forbidden: Host ${req.headers.host || '(none)'} is not this server's; the administrator may allow it with --allow-host.`);
  const o = req.headers.origin;
  if (o !== undefined && !originOk(cfg, o, req.headers.host))
    throw new Refusal(403, `Forbidden: requests from the web origin ${o} are not allowed; the administrator may allow it with --allow-origin.`);
  cors(cfg, req, res);
  const p = new URL(req.url, 'http://h').pathname;
  if (p === '/.well-known/oauth-protected-resource' || p === `/.well-known/oauth-protected-resource${cfg.path}`)
    return metadata(cfg, res);
  if (p !== cfg.path) throw new Refusal(404, `Not Found: the MCP endpoint is ${cfg.path}.`);
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET, POST, DELETE', 'Access-Control-Allow-Headers': CORS_HEADERS,
      'Access-Control-Max-Age': '600' });
    return res.end();
  }
  const tenant = authenticate(cfg, req);
  if (req.method === 'POST') return post(reg, req, res, tenant);
  if (req.method === 'GET') return get(reg, req, res, tenant);
  if (req.method === 'DELETE') {
    sessionOf(reg, req, tenant).close('ended by the client (DELETE)');
    return res.writeHead(200).end();
  }
  throw new Refusal(405, `Method Not Allowed: ${req.method}; use POST, GET or DELETE.`, { Allow: 'GET, POST, DELETE, OPTIONS' });
}

function handler(reg) {
  return (req, res) => handle(reg, req, res).catch((e) => {
    if (!(e instanceof Refusal)) {
      process.stderr.write(`sr-mcp-http: unable to serve ${req.method} ${req.url}: ${e.stack || e}\n`);
      e = new Refusal(500, 'Internal error in sr-mcp-http; see its log.');
    }
    refuse(res, e.status, e.message, e.headers);
  });
}

module.exports = { Registry, handler, hostOk, originOk };
