#!/bin/bash
# sr-mcp's tools as data (scripts/tool-check, scripts/tools.sh): no JSON
# schema in a C string, no function of over six parameters, a handler
# tool_NAME for every sr-mcp/tools/NAME.json and the other way round; the
# table scripts/tools.sh makes from that directory, and what it refuses.
# The tree passes; a small tree made here, with one of each, fails naming
# each; the same tree mended passes (the control).
. "$(dirname "$0")/lib.sh"

C=$SR_ROOT/scripts/tool-check
G=$SR_ROOT/scripts/tools.sh
has() { grep -Fxq -- "$2" <<<"$1"; }   # has TEXT LINE: LINE is a line of TEXT

# --- the tree itself ------------------------------------------------------------
run "$C"
is "$rc" 0 "the tree: no schema in C, no long parameter list, every tool paired"
[ "$rc" = 0 ] || diag "$out"
n=$(ls "$SR_ROOT"/sr-mcp/tools/*.json | wc -l)
like "$out" "^# $n tools, $n handlers; violations: 0\$" "each of the $n schemas has its handler"
run sh "$G" table "$SR_ROOT/sr-mcp/tools"
is "$rc" 0 "tools.sh makes the table"
is "$(grep -c '^	TOOL(' <<<"$out")" "$n" "a row per schema"
like "$(grep -m1 '^	TOOL(' <<<"$out")" "TOOL\\(run_code, 0, tool_run_code_settings\\)" \
	"in the order of their positions: run_code first"
ok "the sandrun names are offered with --compat sandrun only" has "$out" \
	"	TOOL(execute_bash, 1, tool_sandrun_exec_settings) \\"
run sh "$G" json "$SR_ROOT/sr-mcp/tools"
is "$rc" 0 "tools.sh embeds the schemas"
like "$out" "static const char tool_part_run_result\\[\\]" "and the parts they share"

# --- a small tree with one violation of each kind ---------------------------------
t=$T/tree
mkdir -p "$t/sr-mcp/tools/parts"
printf '{\n  "x-sr": {"position": 10},\n  "name": "good",\n  "inputSchema": {"type": "object"}\n}\n' \
	>"$t/sr-mcp/tools/good.json"
printf '{\n  "x-sr": {"position": 20},\n  "name": "orphan",\n  "inputSchema": {"type": "object"}\n}\n' \
	>"$t/sr-mcp/tools/orphan.json"
cat >"$t/sr-mcp/tool_x.c" <<'C'
#include "tool.h"
static const char def[] = "{\"type\": \"object\", \"properties\": {}}";
/* "\"type\": \"object\"" in a comment is not code; nor is seven(a, b, c, d, e, f, g) */
static int six(int a, int b, int c, int d, int e, void (*f)(int x, int y, int z, int w))
{
	return a + b + c + d + e + (f != 0);
}
static int seven(int a, int b, int c, int d, int e, int f,
		 int g)
{
	return a + b + c + d + e + f + g + six(0, 0, 0, 0, 0, 0);
}
void tool_good(struct proto_req *r, const cJSON *args)
{
	(void)r, (void)args, (void)def, (void)seven;
}
void tool_stray(struct proto_req *r, const cJSON *args)
{
	(void)r, (void)args;
}
C
run "$C" --root "$t"
is "$rc" 1 "a tree with violations fails (exit 1)"
[ "$rc" = 1 ] || diag "$out"
ok "a JSON schema in a C string is reported" has "$out" "schema: sr-mcp/tool_x.c:2"
ok "a function of seven parameters is reported" has "$out" "params: sr-mcp/tool_x.c: seven: 7"
unlike "$out" "six|:3\$" "one of six (a function pointer's counts as one) and a comment are not"
ok "a schema without a handler is reported" has "$out" "no handler: sr-mcp/tools/orphan.json"
ok "a handler without a schema is reported" has "$out" "no schema: sr-mcp/tool_x.c: tool_stray"
is "$(grep -c '^[a-z ]*: ' <<<"$out")" 4 "and nothing else"

# the control: the same tree mended passes
cat >"$t/sr-mcp/tool_x.c" <<'C'
#include "tool.h"
/* "\"type\": \"object\"" in a comment is not code; nor is seven(a, b, c, d, e, f, g) */
static int six(int a, int b, int c, int d, int e, void (*f)(int x, int y, int z, int w))
{
	return a + b + c + d + e + (f != 0);
}
void tool_good(struct proto_req *r, const cJSON *args)
{
	(void)r, (void)args, (void)six;
}
void tool_orphan(struct proto_req *r, const cJSON *args)
{
	(void)r, (void)args;
}
C
run "$C" --root "$t"
is "$rc" 0 "mended (the string gone, six parameters, the handler named after its schema), it passes"
[ "$rc" = 0 ] || diag "$out" "$(cat "$t/sr-mcp/tool_x.c")"

# --- what tools.sh refuses ----------------------------------------------------------
run sh "$G" table "$t/sr-mcp/tools"
is "$rc" 0 "tools.sh takes the small tree"
sed -i 's/"position": 20/"position": 10/' "$t/sr-mcp/tools/orphan.json"
run sh "$G" table "$t/sr-mcp/tools"
is "$rc" 111 "two tools at one position are refused"
like "$err" "two tools at position 10" "saying so"
sed -i 's/"position": 10/"position": 20/; s/"name": "orphan"/"name": "other"/' "$t/sr-mcp/tools/orphan.json"
run sh "$G" table "$t/sr-mcp/tools"
is "$rc" 111 "a schema named unlike its file is refused"
like "$err" 'orphan.json: its "name" is not orphan' "saying so"
sed -i 's/"name": "other"/"name": "orphan"/; /"x-sr"/d' "$t/sr-mcp/tools/orphan.json"
run sh "$G" table "$t/sr-mcp/tools"
is "$rc" 111 "a schema without its x-sr line is refused"
sed -i '1a\  "x-sr": {"position": 20, "compat": "other"},' "$t/sr-mcp/tools/orphan.json"
run sh "$G" table "$t/sr-mcp/tools"
is "$rc" 111 "a compat other than sandrun is refused"

done_testing
