/* ca.c - the per-run CA: an EC P-256 key made at start, in the proxy's
 * memory only, and its certificate, whose name constraints permit only
 * the secrets' hosts (a copy of it taken out of the jail could vouch for
 * no other name); each host's leaf, signed by it; and the bundle the
 * program trusts: the host's CA certificates with the per-run CA's
 * added. The certificate is public; the key is never written. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "ca.h"
#include "secret.h"
#include "sr-net.h"
#include "sr.h"

struct ca {
	EVP_PKEY *key;
	X509 *cert;
};

static void fail(const char *what)
{
	unsigned long e = ERR_get_error();
	sr_fatal(SR_EXIT_SYS, "the per-run CA: %s: %s", what,
		 e ? ERR_reason_error_string(e) : "failed");
}

static void ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v;
	X509V3_set_ctx(&v, issuer, cert, NULL, NULL, 0);
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &v, nid, value);
	if (!e || !X509_add_ext(cert, e, -1))
		fail("an extension");
	X509_EXTENSION_free(e);
}

/* A certificate for key named cn, valid from an hour ago for days. */
static X509 *cert_new(EVP_PKEY *key, const char *cn, int days)
{
	X509 *x = X509_new();
	unsigned char serial[16];
	BIGNUM *bn = NULL;
	if (!x || RAND_bytes(serial, sizeof serial) != 1)
		fail("a certificate");
	serial[0] &= 0x7f;
	bn = BN_bin2bn(serial, sizeof serial, NULL);
	X509_set_version(x, 2);
	if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)))
		fail("a serial number");
	BN_free(bn);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), (long)days * 86400);
	X509_set_pubkey(x, key);
	X509_NAME *name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0);
	return x;
}

struct ca *ca_make(const struct net_secrets *ss)
{
	struct ca *ca = calloc(1, sizeof *ca);
	if (!ca || !(ca->key = EVP_EC_gen("P-256")))
		fail("a key");
	ca->cert = cert_new(ca->key, "sr-net per-run CA", 30);
	X509_set_issuer_name(ca->cert, X509_get_subject_name(ca->cert));
	ext(ca->cert, ca->cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
	ext(ca->cert, ca->cert, NID_key_usage, "critical,keyCertSign,cRLSign");
	ext(ca->cert, ca->cert, NID_subject_key_identifier, "hash");
	size_t cap = 64;
	for (size_t i = 0; i < ss->n; i++)
		cap += strlen(ss->s[i].host) + 16;
	char *nc = malloc(cap);
	if (!nc)
		fail("memory");
	size_t len = (size_t)snprintf(nc, cap, "critical");
	for (size_t i = 0; i < ss->n; i++)
		len += (size_t)snprintf(nc + len, cap - len, ",permitted;DNS:%s", ss->s[i].host);
	ext(ca->cert, ca->cert, NID_name_constraints, nc);
	free(nc);
	if (!X509_sign(ca->cert, ca->key, EVP_sha256()))
		fail("signing its certificate");
	return ca;
}

/* The host's CA file, whole, then the per-run CA's certificate. */
void ca_bundle(const struct ca *ca, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "--ca-bundle: cannot write %s", path);
	const char *sys = getenv("SSL_CERT_FILE");
	int in = open(sys && *sys ? sys : X509_get_default_cert_file(), O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t r;
	while (in >= 0 && (r = read(in, buf, sizeof buf)) > 0)
		if (sr_write_all(fd, buf, (size_t)r) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "--ca-bundle: cannot write %s", path);
	if (in >= 0)
		close(in);
	BIO *b = BIO_new(BIO_s_mem());
	char *pem;
	if (!b || !PEM_write_bio_X509(b, ca->cert))
		fail("its certificate in PEM");
	long pl = BIO_get_mem_data(b, &pem);
	if (sr_write_all(fd, "\n", 1) < 0 || sr_write_all(fd, pem, (size_t)pl) < 0 || close(fd) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "--ca-bundle: cannot write %s", path);
	BIO_free(b);
}

/* A leaf for host: a key of its own, signed by the CA. */
static X509 *leaf(const struct ca *ca, const char *host, EVP_PKEY **key)
{
	if (!(*key = EVP_EC_gen("P-256")))
		return NULL;
	X509 *x = cert_new(*key, host, 7);
	char san[NET_HOST_MAX + 8];
	snprintf(san, sizeof san, "DNS:%s", host);
	X509_set_issuer_name(x, X509_get_subject_name(ca->cert));
	ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE");
	ext(x, ca->cert, NID_key_usage, "critical,digitalSignature");
	ext(x, ca->cert, NID_ext_key_usage, "serverAuth");
	ext(x, ca->cert, NID_subject_alt_name, san);
	ext(x, ca->cert, NID_subject_key_identifier, "hash");
	ext(x, ca->cert, NID_authority_key_identifier, "keyid:always");
	if (!X509_sign(x, ca->key, EVP_sha256())) {
		X509_free(x);
		return NULL;
	}
	return x;
}

/* ALPN: http/1.1 when the client offers it, else none (never h2). */
static int alpn(SSL *s, const unsigned char **out, unsigned char *outlen,
		const unsigned char *in, unsigned inlen, void *arg)
{
	(void)s;
	(void)arg;
	static const unsigned char h1[] = "\x08http/1.1";
	unsigned char *sel;
	if (SSL_select_next_proto(&sel, outlen, h1, sizeof h1 - 1, in, inlen) !=
	    OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

void *ca_server_ctx(const struct ca *ca, const char *host)
{
	EVP_PKEY *key = NULL;
	X509 *x = leaf(ca, host, &key);
	SSL_CTX *ctx = x ? SSL_CTX_new(TLS_server_method()) : NULL;
	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    SSL_CTX_use_certificate(ctx, x) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
	    SSL_CTX_add1_chain_cert(ctx, ca->cert) != 1) {
		SSL_CTX_free(ctx);
		ctx = NULL;
	} else {
		SSL_CTX_set_alpn_select_cb(ctx, alpn, NULL);
	}
	X509_free(x);
	EVP_PKEY_free(key);
	return ctx;
}
