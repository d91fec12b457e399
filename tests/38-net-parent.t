#!/bin/bash
# sr-net is the program's parent: it starts the program as its child and
# stays, the proxy, until the program ends; then it ends as the program
# did (its exit code, or death by its signal), passes on the signals it is
# sent, and leaves nothing behind: no child, no socket. Here without a
# jail (sr-net runs any program), then in the chain under sr-limit.
. "$(dirname "$0")/lib.sh"

S=$T/p.sock
net() { sr-net --socket "$S" --allow example.test "$@"; }

# 1. How the program ended is how sr-net ends.
run net sh -c 'exit 7'
is "$rc" 7 "the program's exit code is sr-net's"
run net true
is "$rc:$err" "0:" "exit 0, nothing said"
run net sh -c 'kill -USR1 $$'
is "$rc" 138 "the program killed by SIGUSR1: sr-net dies of it too (128+10)"
run sh -c "sr-net --socket '$S' --allow example.test sh -c 'kill -TERM \$\$'; echo \$?"
is "$out" 143 "... and by SIGTERM (as its caller's shell sees it)"
run net "$T/absent"
is "$rc" 127 "a program not found: 127"
like "$err" "sr-net: .*$T/absent" "... said, naming it"
printf 'not runnable' >"$T/plain"
chmod 644 "$T/plain"
run net "$T/plain"
is "$rc" 126 "a file it cannot run: 126"

# 2. The program is sr-net's child; the proxy serves it while it runs.
run net sh -c 'echo "$PPID $SR_NET_SOCKET"; test -S "$SR_NET_SOCKET" && echo listening'
ppid=${out%% *}
like "$out" "^[0-9]+ $S
listening$" "the program runs with the socket made and named in SR_NET_SOCKET"
nok "... and its parent (sr-net) is gone once it has ended" kill -0 "$ppid"
nok "the socket is removed at the end" test -e "$S"
run net sh -c 'tr "\0" " " </proc/$PPID/cmdline'
like "$out" "^sr-net --socket $S " "the program's parent is sr-net itself (the proxy)"

# 3. Signals sent to sr-net reach the program; sr-net stays until it ends.
wait_file() { wait_for "$2" 30 test -s "$1"; }
rm -f "$T/ready" "$T/got"
sr-net --socket "$S" --allow example.test sh -c "trap 'echo TERM >$T/got; exit 3' TERM
	echo up >$T/ready; while :; do sleep 0.05; done" &
pid=$!
wait_file "$T/ready" "the program is up"
kill -TERM "$pid"
wait_pid 60 "$pid"
is "$wst:$(cat "$T/got" 2>/dev/null)" "3:TERM" "SIGTERM to sr-net's pid is passed on: the program's trap ran, and its code is sr-net's"
# (a background job of a script starts with SIGINT and SIGQUIT ignored,
# which sr-net would rightly not pass on: env gives them back)
for sig in INT HUP QUIT; do
	rm -f "$T/ready" "$T/got"
	env --default-signal=INT,QUIT sr-net --socket "$S" --allow example.test sh -c "trap 'echo $sig >$T/got; exit 4' $sig
		echo up >$T/ready; while :; do sleep 0.05; done" &
	pid=$!
	wait_file "$T/ready" "the program is up"
	kill -"$sig" "$pid"
	wait_pid 60 "$pid"
	is "$wst:$(cat "$T/got" 2>/dev/null)" "4:$sig" "SIG$sig is passed on too"
done

