'use strict';
// session.js - one MCP session: its own sr-mcp process (a process group of
// its own, the tenant's state directory, --tenant NAME) and the HTTP
// streams its messages go out on.
//
// A POST carrying requests opens a stream: the answers to those requests,
// and the progress notifications of their progress tokens, go out on it
// (SSE, or one JSON body when the client does not take SSE); it ends when
// each request has its answer (or was cancelled). Anything else sr-mcp
// sends (a request of its own, a log message) goes out on the GET stream,
// or if there is none on the newest open stream, or waits (bounded) for
// one. Every SSE event has an id STREAM.SEQ: a client that lost a stream
// asks for the rest with GET and Last-Event-ID.
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');

const KEEP_EVENTS = 1000;       // events kept per stream, for resumption
const KEEP_STREAMS = 32;        // ended streams kept, for resumption
const MAX_LINE = 64 << 20;      // a line from sr-mcp, at most
const KEEPALIVE_MS = 15000;

const key = (id) => JSON.stringify(id);
const isRequest = (m) => m && typeof m.method === 'string' && m.id !== undefined && m.id !== null;

class Stream {
  constructor(session, res, sse, batch) {
    this.id = crypto.randomBytes(8).toString('hex');
    this.session = session;
    this.sse = sse;
    this.batch = batch;
    this.res = null;
    this.pending = new Set();
    this.events = [];           // [seq, json] for SSE resumption
    this.seq = 0;
    this.answers = [];          // JSON mode: the responses
    this.ended = false;
    this.attach(res);
  }

  attach(res, after = 0) {
    if (this.res && this.res !== res && !this.res.writableEnded) this.res.end();   // resumed elsewhere
    this.res = res;
    if (!res) return;
    res.on('close', () => { if (this.res === res) this.res = null; });
    if (!this.sse) return;
    if (!res.headersSent)
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no' });
    for (const [seq, json] of this.events) if (seq > after) this.write(seq, json);
    if (this.ended) this.finish();
  }

  write(seq, json) {
    if (this.res && !this.res.writableEnded) this.res.write(`id: ${this.id}.${seq}\nevent: message\ndata: ${json}\n\n`);
  }

  push(msg) {
    const isAnswer = msg.id !== undefined && !msg.method;
    if (!this.sse) {
      if (isAnswer) this.answers.push(msg);
      return;
    }
    const json = JSON.stringify(msg);
    this.events.push([++this.seq, json]);
    if (this.events.length > KEEP_EVENTS) this.events.shift();
    this.write(this.seq, json);
  }

  // A request of this stream was answered or cancelled: the last one ends it.
  settle(k) {
    this.pending.delete(k);
    if (!this.pending.size) this.finish();
  }

  finish() {
    this.ended = true;
    const res = this.res;
    if (!res || res.writableEnded) return;
    if (this.sse) return res.end();
    if (!this.answers.length) return res.writeHead(202).end();   // all cancelled
    const body = JSON.stringify(this.batch ? this.answers : this.answers[0]);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  }
}

class Session {
  constructor(reg, tenant, oneShot) {
    this.reg = reg;
    this.tenant = tenant;
    this.oneShot = oneShot;
    this.id = crypto.randomBytes(32).toString('base64url');
    this.streams = new Map();   // stream id -> Stream, the open ones and the last ended
    this.byRequest = new Map(); // request key -> Stream
    this.byProgress = new Map(); // progress token key -> Stream
    this.standalone = null;     // the GET stream
    this.queue = [];            // messages for the GET stream, none open yet
    this.last = Date.now();
    this.closed = false;
    this.start();
  }

