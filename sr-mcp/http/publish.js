'use strict';
// publish.js - a session's server opened to a remote user (expose_port):
//   ANY /p/TENANT/ID/PATH
// is carried to the Unix socket STATE-DIR/TENANT/expose/ID.sock, where that
// tenant's sr-mcp keeps a forwarder to port 8000 of the session's jail
// while the session lives (sr-mcp/tool_expose.c). ID is 32 random hex
// digits made by sr-mcp: the link is the permission (a browser sends no
// bearer token), as a download link's signature is; it dies with the
// session (the socket is removed, or refuses). Results on their way out
// get the front's address before the /p/... url (annotate). The served
// pages come with a Content-Security-Policy sandbox: they run in an
// origin of their own, not the front's, so their scripts cannot read the
// front's answers. No WebSocket or other upgrade, and no cookie, is carried.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { TENANT_RE } = require('./config');
const { base } = require('./download');

const PREFIX = '/p/';
const ID_RE = /^[0-9a-f]{32}$/;
// Not carried: hop-by-hop headers, the front's Authorization, and cookies
// either way (every tenant's links share the front's origin: a cookie one
// server set would reach another's).
const HOP = new Set(['connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'authorization', 'host', 'cookie', 'set-cookie']);

// An expose_port answer of this tenant: its url made whole, in the
// structured content and in the text the model reads.
function annotate(cfg, tenant, m) {
  const sc = m && m.result && m.result.structuredContent;
  if (!sc || typeof sc.expose_id !== 'string' || !ID_RE.test(sc.expose_id)) return;
  const rel = `${PREFIX}${tenant}/${sc.expose_id}/`;
  if (sc.url !== rel) return;
  const whole = base(cfg) + rel;
  sc.url = whole;
  for (const b of Array.isArray(m.result.content) ? m.result.content : [])
    if (b && b.type === 'text' && typeof b.text === 'string') b.text = b.text.split(rel).join(whole);
}

function serve(reg, req, res) {
  const no = (status, text) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(text + '\n');
  };
  const m = /^\/p\/([^/?#]+)\/([^/?#]+)(\/[^#]*)?$/.exec(req.url);
  if (!m || !TENANT_RE.test(m[1]) || !ID_RE.test(m[2]))
    return no(404, 'Not Found: a published server\'s link is /p/TENANT/ID/ as expose_port gave it.');
  if (!m[3]) {   // relative links of the page resolve beneath the slash
    res.writeHead(308, { Location: `${PREFIX}${m[1]}/${m[2]}/`, 'Cache-Control': 'no-store' });
    return res.end();
  }
  if ((req.headers.upgrade || '') !== '') return no(501, 'Not Implemented: no upgrade (WebSocket) is carried to a published server.');
  let dfd;
  try {
    dfd = fs.openSync(path.join(reg.tenantDir(m[1]), 'expose'), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
    if (!fs.lstatSync(`/proc/self/fd/${dfd}/${m[2]}.sock`).isSocket()) throw new Error('not a socket');
  } catch {
    if (dfd !== undefined) fs.closeSync(dfd);
    return no(404, 'Not Found: no server is published at this link (its session has ended, or the link is wrong).');
  }
  const headers = {};
  for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
  headers.host = 'localhost:8000';
  const up = http.request({ socketPath: `/proc/self/fd/${dfd}/${m[2]}.sock`, method: req.method, path: m[3], headers }, (r) => {
    const h = { ...r.headers };
    for (const k of Object.keys(h)) if (HOP.has(k) && k !== 'transfer-encoding') delete h[k];
    h['content-security-policy'] = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';
    h['x-content-type-options'] = 'nosniff';
    res.writeHead(r.statusCode, h);
    r.pipe(res);
  });
  up.on('socket', () => fs.closeSync(dfd));
  up.on('error', (e) => {
    try { fs.closeSync(dfd); } catch { /* closed on connect */ }
    if (res.headersSent) return res.destroy();
    no(502, `Bad Gateway: the published server did not answer (${e.code || e.message}): its session may have ended, or nothing listens on port 8000 in it.`);
  });
  req.pipe(up);
}

module.exports = { PREFIX, annotate, serve };
