#!/bin/bash
# scripts/layers: each program's files in layers (scripts/layers.conf), no
# circle of files, one way down, every file in a layer, no function over
# 60 lines, no source file of sr-mcp over 700 lines. The tree passes with
# the violations of scripts/layers.baseline and no others, and every line
# of the baseline still occurs (it only shrinks). A small tree made here
# shows that each kind of violation is reported.
. "$(dirname "$0")/lib.sh"

L=$SR_ROOT/scripts/layers
has() { grep -Fxq -- "$2" <<<"$1"; }   # has TEXT LINE: LINE is a line of TEXT

# --- the tree itself, against its baseline -------------------------------------
run "$L"
is "$rc" 0 "the tree has the baseline's violations, no new one, none gone"
[ "$rc" = 0 ] || diag "$out" "$err"
run "$L" --graph
like "$out" '^sr-queue/submit\.c -> sr-queue/spool_submit\.c \(.*sq_job_store.*\)$' \
	"--graph shows an arrow with the names behind it (submit.c stores through the spool core)"

# --- a small tree with one violation of each kind ------------------------------
t=$T/tree
mkdir -p "$t/scripts" "$t/sr-x" "$t/sr-mcp"
cat >"$t/scripts/layers.conf" <<'CONF'
# a comment
sr-x top: main.c top.c a.c b.c
sr-x low: low.c quiet.c long.c gone.c
sr-mcp all: main.c
CONF
printf 'void top(void);\nint low(void);\nint main(void)\n{\n\ttop();\n\treturn low();\n}\n' >"$t/sr-x/main.c"
printf 'int top_count;\nvoid top(void)\n{\n\ttop_count++;\n}\n' >"$t/sr-x/top.c"
printf 'void b_fn(void);\nvoid a_fn(void)\n{\n\tb_fn();\n}\n' >"$t/sr-x/a.c"
printf 'void a_fn(void);\nvoid b_fn(void)\n{\n\ta_fn();\n}\n' >"$t/sr-x/b.c"
# low.c reads a global of the layer above: an upward arrow
printf 'extern int top_count;\nint low(void)\n{\n\treturn top_count;\n}\n' >"$t/sr-x/low.c"
# quiet.c says top and top_count only where they name nothing of top.c:
# a comment, a string, a local, a parameter, a member, a struct tag
cat >"$t/sr-x/quiet.c" <<'C'
#include <string.h>
struct top { int top_count; };
/* top(); top_count */
// top();
int quiet(int top_count, struct top *p)
{
	int top = 1;
	const char *s = "top(); top_count";
	return top + top_count + p->top_count + (int)strlen(s);
}
C
{
	printf 'int fits(void)\n{\n'; for i in $(seq 59); do echo "	(void)$i;"; done; printf '\treturn 0;\n}\n'
	printf 'int too_long(void)\n{\n'; for i in $(seq 61); do echo "	(void)$i;"; done; printf '}\n'
} >"$t/sr-x/long.c"
printf 'int fits(void);\nint main(void)\n{\n\treturn fits();\n}\n' >"$t/sr-x/unlisted.c"
{ for i in $(seq 697); do echo "/* $i */"; done; printf 'int main(void)\n{\n\treturn 0;\n}\n'; } >"$t/sr-mcp/main.c"

run "$L" --root "$t" --all
is "$rc" 1 "a tree with violations fails (exit 1)"
[ "$rc" = 1 ] || diag "$out"
ok "two files calling each other are a circle" has "$out" "circle: sr-x: a.c b.c"
ok "a lower file using a higher one is an upward arrow" has "$out" "up: sr-x: low.c (low) -> top.c (top)"
ok "a file in no layer is reported" has "$out" "unlisted: sr-x/unlisted.c"
ok "a file the conf lists that is not there is reported" has "$out" "missing: sr-x/gone.c"
ok "a function of 61 lines is reported" has "$out" "long: sr-x/long.c: too_long: 61 lines"
unlike "$out" "fits" "one of 60 lines is not"
ok "a source file of sr-mcp over 700 lines is reported" has "$out" "big: sr-mcp/main.c: 701 lines"
is "$(grep -c '^[a-z]*: ' <<<"$out")" 6 "and nothing else"

run "$L" --root "$t" --graph --all
ok "--graph: main.c calls top()" has "$out" "sr-x/main.c -> sr-x/top.c (top)"
ok "--graph: low.c reads top_count" has "$out" "sr-x/low.c -> sr-x/top.c (top_count)"
ok "--graph: the circle's two arrows" has "$out" "sr-x/a.c -> sr-x/b.c (b_fn)"
unlike "$out" "quiet\\.c ->" "no arrow from comments, strings, locals, parameters, members or tags"
like "$out" "^# 3 programs|^# 2 programs" "a summary line"

# --- the baseline: known violations pass, a new one or a gone one fails -----------
run "$L" --root "$t" --write-baseline
is "$rc" 0 "--write-baseline writes the baseline"
is "$(grep -vc '^#' "$t/scripts/layers.baseline")" 6 "one line per violation"
run "$L" --root "$t"
is "$rc" 0 "the known violations pass"
sed -i 's/^sr-x low: /&up2.c /' "$t/scripts/layers.conf"
printf 'extern int top_count;\nint up2(void)\n{\n\treturn top_count;\n}\n' >"$t/sr-x/up2.c"
run "$L" --root "$t"
is "$rc" 1 "a new violation fails"
ok "naming it" has "$out" "new: up: sr-x: up2.c (low) -> top.c (top)"
run "$L" --root "$t" --write-baseline
is "$rc" 1 "--write-baseline refuses a new violation"
run "$L" --root "$t" --write-baseline --force
is "$rc" 0 "unless --force"
rm "$t/sr-x/up2.c"; sed -i 's/up2\.c //' "$t/scripts/layers.conf"
run "$L" --root "$t"
is "$rc" 1 "a baseline line that no longer occurs fails"
like "$out" "^gone: up: sr-x: up2\\.c \\(low\\) -> top\\.c \\(top\\)" "naming it"
printf 'void b_fn(void)\n{\n}\n' >"$t/sr-x/b.c"
run "$L" --root "$t" --write-baseline
is "$rc" 0 "--write-baseline takes a smaller baseline"
unlike "$(cat "$t/scripts/layers.baseline")" "circle|up2" "without what is gone"
run "$L" --root "$t"
is "$rc" 0 "and the tree passes again"

done_testing
