#!/bin/bash
# sr-jail: what a jailed program gets, exit codes, options, usage errors.
. "$(dirname "$0")/lib.sh"

need_userns

# Exit codes pass through, 128+N for a signal; setup errors are named.
run sr-jail true;                     is "$rc" 0 "true exits 0"
run sr-jail sh -c 'exit 3';           is "$rc" 3 "exit 3 gives 3"
run sr-jail sh -c 'kill -9 $$';       is "$rc" 137 "kill -9 gives 137"
run sr-jail sh -c 'kill -TERM $$';    is "$rc" 143 "SIGTERM gives 143"
run sr-jail -- sh -c 'exit 4';        is "$rc" 4 "-- ends the options"
run sr-jail no-such-program-xyz;      is "$rc" 127 "missing program gives 127"
like "$err" "sr-jail: fatal: .*no-such-program-xyz" "missing program is named"
run sr-jail sh -c 'echo "$1-$2"' x a -b; is "$out" "a--b" "the program's own options are not eaten"
run sr-jail sh -c 'exec /no/such/file'; is "$rc" 127 "a missing program inside gives 127"

# Interpreters and pipelines run inside.
run sr-jail python3 -c 'import ssl, json, sqlite3; print(json.dumps([1, 2]))'
is "$out" "[1, 2]" "python3 runs inside (with ssl, json, sqlite3)"
if [ -x /usr/bin/node ]; then
	run sr-jail node -e 'console.log(require("os").hostname(), 6 * 7)'
	is "$out" "sandbox 42" "node runs inside"
else
	skip "node runs inside" "/usr/bin/node is not installed"
fi
run sr-jail /bin/sh -c 'seq 1 100 | grep 7 | sort -r | head -n 2 | tr "\n" " "'
is "$out" "97 87 " "a /bin/sh pipeline runs"
run sr-jail sh -c 'printf hello | od -An -c | tr -s " "'
is "$out" " h e l l o" "/dev/stdin, pipes and coreutils work"
run sr-jail python3 -c 'import urllib.request, ssl; ssl.create_default_context(); print("tls ok")'
is "$out" "tls ok" "the CA certificates are there"

run sr-jail sh -c 'for d in /bin /sbin /lib /lib64; do readlink $d || echo "dir $d"; done'
want=$(for d in /bin /sbin /lib /lib64; do readlink $d || echo "dir $d"; done)
is "$out" "$want" "/bin /sbin /lib /lib64 are as on the host (symlinks stay symlinks)"

# The identity and the environment inside.
run sr-jail sh -c 'id -u; id -g; id -un; echo "$HOME $USER $LOGNAME $LANG $TMPDIR $PATH"; pwd; hostname'
is "$out" "$(id -u)
$(id -g)
sandbox
/home/sandbox sandbox sandbox C.UTF-8 /tmp /usr/local/bin:/usr/bin:/bin
/home/sandbox
sandbox" "the caller's ids, named sandbox; HOME, USER, LANG, TMPDIR, PATH; cwd HOME; hostname"
run sr-jail env
is "$(printf '%s\n' "$out" | cut -d= -f1 | sort | tr '\n' ' ')" \
	"HOME LANG LOGNAME PATH TMPDIR USER " "nothing else in the environment"
run sr-jail sh -c 'echo x > "$HOME/f" && cat "$HOME/f" && echo y > /tmp/g && cat /tmp/g'
is "$out" "x
y" "HOME and /tmp are writable"
run sr-jail --uid 0 --gid 0 sh -c 'id -u; id -g; id -un'
is "$out" "0
0
root" "--uid 0 --gid 0: root inside, by name"
run sr-jail --uid 1234 --gid 4321 sh -c 'id -u; id -g; stat -c %u:%g /tmp'
is "$out" "1234
4321
1234:4321" "--uid/--gid set the ids inside, and own the tmpfs"
run sr-jail sh -c 'getent passwd sandbox; getent passwd root | cut -d: -f1; getent group sandbox | cut -d: -f3'
is "$out" "sandbox:x:$(id -u):$(id -g):sandbox:/home/sandbox:/bin/sh
root
$(id -g)" "generated passwd and group"

# Environment options, applied in order.
SECRET_X=s3cret FOO=bar run sr-jail --keep-env FOO --keep-env NOT_SET_Y \
	--setenv A 1 --setenv B 2 --unsetenv B --setenv LANG C --unsetenv TMPDIR env
