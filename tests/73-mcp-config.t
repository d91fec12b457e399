#!/bin/bash
# The client configurations README.md and docs/*.md give: each parses as
# JSON of the shape Claude Desktop reads (mcpServers.NAME.command, args),
# and the Linux one, with the build tree's sr-mcp for the installed path,
# starts a server that answers initialize. The README's command that prints
# a configuration for the sr-mcp on PATH prints one of that shape, naming
# the sr-mcp found.
. "$(dirname "$0")/lib.sh"

python3 - "$SR_ROOT/README.md" "$SR_ROOT"/docs/*.md > "$T/configs" <<'PY' || true
import json, re, sys
text = "\n".join(open(f).read() for f in sys.argv[1:])
for m in re.finditer(r'^ +(\{ "mcpServers".*?\} \} \})$', text, re.M | re.S):
    block = " ".join(line.strip() for line in m.group(1).splitlines())
    print(json.dumps(json.loads(block)))
PY
n=$(wc -l < "$T/configs")
ok "README.md and docs/ give at least three client configurations ($n)" test "$n" -ge 3
ok "... and README.md one" grep -q '^ *{ "mcpServers"' "$SR_ROOT/README.md"
while read -r cfg; do
	shape=$(python3 -c '
import json, sys
c = json.loads(sys.argv[1])["mcpServers"]["sr"]
assert isinstance(c["command"], str) and c["command"]
assert all(isinstance(a, str) for a in c.get("args", []))
print(c["command"])' "$cfg" 2>&1)
	like "$shape" '^(/usr/local/bin/sr-mcp|C:\\Windows\\System32\\wsl.exe)$' "a configuration of the right shape: $shape"
	case $shape in
	*wsl.exe) like "$cfg" '"--", "/usr/local/bin/sr-mcp"' "the WSL2 one runs sr-mcp inside WSL" ;;
	esac
done < "$T/configs"
# The README's line that prints the configuration for the sr-mcp on PATH.
line=$(grep -m1 "^ *printf '{ \"mcpServers\"" "$SR_ROOT/README.md" | sed 's/^ *//')
ok "README.md prints a configuration for the sr-mcp on PATH" test -n "$line"
printed=$(bash -c "$line")
run python3 -c 'import json, sys; print(json.loads(sys.argv[1])["mcpServers"]["sr"]["command"])' "$printed"
is "$rc:$out" "0:$(command -v sr-mcp)" "... valid JSON naming the sr-mcp found on PATH"
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cfg","version":"1"}}}' |
	HOME=$T "$SR_ROOT/sr-mcp/sr-mcp")
like "$reply" '"serverInfo":\{"name":"sr-mcp"' "the configured command starts a server that answers initialize"
ok "... and made nothing before the first tool call" test ! -e "$T/.local/state/sr"
done_testing
