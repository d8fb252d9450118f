/* ctr-digest.c — SHA-256 (see ctr-digest.h). */
#include "base/ctr-digest.h"

#ifdef CTR_HAVE_LIBCRYPTO
#include <openssl/evp.h>
#endif

struct _CtrDigest
{
#ifdef CTR_HAVE_LIBCRYPTO
  EVP_MD_CTX *evp;
#endif
  GChecksum *glib;   /* when libcrypto is absent or failed to start */
};

CtrDigest *
ctr_digest_new (void)
{
  CtrDigest *d = g_new0 (CtrDigest, 1);
#ifdef CTR_HAVE_LIBCRYPTO
  d->evp = EVP_MD_CTX_new ();
  if (d->evp != NULL && EVP_DigestInit_ex (d->evp, EVP_sha256 (), NULL) == 1)
    return d;
  EVP_MD_CTX_free (d->evp);
  d->evp = NULL;
#endif
  d->glib = g_checksum_new (G_CHECKSUM_SHA256);
  return d;
}

void
ctr_digest_update (CtrDigest *d, const void *p, gsize n)
{
#ifdef CTR_HAVE_LIBCRYPTO
  if (d->evp != NULL)
    {
      EVP_DigestUpdate (d->evp, p, n);
      return;
    }
#endif
  for (gsize done = 0; done < n;)   /* g_checksum_update takes a gssize */
    {
      const gsize step = MIN (n - done, (gsize) 1 << 30);
      g_checksum_update (d->glib, (const guchar *) p + done, (gssize) step);
      done += step;
    }
}

void
ctr_digest_finish (CtrDigest *d, guint8 out[32])
{
#ifdef CTR_HAVE_LIBCRYPTO
  if (d->evp != NULL)
    {
      unsigned int len = 32;
      EVP_DigestFinal_ex (d->evp, out, &len);
    }
#endif
  if (d->glib != NULL)
    {
      gsize len = 32;
      g_checksum_get_digest (d->glib, out, &len);
    }
  ctr_digest_free (d);
}

void
ctr_digest_free (CtrDigest *d)
{
  if (d == NULL)
    return;
#ifdef CTR_HAVE_LIBCRYPTO
  EVP_MD_CTX_free (d->evp);
#endif
  if (d->glib != NULL)
    g_checksum_free (d->glib);
  g_free (d);
}
