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
cc_probe p/np "$(cat <<'C'
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/vm_sockets.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *what)
{
	printf("%s=%s\n", what, strerrorname_np(errno));
	return 1;
}
static int sock(int fam, int type, int proto)
{
	int fd = socket(fam, type, proto);
	if (fd < 0)
		fail("socket");
	return fd;
}
static int inet(int type, const char *host, const char *port, int proto)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof ss);
	if (strchr(host, ':')) {
		struct sockaddr_in6 *s6 = (void *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(atoi(port));
		inet_pton(AF_INET6, host, &s6->sin6_addr);
		len = sizeof *s6;
	} else {
		struct sockaddr_in *s4 = (void *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(atoi(port));
		inet_pton(AF_INET, host, &s4->sin_addr);
		len = sizeof *s4;
	}
	int fd = sock(ss.ss_family, type, proto);
	if (fd < 0)
		return 1;
	if (type == SOCK_STREAM) {
		if (connect(fd, (void *)&ss, len) < 0)
			return fail("connect");
		(void)!write(fd, "hello", 5);
		printf("connected\n");
		return 0;
	}
	char msg[64] = "hello";
	size_t n = 5;
	if (proto == IPPROTO_ICMP) {   /* an echo request; the kernel fills in id and sum */
		struct icmphdr *ic = (void *)msg;
		memset(msg, 0, sizeof msg);
		ic->type = ICMP_ECHO;
		n = sizeof *ic + 8;
	}
	if (sendto(fd, msg, n, 0, (void *)&ss, len) < 0)
		return fail("sendto");
	printf("sent\n");
	return 0;
}
int main(int argc, char **argv)
{
	const char *m = argv[1], *a = argc > 2 ? argv[2] : "", *b = argc > 3 ? argv[3] : "0";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "tcp"))
		return inet(SOCK_STREAM, a, b, 0);
	if (!strcmp(m, "udp"))
		return inet(SOCK_DGRAM, a, b, 0);
	if (!strcmp(m, "icmp"))          /* unprivileged ping socket */
		return inet(SOCK_DGRAM, a, "0", IPPROTO_ICMP);
	if (!strcmp(m, "raw"))
		return inet(SOCK_RAW, a, "0", IPPROTO_ICMP);
	if (!strcmp(m, "packet"))
		return sock(AF_PACKET, SOCK_RAW, htons(3)) < 0 ? 1 : (printf("socket=ok\n"), 0);
	if (!strcmp(m, "netlink"))
		return sock(AF_NETLINK, SOCK_RAW, 0) < 0 ? 1 : (printf("socket=ok\n"), 0);
	if (!strcmp(m, "vsock")) {       /* socket, then connect to the host (CID 2) */
		int fd = sock(AF_VSOCK, SOCK_STREAM, 0);
		if (fd < 0)
			return 1;
		struct sockaddr_vm vm = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_HOST,
					  .svm_port = (unsigned)atoi(a) };
		printf("socket=ok\n");
		if (connect(fd, (void *)&vm, sizeof vm) < 0)
			return fail("connect");
		printf("connected\n");
		return 0;
	}
	if (!strcmp(m, "abstract")) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		size_t n = strlen(a);
		memcpy(sa.sun_path + 1, a, n);
		int fd = sock(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0)
			return 1;
		if (connect(fd, (void *)&sa, (socklen_t)(sizeof(sa_family_t) + 1 + n)) < 0)
			return fail("connect");
		(void)!write(fd, "hello", 5);
		printf("connected\n");
		return 0;
	}
	/* SysV and POSIX IPC. The host makes them (mk*), the jail looks. */
	key_t key = (key_t)strtol(a, NULL, 0);
	if (!strcmp(m, "mkshm")) {
		int id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0666);
		if (id < 0)
			return fail("shmget");
		char *p = shmat(id, NULL, 0);
		strcpy(p, "shm secret");
		printf("%d\n", id);
		return 0;
	}
	if (!strcmp(m, "mkmsg")) {
		int id = msgget(key, IPC_CREAT | IPC_EXCL | 0666);
		struct { long type; char text[16]; } msg = { 1, "msg secret" };
		if (id < 0 || msgsnd(id, &msg, sizeof msg.text, 0) < 0)
			return fail("msg");
		printf("%d\n", id);
		return 0;
	}
	if (!strcmp(m, "mkmq")) {
		struct mq_attr at = { .mq_maxmsg = 4, .mq_msgsize = 16 };
		mqd_t q = mq_open(a, O_CREAT | O_EXCL | O_WRONLY, 0666, &at);
		if (q == (mqd_t)-1 || mq_send(q, "mq secret", 10, 0) < 0)
			return fail("mq");
		printf("ok\n");
		return 0;
	}
	if (!strcmp(m, "rm")) {          /* rm SHMID MSQID MQNAME */
		shmctl(atoi(a), IPC_RMID, NULL);
		msgctl(atoi(b), IPC_RMID, NULL);
		mq_unlink(argv[4]);
		return 0;
	}
	if (!strcmp(m, "shm")) {         /* shm KEY ID: find by key, attach by id */
		int bad = shmget(key, 0, 0) < 0 ? fail("shmget") : (printf("shmget=ok\n"), 0);
		char *p = shmat(atoi(b), NULL, SHM_RDONLY);
		if (p == (void *)-1)
			return bad | fail("shmat");
		printf("shmat=ok %s\n", p);
		return bad;
	}
	if (!strcmp(m, "msg")) {         /* msg KEY ID: find by key, receive by id */
		struct { long type; char text[16]; } msg;
		int bad = msgget(key, 0) < 0 ? fail("msgget") : (printf("msgget=ok\n"), 0);
		if (msgrcv(atoi(b), &msg, sizeof msg.text, 0, IPC_NOWAIT | MSG_COPY) < 0)
			return bad | fail("msgrcv");
		printf("msgrcv=ok %s\n", msg.text);
		return bad;
	}
	if (!strcmp(m, "mq")) {          /* mq NAME: open and peek */
		mqd_t q = mq_open(a, O_RDONLY | O_NONBLOCK);
		if (q == (mqd_t)-1)
			return fail("mq_open");
		struct mq_attr at;
		mq_getattr(q, &at);
		printf("mq_open=ok %ld queued\n", at.mq_curmsgs);
		return 0;
	}
	fprintf(stderr, "np: unknown mode %s\n", m);
	return 2;
}
C
)"
NP=$T/p/np
LIMIT=(sr-limit --pids 64 --timeout 20s)
CHAIN=("${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec)
chain() { run "${CHAIN[@]}" /p/np "$@"; }
bare() { run "$NP" "$@"; }

# The host's listeners: TCP and UDP on 127.0.0.1, TCP on ::1 (when the
# host has IPv6), an abstract unix socket. Each logs what reaches it.
abs="sr-escape-$$-$RANDOM"
cat > "$T/listen.py" <<'PY'
import os, select, socket, sys, time
log, ports, abstract = sys.argv[1], sys.argv[2], sys.argv[3]
socks = {}
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(16); socks[t] = "tcp"
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0)); socks[u] = "udp"
names = {"tcp": t.getsockname()[1], "udp": u.getsockname()[1], "tcp6": 0}
try:
    t6 = socket.socket(socket.AF_INET6); t6.bind(("::1", 0)); t6.listen(16)
    socks[t6] = "tcp6"; names["tcp6"] = t6.getsockname()[1]
except OSError:
    pass
a = socket.socket(socket.AF_UNIX); a.bind("\0" + abstract); a.listen(16); socks[a] = "abstract"
with open(ports + ".tmp", "w") as f:
    f.write("%d %d %d\n" % (names["tcp"], names["udp"], names["tcp6"]))
os.rename(ports + ".tmp", ports)
end = time.time() + 50
while time.time() < end:
    r, _, _ = select.select(list(socks), [], [], 0.5)
    for s in r:
        kind = socks[s]
        if kind == "udp":
            s.recvfrom(64)
        else:
            c, _ = s.accept(); c.close()
        with open(log, "a") as f:
            f.write(kind + "\n")
PY
: > "$T/log"
python3 "$T/listen.py" "$T/log" "$T/ports" "$abs" &
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
