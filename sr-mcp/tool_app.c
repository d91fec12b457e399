/* tool_app.c - sr-mcp's MCP App (SEP-1865): ui://sr/run.html, one
 * self-contained HTML page (sr-mcp/app/run.html, compiled in) that a host
 * which shows apps renders beside a run_code or job_status result. It
 * follows the run through the host's tools/call bridge (job_status with
 * stdout_offset, cancel_job, run_code, list_files, read_file): sr-mcp
 * serves it nothing else. Offered only to a client that declares the
 * extension (proto_req.ui, proto_ui.c): the resource in resources/list
 * and resources/read, the tools' _meta.ui.resourceUri in tools/list. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "proto.h"
#include "tool.h"
#include "sr.h"

static const unsigned char app_html[] = {
#include "app_html.inc"
};

/* A tool whose result the view shows: its schema links the view. The
 * older flat key ui/resourceUri is there too, for hosts that read only it. */
int tool_app_link(cJSON *t)
{
	cJSON *meta = cJSON_GetObjectItem(t, "_meta");
	if (!meta)
		meta = cJSON_AddObjectToObject(t, "_meta");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "ui"), "resourceUri", TOOL_APP_URI);
	cJSON_AddStringToObject(meta, "ui/resourceUri", TOOL_APP_URI);
	return 1;
}

/* tools/list for a client that shows no apps: the links taken out. */
void tool_app_unlink(cJSON *tools)
{
	cJSON *t;
	cJSON_ArrayForEach(t, tools) {
		cJSON *meta = cJSON_GetObjectItem(t, "_meta");
		cJSON_DeleteItemFromObject(meta, "ui");
		cJSON_DeleteItemFromObject(meta, "ui/resourceUri");
		if (meta && !meta->child)
			cJSON_DeleteItemFromObject(t, "_meta");
	}
}

static void add_ui_meta(cJSON *o)
{
	cJSON *ui = cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "_meta"), "ui");
	cJSON_AddObjectToObject(ui, "csp");        /* it reaches nothing: the host's bridge only */
	cJSON_AddTrueToObject(ui, "prefersBorder");
}

/* resources/list's entry for the view. */
cJSON *tool_app_resource(void)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "uri", TOOL_APP_URI);
	cJSON_AddStringToObject(o, "name", "sr-run");
	cJSON_AddStringToObject(o, "title", "sr: a run, live");
	cJSON_AddStringToObject(o, "description", "The MCP App of run_code and job_status: the "
				"code, its status, times and limits, stdout and stderr as they grow, "
				"its images and the workspace's files; Cancel and Run again.");
	cJSON_AddStringToObject(o, "mimeType", PROTO_UI_MIME);
	cJSON_AddNumberToObject(o, "size", (double)(sizeof app_html - 1));
	add_ui_meta(o);
	return o;
}

/* resources/read of a ui:// uri: the view, to a client that declared the
 * extension; for any other, not found, saying why. */
void tool_app_read(struct proto_req *r, const char *uri)
{
	if (strcmp(uri, TOOL_APP_URI) || !r->ui) {
		char msg[400];
		cJSON *data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "uri", uri);
		snprintf(msg, sizeof msg, "Resource not found: %s", strcmp(uri, TOOL_APP_URI) ?
			 "the only ui:// resource sr-mcp has is " TOOL_APP_URI :
			 TOOL_APP_URI " is served to clients that declare the MCP Apps extension ("
			 PROTO_UI_EXT ", mimeTypes [\"" PROTO_UI_MIME "\"]) in their capabilities");
		proto_error(r, r->era == PROTO_MODERN ? -32602 : -32002, msg, data);
		return;
	}
	cJSON *item = cJSON_CreateObject(), *res = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "uri", TOOL_APP_URI);
	cJSON_AddStringToObject(item, "mimeType", PROTO_UI_MIME);
	cJSON_AddStringToObject(item, "text", (const char *)app_html);
	add_ui_meta(item);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "contents"), item);
	if (r->era == PROTO_MODERN) {
		cJSON_AddNumberToObject(res, "ttlMs", 0);
		cJSON_AddStringToObject(res, "cacheScope", "private");
	}
	proto_result(r, res);
}