# A signal sr-net's caller ignored (nohup's SIGHUP) is not passed on. The
# program gets SIGHUP back at its default (env), so that it could trap it;
# a SIGTERM sent after the SIGHUP is passed on (the control) and ends it:
# a SIGHUP passed on would have come first, and its trap run first.
rm -f "$T/ready" "$T/got"
(trap '' HUP; exec sr-net --socket "$S" --allow example.test env --default-signal=HUP sh -c "
	trap 'echo HUP >>$T/got' HUP; trap 'echo TERM >>$T/got; exit 0' TERM
	echo up >$T/ready; while :; do sleep 0.05; done") &
pid=$!
wait_file "$T/ready" "the program is up"
kill -HUP "$pid"
kill -TERM "$pid"
wait_pid 60 "$pid"
is "$wst:$(cat "$T/got" 2>/dev/null | tr '\n' ' ')" "0:TERM " "a SIGHUP the caller ignored is not passed on (the SIGTERM after it is)"

# sr-net killed outright: the program does not outlive its way out.
rm -f "$T/ready"
sr-net --socket "$S" --allow example.test sh -c "echo \$\$ >$T/ready; exec sleep 300" &
pid=$!
wait_file "$T/ready" "the program is up"
prog=$(cat "$T/ready")
ok "control: the program runs" kill -0 "$prog"
{ kill -KILL "$pid"; wait "$pid"; } 2>/dev/null
ok "sr-net killed (SIGKILL): the program dies with it" wait_for "the program is gone" 30 ! kill -0 "$prog"

# 4. Nothing of the proxy outlives sr-net: a connection still open when
# the program ends (held by a process it left) is ended and reaped, and
# sr-net does not wait for it past its grace.
holder=$T/holder.py
cat >"$holder" <<'EOF'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["SR_NET_SOCKET"])
s.sendall(b"CONNECT example.test:443 HTTP/1.1\r\n")   # a head never finished
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(3600)
EOF
rm -f "$T/ready"
run net sh -c "python3 $holder $T/ready </dev/null >/dev/null 2>&1 & while [ ! -s $T/ready ]; do sleep 0.05; done"
hold=$(cat "$T/ready")
is "$rc" 0 "the program ended (leaving a connection open)"
at_exit "kill $hold 2>/dev/null"
ok "sr-net did not wait for the open connection: it ended while the holder still holds it" \
	eval "ls -l /proc/$hold/fd 2>/dev/null | grep -q 'socket:'"
ok "control: the holder of the connection still runs (it is the program's, not sr-net's)" kill -0 "$hold"
is "$(pgrep -f -- "--socket $S" || true)" "" "no process of sr-net's is left (its connection's child ended)"
kill "$hold" 2>/dev/null

# 5. The proxy's workers: a connection that comes while another is being
# served is answered (a worker is forked for it), and connections one
# after another are all answered (a worker serves them in turn).
cat >"$T/conns.py" <<'EOF'
import os, socket, sys, time
sys.path.insert(0, sys.argv[1])
from client import recv_head            # tests/net/client.py
def conn():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(os.environ["SR_NET_SOCKET"])
    return s
def ask(host):
    s = conn()
    s.sendall(f"CONNECT {host}:443 HTTP/1.1\r\nHost: {host}:443\r\n\r\n".encode())
    head = recv_head(s)
    s.close()
    return head.split(b"\r\n")[0].decode()
held = conn()                          # a head never finished: its worker waits
held.sendall(b"CONNECT example.test:443 HTTP/1.1\r\n")
time.sleep(0.2)
print("beside:", ask("denied.test"))
held.setblocking(False)
try:
    print("held:", held.recv(100) or "closed")
except BlockingIOError:
    print("held: still waiting")
print("in turn:", sorted({ask("denied.test") for _ in range(20)}))
held.close()
EOF
run net python3 "$T/conns.py" "$SR_ROOT/tests/net"
like "$out" "^beside: HTTP/1.1 403.*
held: still waiting" "a connection beside one being served is answered (a refusal: denied.test is not allowed) while that one still waits"
like "$out" "in turn: \['HTTP/1.1 403[^']*'\]$" "twenty connections one after another are each answered"
is "$rc" 0 "... and the program ends as it did"

# 6. In the chain: sr-limit's report says how the program ended.
if have_userns; then
	chain() { sr-limit --stats "$T/stats" "$@"; }
	run chain --timeout 60s sr-net --socket "$S" --allow example.test \
		sr-jail --net-proxy "$S" sr-exec --net sh -c 'exit 5'
	is "$rc" 5 "in the chain (sr-limit, sr-net, sr-jail, sr-exec): the exit code"
	like "$(cat "$T/stats")" '"reason":"exit","status":5,"exit_code":5,' "... in sr-limit's report"
	run chain --timeout 60s sr-net --socket "$S" --allow example.test \
		sr-jail --net-proxy "$S" sr-exec --net sh -c 'kill -KILL $$'
	like "$rc $(cat "$T/stats")" '^137 \{"reason":"signal","status":137,"exit_code":null,"signal":9,' \
		"a death by SIGKILL in the chain reaches the report as the signal"
	run chain --timeout 1s --kill-after 2s sr-net --socket "$S" --allow example.test \
		sr-jail --net-proxy "$S" sr-exec --net sh -c 'sleep 30'
	like "$rc $(cat "$T/stats")" '^124 \{"reason":"timeout",.*"signal":15,' \
		"--timeout through sr-net: the program ended by the wall clock's SIGTERM, passed on"
	nok "... and the socket is removed" test -e "$S"
else
	skip "the chain's report through sr-net" "$userns_why"
fi

done_testing
