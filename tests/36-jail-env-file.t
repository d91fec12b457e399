#!/bin/bash
# sr-jail --env-file: NUL-separated KEY=VALUE entries set in the program's
# environment, values with spaces and newlines intact; bad entries refused.
. "$(dirname "$0")/lib.sh"

need_userns

printf 'GREETING=hello world\0MULTI=a\nb\0EMPTY=\0' > "$T/env"
run sr-jail --env-file "$T/env" sh -c 'printf "%s|%s|%s|%s" "$GREETING" "$MULTI" "${EMPTY-unset}" "${HOME}"'
is "$out" "hello world|a
b||/home/sandbox" "each entry is set as it is, spaces and newlines kept"
printf 'NOEQUALS\0' > "$T/bad"
run sr-jail --env-file "$T/bad" true
is "$rc" 100 "an entry without = is a usage error"
like "$err" "^sr-jail: usage: --env-file .*: 'NOEQUALS' is not KEY=VALUE" "... and named"
printf '=x\0' > "$T/badkey"
run sr-jail --env-file "$T/badkey" true
is "$rc" 100 "an empty variable name is refused"
run sr-jail --env-file "$T/missing" true
is "$rc" 111 "a missing file: 111"
head -c 2M /dev/zero | tr '\0' a > "$T/big"
run sr-jail --env-file "$T/big" true
is "$rc" 100 "a file over 1 MiB is refused"
done_testing
