/* tool.h - the tools layer (prefix tool_): the MCP tools, one file per
 * tool or close family, each tool one line of TOOL_TABLE below (its
 * schema and its handler), a row of the table in tools.c; tool_init
 * hands the protocol its struct proto_server. Below it:
 * protocol, jobs, images, workspaces, fs, runners, spawn, text, util.
 *
 *   tools.c          the table: tools/list, tools/call dispatch, instructions
 *   tool_info.c      sandbox_info; --compat sandrun's names
 *   tool_run.c       run_code, job_status, job_logs, cancel_job, list_jobs
 *   tool_ws.c        list_workspaces, delete_workspace
 *   tool_session.c   session_info, restart_session, close_session
 *   tool_write.c     write_file, edit_file, delete_path
 *   tool_files.c     list_files, read_file
 *   tool_packages.c  install_packages
 *   tool_export.c    export_workspace
 *   tool_import.c    import_files
 *   tool_tar.c       what those two share: tar in the sandbox, the host
 *                    directories (tool_tar.h)
 *   tool_resources.c MCP resources: workspace files and job outputs
 *   tool_app.c       the MCP App (ui://sr/run.html, sr-mcp/app/run.html)
 *   tool_env.c       the environments a run may choose (--environment)
 *   tool_pkgspec.c   package specs the tools take (install, export recipe)
 *   tool_args.c      every call's arguments checked against its tool's
 *                    inputSchema, before the handler (tools.c calls it)
 *   tool_util.c      argument readers, answers, result sizes, what the file
 *                    tools share (the bottom: every tool file calls it)
 */
#ifndef SR_MCP_TOOL_H
#define SR_MCP_TOOL_H

#include "proto.h"

struct cJSON;

/* tools.c: the table of tools */
void tool_init(void);
struct cJSON *tool_list(enum proto_era era, int ui);
void tool_call(struct proto_req *r);              /* on its own thread */
const char *tool_instructions(void);

/* A tool: its schema (const char NAME_def[], JSON) and its handler,
 * which answers its call. */
typedef void tool_fn(struct proto_req *r, const struct cJSON *args);

