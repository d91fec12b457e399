/* sr.h - helpers shared by every sr program. */
#ifndef SR_H
#define SR_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Exit codes (HACKING.md has the table; after execline and s6). */
enum {
	SR_EXIT_OK = 0,
	SR_EXIT_SOFT = 1,       /* expected soft failure: busy, not found */
	SR_EXIT_TIMEOUT = 124,  /* wall clock ran out (sr-limit) */
	SR_EXIT_USAGE = 100,    /* bad command line */
	SR_EXIT_SYS = 111,      /* a system call failed during setup */
	SR_EXIT_NOEXEC = 126,   /* program found but could not be executed */
	SR_EXIT_NOTFOUND = 127, /* program not found */
};

/* err.c: one-line diagnostics, "PROG: fatal: MSG[: strerror]". */
extern const char *sr_prog;
void sr_set_prog(const char *name);
void sr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sr_warn_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sr_fatal(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void sr_fatal_sys(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* "PROG: note: MSG": what a tool's --verbose says. */
void sr_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: usage: MSG" then exit 100. */
void sr_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* For getopt_long's '?' or ':' (with opterr 0 and an optstring starting
 * "+:"): the one wording every tool uses, then exit 100:
 *   "PROG: usage: unknown option '--x' (see PROG --help)"
 *   "PROG: usage: option '-m' needs a value (see PROG --help)"
 *   "PROG: usage: option '--net' takes no value (see PROG --help)" */
void sr_usage_option(int argc, char *const argv[], int c) __attribute__((noreturn));
/* The one wording of each usage situation every tool shares, exit 100:
 *   "PROG: usage: no program given (see PROG --help)"
 *   "PROG: usage: OPT: invalid WHAT: 'VALUE'[ (want WANT)]"  (a bad value;
 *   lib/parse.c's sr_opt_* say the same without WANT) */
void sr_usage_noprog(void) __attribute__((noreturn));
void sr_usage_value(const char *opt, const char *what, const char *value, const char *want)
	__attribute__((noreturn));
/* A program that could not be run, in every tool and in a queued job's
 * result: "unable to run PROG: strerror(err)" (snprintf's return), and
 * "PROG: fatal: " that, exiting sr_exec_exit(errno). */
int sr_run_failure(char *buf, size_t size, const char *prog, int err);
void sr_fatal_run(const char *prog) __attribute__((noreturn));
/* --version: "PROG VERSION" on stdout, exit 0. */
#define SR_VERSION "0.2.0"
void sr_version(void) __attribute__((noreturn));

/* parse.c: strict parsers. Return 0 on success, -1 (errno EINVAL or
 * ERANGE) on any malformed or out-of-range input; *out is untouched then.
 * Sizes: digits with optional fraction and suffix K M G T (powers of 1024,
 * optional trailing B or iB), e.g. 512K, 1.5G, 4096. Durations: number with
 * unit ns us ms s m h (a bare number is seconds), e.g. 250ms, 2.5s, 1.5m.
 * Counts: plain decimal integers. Negative numbers, exponents, empty strings,
 * trailing garbage and overflow are all errors. */
int sr_parse_size(const char *s, uint64_t *out);
int sr_parse_duration_ns(const char *s, uint64_t *out);
int sr_parse_count(const char *s, uint64_t max, uint64_t *out);

/* The same, for option arguments: on error print
 * "PROG: usage: OPT: invalid size 'S'" and exit 100. */
uint64_t sr_opt_size(const char *opt, const char *s);
uint64_t sr_opt_duration_ns(const char *opt, const char *s);
uint64_t sr_opt_count(const char *opt, const char *s, uint64_t max);

/* util.c */
/* Room for one more element in an array v of n elements of size bytes
 * whose capacity is *cap: the array, grown (doubled) when full; exits 111
 * when memory runs out. */
void *sr_grow(void *v, size_t n, size_t *cap, size_t size);
uint64_t sr_now_ns(void);                 /* CLOCK_MONOTONIC */
int sr_write_all(int fd, const void *buf, size_t len);  /* 0 or -1 */
/* open(2) following no symbolic link anywhere in path (openat2 with
 * RESOLVE_NO_SYMLINKS): for a path under a directory a sandboxed program
 * could have changed. ELOOP when path is or passes through a link. */
int sr_open_nofollow(const char *path, int flags);
/* Write s to an existing file (a /proc or cgroup file), in one write.
 * 0, or -1 with errno set. */
int sr_write_str(const char *path, const char *s);
/* Read a whole small file (NUL-terminated). Returns malloc'd buffer or NULL. */
char *sr_read_file(const char *path, size_t max, size_t *len);
/* relay.c: copy both ways between the sockets a and b until both sides
 * have ended (0), a read or write failed (-1), or seen, told of each
 * chunk (way 0: a to b, 1: b to a), returned -1 (1). */
int sr_relay(int a, int b, int (*seen)(int way, size_t n, void *arg), void *arg);
/* Send req on the connected socket s and read its answer: one message, in
 * line (len bytes, cut at its first newline, NUL-ended) and, if fd, a
 * descriptor sent with it in *fd (SCM_RIGHTS, close-on-exec; *fd is left
 * as it was when none came). The message's length, 0 at EOF, -1 with errno. */
ssize_t sr_ask(int s, const char *req, char *line, size_t len, int *fd);
/* execvp as POSIX has it: PATH searched for argv[0] (unless it holds a
 * '/'), and a file the kernel will not run (ENOEXEC: a script without #!)
 * run by /bin/sh, as glibc does and musl does not. It allocates nothing,
 * so a child that shares its parent's memory may call it: sh_argv, from
 * sr_sh_argv (NULL: no /bin/sh fallback), is prepared beforehand.
 * Returns only on failure, with errno set. */
void sr_execvp(char *const argv[], char **sh_argv);
/* {"sh", <the file>, argv[1], ..., NULL}, malloc'd, for sr_execvp. */
char **sr_sh_argv(char *const argv[]);
/* The exit code for a program that could not be executed, the one rule
 * of every tool: 127 (not found) for ENOENT or ENOTDIR, else 126. */
int sr_exec_exit(int err);
/* sr_execvp; on failure print a fatal line and exit sr_exec_exit(errno). */
void sr_exec(char *const argv[]) __attribute__((noreturn));
/* Convert a wait status to the conventional exit code: the child's code,
 * or 128+N for signal N. */
int sr_status_to_exit(int status);
/* Exit as status says a child ended: with its code, or dying of its
 * signal (with no core of our own), so that whoever waits for this
 * supervisor (sr-limit, say) sees how the program ended. */
void sr_die_like(int status) __attribute__((noreturn));
/* The signals a supervisor blocks and takes synchronously (signalfd,
 * sigwaitinfo): SIGCHLD, and SIGTERM, SIGINT, SIGHUP, which it passes on
 * to what it supervises. */
void sr_supervisor_sigset(sigset_t *set);
/* Mark every fd >= lowfd O_CLOEXEC except those in keep[0..nkeep). */
void sr_cloexec_from(int lowfd, const int *keep, size_t nkeep);
/* Write buf to path atomically: a temporary file in the same directory,
 * fsync, rename. Safe in a directory that a sandboxed program can write:
 * a link as the directory's last component is not followed (ELOOP), the
 * temporary name is random and made O_EXCL|O_NOFOLLOW, and a link or fifo
 * planted at path is replaced, never written through. 0, or -1 with errno
 * set and nothing left behind. */
int sr_write_file_atomic(const char *path, const char *buf, size_t len);
/* walk.c: a tree walked without recursion, at any depth, with at most
 * SR_TREE_OPEN descriptors open (the directories between the root and the
 * deepest few are opened again through "..", their device and inode
 * checked: ESTALE when the tree moved). Set the caller's fields, then
 * sr_tree_open (takes fd; -1 with errno). sr_tree_next gives
 * SR_TREE_ENTRY for each entry (name in dirfd, at depth, its path from
 * the root in path), SR_TREE_LEAVE when a directory entered with
 * sr_tree_enter has been walked (name in dirfd is that directory again),
 * 0 at the end, -1 (errno) when the walk cannot go on. After an entry,
 * sr_tree_enter goes into it (O_NOFOLLOW: no link is followed; -1 with
 * errno, and the walk goes on beside it). path is kept to path_max bytes:
 * when an entry's would be longer, path_cut is set and path is that of
 * the deepest ancestor that fits. drain: a directory's entries are read
 * as a stream and are to be removed as they come (the walk reads a
 * directory again from its start after it was closed): sr_tree_keep marks
 * the entry (or the directory left) that stays; every directory entered
 * is given back u+rwx first. Otherwise each directory's names are read
 * whole when it is entered (sorted, if asked), at most names_max held at
 * once (cut set when some were left out). sr_tree_close frees all. */
#define SR_TREE_OPEN 16
enum { SR_TREE_ENTRY = 1, SR_TREE_LEAVE = 2 };
struct sr_tree_dir;
struct sr_tree {
	int drain, sorted;
	size_t names_max, path_max;
	int dirfd;
	const char *name, *path;
	int path_cut, cut;
	size_t depth;
	struct sr_tree_dir *dirs;       /* the walk's own */
	size_t ndirs, cap, low, held, pcap;
	char *pbuf;
};
int sr_tree_open(struct sr_tree *t, int fd);
int sr_tree_next(struct sr_tree *t);
int sr_tree_enter(struct sr_tree *t);
void sr_tree_keep(struct sr_tree *t);
void sr_tree_close(struct sr_tree *t);
/* Remove name in the directory parent, a directory's tree included, at
 * any depth, following no link; a directory the sandboxed code made
 * unreadable or unwritable (parent too) is given back u+rwx first. 0, or
 * -1 with errno set (what could be removed is). */
int sr_remove_tree(int parent, const char *name);
/* tree.c: walking a tree of any depth with a bounded number of fds; the
 * one place of what both walkers (this stack and walk.c's sr_tree) need.
 * A directory on a walk's way down: sr_dir_at_set records fd's device and
 * inode (-1 with errno, ENOTDIR for a non-directory; fd is not closed);
 * sr_dir_at_reopen opens it again through ".." of child, its open
 * subdirectory: 0, or -1 with ESTALE when that is not the same directory
 * any more. sr_open_dir_owned opens name in parent, a directory,
 * following no link; a directory its owner made unopenable gets u+rwx
 * back through an O_PATH descriptor, and one opened lacking a bit of want
 * gets u+rwx (only when the caller owns it, if mine).
 * sr_dir_give_rights is that last step alone. */
struct sr_dir_at {
	int fd;
	dev_t dev;
	ino_t ino;
};
int sr_dir_at_set(struct sr_dir_at *d, int fd);
int sr_dir_at_reopen(struct sr_dir_at *d, int child);
int sr_open_dir_owned(int parent, const char *name, unsigned want, int mine);
void sr_dir_give_rights(int fd, unsigned want, int mine);
/* The stack: push takes an open directory fd (closed on
 * failure), fd is the top's, add notes a subdirectory of the top to visit,
 * next gives the next one noted (NULL: none left), pop closes the top and
 * opens its parent again through ".." when its fd had been closed, -1 with
 * ESTALE when that is not the same directory any more. each calls fn for
 * every entry of the directory fd but . and .. (-1 when reading failed or
 * a call did). open_subdir opens name in parent, a directory, following
 * no link; one its owner made unreadable is given back the owner's rights
 * (sr_open_dir_owned with want 0500, mine). */
struct sr_dir;
struct sr_dirs {
	struct sr_dir *v;
	size_t n, cap;
};
int sr_dirs_push(struct sr_dirs *s, int fd);
int sr_dirs_fd(const struct sr_dirs *s);
int sr_dirs_add(struct sr_dirs *s, const char *name);
const char *sr_dirs_next(struct sr_dirs *s);
const char *sr_dirs_current(const struct sr_dirs *s);   /* next's last answer */
int sr_dirs_pop(struct sr_dirs *s);
void sr_dirs_free(struct sr_dirs *s);
int sr_dir_each(int fd, int (*fn)(int fd, const char *name, void *arg), void *arg);
int sr_open_subdir(int parent, const char *name);
/* qcache.c: what a directory holds, for a quota: the bytes of its
 * regular files (each name's) and its inodes (everything under it, a file
 * of several names once), no link followed. tree: under dirfd (not dirfd
 * itself); entry: name in dirfd and, a directory, its tree (a file of
 * several names counted only when all of them are in it: what removing
 * name frees). 0, or -1 when a part could not be read (u: what was). */
struct sr_usage {
	uint64_t bytes, inodes;
};
struct sr_delta {
	int64_t bytes, inodes;
};
int sr_tree_usage(int dirfd, struct sr_usage *u);
int sr_entry_usage(int dirfd, const char *name, struct sr_usage *u);
/* The same, and the names of regular files they hold in *files (a file of
 * several names counted at each). */
int sr_tree_count(int dirfd, struct sr_usage *u, uint64_t *files);
int sr_entry_count(int dirfd, const char *name, struct sr_usage *u, uint64_t *files);
/* A directory's size kept in a cache file (qcache.c has the format and
 * when an entry is trusted). open: the file, made when missing (-1 with
 * errno). Under lock: used gives the directory's usage from the cache, or
 * measures it (then *measured is 1) and stores it (-1: the measure missed
 * a part, and nothing is stored); add adjusts a valid entry by what a
 * change added or removed (-1: none to adjust, and the cache is emptied);
 * drop empties the cache, for a change whose size is not known. */
int sr_qcache_open(const char *path);
int sr_qcache_lock(int fd);
void sr_qcache_unlock(int fd);
int sr_qcache_used(int fd, int dirfd, struct sr_usage *u, int *measured);
int sr_qcache_add(int fd, int dirfd, const struct sr_delta *d);
void sr_qcache_drop(int fd);
/* "KILL" for SIGKILL, as kill -l names them; NULL for a signal without a
 * name (the realtime ones). */
const char *sr_signal_name(int sig);
/* Resolve prog to an absolute path by searching PATH like execvp would.
 * Returns malloc'd path or NULL (errno ENOENT/EACCES). */
char *sr_find_program(const char *prog);
/* trust.c: is the absolute, resolved path a directory of the effective
 * user's alone: owned by it and writable by nobody else, each directory
 * above owned by root or it and writable by others only when sticky? 1
 * yes; 0 with may_be_missing, the path is not all there and what is may
 * hold it (make the rest, then ask again); -1 refused (errno 0: why names
 * the path and its owner) or failed (errno). */
int sr_dir_private(const char *path, int may_be_missing, char *why, size_t len);
/* A directory whose code runs (trust.c's head has the rule): the same
 * path rule, but the directory may be root's as well as the user's; 1
 * with its O_PATH descriptor in *fd (closed when fd is NULL), -1 as
 * above. sr_tree_trusted: name in dirfd (a link not followed) and, a
 * directory, everything below it, each owned by root or the user and,
 * a directory or a regular file, writable by neither group nor others
 * (with SR_TRUST_NO_LINKS, no symbolic link either); shown names it in
 * why. 1 yes; 0 name is missing; -1 refused (errno 0: why names the
 * first entry found and the fix) or failed (errno). */
#define SR_TRUST_NO_LINKS 1
int sr_dir_trusted(const char *path, int *fd, char *why, size_t len);
int sr_tree_trusted(int dirfd, const char *name, int flags, const char *shown, char *why,
		    size_t len);
/* One entry's stat judged so (NULL: fine; else why, naming it as shown). */
const char *sr_stat_trusted(const struct stat *st, int flags, const char *shown, char *why,
			    size_t len);

/* proc.c */
/* Read at most size-1 bytes of a small file at dfd/name, NUL-terminated.
 * Returns the length, or -1 with errno set. */
ssize_t sr_read_small_at(int dfd, const char *name, char *buf, size_t size);
/* Numeric field FIELD (1-based, as proc(5) numbers them; 3 or more) of
 * procfd/PID/stat. 0, or -1 when the process is gone. */
int sr_proc_stat_num(int procfd, const char *pid, int field, long long *out);
/* SIGKILL every descendant of this process found in /proc, in one scan,
 * except the processes in spare[] and everything below them. Call it as a
 * child subreaper, so that orphans stay below, and again until waitpid
 * says ECHILD: what forks during the scan is caught by the next one. */
void sr_kill_descendants(const pid_t *spare, size_t nspare);

/* jw.c: build one JSON object, member by member, with no library (for
 * the tools linked against musl). Start from a zeroed struct; open the
 * top level with key NULL. sr_jw_line returns the malloc'd line, "\n"
 * and NUL terminated, and resets w; NULL (ENOMEM) if anything failed. */
#define SR_JW_DEPTH 8
struct sr_jw {
	char *buf;
	size_t len, cap;
	int depth, failed;
	unsigned count[SR_JW_DEPTH];
};
void sr_jw_open(struct sr_jw *w, const char *key);
void sr_jw_close(struct sr_jw *w);
void sr_jw_str(struct sr_jw *w, const char *key, const char *v);
void sr_jw_num(struct sr_jw *w, const char *key, double v);
void sr_jw_null(struct sr_jw *w, const char *key);
char *sr_jw_line(struct sr_jw *w, size_t *len);

/* jr.c: read JSON text (strict RFC 8259, no library) into a tree. A
 * member of an object has its name in key; elements and members are
 * linked by next from their container's child, in the text's order. */
#define SR_JR_DEPTH 64          /* arrays and objects nested at most */
enum sr_jr_type {
	SR_JR_NULL = 1, SR_JR_FALSE, SR_JR_TRUE, SR_JR_NUMBER, SR_JR_STRING,
	SR_JR_ARRAY, SR_JR_OBJECT
};
struct sr_jr {
	enum sr_jr_type type;
	const char *key;        /* an object's member: its name; else NULL */
	const char *str;        /* STRING: decoded, UTF-8, no NUL inside; */
	size_t len;             /* NUMBER: the literal as written */
	size_t pos;             /* byte offset of the value (a member: of its name) */
	struct sr_jr *child;    /* ARRAY, OBJECT: the first element or member */
	struct sr_jr *next;     /* the next one in the same container */
};
struct sr_jr_error {
	size_t pos;             /* byte offset of the fault (len: the text ended) */
	const char *what;       /* "unexpected end", "bad escape in a string", ... */
};
/* The tree of text[0..len), to free with sr_jr_free; NULL with errno
 * EINVAL (malformed: *err says where and what) or ENOMEM. */
struct sr_jr *sr_jr_parse(const char *text, size_t len, struct sr_jr_error *err);
void sr_jr_free(struct sr_jr *root);
/* 1 when v is not NULL and of that type. */
int sr_jr_is(const struct sr_jr *v, enum sr_jr_type type);
/* The member named key (compared exactly) of obj; NULL when obj is not an
 * object or has no such member. */
const struct sr_jr *sr_jr_get(const struct sr_jr *obj, const char *key);
/* The first element or member of v; NULL when v is empty, NULL or neither
 * an array nor an object. SR_JR_EACH walks them all. */
const struct sr_jr *sr_jr_first(const struct sr_jr *v);
#define SR_JR_EACH(e, v) for ((e) = sr_jr_first(v); (e); (e) = (e)->next)
/* A number whose value is an integer from 0 to UINT64_MAX, read exactly
 * (18446744073709551615, 1e3 and 4.0 are; 1.5, -1 and 2^64 are not):
 * 0 with the value in *out; else -1. */
int sr_jr_uint(const struct sr_jr *v, uint64_t *out);

#endif
