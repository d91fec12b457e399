/* fuzz_oci.c - sr-exec's OCI/Docker seccomp profile loader (sr-exec/oci.c
 * and what it calls: oci_cond.c, rules.c, sysnames.c), from a buffer.
 *
 * sx_profile_oci reads its file with sr_read_file: the target is linked
 * with -Wl,--wrap=sr_read_file, so the "file" is the fuzzer's input. A
 * bad profile is refused with exit 100 (sr_fatal): stub_err.c jumps back
 * here instead, and what the loader had allocated when it gave up (the
 * cJSON tree; the buffer, the rule list) is freed here, so that the leak
 * checker sees only real leaks. cJSON's allocations are tracked through
 * cJSON_InitHooks for that. Any other fatal error is a crash.
 *
 * Checked besides: a profile that loads names a known default action and
 * only rules for real syscalls with at most 6 conditions on arguments 0-5. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "fuzz.h"
#include "sr.h"

/* cJSON's blocks, on a list, so that a refusal can free them. */
struct blk {
	struct blk *prev, *next;
	max_align_t align[];
};
static struct blk live = { &live, &live };

static void *track_malloc(size_t n)
{
	struct blk *b = malloc(sizeof *b + n);
	if (!b)
		return NULL;
	b->next = live.next;
	b->prev = &live;
	live.next->prev = b;
	live.next = b;
	return b->align;
}

static void track_free(void *p)
{
	if (!p)
		return;
	struct blk *b = (struct blk *)((char *)p - offsetof(struct blk, align));
	b->prev->next = b->next;
	b->next->prev = b->prev;
	free(b);
}

static void track_free_all(void)
{
	while (live.next != &live)
		track_free(live.next->align);
}

static const uint8_t *in_data;
static size_t in_size;
static char *in_buf;

char *__wrap_sr_read_file(const char *path, size_t max, size_t *len);
char *__wrap_sr_read_file(const char *path, size_t max, size_t *len)
{
	(void)path;
	if (in_size > max)
		return NULL;
	in_buf = fz_strndup(in_data, in_size);
	*len = in_size;
	return in_buf;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	cJSON_Hooks h = { track_malloc, track_free };
	cJSON_InitHooks(&h);
	return 0;
}

static void check(const struct sx_policy *p)
{
	char buf[64];
	const char *a = sx_action_str(p->def_action, buf, sizeof buf);
	if (!a || !*a)
		abort();
	for (size_t i = 0; i < p->n; i++) {
		const struct sx_rule *r = &p->v[i];
		if (r->nr < 0 || r->ncmp > 6 || r->entry < 0)
			abort();
		for (unsigned k = 0; k < r->ncmp; k++)
			if (r->cmp[k].arg > 5 || r->cmp[k].op <= 0 || r->cmp[k].op >= _SCMP_CMP_MAX)
				abort();
		(void)sx_syscall_name(r->nr);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sx_policy p;
	jmp_buf jb;
	memset(&p, 0, sizeof p);
	in_data = data;
	in_size = size;
	in_buf = NULL;
	fz_expect_code = SR_EXIT_USAGE;
	fz_jump = &jb;
	if (setjmp(jb) == 0) {
		sx_profile_oci(&p, "fuzz.json", 0);
		check(&p);
	} else {
		/* refused: the loader stopped half way */
		track_free_all();
		free(in_buf);
	}
	fz_jump = NULL;
	if (live.next != &live)
		abort();      /* the loader leaked part of a cJSON tree */
	free(p.v);
	return 0;
}