/* Pieces of the schemas: a run's result, a workspace and a path argument. */
#define RESULT_PROPS \
"\"job_id\":{\"type\":\"string\",\"description\":\"The job's id: pass it to job_status, job_logs, cancel_job.\"}," \
"\"workspace_id\":{\"type\":\"string\",\"description\":\"The workspace the run used: pass it to run_code to keep its files.\"}," \
"\"workspace_scratch\":{\"type\":\"boolean\",\"description\":\"The workspace is scratch (made without a workspace_id): removed soon after its last use unless a later call names it.\"}," \
"\"workspace_expires_at\":{\"type\":\"string\",\"description\":\"When the scratch workspace is removed if no call names it (ISO 8601, UTC; once the run is over).\"}," \
"\"workspace_note\":{\"type\":\"string\",\"description\":\"When the scratch workspace goes and how to keep it.\"}," \
"\"status\":{\"type\":\"string\",\"enum\":[\"queued\",\"running\",\"succeeded\",\"failed\",\"timed_out\",\"oom\",\"killed\",\"cancelled\",\"lost\",\"error\"]}," \
"\"reason\":{\"type\":\"string\",\"description\":\"How it ended: exit, signal, timeout, memory, cpu, pids, cancelled, lost, sandbox (the sandbox could not run it), or why it could not start.\"}," \
"\"exit_code\":{\"type\":[\"integer\",\"null\"]}," \
"\"signal\":{\"type\":[\"string\",\"null\"],\"description\":\"The signal that killed it, e.g. KILL.\"}," \
"\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"}," \
"\"stdout_bytes\":{\"type\":\"integer\"},\"stderr_bytes\":{\"type\":\"integer\"}," \
"\"stdout_dropped_bytes\":{\"type\":\"integer\",\"description\":\"Bytes of stdout kept but not in this result (job_logs reads them).\"}," \
"\"stderr_dropped_bytes\":{\"type\":\"integer\"}," \
"\"stdout_lost_bytes\":{\"type\":\"integer\",\"description\":\"Bytes the program wrote to stdout that were not kept (a full disk, the output cap): nothing reads them.\"}," \
"\"stderr_lost_bytes\":{\"type\":\"integer\"}," \
"\"lost\":{\"type\":\"string\",\"description\":\"What of the output, or of the report on the run, was not kept, and why.\"}," \
"\"stdout_offset\":{\"type\":\"integer\",\"description\":\"Pass back to job_status to get only newer output.\"}," \
"\"stderr_offset\":{\"type\":\"integer\"}," \
"\"invalid_utf8\":{\"type\":\"boolean\",\"description\":\"Some bytes were not UTF-8 and were replaced by U+FFFD.\"}," \
"\"images\":{\"type\":\"array\",\"description\":\"The images (PNG, JPEG, GIF, WebP) the run wrote to /workspace/outputs, at most 8: those inlined follow the text as image blocks; read_file fetches the others.\",\"items\":{\"type\":\"object\",\"properties\":{" \
"\"path\":{\"type\":\"string\",\"description\":\"Relative to /workspace.\"},\"type\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\"}," \
"\"width\":{\"type\":[\"integer\",\"null\"]},\"height\":{\"type\":[\"integer\",\"null\"]},\"inlined\":{\"type\":\"boolean\"}," \
"\"note\":{\"type\":\"string\",\"description\":\"Why it is not inlined.\"}},\"required\":[\"path\",\"type\",\"size\",\"width\",\"height\",\"inlined\"]}}," \
"\"images_not_listed\":{\"type\":\"integer\",\"description\":\"More images the run wrote than a result lists (list_files shows them).\"}," \
"\"files\":{\"type\":\"array\",\"description\":\"The files the run created or changed in /workspace (not node_modules, .sr, .git or caches), at most 20; each also follows the text as a resource_link.\",\"items\":{\"type\":\"object\",\"properties\":{" \
"\"path\":{\"type\":\"string\",\"description\":\"Relative to /workspace.\"},\"size\":{\"type\":\"integer\"},\"change\":{\"type\":\"string\",\"enum\":[\"created\",\"modified\"]}," \
"\"uri\":{\"type\":\"string\",\"description\":\"resources/read reads it.\"}},\"required\":[\"path\",\"size\",\"change\"]}}," \
"\"files_not_listed\":{\"type\":\"integer\",\"description\":\"More files the run made than files lists.\"}," \
"\"files_deleted\":{\"type\":\"integer\"},\"files_cut\":{\"type\":\"boolean\",\"description\":\"The workspace held too many files to compare them all.\"}," \
"\"wall_ms\":{\"type\":[\"number\",\"null\"]},\"cpu_ms\":{\"type\":[\"number\",\"null\"]}," \
"\"queued_ms\":{\"type\":\"number\",\"description\":\"How long the run waited in the queue before it started.\"}," \
"\"queued_reason\":{\"type\":\"string\",\"enum\":[\"slots\",\"budget\"],\"description\":\"Why it waited, when it was for others: every slot was busy, or this client was over its CPU budget while another client's runs waited.\"}," \
"\"queued_note\":{\"type\":\"string\",\"description\":\"The wait, in words.\"}," \
"\"peak_memory_bytes\":{\"type\":[\"number\",\"null\"]}," \
"\"memory_limit_bytes\":{\"type\":\"number\",\"description\":\"When the run ran out of memory (status oom): its memory limit; memory_mb asks for more, up to sandbox_info's cap.\"}," \
"\"limit_hit\":{\"type\":[\"string\",\"null\"],\"description\":\"The limit that stopped the run: timeout, memory, cpu or pids; disk when the workspace reached its quota.\"}," \
"\"quota_hit\":{\"type\":\"boolean\",\"description\":\"The workspace reached its size quota: writes past it failed (ENOSPC).\"}," \
"\"error\":{\"type\":\"string\"},\"hint\":{\"type\":\"string\",\"description\":\"What to do next.\"}"

#define RESULT_SCHEMA "{\"type\":\"object\",\"properties\":{" RESULT_PROPS "}," \
	"\"required\":[\"job_id\",\"status\",\"reason\",\"exit_code\",\"signal\",\"stdout\",\"stderr\"]}"

