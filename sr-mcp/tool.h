/* tool.h - the tools layer (prefix tool_): the MCP tools, one file per
 * tool or close family, each tool a schema, sr-mcp/tools/NAME.json, and
 * a handler, tool_NAME: a row of the table in tools.c (TOOL_TABLE below);
 * tool_init hands the protocol its struct proto_server.
 *
 *   tools.c          the table: tools/list, tools/call dispatch, instructions
 *   tool_info.c      sandbox_info; --compat sandrun's names
 *   tool_run.c       run_code, job_status, job_logs, cancel_job, list_jobs
 *   tool_ws.c        list_workspaces, delete_workspace
 *   tool_session.c   session_info, restart_session, close_session
 *   tool_expose.c    expose_port: a session's published port, forwarded
 *   tool_write.c     write_file, edit_file, delete_path
 *   tool_files.c     list_files, read_file
 *   tool_packages.c  install_packages
 *   tool_export.c    export_workspace
 *   tool_recipe.c    what it writes beside the archive: a recipe, a Dockerfile
 *   tool_import.c    import_files
 *   tool_tar.c       what those two share: tar in the sandbox, the host
 *                    directories (tool_tar.h)
 *   tool_resources.c MCP resources: workspace files and job outputs
 *   tool_app.c       the MCP App (ui://sr/run.html, sr-mcp/app/run.html)
 *   tool_env.c       the environments a run may choose (--environment)
 *   oci.c            environments from OCI images (oci.h)
 *   tool_pkgspec.c   package specs the tools take (install, export recipe)
 *   tool_args.c      every call's arguments checked against its tool's
 *                    inputSchema, before the handler (tools.c calls it)
 *   tool_util.c      argument readers, answers, result sizes, what the file
 *                    tools share (the bottom: every tool file calls it)
 */
#ifndef SR_MCP_TOOL_H
#define SR_MCP_TOOL_H

#include <sys/types.h>
#include <time.h>

#include "mcp.h"
#include "proto.h"

struct cJSON;

/* tools.c: the table of tools */
void tool_init(void);
struct cJSON *tool_list(enum proto_era era, int ui);
void tool_call(struct proto_req *r);              /* on its own thread */
const char *tool_instructions(void);

/* A tool: its schema (sr-mcp/tools/NAME.json, compiled in) and its
 * handler tool_NAME, which answers its call. */
typedef void tool_fn(struct proto_req *r, const struct cJSON *args);

/* tool_run.c: run_code and its jobs; a run's result for the model */
int tool_run_code_settings(struct cJSON *t);
int tool_job_logs_settings(struct cJSON *t);
int tool_job_status_settings(struct cJSON *t);
struct cJSON *tool_run_result(const char *id, const char *ws, const struct cJSON *st,
			      uint64_t out_off, uint64_t err_off);

/* tool_ws.c: a result naming a scratch workspace (res's workspace_id)
 * says when it goes and how to keep it: workspace_scratch,
 * workspace_expires_at, workspace_note in res, the note after text (the
 * string returned; text is taken). st: its run's status (NULL: none),
 * whose end starts the clock. tool_ws_reply: tool_reply with the note. */
char *tool_ws_scratch(struct cJSON *res, const struct cJSON *st, char *text);
/* Workspace ws removed with its sessions (closed saying why), its size
 * cache and stamps: 0, or -1 (errno). */
int tool_ws_remove(const char *ws, const char *why);
/* keep_workspace false: res's workspace removed now, the result saying so
 * (workspace_removed, workspace_note, the note after text, taken). */
char *tool_ws_dropped(struct cJSON *res, char *text);
void tool_ws_reply(struct proto_req *r, struct cJSON *res, const char *text);

/* tool_files.c: a package or internal directory left out of a listing
 * (fs_hidden): {path, entries, counted_in_part} for name of dirfd. */
struct cJSON *tool_hidden_dir(int dirfd, const char *name, const char *path);

