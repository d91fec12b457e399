/* proto.c - JSON-RPC 2.0 over stdio, and the two generations of MCP.
 *
 * Legacy (2024-11-05 to 2025-11-25): an initialize handshake negotiates
 * the version for the connection. Modern (2026-07-28): no handshake; each
 * request names its version and the client's capabilities in _meta, and
 * server/discover says what the server speaks. A request with a version
 * in its _meta is served in that version's terms; one without, in the
 * terms of the initialize handshake (2025-11-25 if there was none).
 *
 * Every message is one line on stdout, written whole under a lock, valid
 * UTF-8 whatever a request carried: requests are served concurrently (a
 * tools/call waits on its own thread, a batch's calls too), so a ping or a
 * cancel is served while a run is going on; the reader never waits. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "text.h"
#include "sr.h"

#define MODERN "2026-07-28"
static const char *const legacy_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};
#define NLEGACY (sizeof legacy_versions / sizeof *legacy_versions)

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static char negotiated[16] = "";         /* by initialize */
static char client_name[65] = "default"; /* tenant, from clientInfo */
static int client_ui;                    /* initialize declared MCP Apps */
static struct proto_req *inflight[MCP_MAX_INFLIGHT];
static int cancelling;                   /* threads killing a cancelled call's job */

/* A batch being answered: its requests are served like single ones, and
 * their answers gather in out, written as one array when the last of them
 * has ended. refs: its requests not ended yet, plus one for the reader
 * while it is still going through the batch. */
struct proto_batch {
	cJSON *out;
	int refs;
	struct proto_batch *prev, *next;   /* the batches in flight, for proto_flush */
};
static pthread_mutex_t batch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct proto_batch *batches;
static const struct proto_server *server;  /* the layer above: proto_serve */

void proto_serve(const struct proto_server *s)
{
	server = s;
}

const struct proto_server *proto_server(void)
{
	return server;
}

static void write_line(cJSON *msg)
{
	char *s = cJSON_PrintUnformatted(msg);
	size_t n = s ? strlen(s) : 0;
	if (s)
		s = text_utf8(s, &n);
	if (!s) {
		mcp_log("out of memory writing a message");
		return;
	}
	s[n] = '\n';   /* the NUL there: replaced, the buffer not grown */
	pthread_mutex_lock(&out_lock);
	if (sr_write_all(1, s, n + 1) < 0)
		mcp_log("unable to write to stdout: %s", strerror(errno));
	pthread_mutex_unlock(&out_lock);
	free(s);
}

static void send_msg(struct proto_batch *b, cJSON *msg)
{
	if (b) {
		pthread_mutex_lock(&batch_lock);
		cJSON_AddItemToArray(b->out, msg);
		pthread_mutex_unlock(&batch_lock);
	} else {
		write_line(msg);
		cJSON_Delete(msg);
	}
}

static struct proto_batch *batch_new(void)
{
	struct proto_batch *b = calloc(1, sizeof *b);
	if (!b || !(b->out = cJSON_CreateArray())) {
		free(b);
		return NULL;
	}
	b->refs = 1;
	pthread_mutex_lock(&batch_lock);
	if ((b->next = batches))
		batches->prev = b;
	batches = b;
	pthread_mutex_unlock(&batch_lock);
	return b;
}

static void batch_get(struct proto_batch *b)
{
	pthread_mutex_lock(&batch_lock);
	b->refs++;
	pthread_mutex_unlock(&batch_lock);
}

/* One of its requests has ended (or the reader is through it): the last
 * one writes the answers, if there are any. */
static void batch_put(struct proto_batch *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&batch_lock);
	int last = --b->refs == 0;
	if (last) {
		if (b->prev)
			b->prev->next = b->next;
		else
			batches = b->next;
		if (b->next)
			b->next->prev = b->prev;
	}
	pthread_mutex_unlock(&batch_lock);
	if (!last)
		return;
	if (cJSON_GetArraySize(b->out) > 0)
		write_line(b->out);
	cJSON_Delete(b->out);
	free(b);
}