#define WS_ARG "\"workspace_id\":{\"type\":\"string\",\"description\":\"The workspace: a run_code result's workspace_id, or one list_workspaces shows.\"}"
#define PATH_ARG "\"path\":{\"type\":\"string\",\"description\":\"Relative to /workspace (\\\"/workspace/x\\\" is taken as \\\"x\\\"). No symbolic link is followed.\"}"

/* tool_run.c: run_code and its jobs; a run's result for the model */
int run_code_schema(struct cJSON *t);
int run_output_schema(struct cJSON *t);
int job_status_schema(struct cJSON *t);
struct cJSON *tool_run_result(const char *id, const char *ws, const struct cJSON *st,
			      uint64_t out_off, uint64_t err_off);

/* tool_ws.c: a result naming a scratch workspace (res's workspace_id)
 * says when it goes and how to keep it: workspace_scratch,
 * workspace_expires_at, workspace_note in res, the note after text (the
 * string returned; text is taken). st: its run's status (NULL: none),
 * whose end starts the clock. tool_ws_reply: tool_reply with the note. */
char *tool_ws_scratch(struct cJSON *res, const struct cJSON *st, char *text);
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

/* tool_env.c: the environments (default, and --environment NAME=DIR) */
struct run_spec;
void tool_env_add(const char *opt, const char *arg);
size_t tool_env_count(void);
void tool_env_schema(struct cJSON *props);
int tool_env_pick(struct proto_req *r, const struct cJSON *args, struct run_spec *s);
struct cJSON *tool_env_facts(void);

/* tool_info.c: sandbox_info; --compat sandrun's names */
int sandrun_exec_schema(struct cJSON *t);

/* tool_packages.c */
int install_packages_schema(struct cJSON *t);

/* tool_resources.c */
void resources_call(struct proto_req *r);             /* on its own thread */
char *tool_res_uri(const char *ws, const char *path);  /* a workspace file's uri */
const char *tool_res_mime(const char *path);           /* by its name, or NULL */

/* The tools, in the order tools/list gives them, one line each:
 * TOOL(NAME, handler, sandrun, schema): NAME_def, its schema (JSON, in
 * its file); sandrun: offered with --compat sandrun only; schema: what
 * the schema takes from the settings, 0 to leave it out of the list
 * (NULL: nothing). tools.c builds its table from this list. */
#define TOOL_TABLE(TOOL) \
	TOOL(run_code, run_code, 0, run_code_schema) \
	TOOL(job_status, job_status, 0, job_status_schema) \
	TOOL(job_logs, job_logs, 0, run_output_schema) \
	TOOL(cancel_job, cancel_job, 0, NULL) \
	TOOL(list_jobs, list_jobs, 0, NULL) \
	TOOL(sandbox_info, sandbox_info, 0, NULL) \
	TOOL(list_workspaces, files_list_workspaces, 0, NULL) \
	TOOL(delete_workspace, files_delete_workspace, 0, NULL) \
	TOOL(session_info, session_info, 0, NULL) \
	TOOL(restart_session, restart_session, 0, NULL) \
	TOOL(close_session, close_session, 0, NULL) \
	TOOL(list_files, files_list, 0, NULL) \
	TOOL(read_file, files_read, 0, NULL) \
	TOOL(write_file, files_write, 0, NULL) \
	TOOL(edit_file, files_edit, 0, NULL) \
	TOOL(delete_path, files_delete_path, 0, NULL) \
	TOOL(install_packages, install_packages, 0, install_packages_schema) \
	TOOL(export_workspace, transfer_export, 0, NULL) \
	TOOL(import_files, transfer_import, 0, NULL) \
	TOOL(execute_python, sandrun_exec, 1, sandrun_exec_schema) \
	TOOL(execute_javascript, sandrun_exec, 1, sandrun_exec_schema) \
	TOOL(execute_bash, sandrun_exec, 1, sandrun_exec_schema) \
	TOOL(check_job_status, sandrun_status, 1, NULL) \
	TOOL(get_job_logs, sandrun_status, 1, NULL)

/* Each tool's schema and handler, declared here for its file. */
#define TOOL_DECLARE(name, fn, sandrun, schema) extern const char name##_def[]; tool_fn fn;
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
const char *tool_network_policy(void);       /* none, install or full */

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
