#!/bin/bash
# The tools speak as one: the same exit code for a program that cannot be
# run (127 not found: ENOENT or ENOTDIR; 126 otherwise), one wording for a
# bad option, in one line, and --version from one place.
. "$(dirname "$0")/lib.sh"

# How each tool runs a program; sr-jail needs user namespaces.
tools=(sr-limit sr-exec "sr-exec -p strict")
if have_userns; then tools+=(sr-jail "sr-limit sr-jail sr-exec"); else
	skip "sr-jail's exit codes" "no user namespaces here: $userns_why"; fi
for t in "${tools[@]}"; do
	run $t /etc/passwd/x
	is "$rc" 127 "$t /etc/passwd/x (ENOTDIR): 127"
	run $t sr-no-such-program
	is "$rc" 127 "$t sr-no-such-program (ENOENT): 127"
	run $t /usr
	is "$rc" 126 "$t /usr (a directory): 126"
	run $t /etc/passwd
	is "$rc" 126 "$t /etc/passwd (not executable): 126"
done

versions=
for t in sr-limit sr-jail sr-exec sr-net; do
	run $t --bogus true
	is "$rc" 100 "$t --bogus: 100"
	is "$err" "$t: usage: unknown option '--bogus' (see $t --help)" "$t --bogus: the one wording, one line"
	run $t -Z true
	is "$err" "$t: usage: unknown option '-Z' (see $t --help)" "$t -Z: the same"
	run $t --verbose=1 true
	is "$err" "$t: usage: option '--verbose' takes no value (see $t --help)" "$t --verbose=1: one line"
	run $t --version
	like "$rc:$out" "^0:$t [0-9]+\.[0-9]+\.[0-9]+$" "$t --version"
	versions+="${out#* } "
done
is "$(printf '%s\n' $versions | sort -u | wc -l)" 1 "one version for every tool ($versions)"
for t in "sr-limit -m" "sr-limit --timeout" "sr-jail --bind" "sr-exec -p"; do
	run $t
	is "$rc:$err" "100:${t%% *}: usage: option '${t#* }' needs a value (see ${t%% *} --help)" \
		"$t with no value: one line"
done

# One phrasing per situation, from lib/err.c, in every tool that runs a
# program (sr-queue submit included): no program given, a program not
# found, a bad option value.
voices=(sr-limit sr-exec "sr-queue submit $T/voice" sr-net)
if have_userns; then voices+=(sr-jail); fi
for t in "${voices[@]}"; do
	p=${t%% *}
	run $t
	is "$rc:$err" "100:$p: usage: no program given (see $p --help)" "$t with no program: the one wording"
	run $t --
	is "$rc:$err" "100:$p: usage: no program given (see $p --help)" "$t -- with no program: the same"
done
for t in sr-limit sr-jail sr-exec "sr-exec -p strict" "sr-limit sr-jail sr-exec"; do
	case $t in *sr-jail*) have_userns || continue ;; esac
	inner=$(printf '%s\n' $t | grep '^sr-' | tail -1)  # the tool that runs it
	run $t sr-no-such-program
	is "$rc:$err" "127:$inner: fatal: unable to run sr-no-such-program: No such file or directory" \
		"$t sr-no-such-program: the one wording, fatal, one line"
done
# ... and every way a program cannot be run, in every tool that runs one
# (sr-exec's default exec is lib/util.c's sr_exec; sr-jail finds the
# program before the jail, sr-jail/prog.c, and runs it inside, exec.c: a
# script whose interpreter is missing fails only there).
printf '#!/nonexistent-sr-interpreter\n' >"$T/badint" && chmod 0755 "$T/badint"
chmod 0755 "$T"
cases=("/etc/passwd/x:127:Not a directory" "sr-no-such-program:127:No such file or directory"
	"/usr:126:Permission denied" "/etc/passwd:126:Permission denied"
	"$T/badint:127:No such file or directory")