void proto_flush(void)
{
	pthread_mutex_lock(&batch_lock);
	for (struct proto_batch *b = batches; b; b = b->next) {
		if (cJSON_GetArraySize(b->out) == 0)
			continue;
		write_line(b->out);
		cJSON_Delete(b->out);
		b->out = cJSON_CreateArray();
	}
	pthread_mutex_unlock(&batch_lock);
}

static cJSON *envelope(const cJSON *id)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	return m;
}

static void error_to(struct proto_batch *b, const cJSON *id, int code, const char *msg,
		     cJSON *data)
{
	cJSON *m = envelope(id), *e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	if (data)
		cJSON_AddItemToObject(e, "data", data);
	cJSON_AddItemToObject(m, "error", e);
	send_msg(b, m);
}

/* Who answers, in both generations: initialize's serverInfo (legacy), the
 * _meta of every result (2026-07-28). */
static cJSON *server_info(void)
{
	cJSON *si = cJSON_CreateObject();
	cJSON_AddStringToObject(si, "name", MCP_NAME);
	cJSON_AddStringToObject(si, "title", "sr sandbox: run code in a rootless Linux sandbox");
	cJSON_AddStringToObject(si, "version", SR_VERSION);
	return si;
}

void proto_error(struct proto_req *r, int code, const char *msg, cJSON *data)
{
	if (r->cancelled || !r->id) {
		cJSON_Delete(data);
		return;
	}
	error_to(r->batch, r->id, code, msg, data);
}

void proto_result(struct proto_req *r, cJSON *result)
{
	if (r->cancelled || !r->id) {   /* a cancelled request gets no answer */
		cJSON_Delete(result);
		return;
	}
	if (r->era == PROTO_MODERN) {
		if (!cJSON_GetObjectItem(result, "resultType"))
			cJSON_AddStringToObject(result, "resultType", "complete");
		cJSON *meta = cJSON_AddObjectToObject(result, "_meta");
		cJSON_AddItemToObject(meta, "io.modelcontextprotocol/serverInfo", server_info());
	}
	cJSON *m = envelope(r->id);
	cJSON_AddItemToObject(m, "result", result);
	send_msg(r->batch, m);
}

void proto_progress(struct proto_req *r, double progress, const char *message)
{
	if (!r->progress || r->cancelled)
		return;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", "notifications/progress");
	cJSON *p = cJSON_AddObjectToObject(m, "params");
	cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(r->progress, 1));
	cJSON_AddNumberToObject(p, "progress", progress);
	if (message)
		cJSON_AddStringToObject(p, "message", message);
	write_line(m);    /* never part of a batch's answer */
	cJSON_Delete(m);
}

void proto_req_free(struct proto_req *r)
{
	if (!r)
		return;
	batch_put(r->batch);
	cJSON_Delete(r->id);
	cJSON_Delete(r->params);
	cJSON_Delete(r->progress);
	free(r->method);
	free(r);
}

/* fn(arg) on a detached thread of its own: 0, or -1 when none was made. */
static int run_detached(void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	pthread_t t;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256 * 1024);
	int rc = pthread_create(&t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return rc ? -1 : 0;
}

static void kill_job(const char *job)
{
	char err[256];
	if (job_cancel(job, err, sizeof err) < 0)
		mcp_log("cancel of job %s: %s", job, err);
}

/* sr-queue cancel waits for the job to end: never on the reader. */
static void *cancel_thread(void *arg)
{
	kill_job(arg);
	free(arg);
	pthread_mutex_lock(&state_lock);
	cancelling--;
	pthread_mutex_unlock(&state_lock);
	return NULL;
}

void proto_req_set_job(struct proto_req *r, const char *job_id)
{
	pthread_mutex_lock(&state_lock);
	snprintf(r->job_id, sizeof r->job_id, "%s", job_id);
	int late = r->cancelled && *job_id;   /* the cancel came before its job */
	pthread_mutex_unlock(&state_lock);
	if (late)
		kill_job(job_id);
}

