#!/bin/bash
# scripts/layers: each program's files in layers (scripts/layers.conf), no
# circle of files, one way down and only to the layers a layer may use,
# each file including the header of what it uses (directly) and no header
# it does not use, no function pointer member named like a function, every
# file in a layer, no function over 60 lines, no source file of sr-mcp
# over 700 lines. The tree passes with the violations of
# scripts/layers.baseline and no others, and every line of the baseline
# still occurs (it only shrinks); HACKING.md carries the map --map prints.
# Small trees made here show that each kind of violation is reported, and
# what is not one is not.
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

# control on sr-mcp itself: a copy of it with tool_run.c's include of job.h
# taken out (it still reaches job.h through no other header: it would not
# compile, but the check says why before the compiler does)
r=$T/real
mkdir -p "$r/scripts" "$r/sr-mcp"
grep '^sr-mcp ' "$SR_ROOT/scripts/layers.conf" >"$r/scripts/layers.conf"
cp "$SR_ROOT"/sr-mcp/*.[ch] "$r/sr-mcp/"
sed -i '/^#include "job\.h"$/d' "$r/sr-mcp/tool_run.c"
run "$L" --root "$r" --all
like "$out" '^unincluded: sr-mcp/tool_run\.c: job\.h \(.*job_cancel' \
	"control: sr-mcp's tool_run.c without its include of job.h is reported"
is "$(grep -c '^[a-z]*: ' <<<"$out")" 1 "and only it"

# --- the map: HACKING.md carries scripts/layers --map, between its markers -------
map=$("$L" --map)
hack=$(sed -n '/^<!-- scripts\/layers --map: begin -->$/,/^<!-- scripts\/layers --map: end -->$/p' \
	"$SR_ROOT/HACKING.md" | sed '1d;$d')
is "$hack" "$map" "HACKING.md's map is scripts/layers --map (edit the conf, paste the output)"
[ "$hack" = "$map" ] || diag "$(diff <(echo "$hack") <(echo "$map"))"
like "$map" '^\| sr-mcp layer \| files \| may use \| owns \|$' "the map has sr-mcp's layers"
# control: a map one row off is told apart (the comparison can fail)
stale=$(sed '0,/^| tools |/s/| protocol, sessions, /| protocol, /' <<<"$hack")
nok "control: a row of the map changed no longer matches" [ "$stale" = "$map" ]

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

# --- includes: each file includes what it uses; the layers it may use ------------
t=$T/inc
mkdir -p "$t/scripts" "$t/sr-y"
cat >"$t/scripts/layers.conf" <<'CONF'
sr-y top: main.c
sr-y mid: mid.c mid.h
sr-y mid may use: base
sr-y mid owns: the middle
sr-y low: low.c low.h
sr-y base: base.c base.h
CONF
# base.h: a macro, a struct, a function; a member named like the function
cat >"$t/sr-y/base.h" <<'C'
#define BASE_MAX 10
struct base { int n; };
struct ops { int (*base_get)(void); int (*on_get)(void); };
int base_get(void);
C
printf '#include "base.h"\nint base_get(void)\n{\n\treturn BASE_MAX;\n}\n' >"$t/sr-y/base.c"
# low.h includes base.h for what its forward declaration already gives: unused
printf '#include "base.h"\nstruct base;\nint low_get(struct base *b);\n' >"$t/sr-y/low.h"
printf '#include "low.h"\n#include "base.h"\nint low_get(struct base *b)\n{\n\treturn b->n + base_get();\n}\n' \
	>"$t/sr-y/low.c"
# mid.h names struct base with neither base.h nor a forward declaration
printf 'int mid_get(struct base *b);\n' >"$t/sr-y/mid.h"
# mid.c uses low, which mid's "may use" line leaves out
printf '#include "mid.h"\n#include "low.h"\n#include "base.h"\nint mid_get(struct base *b)\n{\n\treturn low_get(b) + BASE_MAX;\n}\n' \
	>"$t/sr-y/mid.c"
# main.c calls base_get, declared in base.h, which it reaches through low.h only
cat >"$t/sr-y/main.c" <<'C'
#include "low.h"
#include "mid.h"
int main(void)
{
	struct base b = { 1 };
	return low_get(&b) + mid_get(&b) + base_get();
}
C
run "$L" --root "$t" --all
is "$rc" 1 "a tree whose files do not include what they use fails"
ok "a use through another header's include is not an include" \
	has "$out" "unincluded: sr-y/main.c: base.h (base_get struct base)"
ok "a struct tag in a header needs its header or a forward declaration" \
	has "$out" "unincluded: sr-y/mid.h: base.h (struct base)"
ok "a header included and not used is reported" has "$out" "unused: sr-y/low.h: base.h"
ok "a layer using one its 'may use' line leaves out is reported" \
	has "$out" "unallowed: sr-y: mid.c (mid) -> low.c (low)"
ok "its include of that layer's header too" has "$out" "unallowed: sr-y: mid.c (mid) -> low.h (low)"
ok "a function pointer member named like a function is reported" \
	has "$out" "member: sr-y/base.h: ops.base_get is a function's name"
is "$(grep -c '^[a-z]*: ' <<<"$out")" 6 \
	"and nothing else (low.c and base.c include what they use; main.c, no 'may use' line, uses any layer below; on_get names no function)"
run "$L" --root "$t" --graph --all
ok "--graph: the include of a listed header is an arrow" has "$out" "sr-y/mid.c -> sr-y/low.h (#include low.h)"
old_map=$("$L" --root "$t" --map)
like "$old_map" '^\| mid \| `mid\.c` `mid\.h` \| base \| the middle \|$' \
	"--map: a layer's files, what it may use, what it owns"
like "$old_map" '^\| top \| `main\.c` \| mid, low, base \|' "--map: without a 'may use' line, every layer below"

# each one fixed: the tree passes
sed -i 's/^#include "low.h"$/&\n#include "base.h"/' "$t/sr-y/main.c"
sed -i '1i struct base;' "$t/sr-y/mid.h"
sed -i '/^#include "base.h"$/d' "$t/sr-y/low.h"
sed -i 's/(\*base_get)/(*on_base)/' "$t/sr-y/base.h"
sed -i 's/^sr-y mid may use: base$/sr-y mid may use: low base/' "$t/scripts/layers.conf"
run "$L" --root "$t" --all
is "$rc" 0 "fixed (each include, a forward declaration, the member renamed, low allowed): it passes"
[ "$rc" = 0 ] || diag "$out"
nok "the map follows the conf (a stale copy differs)" [ "$("$L" --root "$t" --map)" = "$old_map" ]

# the conf: a layer may use only layers below it
sed -i 's/^sr-y mid may use: low base$/sr-y mid may use: top/' "$t/scripts/layers.conf"
run "$L" --root "$t" --all
is "$rc" 100 "a 'may use' naming a layer above is refused (exit 100)"
like "$err" "mid may use top: a layer above it" "saying which"
sed -i 's/^sr-y mid may use: top$/sr-y mid may use: nowhere/' "$t/scripts/layers.conf"
run "$L" --root "$t" --all
is "$rc" 100 "a 'may use' naming no layer is refused"

done_testing
