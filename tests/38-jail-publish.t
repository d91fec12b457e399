#!/bin/bash
# sr-jail --publish PORT:PATH: the way in to a server the program runs on
# the jail's loopback, through a Unix socket made on the host at PATH (the
# user's alone), and nothing else; gone with the jail.
. "$(dirname "$0")/lib.sh"
need_userns
command -v curl >/dev/null || skip_all "no curl here"
mkdir "$T/www" && echo published >"$T/www/index.html"
# A jail serving /www on 127.0.0.1:8000 and on :8001, published: 8000 only.
sr-jail --publish "8000:$T/p.sock" --bind "$T/www" /www --chdir /www \
	sr-exec --net sh -c 'python3 -m http.server 8001 --bind 127.0.0.1 >/dev/null 2>&1 &
		sleep 1; echo up >/www/.up; exec python3 -m http.server 8000 --bind 127.0.0.1' \
	>/dev/null 2>"$T/jail.err" &
jail=$!
at_exit "kill $jail 2>/dev/null"
wait_for "the jail's servers start" 30 curl -sf --unix-socket "$T/p.sock" -o /dev/null http://sandbox/
run curl -sS --unix-socket "$T/p.sock" http://sandbox/index.html
is "$rc:$out" "0:published" "the published port is reached through the socket"
ok "the socket is a socket" test -S "$T/p.sock"
is "$(stat -c '%a %U' "$T/p.sock")" "600 $(id -un)" "... mode 0600, the user's alone"
# The other port is served inside (the control) but not through the socket.
is "$(cat "$T/www/.up")" "up" "the control: the second server, on 8001, was started inside"
run curl -sS --unix-socket "$T/p.sock" http://sandbox:8001/index.html
is "$out" "published" "a port named in the URL changes nothing: the socket leads to 8000 alone"
kill $jail
wait_pid 20 $jail
wait_for "the socket is removed when the jail ends" 20 test ! -e "$T/p.sock"
run curl -sS --max-time 10 --unix-socket "$T/p.sock" http://sandbox/
nok "... and nothing answers there" test "$rc" = 0

# Before the program listens: the connection is closed, not left hanging.
sr-jail --publish "8000:$T/q.sock" sleep 30 >/dev/null 2>&1 &
quiet=$!
wait_for "the second jail's socket is made" 20 test -S "$T/q.sock"
run timeout 20 curl -sS --unix-socket "$T/q.sock" http://sandbox/
like "$rc:$err" "^(52|56):" "nothing listening on the port: the connection is closed at once"
kill $quiet; wait $quiet 2>/dev/null

# The program has no descriptor of the socket.
run sr-jail --publish "8000:$T/r.sock" sh -c 'ls -l /proc/self/fd/ | grep -c socket'
is "$out" "0" "the program holds no socket of the door"

run sr-jail --publish "0:$T/x.sock" true
is "$rc" 100 "--publish with port 0: 100"
run sr-jail --publish "$T/x.sock" true
is "$rc" 100 "--publish without a port: 100"
run sr-jail --publish "80:$T/x.sock" --publish "81:$T/y.sock" true
is "$rc" 100 "--publish twice: 100"
run sr-jail --share-net --publish "80:$T/x.sock" true
is "$rc" 100 "--publish with --share-net: 100"
run sr-jail --publish "80:$T/no/such/dir/x.sock" true
like "$rc:$err" "^111:sr-jail: fatal: unable to open the directory of --publish" "a socket in a missing directory: 111, saying so"
done_testing
