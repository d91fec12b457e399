/* images.h - the images layer (prefix images_): the images a run wrote to
 * /workspace/outputs, as image blocks after the result's text (sr-mcp(1),
 * IMAGES).
 *
 *   images.c  all of it
 */
#ifndef SR_MCP_IMAGES_H
#define SR_MCP_IMAGES_H

#include <stddef.h>

struct cJSON;

#define IMAGES_MAX (700U << 10)  /* an image block, at most (base64 grows it 4/3) */

/* images_outdir makes the directory before a run; images_collect lists a
 * finished run's images in res (its structuredContent) and returns their
 * blocks, or NULL; images_note is their lines for the text block
 * (malloc'd, or NULL); images_attach appends the blocks to a result's
 * content (takes them); images_type is the MIME type of an image's
 * bytes, or NULL. */
void images_outdir(const char *workspace);
struct cJSON *images_collect(struct cJSON *res, const struct cJSON *status);
char *images_note(const struct cJSON *res);
void images_attach(struct cJSON *result, struct cJSON *blocks);
const char *images_type(const unsigned char *p, size_t n);

#endif
