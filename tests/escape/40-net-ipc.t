#!/bin/bash
# Escapes through the network and IPC, tried through the whole chain
# (sr-limit sr-jail sr-exec): listeners the test starts on the host's
# loopback (TCP, UDP, IPv6, an abstract unix socket) must see nothing;
# ICMP, raw and packet sockets, AF_VSOCK and netlink are refused; SysV
# shared memory and message queues and POSIX message queues and shm made
# on the host are invisible. Each refusal comes with a control that gets
# through where that layer is absent.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/p"
cc_probe_file p/np np.c
NP=$T/p/np
LIMIT=(sr-limit --pids 64 --timeout 20s)
CHAIN=("${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec)
chain() { run "${CHAIN[@]}" /p/np "$@"; }
bare() { run "$NP" "$@"; }

# The host's listeners: TCP and UDP on 127.0.0.1, TCP on ::1 (when the
# host has IPv6), an abstract unix socket. Each logs what reaches it.
abs="sr-escape-$$-$RANDOM"
: > "$T/log"
python3 "$SR_ROOT/tests/probes/listen.py" "$T/log" "$T/ports" "$abs" &
lpid=$!
at_exit "kill $lpid 2>/dev/null"
wait_for "the host listeners" 5 test -s "$T/ports"
read -r tport uport t6port < "$T/ports" || { echo "Bail out! the host listeners did not start"; exit 1; }
# seen KIND: how many times the listeners saw KIND (after a moment to settle).
seen() { sleep 0.2; grep -cx "$1" "$T/log"; }
# For a control, which must be logged: wait until it is (the listener may
# be slow to write under load), then count.
seen_wait() { wait_for "the $1 listener logs the probe" 10 grep -qx "$1" "$T/log"; grep -cx "$1" "$T/log"; }

# TCP to the host's loopback.
chain tcp 127.0.0.1 "$tport"
is "$out" "socket=EPERM" "TCP to the host's 127.0.0.1: socket(AF_INET) is EPERM"
run "${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec --net /p/np tcp 127.0.0.1 "$tport"
is "$out" "connect=ECONNREFUSED" "with sr-exec --net, the jail's own loopback has no listener: ECONNREFUSED"
run "${LIMIT[@]}" sr-jail --share-net --ro-bind "$T/p" /p sr-exec /p/np tcp 127.0.0.1 "$tport"
is "$out" "socket=EPERM" "with sr-jail --share-net, the filter alone still refuses the socket"
is "$(seen tcp)" 0 "the TCP listener saw nothing"
bare tcp 127.0.0.1 "$tport"
is "$out" connected "control: the probe connects on the host"
is "$(seen_wait tcp)" 1 "control: and the listener saw it"

# UDP.
chain udp 127.0.0.1 "$uport"
is "$out" "socket=EPERM" "UDP to the host's 127.0.0.1: socket is EPERM"
run "${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec --net /p/np udp 127.0.0.1 "$uport"
is "$out" "sent" "with --net the datagram goes out, into the jail's own loopback..."
is "$(seen udp)" 0 "...and the UDP listener on the host received nothing"
bare udp 127.0.0.1 "$uport"
is "$out:$(seen_wait udp)" "sent:1" "control: on the host the listener receives the probe's datagram"

# IPv6 ::1.
if [ "$t6port" != 0 ]; then
	chain tcp ::1 "$t6port"
	is "$out" "socket=EPERM" "TCP to the host's ::1: socket(AF_INET6) is EPERM"
	run "${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec --net /p/np tcp ::1 "$t6port"
	like "$out" "^connect=(ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH)$" "with --net, ::1 in the jail is not the host's ($out)"
	is "$(seen tcp6)" 0 "the IPv6 listener saw nothing"
	bare tcp ::1 "$t6port"
	is "$out:$(seen_wait tcp6)" "connected:1" "control: on the host the probe reaches it"
else
	for d in "TCP to ::1 refused" "::1 with --net" "IPv6 listener saw nothing" "IPv6 control"; do
		skip "$d" "the host has no IPv6 loopback"
	done
fi

# An abstract unix socket of the host (abstract names belong to a network
# namespace; Landlock ABI 6 scopes them as well).
chain abstract "$abs"
is "$out" "connect=ECONNREFUSED" "the host's abstract unix socket is not there inside: ECONNREFUSED"
run sr-exec -v true
case $err in
*"scoped abstract unix sockets"*)
	run "${LIMIT[@]}" sr-jail --share-net --ro-bind "$T/p" /p sr-exec /p/np abstract "$abs"
	is "$out" "connect=EPERM" "with sr-jail --share-net, sr-exec's Landlock scope still refuses it: EPERM"
	;;
