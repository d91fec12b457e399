/* proto.h - the protocol layer (prefix proto_): JSON-RPC lines in and
 * out, both protocol generations (legacy and modern), batches, requests
 * in flight, cancellation, progress, MCP tasks. It knows no tool: the
 * tools layer hands it a struct proto_server (proto_serve) whose
 * functions it calls for tools/list, tools/call, resources/..., the
 * instructions and a task's result. It calls jobs to cancel, wait and
 * list.
 *
 *   proto.c        framing, dispatch, initialize, in flight, cancel,
 *                  progress, batches
 *   proto_tasks.c  tasks/get, result, list, cancel, update (a task is a
 *                  job); above proto.c, which reaches it through
 *                  proto_server.on_tasks
 *   proto_ui.c     the MCP Apps extension: declared by the client?
 */
#ifndef SR_MCP_PROTO_H
#define SR_MCP_PROTO_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;

enum proto_era { PROTO_LEGACY, PROTO_MODERN };
struct proto_batch;
struct proto_req {
	struct cJSON *id;       /* a copy; NULL for a notification */
	char *method;
	struct cJSON *params;   /* a copy, or NULL */
	enum proto_era era;
	char version[16];       /* the protocol version in force */
	struct cJSON *progress; /* params._meta.progressToken, a copy, or NULL */
	char tenant[65];
	volatile int cancelled; /* notifications/cancelled came for it */
	char job_id[33];        /* the job it waits for, once submitted */
	int task_legacy;        /* tools/call with params.task (2025-11-25) */
	int task_modern;        /* the client takes io.modelcontextprotocol/tasks */
	int ui;                 /* the client shows MCP Apps (io.modelcontextprotocol/ui) */
	struct proto_batch *batch; /* the batch it came in (its answer goes there), or NULL */
};

/* What the layer above serves; registered once, before the first line. */
struct proto_server {
	const char *(*on_instructions)(void);
	struct cJSON *(*on_tools_list)(enum proto_era era, int ui);   /* ui: proto_req.ui */
	void (*on_tools_call)(struct proto_req *r);    /* on its own thread */
	void (*on_resources)(struct proto_req *r);     /* on its own thread */
	void (*on_tasks)(struct proto_req *r);         /* proto_tasks_call: above proto.c */
	/* a finished run's result, as tools/call gave it (a task's result) */
	struct cJSON *(*on_task_result)(const char *id, const char *ws, const struct cJSON *st,
					uint64_t out_off, uint64_t err_off);
};
void proto_serve(const struct proto_server *s);
/* The MCP Apps extension and the one content type sr-mcp's views have. */
#define PROTO_UI_EXT "io.modelcontextprotocol/ui"
#define PROTO_UI_MIME "text/html;profile=mcp-app"
/* proto_ui.c: does a client's capabilities declare it; the server's
 * capabilities c made to offer it. */
int proto_ui_declared(const struct cJSON *caps);
void proto_ui_offer(struct cJSON *c);
extern const char *proto_tenant;   /* --tenant: every call's, whatever the client says */
/* proto_client.c: DST (65 bytes) made the tenant for clientInfo INFO
 * (or NULL): --tenant's, else INFO's name made safe; unchanged if empty. */
void proto_set_tenant(char *dst, const struct cJSON *info);
const struct proto_server *proto_server(void);   /* what proto_serve got */

void proto_line(char *line, size_t len);     /* one line from stdin */
void proto_line_too_long(void);
void proto_result(struct proto_req *r, struct cJSON *result);   /* takes result */
void proto_error(struct proto_req *r, int code, const char *msg, struct cJSON *data);
void proto_progress(struct proto_req *r, double progress, const char *message);
void proto_req_free(struct proto_req *r);
/* The job a call waits for ("" none): a cancel of the call kills it. */
void proto_req_set_job(struct proto_req *r, const char *job_id);
/* job_wait for call r (NULL: none): its cancel ends the wait, progress
 * notifications go to it. */
struct cJSON *proto_job_wait(struct proto_req *r, const char *id, uint64_t ms, char *err,
			     size_t errlen);
/* Requests that wait (tools/call): registered so that a cancel finds them. */
void proto_inflight_add(struct proto_req *r);
void proto_inflight_del(struct proto_req *r);
int proto_inflight_count(void);
/* At the end: calls and cancels not done yet; the answers of batches
 * still going written out (what is there). */
int proto_pending(void);
void proto_flush(void);

/* proto_tasks.c: a task is an sr-queue job; both flavours of MCP tasks. */
struct cJSON *proto_task_created(const struct proto_req *r, const char *id,
				 const struct cJSON *st);
void proto_tasks_call(struct proto_req *r);  /* tasks/get, result, list, cancel, update */

#endif
