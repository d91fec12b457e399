/* proto_client.c - what a client says of itself that sr-mcp keeps: its
 * name, made the tenant its jobs are queued under (or --tenant's, which an
 * HTTP front sets from the token and no client can change). */
#include <string.h>

#include <cjson/cJSON.h>

#include "proto.h"

const char *proto_tenant;

/* A tenant name for sr-queue: --tenant, else the client's name, made safe. */
void proto_set_tenant(char *dst, const cJSON *info)
{
	const cJSON *n = cJSON_GetObjectItem(info, "name");
	const char *s = proto_tenant ? proto_tenant : cJSON_IsString(n) ? n->valuestring : "";
	if (!*s)
		return;
	size_t i = 0;
	for (; *s && i < 64; s++)
		dst[i++] = (strchr("._-", *s) || (*s >= '0' && *s <= '9') ||
			    ((*s | 32) >= 'a' && (*s | 32) <= 'z')) ? *s : '_';
	dst[i] = '\0';
}
