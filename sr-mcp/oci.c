/* oci.c - environments from OCI images: --environment NAME=oci:PATH[:REF],
 * PATH an OCI layout directory (skopeo copy ... oci:PATH:REF) or the tar of
 * docker save / podman save, REF the image's name in a layout holding
 * several.
 *
 * The image is unpacked once into STATE/oci/KEY/root (its config beside
 * it, root.sr-image.json), KEY the manifest's digest for a layout (read
 * from index.json here) or the tar's device, inode, size and times: a
 * second start reuses it, a changed image gets another KEY and is
 * unpacked anew. The unpacker (scripts/oci-unpack) runs in the sandbox
 * chain (sr-limit, sr-jail, sr-exec: no network, the image read-only, only
 * a fresh STATE/oci/.tmp-XXXXXX writable), so a bug in it reaches nothing
 * of the host's; the directory is renamed to KEY when it is complete, so
 * a crash leaves no half-made root (a .tmp- over an hour old is removed
 * at the next start).
 *
 * The config the unpacker wrote is read back as untrusted: Env is kept
 * KEY=VALUE by KEY=VALUE, without the loader's variables (LD_*) and those
 * the runners and the jail set themselves; it goes to the jail as an
 * --env-file sr-mcp writes. The image's top-level directories that
 * sr-jail --rootfs does not show (/opt, /app, ...) are bound read-only at
 * their place. Runs start in /workspace and run as the jail's user:
 * WorkingDir and User are listed, not applied. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "job.h"
#include "mcp.h"
#include "oci.h"
#include "spawn.h"
#include "sr.h"

#define OCI_DIR "oci"            /* beneath the state directory */
#define JSON_MAX (1U << 20)      /* index.json, root.sr-image.json: at most */
#define ENV_MAX 128              /* Env entries kept, at most */
#define ENV_VALUE_MAX 4096
#define BINDS_MAX 16
#define TMP_AGE 3600             /* s: a .tmp- older is a crash's leftover */
#define UNPACK_TIMEOUT "900s"

/* What the root shows already, or what the jail makes itself. */
static const char *const not_bound[] = {
	"usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "boot", "dev", "proc",
	"sys", "run", "tmp", "home", "root", "var", "media", "mnt", "workspace", "lost+found",
	NULL
};

/* Env keys not taken from an image: the loader's (LD_* too) and those
 * the runners or the jail set (the runner's win over an image's). */
static const char *const env_refused[] = {
	"PYTHONPATH", "PYTHONSTARTUP", "MPLBACKEND", "NODE_OPTIONS", "NODE_PATH", "BASH_ENV",
	"ENV", "HOME", "USER", "LOGNAME", "PWD", "TMPDIR", "HTTP_PROXY", "HTTPS_PROXY",
	"ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy", NULL
};

static int in(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* A regular file read whole (no link followed on the path), NULL with
 * errno; at most JSON_MAX bytes. */
static char *read_small(const char *path)
{
	struct stat st;
	int fd = sr_open_nofollow(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)JSON_MAX) {
		close(fd);
		errno = errno ? errno : EINVAL;
		return NULL;
	}
	size_t got;
	char *p = fs_read_fd(fd, (size_t)st.st_size, &got);
	close(fd);
	return p;
}

/* PATH[:REF]: the whole of spec when it exists, else split at its last
 * ':'. *path resolved (malloc'd), *ref NULL or a name. */
static void split_spec(const char *what, const char *spec, char **path, char **ref)
{
	struct stat st;
	char *p = xstrdup(spec), *colon;
	*ref = NULL;
	if (stat(p, &st) < 0 && (colon = strrchr(p, ':')) && colon != p && colon[1]) {
		*colon = '\0';
		*ref = xstrdup(colon + 1);
	}
	if (!*p || stat(p, &st) < 0)
		sr_usage("%s: unable to read the image %s: %s", what, *p ? p : "''",
			 *p ? strerror(errno) : "no path");
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		sr_usage("%s: %s is neither an OCI layout directory nor an image's tar", what, p);
	if (*ref && strlen(*ref) > 200)
		sr_usage("%s: the image name %.40s... is too long", what, *ref);
	*path = realpath(p, NULL);
	if (!*path)
		sr_fatal(SR_EXIT_SYS, "%s: unable to resolve %s: %s", what, p, strerror(errno));
	free(p);
}

static int is_digest(const char *d)
{
	return !strncmp(d, "sha256:", 7) && strlen(d) == 71 &&
	       strspn(d + 7, "0123456789abcdef") == 64;
}