for t in sr-limit sr-jail sr-exec "sr-exec -p strict" "sr-limit sr-jail sr-exec"; do
	case $t in *sr-jail*) have_userns || continue ;; esac
	inner=$(printf '%s\n' $t | grep '^sr-' | tail -1)
	for c in "${cases[@]}"; do
		p=${c%%:*} want=${c#*:}
		run $t "$p"
		is "$rc:$err" "${want%%:*}:$inner: fatal: unable to run $p: ${want#*:}" "$t $p: the one wording"
	done
done
vsp=$T/voice
nf=$(sr-queue submit "$vsp" -- sr-no-such-program)
sr-queue run "$vsp" --drain
run sr-queue status "$vsp" "$nf"
is "$out" "$nf failed exec: unable to run sr-no-such-program: No such file or directory" \
	"sr-queue: a job whose program is not found says so in the same words, naming it"
is "$(json_get "$(sr-queue status "$vsp" "$nf" --json)" error)" \
	"unable to run sr-no-such-program: No such file or directory" "... in its result's error too"
# A bad value: "OPT: invalid WHAT: 'VALUE'", and "(want ...)" when the
# tool says what it wants; the same option in two tools, the same words.
bad_value() { # TOOL... -- OPT VALUE
	local t=() opt val
	while [ "$1" != -- ]; do t+=("$1"); shift; done
	opt=$2 val=$3
	run "${t[@]}" "$opt" "$val" true
	is "$rc" 100 "${t[*]} $opt $val: 100"
	like "$err" "^${t[0]}: usage: $opt: invalid [a-zA-Z ]+: '${val//./\\.}'( \(want [^)]+\))?$" \
		"${t[*]} $opt $val: the one wording for a bad value, one line"
}
bad_value sr-limit -- --timeout 1x
bad_value sr-limit -- --timeout 0
bad_value sr-limit -- --cgroup maybe
bad_value sr-limit -- --cpus 0
bad_value sr-queue submit "$vsp" -- --timeout 1x
bad_value sr-queue submit "$vsp" -- --retry x
bad_value sr-exec -- --landlock sometimes
bad_value sr-exec -- --deny no_such_call
bad_value sr-exec -- --ro ''
bad_value sr-jail -- --keep-fd 987
bad_value sr-jail -- --hostname ''
bad_value sr-jail -- --chdir relative
bad_value sr-jail -- --uid abc
bad_value sr-queue submit "$vsp" -- --tenant 'a b'
bad_value sr-queue submit "$vsp" -- --env =x
bad_value sr-queue run "$vsp" -- -j 0
bad_value sr-queue run "$vsp" -- --cpu-budget 1s
bad_value sr-queue logs "$vsp" 0123456789abcdef0123456789abcdef -- --stream both
bad_value sr-mcp -- -j 0
bad_value sr-mcp -- --cpu-budget 1s
run sr-queue status "$vsp" xyz
is "$rc:$err" "100:sr-queue: usage: ID: invalid job id: 'xyz' (want 32 lowercase hex digits)" \
	"sr-queue: a bad job id in the same words"
for o in "-j 0" "--cpu-budget 1s"; do
	run sr-queue run "$vsp" $o; a=${err#sr-queue: }
	run sr-mcp $o
	is "${err#sr-mcp: }" "${a%% (want*}${err##*\'}" "sr-queue run and sr-mcp: $o in the same words (up to what they want)"
done
run sr-limit --timeout 1x true; a=${err#sr-limit: }
run sr-queue submit "$vsp" --timeout 1x -- true
is "${err#sr-queue: }" "$a" "sr-limit and sr-queue submit: --timeout 1x in the same words"

# sr-queue: the same codes through a job (submit, run, wait), the same
# wording for a bad option of sr-queue and of a command, the same version.
sp=$T/spool
ids=()
for p in /etc/passwd/x sr-no-such-program /usr /etc/passwd; do
	ids+=("$(sr-queue submit "$sp" -- "$p")")
done
run sr-queue run "$sp" --drain
is "$rc" 0 "sr-queue run --drain: the four jobs ran"
want=(127 127 126 126)
i=0
for p in /etc/passwd/x sr-no-such-program /usr /etc/passwd; do
	run sr-queue wait "$sp" "${ids[$i]}"
	is "$rc" "${want[$i]}" "sr-queue wait for a job of $p: ${want[$i]}"
	i=$((i + 1))
done
run sr-queue submit "$sp" --bogus -- true
is "$rc:$err" "100:sr-queue: usage: unknown option '--bogus' (see sr-queue --help)" \
	"sr-queue submit --bogus: the one wording, one line"
run sr-queue --bogus
is "$rc:$err" "100:sr-queue: usage: unknown option '--bogus' (see sr-queue --help)" \
	"sr-queue --bogus: the same"
run sr-queue submit "$sp" --timeout
is "$rc:$err" "100:sr-queue: usage: option '--timeout' needs a value (see sr-queue --help)" \
	"sr-queue submit --timeout with no value: one line"
run sr-queue no-such-command
is "$rc:$err" "100:sr-queue: usage: unknown command 'no-such-command' (see sr-queue --help)" \
	"an unknown command: one line in the same style"
run sr-queue --version
is "$rc:$out" "0:sr-queue ${versions%% *}" "sr-queue --version: the others' version"
run sr-queue -V
is "$out" "sr-queue ${versions%% *}" "sr-queue -V: the same"

done_testing
