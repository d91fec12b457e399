#!/bin/bash
# The tools speak as one: the same exit code for a program that cannot be
# run (127 not found: ENOENT or ENOTDIR; 126 otherwise), one wording for a
# bad option, in one line, and --version from one place.
. "$(dirname "$0")/lib.sh"

# How each tool runs a program; sr-jail needs user namespaces.
tools=(sr-limit sr-exec "sr-exec -p strict")
run sr-jail true
if [ "$rc" = 0 ]; then tools+=(sr-jail "sr-limit sr-jail sr-exec"); else
	skip "sr-jail's exit codes" "sr-jail cannot run here: $err"; fi
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
for t in sr-limit sr-jail sr-exec; do
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

done_testing