/* A layout's KEY: the digest of the manifest index.json names (the one
 * named ref, or its only one). */
static void layout_key(const char *what, const char *path, const char *ref, char *key,
		       size_t len)
{
	char f[PATH_MAX + 16];
	snprintf(f, sizeof f, "%s/index.json", path);
	char *raw = read_small(f);
	cJSON *idx = raw ? cJSON_Parse(raw) : NULL, *m;
	if (!idx)
		sr_usage("%s: %s: %s", what, f, raw ? "not JSON" : strerror(errno));
	const cJSON *pick = NULL;
	int n = 0;
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(idx, "manifests")) {
		const cJSON *a = cJSON_GetObjectItem(m, "annotations");
		if (ref && strcmp(str(a, "org.opencontainers.image.ref.name"), ref))
			continue;
		pick = m;
		n++;
	}
	if (n != 1)
		sr_usage("%s: %s names %d images%s%s: name one, as oci:%s:NAME", what, f, n,
			 ref ? " called " : "", ref ? ref : "", path);
	const char *d = str(pick, "digest");
	if (!is_digest(d))
		sr_usage("%s: %s: the manifest's digest '%.80s' is not sha256:HEX", what, f, d);
	snprintf(key, len, "sha256-%s", d + 7);
	cJSON_Delete(idx);
	free(raw);
}

/* A tar's KEY: what changes when the file is replaced or written (its
 * ctime too, which no one sets back as touch -r sets the mtime). */
static void tar_key(const char *path, const char *ref, char *key, size_t len)
{
	struct stat st;
	if (stat(path, &st) < 0)
		sr_fatal(SR_EXIT_SYS, "unable to read the image %s: %s", path, strerror(errno));
	int n = snprintf(key, len, "tar-%llx-%llx-%llx-%lld.%09ld-%lld.%09ld",
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			 (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	if (ref && (size_t)n + 1 < len)
		key[n++] = '-';
	for (size_t i = 0; ref && ref[i] && (size_t)n + 1 < len; i++) {
		char c = ref[i];
		key[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			   c == '.' || c == '_' ? c : '_';
	}
	key[n] = '\0';
}

/* STATE/oci, made private (the state directory too); its descriptor. A crash's .tmp- left over
 * (older than TMP_AGE: a live unpack is younger) is removed. */
static int oci_dir(const char *what, char *dir, size_t len)
{
	char why[1400];
	if (job_state_ready(why, sizeof why) < 0)   /* the state directory made, private */
		sr_fatal(SR_EXIT_SYS, "%s: %s", what, why);
	snprintf(dir, len, "%s/" OCI_DIR, cfg.state_dir);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		sr_fatal(SR_EXIT_SYS, "%s: unable to make %s: %s", what, dir, strerror(errno));
	int fd = sr_open_nofollow(dir, O_RDONLY | O_DIRECTORY);
	DIR *d = fd < 0 ? NULL : fdopendir(dup(fd));
	if (!d)
		sr_fatal(SR_EXIT_SYS, "%s: unable to open %s: %s", what, dir, strerror(errno));
	struct dirent *e;
	struct stat st;
	time_t now = time(NULL);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, ".tmp-", 5) &&
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime + TMP_AGE < now && sr_remove_tree(fd, e->d_name) < 0)
			mcp_log("unable to remove %s/%s, left by an unpack that did not end: %s",
				dir, e->d_name, strerror(errno));
	closedir(d);
	return fd;
}

/* A sink keeping the last line of what comes (the unpacker's error). */
struct last_line {
	char buf[600], line[600];
	size_t len;
};

static int keep_last(void *ctx, const char *p, size_t n)
{
	struct last_line *l = ctx;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n') {
			l->buf[l->len] = '\0';
			if (l->len)
				memcpy(l->line, l->buf, l->len + 1);
			l->len = 0;
		} else if (l->len < sizeof l->buf - 1) {
			l->buf[l->len++] = p[i];
		}
	}
	return 0;
}

/* The unpacker beside the runners (installed: DATADIR/sr-mcp/oci-unpack)
 * or in the build tree's scripts/; checked as code that runs is. */