void proto_inflight_add(struct proto_req *r)
{
	pthread_mutex_lock(&state_lock);
	for (size_t i = 0; i < MCP_MAX_INFLIGHT; i++)
		if (!inflight[i]) {
			inflight[i] = r;
			break;
		}
	pthread_mutex_unlock(&state_lock);
}

void proto_inflight_del(struct proto_req *r)
{
	pthread_mutex_lock(&state_lock);
	for (size_t i = 0; i < MCP_MAX_INFLIGHT; i++)
		if (inflight[i] == r)
			inflight[i] = NULL;
	pthread_mutex_unlock(&state_lock);
}

int proto_inflight_count(void)
{
	int n = 0;
	pthread_mutex_lock(&state_lock);
	for (size_t i = 0; i < MCP_MAX_INFLIGHT; i++)
		n += inflight[i] != NULL;
	pthread_mutex_unlock(&state_lock);
	return n;
}

static const char *legacy_known(const char *v)
{
	for (size_t i = 0; v && i < NLEGACY; i++)
		if (strcmp(v, legacy_versions[i]) == 0)
			return legacy_versions[i];
	return NULL;
}

static cJSON *supported_list(void)
{
	cJSON *a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, cJSON_CreateString(MODERN));
	for (size_t i = 0; i < NLEGACY; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(legacy_versions[i]));
	return a;
}

static cJSON *capabilities(enum proto_era era, int ui)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddItemToObject(cJSON_AddObjectToObject(c, "tools"), "listChanged",
			      cJSON_CreateFalse());
	cJSON_AddItemToObject(cJSON_AddObjectToObject(c, "resources"), "listChanged",
			      cJSON_CreateFalse());   /* resources.c */
	if (era == PROTO_LEGACY) {
		cJSON_AddObjectToObject(c, "logging");
		cJSON *t = cJSON_AddObjectToObject(c, "tasks");   /* 2025-11-25, experimental */
		cJSON_AddObjectToObject(t, "list");
		cJSON_AddObjectToObject(t, "cancel");
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(t,
			"requests"), "tools"), "call");
	} else {
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "extensions"),
					"io.modelcontextprotocol/tasks");
	}
	if (ui)
		proto_ui_offer(c);
	return c;
}

static void do_initialize(struct proto_req *r)
{
	const cJSON *v = cJSON_GetObjectItem(r->params, "protocolVersion");
	const char *ver = legacy_known(cJSON_IsString(v) ? v->valuestring : NULL);
	if (!ver)
		ver = legacy_versions[0];
	pthread_mutex_lock(&state_lock);
	snprintf(negotiated, sizeof negotiated, "%s", ver);
	proto_set_tenant(client_name, cJSON_GetObjectItem(r->params, "clientInfo"));
	client_ui = proto_ui_declared(cJSON_GetObjectItem(r->params, "capabilities"));
	pthread_mutex_unlock(&state_lock);
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "protocolVersion", ver);
	cJSON_AddItemToObject(res, "capabilities", capabilities(PROTO_LEGACY, client_ui));
	cJSON_AddItemToObject(res, "serverInfo", server_info());
	cJSON_AddStringToObject(res, "instructions", server->on_instructions());
	proto_result(r, res);
}

static void do_discover(struct proto_req *r)
{
	cJSON *res = cJSON_CreateObject();
	cJSON_AddItemToObject(res, "supportedVersions", supported_list());
	cJSON_AddItemToObject(res, "capabilities", capabilities(PROTO_MODERN, 1));
	cJSON_AddStringToObject(res, "instructions", server->on_instructions());
	cJSON_AddNumberToObject(res, "ttlMs", 0);
	cJSON_AddStringToObject(res, "cacheScope", "private");
	r->era = PROTO_MODERN;
	proto_result(r, res);
}

static void do_set_level(struct proto_req *r)
{
	static const char *const levels[] = { "debug", "info", "notice", "warning",
		"error", "critical", "alert", "emergency" };
	const cJSON *l = cJSON_GetObjectItem(r->params, "level");
	for (size_t i = 0; cJSON_IsString(l) && i < sizeof levels / sizeof *levels; i++)
		if (strcmp(l->valuestring, levels[i]) == 0) {
			proto_result(r, cJSON_CreateObject());
			return;
		}
	proto_error(r, -32602, "logging/setLevel: level must be one of debug, info, notice, "
		   "warning, error, critical, alert, emergency", NULL);
}

