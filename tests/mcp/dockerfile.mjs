// dockerfile.mjs - a small checker of Dockerfile syntax, our own (Docker
// and hadolint are not here): lines joined at a trailing backslash,
// comments and blank lines skipped, every instruction a known one, FROM
// first (after ARGs) with a plain image reference, ADD and COPY with a
// source and a destination, WORKDIR absolute, ENV as KEY=VALUE pairs, the
// exec form valid JSON, and each RUN's shell form parsed by sh -n.
// checkDockerfile(text) -> { errors: [...], ins: [{ op, args }] }.
import { spawnSync } from 'node:child_process';

const KNOWN = new Set(['FROM', 'RUN', 'CMD', 'LABEL', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT',
  'VOLUME', 'USER', 'WORKDIR', 'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL']);
const REF = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$/;

function logical(text) {
  const out = [];
  let cur = null, at = 0;
  text.split('\n').forEach((line, i) => {
    if (cur === null && (/^\s*#/.test(line) || !line.trim())) return;
    if (cur !== null && /^\s*#/.test(line)) return;     // a comment inside a continuation
    if (cur === null) { cur = ''; at = i + 1; }
    if (/\\$/.test(line)) { cur += line.slice(0, -1) + ' '; return; }
    out.push({ line: at, text: cur + line });
    cur = null;
  });
  if (cur !== null) out.push({ line: at, text: cur, open: true });
  return out;
}

function execForm(args) {
  if (!args.startsWith('[')) return null;
  try {
    const v = JSON.parse(args);
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : false;
  } catch { return false; }
}

function checkOne(op, args, err) {
  const words = args.split(/\s+/).filter(Boolean);
  const ex = execForm(args);
  if (ex === false) err(`${op}: the exec form is not a JSON array of strings`);
  if (op === 'FROM' && !(REF.test(words[0] || '') && (words.length === 1 || (words.length === 3 && /^as$/i.test(words[1])))))
    err(`FROM: '${args}' is not an image reference`);
  if ((op === 'ADD' || op === 'COPY') && (ex ? ex.length : words.length) < 2) err(`${op}: needs a source and a destination`);
  if (op === 'WORKDIR' && (words.length !== 1 || !words[0].startsWith('/'))) err(`WORKDIR: '${args}' is not one absolute path`);
  if (op === 'ENV' && !words.every((w) => /^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(w))) err(`ENV: '${args}' is not KEY=VALUE pairs`);
  if (op === 'RUN' && ex === null) {
    const p = spawnSync('sh', ['-n', '-c', args], { encoding: 'utf8' });
    if (p.status !== 0) err(`RUN: sh -n: ${p.stderr.trim()}`);
  }
  if (!args.trim()) err(`${op}: no arguments`);
}

export function checkDockerfile(text) {
  const errors = [], ins = [];
  for (const l of logical(text)) {
    const err = (m) => errors.push(`line ${l.line}: ${m}`);
    if (l.open) err('a continuation runs past the end');
    const m = /^\s*([A-Za-z]+)(?:\s+(.*))?$/.exec(l.text);
    if (!m || !KNOWN.has(m[1].toUpperCase())) { err(`not an instruction: ${l.text.slice(0, 60)}`); continue; }
    const op = m[1].toUpperCase(), args = (m[2] || '').trim();
    if (!ins.length && op !== 'FROM' && op !== 'ARG') err(`${op} before FROM`);
    if (ins.length && !ins.some((x) => x.op === 'FROM') && op !== 'FROM' && op !== 'ARG') err(`${op} before FROM`);
    checkOne(op, args, err);
    ins.push({ op, args, line: l.line });
  }
  if (!ins.some((x) => x.op === 'FROM')) errors.push('no FROM');
  return { errors, ins };
}