*)
	skip "abstract socket scoped by Landlock under --share-net" "no Landlock ABI 6 here"
	;;
esac
is "$(seen abstract)" 0 "the abstract socket's listener saw nothing"
bare abstract "$abs"
is "$out:$(seen_wait abstract)" "connected:1" "control: on the host the probe connects to it"

# ICMP, raw and packet sockets.
chain icmp 127.0.0.1
is "$out" "socket=EPERM" "ICMP (ping) socket: EPERM"
run unshare -rn sh -c 'echo "0 0" > /proc/sys/net/ipv4/ping_group_range && ip link set lo up 2>/dev/null; "$1" icmp 127.0.0.1' sh "$NP"
if [ "$out" = sent ]; then
	ok "control: in a network namespace it owns, the probe sends an ICMP echo" true
else
	skip "control: ICMP echo in an owned network namespace" "not here: $out $err"
fi
chain raw 127.0.0.1
is "$out" "socket=EPERM" "raw IP socket: EPERM"
run unshare -rn "$NP" raw 127.0.0.1
like "$out" "^(sent|sendto=ENETUNREACH)$" "control: in a network namespace it owns, the probe opens a raw socket ($out)"
chain packet
is "$out" "socket=EPERM" "AF_PACKET socket: EPERM"
run unshare -rn "$NP" packet
is "$out" "socket=ok" "control: in a network namespace it owns, the probe opens an AF_PACKET socket"
chain netlink
is "$out" "socket=EPERM" "AF_NETLINK socket: EPERM"
bare netlink
is "$out" "socket=ok" "control: the probe opens a netlink socket on the host"

# AF_VSOCK: a way out of a virtual machine to its host.
bare vsock 9
if [[ $out == socket=ok* ]]; then
	ok "control: the probe opens an AF_VSOCK socket on the host ($(printf '%s' "$out" | tr '\n' ' '))" true
else
	skip "control: AF_VSOCK on the host" "no vsock here: $out"
fi
chain vsock 9
is "$out" "socket=EPERM" "AF_VSOCK through the chain: EPERM"
run "${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec --net /p/np vsock 9
is "$out" "socket=EPERM" "AF_VSOCK with sr-exec --net too"

# SysV IPC and POSIX message queues and shm of the host.
key=$(( (($$ << 8) ^ RANDOM) & 0x7fffffff ))
mq="/sr-escape-$$-$RANDOM"
shmid=$("$NP" mkshm "$key")
msqid=$("$NP" mkmsg "$key")
"$NP" mkmq "$mq" >/dev/null
at_exit "'$NP' rm '${shmid:--1}' '${msqid:--1}' '$mq'"
bare shm "$key" "$shmid"
is "$out" "shmget=ok
shmat=ok shm secret" "control: on the host the probe finds the shm segment by key and reads it by id"
chain shm "$key" "$shmid"
is "$out" "shmget=ENOENT
shmat=EINVAL" "inside, the host's shm segment is neither found by key nor attached by id"
bare msg "$key" "$msqid"
is "$out" "msgget=ok
msgrcv=ok msg secret" "control: on the host the probe finds the message queue and peeks its message"
chain msg "$key" "$msqid"
is "$out" "msgget=ENOENT
msgrcv=EINVAL" "inside, the host's message queue is neither found nor read"
bare mq "$mq"
is "$out" "mq_open=ok 1 queued" "control: on the host the probe opens the POSIX message queue"
chain mq "$mq"
is "$out" "mq_open=ENOENT" "inside, the host's POSIX message queue does not exist"
shmfile=/dev/shm/sr-escape-$$
if echo "posix shm secret" > "$shmfile" 2>/dev/null; then
	at_exit "rm -f '$shmfile'"
	run "${CHAIN[@]}" cat "$shmfile"
	like "$err" "No such file" "inside, the host's POSIX shm object ($shmfile) does not exist"
	unlike "$out" "secret" "and nothing of it is read"
else
	skip "host POSIX shm object invisible" "cannot write /dev/shm here"
	skip "nothing of it is read" "cannot write /dev/shm here"
fi

done_testing