env_out=$out
like "$env_out" "^FOO=bar$" "--keep-env passes a variable through"
like "$env_out" "^A=1$" "--setenv sets a variable"
unlike "$env_out" "^(B|TMPDIR|NOT_SET_Y|SECRET_X)=" \
	"--unsetenv removes, unset --keep-env adds nothing, others do not leak"
like "$env_out" "^LANG=C$" "--setenv overrides a default"

# --bind is writable, --ro-bind read-only, --tmpfs fresh, --chdir, --hostname.
mkdir -p "$T/ws" "$T/ro"
echo data > "$T/ro/file"
run sr-jail --bind "$T/ws" /workspace --chdir /workspace sh -c 'pwd; echo out > result'
is "$out" "/workspace" "--chdir /workspace"
is "$(cat "$T/ws/result" 2>/dev/null)" "out" "--bind WORKSPACE is writable, writes reach the host"
run sr-jail --ro-bind "$T/ro" /data sh -c 'cat /data/file; echo x > /data/file'
is "$out" "data" "--ro-bind is readable"
ok "--ro-bind is not writable" test "$rc" != 0
like "$err" "Read-only file system" "the write fails with EROFS"
is "$(cat "$T/ro/file")" "data" "the host file is unchanged"
run sr-jail --ro-bind "$T/ro/file" /etc/extra.conf cat /etc/extra.conf
is "$out" "data" "a single file can be bound"
run sr-jail --bind "$T/ws" /deep/a/b/c sh -c 'ls /deep/a/b/c'
is "$rc" 0 "a destination's parents are created"
run sr-jail --tmpfs /etc --ro-bind "$T/ro" /etc/ssl/x sh -c 'ls /etc; ls /etc/ssl/x'
is "$out" "ssl
file" "later mounts stack on earlier ones (--tmpfs /etc, then a bind below it)"
run sr-jail --tmpfs /scratch:1M sh -c 'echo x > /scratch/f && df -k /scratch | tail -1 | awk "{print \$2}"'
is "$out" "1024" "--tmpfs DST:SIZE is a tmpfs of that size"
run sr-jail --tmpfs /tmp:2M sh -c 'df -k /tmp | tail -1 | awk "{print \$2}"'
is "$out" "2048" "--tmpfs /tmp:SIZE resizes the default /tmp"
run sr-jail --hostname box42 hostname
is "$out" "box42" "--hostname sets the name inside"
run sr-jail --chdir /no/such/dir true
is "$rc" 111 "--chdir to a missing directory fails closed (111)"
like "$err" "unable to change directory to /no/such/dir" "and names the directory"

# The program after sr-jail is found with the caller's PATH, even where
# the jail cannot see it; its arguments are resolved inside.
mkdir -p "$T/bin"
cp /usr/bin/env "$T/bin/my-env"
printf '#!/bin/sh\necho "script:$1:$(id -un)"\n' > "$T/bin/my-script"
chmod 755 "$T/bin" "$T/bin/my-env" "$T/bin/my-script"
PATH="$T/bin:$PATH" run sr-jail my-env sh -c 'echo inside; command -v sh'
is "$out" "inside
/usr/bin/sh" "an ELF program outside the jail's view runs; its argument resolves inside"
PATH="$T/bin:$PATH" run sr-jail my-script arg
is "$out" "script:arg:sandbox" "a #! script outside the jail's view runs"
run sr-jail "$T/bin/my-script" arg2
is "$out" "script:arg2:sandbox" "a script given by path runs"
run sr-jail --ro-bind "$T/bin" "$T/bin" sh -c 'command -v my-script || echo "not on PATH"'
is "$out" "not on PATH" "the caller's PATH does not reach inside"

# Usage errors: 100 and a message naming the option.
for bad in "--bogus" "-x" "--bind /tmp" "--ro-bind" "--bind /tmp relative" "--tmpfs relative" \
	"--tmpfs /x:0" "--tmpfs /x:12Q" "--uid abc" "--gid -1" "--uid 4294967295" "--keep-fd 987" \
	"--keep-fd x" "--setenv A=B c" "--unsetenv ''" "--hostname ''" \
	"--chdir relative" "--bind /tmp /"; do
	eval "run sr-jail $bad true"
	is "$rc" 100 "usage error: sr-jail $bad"
	opt=${bad%% *}
	like "$err" "^sr-jail: usage: .*${opt}" "the message names $opt"
done
run sr-jail;                          is "$rc" 100 "no program is a usage error"
run sr-jail --help;                   is "$rc" 0 "--help exits 0"
like "$out" "--ro-bind SRC DST" "--help lists the options"
done_testing
