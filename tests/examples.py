#!/usr/bin/env python3
"""tests/examples.py - the examples of README.md, docs/*.md and man/*.1, as printed.

    examples.py OUTDIR FILE...

Writes one directory per example block, OUTDIR/NNN, holding `where`
(FILE:LINE), `marker` (what its marker says; absent when it has none) and
`script` (the commands, exactly as a reader would type them). Prints
`error FILE:LINE: WHY` lines for markers that mark nothing and for text it
cannot read, and exits 1 if there were any.

The markers (tests/94-examples.t runs what they mark):
  README.md and docs/*.md (any .md), on the lines before an indented code
  block (blank lines between are allowed):
      <!-- example: SETUP... [=> TEXT] -->
      <!-- example: not run: REASON -->
  man/*.1, on the line before a .Dl line or a .Bd -literal block:
      .\\" example: SETUP... [=> TEXT]
      .\\" example: not run: REASON
Every code block of a .md file and every .Dl and .Bd -literal block of a
man page's EXAMPLES section must carry one; a block elsewhere in a man
page is run only when it is marked.
"""
import os
import re
import sys

MD_MARK = re.compile(r"^<!-- example(?::\s*(.*?))? -->\s*$")
MAN_MARK = re.compile(r'^\.\\" example(?::\s*(.*?))?\s*$')
# mdoc escapes an example may use, as the reader sees them
MAN_ESC = {r"\e": "\\", r"\-": "-", r"\&": "", r"\(aq": "'", r"\(dq": '"',
           r"\(ti": "~", r"\(ha": "^", r"\(ga": "`"}
MAN_ESC_RE = re.compile(r"\\(\(..|.)")


class Out:
    def __init__(self, outdir):
        self.outdir, self.n, self.errors = outdir, 0, []

    def block(self, where, marker, lines):
        self.n += 1
        d = os.path.join(self.outdir, "%03d" % self.n)
        os.makedirs(d)
        with open(os.path.join(d, "where"), "w") as f:
            f.write(where + "\n")
        if marker is not None:
            with open(os.path.join(d, "marker"), "w") as f:
                f.write(marker + "\n")
        with open(os.path.join(d, "script"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def error(self, where, why):
        self.errors.append("error %s: %s" % (where, why))


def markdown(path, out):
    lines = open(path, encoding="utf-8").read().split("\n")
    marker, mline, i = None, 0, 0
    while i < len(lines):
        m = MD_MARK.match(lines[i])
        if m:
            if marker is not None:
                out.error("%s:%d" % (path, mline), "a marker with no code block after it")
            marker, mline = m.group(1) or "", i + 1
            i += 1
            continue
        code = lines[i].startswith("    ") and (i == 0 or lines[i - 1].strip() == ""
                                                or MD_MARK.match(lines[i - 1]))
        if code:
            start, block = i + 1, []
            while i < len(lines) and (lines[i].startswith("    ") or lines[i].strip() == ""):
                block.append(lines[i][4:])
                i += 1
            while block and block[-1].strip() == "":
                block.pop()
            out.block("%s:%d" % (path, start), marker, block)
            marker = None
            continue
        if lines[i].strip() != "" and marker is not None:
            out.error("%s:%d" % (path, mline), "a marker with no code block after it")
            marker = None
        i += 1
    if marker is not None:
        out.error("%s:%d" % (path, mline), "a marker with no code block after it")


def man_text(line, where, out):
    def esc(m):
        e = m.group(0)
        if e in MAN_ESC:
            return MAN_ESC[e]
        out.error(where, "an mdoc escape the test cannot read: %s" % e)
        return e
    text = MAN_ESC_RE.sub(esc, line)
    return text[2:] if text.startswith("$ ") else text


def man(path, out):
    lines = open(path, encoding="utf-8").read().split("\n")
    section, marker, mline, i = "", None, 0, 0
    while i < len(lines):
        line, where = lines[i], "%s:%d" % (path, i + 1)
        m = MAN_MARK.match(line)
        if line.startswith(".Sh "):
            section = line[4:].strip()
        if m:
            marker, mline = m.group(1) or "", i + 1
            i += 1
            continue
        if line.startswith(".Dl "):
            block, i = [man_text(line[4:], where, out)], i + 1
        elif line.startswith(".Bd -literal"):
            block, i = [], i + 1
            while i < len(lines) and lines[i] != ".Ed":
                block.append(man_text(lines[i], "%s:%d" % (path, i + 1), out))
                i += 1
            if i == len(lines):
                out.error(where, "a .Bd -literal with no .Ed")
            i += 1
        else:
            if marker is not None:
                out.error("%s:%d" % (path, mline),
                          "a marker not followed by a .Dl or .Bd -literal line")
                marker = None
            i += 1
            continue
        if marker is not None or section == "EXAMPLES":
            out.block(where, marker, block)
        marker = None


def main():
    out = Out(sys.argv[1])
    for path in sys.argv[2:]:
        (markdown if path.endswith(".md") else man)(path, out)
    for e in out.errors:
        print(e)
    return 1 if out.errors else 0


if __name__ == "__main__":
    sys.exit(main())
