// images.mjs - the images a run writes to /workspace/outputs, returned with
// its result as image blocks, through the official SDK v1 client (which
// checks each structuredContent against run_code's outputSchema): a PNG
// made by Python's standard library, matplotlib figures left open, each
// format's size read from its header, the caps (long edge, bytes, the
// whole result, the number of images), job_status, and what the sandboxed
// code could plant there (links to the user's images, a linked outputs
// directory, a hard link, a fifo), none of it followed, read or waited on.
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, utimesSync, linkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, stateDir, sc, text, stdioClient } from './tap.mjs';

const state = stateDir();
const { client, call } = await stdioClient(Client, StdioClientTransport, state, 'sr-test-images', {}, 120000);
const py = (ws, code, extra = {}) => call('run_code', { language: 'python', workspace_id: ws, code, ...extra });
const sh = (ws, code) => call('run_code', { language: 'bash', workspace_id: ws, code });
const blocks = (r) => (r.content || []).filter((c) => c.type === 'image');
const SIG = Buffer.from('\x89PNG\r\n\x1a\n', 'latin1');
const pngSize = (b) => b.subarray(0, 8).equals(SIG) && b.subarray(12, 16).toString() === 'IHDR'
  ? [b.readUInt32BE(16), b.readUInt32BE(20)] : null;
const noBase64 = (r) => !/"data"|[A-Za-z0-9+/]{200}/.test(JSON.stringify(sc(r)));

// A PNG of w x h pixels by Python's standard library alone (zlib, struct);
// noise makes it as large as its pixels.
const PNG = `
import os, struct, zlib
def png(path, w, h, noise=False):
    row = lambda: b"\\x00" + (os.urandom(3 * w) if noise else bytes([30, 120, 200]) * w)
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    data = zlib.compress(b"".join(row() for _ in range(h)), 1)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
`;

// tools/list: run_code and job_status declare the images, every array with items.
const { tools } = await client.listTools();
const tool = (n) => tools.find((t) => t.name === n);
for (const n of ['run_code', 'job_status']) {
  const im = tool(n).outputSchema?.properties?.images;
  ok(im?.type === 'array' && im.items?.type === 'object' &&
    ['path', 'type', 'size', 'width', 'height', 'inlined'].every((k) => im.items.required.includes(k)),
    `${n}'s outputSchema lists images: path, type, size, width, height, inlined`, im);
}
const noItems = (s) => !s || typeof s !== 'object' ? false : (s.type === 'array' && !s.items) || Object.values(s).some(noItems);
ok(!tools.some((t) => noItems(t.inputSchema) || noItems(t.outputSchema)), 'every array in every schema has items');
like(tool('run_code').description, /\/workspace\/outputs/, 'run_code\'s description names /workspace/outputs');

// A PNG written by the standard library alone comes back as an image block.
const ws = 'img-stdlib';
let r = await py(ws, `import os; print(os.path.isdir("/workspace/outputs"))`);
is(sc(r).stdout, 'True\n', 'a new workspace has /workspace/outputs before the run starts');
r = await py(ws, PNG + `
import hashlib
png("outputs/plot.png", 24, 16)
open("outputs/data.csv", "w").write("a,b\\n1,2\\n")
open("plot-elsewhere.png", "wb").write(open("outputs/plot.png", "rb").read())
print(hashlib.sha256(open("outputs/plot.png", "rb").read()).hexdigest())
`);
is(sc(r).status, 'succeeded', 'run_code writes outputs/plot.png with zlib and struct');
let img = blocks(r);
let data = img.length === 1 ? Buffer.from(img[0].data, 'base64') : Buffer.alloc(0);
is(img.length, 1, 'one image block: the PNG, not the CSV nor the PNG outside outputs/');
ok(img[0]?.mimeType === 'image/png' && data.subarray(0, 8).equals(SIG), 'the block is image/png and its data has the PNG signature', img[0]?.mimeType);
is(JSON.stringify(pngSize(data)), '[24,16]', 'the decoded PNG is 24x16, as written');
is(execFileSync('sha256sum', { input: data }).toString().split(' ')[0], sc(r).stdout.trim(), 'the block\'s bytes are the file\'s bytes');
is(r.content[0].type, 'text', 'the text block comes first, the image after it');
like(text(r), /outputs\/plot\.png: image\/png, 24x16 px, \d+ bytes: shown below/, 'the text names the image, its type, size and dimensions');
let im = sc(r).images || [];
ok(im.length === 1 && im[0].path === 'outputs/plot.png' && im[0].type === 'image/png' && im[0].size === data.length &&
  im[0].width === 24 && im[0].height === 16 && im[0].inlined === true,
  'structuredContent.images: {path, type, size, width, height, inlined}', im);
