/* logs.c - `sr-queue logs`: a page of a job's stored stdout or stderr. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "spool.h"
#include "sr.h"

static const struct option logs_lo[] = {
	{ "stream", required_argument, NULL, SQ_Q_STREAM },
	{ "offset", required_argument, NULL, SQ_Q_OFFSET },
	{ "max-bytes", required_argument, NULL, SQ_Q_MAXB },
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned min;
	unsigned c = p[0];
	if (c < 0x80)
		return c ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, c &= 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/* Bytes at the end of buf that start a multi-byte character it cuts. */
static size_t cut_tail(const unsigned char *buf, size_t n)
{
	for (size_t k = 1; k <= 3 && k <= n; k++) {
		unsigned c = buf[n - k];
		if ((c & 0xc0) == 0x80)
			continue;
		size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return want > k ? k : 0;
	}
	return 0;
}

/* A JSON-safe copy: invalid bytes and NULs become U+FFFD. */
static char *to_utf8(const unsigned char *buf, size_t n)
{
	char *out = malloc(n * 3 + 1), *o = out;
	if (!out)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq(buf + i, n - i);
		if (l) {
			memcpy(o, buf + i, l);
			o += l;
			i += l;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	return out;
}

struct page {
	int fd;
	uint64_t size, offset, len;
};

static int copy_raw(const struct page *pg)
{
	char buf[65536];
	uint64_t off = pg->offset, left = pg->len;
	while (left) {
		ssize_t n = pread(pg->fd, buf, left < sizeof buf ? (size_t)left : sizeof buf,
				  (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (sr_write_all(1, buf, (size_t)n) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to write to stdout");
		off += (uint64_t)n;
		left -= (uint64_t)n;
	}
	return 0;
}

static unsigned char *read_page(struct page *pg)
{
	unsigned char *buf = malloc(pg->len + 1);
	if (!buf)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	uint64_t got = 0;
	while (got < pg->len) {
		ssize_t n = pread(pg->fd, buf + got, (size_t)(pg->len - got),
				  (off_t)(pg->offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	pg->len = got;
	return buf;
}

static int page_json(const char *id, const char *stream, const struct sq_jstat *js,
		     struct page *pg, const struct sq_loss *lost)
{
	unsigned char *buf = read_page(pg);
	if (pg->offset + pg->len < pg->size) {
		size_t cut = cut_tail(buf, (size_t)pg->len);
		if (cut < pg->len)
			pg->len -= cut;
	}
	char *data = to_utf8(buf, (size_t)pg->len);
	free(buf);
	char key[32];
	int finished = js->where == SQ_W_DONE || js->result;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "stream", stream);
	cJSON_AddStringToObject(o, "state", js->state);
	cJSON_AddNumberToObject(o, "offset", (double)pg->offset);
	cJSON_AddNumberToObject(o, "length", (double)pg->len);
	cJSON_AddNumberToObject(o, "next_offset", (double)(pg->offset + pg->len));
	cJSON_AddNumberToObject(o, "size", (double)pg->size);
	cJSON_AddBoolToObject(o, "eof", finished && pg->offset + pg->len >= pg->size);
	snprintf(key, sizeof key, "%s_total", stream);
	if (finished && sq_json_num(js->result, key, -1) >= 0) {
		long long total = sq_json_num(js->result, key, 0);
		cJSON_AddNumberToObject(o, "total", (double)total);
		cJSON_AddBoolToObject(o, "truncated", (uint64_t)total > pg->size);
	}
	if (lost) {
		cJSON *l = sq_losses_json(lost, 1);
		cJSON_AddItemToObject(o, "lost", cJSON_DetachItemFromArray(l, 0));
		cJSON_Delete(l);
	}
	cJSON_AddStringToObject(o, "data", data);
	free(data);
	int r = sq_print_json(o);
	cJSON_Delete(o);
	return r;
}

int sq_cmd_logs(int argc, char **argv)
{
	struct sq_qopts o = { .stream = "stdout" };
	char *ops[2];
	struct sq_spool sp;
	struct sq_jstat js;
	sq_query_args(argc, argv, logs_lo, &o, 1, ops, &sp);
	sq_resolve_or_exit(&sp, ops[1], &js);
	struct page pg = { .offset = o.offset };
	struct stat st;
	pg.fd = openat(js.fd, o.stream, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (pg.fd < 0 && errno != ENOENT)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the %s of job %s", o.stream, ops[1]);
	if (pg.fd >= 0 && fstat(pg.fd, &st) == 0)
		pg.size = (uint64_t)st.st_size;
	if (pg.offset < pg.size)
		pg.len = pg.size - pg.offset;
	if (o.has_max && pg.len > o.max_bytes)
		pg.len = o.max_bytes;
	/* At the end of what was kept, say what of the stream was not. */
	struct sq_loss lv[SQ_LOSS_MAX], *lost = NULL;
	long long size[2];
	sq_stream_sizes(js.fd, size);
	size[strcmp(o.stream, "stdout") != 0] = pg.fd < 0 ? -1 : (long long)pg.size;
	size_t nl = js.result && pg.offset + pg.len >= pg.size ?
		sq_result_losses(js.result, size, lv) : 0;
	for (size_t i = 0; i < nl; i++)
		if (!strcmp(lv[i].what, o.stream))
			lost = &lv[i];
	int r = o.json ? page_json(ops[1], o.stream, &js, &pg, lost) : copy_raw(&pg);
	if (pg.fd >= 0)
		close(pg.fd);
	if (lost && r == 0) {
		sr_warn("job %s: %s: %s", ops[1], sq_loss_label(lost), lost->text);
		if (lost->kind != SQ_LOSS_CAP)
			r = SQ_EXIT_OUTPUT_LOST;
	}
	sq_jstat_free(&js);
	sq_spool_close(&sp);
	return r;
}