/* tool_app.c: the MCP App, for clients that declare it (proto_req.ui).
 * tool_app_link: a tool's schema links the view (a schema function, or
 * called by one); tool_app_unlink: tools/list for a client without it. */
#define TOOL_APP_URI "ui://sr/run.html"
int tool_app_link(struct cJSON *t);
void tool_app_unlink(struct cJSON *tools);
struct cJSON *tool_app_resource(void);
void tool_app_read(struct proto_req *r, const char *uri);

/* tool_recipe.c: text appended to *b (*len bytes so far, realloc'd);
 * beside an export's archive ARCHIVE (STEM.tar.gz) of
 * workspace ws (wfd), exported at when: the shell recipe's text, and the
 * Dockerfile's (FROM root's image, ROOT.sr-image.json's ref, or
 * debian:12; root NULL: the host's system). */
void tool_put(char **b, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
char *tool_recipe(int wfd, const char *ws, const char *archive, const char *when);
char *tool_dockerfile(int wfd, const char *ws, const char *stem, const char *root,
		      const char *when);

/* tool_env.c: the environments (default, and --environment NAME=DIR) */
struct run_spec;
void tool_env_add(const char *opt, const char *arg);
void tool_env_ready(void);      /* the oci: images unpacked, at start */
size_t tool_env_count(void);
/* The root of environment name (NULL or "default": the host's, NULL
 * returned); *known 0 when there is no such environment. */
const char *tool_env_root(const char *name, int *known);
void tool_env_schema(struct cJSON *props);
int tool_env_pick(struct proto_req *r, const struct cJSON *args, struct run_spec *s);
struct cJSON *tool_env_facts(void);
/* Can install_packages' apt install over root (NULL: the host's, no)? */
int tool_env_apt(const char *root);

/* tool_info.c: sandbox_info; --compat sandrun's names */
int tool_sandrun_exec_settings(struct cJSON *t);

/* tool_apt.c: install_packages' apt. The environment (args'
 * "environment", whose root has apt-get), sr-net's rules for its mirrors,
 * the workspace's layer made for it: 0, or -1 (answered). */
struct tool_apt {
	char env[33];
	char rootfs[4300], layer[4300];      /* SR_ROOTFS=DIR, SR_APT_LAYER=DIR */
	const char *extra[3];                /* both, for the installer */
	char rules[16 * 300];                /* " --allow HOST:PORT" each */
};
int tool_apt_prepare(struct proto_req *r, const struct cJSON *args, const char *ws,
		     struct tool_apt *a);
void tool_apt_reply(struct cJSON *res, const char *out, const char *ws, const char *env,
		    char *hint, size_t len);
void tool_apt_failure(const char *f, const char *what, char *buf, size_t len);


/* tool_packages.c */
int tool_install_packages_settings(struct cJSON *t);
int tool_export_workspace_settings(struct cJSON *t);

/* tool_resources.c */
void tool_res_call(struct proto_req *r);              /* resources/...: on its own thread */
char *tool_res_uri(const char *ws, const char *path);  /* a workspace file's uri */
const char *tool_res_mime(const char *path);           /* by its name, or NULL */

/* The tools, in the order tools/list gives them: TOOL_TABLE, made by
 * scripts/tools.sh from sr-mcp/tools/NAME.json and its "x-sr" (position;
 * compat sandrun: offered with --compat sandrun only; settings: one of the
 * functions above, which changes the entry by the settings, or returns 0
 * to leave it out of the list), a row TOOL(NAME, sandrun, settings) each,
 * whose handler is tool_NAME. tools.c builds its table from it. */
#include "tool_table.inc"
#define TOOL_DECLARE(name, sandrun, settings) tool_fn tool_##name;
TOOL_TABLE(TOOL_DECLARE)

/* tool_args.c: ARGS (NULL: none) against SCHEMA, TOOL's inputSchema: 0,
 * or -1 with every problem found, in msg. A property a schema function
 * marks TOOL_UNLISTED (true) is checked and taken, but left out of
 * tools/list (an argument kept for old callers). */
#define TOOL_UNLISTED "x-sr-unlisted"
int tool_args_check(const char *tool, const struct cJSON *schema, const struct cJSON *args,
		    char *msg, size_t len);

/* tool_util.c: answers of a tool: a result (takes res), an isError result
 * with text only, a bad argument (an isError result too, as the spec has
 * input validation errors since 2025-11-25; -32602 for a call that asked
 * for a task). Argument readers: 1 found and good, 0 absent, -1 wrong
 * (answered already). */
struct cJSON *tool_result(struct cJSON *res, const char *text, int is_error);
void tool_reply(struct proto_req *r, struct cJSON *res, const char *text, int is_error);
void tool_error(struct proto_req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tool_bad_args(struct proto_req *r, const char *tool, const char *what);
int tool_arg_str(struct proto_req *r, const char *tool, const struct cJSON *args,
		 const char *k, const char **out);
int tool_arg_num(struct proto_req *r, const char *tool, const struct cJSON *args,
		 const char *k, double min, double *out);
int tool_arg_bool(struct proto_req *r, const char *tool, const struct cJSON *args,
		  const char *k, int *out);
int tool_arg_ws(struct proto_req *r, const char *tool, const struct cJSON *args,
		const char **ws);
/* The last guard of the result cap: a result over it becomes a note
 * that says how to ask for less. An argument, or NULL (JSON null too). */
struct cJSON *tool_bounded(struct cJSON *out);
const struct cJSON *tool_arg(const struct cJSON *args, const char *k);
/* The result cap less room for the envelope (id, _meta); a result's
 * size as sent (tool_json_size), and a string's as a JSON string. */
#define TOOL_RESULT_BUDGET (MCP_RESULT_MAX - 16384)
size_t tool_json_size(const struct cJSON *v);
size_t tool_json_str_size(const char *s);
const char *tool_network_policy(void);       /* none, install, allow or full */
int tool_run_net(void);                      /* a run's network: JOB_NET_* */

/* tool_util.c, for the file tools: a time as ISO 8601 (UTC); text added
 * to a growing buffer *b; the file PATH of workspace WS opened (flags)
 * and fstat'ed, its path in the workspace in *rel, or -1 (answered); a
 * mode's type: file, dir, symlink or other. */
#define TOOL_FILE_MAX (10U << 20)                    /* read_file, edit_file: at most */
#define TOOL_LIST_BUDGET (TOOL_RESULT_BUDGET - 16384) /* list_files, list_workspaces: a page's bytes */
struct stat;
void tool_iso_time(time_t t, char *buf, size_t len);
void tool_append(char **b, size_t *len, size_t *cap, const char *s, size_t n);
void tool_text_add(char **b, size_t *len, size_t *cap, const char *s);
int tool_open_file(struct proto_req *r, const char *ws, const char *path, int flags,
		   struct stat *st, const char **rel);
const char *tool_type_of(mode_t m);

/* tool_pkgspec.c: is SPEC a package spec MANAGER ("pip", "npm") takes?
 * 1, or 0 with why. */
#define TOOL_SPEC_MAX 200       /* bytes in one spec */
int tool_package_spec_ok(const char *manager, const char *spec, char *why, size_t len);
/* The "dependencies" of the workspace's package.json (wfd; *found: the
 * file is there), as npm specs NAME@RANGE that tool_package_spec_ok takes,
 * in an array (an empty one when there are none); each one that is not
 * (a git URL, a path) is told to left_out with its name, if given. The
 * only reading of that file, for install_packages and the export recipe. */
struct cJSON *tool_npm_deps(int wfd, int *found, void (*left_out)(const char *name, void *ctx),
			    void *ctx);

#endif