static char *unpacker(const char *what)
{
	static const char *const at[] = { "/../oci-unpack", "/../../scripts/oci-unpack" };
	char f[PATH_MAX + 40], why[PATH_MAX + 400];
	for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
		snprintf(f, sizeof f, "%s%s", cfg.runners_dir, at[i]);
		char *real = realpath(f, NULL), *slash;
		struct stat st;
		if (!real || stat(real, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(real);
			continue;
		}
		slash = strrchr(real, '/');
		*slash = '\0';
		int fd = -1, r = sr_dir_trusted(real, &fd, why, sizeof why);
		if (r > 0)
			r = sr_tree_trusted(fd, slash + 1, SR_TRUST_NO_LINKS, f, why, sizeof why);
		if (fd >= 0)
			close(fd);
		*slash = '/';
		if (r <= 0)
			sr_fatal(SR_EXIT_SYS, "%s: refusing the unpacker %s: %s", what, real,
				 r ? why : "it is gone");
		return real;
	}
	sr_fatal(SR_EXIT_SYS, "%s: no oci-unpack beside the runners %s (make install puts it "
		 "there)", what, cfg.runners_dir);
}

/* Unpack path (ref) into tmp/root in the sandbox chain; 0, or the exit
 * status with the unpacker's last line in l. */
static int unpack_jailed(const char *what, const char *path, const char *ref, const char *tmp,
			 struct last_line *l)
{
	char *prog = unpacker(what);
	char *v[40];
	int n = 0;
	const char *head[] = { "sr-limit", "--data", "4G", "--fsize", "4G", "--pids", "32",
			       "--timeout", UNPACK_TIMEOUT, "sr-jail", "--ro-bind", path, "/image",
			       "--bind", tmp, "/out", "--ro-bind", prog, "/run/sr/oci-unpack",
			       "--chdir", "/out", "sr-exec", "python3", "/run/sr/oci-unpack" };
	for (size_t i = 0; i < sizeof head / sizeof *head; i++)
		v[n++] = (char *)head[i];
	if (ref) {
		v[n++] = "--ref";
		v[n++] = (char *)ref;
	}
	v[n++] = "/image";
	v[n++] = "/out/root";
	v[n] = NULL;
	struct spawn_io io = { .in_fd = -1, .err = keep_last, .err_ctx = l };
	int rc = spawn_io(v, &io);
	keep_last(l, "\n", 1);
	free(prog);
	return rc;
}

/* STATE/oci/KEY made from the image: unpacked into a .tmp- directory,
 * renamed when whole (another sr-mcp that got there first wins). */
static void unpack(const char *what, const char *path, const char *ref, int dfd,
		   const char *dir, const char *key)
{
	char tmp[PATH_MAX + 64];
	snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", dir);
	if (!mkdtemp(tmp))
		sr_fatal(SR_EXIT_SYS, "%s: unable to make %s: %s", what, tmp, strerror(errno));
	struct last_line l = { .len = 0 };
	int rc = unpack_jailed(what, path, ref, tmp, &l);
	const char *base = strrchr(tmp, '/') + 1;
	if (rc != 0) {
		sr_remove_tree(dfd, base);
		sr_fatal(rc == 1 ? SR_EXIT_USAGE : SR_EXIT_SYS, "%s: unable to unpack %s (exit %d%s)%s%s",
			 what, path, rc, rc == 124 ? ": its wall clock of " UNPACK_TIMEOUT " ran out" : "",
			 l.line[0] ? ": " : "", l.line);
	}
	if (renameat(dfd, base, dfd, key) < 0) {
		int e = errno;
		sr_remove_tree(dfd, base);
		if (e != EEXIST && e != ENOTEMPTY)
			sr_fatal(SR_EXIT_SYS, "%s: unable to rename %s to %s/%s: %s", what, tmp,
				 dir, key, strerror(e));
	}
}

/* The image's Env, kept and refused, into facts; the kept ones as a
 * NUL-separated file for sr-jail --env-file. */
