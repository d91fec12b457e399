/* images.c - plots and pictures a run leaves behind, shown to the model.
 *
 * A run writes image files (PNG, JPEG, GIF, WebP) into /workspace/outputs
 * (the Python runner saves the matplotlib figures a program leaves open
 * there too). When the run is over, its result lists those modified at
 * or after the job started, in path order, at most IMAGES_SHOWN, and
 * carries each as an MCP image block after the text block, if it fits
 * the clients: its long edge at most EDGE_MAX pixels (read from the
 * file's header, no image library), the file at most IMAGES_MAX bytes,
 * and the whole result, base64 and all, under MCP_RESULT_MAX. An image
 * over a cap is named, with how to get it (read_file). structuredContent
 * lists them all and never carries base64.
 *
 * The outputs directory was written by the sandboxed code, so it is read
 * the way tool_files.c reads a workspace: the directory opened by openat2
 * beneath the workspace, no link followed (a link planted there is
 * skipped, never read through), entries looked at with fstatat
 * (AT_SYMLINK_NOFOLLOW), files opened O_NONBLOCK and checked with fstat
 * (a fifo neither blocks nor counts). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "images.h"
#include "mcp.h"
#include "text.h"
#include "ws.h"
#include "sr.h"

#define OUT_DIR "outputs"        /* beneath /workspace */
#define IMAGES_SHOWN 8           /* images listed in one result, at most */
#define EDGE_MAX 1568            /* px: the long edge Claude takes unscaled */
#define SCAN_MAX 5000            /* entries of outputs/ looked at, at most */
#define RESULT_SPARE 16384       /* room kept in a result for what is not counted */

struct image {
	char *path;              /* relative to /workspace */
	const char *mime;
	uint64_t size;
	long width, height;      /* -1: not read */
	unsigned char *data;     /* the file, when it may be shown */
	size_t len;
};

struct scan {
	int64_t since_ns;        /* the job's start */
	struct image found[IMAGES_SHOWN];
	size_t n, more, looked;
};

static unsigned be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static unsigned le16(const unsigned char *p) { return (unsigned)p[1] << 8 | p[0]; }
static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}
static unsigned long le24(const unsigned char *p)
{
	return (unsigned long)p[2] << 16 | (unsigned long)p[1] << 8 | p[0];
}

/* A JPEG's size: from its first start-of-frame segment. */
static int jpeg_size(const unsigned char *p, size_t n, long *w, long *h)
{
	size_t i = 2;
	while (i + 4 <= n) {
		if (p[i] != 0xff)
			return -1;
		unsigned m = p[i + 1];
		if (m == 0xff) {            /* fill byte */
			i++;
			continue;
		}
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd8)) {   /* no length */
			i += 2;
			continue;
		}
		if (m == 0xd9 || m == 0xda)  /* the end, or the data, before a frame */
			return -1;
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
			if (i + 9 > n)
				return -1;
			*h = (long)be16(p + i + 5);
			*w = (long)be16(p + i + 7);
			return 0;
		}
		i += 2 + be16(p + i + 2);
	}
	return -1;
}

