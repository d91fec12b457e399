#!/bin/bash
# sr-exec --report-fd: "exec" before the program starts, "exec failed" if
# it does not, on a descriptor the program never has (control: without the
# option the program inherits it and writes it).
. "$(dirname "$0")/lib.sh"

rep="$T/report"
run sr-exec --report-fd 9 true 9>&-
is "$rc" 100 "--report-fd of a closed descriptor: usage error"
run sr-exec --report-fd 9 sh -c 'echo forged >&9 && echo wrote; ls /proc/self/fd | tr "\n" " "' 9>"$rep"
is "$(cat "$rep")" "exec" "the program started: the report says exec, and only that"
unlike "$out" "wrote" "the program cannot write fd 9"
unlike "$out" "(^| )9( |$)" "the program has no fd 9"
run sr-exec sh -c 'echo forged >&9 && echo wrote' 9>"$rep"
is "$out:$(cat "$rep")" "wrote:forged" "control: without --report-fd the program inherits fd 9 and writes it"
run sr-exec --report-fd 9 /nonexistent-sr-prog 9>"$rep"
is "$rc" 127 "a program not found: 127"
is "$(cat "$rep" | tr '\n' ' ')" "exec exec failed " "the report says exec failed after it"
like "$err" "^sr-exec: fatal: unable to run /nonexistent-sr-prog" "and stderr why"
run sr-exec --report-fd 9 nonexistent-sr-prog-on-path 9>"$rep"
is "$(tail -n 1 "$rep")" "exec failed" "the same through PATH"
done_testing