/* notifications/cancelled: the waiting call gets no answer, its job is
 * killed with every process of it (by proto_req_set_job when the job comes
 * after the cancel), once, on a thread of its own. */
static void do_cancelled(const cJSON *params)
{
	const cJSON *id = cJSON_GetObjectItem(params, "requestId");
	char jobs[MCP_MAX_INFLIGHT][33];
	size_t n = 0;
	if (!id)
		return;
	pthread_mutex_lock(&state_lock);
	for (size_t i = 0; i < MCP_MAX_INFLIGHT; i++) {
		struct proto_req *r = inflight[i];
		if (!r || !r->id || r->cancelled || !cJSON_Compare(r->id, id, 1))
			continue;
		r->cancelled = 1;
		if (r->job_id[0])
			memcpy(jobs[n++], r->job_id, sizeof *jobs);
	}
	cancelling += (int)n;
	pthread_mutex_unlock(&state_lock);
	for (size_t i = 0; i < n; i++) {
		char *job = xstrdup(jobs[i]);
		if (run_detached(cancel_thread, job) < 0)
			cancel_thread(job);
	}
}

static void *call_thread(void *arg)
{
	struct proto_req *r = arg;
	if (strncmp(r->method, "tasks/", 6) == 0)
		server->on_tasks(r);
	else if (strncmp(r->method, "resources/", 10) == 0)
		server->on_resources(r);
	else
		server->on_tools_call(r);
	/* answered: its batch's answers go out before the count drops (at
	 * the end of input, main waits for the count) */
	batch_put(r->batch);
	r->batch = NULL;
	proto_inflight_del(r);
	proto_req_free(r);
	return NULL;
}

/* A call that waits (a batch's too): on its own thread, registered. */
static void start_call(struct proto_req *r)
{
	if (proto_inflight_count() >= MCP_MAX_INFLIGHT) {
		char msg[200];
		snprintf(msg, sizeof msg, "sr-mcp is serving %d calls already: wait for one "
			 "to finish (job_status with wait_s) and call again", MCP_MAX_INFLIGHT);
		proto_error(r, -32603, msg, NULL);
		proto_req_free(r);
		return;
	}
	proto_inflight_add(r);
	if (run_detached(call_thread, r) < 0) {
		proto_inflight_del(r);
		proto_error(r, -32603, "unable to start a thread for the call", NULL);
		proto_req_free(r);
	}
}

int proto_pending(void)
{
	pthread_mutex_lock(&state_lock);
	int n = cancelling;
	pthread_mutex_unlock(&state_lock);
	return n + proto_inflight_count();
}

/* Which generation and version a request is in. 0, or -1 when its
 * version is one we do not speak (answered already). */
static int place(struct proto_req *r)
{
	const cJSON *meta = cJSON_GetObjectItem(r->params, "_meta");
	const cJSON *v = cJSON_GetObjectItem(meta, "io.modelcontextprotocol/protocolVersion");
	const cJSON *tok = cJSON_GetObjectItem(meta, "progressToken");
	if (cJSON_IsString(tok) || cJSON_IsNumber(tok))
		r->progress = cJSON_Duplicate(tok, 1);
	pthread_mutex_lock(&state_lock);
	snprintf(r->tenant, sizeof r->tenant, "%s", client_name);
	r->ui = client_ui;
	proto_set_tenant(r->tenant, NULL);
	snprintf(r->version, sizeof r->version, "%s", negotiated[0] ? negotiated :
		 legacy_versions[0]);
	pthread_mutex_unlock(&state_lock);
	if (!v)
		return 0;
	if (cJSON_IsString(v) && strcmp(v->valuestring, MODERN) == 0) {
		const cJSON *caps = cJSON_GetObjectItem(meta, "io.modelcontextprotocol/clientCapabilities");
		r->task_modern = cJSON_GetObjectItem(cJSON_GetObjectItem(caps, "extensions"),
						     "io.modelcontextprotocol/tasks") != NULL;
		r->ui = proto_ui_declared(caps);
		r->era = PROTO_MODERN;
		snprintf(r->version, sizeof r->version, "%s", MODERN);
		proto_set_tenant(r->tenant, cJSON_GetObjectItem(meta, "io.modelcontextprotocol/clientInfo"));
		return 0;
	}
	if (cJSON_IsString(v) && legacy_known(v->valuestring)) {
		snprintf(r->version, sizeof r->version, "%s", v->valuestring);
		return 0;
	}
	cJSON *data = cJSON_CreateObject();
	cJSON_AddItemToObject(data, "supported", supported_list());
	cJSON_AddStringToObject(data, "requested", cJSON_IsString(v) ? v->valuestring : "");
	r->era = PROTO_MODERN;
	proto_error(r, -32022, "Unsupported protocol version", data);
	return -1;
}

