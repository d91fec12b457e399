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
