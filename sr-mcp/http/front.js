'use strict';
// front.js - the HTTP side: Host and Origin checks, the bearer token, the
// limits, and the three methods of Streamable HTTP on one endpoint (POST a
// message, GET a server stream, DELETE the session). Checks come first, in
// this order, and a refused request reaches no sr-mcp: Host (403), Origin
// (403), path (404), token (401), method (405), session (404), size (413),
// then the bounds of limits.js and --tenant-rate (400, 413, 429, 503).
const { Session, KEEPALIVE_MS, isRequest, key } = require('./session');
const { tenantOf } = require('./config');
const L = require('./limits');
const download = require('./download');
const publish = require('./publish');

const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];
const CORS_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';

// A refusal; with ids (the refused requests' ids), its body answers each;
// rpc: its JSON-RPC code (else one for the status) and data.
class Refusal extends Error {
  constructor(status, message, headers = {}, ids = null, rpc = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
    this.ids = ids;
    this.rpc = rpc;
  }
}

// The sessions, counted per tenant against the limits.
class Registry {
  constructor(cfg) {
    this.cfg = cfg;
    this.sessions = new Map();
    this.all = new Set();
    this.bodies = 0;            // bytes of request bodies being read
    this.buckets = new Map();   // tenant -> { tokens, at }: --tenant-rate
    this.rssAt = 0;
    this.timer = setInterval(() => this.sweep(), Math.min(1000, cfg.idleMs / 4));
    this.timer.unref();
    this.beat = setInterval(() => { for (const s of this.all) s.keepalive(); }, KEEPALIVE_MS);
    this.beat.unref();
  }

  tenantDir(t) { return `${this.cfg.stateDir}/${t}`; }
  count(t) { let n = 0; for (const s of this.all) if (s.tenant === t) n++; return n; }
  tenantSum(t, f) { let n = 0; for (const s of this.all) if (s.tenant === t) n += f(s); return n; }

  // Short of memory: the front's resident size past PRESSURE_RSS (read at
  // most every 100 ms); new work is then refused and unread output cut.
  pressure() {
    const now = Date.now();
    if (now - this.rssAt > 100) {
      this.rssAt = now;
      this.short = process.memoryUsage.rss() > L.PRESSURE_RSS;
    }
    return this.short;
  }

  // --tenant-rate: messages a second per tenant, with a burst of twice that
  // (at least a batch); past it 429, with when to retry.
  rate(tenant, n, ids) {
    const r = this.cfg.tenantRate;
    if (!r) return;
    const now = Date.now(), burst = Math.max(2 * r, L.BATCH);
    const b = this.buckets.get(tenant) || { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + (now - b.at) * r / 1000);
    b.at = now;
    this.buckets.set(tenant, b);
    if (b.tokens < n)
      throw new Refusal(429, `Too many requests: tenant ${tenant} sends more than ${r} messages a second (--tenant-rate); retry later.`,
        { 'Retry-After': String(Math.max(1, Math.ceil((n - b.tokens) / r))) }, ids);
    b.tokens -= n;
  }

  // Requests may enter (reqs: how many; s: their session, if it exists):
  // else 429 (this tenant's share is used) or 503 (the server's).
  admit(tenant, s, reqs, ids) {
    const busy = (what) => new Refusal(429, `Too many requests: ${what}; wait for answers, then retry.`, { 'Retry-After': '5' }, ids);
    if (s && s.inflight() + reqs > L.SESSION_INFLIGHT)
      throw busy(`this session has ${s.inflight()} unanswered requests, and takes at most ${L.SESSION_INFLIGHT}`);
    const t = this.tenantSum(tenant, (x) => x.inflight());
    if (t + reqs > L.TENANT_INFLIGHT)
      throw busy(`tenant ${tenant} has ${t} unanswered requests, and may have at most ${L.TENANT_INFLIGHT}`);
    const held = this.tenantSum(tenant, (x) => x.held());
    if (held > L.TENANT_HELD)
      throw busy(`tenant ${tenant}'s sessions hold ${held} bytes of output not yet read (at most ${L.TENANT_HELD}); read your responses`);
    if (s && s.stdinBacklog() > L.STDIN)
      throw busy(`this session's sr-mcp has ${s.stdinBacklog()} bytes of messages still to read`);
    if (this.pressure())
      throw new Refusal(503, 'This server is short of memory just now; retry in a moment.', { 'Retry-After': '5' }, ids);
  }

