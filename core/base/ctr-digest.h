/* ctr-digest.h — SHA-256 (FIPS 180-4) of a stream of bytes, fast where the
 * machine allows.
 *
 * With OpenSSL's libcrypto at build time its EVP SHA-256 runs (the CPU's
 * SHA extensions where it has them: 0.84 s for 648 MB on this project's
 * 2-core machine, against 2.9-5.4 s for GLib's GChecksum); without it,
 * GChecksum.  Both give the same digest, so files written by one build
 * are read by the other.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CtrDigest CtrDigest;

/* (transfer full): ctr_digest_finish() frees it. */
CtrDigest *ctr_digest_new (void);
/* Adds @n bytes at @p (any size). */
void ctr_digest_update (CtrDigest *d, const void *p, gsize n);
/* Writes the 32-byte digest to @out and frees @d. */
void ctr_digest_finish (CtrDigest *d, guint8 out[32]);
/* Frees @d without a digest (NULL-safe). */
void ctr_digest_free (CtrDigest *d);

G_END_DECLS