/* Width and height from the header of an image of type mime: 0, or -1. */
static int image_size(const unsigned char *p, size_t n, const char *mime, long *w, long *h)
{
	*w = *h = -1;
	if (!strcmp(mime, "image/png")) {
		if (n < 24 || memcmp(p + 12, "IHDR", 4))
			return -1;
		*w = (long)be32(p + 16);
		*h = (long)be32(p + 20);
	} else if (!strcmp(mime, "image/gif")) {
		if (n < 10)
			return -1;
		*w = (long)le16(p + 6);
		*h = (long)le16(p + 8);
	} else if (!strcmp(mime, "image/webp")) {
		if (n < 30)
			return -1;
		if (!memcmp(p + 12, "VP8 ", 4) && !memcmp(p + 23, "\x9d\x01\x2a", 3)) {
			*w = (long)(le16(p + 26) & 0x3fff);
			*h = (long)(le16(p + 28) & 0x3fff);
		} else if (!memcmp(p + 12, "VP8L", 4) && p[20] == 0x2f) {
			unsigned long b = le24(p + 21) | (unsigned long)p[24] << 24;
			*w = (long)(b & 0x3fff) + 1;
			*h = (long)(b >> 14 & 0x3fff) + 1;
		} else if (!memcmp(p + 12, "VP8X", 4)) {
			*w = (long)le24(p + 24) + 1;
			*h = (long)le24(p + 27) + 1;
		} else {
			return -1;
		}
	} else if (!strcmp(mime, "image/jpeg")) {
		if (jpeg_size(p, n, w, h) < 0) {
			*w = *h = -1;
			return -1;
		}
	} else {
		return -1;
	}
	if (*w <= 0 || *h <= 0) {
		*w = *h = -1;
		return -1;
	}
	return 0;
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* One entry of outputs/: an image of this run is kept (its bytes too, up
 * to IMAGES_MAX, enough for any header), or counted past the first
 * IMAGES_SHOWN. Links, fifos and other non-files are skipped unopened. */
static void look(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		 const struct stat *st)
{
	struct scan *s = w->ctx;
	if (++s->looked >= SCAN_MAX)
		w->stop = 1;
	if (!S_ISREG(st->st_mode) || mtime_ns(st) < s->since_ns)
		return;
	char err[300];
	struct stat fst;
	int fd = fs_file_open(&(struct fs_at){ dirfd, name, rel }, O_RDONLY, &fst, err, sizeof err);
	if (fd < 0)
		return;
	if (mtime_ns(&fst) < s->since_ns) {    /* swapped since the fstatat */
		close(fd);
		return;
	}
	uint64_t size = (uint64_t)fst.st_size;
	size_t want = s->n < IMAGES_SHOWN ? (size < IMAGES_MAX ? (size_t)size : IMAGES_MAX) : 16;
	size_t got;
	unsigned char *p = (unsigned char *)fs_read_fd(fd, want, &got);
	close(fd);
	const char *mime = images_type(p, got);
	if (!mime || s->n == IMAGES_SHOWN) {
		s->more += mime != NULL;
		free(p);
		return;
	}
	struct image *im = &s->found[s->n++];
	char path[4400];
	int replaced = 0;
	snprintf(path, sizeof path, OUT_DIR "/%s", rel);
	im->path = text_clean(path, strlen(path), &replaced);  /* a name need not be UTF-8 */
	im->mime = mime;
	im->size = size;
	image_size(p, got, mime, &im->width, &im->height);
	im->data = p;
	im->len = got;
}

void images_outdir(const char *workspace)
{
	char err[300];
	int fd = ws_open(workspace, 0, err, sizeof err);
	if (fd < 0)
		return;
	/* mkdirat follows no link: one planted as outputs stays one */
	if (mkdirat(fd, OUT_DIR, 0700) < 0 && errno != EEXIST)
		mcp_log("unable to make %s in workspace %s: %s", OUT_DIR, workspace, strerror(errno));
	close(fd);
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Why the image cannot go in the result, or NULL when it can (room is
 * what the result has left for base64). */
static const char *not_shown(const struct image *im, size_t room, char *buf, size_t len)
{
	if (im->width < 0)
		return "its width and height could not be read from its header";
	if (im->width > EDGE_MAX || im->height > EDGE_MAX) {
		snprintf(buf, len, "%ldx%ld px is over the long-edge cap of %d px", im->width,
			 im->height, EDGE_MAX);
		return buf;
	}
	if (im->size > IMAGES_MAX) {
		snprintf(buf, len, "over the cap of %u KB for one image", IMAGES_MAX >> 10);
		return buf;
	}
	if ((im->len + 2) / 3 * 4 + 200 > room)
		return "no room left in this result (1 MiB in all, as base64, with the text)";
	return NULL;
}

/* An image's entry in the result's list: inlined unless no says why not. */
static cJSON *image_entry(const struct image *im, const char *no)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", im->path);
	cJSON_AddStringToObject(o, "type", im->mime);
	cJSON_AddNumberToObject(o, "size", (double)im->size);
	if (im->width < 0) {
		cJSON_AddNullToObject(o, "width");
		cJSON_AddNullToObject(o, "height");
	} else {
		cJSON_AddNumberToObject(o, "width", (double)im->width);
		cJSON_AddNumberToObject(o, "height", (double)im->height);
	}
	cJSON_AddBoolToObject(o, "inlined", !no);
	return o;
}

cJSON *images_collect(cJSON *res, const cJSON *st)
{
	const char *ws = str(res, "workspace_id"), *status = str(res, "status");
	const cJSON *t = cJSON_GetObjectItem(st, "started_ms");
	if (!cJSON_IsNumber(t))
		t = cJSON_GetObjectItem(st, "submitted_ms");
	if (!ws || !status || !strcmp(status, "queued") || !strcmp(status, "running") ||
	    !cJSON_IsNumber(t))
		return NULL;
	char err[300];
	int wfd = ws_open(ws, 0, err, sizeof err);
	if (wfd < 0)
		return NULL;
	int dfd = fs_openat2(wfd, OUT_DIR, O_RDONLY | O_DIRECTORY, 0);
	close(wfd);
	if (dfd < 0)
		return NULL;
	/* A file's time is the kernel's coarse clock, at most a tick behind the
	 * time a write happened: a file the run wrote is never older than
	 * its start, as the chain takes longer than a tick to start the
	 * program. And no file of an earlier run is newer. */
	struct scan s = { .since_ns = (int64_t)t->valuedouble * 1000000 };
	struct fs_walk w = { .fn = look, .recursive = 1, .skip_cut = 1, .ctx = &s };
	fs_walk(&w, dfd);
	if (!s.n && !s.more)
		return NULL;

	/* The text block repeats what structuredContent holds. */
	char *json = cJSON_PrintUnformatted(res);
	size_t used = 2 * strlen(json) + RESULT_SPARE;
	free(json);
	size_t room = MCP_RESULT_MAX > used ? MCP_RESULT_MAX - used : 0;
	cJSON *list = cJSON_AddArrayToObject(res, "images"), *blocks = cJSON_CreateArray();
	for (size_t i = 0; i < s.n; i++) {
		struct image *im = &s.found[i];
		char why[200];
		const char *no = not_shown(im, room, why, sizeof why);
		cJSON *o = image_entry(im, no);
		if (no) {
			cJSON_AddStringToObject(o, "note", no);
		} else {
			char *b64 = text_base64(im->data, im->len);
			cJSON *b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "image");
			cJSON_AddStringToObject(b, "data", b64);
			cJSON_AddStringToObject(b, "mimeType", im->mime);
			cJSON_AddItemToArray(blocks, b);
			room -= strlen(b64) + 200;
			free(b64);
		}
		cJSON_AddItemToArray(list, o);
		free(im->path);
		free(im->data);
	}
	if (s.more)
		cJSON_AddNumberToObject(res, "images_not_listed", (double)s.more);
	return blocks;
}

