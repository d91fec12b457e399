/* tool_tar.h - what export_workspace (tool_export.c) and import_files
 * (tool_import.c) share, in tool_tar.c: tar in the sandbox (struct
 * chain), its output a line at a time (struct lines, struct note), the
 * members it lists (struct member, struct members), the host directories. */
#ifndef SR_MCP_TOOL_TAR_H
#define SR_MCP_TOOL_TAR_H

#include <limits.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/stat.h>

struct cJSON;
struct proto_req;

#define TAR_TIMEOUT "10m"               /* each tar in the sandbox */
#define LINE_CAP 65536                  /* a line of tar's listing, at most */
#define NOTE_CAP 1500                   /* tar's messages kept for the model */
#define NAMES_CAP 600                   /* names listed for the model, at most */
#define EXCLUDE_MAX 1000                /* special files left out, at most */
#define EXCLUDE_MAX_S "1000"
#define EXCLUDE_AT "/run/sr/exclude"    /* the list of them, in the sandbox */

/* argv for `sr-limit LIMITS sr-jail BIND sr-exec tar ARGS...` in v: the
 * memory of a run, --fsize when given, 64 processes, a wall clock; the
 * workspace bound at /workspace as bind says ("--bind", "--ro-bind", or
 * NULL for none). chain_add appends tar's arguments. */
struct chain {
	char *v[48];
	int n;
	char mem[32], fsize[32], ws[4200], quota[32], inodes[32], cache[4400];
};

struct lines {
	char *buf;
	size_t len;
	int too_long;          /* a line over LINE_CAP was cut */
	/* a line, NUL-terminated; -1 stops the child */
	int (*fn)(struct lines *l, char *line, size_t len);
	void *ctx;
};

/* tar's messages ("tar: ..."), the first NOTE_CAP bytes of them. */
struct note {
	char text[NOTE_CAP + 1];
	size_t len;
};

/* One line of `tar -tv` (or -cvv) --numeric-owner --quoting-style=c:
 *   -rw-r--r-- 0/0   6 2024-01-01 00:00 "name"
 *   lrwxrwxrwx 0/0   0 2024-01-01 00:00 "name" -> "target"
 *   hrw-r--r-- 0/0   0 2024-01-01 00:00 "name" link to "target"  */
struct member {
	char type;                 /* the mode's first letter: - d l h p c b ... */
	int setid;                 /* a set-user-ID, set-group-ID or sticky bit */
	unsigned long long size;   /* "1,3" of a device: 1 */
	char *name, *name_end;     /* the quotes around the name */
	char *to, *to_end;         /* around a hard link's target, or NULL */
};

/* What export and import leave out (fifos, devices, sockets, and hard
 * links to them: tar -X takes their names) and what they change (set-ID
 * and sticky bits, dropped): the names, for the model. */
struct members {
	char *excl;                /* names to leave out, one a line */
	size_t excl_len, nexcl, nchanged;
	size_t nskip;              /* left out by tar itself (sockets) */
	int unnameable;            /* one of them has a newline in its name */
	char left_out[NAMES_CAP], changed[NAMES_CAP];
	char path[4200];           /* the list, written for tar (members_file) */
};

/* The sandbox around tar: its argv started (bind: "--bind", "--ro-bind"
 * or NULL; excl: the names to leave out, or NULL), and tar's arguments. */
void chain_start(struct chain *c, const char *bind, const char *ws_id, uint64_t fsize,
		 const char *excl);
void chain_add(struct chain *c, const char *arg);

/* tar's output: spawn_io's sink, a line at a time to l->fn; the last
 * line; tar's messages kept for the model. */
int lines_sink(void *ctx, const char *p, size_t n);
int lines_end(struct lines *l);
void note_add(struct note *n, const char *line);

/* The members: a quoted name's end; a line of tar's listing parsed (0,
 * or -1); a name added to a list for the model; a member seen (1 left
 * out, 0 kept, -1 too many to leave out); the file of names to leave out
 * for tar -X; tar's arguments that leave them out; the report. */
char *quoted_end(char *p);
int member_parse(char *line, struct member *m);
void names_add(char *list, const char *q, const char *e);
int members_see(struct members *s, const struct member *m);
const char *members_file(struct members *s, int *failed);
void members_free(struct members *s);
void members_args(struct chain *c, const struct members *s);
void members_report(const struct members *s, struct cJSON *res, char *buf, size_t len);

/* The host directories: none allowed (answered, 1) or 0; p beneath dir
 * (a string prefix that only picks which directory; the kernel judges
 * the rest): the remainder, or NULL. */
int no_host_dirs(struct proto_req *r, const char *tool);
const char *host_under(const char *p, const char *dir);

/* import_files' host_path: found by the kernel beneath an allowed
 * directory with no link followed, opened (0, or -1 with why in err);
 * closed; its last name (dest's default). */
struct host {
	int dfd;               /* the allowed directory */
	int fd;                /* host_path, open for reading */
	struct stat st;
	const char *rel;       /* host_path beneath it */
	char dir[PATH_MAX];    /* the allowed directory as configured */
};

int host_open(const char *hp, struct host *h, char *err, size_t len);
void host_close(struct host *h);
void host_base_name(const struct host *h, char *buf, size_t len);

#endif
