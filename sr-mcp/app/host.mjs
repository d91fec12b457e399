// host.mjs - a small MCP Apps host for sr-mcp's view, on loopback: it
// starts a real sr-mcp over stdio (declaring io.modelcontextprotocol/ui),
// reads ui://sr/run.html from it, and serves
//   /       host.html: a code box, and the view in a sandboxed iframe, with
//           the host side of the bridge (ui/initialize, tool-input,
//           tool-result, tools/call forwarded)
//   /view   the view, under the restrictive CSP that SEP-1865 asks of hosts
//   /rpc    POST: one tools/call or resources/read, forwarded to sr-mcp
// Used by make demo-app (node sr-mcp/app/host.mjs [--port N]) and by the
// browser test (tests/app/run.mjs imports startHost). Node's standard
// library only. Anyone who can reach /rpc runs code in the sandbox: it
// listens on 127.0.0.1 only, answers only requests whose Host is that
// address, and only POSTs carrying its own header (which a page of
// another origin cannot send without a CORS preflight that is refused).
// No page of another origin may frame it (clickjacking: a run button
// under a decoy): the host page and every other answer say
// frame-ancestors 'none' (and X-Frame-Options: DENY, for older browsers);
// the view, framed by the host page itself, says 'self' (SAMEORIGIN).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const VIEW_URI = 'ui://sr/run.html';
export const VIEW_MIME = 'text/html;profile=mcp-app';
// SEP-1865's default for a view that declares no domains (its _meta.ui.csp is empty).
export const VIEW_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; " +
  "connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'; form-action 'none'";
const FORWARDED = new Set(['tools/call', 'resources/read']);
const BODY_MAX = 4 << 20;

// sr-mcp over stdio: one JSON-RPC line each way.
export function mcpStdio(command, env, stderr) {
  const child = spawn(command, [], { env, stdio: ['pipe', 'pipe', stderr ? 'inherit' : 'ignore'] });
  const waiting = new Map();
  let nextId = 1, buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let m;
      try { m = JSON.parse(line); } catch { continue; }
      const w = waiting.get(m.id);
      if (w && (m.result !== undefined || m.error !== undefined)) {
        waiting.delete(m.id);
        w(m);
      }
    }
  });
  const gone = new Promise((res) => child.on('exit', (code, sig) => res({ code, sig })));
  gone.then(() => {
    for (const w of waiting.values()) w({ error: { code: -32603, message: 'sr-mcp exited' } });
    waiting.clear();
  });
  const request = (method, params) => new Promise((res) => {
    const id = nextId++;
    waiting.set(id, res);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const notify = (method, params) =>
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  return { child, request, notify, gone };
}

function body(req) {
  return new Promise((res, rej) => {
    let n = 0;
    const parts = [];
    req.on('data', (c) => {
      n += c.length;
      if (n > BODY_MAX) { rej(new Error('request too large')); req.destroy(); return; }
      parts.push(c);
    });
    req.on('end', () => res(Buffer.concat(parts).toString('utf8')));
    req.on('error', rej);
  });
}

export const VIEW_FRAMING = { 'Content-Security-Policy': VIEW_CSP + "; frame-ancestors 'self'", 'X-Frame-Options': 'SAMEORIGIN' };
const NO_FRAMING = { 'Content-Security-Policy': "frame-ancestors 'none'", 'X-Frame-Options': 'DENY' };

function send(res, code, type, text, extra = {}) {
  res.writeHead(code, { 'Content-Type': type, 'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff', ...NO_FRAMING, ...extra });
  res.end(text);
}

// startHost({ command, env, port, stderr }) -> { url, mcp, view, close }
export async function startHost({ command, env = process.env, port = 0, stderr = false } = {}) {
  const mcp = mcpStdio(command, env, stderr);
  const init = await mcp.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [VIEW_MIME] } } },
    clientInfo: { name: 'sr-demo-host', version: '1' },
  });
  if (init.error) throw new Error('sr-mcp refused initialize: ' + init.error.message);
  mcp.notify('notifications/initialized', {});
  const read = await mcp.request('resources/read', { uri: VIEW_URI });
  const item = read.result && read.result.contents && read.result.contents[0];
  if (!item || item.mimeType !== VIEW_MIME || typeof item.text !== 'string')
    throw new Error('sr-mcp gave no ' + VIEW_URI + ': ' + JSON.stringify(read.error || read.result));
  const view = item.text;
  const page = readFileSync(join(here, 'host.html'), 'utf8');
  let origin = '';
  const http = createServer(async (req, res) => {
    if (req.headers.host !== origin) return send(res, 421, 'text/plain', 'wrong Host\n');
    const path = req.url.split('?')[0];
    if (req.method === 'GET' && path === '/')
      return send(res, 200, 'text/html; charset=utf-8', page, { 'Content-Security-Policy':
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
        "connect-src 'self'; frame-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'" });
    if (req.method === 'GET' && path === '/view')
      return send(res, 200, 'text/html; charset=utf-8', view, VIEW_FRAMING);
    if (req.method !== 'POST' || path !== '/rpc') return send(res, 404, 'text/plain', 'not found\n');
    if (req.headers['x-sr-host'] !== '1' || !/^application\/json\b/.test(req.headers['content-type'] || ''))
      return send(res, 403, 'text/plain', 'forbidden\n');
    let m;
    try { m = JSON.parse(await body(req)); } catch (e) { return send(res, 400, 'text/plain', 'bad JSON\n'); }
    if (!m || !FORWARDED.has(m.method))
      return send(res, 200, 'application/json', JSON.stringify({ error: { code: -32601,
        message: 'this host forwards tools/call and resources/read only' } }));
    const answer = await mcp.request(m.method, m.params || {});
    send(res, 200, 'application/json', JSON.stringify({ result: answer.result, error: answer.error }));
  });
  await new Promise((res) => http.listen(port, '127.0.0.1', res));
  origin = '127.0.0.1:' + http.address().port;
  const close = async () => {
    http.close();
    mcp.child.stdin.end();
    const t = setTimeout(() => mcp.child.kill('SIGTERM'), 3000);
    await mcp.gone;
    clearTimeout(t);
  };
  return { url: 'http://' + origin + '/', mcp, view, close };
}

// node host.mjs [--port N] [--server PATH]: the demo (make demo-app).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
  const port = Number(arg('--port', process.env.PORT || 8765));
  const command = arg('--server', join(here, '..', 'sr-mcp'));
  try {
    const h = await startHost({ command, port, stderr: true });
    console.log('sr demo-app: open ' + h.url + ' (loopback only; Ctrl-C stops it)');
    const quit = () => h.close().then(() => process.exit(0));
    process.on('SIGINT', quit);
    process.on('SIGTERM', quit);
    h.mcp.gone.then(({ code }) => { console.error('sr demo-app: sr-mcp exited (' + code + ')'); process.exit(111); });
  } catch (e) {
    console.error('sr demo-app: fatal: unable to start: ' + e.message);
    process.exit(111);
  }
}
