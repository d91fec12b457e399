/* tool.h - the tools layer (prefix tool_): the MCP tools, each in its file
 * (or one file per close family), each a handler in the table of tools.c
 * (tool_call) and a schema in its list (tool_init); tool_init hands the
 * protocol its struct proto_server. Below it:
 * protocol, jobs, images, workspaces, fs, runners, spawn, text, util.
 *
 *   tools.c         the table: tools/list, tools/call dispatch, instructions;
 *                   run_code and the job_* tools, sandbox_info
 *   files.c         the workspace file tools
 *   tool_packages.c install_packages
 *   transfer.c      export_workspace, import_files
 *   tool_resources.c MCP resources: workspace files and job outputs
 *   tool_pkgspec.c  package specs the tools take (install, export recipe)
 *   tool_util.c     argument readers, answers, result sizes (the bottom:
 *                   every tool file calls it)
 */
#ifndef SR_MCP_TOOL_H
#define SR_MCP_TOOL_H

#include "proto.h"

struct cJSON;

/* tools.c */
void tool_init(void);
struct cJSON *tool_list(enum proto_era era);
void tool_call(struct proto_req *r);              /* on its own thread */
const char *tool_instructions(void);
struct cJSON *tool_run_result(const char *id, const char *ws, const struct cJSON *st,
			      uint64_t out_off, uint64_t err_off);

/* tool_util.c: answers of a tool: a result (takes res), an isError result
 * with text only, a bad argument (-32602). Argument readers: 1 found and
 * good, 0 absent, -1 wrong (answered already). */
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

/* tool_pkgspec.c: is SPEC a package spec MANAGER ("pip", "npm") takes?
 * 1, or 0 with why. */
#define TOOL_SPEC_MAX 200       /* bytes in one spec */
int tool_package_spec_ok(const char *manager, const char *spec, char *why, size_t len);

/* The tool files: each handler answers its call. */
void files_list_workspaces(struct proto_req *r, const struct cJSON *args);
void files_delete_workspace(struct proto_req *r, const struct cJSON *args);
void files_list(struct proto_req *r, const struct cJSON *args);
void files_read(struct proto_req *r, const struct cJSON *args);
void files_write(struct proto_req *r, const struct cJSON *args);
void files_edit(struct proto_req *r, const struct cJSON *args);
void files_delete_path(struct proto_req *r, const struct cJSON *args);
extern const char install_packages_def[];   /* its schema, for tools/list */
void install_packages(struct proto_req *r, const struct cJSON *args);
void transfer_export(struct proto_req *r, const struct cJSON *args);
void transfer_import(struct proto_req *r, const struct cJSON *args);
void resources_call(struct proto_req *r);             /* on its own thread */

#endif
