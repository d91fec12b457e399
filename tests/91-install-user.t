#!/bin/bash
# make install without root, as README.md gives it: PREFIX=$HOME/.local.
# The programs land in ~/.local/bin, where the README's configurations find
# sr-mcp (on PATH); sr-mcp-http's systemd user unit lands where systemd
# looks for a user's units (~/.local/share/systemd/user, asked of systemd
# itself), not in ~/.local/lib/systemd/user, which systemd never reads (the
# control); other prefixes keep PREFIX/lib/systemd/user; uninstall removes
# it all.
. "$(dirname "$0")/lib.sh"

h=$T/home
mkdir -p "$h"
# the account's own environment, HOME its home (no XDG_* that would move it)
as_user=(env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_DATA_DIRS HOME="$h" XDG_RUNTIME_DIR="$T/run")
run "${as_user[@]}" make -s -C "$SR_ROOT" install PREFIX="$h/.local"
is "$rc" 0 "make install PREFIX=\$HOME/.local, as an ordinary user"
[ "$rc" = 0 ] || diag "$err"
for t in sr-limit sr-jail sr-exec sr-queue sr-mcp sr-mcp-http; do
	ok "$t in ~/.local/bin" test -x "$h/.local/bin/$t"
done
ok "the man pages in ~/.local/share/man/man1" test -f "$h/.local/share/man/man1/sr-mcp.1"
unit=$h/.local/share/systemd/user/sr-mcp-http.service
ok "the systemd user unit in ~/.local/share/systemd/user" test -f "$unit"
ok "... and nothing in ~/.local/lib/systemd" test ! -e "$h/.local/lib/systemd"
like "$(grep '^ExecStart=' "$unit" 2>/dev/null)" "^ExecStart=$h/.local/bin/sr-mcp-http( |$)" \
	"the unit starts the sr-mcp-http of this install"
like "$(cat "$h/.local/share/sr/sr-mcp/http/paths.json" 2>/dev/null)" "\"$h/.local/bin/sr-mcp\"" \
	"sr-mcp-http runs the sr-mcp of this install"

if command -v systemd-analyze >/dev/null; then
	run "${as_user[@]}" systemd-analyze --user unit-paths
	paths=$out
	like "$paths" "(^|$(printf '\n'))$h/.local/share/systemd/user($(printf '\n')|$)" \
		"systemd reads this user's units from the directory the unit went to"
	unlike "$paths" "$h/.local/lib/systemd/user" \
		"control: systemd never reads ~/.local/lib/systemd/user (where it went before)"
	like "$paths" "(^|$(printf '\n'))/usr/local/lib/systemd/user($(printf '\n')|$)" \
		"... while it does read PREFIX/lib/systemd/user for PREFIX=/usr/local"
else
	skip "systemd reads the unit's directory" "systemd-analyze is not installed"
fi
run make -s -C "$SR_ROOT" --eval 'p: ; @echo $(USERUNITDIR)' p PREFIX=/usr/local
is "$out" /usr/local/lib/systemd/user "PREFIX=/usr/local keeps /usr/local/lib/systemd/user"

# The README's configurations name sr-mcp as found on PATH.
run env PATH="$h/.local/bin:/usr/bin:/bin" HOME="$h" sh -c 'command -v sr-mcp'
is "$out" "$h/.local/bin/sr-mcp" "with ~/.local/bin on PATH, 'command -v sr-mcp' names the installed one"
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
	env PATH="$h/.local/bin:/usr/bin:/bin" HOME="$h" "${mcp_san[@]+"${mcp_san[@]}"}" "$h/.local/bin/sr-mcp")
like "$reply" '"serverInfo":\{"name":"sr-mcp"' "the installed sr-mcp answers initialize"

run "${as_user[@]}" make -s -C "$SR_ROOT" uninstall PREFIX="$h/.local"
is "$rc" 0 "make uninstall PREFIX=\$HOME/.local"
is "$(find "$h/.local" -type f -o -type l 2>/dev/null | head -5)" "" "uninstall removes every installed file, the unit too"
done_testing
