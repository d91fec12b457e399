// http-links.mjs - sr-mcp-http's download links: a run's made files come
// back with a signed URL beside each resource_link, and curl, with no
// bearer token, downloads the file by it. Refused, each with a body that
// says why, and each beside a control that passes: a changed byte of the
// signature or of the path (403), an expired link (410), another tenant's
// name in it (403) or a link signed for another tenant (404: its own
// workspaces only), '..', '.', an empty part and an encoded '/' (400), a
// symbolic link as the file or anywhere on the path (403), a directory
// (403), no such file (404), another method (405). The key: made at first
// start, mode 600; a --link-key others can read is refused; --link-ttl is
// capped.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { ok, is, like, done, diag, sc, text, stateDir } from './tap.mjs';
import { startGateway, connect } from './http-lib.mjs';
import { root } from './tap.mjs';

const gw = await startGateway();
const alice = await connect(gw, 'alice');
const bob = await connect(gw, 'bob');
const curl = (url, extra = []) => {
  const p = spawnSync('curl', ['-sS', '--path-as-is', '-o', '-', '-w', '\n%{http_code}', ...extra, url], { encoding: 'utf8', timeout: 60000 });
  const i = p.stdout.lastIndexOf('\n');
  return { code: Number(p.stdout.slice(i + 1)), body: p.stdout.slice(0, i).replace(/\n$/, '') };
};
const keyFile = join(gw.dir, 'state', '.link.key');
const key = readFileSync(keyFile, 'utf8').trim();
const base = `http://127.0.0.1:${gw.port}/dl`;
// A URL signed here with the server's key: the controls and the attacks that
// a valid signature does not carry past the other checks.
const signed = (tenant, ws, rel, exp = Math.floor(Date.now() / 1000) + 600, raw = null) =>
  `${base}/${tenant}/${ws}/${raw ?? rel.split('/').map(encodeURIComponent).join('/')}?e=${exp}&s=${createHmac('sha256', Buffer.from(key)).update(`${tenant}\0${ws}\0${rel}\0${exp}`).digest('base64url')}`;

is(statSync(keyFile).mode & 0o777, 0o600, 'the link key was made at first start, mode 600');

const r = await alice.callTool({ name: 'run_code', arguments: { language: 'bash', code:
  'echo hello-download > out.txt; mkdir -p sub; echo deep > sub/d.txt; echo "a b" > "sp ace.txt"; ln -s /etc/passwd pw; ln -s /etc ed; ln -s sub sl' } });
const ws = sc(r).workspace_id;
const links = (r.content || []).filter((b) => b.type === 'resource_link');
const out = links.find((l) => l.name === 'out.txt');
const url = out?._meta?.['dev.sr/download_url'] || '';
ok(url.startsWith(`${base}/alice/${ws}/out.txt?e=`), 'a made file\'s resource_link carries a download URL (_meta dev.sr/download_url)', links);
ok(Date.parse(out?._meta?.['dev.sr/download_expires']) - Date.now() > 55 * 60000, 'valid for an hour by default', out?._meta);
like(text(r), /Download links \(plain HTTP GET, no token; valid until .*\):\nout\.txt: http:/, 'a text block lists the links for the model');
ok(!links.some((l) => l._meta?.['dev.sr/host_path']), 'over HTTP no link carries a host path (the client is elsewhere)', links);
let g = curl(url);
ok(g.code === 200 && g.body === 'hello-download', 'curl, with no token, downloads the file by its URL', g);
const sp = links.find((l) => l.name === 'sp ace.txt')?._meta?.['dev.sr/download_url'];
g = curl(sp || 'http://127.0.0.1:1/');
ok(g.code === 200 && g.body === 'a b', 'a name with a space: its URL downloads it too', g);
g = curl(signed('alice', ws, 'sub/d.txt'));
ok(g.code === 200 && g.body === 'deep', 'control: a URL signed here with the key is served (the signer below is the server\'s)', g);

// an altered URL
const flip = (s, i) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
g = curl(flip(url, url.length - 3));
ok(g.code === 403 && /signature does not match/.test(g.body), 'a changed byte of the signature: 403, saying why', g);
g = curl(url.replace('/out.txt?', '/sub/d.txt?'));
ok(g.code === 403 && /signature does not match/.test(g.body), 'the path changed (another file of the same workspace): 403', g);
g = curl(url.replace(/e=(\d+)/, (m, e) => `e=${Number(e) + 86400}`));
ok(g.code === 403, 'the expiry pushed later: 403', g);
g = curl(url.replace(/&s=.*/, ''));
ok(g.code === 403, 'no signature: 403', g);