/* Methods 2026-07-28 removed, and what replaces each: asked for in that
 * version they are not found (the older versions still serve them). */
static const char *const removed_modern[][2] = {
	{ "initialize", "server/discover says what the server speaks; each request "
	  "carries its version and capabilities in _meta" },
	{ "ping", "any request, such as server/discover, shows the server is there" },
	{ "logging/setLevel", "a request's _meta io.modelcontextprotocol/logLevel sets the "
	  "level for that request" },
	{ "resources/subscribe", "subscriptions/listen replaced it; sr-mcp sends no "
	  "resource updates" },
	{ "resources/unsubscribe", "subscriptions/listen replaced it; sr-mcp sends no "
	  "resource updates" },
};

/* 1 when r asks, in 2026-07-28, for a method that version removed
 * (answered), else 0. */
static int removed(struct proto_req *r)
{
	for (size_t i = 0; r->era == PROTO_MODERN &&
	     i < sizeof removed_modern / sizeof *removed_modern; i++) {
		if (strcmp(r->method, removed_modern[i][0]))
			continue;
		char msg[300];
		snprintf(msg, sizeof msg, "Method not found: %s is not part of protocol version "
			 MODERN " (%s)", r->method, removed_modern[i][1]);
		proto_error(r, -32601, msg, NULL);
		return 1;
	}
	return 0;
}

/* A request names 2026-07-28 in its _meta (initialize is placed only then). */
static int names_modern(const cJSON *params)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(params, "_meta"),
					     "io.modelcontextprotocol/protocolVersion");
	return cJSON_IsString(v) && strcmp(v->valuestring, MODERN) == 0;
}

static void dispatch(struct proto_req *r)
{
	const char *m = r->method;
	if (strcmp(m, "notifications/cancelled") == 0)
		do_cancelled(r->params);
	if (!r->id) {            /* notifications get no answer */
		proto_req_free(r);
		return;
	}
	if (((strcmp(m, "initialize") != 0 || names_modern(r->params)) && place(r) < 0) ||
	    removed(r)) {     /* answered */
		proto_req_free(r);
		return;
	}
	if (strcmp(m, "tools/call") == 0 || (strncmp(m, "tasks/", 6) == 0 &&
	    strstr("tasks/get tasks/result tasks/list tasks/cancel tasks/update", m)) ||
	    (strncmp(m, "resources/", 10) == 0 &&
	     strstr("resources/list resources/read resources/templates/list", m))) {
		/* A task asked for in the 2025-11-25 way (params.task) */
		r->task_legacy = r->era == PROTO_LEGACY &&
				 cJSON_IsObject(cJSON_GetObjectItem(r->params, "task"));
		start_call(r);
		return;
	}
	if (strcmp(m, "initialize") == 0)
		do_initialize(r);
	else if (strcmp(m, "server/discover") == 0)
		do_discover(r);
	else if (strcmp(m, "ping") == 0)
		proto_result(r, cJSON_CreateObject());
	else if (strcmp(m, "logging/setLevel") == 0)
		do_set_level(r);
	else if (strcmp(m, "tools/list") == 0)
		proto_result(r, server->on_tools_list(r->era, r->ui));
	else {
		char msg[200];
		snprintf(msg, sizeof msg, "Method not found: %.120s", m);
		proto_error(r, -32601, msg, NULL);
	}
	proto_req_free(r);
}

