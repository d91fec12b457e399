/* bpf.c - raw seccomp BPF files: --save-bpf writes the compiled filter,
 * --bpf loads one without libseccomp's compile step.
 *
 * The format is the kernel's: an array of struct sock_filter (8 bytes
 * each, host byte order), nothing else. A file is refused (exit 100) when
 * it is empty, not a whole number of instructions, longer than the kernel
 * accepts, or does not begin by loading the architecture word, which every
 * libseccomp filter does and without which a filter cannot tell ABIs
 * apart. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "exec.h"
#include "sr.h"

void sx_bpf_save(const char *file, const struct sx_bpf *b)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create %s", file);
	if (sr_write_all(fd, b->insns, b->len * sizeof(struct sock_filter)) < 0 ||
	    close(fd) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to write %s", file);
}

void sx_bpf_read(const char *file, struct sx_bpf *out)
{
	const size_t max = BPF_MAXINSNS * sizeof(struct sock_filter);
	size_t len;
	char *buf = sr_read_file(file, max + 1, &len);
	if (!buf && errno == EFBIG)
		sr_fatal(SR_EXIT_USAGE, "%s: larger than %d BPF instructions", file, BPF_MAXINSNS);
	if (!buf)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read %s", file);
	if (len == 0 || len % sizeof(struct sock_filter) != 0)
		sr_fatal(SR_EXIT_USAGE, "%s: %zu bytes is not a whole number of 8-byte BPF instructions",
			 file, len);
	if (len > max)
		sr_fatal(SR_EXIT_USAGE, "%s: larger than %d BPF instructions", file, BPF_MAXINSNS);
	const struct sock_filter *f = (const void *)buf;
	if (f[0].code != (BPF_LD | BPF_W | BPF_ABS) ||
	    f[0].k != offsetof(struct seccomp_data, arch))
		sr_fatal(SR_EXIT_USAGE, "%s: not a seccomp filter that checks the architecture first",
			 file);
	out->insns = buf;
	out->len = len / sizeof(struct sock_filter);
}
