#!/bin/bash
# The README's MCP session (scripts/mcp-session.py, `make demo-mcp`) runs
# and succeeds with this tree's sr-mcp, and fails (exit 1, naming the
# calls) when a call fails: here a server with no runner of the session's
# languages, whose run_code calls are errors. tests/root/demo-mcp-as-root.t runs `make demo-mcp`'s
# script as root.
. "$(dirname "$0")/lib.sh"
need_userns

run python3 "$SR_ROOT/scripts/mcp-session.py"
is "$rc" 0 "the session succeeds"
like "$out" "4 months, total 518 best apr" "run_code summarised the CSV"
like "$out" "image/png image block" "the plot came back as an image"

mkdir "$T/other" && printf '#!/bin/sh\nexit 1\n' >"$T/other/other" && chmod +x "$T/other/other"
printf '#!/bin/sh\nexec sr-mcp --runners %s "$@"\n' "$T/other" >"$T/server"
chmod +x "$T/server"
run python3 "$SR_ROOT/scripts/mcp-session.py" "$T/server"
is "$rc" 1 "a session whose calls fail exits 1"
like "$err" "mcp-session: 2 call\\(s\\) failed: run_code, run_code" "naming the calls that failed"

printf '#!/bin/sh\nexit 3\n' >"$T/dead"
chmod +x "$T/dead"
run python3 "$SR_ROOT/scripts/mcp-session.py" "$T/dead"
is "$rc" 1 "a server that ends at once: exit 1"
like "$err" "sr-mcp ended before it answered initialize \\(exit 3\\)" "saying so"
# make demo-mcp on a machine without sr-mcp's default environment, started
# by a user who may not install it: one line saying what to ask for, and no
# session. (dpkg-query answers for the packages here: python3-pandas is
# missing; sudo is refused.)
mkdir "$T/bin"
printf '#!/bin/sh\ncase "$*" in *python3-pandas*) exit 1 ;; esac\nexec /usr/bin/dpkg-query "$@"\n' >"$T/bin/dpkg-query"
printf '#!/bin/sh\nexit 1\n' >"$T/bin/sudo"
chmod +x "$T/bin/dpkg-query" "$T/bin/sudo"
if [ "$(id -u)" = 0 ]; then
	skip "make demo-mcp without the environment, as a user" "runs as root: it would install the packages"
else
	run env PATH="$T/bin:$PATH" bash "$SR_ROOT/scripts/demo-mcp.sh"
	is "$rc" 111 "make demo-mcp without pandas, as a user who may not install it: exit 111"
	is "$(printf '%s\n' "$err" | grep -c .)" 1 "... in one line"
	like "$err" "^demo-mcp: fatal: .*apt-get install python3-pandas.*make install-env" \
		"... naming the package and make install-env"
	is "$out" "" "... and no session ran"
	run bash "$SR_ROOT/scripts/demo-mcp.sh"
	is "$rc" 0 "control: with the environment installed, make demo-mcp's script runs the session"
fi
done_testing