  start() {
    const cfg = this.reg.cfg;
    const args = ['--state-dir', this.reg.tenantDir(this.tenant), '--tenant', this.tenant, ...cfg.srArgs];
    this.child = spawn(cfg.srMcp, args, { env: cfg.childEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.pgid = this.child.pid;
    this.child.on('error', (e) => this.close(`unable to start sr-mcp: ${e.message}`));
    this.child.on('exit', (code, sig) => {
      this.exited = true;
      this.close(`its sr-mcp ended (${sig ? 'signal ' + sig : 'exit ' + code})`);
    });
    this.child.stdin.on('error', () => {});
    this.readLines(this.child.stdout, (l) => this.fromServer(l));
    const tag = `sr-mcp[${this.tenant} ${this.id.slice(0, 8)}]: `;
    this.readLines(this.child.stderr, (l) => process.stderr.write(tag + l + '\n'));
  }

  readLines(from, each) {
    let buf = '';
    from.setEncoding('utf8');
    from.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.trim()) each(line);
      }
      if (buf.length > MAX_LINE) {
        buf = '';
        this.close('sr-mcp wrote a line longer than 64 MiB');
      }
    });
  }

  touch() { this.last = Date.now(); }
  busy() { return this.byRequest.size > 0; }

  // Messages of a POST going to sr-mcp; the requests' answers go out on
  // stream (null: the POST had no request).
  send(msgs, stream) {
    for (const m of msgs) {
      if (isRequest(m) && stream) {
        const k = key(m.id);
        stream.pending.add(k);
        this.byRequest.set(k, stream);
        const tok = m.params && m.params._meta && m.params._meta.progressToken;
        if (tok !== undefined) this.byProgress.set(key(tok), stream);
      }
      if (m && m.method === 'notifications/cancelled' && m.params) this.cancelled(key(m.params.requestId));
      if (!this.closed) this.child.stdin.write(JSON.stringify(m) + '\n');
    }
  }

  // A cancelled request gets no answer: its stream no longer waits for it.
  cancelled(k) {
    const s = this.byRequest.get(k);
    if (!s) return;
    this.byRequest.delete(k);
    s.settle(k);
  }

  openStream(res, sse, batch) {
    const s = new Stream(this, res, sse, batch);
    this.streams.set(s.id, s);
    const ended = [...this.streams.values()].filter((x) => x.ended);
    for (const x of ended.slice(0, Math.max(0, ended.length - KEEP_STREAMS))) this.streams.delete(x.id);
    return s;
  }

  // GET: the rest of a stream after Last-Event-ID, or the session's own.
  resume(lastEventId, res) {
    const [sid, seq] = String(lastEventId).split('.');
    const s = this.streams.get(sid);
    if (!s || !s.sse) return false;
    s.attach(res, Number(seq) || 0);
    return true;
  }

  openStandalone(res) {
    if (this.standalone && this.standalone.res) return false;
    this.standalone = this.standalone || this.openStream(null, true, false);
    this.standalone.attach(res);
    for (const m of this.queue.splice(0)) this.standalone.push(m);
    return true;
  }

  fromServer(line) {
    let m;
    try { m = JSON.parse(line); } catch { return; }
    for (const one of Array.isArray(m) ? m : [m]) this.route(one);
  }

  route(m) {
    if (m.id !== undefined && m.method === undefined) {
      const k = key(m.id);
      const s = this.byRequest.get(k);
      if (!s) return;
      this.byRequest.delete(k);
      s.push(m);
      s.settle(k);
      if (this.oneShot && !this.busy()) this.close('its request was answered');
      return;
    }
    const tok = m.method === 'notifications/progress' && m.params ? m.params.progressToken : undefined;
    const s = tok !== undefined ? this.byProgress.get(key(tok)) : null;
    if (s && !s.ended) return s.push(m);
    if (this.standalone && this.standalone.res) return this.standalone.push(m);
    const open = [...this.streams.values()].reverse().find((x) => !x.ended && x.sse && x.res);
    if (open) return open.push(m);
    if (this.queue.length < KEEP_EVENTS) this.queue.push(m);
  }

  keepalive() {
    for (const s of this.streams.values())
      if (s.sse && s.res && !s.res.writableEnded) s.res.write(': keepalive\n\n');
  }

  // The end: answers still owed say why, the streams end, the whole
  // process group gets SIGTERM, then SIGKILL 2 s later.
  close(why) {
    if (this.closed) return;
    this.closed = true;
    this.reg.forget(this);
    for (const [k, s] of this.byRequest) {
      s.push({ jsonrpc: '2.0', id: JSON.parse(k), error: { code: -32603,
        message: `The MCP session ended before this request was answered: ${why}. Jobs already started go on; start a new session (initialize) and look them up with job_status.` } });
      s.settle(k);
    }
    this.byRequest.clear();
    for (const s of this.streams.values()) if (s.sse && s.res && !s.res.writableEnded) s.res.end();
    this.child.stdin.end();
    const kill = (sig) => { try { process.kill(-this.pgid, sig); } catch { /* gone */ } };
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), 2000);
    this.child.on('exit', () => setTimeout(() => { clearTimeout(timer); kill('SIGKILL'); }, 200));
  }
}

module.exports = { Session, KEEPALIVE_MS, isRequest };
