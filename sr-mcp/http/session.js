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
//
// sr-mcp sees requests under ids of the session's own (1, 2, 3...), each
// mapped back to the client's id on its answer: an answer always finds its
// request, whatever id the client chose. What is kept is bounded
// (limits.js): a request's bookkeeping goes with its answer, a stream
// delivered whole is forgotten, a client that does not read is cut off.
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const L = require('./limits');
const { annotate } = require('./download');
const publish = require('./publish');

const MAX_LINE = 64 << 20;      // a line from sr-mcp, at most
const KEEPALIVE_MS = 15000;

const key = (id) => JSON.stringify(id);
// The start of an answer as sr-mcp writes it (our ids are integers).
const ANSWER = /^\{"jsonrpc":"2\.0","id":(\d{1,15}),(?="(?:result|error)":)/;
// The HTTP status of a stateless request's error answer (2026-07-28).
const STATUS = { [-32601]: 404, [-32020]: 400, [-32021]: 400, [-32022]: 400 };
const isRequest = (m) => m && typeof m.method === 'string' && m.id !== undefined && m.id !== null;

class Stream {
  constructor(session, res, sse, batch) {
    this.id = crypto.randomBytes(8).toString('hex');
    this.session = session;
    this.sse = sse;
    this.batch = batch;
    this.res = null;
    this.pending = new Set();   // the session's ids of the requests it waits for
    this.events = [];           // [seq, text] kept for resumption (the session bounds them)
    this.seq = 0;
    this.answers = [];          // JSON mode: the responses, as text
    this.answerBytes = 0;
    this.ended = false;
    this.seen = Date.now();     // when a client last had it open
    // a stateless request's status waits for its answer (404 for a method
    // it does not have, 400 for one refused so); a keepalive or a
    // notification before it sends 200
    this.status = session.oneShot ? 0 : 200;
    this.attach(res);
  }

  head() {
    const res = this.res;
    if (res.headersSent) return;
    res.writeHead(this.status || 200, this.sse ? { 'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' } : { 'Content-Type': 'application/json' });
  }

  // The status of a stateless request's answer (msg: parsed, or its text).
  answerStatus(msg, json) {
    if (this.status) return;
    const m = msg.error || msg.result ? msg : JSON.parse(json);
    this.status = (m.error && STATUS[m.error.code]) || 200;
  }

  attach(res, after = 0) {
    if (this.res && this.res !== res && !this.res.writableEnded) this.res.end();   // resumed elsewhere
    this.res = res;
    if (!res) return;
    this.seen = Date.now();
    res.on('close', () => {
      if (this.res !== res) return;
      this.res = null;
      this.seen = Date.now();
      this.session.detached(this, res);
    });
    if (!this.sse) return;
    if (this.status) this.head();
    for (const [seq, text] of this.events) if (seq > after) this.write(text);
    if (this.ended) this.finish();
  }

  live() { return this.res && !this.res.writableEnded && !this.res.destroyed; }
  unsent() { return this.res && !this.res.destroyed ? this.res.writableLength : 0; }

  write(text) {
    if (!this.live()) return;
    this.head();
    this.res.write(text);
    this.session.checkUnsent(this);
  }

  // A message (json: its text, when the caller has it) for this stream.
  push(msg, json = JSON.stringify(msg)) {
    if (msg.id !== undefined && !msg.method) this.answerStatus(msg, json);
    if (!this.sse) {
      if (msg.id !== undefined && !msg.method) this.session.holdAnswer(this, msg, json);
      return;
    }
    const text = `id: ${this.id}.${++this.seq}\nevent: message\ndata: ${json}\n\n`;
    this.session.keep(this, this.seq, text);
    this.write(text);
  }

  // A request of this stream was answered or cancelled: the last one ends it.
  settle(w) {
    this.pending.delete(w);
    if (!this.pending.size) this.finish();
  }

  finish() {
    this.ended = true;
    const res = this.res;
    if (!res || res.writableEnded || res.destroyed) return;
    // once all of it has gone out, nothing of it is kept
    res.on('finish', () => this.session.delivered(this));
    if (this.sse) {
      this.head();
      return res.end();
    }
    const answers = this.answers;
    this.session.answerBytes -= this.answerBytes;
    this.answers = [];
    this.answerBytes = 0;
    if (!answers.length) return res.writeHead(202).end();   // all cancelled
    this.head();
    res.end(this.batch ? `[${answers.join(',')}]` : answers[0]);
    this.session.checkUnsent(this);
  }
}

class Session {
  constructor(reg, tenant, oneShot) {
    this.reg = reg;
    this.tenant = tenant;
    this.oneShot = oneShot;
    this.id = crypto.randomBytes(32).toString('base64url');
    this.streams = new Map();   // stream id -> Stream: open, or kept for resumption
    this.byWire = new Map();    // our id -> { cid (the client's id), ck, tk, stream, at (sent) }
    this.byClient = new Map();  // the client's id as JSON -> our id
    this.byProgress = new Map(); // progress token as JSON -> Stream
    this.nextWire = 1;
    this.standalone = null;     // the GET stream
    this.queue = [];            // messages for the GET stream, none open yet
    this.queueBytes = 0;
    this.replayBytes = 0;
    this.replayEvents = 0;
    this.answerBytes = 0;
    this.last = Date.now();
    this.closed = false;
    this.start();
  }

  start() {
    const cfg = this.reg.cfg;
    const args = ['--state-dir', this.reg.tenantDir(this.tenant), '--tenant', this.tenant, ...cfg.argsOf(this.tenant)];
    const env = this.oneShot ? { ...cfg.childEnv, SR_MCP_ONE_REQUEST: '1' } : cfg.childEnv;
    this.child = spawn(cfg.srMcp, args, { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.pgid = this.child.pid;
    this.child.on('error', (e) => this.close(`unable to start sr-mcp: ${e.message}`));
    this.child.on('exit', (code, sig) => {
      this.exited = true;
      this.close(`its sr-mcp ended (${sig ? 'signal ' + sig : 'exit ' + code})`);
    });
    this.child.stdin.on('error', () => {});
    this.readLines(this.child.stdout, (l) => this.fromServer(l));
    this.tag = `sr-mcp[${this.tenant} ${this.id.slice(0, 8)}]: `;
    this.readLines(this.child.stderr, (l) => process.stderr.write(this.tag + l + '\n'));
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
  // Busy: a client waits on an answer (an unanswered request whose stream
  // someone reads). A request nobody waits for does not keep the session.
  busy() {
    for (const e of this.byWire.values()) if (e.stream.res) return true;
    return false;
  }
  inflight() { return this.byWire.size; }

  // What the session holds in the front's memory, in bytes.
  held() {
    let n = this.replayBytes + this.answerBytes + this.queueBytes + this.stdinBacklog();
    for (const s of this.streams.values()) n += s.unsent();
    return n;
  }
  stdinBacklog() { return this.closed ? 0 : this.child.stdin.writableLength; }

  toChild(m) { if (!this.closed) this.child.stdin.write(JSON.stringify(m) + '\n'); }

  // Messages of a POST going to sr-mcp; the requests' answers go out on
  // stream (null: the POST had no request).
  send(msgs, stream) {
    for (const m of msgs) {
      if (isRequest(m) && stream) {
        const w = this.nextWire++;
        const ck = key(m.id);
        const tok = m.params && m.params._meta ? m.params._meta.progressToken : undefined;
        const tk = tok === undefined ? undefined : key(tok);
        this.byWire.set(w, { cid: m.id, ck, tk, stream, at: Date.now() });
        this.byClient.set(ck, w);
        if (tk !== undefined) this.byProgress.set(tk, stream);
        stream.pending.add(w);
        this.toChild({ ...m, id: w });
      } else if (m.method === 'notifications/cancelled' && m.params && typeof m.params === 'object') {
        // only an unanswered request of this session can be cancelled
        const w = this.byClient.get(key(m.params.requestId));
        if (w === undefined) continue;
        this.toChild({ ...m, params: { ...m.params, requestId: w } });
        this.forget(w).stream.settle(w);   // a cancelled request gets no answer
      } else {
        this.toChild(m);
      }
    }
  }

  // A request's bookkeeping, gone (answered, cancelled, abandoned).
  forget(w) {
    const e = this.byWire.get(w);
    this.byWire.delete(w);
    if (this.byClient.get(e.ck) === w) this.byClient.delete(e.ck);
    if (e.tk !== undefined && this.byProgress.get(e.tk) === e.stream) this.byProgress.delete(e.tk);
    return e;
  }

  openStream(res, sse, batch) {
    const s = new Stream(this, res, sse, batch);
    this.streams.set(s.id, s);
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
    this.queueBytes = 0;
    for (const m of this.queue.splice(0)) this.standalone.push(m);
    return true;
  }

  fromServer(line) {
    // an answer, as sr-mcp writes one: its id replaced, the rest not parsed
    const a = !line.includes('"resource_link"') && !line.includes('"expose_id"') && ANSWER.exec(line);
    const e = a && this.byWire.get(Number(a[1]));
    if (e) return this.answered(Number(a[1]), e, { id: e.cid }, `{"jsonrpc":"2.0","id":${e.ck},${line.slice(a[0].length)}`);
    let m;
    try { m = JSON.parse(line); } catch { return; }
    for (const one of Array.isArray(m) ? m : [m]) {
      if (!one || typeof one !== 'object') continue;
      annotate(this.reg.cfg, this.tenant, one);   // download links beside resource_links
      publish.annotate(this.reg.cfg, this.tenant, one);   // expose_port's url on the front's address
      this.route(one);
    }
  }

  answer(m) {
    const e = typeof m.id === 'number' ? this.byWire.get(m.id) : undefined;
    if (!e) {
      process.stderr.write(`${this.tag}an answer to no request of this session (id ${key(m.id).slice(0, 40)}) dropped\n`);
      return;
    }
    const msg = { ...m, id: e.cid };
    this.answered(m.id, e, msg, JSON.stringify(msg));
  }

  answered(w, e, msg, json) {
    this.forget(w);
    e.stream.push(msg, json);
    e.stream.settle(w);
    if (this.oneShot && !this.byWire.size) this.close('its request was answered');
  }

  route(m) {
    if (m.id !== undefined && m.method === undefined) return this.answer(m);
    const tok = m.method === 'notifications/progress' && m.params ? m.params.progressToken : undefined;
    const s = tok !== undefined ? this.byProgress.get(key(tok)) : null;
    if (s && !s.ended) return s.push(m);
    if (this.standalone && this.standalone.res) return this.standalone.push(m);
    const open = [...this.streams.values()].reverse().find((x) => !x.ended && x.sse && x.res);
    if (open) return open.push(m);
    const n = JSON.stringify(m).length;
    if (this.queue.length < L.QUEUE_EVENTS && this.queueBytes + n <= L.QUEUE) {
      this.queue.push(m);
      this.queueBytes += n;
    }
  }

  // An SSE event kept for Last-Event-ID; past the session's bound the
  // oldest kept go (a client resuming that far back gets 404).
  keep(stream, seq, text) {
    stream.events.push([seq, text]);
    this.replayBytes += text.length;
    this.replayEvents++;
    for (const s of this.streams.values()) {
      while (s.events.length && (this.replayBytes > L.REPLAY || this.replayEvents > L.REPLAY_EVENTS)) {
        this.replayBytes -= s.events.shift()[1].length;
        this.replayEvents--;
      }
      if (this.replayBytes <= L.REPLAY && this.replayEvents <= L.REPLAY_EVENTS) break;
    }
  }

  drop(stream) {
    for (const [, text] of stream.events) this.replayBytes -= text.length;
    this.replayEvents -= stream.events.length;
    stream.events = [];
    this.answerBytes -= stream.answerBytes;
    stream.answers = [];
    stream.answerBytes = 0;
    this.streams.delete(stream.id);
    if (this.standalone === stream) this.standalone = null;
  }

  // A stream whose every event went out: nothing of it is kept.
  delivered(stream) { if (stream.ended) this.drop(stream); }

  // Its client went away: a JSON body cannot be resumed, so what it
  // gathered goes; an SSE stream's events wait (bounded) for Last-Event-ID.
  detached(stream) {
    if (this.oneShot && !stream.ended && stream.pending.size) return this.cancel(stream);
    if (stream.sse) return;
    this.answerBytes -= stream.answerBytes;
    stream.answers = [];
    stream.answerBytes = 0;
    if (stream.ended) this.drop(stream);
  }

  // A client that does not read its responses loses them (the connection is
  // cut; SSE events wait for Last-Event-ID), not the server its memory.
  checkUnsent(stream) {
    const u = stream.unsent();
    if (u <= 65536) return;
    let total = 0;
    for (const s of this.streams.values()) total += s.unsent();
    const why = u > L.STREAM_UNSENT ? `${u} bytes of one response unread (at most ${L.STREAM_UNSENT})`
      : total > L.SESSION_UNSENT ? `${total} bytes of its responses unread (at most ${L.SESSION_UNSENT})`
        : this.reg.pressure() ? `${u} bytes unread while the server is short of memory` : null;
    if (!why) return;
    process.stderr.write(`${this.tag}a response cut off: the client does not read: ${why}\n`);
    stream.res.destroy();
    stream.res = null;
    stream.seen = Date.now();
    this.detached(stream);
  }

  // JSON mode: an answer waits for the rest of its batch, within bounds.
  holdAnswer(stream, msg, json) {
    if (!stream.res) return;   // nobody to give it to
    if (this.answerBytes + json.length > L.JSON_ANSWERS || (this.reg.pressure() && json.length > 65536)) {
      msg = { jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: `The answer (${json.length} bytes) is more than this server holds for one session's JSON responses (${L.JSON_ANSWERS} bytes in all); send fewer requests at once, or accept text/event-stream.` } };
      json = JSON.stringify(msg);
    }
    stream.answers.push(json);
    stream.answerBytes += json.length;
    this.answerBytes += json.length;
  }

  // 2026-07-28: closing a request's response stream cancels the request:
  // sr-mcp is told (notifications/cancelled, which ends its job), and
  // ends once it has done so (its stdin closed).
  cancel(stream) {
    for (const w of [...stream.pending]) {
      this.toChild({ jsonrpc: '2.0', method: 'notifications/cancelled',
        params: { requestId: w, reason: 'the client closed the response stream' } });
      this.forget(w);
      stream.settle(w);
    }
    if (!this.byWire.size) this.close('its request was cancelled: the client closed the response stream');
  }

  // Streams no client has read for a while go, with the requests they wait
  // for (an answer that comes later is dropped); then the idle check.
  sweep(now, idleMs) {
    const keepMs = Math.min(L.DETACHED_MS, idleMs);
    for (const s of [...this.streams.values()]) {
      if (s.res || now - s.seen <= keepMs) continue;
      for (const w of s.pending) this.forget(w);
      s.pending.clear();
      s.ended = true;
      this.drop(s);
    }
    if (!this.busy() && now - this.last > idleMs) this.close(`idle for ${Math.round(idleMs / 1000)} s`);
  }

  keepalive() {
    for (const s of this.streams.values()) if (s.sse && s.live()) s.write(': keepalive\n\n');
  }

  // The end: answers still owed say why, the streams end, and sr-mcp's
  // stdin. A session's sr-mcp then gets SIGTERM (it ends at once, quietly),
  // its whole process group SIGKILL 2 s later. A stateless request's sr-mcp
  // (SR_MCP_ONE_REQUEST) ends by itself once its input has: its call
  // answered or cancelled, its sweep done; SIGTERM only after ONE_MS.
  close(why) {
    if (this.closed) return;
    this.closed = true;
    this.reg.forget(this);
    for (const w of [...this.byWire.keys()]) {
      const e = this.forget(w);
      e.stream.push({ jsonrpc: '2.0', id: e.cid, error: { code: -32603,
        message: `The MCP session ended before this request was answered: ${why}. Jobs already started go on; start a new session (initialize) and look them up with job_status.` } });
      e.stream.settle(w);
    }
    for (const s of this.streams.values()) if (s.sse && s.live()) s.res.end();
    this.queue = [];
    this.child.stdin.end();
    const kill = (sig, group = true) => { try { process.kill(group ? -this.pgid : this.pgid, sig); } catch { /* gone */ } };
    const end = () => {
      kill('SIGTERM', false);
      return setTimeout(() => kill('SIGKILL'), 2000);
    };
    let timer = this.oneShot && !this.exited ? setTimeout(() => { timer = end(); }, L.ONE_MS) : end();
    this.child.on('exit', () => setTimeout(() => { clearTimeout(timer); kill('SIGKILL'); }, 200));
  }
}

module.exports = { Session, KEEPALIVE_MS, isRequest, key };