// expired
g = curl(signed('alice', ws, 'out.txt', Math.floor(Date.now() / 1000) - 5));
ok(g.code === 410 && /expired at/.test(g.body), 'an expired link: 410, saying when it expired', g);

// another tenant
g = curl(url.replace('/dl/alice/', '/dl/bob/'));
ok(g.code === 403 && /signature/.test(g.body), "alice's URL with bob's name in it: 403", g);
g = curl(signed('bob', ws, 'out.txt'));
ok(g.code === 404 && /no workspace/.test(g.body), "a link signed for bob to alice's workspace name: 404 (bob's own workspaces only)", g);

// '..' and friends: refused even with a valid signature
for (const [rel, raw, what] of [['../../bob/x', null, "'../'"], ['sub/../out.txt', null, "'..' inside"], ['./out.txt', null, "'.'"],
  ['sub//d.txt', null, 'an empty part'], ['sub/d.txt', 'sub%2Fd.txt', "an encoded '/'"], ['..', '%2e%2e', "an encoded '..'"]]) {
  g = curl(signed('alice', ws, rel, undefined, raw));
  ok(g.code === 400, `${what}, validly signed: 400`, g);
  like(g.body, /never served|bad %-escape/, `${what}: the body says why`);
}
g = curl(`${base}/alice/${ws}/../../../etc/passwd?e=9999999999&s=x`);
ok(g.code === 400 && !/root:/.test(g.body), "'../' up to /etc/passwd (unsigned): 400, nothing of it", g);

// links, directories, missing files
for (const [rel, what] of [['pw', 'a link to /etc/passwd'], ['ed/passwd', 'a link to /etc on the path'], ['sl/d.txt', 'a link to a directory of the workspace on the path']]) {
  g = curl(signed('alice', ws, rel));
  ok(g.code === 403 && /is a symbolic link; links are never followed/.test(g.body) && !/root:/.test(g.body), `${what}, validly signed: 403, saying why`, g);
}
g = curl(signed('alice', ws, 'sub'));
ok(g.code === 403 && /a directory/.test(g.body), 'a directory: 403, saying why', g);
g = curl(signed('alice', ws, 'nope.txt'));
ok(g.code === 404 && /no file/.test(g.body), 'no such file: 404', g);
g = curl(url, ['-X', 'POST']);
is(g.code, 405, 'POST: 405');

// a bigger file, streamed: its size checked; the rate only reported (diag)
await alice.callTool({ name: 'run_code', arguments: { language: 'bash', workspace_id: ws, code: 'head -c 20971520 /dev/urandom > big.bin' } });
const bp = spawnSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total}', signed('alice', ws, 'big.bin')], { encoding: 'utf8', timeout: 120000 });
const [bc, bs, bt] = bp.stdout.split(' ').map(Number);
ok(bc === 200 && bs === 20971520, 'a 20 MiB file: served whole', bp.stdout, bp.stderr);
diag(`download of 20 MiB over loopback: ${bt.toFixed(3)} s (${(20 / bt).toFixed(0)} MiB/s)`);

// bob's own links work for bob's files
const rb = await bob.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo bobs > b.txt' } });
const bu = (rb.content || []).find((b) => b.type === 'resource_link')?._meta?.['dev.sr/download_url'] || '';
g = curl(bu);
ok(bu.includes('/dl/bob/') && g.code === 200 && g.body === 'bobs', "bob's result: a link to bob's file, served", g);
await gw.stop();

// the options: a key file others can read is refused; --link-ttl capped
const d = stateDir();
writeFileSync(join(d, 'key'), 'k'.repeat(64), { mode: 0o644 });
writeFileSync(join(d, 'tokens'), 'alice alice-token-0123456789abcdef\n', { mode: 0o600 });
const run = (args) => spawnSync(join(root, 'sr-mcp/http/sr-mcp-http'), ['--listen', '127.0.0.1:0', '--tokens', join(d, 'tokens'),
  '--state-dir', join(d, 'state'), ...args], { encoding: 'utf8', timeout: 20000 });
let p = run(['--link-key', join(d, 'key')]);
ok(p.status === 111 && /refusing the link key .*chmod 600/.test(p.stderr), '--link-key that others can read: refused (111), saying how to fix it', p.status, p.stderr);
p = run(['--link-ttl', '25h']);
ok(p.status === 100 && /--link-ttl: at most 24h/.test(p.stderr), '--link-ttl over 24h: a usage error', p.status, p.stderr);
like(spawnSync(join(root, 'sr-mcp/http/sr-mcp-http'), ['--help'], { encoding: 'utf8' }).stdout, /--link-key FILE[\s\S]*--link-ttl DURATION/, '--help lists --link-key and --link-ttl');
done();
process.exit();
