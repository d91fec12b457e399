/* oci.h - environments from OCI images (part of the tools layer):
 * --environment NAME=oci:PATH[:REF], unpacked once into the state
 * directory by scripts/oci-unpack run in the sandbox chain.
 *
 *   oci.c      oci_prepare: the cache, the unpack, the image's config
 */
#ifndef SR_MCP_OCI_H
#define SR_MCP_OCI_H

struct cJSON;

struct oci_image {
	char *root;              /* the unpacked root, resolved */
	char *jail;              /* "SR_IMAGE_JAIL=..." for the runner (jobs.c) */
	struct cJSON *facts;     /* for sandbox_info: ref, digest, env, ... */
};

/* spec is what follows "oci:"; what names the option in messages. At
 * start, after the state directory is known: fatal on every failure
 * (100 for the image, 111 for the system), one line. */
void oci_prepare(const char *what, const char *spec, struct oci_image *im);

#endif
