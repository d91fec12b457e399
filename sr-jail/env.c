/* env.c - a fresh environment: nothing of the caller's leaks unless named
 * by --keep-env. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jail.h"
#include "env.h"
#include "etc.h"
#include "sr.h"

struct env {
	char **v;
	size_t n;
};

static size_t find(const struct env *e, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], key, kl) == 0 && e->v[i][kl] == '=')
			return i;
	return e->n;
}

static void env_unset(struct env *e, const char *key)
{
	size_t i = find(e, key);
	if (i < e->n)
		e->v[i] = e->v[--e->n];
}

static void env_set(struct env *e, const char *key, const char *val)
{
	char *kv;
	if (asprintf(&kv, "%s=%s", key, val) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	size_t i = find(e, key);
	e->v[i] = kv;
	if (i == e->n)
		e->n++;
}

/* PATH, HOME, LANG, TMPDIR, USER, LOGNAME, then the options in order. */
void jail_build_env(struct jail *j)
{
	struct env e = {calloc(j->nenvops + 8, sizeof(char *)), 0};
	if (!e.v)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	env_set(&e, "PATH", JAIL_PATH);
	env_set(&e, "HOME", JAIL_HOME);
	env_set(&e, "LANG", "C.UTF-8");
	env_set(&e, "TMPDIR", "/tmp");
	env_set(&e, "USER", jail_user_name(j));
	env_set(&e, "LOGNAME", jail_user_name(j));
	for (size_t i = 0; i < j->nenvops; i++) {
		const struct envop *op = &j->envops[i];
		const char *v = op->kind == EK_KEEP ? getenv(op->key) : op->val;
		if (op->kind == EK_UNSET)
			env_unset(&e, op->key);
		else if (v)
			env_set(&e, op->key, v);
	}
	e.v[e.n] = NULL;
	j->envp = e.v;
}
