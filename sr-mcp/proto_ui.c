/* proto_ui.c - the MCP Apps extension (SEP-1865, io.modelcontextprotocol/ui)
 * in capabilities: a client that shows apps declares it (initialize's
 * capabilities in 2025-11-25 and before, each request's
 * _meta["io.modelcontextprotocol/clientCapabilities"] in 2026-07-28), and
 * only then does sr-mcp offer its view (tool_app.c): the ui:// resource and
 * the tools' _meta.ui. */
#include <string.h>

#include <cjson/cJSON.h>

#include "proto.h"

/* Named under "extensions" (SEP-1724), or under "experimental" by hosts
 * older than that field; its mimeTypes, when given, must list
 * text/html;profile=mcp-app, the only kind of view sr-mcp has. */
int proto_ui_declared(const cJSON *caps)
{
	const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(caps, "extensions"), PROTO_UI_EXT);
	if (!e)
		e = cJSON_GetObjectItem(cJSON_GetObjectItem(caps, "experimental"), PROTO_UI_EXT);
	if (!cJSON_IsObject(e))
		return 0;
	const cJSON *types = cJSON_GetObjectItem(e, "mimeTypes"), *t;
	if (!types)
		return 1;
	cJSON_ArrayForEach(t, types)
		if (cJSON_IsString(t) && !strcmp(t->valuestring, PROTO_UI_MIME))
			return 1;
	return 0;
}

/* The server's capabilities c say it serves the extension. */
void proto_ui_offer(cJSON *c)
{
	cJSON *e = cJSON_GetObjectItem(c, "extensions");
	if (!e)
		e = cJSON_AddObjectToObject(c, "extensions");
	cJSON_AddItemToObject(cJSON_AddObjectToObject(e, PROTO_UI_EXT), "mimeTypes",
			      cJSON_CreateStringArray((const char *[]){ PROTO_UI_MIME }, 1));
}
