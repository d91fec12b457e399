#!/bin/bash
# sr-mcp-http installed: make install puts it in DATADIR/sr-mcp/http with a
# link in BINDIR and the systemd user unit (Delegate=yes) in
# PREFIX/lib/systemd/user; the installed one runs the installed sr-mcp
# (nothing of the build tree on PATH) and serves a session; every option of
# its --help is in its man page; make uninstall removes it all.
. "$(dirname "$0")/lib.sh"
need_cmd node curl
need_not_root

run "$SR_ROOT/sr-mcp/http/sr-mcp-http" --help
is "$rc" 0 "sr-mcp-http --help exits 0"
page=$(mandoc -Tascii "$SR_ROOT/man/sr-mcp-http.1" 2>/dev/null | col -b)
missing=
for o in $(grep -o -- '--[a-z][a-z-]*' <<<"$out" | sort -u); do
	grep -q -- "$o" <<<"$page" || missing="$missing $o"
done
is "$missing" "" "every option of sr-mcp-http --help is in sr-mcp-http(1)"

d=$T/dest
run make -s -C "$SR_ROOT" install PREFIX=/opt/sr DESTDIR="$d"
is "$rc" 0 "make install succeeds"
is "$(readlink "$d/opt/sr/bin/sr-mcp-http")" /opt/sr/share/sr/sr-mcp/http/sr-mcp-http \
	"BINDIR/sr-mcp-http links to the installed adapter"
ok "... which is executable" test -x "$d/opt/sr/share/sr/sr-mcp/http/sr-mcp-http"
ok "its man page is installed" test -f "$d/opt/sr/share/man/man1/sr-mcp-http.1"
unit=$d/opt/sr/lib/systemd/user/sr-mcp-http.service
like "$(cat "$unit" 2>&1)" $'\nExecStart=/opt/sr/bin/sr-mcp-http ' "the user unit starts the installed sr-mcp-http"
like "$(cat "$unit" 2>&1)" $'\nDelegate=yes\n' "... with Delegate=yes"
if command -v systemd-analyze >/dev/null; then
	run systemd-analyze verify --user "$unit"
	unlike "$out$err" "Unknown (key|section)|Invalid|Failed to parse" "systemd-analyze verify finds no error in the unit"
else
	skip "systemd-analyze verify finds no error in the unit" "systemd-analyze is not installed"
fi

# the installed one, with the installed sr-mcp only
one=$T/one
run make -s -C "$SR_ROOT" install PREFIX="$one" DESTDIR=
is "$rc" 0 "make install PREFIX=$one"
umask 077
echo "t tok-0123456789abcdef" >"$T/tokens"
env PATH=/usr/bin:/bin "$one/bin/sr-mcp-http" --listen 127.0.0.1:0 --tokens "$T/tokens" \
	--state-dir "$T/state" 2>"$T/log" &
at_exit "kill $! 2>/dev/null"
wait_for "the installed sr-mcp-http listens" 20 grep -q 'listening on' "$T/log"
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$T/log")
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
out=$(curl -s -H 'Authorization: Bearer tok-0123456789abcdef' -H 'Content-Type: application/json' \
	-H 'Accept: application/json' --data-binary "$init" "http://127.0.0.1:$port/mcp")
like "$out" '"serverInfo":\{"name":"sr-mcp"' "the installed sr-mcp-http serves a session with the installed sr-mcp"
kill %1 2>/dev/null; wait 2>/dev/null
run make -s -C "$SR_ROOT" uninstall PREFIX="$one" DESTDIR=
run make -s -C "$SR_ROOT" uninstall PREFIX=/opt/sr DESTDIR="$d"
is "$rc" 0 "make uninstall succeeds"
is "$(find "$d" "$one" ! -type d | wc -l | tr -d ' ')" 0 "uninstall removes every file and link it installed"
done_testing