static void take_env(const char *what, const cJSON *env, const char *file, cJSON *facts)
{
	cJSON *kept = cJSON_AddArrayToObject(facts, "env");
	cJSON *refused = cJSON_AddArrayToObject(facts, "env_dropped"), *e;
	size_t cap = 1, len = 0, n = 0;
	cJSON_ArrayForEach(e, env)
		cap += cJSON_IsString(e) ? strlen(e->valuestring) + 1 : 0;
	char *buf = xmalloc(cap);
	cJSON_ArrayForEach(e, env) {
		const char *kv = cJSON_IsString(e) ? e->valuestring : "", *eq = strchr(kv, '=');
		size_t k = eq ? (size_t)(eq - kv) : 0;
		char key[129] = "";
		int good = k > 0 && k < sizeof key && strlen(eq + 1) <= ENV_VALUE_MAX &&
			   strspn(kv, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == k &&
			   !(kv[0] >= '0' && kv[0] <= '9') && n < ENV_MAX;
		if (good)
			memcpy(key, kv, k);
		if (!good || !strncmp(key, "LD_", 3) || !strncmp(key, "SR_", 3) || in(env_refused, key)) {
			cJSON_AddItemToArray(refused, cJSON_CreateString(good ? key : "(not KEY=VALUE)"));
			continue;
		}
		cJSON_AddItemToArray(kept, cJSON_CreateString(kv));
		memcpy(buf + len, kv, strlen(kv) + 1);
		len += strlen(kv) + 1;
		n++;
	}
	if (sr_write_file_atomic(file, buf, len) < 0)
		sr_fatal(SR_EXIT_SYS, "%s: unable to write %s: %s", what, file, strerror(errno));
	free(buf);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The root's top-level directories sr-jail --rootfs does not show, bound
 * read-only at their place ("--ro-bind ROOT/X /X" each, onto args). */
static void binds(const char *root, char *args, size_t len, cJSON *facts)
{
	cJSON *list = cJSON_AddArrayToObject(facts, "mounted");
	int fd = sr_open_nofollow(root, O_RDONLY | O_DIRECTORY);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	struct stat st;
	char **names = xmalloc(BINDS_MAX * sizeof *names);
	size_t n = 0;
	while (d && (e = readdir(d)) && n < BINDS_MAX) {
		const char *s = e->d_name;
		if (s[0] == '.' || in(not_bound, s) || strlen(s) > 64 ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(s) || fstatat(fd, s, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		names[n++] = xstrdup(s);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(args);
		snprintf(args + used, len - used, " --ro-bind %s/%s /%s", root, names[i], names[i]);
		char at[80];
		snprintf(at, sizeof at, "/%s", names[i]);
		cJSON_AddItemToArray(list, cJSON_CreateString(at));
		free(names[i]);
	}
	free(names);
}

/* The unpacked image KEY in dir: its config, env file and binds. */
static void load(const char *what, const char *dir, const char *key, struct oci_image *im)
{
	char f[PATH_MAX + 512], args[PATH_MAX * 3 + 8192];
	snprintf(f, sizeof f, "%s/%s/root.sr-image.json", dir, key);
	char *raw = read_small(f);
	cJSON *cfgj = raw ? cJSON_Parse(raw) : NULL;
	if (!cfgj || !cJSON_IsObject(cfgj))
		sr_fatal(SR_EXIT_SYS, "%s: %s: %s (remove %s/%s to unpack the image anew)", what, f,
			 raw ? "not JSON" : strerror(errno), dir, key);
	snprintf(f, sizeof f, "%s/%s/root", dir, key);
	im->root = xstrdup(f);
	im->facts = cJSON_CreateObject();
	static const char *const keys[] = { "ref", "digest", "workdir", "user" };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		cJSON_AddStringToObject(im->facts, keys[i], str(cfgj, keys[i]));
	snprintf(f, sizeof f, "%s/%s/env", dir, key);
	take_env(what, cJSON_GetObjectItem(cfgj, "env"), f, im->facts);
	snprintf(args, sizeof args, "SR_IMAGE_JAIL=--env-file %s", f);
	binds(im->root, args, sizeof args, im->facts);
	im->jail = xstrdup(args);
	cJSON_AddStringToObject(im->facts, "note", "runs start in /workspace as the sandbox's "
				"user: the image's workdir and user are not applied; its directories "
				"outside /usr, /etc, /bin, /sbin and /lib* are mounted read-only");
	cJSON_Delete(cfgj);
	free(raw);
}

void oci_prepare(const char *what, const char *spec, struct oci_image *im)
{
	char *path, *ref, key[400], dir[PATH_MAX + 8];
	struct stat st;
	split_spec(what, spec, &path, &ref);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		layout_key(what, path, ref, key, sizeof key);
	else
		tar_key(path, ref, key, sizeof key);
	int dfd = oci_dir(what, dir, sizeof dir);
	if (fstatat(dfd, key, &st, AT_SYMLINK_NOFOLLOW) < 0)
		unpack(what, path, ref, dfd, dir, key);
	close(dfd);
	load(what, dir, key, im);
	cJSON_AddStringToObject(im->facts, "source", path);
	free(path);
	free(ref);
}
