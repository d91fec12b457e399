#!/bin/bash
# sr-queue's spool core (the "core" layer of scripts/layers.conf) is a
# library that sr-mcp links: it never ends the process. No exit, _exit,
# abort or lib/'s exiting helpers (sr_fatal*, sr_usage*, sr_exec,
# sr_grow) in it: every failure is returned, with a message where one is
# due. And sr-mcp reaches the queue through the core: it runs sr-queue
# only for the worker (`run`) and `gc`. A control shows each check finds
# what it looks for.
. "$(dirname "$0")/lib.sh"

conf=$SR_ROOT/scripts/layers.conf
core=$(sed -n 's/^sr-queue core: *//p' "$conf" | tr ' ' '\n' | grep '\.[ch]$')
[ -n "$core" ] || skip_all "no sr-queue core line in $conf"
files=()
for f in $core; do files+=("$SR_ROOT/sr-queue/$f"); done
is "$(ls "${files[@]}" 2>/dev/null | wc -l)" "$(wc -w <<<"$core" | tr -d ' ')" \
	"every file of the core named in layers.conf is there"

# exits: a call, not a word in a comment or a name such as sr_exec_exit
exits='(^|[^A-Za-z0-9_])(_?exit|_Exit|abort|sr_fatal|sr_fatal_sys|sr_fatal_run|sr_usage[a-z_]*|sr_exec|sr_grow|sr_opt_[a-z_]*|sr_version)[[:space:]]*\('
strip() { sed -e 's://.*$::' -e 's:/\*.*\*/::g' "$1" | awk '
	/\/\*/ { c = 1; sub(/\/\*.*/, "") ; print; next }
	c && /\*\// { c = 0; sub(/.*\*\//, ""); print; next }
	c { print ""; next } { print }'; }
found=
for f in "${files[@]}"; do
	hits=$(strip "$f" | grep -nE "$exits")
	[ -n "$hits" ] && found+="$(basename "$f"): $hits"$'\n'
done
is "$found" "" "the spool core has no exit, _exit, abort or exiting helper"

# control: the same check finds one planted in a copy of a core file
cp "${files[0]}" "$T/planted.c"
printf 'void planted(void)\n{\n\tsr_fatal(111, "x");\n}\nvoid planted2(void) { _exit(1); }\n' >>"$T/planted.c"
is "$(strip "$T/planted.c" | grep -cE "$exits")" 2 "control: a planted sr_fatal and _exit are found"
printf '/* exit(1) in a comment,\n * abort() too */\nint sr_exec_exit(int);\n' >"$T/quiet.c"
is "$(strip "$T/quiet.c" | grep -cE "$exits")" 0 "control: a comment and sr_exec_exit( are not calls"

# sr-mcp runs sr-queue for the worker and gc only: every argv naming it
verbs=$(grep -hoE '"sr-queue", *"[a-z]+"' "$SR_ROOT"/sr-mcp/*.c | sed 's/.*, *"//; s/"//' | sort -u | tr '\n' ' ')
is "$verbs" "gc run " "sr-mcp runs sr-queue for run and gc only (it ran: $verbs)"
printf 'char *argv[] = { "sr-queue", "status", sp, NULL };\n' >"$T/exec.c"
like "$(grep -hoE '"sr-queue", *"[a-z]+"' "$T/exec.c")" 'status' "control: an exec of status is seen"

# sr-mcp links the whole core: each of its object files is in the link
if [ -x "$SR_ROOT/sr-mcp/sr-mcp" ] && command -v nm >/dev/null; then
	syms=$(nm "$SR_ROOT/sr-mcp/sr-mcp" 2>/dev/null)
	for s in sq_job_resolve sq_job_wait sq_job_cancel sq_job_list sq_status_json; do
		like "$syms" " T $s\$" "sr-mcp links the core's $s"
	done
else
	skip "sr-mcp not built or no nm: the link is not looked at"
fi
done_testing