/* One message of a line, or of batch b (NULL: none). */
static void message(struct proto_batch *b, const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItem(msg, "id");
	const cJSON *method = cJSON_GetObjectItem(msg, "method");
	const cJSON *params = cJSON_GetObjectItem(msg, "params");
	const cJSON *ver = cJSON_GetObjectItem(msg, "jsonrpc");
	int job_id_ok = !id || cJSON_IsString(id) || cJSON_IsNumber(id);
	if (!cJSON_IsObject(msg) || !cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") ||
	    !job_id_ok || (params && !cJSON_IsObject(params) && !cJSON_IsArray(params))) {
		error_to(b, job_id_ok ? id : NULL, -32600,
			 "Invalid Request: a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\" was expected",
			 NULL);
		return;
	}
	if (!cJSON_IsString(method)) {
		if (cJSON_GetObjectItem(msg, "result") || cJSON_GetObjectItem(msg, "error"))
			return;  /* a response: we send no requests, so it is ignored */
		error_to(b, id, -32600, "Invalid Request: no method", NULL);
		return;
	}
	struct proto_req *r = calloc(1, sizeof *r);
	if (!r) {
		error_to(b, id, -32603, "out of memory", NULL);
		return;
	}
	if ((r->batch = b))
		batch_get(b);    /* until proto_req_free */
	r->id = id ? cJSON_Duplicate(id, 1) : NULL;
	r->method = xstrdup(method->valuestring);
	r->params = params ? cJSON_Duplicate(params, 1) : cJSON_CreateObject();
	dispatch(r);
}

/* A batch: each request served as it would be alone (a call on its own
 * thread, so that the reader goes on), the answers as one array. */
static void serve_batch(const cJSON *arr)
{
	pthread_mutex_lock(&state_lock);
	int allowed = strcmp(negotiated, "2025-03-26") == 0;
	pthread_mutex_unlock(&state_lock);
	if (!allowed || cJSON_GetArraySize(arr) == 0) {
		error_to(NULL, NULL, -32600, allowed ? "Invalid Request: an empty batch"
			 : "Invalid Request: JSON-RPC batches exist only in protocol version "
			   "2025-03-26, which was not negotiated", NULL);
		return;
	}
	struct proto_batch *b = batch_new();
	if (!b) {
		error_to(NULL, NULL, -32603, "out of memory", NULL);
		return;
	}
	const cJSON *m;
	cJSON_ArrayForEach(m, arr)
		message(b, m);
	batch_put(b);
}

void proto_line(char *line, size_t len)
{
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	cJSON *msg = cJSON_ParseWithLength(line, len);
	if (!msg) {
		error_to(NULL, NULL, -32700, "Parse error: the line is not valid JSON", NULL);
		return;
	}
	if (cJSON_IsArray(msg))
		serve_batch(msg);
	else
		message(NULL, msg);
	cJSON_Delete(msg);
}

void proto_line_too_long(void)
{
	char msg[160];
	snprintf(msg, sizeof msg, "Invalid Request: the line is longer than %u bytes, "
		 "the most sr-mcp reads; it was discarded", MCP_LINE_MAX);
	error_to(NULL, NULL, -32600, msg, NULL);
}

static void wait_progress(void *ctx, double s, const char *msg)
{
	proto_progress(ctx, s, msg);
}

/* job_wait for a call: its cancel stops the wait, progress goes to it. */
cJSON *proto_job_wait(struct proto_req *r, const char *id, uint64_t ms, char *err,
		      size_t errlen)
{
	if (!r)
		return job_wait(NULL, id, ms, err, errlen);
	struct job_waiter w = { .cancelled = &r->cancelled, .progress = wait_progress, .ctx = r };
	return job_wait(&w, id, ms, err, errlen);
}