  // A new session. At --tenant-sessions or --max-sessions, the tenant's
  // own session idle longest (no request in flight) is ended to make
  // room; only when each of its sessions has one is the new one refused
  // (429, or 503 for the server's bound), Retry-After saying when one can
  // be had.
  open(tenant, oneShot, ids) {
    const c = this.cfg;
    const mine = () => this.count(tenant) >= c.tenantSessions, full = () => this.all.size >= c.maxSessions;
    for (let s; (mine() || full()) && (s = this.idlest(tenant));)
      s.close(`ended to make room for a new session of tenant ${tenant} (${mine() ? '--tenant-sessions' : '--max-sessions'}): it was the one idle longest`);
    if (mine())
      throw new Refusal(429, `Tenant ${tenant} has ${c.tenantSessions} MCP sessions open, the most one tenant may (--tenant-sessions), and each has a request in flight: retry when one is answered (Retry-After), or end one (DELETE /mcp with its Mcp-Session-Id).`,
        { 'Retry-After': String(this.retryAfter(tenant, false)) }, ids);
    if (full())
      throw new Refusal(503, `This server has ${c.maxSessions} MCP sessions open, the most it allows (--max-sessions), none of them yours to end: retry later (Retry-After), or end one of yours (DELETE /mcp with its Mcp-Session-Id).`,
        { 'Retry-After': String(this.retryAfter(tenant, true)) }, ids);
    const s = new Session(this, tenant, oneShot);
    this.all.add(s);
    if (!oneShot) this.sessions.set(s.id, s);
    return s;
  }

  // The tenant's session without a request in flight, used longest ago.
  idlest(tenant) {
    let best = null;
    for (const s of this.all)
      if (s.tenant === tenant && !s.oneShot && !s.inflight() && (!best || s.last < best.last)) best = s;
    return best;
  }

  // Seconds until a session can be had: one of the tenant's is free to end
  // once its requests are answered (sr-mcp answers each within its
  // --wait-max, plus ANSWER_MS to send it); another tenant's session (the
  // server's bound) ends when it has been idle --idle-timeout.
  retryAfter(tenant, server) {
    const now = Date.now();
    let soonest = Infinity;
    for (const s of this.all) {
      if (s.tenant !== tenant && !server) continue;
      let at = now;
      for (const e of s.byWire.values()) at = Math.max(at, e.at + this.cfg.waitMaxMs + L.ANSWER_MS);
      if (s.tenant !== tenant && !s.oneShot) at = Math.max(at, s.last + this.cfg.idleMs);
      soonest = Math.min(soonest, at);
    }
    return Math.max(1, Math.ceil((soonest - now) / 1000));
  }

  // A session of this tenant's (another tenant's is as unknown as none).
  get(id, tenant) {
    const s = this.sessions.get(id);
    return s && s.tenant === tenant && !s.closed ? s : null;
  }

  forget(s) { this.all.delete(s); this.sessions.delete(s.id); }

  sweep() {
    const now = Date.now();
    for (const s of [...this.all]) s.sweep(now, this.cfg.idleMs);
  }

  closeAll(why) { for (const s of [...this.all]) s.close(why); }

  // What the front holds (SIGUSR2 writes it to the log): sessions,
  // unanswered requests, progress tokens, streams, bytes held, bodies.
  stats() {
    const sum = (f) => { let n = 0; for (const s of this.all) n += f(s); return n; };
    return { sessions: this.all.size, inflight: sum((s) => s.byWire.size), clientIds: sum((s) => s.byClient.size),
      progress: sum((s) => s.byProgress.size), streams: sum((s) => s.streams.size), held: sum((s) => s.held()),
      bodies: this.bodies, rss: process.memoryUsage.rss() };
  }
}

