/* np.c: the probe of tests/escape/40-net-ipc.t (also run through run_code by
   tests/escape/90-run-code.t). */
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
		(void)!send(fd, "hello", 5, MSG_NOSIGNAL);   /* a listener that closes at once is no SIGPIPE */
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
/* vsock: socket, then connect to the host (CID 2) */
static int mode_vsock(char **argv, const char *a, const char *b, key_t key)
{
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

static int mode_abstract(char **argv, const char *a, const char *b, key_t key)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(a);
	memcpy(sa.sun_path + 1, a, n);
	int fd = sock(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return 1;
	if (connect(fd, (void *)&sa, (socklen_t)(sizeof(sa_family_t) + 1 + n)) < 0)
		return fail("connect");
	(void)!send(fd, "hello", 5, MSG_NOSIGNAL);   /* a listener that closes at once is no SIGPIPE */
	printf("connected\n");
	return 0;
}

static int mode_mkshm(char **argv, const char *a, const char *b, key_t key)
{
	int id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0666);
	if (id < 0)
		return fail("shmget");
	char *p = shmat(id, NULL, 0);
	strcpy(p, "shm secret");
	printf("%d\n", id);
	return 0;
}

static int mode_mkmsg(char **argv, const char *a, const char *b, key_t key)
{
	int id = msgget(key, IPC_CREAT | IPC_EXCL | 0666);
	struct { long type; char text[16]; } msg = { 1, "msg secret" };
	if (id < 0 || msgsnd(id, &msg, sizeof msg.text, 0) < 0)
		return fail("msg");
	printf("%d\n", id);
	return 0;
}

static int mode_mkmq(char **argv, const char *a, const char *b, key_t key)
{
	struct mq_attr at = { .mq_maxmsg = 4, .mq_msgsize = 16 };
	mqd_t q = mq_open(a, O_CREAT | O_EXCL | O_WRONLY, 0666, &at);
	if (q == (mqd_t)-1 || mq_send(q, "mq secret", 10, 0) < 0)
		return fail("mq");
	printf("ok\n");
	return 0;
}

/* rm: rm SHMID MSQID MQNAME */
static int mode_rm(char **argv, const char *a, const char *b, key_t key)
{
	shmctl(atoi(a), IPC_RMID, NULL);
	msgctl(atoi(b), IPC_RMID, NULL);
	mq_unlink(argv[4]);
	return 0;
}

/* shm: shm KEY ID: find by key, attach by id */
static int mode_shm(char **argv, const char *a, const char *b, key_t key)
{
	int bad = shmget(key, 0, 0) < 0 ? fail("shmget") : (printf("shmget=ok\n"), 0);
	char *p = shmat(atoi(b), NULL, SHM_RDONLY);
	if (p == (void *)-1)
		return bad | fail("shmat");
	printf("shmat=ok %s\n", p);
	return bad;
}

/* msg: msg KEY ID: find by key, receive by id */
static int mode_msg(char **argv, const char *a, const char *b, key_t key)
{
	struct { long type; char text[16]; } msg;
	int bad = msgget(key, 0) < 0 ? fail("msgget") : (printf("msgget=ok\n"), 0);
	if (msgrcv(atoi(b), &msg, sizeof msg.text, 0, IPC_NOWAIT | MSG_COPY) < 0)
		return bad | fail("msgrcv");
	printf("msgrcv=ok %s\n", msg.text);
	return bad;
}

/* mq: mq NAME: open and peek */
static int mode_mq(char **argv, const char *a, const char *b, key_t key)
{
	mqd_t q = mq_open(a, O_RDONLY | O_NONBLOCK);
	if (q == (mqd_t)-1)
		return fail("mq_open");
	struct mq_attr at;
	mq_getattr(q, &at);
	printf("mq_open=ok %ld queued\n", at.mq_curmsgs);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argv[1], *a = argc > 2 ? argv[2] : "", *b = argc > 3 ? argv[3] : "0";
	key_t key = (key_t)strtol(a, NULL, 0);
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
	if (!strcmp(m, "vsock"))
		return mode_vsock(argv, a, b, key);
	if (!strcmp(m, "abstract"))
		return mode_abstract(argv, a, b, key);
	/* SysV and POSIX IPC below: the host makes them (mk*), the jail looks. */
	if (!strcmp(m, "mkshm"))
		return mode_mkshm(argv, a, b, key);
	if (!strcmp(m, "mkmsg"))
		return mode_mkmsg(argv, a, b, key);
	if (!strcmp(m, "mkmq"))
		return mode_mkmq(argv, a, b, key);
	if (!strcmp(m, "rm"))
		return mode_rm(argv, a, b, key);
	if (!strcmp(m, "shm"))
		return mode_shm(argv, a, b, key);
	if (!strcmp(m, "msg"))
		return mode_msg(argv, a, b, key);
	if (!strcmp(m, "mq"))
		return mode_mq(argv, a, b, key);
	fprintf(stderr, "np: unknown mode %s\n", m);
	return 2;
}
