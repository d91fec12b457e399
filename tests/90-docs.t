#!/bin/bash
# Documentation: every man page is lint-clean, every tool has one, and every
# option a tool's --help lists is documented in its man page.
. "$(dirname "$0")/lib.sh"

for m in "$SR_ROOT"/man/*.1; do
	run mandoc -Tlint -Wstyle "$m"
	# at the style level, but for cross-references to pages this host's
	# manual database has not indexed (sr's own before make install)
	is "$(printf '%s\n' "$out" "$err" | grep -v -e '^$' -e 'referenced manual not found' -e 'mandoc.db')" "" \
		"mandoc -Tlint -Wstyle clean: ${m##*/}"
done
for dir in "$SR_ROOT"/sr-*/; do
	tool=$(basename "$dir")
	[ -x "$dir/$tool" ] || continue
	page="$SR_ROOT/man/$tool.1"
	ok "$tool has a man page" test -f "$page"
	[ -f "$page" ] || continue
	run "$dir/$tool" --help
	is "$rc" 0 "$tool --help exits 0"
	text=$(mandoc -Tascii "$page" 2>/dev/null | col -b)
	missing=
	for o in $(printf '%s\n' "$out" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
		case $text in *"$o"*) ;; *) missing="$missing $o" ;; esac
	done
	is "$missing" "" "every option of $tool --help is in its man page"
done
like "$(cat "$SR_ROOT/README.md")" "make check" "README gives the test command"
# README.md is the first hour: short, Claude's section at once, the rest
# one link away in docs/ (each linked, each link and anchor there).
readme=$SR_ROOT/README.md
size=$(wc -c <"$readme")
ok "README.md is at most 12 KiB ($size bytes)" test "$size" -le 12288
at=$(grep -b -m1 '^## Use it from Claude Desktop / Claude Code$' "$readme" | cut -d: -f1)
ok "its 'Use it from Claude Desktop / Claude Code' comes at once (byte ${at:-none}, within the first 4 KB)" \
	test -n "$at" -a "${at:-99999}" -lt 4096
for d in "$SR_ROOT"/docs/*.md; do
	ok "README.md links to docs/${d##*/}" grep -q "](docs/${d##*/}" "$readme"
done
run python3 - "$SR_ROOT" <<'PY'
import os, re, sys
root = sys.argv[1]
files = ["README.md"] + ["docs/" + f for f in sorted(os.listdir(os.path.join(root, "docs"))) if f.endswith(".md")]
def slugs(path):  # GitHub's anchors of a document's headings
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+ (.*)", line)
        if m:
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return out
for f in files:
    text = open(os.path.join(root, f), encoding="utf-8").read()
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(root, os.path.dirname(f), path)) if path else os.path.join(root, f)
        if not os.path.exists(full):
            print("%s: a link to %s, which does not exist" % (f, target))
        elif anchor and full.endswith(".md") and anchor not in slugs(full):
            print("%s: a link to %s, which has no heading #%s" % (f, target, anchor))
PY
is "$rc:$out$err" "0:" "every relative link of README.md and docs/*.md leads to a file, and to a heading there"
# The escape suite through run_code: every case of tests/escape/*.t has a
# twin in tests/escape/run_code.tsv or a reason in run_code-exempt.tsv, and
# both name only cases that exist.
run python3 "$SR_ROOT/tests/escape/cases.py" check
is "$rc:$out$err" "0:" "every escape case has a run_code twin or a stated reason (tests/escape/cases.py check)"
run python3 "$SR_ROOT/tests/escape/cases.py" list
n=$(printf '%s\n' "$out" | grep -c .)
ok "... and cases.py finds the cases of tests/escape/*.t ($n)" test "$n" -ge 300

# prove runs each test file itself: one that is not executable is not run.
notx=$(cd "$SR_ROOT" && for f in tests/*.t tests/escape/*.t tests/root/*.t tests/slurm/*.t; do
	[ -x "$f" ] || echo "$f"; done)
is "$notx" "" "every test file is executable"
done_testing
