#!/bin/bash
# sr-jail --report-fd: what the jail's init saw (a quota reached) goes to a
# descriptor the program never has, so the program cannot write it nor
# make it say what did not happen; with --keep-fd the same descriptor is
# the program's (the control: the path is real).
. "$(dirname "$0")/lib.sh"

need_userns

run sr-jail --report-fd 9 true 9>&-
is "$rc" 100 "--report-fd of a closed descriptor: usage error"
like "$err" "^sr-jail: usage: --report-fd" "naming the option"

rep="$T/report"
# The program writes to fd 9, in its shell and through /proc: under
# --report-fd it has no fd 9, and the init's is out of its reach.
forge='echo forged >&9 && echo wrote-9
echo forged > /proc/self/fd/9 && echo wrote-self
echo forged > /proc/1/fd/9 && echo wrote-init
ls /proc/self/fd | tr "\n" " "'
run sr-jail --report-fd 9 sh -c "$forge" 9>"$rep"
is "$(cat "$rep")" "" "--report-fd: the program cannot write the report (fd 9, /proc/self/fd/9, /proc/1/fd/9)"
unlike "$out" "wrote" "none of the writes succeeded"
unlike "$out" "(^| )9( |$)" "the program has no fd 9"
like "$err" "/proc/1/fd/9: Permission denied" "the init's descriptor is refused (not dumpable)"
run sr-jail --keep-fd 9 sh -c "$forge" 9>"$rep"
like "$out" "wrote-9" "control: with --keep-fd 9 the program writes fd 9"
like "$(cat "$rep")" "^forged" "control: and the file gets it"
run sr-jail --keep-fd 9 --report-fd 9 sh -c 'echo mine >&9' 9>"$rep"
is "$rc:$(cat "$rep")" "0:mine" "both: the program has it (--keep-fd wins for the program)"

w="$T/ws"
mkdir "$w"
run sr-jail --bind "$w" /w --quota 1M true
if [ "$rc" != 0 ]; then
	skip "--report-fd: a quota reached is reported" "sr-jail --quota does not work here: $err"
	skip "--report-fd: a quota line printed by the program is not" "sr-jail --quota does not work here"
	done_testing
	exit
fi
run sr-jail --report-fd 9 --bind "$w" /w --quota 1M sh -c 'head -c 3000000 /dev/zero > /w/big' 9>"$rep"
is "$(cat "$rep")" "/w: quota of 1 MiB reached" "a quota reached: the init reports it on fd 9"
like "$err" "sr-jail: warning: /w: quota of 1 MiB reached" "and says it on stderr as before"
rm -f "$w/big"
run sr-jail --report-fd 9 --bind "$w" /w --quota 1M sh -c \
	'echo "sr-jail: warning: /w: quota of 1 MiB reached (ENOSPC): writes past it failed" >&2; echo x > /w/small' 9>"$rep"
is "$rc:$(cat "$rep")" "0:" "the quota's line printed by the program, under the quota: the report is empty"
like "$err" "quota of 1 MiB reached" "control: the printed line is on stderr, where it cannot be told from the init's"
run sr-jail --report-fd 9 --bind "$w" /w --quota 100K --quota-inodes 10 sh -c \
	'i=0; while [ $i -lt 50 ]; do mkdir /w/d$i 2>/dev/null || break; i=$((i + 1)); done' 9>"$rep"
is "$(cat "$rep")" "/w: quota of 10 inodes reached" "an inode quota reached: reported with its cap"
done_testing
