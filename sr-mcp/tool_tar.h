/* tool_tar.h - what export_workspace (tool_export.c) and import_files
 * (tool_import.c) share, in tool_tar.c (prefix tool_tar_; its types
 * tar_, its constants TAR_): tar in the sandbox (struct tar_chain), its
 * output a line at a time (struct tar_lines, struct tar_note), the members
 * it lists (struct tar_member, struct tar_members), the host directories
 * (struct tar_host). */
#ifndef SR_MCP_TOOL_TAR_H
#define SR_MCP_TOOL_TAR_H

#include <limits.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/stat.h>

struct cJSON;
struct proto_req;

#define TAR_TIMEOUT "10m"               /* each tar in the sandbox */
#define TAR_LINE_CAP 65536                  /* a line of tar's listing, at most */
#define TAR_NOTE_CAP 1500                   /* tar's messages kept for the model */
#define TAR_NAMES_CAP 600                   /* names listed for the model, at most */
#define TAR_EXCLUDE_MAX 1000                /* special files left out, at most */
#define TAR_EXCLUDE_MAX_S "1000"
#define TAR_EXCLUDE_AT "/run/sr/exclude"    /* the list of them, in the sandbox */

/* argv for `sr-limit LIMITS sr-jail BIND sr-exec tar ARGS...` in v: the
 * memory of a run, --fsize when given, 64 processes, a wall clock; the
 * workspace bound at /workspace as bind says ("--bind", "--ro-bind", or
 * NULL for none). tool_tar_chain_add appends tar's arguments. */
struct tar_chain {
	char *v[48];
	int n;
	char mem[32], fsize[32], ws[4200], quota[32], inodes[32], cache[4400];
};

struct tar_lines {
	char *buf;
	size_t len;
	int too_long;          /* a line over TAR_LINE_CAP was cut */
	/* a line, NUL-terminated; -1 stops the child */
	int (*fn)(struct tar_lines *l, char *line, size_t len);
	void *ctx;
};

/* tar's messages ("tar: ..."), the first TAR_NOTE_CAP bytes of them. */
struct tar_note {
	char text[TAR_NOTE_CAP + 1];
	size_t len;
};

/* One line of `tar -tv` (or -cvv) --numeric-owner --quoting-style=c:
 *   -rw-r--r-- 0/0   6 2024-01-01 00:00 "name"
 *   lrwxrwxrwx 0/0   0 2024-01-01 00:00 "name" -> "target"
 *   hrw-r--r-- 0/0   0 2024-01-01 00:00 "name" link to "target"  */
struct tar_member {
	char type;                 /* the mode's first letter: - d l h p c b ... */
	int setid;                 /* a set-user-ID, set-group-ID or sticky bit */
	unsigned long long size;   /* "1,3" of a device: 1 */
	char *name, *name_end;     /* the quotes around the name */
	char *to, *to_end;         /* around a hard link's target, or NULL */
};

/* What export and import leave out (fifos, devices, sockets, and hard
 * links to them: tar -X takes their names) and what they change (set-ID
 * and sticky bits, dropped): the names, for the model. */
struct tar_members {
	char *excl;                /* names to leave out, one a line */
	size_t excl_len, nexcl, nchanged;
	size_t nskip;              /* left out by tar itself (sockets) */
	int unnameable;            /* one of them has a newline in its name */
	char left_out[TAR_NAMES_CAP], changed[TAR_NAMES_CAP];
	char path[4200];           /* the list, written for tar (tool_tar_members_file) */
};

/* The sandbox around tar: its argv started (bind: "--bind", "--ro-bind"
 * or NULL; excl: the names to leave out, or NULL), and tar's arguments. */
void tool_tar_chain_start(struct tar_chain *c, const char *bind, const char *ws_id, uint64_t fsize,
		 const char *excl);
void tool_tar_chain_add(struct tar_chain *c, const char *arg);

/* tar's output: spawn_io's sink, a line at a time to l->fn; the last
 * line; tar's messages kept for the model. */
int tool_tar_lines_sink(void *ctx, const char *p, size_t n);
int tool_tar_lines_end(struct tar_lines *l);
void tool_tar_note_add(struct tar_note *n, const char *line);

/* The members: a quoted name's end; a line of tar's listing parsed (0,
 * or -1); a name added to a list for the model; a member seen (1 left
 * out, 0 kept, -1 too many to leave out); the file of names to leave out
 * for tar -X; tar's arguments that leave them out; the report. */
char *tool_tar_quoted_end(char *p);
int tool_tar_member_parse(char *line, struct tar_member *m);
void tool_tar_names_add(char *list, const char *q, const char *e);
int tool_tar_members_see(struct tar_members *s, const struct tar_member *m);
const char *tool_tar_members_file(struct tar_members *s, int *failed);
void tool_tar_members_free(struct tar_members *s);
void tool_tar_members_args(struct tar_chain *c, const struct tar_members *s);
void tool_tar_members_report(const struct tar_members *s, struct cJSON *res, char *buf, size_t len);

/* The host directories: none allowed (answered, 1) or 0; p beneath dir
 * (a string prefix that only picks which directory; the kernel judges
 * the rest): the remainder, or NULL. */
int tool_tar_no_host_dirs(struct proto_req *r, const char *tool);
const char *tool_tar_host_under(const char *p, const char *dir);

/* import_files' host_path: found by the kernel beneath an allowed
 * directory with no link followed, opened (0, or -1 with why in err);
 * closed; its last name (dest's default). */
struct tar_host {
	int dfd;               /* the allowed directory */
	int fd;                /* host_path, open for reading */
	struct stat st;
	const char *rel;       /* host_path beneath it */
	char dir[PATH_MAX];    /* the allowed directory as configured */
};

int tool_tar_host_open(const char *hp, struct tar_host *h, char *err, size_t len);
void tool_tar_host_close(struct tar_host *h);
void tool_tar_host_base_name(const struct tar_host *h, char *buf, size_t len);

#endif
