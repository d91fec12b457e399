/* filter.c - the few system calls that reach past the namespaces, refused
 * by a small seccomp filter of the jail's own, so that sr-jail alone holds
 * without sr-exec:
 *
 *   ioctl TIOCSTI, TIOCLINUX   push input into, or act on, a terminal the
 *                              caller left open (a shell's, outside);
 *   socket AF_VSOCK            not network-namespaced: reaches the host or
 *                              hypervisor (allowed with --share-net);
 *   add_key, keyctl,           the kernel's keyrings are not namespaced:
 *   request_key                a key of the caller's is readable by serial.
 *
 * The ioctl command is an unsigned int to the kernel: only the low 32
 * bits of the argument are compared, so high bits do not hide it. x32
 * calls are the native ones with __X32_SYSCALL_BIT set (ioctl is 514
 * there); i386 calls have numbers of their own, and socketcall(2), which
 * hides its arguments behind a pointer, is refused whole (ENOSYS: libc
 * then uses socket(2) directly). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail.h"
#include "filter.h"
#include "sr.h"

#define NR	offsetof(struct seccomp_data, nr)
#define ARCH	offsetof(struct seccomp_data, arch)
#define ARG(i)	offsetof(struct seccomp_data, args[i])  /* low half: little-endian */

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define X32_BIT 0x40000000U
#define NR_X32_IOCTL 514
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#else
#error "sr-jail/filter.c: add this architecture's AUDIT_ARCH"
#endif

/* A tiny assembler: jumps name a label, resolved once all is emitted. */
enum label { L_NATIVE, L_I386, L_IOCTL, L_SOCKET, L_VSOCK, L_EPERM, L_ENOSYS, NLABELS };
struct prog {
	struct sock_filter v[48];
	int to[48];             /* label of a jump's true branch, or -1 */
	unsigned n, at[NLABELS];
};

static void emit(struct prog *p, struct sock_filter f, int to)
{
	p->to[p->n] = to;
	p->v[p->n++] = f;
}
static void ld(struct prog *p, unsigned off)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off), -1);
}
static void if_eq(struct prog *p, unsigned k, enum label l)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0), (int)l);
}
static void ret(struct prog *p, unsigned v)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, v), -1);
}
static void label(struct prog *p, enum label l)
{
	p->at[l] = p->n;
}

static void syscalls(struct prog *p, unsigned ioctl, unsigned socket, unsigned add_key,
		     unsigned keyctl, unsigned request_key)
{
	if_eq(p, ioctl, L_IOCTL);
	if_eq(p, socket, L_SOCKET);
	if_eq(p, add_key, L_EPERM);
	if_eq(p, keyctl, L_EPERM);
	if_eq(p, request_key, L_EPERM);
}

void jail_filter(const struct jail *j)
{
	struct prog p = {.n = 0};
	ld(&p, ARCH);
	if_eq(&p, ARCH_NATIVE, L_NATIVE);
#ifdef X32_BIT
	if_eq(&p, AUDIT_ARCH_I386, L_I386);
#endif
	ret(&p, SECCOMP_RET_ALLOW);             /* no other ABI runs here */

	label(&p, L_NATIVE);
	ld(&p, NR);
#ifdef X32_BIT
	emit(&p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_BIT), -1);
	if_eq(&p, NR_X32_IOCTL, L_IOCTL);
#endif
	syscalls(&p, SYS_ioctl, SYS_socket, SYS_add_key, SYS_keyctl, SYS_request_key);
	ret(&p, SECCOMP_RET_ALLOW);

#ifdef X32_BIT
	label(&p, L_I386);    /* i386's numbers: ioctl 54, socket 359, keys 286-288 */
	ld(&p, NR);
	if_eq(&p, 102, L_ENOSYS);       /* socketcall */
	syscalls(&p, 54, 359, 286, 288, 287);
	ret(&p, SECCOMP_RET_ALLOW);
#endif

	label(&p, L_IOCTL);
	ld(&p, ARG(1));
	if_eq(&p, TIOCSTI, L_EPERM);
	if_eq(&p, TIOCLINUX, L_EPERM);
	ret(&p, SECCOMP_RET_ALLOW);

	label(&p, L_SOCKET);
	ld(&p, ARG(0));
	if_eq(&p, AF_VSOCK, L_VSOCK);
	ret(&p, SECCOMP_RET_ALLOW);
	label(&p, L_VSOCK);
	ret(&p, j->share_net ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EAFNOSUPPORT);

	label(&p, L_EPERM);
	ret(&p, SECCOMP_RET_ERRNO | EPERM);
	label(&p, L_ENOSYS);
	ret(&p, SECCOMP_RET_ERRNO | ENOSYS);

	for (unsigned i = 0; i < p.n; i++)
		if (p.to[i] >= 0)
			p.v[i].jt = (unsigned char)(p.at[p.to[i]] - i - 1);
	struct sock_fprog fp = {.len = (unsigned short)p.n, .filter = p.v};
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to load the jail's seccomp filter");
}
