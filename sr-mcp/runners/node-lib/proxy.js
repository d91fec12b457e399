'use strict';
// Preloaded (node -r) by the javascript and typescript runners and the
// javascript session interpreter: Node 20 ignores HTTP(S)_PROXY, in its
// global fetch (undici) as in http.get/https.get, and has no
// NODE_USE_ENV_PROXY. Under a proxy (sr-jail --net-proxy sets the
// variables) each request to a host NO_PROXY does not name goes through a
// CONNECT tunnel to the proxy (TLS, for https, inside the tunnel, checked
// against the usual CAs and NODE_EXTRA_CA_CERTS): http's and https's
// global agents do so, and fetch's global dispatcher is one of our own that
// makes each request with those agents. A refusal of the proxy is an error
// that carries its status line and body (the proxy's reason). Without the
// variables nothing changes.
const env = (n) => process.env[n.toLowerCase()] || process.env[n.toUpperCase()] || '';
const proxyUrl = env('https_proxy') || env('http_proxy') || '';
let proxy = null;
try { if (proxyUrl) proxy = new URL(proxyUrl); } catch { proxy = null; }

if (proxy && proxy.protocol === 'http:') install(proxy);

// host (a name or an address, without port) is one NO_PROXY or no_proxy names: '*',
// the name itself, or a suffix of it ('.x.test' or 'x.test' for a.x.test).
function direct(host) {
  host = host.replace(/^\[|\]$/g, '').toLowerCase();
  const list = `${process.env.no_proxy || ''},${process.env.NO_PROXY || ''}`;
  for (let e of list.split(',')) {
    e = e.trim().toLowerCase().replace(/:\d+$/, '');
    if (!e) continue;
    if (e === '*') return true;
    e = e.replace(/^\*?\./, '');
    if (host === e || host.endsWith('.' + e)) return true;
  }
  return false;
}

function install(px) {
  const http = require('http');
  const https = require('https');
  const tls = require('tls');
  const pxPort = Number(px.port) || 80;

  // A tunnel to host:port through the proxy, to cb(err, socket).
  function tunnel(host, port, cb) {
    const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const req = http.request({ host: px.hostname, port: pxPort, method: 'CONNECT',
      path: authority, headers: { host: authority }, agent: false });
    req.once('connect', (res, sock, head) => {
      if (res.statusCode === 200) {
        if (head && head.length) sock.unshift(head);
        return cb(null, sock);
      }
      let body = head ? head.toString() : '';
      sock.on('data', (d) => { body += d; });
      let told = false;
      const fail = () => {
        if (told) return;
        told = true;
        cb(Object.assign(new Error(
          `the proxy refused ${authority}: ${res.statusCode} ${res.statusMessage}` +
          (body.trim() ? ` (${body.trim()})` : '')), { code: 'EPROXYREFUSED' }));
      };
      for (const ev of ['end', 'error', 'close']) sock.once(ev, fail);
      setTimeout(() => { sock.destroy(); }, 2000).unref();
    });
    req.once('error', cb);
    req.end();
  }

  class TunnelHttp extends http.Agent {
    createConnection(o, cb) {
      if (direct(o.host || 'localhost')) return super.createConnection(o, cb);
      tunnel(o.host, o.port || 80, cb);
    }
  }
  class TunnelHttps extends https.Agent {
    createConnection(o, cb) {
      if (direct(o.host || 'localhost')) return super.createConnection(o, cb);
      tunnel(o.host, o.port || 443, (err, sock) => {
        if (err) return cb(err);
        const t = tls.connect({ ...o, socket: sock, servername: o.servername || o.host });
        let done = false;
        t.once('secureConnect', () => { if (!done) { done = true; cb(null, t); } });
        t.once('error', (e) => { if (!done) { done = true; cb(e); } });
      });
    }
  }
  http.globalAgent = new TunnelHttp({ keepAlive: true });
  https.globalAgent = new TunnelHttps({ keepAlive: true });
  globalThis[Symbol.for('undici.globalDispatcher.1')] = dispatcher(http, https);
}

// headers of undici (an object, or an array of name, value, ...) as an object.
function headerObject(h) {
  if (!h) return {};
  if (!Array.isArray(h)) return h;
  const o = {};
  for (let i = 0; i + 1 < h.length; i += 2) {
    const k = String(h[i]);
    o[k] = k in o ? [].concat(o[k], String(h[i + 1])) : String(h[i + 1]);
  }
  return o;
}

async function sendBody(req, body) {
  if (body == null) return req.end();
  if (typeof body === 'string' || body instanceof Uint8Array) return req.end(body);
  for await (const chunk of body)
    if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
  req.end();
}

// undici's Dispatcher interface (dispatch with a handler's onConnect,
// onHeaders, onData, onComplete, onError), served by http/https.request.
function dispatcher(http, https) {
  return {
    dispatch(opts, handler) {
      const url = new URL(opts.path, opts.origin);
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(url, { method: opts.method, headers: headerObject(opts.headers) });
      let failed = false;
      const fail = (e) => { if (!failed) { failed = true; req.destroy(); handler.onError(e); } };
      if (handler.onConnect) handler.onConnect((e) => fail(e || new Error('aborted')));
      req.once('error', fail);
      req.once('response', (res) => {
        const raw = [];
        for (const x of res.rawHeaders) raw.push(Buffer.from(x));
        res.once('error', fail);
        if (handler.onHeaders(res.statusCode, raw, () => res.resume(), res.statusMessage) === false)
          res.pause();
        res.on('data', (c) => { if (!failed && handler.onData(c) === false) res.pause(); });
        res.once('end', () => {
          if (failed) return;
          const t = [];
          for (const x of res.rawTrailers) t.push(Buffer.from(x));
          handler.onComplete(t);
        });
      });
      sendBody(req, opts.body).catch(fail);
      return true;
    },
    close() { return Promise.resolve(); },
    destroy() { return Promise.resolve(); },
    on() { return this; }, once() { return this; }, off() { return this; },
  };
}