function refuse(res, status, message, headers = {}, ids = null, rpc = {}) {
  if (res.headersSent) return res.end();
  const code = rpc.code ?? (status >= 500 || status === 429 ? -32603 : -32600);
  const one = (id) => ({ jsonrpc: '2.0', id, error: { code, message, ...(rpc.data ? { data: rpc.data } : {}) } });
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(ids && ids.batch && ids.length ? ids.map(one) : one(ids && ids.length ? ids[0] : null)));
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

// Origin (sent by browsers): --allow-origin, or the server's own: this
// server speaks http, at the Host the request names (port included, as
// written); --public-url's origin when a proxy serves it.
function originOk(cfg, origin, host) {
  if (cfg.origins.includes(origin)) return true;
  if (cfg.publicUrl && origin === new URL(cfg.publicUrl).origin) return true;
  return origin === `http://${String(host).toLowerCase()}`;
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

// The body, counted as it arrives against --max-body, and with every body
// being read against BODIES.
function readBody(reg, req) {
  const cfg = reg.cfg;
  return new Promise((resolve, reject) => {
    const big = () => new Refusal(413, `The request body is larger than this server takes (${cfg.maxBody} bytes, --max-body): send less at once (big files: several write_file calls, or import_files).`, { Connection: 'close' });
    if (Number(req.headers['content-length']) > cfg.maxBody) return reject(big());
    let parts = [], n = 0, over = false;
    const release = () => { reg.bodies -= n; n = 0; parts = []; };
    const fail = (e) => { if (over) return; over = true; req.pause(); release(); reject(e); };
    req.on('data', (d) => {
      if (over) return;
      n += d.length;
      reg.bodies += d.length;
      if (n > cfg.maxBody) fail(big());
      else if (reg.bodies > L.BODIES) fail(new Refusal(503, 'This server is reading more request bodies than it holds at once; retry in a moment.', { 'Retry-After': '5', Connection: 'close' }));
      else parts.push(d);
    });
    req.on('end', () => {
      if (over) return;
      over = true;
      const body = Buffer.concat(parts).toString('utf8');
      release();
      resolve(body);
    });
    req.on('error', fail);
    req.on('close', () => fail(new Refusal(400, 'Bad Request: the body ended early.')));
  });
}

const accepts = (req, type) => (req.headers.accept || '').split(',').some((a) => {
  const t = a.split(';')[0].trim();
  return t === type || t === '*/*';
});

// The body's messages. ids: the ids of its requests that can be answered
// (a string, or a number JSON keeps exact), which every refusal answers.
function parseMessages(body) {
  let parsed;
  try { parsed = JSON.parse(body); } catch { throw new Refusal(400, 'Parse error: the body is not JSON; send a JSON-RPC message.', {}, null, { code: -32700 }); }
  const msgs = Array.isArray(parsed) ? parsed : [parsed];
  const ids = msgs.filter((m) => isRequest(m) && (typeof m.id === 'string' || exactNumber(m.id)) && key(m.id).length <= L.ID_CHARS)
    .map((m) => m.id);
  ids.batch = Array.isArray(parsed);
  if (!msgs.length || msgs.some((m) => !m || typeof m !== 'object' || Array.isArray(m) || m.jsonrpc !== '2.0'))
    throw new Refusal(400, 'Invalid Request: the body must be a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0"), or an array of them.', {}, ids);
  if (msgs.length > L.BATCH)
    throw new Refusal(413, `A batch of ${msgs.length} messages is more than this server takes at once (${L.BATCH}); send them in smaller batches.`, {}, ids);
  for (const m of msgs) {
    try { checkMessage(m); } catch (e) { e.ids = ids; throw e; }
  }
  return { msgs, batch: ids.batch, ids };
}

// What sr-mcp could not read, or the front could not match to its answer,
// is refused here, whole: an id that is not a string or a number, an id or
// a progress token longer than ID_CHARS, nesting deeper than DEPTH, a
// string that is not Unicode (a lone surrogate), a message over LINE.
const exactNumber = (n) => Number.isFinite(n) && (Number.isSafeInteger(n) || !Number.isInteger(n));
function checkMessage(m) {
  const bad = (why) => new Refusal(400, `Invalid Request: ${why}.`);
  if (m.id !== undefined && m.id !== null) {
    if (typeof m.id !== 'string' && !exactNumber(m.id))
      throw bad('a request id is a string or a number (an integer of at most 2^53-1: larger ones no JSON reader keeps exact)');
    if (key(m.id).length > L.ID_CHARS) throw bad(`a request id is at most ${L.ID_CHARS} characters`);
  }
  const tok = m.params && m.params._meta ? m.params._meta.progressToken : undefined;
  if (tok !== undefined && ((typeof tok !== 'string' && !exactNumber(tok)) || key(tok).length > L.ID_CHARS))
    throw bad(`a progress token is a string or an integer of at most ${L.ID_CHARS} characters`);
  const todo = [[m, 1]];
  while (todo.length) {
    const [v, depth] = todo.pop();
    if (depth > L.DEPTH) throw bad(`arrays and objects are nested at most ${L.DEPTH} deep`);
    for (const [k, x] of Object.entries(v)) {
      if (!k.isWellFormed() || (typeof x === 'string' && !x.isWellFormed()))
        throw bad('a string holds a lone surrogate (\\ud800 without its pair): not Unicode');
      if (x && typeof x === 'object') todo.push([x, depth + 1]);
    }
  }
  if (JSON.stringify(m).length > L.LINE)
    throw new Refusal(413, `A message over ${L.LINE} characters is more than sr-mcp reads; send less at once.`);
}

function sessionOf(reg, req, tenant, ids = null) {
  const id = req.headers['mcp-session-id'];
  if (id === undefined) throw new Refusal(400, 'Bad Request: the Mcp-Session-Id header is missing; send the id the initialize response gave.', {}, ids);
  const s = reg.get(String(id), tenant);
  if (!s) throw new Refusal(404, 'Session not found: it was closed, idled out, ended to make room for a newer session of its tenant, or the server restarted. Start a new session with initialize (jobs and workspaces of this tenant are kept).', {}, ids);
  s.touch();
  return s;
}

// 2026-07-28 (a request without a session that says that version in its
// MCP-Protocol-Version header, or any version in its _meta): each request carries its
// version and capabilities in _meta (else -32602), and its headers say
// what its body says (else -32020): both 400.
const PV = 'io.modelcontextprotocol/protocolVersion', CAPS = 'io.modelcontextprotocol/clientCapabilities';
const MODERN = '2026-07-28';
const metaOf = (m) => (m.params && typeof m.params === 'object' && m.params._meta && typeof m.params._meta === 'object' ? m.params._meta : null);

function modern(req, msgs) {
  if (req.headers['mcp-session-id'] !== undefined) return false;
  const v = req.headers['mcp-protocol-version'];
  return (v !== undefined && v >= MODERN) || msgs.some((m) => metaOf(m) && typeof metaOf(m)[PV] === 'string');
}

// Mcp-Name's source: the body value the header must equal (required where
// the transport names it; tasks/*'s is checked when sent).
function nameOf(m) {
  const p = m.params && typeof m.params === 'object' ? m.params : {};
  if (m.method === 'tools/call' || m.method === 'prompts/get') return [p.name, true];
  if (m.method === 'resources/read') return [p.uri, true];
  if (/^tasks\/(get|update|cancel)$/.test(m.method)) return [p.taskId, false];
  return [undefined, false];
}

// A header value as sent: =?base64?...?= decoded (Mcp-Name may be so).
function decoded(v) {
  const b = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(v);
  return b ? Buffer.from(b[1], 'base64').toString('utf8') : v;
}

function checkModern(req, m, ids) {
  const meta = metaOf(m);
  const missing = !meta ? '_meta' : typeof meta[PV] !== 'string' ? `_meta["${PV}"]`
    : !meta[CAPS] || typeof meta[CAPS] !== 'object' || Array.isArray(meta[CAPS]) ? `_meta["${CAPS}"]` : null;
  if (missing)
    throw new Refusal(400, `Invalid params: ${missing} is missing; a ${MODERN} request carries its protocol version and the client's capabilities in params._meta.`, {}, ids, { code: -32602 });
  const mismatch = (name, sent, body, encoded) => {
    const v = sent === undefined ? undefined : encoded ? decoded(sent) : sent;
    if (v === body) return;
    throw new Refusal(400, sent === undefined ? `Header mismatch: the ${name} header is missing; it must say ${JSON.stringify(body)}, as the body does.`
      : `Header mismatch: the ${name} header says ${JSON.stringify(String(sent).slice(0, 200))}, the body ${JSON.stringify(String(body).slice(0, 200))}.`, {}, ids, { code: -32020 });
  };
  mismatch('MCP-Protocol-Version', req.headers['mcp-protocol-version'], meta[PV]);
  mismatch('Mcp-Method', req.headers['mcp-method'], m.method);
  const [name, required] = nameOf(m);
  if (typeof name === 'string' && (required || req.headers['mcp-name'] !== undefined))
    mismatch('Mcp-Name', req.headers['mcp-name'], name, true);
}

async function post(reg, req, res, tenant) {
  // the body first: each refusal after this one answers its requests' ids
  const body = await readBody(reg, req);
  let ids = null;
  try { ids = parseMessages(body).ids; } catch (e) { ids = e.ids || null; }
  const v = req.headers['mcp-protocol-version'];
  if (v !== undefined && !VERSIONS.includes(v))
    throw new Refusal(400, `Bad Request: unsupported MCP-Protocol-Version ${v}; this server speaks ${VERSIONS.join(', ')}.`, {}, ids,
      { code: -32022, data: { supported: [...VERSIONS].reverse(), requested: v } });
  if (!/^application\/json\b/i.test(req.headers['content-type'] || ''))
    throw new Refusal(415, 'Unsupported Media Type: send the message with Content-Type: application/json.', {}, ids);
  if (!accepts(req, 'application/json') && !accepts(req, 'text/event-stream'))
    throw new Refusal(406, 'Not Acceptable: the client must accept application/json and text/event-stream.', {}, ids);
  const { msgs, batch } = parseMessages(body);
  const stateless = modern(req, msgs);
  if (stateless) for (const m of msgs) if (isRequest(m)) checkModern(req, m, ids);
  reg.rate(tenant, msgs.length, ids);
  let s;
  if (!stateless && msgs.some((m) => m.method === 'initialize')) {
    if (req.headers['mcp-session-id'] !== undefined)
      throw new Refusal(400, 'Bad Request: initialize opens a new session; send it without an Mcp-Session-Id header.', {}, ids);
    if (msgs.length > 1) throw new Refusal(400, 'Invalid Request: send initialize alone, not in a batch.', {}, ids);
    reg.admit(tenant, null, ids.length, ids);
    s = reg.open(tenant, false, ids);
    res.setHeader('Mcp-Session-Id', s.id);
  } else if (req.headers['mcp-session-id'] !== undefined) {
    s = sessionOf(reg, req, tenant, ids);
    reg.admit(tenant, s, ids.length, ids);
  } else {
    reg.admit(tenant, null, ids.length, ids);
    s = reg.open(tenant, true, ids);   // 2026-07-28: no session, an sr-mcp for this request
  }
  const seen = new Set();
  const dup = msgs.find((m) => isRequest(m) && (s.byClient.has(key(m.id)) || seen.size === seen.add(key(m.id)).size));
  if (dup) {
    if (s.oneShot) s.close('its request was refused');
    throw new Refusal(409, `Conflict: request id ${JSON.stringify(dup.id)} is already in use by an unanswered request of this session; give each request a new id.`, {}, ids);
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
  if (req.url.startsWith(download.PREFIX)) return download.serve(reg, req, res);   // signed: no token
  if (req.url.startsWith(publish.PREFIX)) return publish.serve(reg, req, res);     // the link is the permission
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
    refuse(res, e.status, e.message, e.headers, e.ids, e.rpc);
  });
}

module.exports = { Registry, handler, hostOk, originOk };
