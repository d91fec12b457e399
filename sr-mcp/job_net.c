/* job_net.c - a run's network under --network allow, after the run: the
 * records of sr-net, the proxy beside it (STATE/made/ID.net; jobs.c names
 * them in SR_NET_ARGS), read into the result: how many connections, and each
 * refused one with sr-net's reason and what the model can do about it.
 * The records are written by the proxy, outside the jail: the run's code
 * cannot write them. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "sr.h"

#define NET_RECORDS_MAX (1 << 20)       /* the records read, at most */
#define NET_DENIED_SHOWN 10

/* One refused connection into denied (at most NET_DENIED_SHOWN), and
 * its "HOST:PORT (WHY)" onto the note. */
static void denied_add(cJSON *denied, const cJSON *r, char *note, size_t len)
{
	const cJSON *h = cJSON_GetObjectItem(r, "host"), *p = cJSON_GetObjectItem(r, "port"),
		    *w = cJSON_GetObjectItem(r, "why");
	if (cJSON_GetArraySize(denied) >= NET_DENIED_SHOWN)
		return;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "host", cJSON_IsString(h) ? h->valuestring : "");
	cJSON_AddNumberToObject(o, "port", cJSON_IsNumber(p) ? p->valuedouble : 0);
	cJSON_AddStringToObject(o, "why", cJSON_IsString(w) ? w->valuestring : "");
	cJSON_AddItemToArray(denied, o);
	size_t at = strlen(note);
	snprintf(note + at, len - at, "%s%s:%d (%s)", cJSON_GetArraySize(denied) > 1 ? "; " : "",
		 cJSON_IsString(h) && h->valuestring[0] ? h->valuestring : "a malformed request",
		 cJSON_IsNumber(p) ? p->valueint : 0, cJSON_IsString(w) ? w->valuestring : "");
}

/* The records of job id from byte from to byte to (a session's call: what
 * the interpreter's proxy recorded during the call), at most
 * NET_RECORDS_MAX of them; NULL if there are none. */
static char *records(const char *id, uint64_t from, uint64_t to, size_t *len)
{
	char path[4200];
	if (!job_made_dir() || !job_id_ok(id) || to <= from)
		return NULL;
	snprintf(path, sizeof path, "%s/%s.net", job_made_dir(), id);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t want = to - from > NET_RECORDS_MAX ? NET_RECORDS_MAX : (size_t)(to - from);
	char *buf = malloc(want + 1);
	ssize_t n = buf ? pread(fd, buf, want, (off_t)from) : -1;
	close(fd);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

void job_net(cJSON *res, const char *id)
{
	job_net_range(res, id, 0, UINT64_MAX);
}

void job_net_range(cJSON *res, const char *id, uint64_t from, uint64_t to)
{
	char note[2048] = "";
	size_t len = 0;
	char *buf = records(id, from, to, &len);
	if (!buf)
		return;
	cJSON *net = cJSON_AddObjectToObject(res, "network");
	cJSON *denied = cJSON_CreateArray();
	unsigned all = 0, refused = 0;
	for (char *l = buf, *e; l < buf + len; l = e + 1) {
		e = memchr(l, '\n', (size_t)(buf + len - l));
		if (!e)
			break;
		cJSON *r = cJSON_ParseWithLength(l, (size_t)(e - l));
		const cJSON *d = cJSON_GetObjectItem(r, "decision");
		all += r != NULL;
		if (cJSON_IsString(d) && strcmp(d->valuestring, "allowed") != 0) {
			refused++;
			denied_add(denied, r, note, sizeof note);
		}
		cJSON_Delete(r);
	}
	free(buf);
	cJSON_AddNumberToObject(net, "connections", all);
	cJSON_AddNumberToObject(net, "refused", refused);
	cJSON_AddItemToObject(net, "denied", denied);
	if (refused) {
		char text[2600];
		snprintf(text, sizeof text, "The sandbox's network refused %u connection%s: %s. Runs "
			 "reach only the hosts this server allows (sandbox_info's network_allow). If "
			 "the task needs another host, do not retry: tell the user, who can allow it "
			 "(sr-mcp --net-allow HOST).", refused, refused == 1 ? "" : "s", note);
		cJSON_AddStringToObject(res, "network_note", text);
	}
}