ok(noBase64(r), 'structuredContent carries no base64', JSON.stringify(sc(r)).length);
r = await py(ws, 'print("again")');
ok(!blocks(r).length && sc(r).images === undefined, 'the next run in the workspace writes no image: its result has none (the old one is not shown again)', sc(r).images);

// Each format's size, read from its header.
r = await py('img-formats', `
import struct
o = "outputs/"
open(o + "a.gif", "wb").write(b"GIF89a" + struct.pack("<HH", 33, 21) + b"\\x00\\x00\\x00;")
jfif = b"\\xff\\xe0" + struct.pack(">H", 16) + b"JFIF\\x00\\x01\\x01\\x00\\x00\\x01\\x00\\x01\\x00\\x00"
sof = b"\\xff\\xc0" + struct.pack(">HBHHB", 11, 8, 30, 40, 1) + b"\\x01\\x11\\x00"
open(o + "b.jpg", "wb").write(b"\\xff\\xd8" + jfif + b"\\xff\\xfe\\x00\\x04hi" + sof + b"\\xff\\xd9")
def riff(kind, body):
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(body)) + b"WEBP" + kind + struct.pack("<I", len(body)) + body
open(o + "c.webp", "wb").write(riff(b"VP8 ", b"\\x00\\x00\\x00\\x9d\\x01\\x2a" + struct.pack("<HH", 11, 13) + bytes(8)))
bits = (7 - 1) | (9 - 1) << 14
open(o + "d.webp", "wb").write(riff(b"VP8L", b"\\x2f" + struct.pack("<I", bits) + bytes(8)))
open(o + "e.webp", "wb").write(riff(b"VP8X", bytes(4) + (50 - 1).to_bytes(3, "little") + (60 - 1).to_bytes(3, "little") + bytes(8)))
open(o + "f.png", "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(30))
`);
const byPath = (res) => Object.fromEntries((sc(res).images || []).map((e) => [e.path.replace('outputs/', ''), e]));
let m = byPath(r);
const dims = (e) => e ? `${e.type} ${e.width}x${e.height}` : 'missing';
is(dims(m['a.gif']), 'image/gif 33x21', 'GIF: its size from the logical screen descriptor');
is(dims(m['b.jpg']), 'image/jpeg 40x30', 'JPEG: its size from the start-of-frame segment, past other segments');
is(dims(m['c.webp']), 'image/webp 11x13', 'WebP (VP8): its size from the frame header');
is(dims(m['d.webp']), 'image/webp 7x9', 'WebP (VP8L): its size from the bit-packed header');
is(dims(m['e.webp']), 'image/webp 50x60', 'WebP (VP8X): its size from the canvas');
ok(m['f.png'] && m['f.png'].width === null && m['f.png'].inlined === false && /header/.test(m['f.png'].note),
  'a PNG whose header cannot be read: listed with null dimensions, not inlined, saying why', m['f.png']);
is(blocks(r).map((b) => b.mimeType).join(','), 'image/gif,image/jpeg,image/webp,image/webp,image/webp',
  'the five readable ones are inlined, with their types, in path order');

// The caps: long edge, bytes per image, the whole result, the number of images.
r = await py('img-caps', PNG + `
png("outputs/wide.png", 2000, 100)
png("outputs/noise.png", 700, 700, noise=True)
`);
m = byPath(r);
ok(m['wide.png']?.inlined === false && m['wide.png'].width === 2000 && /1568/.test(m['wide.png'].note),
  'an image over the 1568 px long edge is not inlined, the note names the cap', m['wide.png']);
ok(m['noise.png']?.inlined === false && m['noise.png'].size > 700 * 1024 && /700 KB/.test(m['noise.png'].note),
  'an image over 700 KB is not inlined, the note names the cap', m['noise.png']);
is(blocks(r).length, 0, 'neither comes as an image block');
like(text(r), /outputs\/wide\.png: image\/png, 2000x100 px, \d+ bytes: not shown \([^)]*1568 px\); read_file with path "outputs\/wide\.png" fetches it/,
  'the text names the wide image and says read_file fetches it');
