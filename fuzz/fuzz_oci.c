/* fuzz_oci.c - sr-exec's OCI/Docker seccomp profile loader (sr-exec/oci.c
 * and what it calls: oci_cond.c, rules.c, sysnames.c), from a buffer.
 *
 * sx_profile_oci reads its file with sr_read_file: the target is linked
 * with -Wl,--wrap=sr_read_file, so the "file" is the fuzzer's input. A
 * bad profile is refused with exit 100 (sr_fatal): stub_err.c jumps back
 * here instead, and what the loader had allocated when it gave up (the
 * JSON tree, the buffer; the rule list) is freed here, so that the leak
 * checker sees only real leaks. The tree is followed through
 * -Wl,--wrap=sr_jr_parse and --wrap=sr_jr_free. Any other fatal error is
 * a crash.
 *
 * Checked besides: a profile that loads names a known default action and
 * only rules for real syscalls with at most 6 conditions on arguments 0-5,
 * and frees its tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "fuzz.h"
#include "sr.h"

/* The loader's JSON tree while it is alive. */
static struct sr_jr *tree;

struct sr_jr *__real_sr_jr_parse(const char *text, size_t len, struct sr_jr_error *err);
void __real_sr_jr_free(struct sr_jr *root);
struct sr_jr *__wrap_sr_jr_parse(const char *text, size_t len, struct sr_jr_error *err);
void __wrap_sr_jr_free(struct sr_jr *root);

struct sr_jr *__wrap_sr_jr_parse(const char *text, size_t len, struct sr_jr_error *err)
{
	if (tree)
		abort();      /* the loader reads one tree at a time */
	tree = __real_sr_jr_parse(text, len, err);
	return tree;
}

void __wrap_sr_jr_free(struct sr_jr *root)
{
	if (root != tree)
		abort();
	__real_sr_jr_free(root);
	tree = NULL;
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
		__real_sr_jr_free(tree);
		tree = NULL;
		free(in_buf);
	}
	fz_jump = NULL;
	if (tree)
		abort();      /* the loader kept its JSON tree */
	free(p.v);
	return 0;
}