char *images_note(const cJSON *res)
{
	const cJSON *list = cJSON_GetObjectItem(res, "images"), *o;
	const cJSON *more = cJSON_GetObjectItem(res, "images_not_listed");
	if (!cJSON_IsArray(list))
		return NULL;
	size_t cap = 400, len = 0;
	cJSON_ArrayForEach(o, list)    /* a line names the path twice */
		cap += 2 * strlen(str(o, "path")) + 600;
	char *b = xmalloc(cap);
	len += (size_t)snprintf(b, cap, "--- images this run wrote to /workspace/" OUT_DIR
				" ---\n");
	cJSON_ArrayForEach(o, list) {
		const char *path = str(o, "path"), *note = str(o, "note");
		const cJSON *wd = cJSON_GetObjectItem(o, "width"), *ht = cJSON_GetObjectItem(o, "height");
		double size = cJSON_GetObjectItem(o, "size")->valuedouble;
		char dim[64] = "size unknown";
		if (cJSON_IsNumber(wd))
			snprintf(dim, sizeof dim, "%.0fx%.0f px", wd->valuedouble, ht->valuedouble);
		len += (size_t)snprintf(b + len, cap - len, "%s: %s, %s, %.0f bytes: ", path,
					str(o, "type"), dim, size);
		if (!note)
			len += (size_t)snprintf(b + len, cap - len, "shown below\n");
		else if (size <= IMAGES_MAX)
			len += (size_t)snprintf(b + len, cap - len, "not shown (%s); read_file with "
						"path \"%s\" fetches it\n", note, path);
		else
			len += (size_t)snprintf(b + len, cap - len, "not shown (%s), and over read_file's "
						"cap too: save it smaller (a lower dpi or size, or "
						"JPEG)\n", note);
	}
	if (cJSON_IsNumber(more))
		snprintf(b + len, cap - len, "[... %.0f more images in /workspace/" OUT_DIR
			 " not listed: at most %d in a result; list_files shows them ...]\n",
			 more->valuedouble, IMAGES_SHOWN);
	return b;
}

void images_attach(cJSON *result, cJSON *blocks)
{
	cJSON *content = cJSON_GetObjectItem(result, "content"), *b;
	if (!blocks)
		return;
	while ((b = cJSON_DetachItemFromArray(blocks, 0)))
		cJSON_AddItemToArray(content, b);
	cJSON_Delete(blocks);
}

const char *images_type(const unsigned char *p, size_t n)
{
	if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8))
		return "image/png";
	if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
		return "image/jpeg";
	if (n >= 6 && (!memcmp(p, "GIF87a", 6) || !memcmp(p, "GIF89a", 6)))
		return "image/gif";
	if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4))
		return "image/webp";
	return NULL;
}