like(text(r), /outputs\/noise\.png: .*not shown \(.*\), and over read_file's cap too: save it smaller/, 'the text says the large one must be saved smaller');
ok(noBase64(r), 'structuredContent carries no base64 when images are not inlined');
const fetched = await call('read_file', { workspace_id: 'img-caps', path: 'outputs/wide.png' });
ok(JSON.stringify(pngSize(Buffer.from(blocks(fetched)[0]?.data || '', 'base64'))) === '[2000,100]',
  'read_file fetches the image the result named', text(fetched));
r = await py('img-room', PNG + `
for i in range(3):
    png(f"outputs/n{i}.png", 400, 300, noise=True)
`);
const room = sc(r).images || [];
ok(room.length === 3 && room[0].inlined && room[1].inlined && !room[2].inlined && /no room/.test(room[2].note),
  'three images of 360 KB: two are inlined, the third has no room left', room.map((e) => [e.path, e.size, e.inlined, e.note]));
ok(JSON.stringify(r).length < 1 << 20, `the whole result stays under 1 MiB (${JSON.stringify(r).length} bytes)`);
r = await py('img-many', PNG + `
for i in range(11):
    png(f"outputs/p{i:02}.png", 8, 8)
`);
ok((sc(r).images || []).length === 8 && sc(r).images[0].path === 'outputs/p00.png' && sc(r).images_not_listed === 3 && blocks(r).length === 8,
  'eleven images: eight listed and inlined, in path order, three counted as not listed', [sc(r).images?.length, sc(r).images_not_listed]);
like(text(r), /3 more images in \/workspace\/outputs not listed: at most 8 in a result; list_files shows them/, 'the text says how many more there are');

// job_status brings the images of a job that ended after run_code returned.
r = await py('img-later', PNG + `
import time
time.sleep(1)
png("outputs/sub/late.png", 5, 7)
`, { wait_s: 0 });
ok(['queued', 'running'].includes(sc(r).status) && sc(r).images === undefined && !blocks(r).length,
  'run_code with wait_s 0: still running, no images yet', sc(r).status);
r = await call('job_status', { job_id: sc(r).job_id, wait_s: 60 });
ok(sc(r).status === 'succeeded' && sc(r).images?.[0]?.path === 'outputs/sub/late.png' && sc(r).images[0].height === 7 &&
  JSON.stringify(pngSize(Buffer.from(blocks(r)[0]?.data || '', 'base64'))) === '[5,7]',
  'job_status of the finished job returns its image (from a subdirectory of outputs/)', sc(r).images);

// matplotlib (Debian's python3-matplotlib): a figure left open comes back.
let mpl = true;
try { execFileSync('python3', ['-c', 'import matplotlib'], { stdio: 'ignore' }); } catch { mpl = false; }
r = await py('img-plain', `import sys
print("matplotlib" in sys.modules, sys.modules["sitecustomize"].__file__)`);
is(sc(r).stdout, 'False /run/sr/python/sitecustomize.py\n', 'a plain run has the start-up hook and has not imported matplotlib');
if (mpl) {
  r = await py('img-mpl', `
import matplotlib.pyplot as plt
plt.plot([1, 4, 9, 16])
plt.title("left open")
plt.show()
plt.figure()
plt.bar(["a", "b"], [3, 5])
plt.savefig("outputs/mine.png")
print("drawn")
`);
  is(sc(r).stdout, 'drawn\n', 'a matplotlib program ends without savefig for its first figure (plt.show() shows nothing here)');
  const paths = (sc(r).images || []).map((e) => e.path).join(',');
  is(paths, 'outputs/figure-1.png,outputs/mine.png', 'the figure left open is saved as outputs/figure-1.png; the one saved by the program is not saved twice');
  m = byPath(r);
  data = Buffer.from(blocks(r)[0]?.data || '', 'base64');
  ok(m['figure-1.png']?.inlined && JSON.stringify(pngSize(data)) === JSON.stringify([m['figure-1.png'].width, m['figure-1.png'].height]) &&
    m['figure-1.png'].width >= 100, `the figure comes as a PNG image block of the size listed (${pngSize(data)})`, m['figure-1.png']);
  ok(!/Fontconfig|matplotlibrc|Traceback|sr-mcp:|non-interactive/.test(sc(r).stderr), 'no font, configuration, plt.show() or hook errors on stderr', sc(r).stderr);
  r = await py('img-mpl', `
import matplotlib.pyplot as plt
plt.plot([1, 2]); plt.savefig("outputs/only.png"); plt.close("all")
`);
  is((sc(r).images || []).map((e) => e.path).join(','), 'outputs/only.png', 'figures closed by the program are not saved again');
  // A model's usual three steps: a CSV written, summarised, then plotted.
  const cw = 'img-csv';
  r = await call('write_file', { workspace_id: cw, path: 'data/sales.csv', content: 'month,sales\njan,120\nfeb,95\nmar,143\n' });
  ok(!r.isError, 'CSV, step 1: write_file writes data/sales.csv', text(r));
  r = await py(cw, `import csv
rows = list(csv.DictReader(open("data/sales.csv")))
print(len(rows), sum(int(x["sales"]) for x in rows))`);
  is(sc(r).stdout, '3 358\n', 'CSV, step 2: a run summarises it (3 rows, total 358)');
  r = await py(cw, `import csv, matplotlib.pyplot as plt
rows = list(csv.DictReader(open("data/sales.csv")))
plt.bar([x["month"] for x in rows], [int(x["sales"]) for x in rows])`);
  data = Buffer.from(blocks(r)[0]?.data || '', 'base64');
  const size = pngSize(data);
  ok(sc(r).status === 'succeeded' && blocks(r).length === 1 && blocks(r)[0].mimeType === 'image/png' && size &&
    size[0] === sc(r).images?.[0]?.width && size[1] === sc(r).images?.[0]?.height &&
    data.subarray(-8, -4).toString() === 'IEND' && data.length === sc(r).images[0].size,
  `CSV, step 3: a run plots it and the result carries the plot as a valid PNG image block (${size})`, sc(r));
} else {
  skip('matplotlib figures left open are returned', 'python3-matplotlib is not installed (scripts/deps.sh check installs it)');
}

// What the sandboxed code could plant in outputs/: followed never.
const home = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-images-home.`);
mkdirSync(join(home, 'pics'));
const host = Buffer.concat([SIG, Buffer.from([0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.from([0, 0, 0, 3, 0, 0, 0, 3, 8, 2, 0, 0, 0]),
  Buffer.from('HOSTSECRET')]);
const future = new Date(Date.now() + 3600e3);
for (const p of [join(home, 'secret.png'), join(home, 'pics/also.png')]) {
  writeFileSync(p, host);
  utimesSync(p, future, future);   // newer than any job: shown if ever followed
}
const hostShown = (res) => blocks(res).some((b) => Buffer.from(b.data, 'base64').includes('HOSTSECRET')) ||
  (sc(res).images || []).some((e) => /secret|also/.test(e.path));
const ev = 'img-evil';
r = await sh(ev, `ln -s ${home}/secret.png outputs/secret.png; ln -s ${home}/pics outputs/pics
ln -s /proc/self/root/etc/passwd outputs/p.png
printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\rIHDR\\0\\0\\0\\2\\0\\0\\0\\2\\b\\2\\0\\0\\0' > outputs/real.png; ls outputs | wc -l`);
is(sc(r).stdout, '4\n', 'the sandboxed code plants links to the user\'s image and directory in outputs/');
ok(!hostShown(r), 'no link in outputs/ is followed: neither the user\'s image nor the linked directory\'s shows', sc(r).images);
is((sc(r).images || []).map((e) => e.path).join(','), 'outputs/real.png', 'only the real file is listed');
const t0 = Date.now();
try {
  r = await client.callTool({ name: 'run_code', arguments: { language: 'bash', workspace_id: ev,
    code: 'rm outputs/real.png; mkfifo outputs/fifo.png outputs/z.png' } }, undefined, { timeout: 30000 });
  ok(sc(r).status === 'succeeded' && sc(r).images === undefined, `a fifo in outputs/ is skipped and does not hang the result (${Date.now() - t0} ms)`, sc(r));
} catch (e) {
  ok(false, 'a fifo in outputs/ does not hang the result', String(e));
}
let linked = false, why = '';
try { linkSync(join(home, 'secret.png'), join(state, 'workspaces', ev, 'outputs/hl.png')); linked = true; } catch (e) { why = e.code; }
if (linked) {
  r = await sh(ev, 'ls outputs/hl.png');
  ok(sc(r).stdout === 'outputs/hl.png\n' && !hostShown(r) && !(sc(r).images || []).some((e) => e.path === 'outputs/hl.png'),
    'a hard link to the user\'s image in outputs/ is not read', sc(r).images);
} else {
  skip('a hard link to the user\'s image in outputs/ is not read', `the file system refuses the link (${why})`);
}
await sh(ev, `rm -rf outputs; ln -s ${home}/pics outputs`);
r = await sh(ev, 'true');
ok(!hostShown(r) && sc(r).images === undefined, 'outputs itself a link to the user\'s directory: not followed, no images', sc(r).images);
await sh(ev, `rm outputs; ln -s ${home}/made outputs`);
r = await sh(ev, 'true');
ok(!existsSync(join(home, 'made')) && sc(r).status === 'succeeded', 'outputs a dangling link to the user\'s home: no directory is made through it');

await client.close();
done();
