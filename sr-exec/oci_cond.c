/* oci_cond.c - facts an OCI profile's includes/excludes ask about:
 * the native architecture (by Go's name, as the engines use), this
 * process's effective capabilities, the running kernel's version. */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "exec.h"

int sx_native_arch_is(const char *goarch)
{
#if defined(__x86_64__) && defined(__ILP32__)
	static const char *const native[] = {"x32", NULL};
#elif defined(__x86_64__)
	static const char *const native[] = {"amd64", NULL};
#elif defined(__i386__)
	static const char *const native[] = {"386", "x86", NULL};
#elif defined(__aarch64__)
	static const char *const native[] = {"arm64", NULL};
#elif defined(__arm__)
	static const char *const native[] = {"arm", NULL};
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	static const char *const native[] = {"ppc64le", NULL};
#elif defined(__powerpc64__)
	static const char *const native[] = {"ppc64", NULL};
#elif defined(__s390x__)
	static const char *const native[] = {"s390x", NULL};
#elif defined(__riscv) && __riscv_xlen == 64
	static const char *const native[] = {"riscv64", NULL};
#elif defined(__mips64) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	static const char *const native[] = {"mips64le", "mipsel64", NULL};
#elif defined(__mips64)
	static const char *const native[] = {"mips64", NULL};
#else
	static const char *const native[] = {NULL};
#endif
	for (size_t i = 0; native[i]; i++)
		if (strcmp(native[i], goarch) == 0)
			return 1;
	return 0;
}

static const char *const capnames[] = {
	"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL",
	"SETGID", "SETUID", "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE",
	"NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
	"SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
	"SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME",
	"SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL",
	"SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM",
	"BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE",
};

/* A capability name this table does not know is one we cannot hold. */
int sx_have_cap(const char *name)
{
	if (strncmp(name, "CAP_", 4) == 0)
		name += 4;
	int cap = -1;
	for (size_t i = 0; i < sizeof capnames / sizeof capnames[0]; i++)
		if (strcmp(capnames[i], name) == 0)
			cap = (int)i;
	if (cap < 0)
		return 0;
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

/* "major.minor[.patch]", digits only; returns the number of parts. */
static int parse_version(const char *s, unsigned v[3], int strict)
{
	int parts = 0;
	v[0] = v[1] = v[2] = 0;
	while (parts < 3) {
		if (*s < '0' || *s > '9')
			return strict ? -1 : parts;
		unsigned n = 0;
		while (*s >= '0' && *s <= '9' && n < 100000)
			n = n * 10 + (unsigned)(*s++ - '0');
		v[parts++] = n;
		if (*s != '.')
			break;
		s++;
	}
	if (strict && (*s || parts < 2))
		return -1;
	return parts;
}

int sx_kernel_at_least(const char *s)
{
	unsigned want[3], have[3];
	struct utsname u;
	if (parse_version(s, want, 1) < 0)
		return -1;
	if (uname(&u) < 0 || parse_version(u.release, have, 0) < 2)
		return 0;
	for (int i = 0; i < 3; i++)
		if (have[i] != want[i])
			return have[i] > want[i];
	return 1;
}
