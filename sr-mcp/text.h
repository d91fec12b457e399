/* text.h - the text layer (prefix text_): bytes made safe to hand a model,
 * a growing buffer, base64.
 *
 *   text.c   text_clean, struct text_buf, text_base64
 *   utf8.c   text_utf8: every line out made UTF-8
 */
#ifndef SR_MCP_TEXT_H
#define SR_MCP_TEXT_H

#include <stddef.h>

/* Appends to a growing buffer: p NUL-terminated once anything is put. */
struct text_buf {
	char *p;
	size_t len, cap;
};
void text_put(struct text_buf *b, const char *s, size_t n);
/* Make bytes safe to hand a model: invalid UTF-8 and NUL become U+FFFD,
 * terminal control characters a visible escape. Sets *replaced. */
char *text_clean(const char *s, size_t len, int *replaced);
char *text_base64(const unsigned char *p, size_t n);
/* s (n bytes, NUL-terminated) with each ill-formed UTF-8 sequence and
 * each raw control character (a JSON string holds none) made U+FFFD: s
 * itself when there is none, else a new string (s freed), or NULL; *n
 * its length. */
char *text_utf8(char *s, size_t *n);

#endif
