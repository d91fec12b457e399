/* record.c - one JSON line a connection, to --log or --log-fd, written
 * with one write(2) to a file opened for appending, so that lines of
 * connections served at once never interleave:
 *   {"host":"pypi.org","port":443,"via":"connect","decision":"allowed",
 *    "why":"allowed by --allow pypi.org","address":"151.101.0.223",
 *    "sent":517,"received":5310,"ms":212}
 * A denied connection's why says which rule, or which address class,
 * refused it; address is empty when none was reached. */
#include <stdlib.h>
#include <unistd.h>

#include "sr-net.h"
#include "sr.h"

void record_write(const struct net *n, const struct net_record *r)
{
	if (n->verbose)
		sr_note("%s %s:%u (%s): %s", r->allowed ? "allowed" : "denied", r->host,
			(unsigned)r->port, r->via, r->why);
	if (n->log_fd < 0)
		return;
	struct sr_jw w = { 0 };
	sr_jw_open(&w, NULL);
	sr_jw_str(&w, "host", r->host);
	sr_jw_num(&w, "port", r->port);
	sr_jw_str(&w, "via", r->via);
	sr_jw_str(&w, "decision", r->allowed ? "allowed" : "denied");
	sr_jw_str(&w, "why", r->why);
	sr_jw_str(&w, "address", r->address);
	sr_jw_num(&w, "sent", (double)r->sent);
	sr_jw_num(&w, "received", (double)r->received);
	sr_jw_num(&w, "ms", (double)((sr_now_ns() - r->start_ns) / 1000000));
	sr_jw_close(&w);
	size_t len;
	char *line = sr_jw_line(&w, &len);
	if (!line)
		return;
	if (write(n->log_fd, line, len) < 0)
		sr_warn_sys("cannot write the record of %s", r->host);
	free(line);
}
