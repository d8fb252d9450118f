/* ctr-matrix-cache.c — SCSR matrices on disk (see ctr-matrix-cache.h). */
#include "sysmat/ctr-matrix-cache.h"
#include "sysmat/ctr-cache-dir.h"
#include "data/ctr-geometry-vectors.h"
#include "sysmat/ctr-scsr-private.h"
#include "base/ctr-digest.h"
#include "base/ctr-error.h"
#include "base/ctr-format.h"

#include "base/ctr-memory.h"
#include "io/ctr-file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "CTRSCSR"
#define VERSION 5u   /* 4: reps in Hilbert order inside a part; 5: SHA-256 */

typedef struct {
  char magic[8];
  guint32 version, K, n_orbits, n_cols, n_views, model, n_parts, reserved0;
  guint64 n_pixels, nnz, n_reps;
  char key[64];
  guint8 digest[32];   /* SHA-256 of everything after the header */
} Header;

char *
ctr_matrix_cache_key (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model)
{
  GChecksum *c = g_checksum_new (G_CHECKSUM_SHA256);
  const guint32 ints[] = { VERSION, (guint32) model, (guint32) g->beam, (guint32) g->shape,
                           g->n_views, g->n_cols, grid->nx, grid->ny };
  const double reals[] = { g->sod_mm, g->sdd_mm, g->pitch_u, g->offset_u,
                           grid->dx, grid->dy, grid->cx, grid->cy };
  g_checksum_update (c, (const guchar *) "ctrecon-scsr", 12);
  g_checksum_update (c, (const guchar *) ints, sizeof ints);
  g_checksum_update (c, (const guchar *) reals, sizeof reals);
  g_checksum_update (c, (const guchar *) g->angles, g->n_views * sizeof (double));
  if (g->vectors != NULL)  /* the rays themselves; the summary above does not pin them */
    g_checksum_update (c, (const guchar *) g->vectors, g->n_views * sizeof (double) * CTR_GEOMETRY_VECTOR_LEN);
  char *key = g_strdup (g_checksum_get_string (c));
  g_checksum_free (c);
  return key;
}

char *
ctr_matrix_cache_path (const char *key)
{
  const char *off = g_getenv ("CTR_MATRIX_CACHE");
  if (off != NULL && g_str_equal (off, "0"))
    return NULL;
  const char *dir = g_getenv ("CTR_CACHE_DIR");
  g_autofree char *d = dir && *dir ? g_strdup (dir)
                                   : g_build_filename (g_get_user_cache_dir (), "ctrecon", "matrices", NULL);
  g_autofree char *name = g_strconcat (key, ".scsr", NULL);
  return g_build_filename (d, name, NULL);
}

static gboolean
write_all (FILE *f, const void *p, gsize n)
{
  return n == 0 || fwrite (p, 1, n, f) == n;
}

enum { ELEM_CHUNK = 1 << 16 };  /* elements per chunk: 512 KiB */

/* The elements as the file stores them (CtrScsrElem), chunk by chunk from
 * either store of @m (ctr_scsr_read_elems): into the digest when @f is NULL,
 * else into @f. */
static gboolean
pass_elems (const CtrScsr *m, CtrScsrElem *buf, CtrDigest *dg, FILE *f)
{
  const guint64 nnz = ctr_scsr_nnz (m);
  for (guint64 e0 = 0; e0 < nnz; e0 += ELEM_CHUNK)
    {
      const guint64 n = MIN ((guint64) ELEM_CHUNK, nnz - e0);
      ctr_scsr_read_elems (m, e0, n, buf);
      if (f == NULL)
        ctr_digest_update (dg, buf, n * sizeof (CtrScsrElem));
      else if (!write_all (f, buf, n * sizeof (CtrScsrElem)))
        return FALSE;
    }
  return TRUE;
}

gboolean
ctr_scsr_save (const CtrScsr *m, const char *key, const char *path, GError **error)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), P = ctr_scsr_n_parts (m);
  const gsize n_rows = (gsize) ctr_scsr_n_orbits (m) * ctr_scsr_n_cols (m);
  const gint64 *seg;
  ctr_scsr_arrays (m, &seg, NULL, NULL);
  const float *sq = ctr_scsr_row_sq (m), *sum = ctr_scsr_row_sum (m);
  const gsize seg_bytes = (n_rows * K * P + 1) * sizeof (gint64);
  const gsize row_bytes = n_rows * sizeof (float);
  g_autofree CtrScsrElem *buf = g_new (CtrScsrElem, ELEM_CHUNK);

  Header h = { 0 };
  memcpy (h.magic, MAGIC, 8);
  h.version = VERSION;
  h.K = K;
  h.n_parts = P;
  h.n_orbits = ctr_scsr_n_orbits (m);
  h.n_cols = ctr_scsr_n_cols (m);
  h.n_views = ctr_scsr_n_views (m);
  h.model = ctr_scsr_model (m);
  h.n_pixels = ctr_scsr_n_pixels (m);
  h.nnz = ctr_scsr_nnz (m);
  h.n_reps = sy->n_reps;
  memcpy (h.key, key, MIN (strlen (key), sizeof h.key));
  CtrDigest *dg = ctr_digest_new ();
  ctr_digest_update (dg, seg, seg_bytes);
  pass_elems (m, buf, dg, NULL);
  ctr_digest_update (dg, sq, row_bytes);
  ctr_digest_update (dg, sum, row_bytes);
  ctr_digest_finish (dg, h.digest);

  g_autofree char *dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot create %s: %s", dir, g_strerror (e));
      return FALSE;
    }
  if (!ctr_cache_dir_check_folder (dir, error))
    return FALSE;
  /* ".KEY.scsr.tmp-XXXXXX", locked while it is written and renamed into
   * place before the lock goes (ctr-cache-dir.h): a later run removes it
   * only when its writer is gone (SIGKILL, power loss), whatever its PID
   * namespace. */
  g_autofree char *tmpl = NULL;
  int fd = ctr_cache_dir_temp_new (path, &tmpl, error);
  if (fd < 0)
    return FALSE;
  FILE *f = fdopen (fd, "wb");
  gboolean ok = f && write_all (f, &h, sizeof h) && write_all (f, seg, seg_bytes) && pass_elems (m, buf, NULL, f)
                && write_all (f, sq, row_bytes) && write_all (f, sum, row_bytes) && fflush (f) == 0;
  int e = errno;
  if (ok && g_rename (tmpl, path) != 0)
    {
      e = errno;
      ok = FALSE;
    }
  if (!ok)
    g_unlink (tmpl);
  if (f != NULL)
    fclose (f);   /* the lock goes with it */
  else
    close (fd);
  if (!ok)
    g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
  return ok;
}

#define BAD(...)                                                          \
  do {                                                                    \
    g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, __VA_ARGS__);        \
    goto fail;                                                            \
  } while (0)

/* Opens @path for reading only when it is a regular file (a FIFO put in the
 * file's place must not block the run: io/ctr-file.h). */
static FILE *
open_regular (const char *path, GStatBuf *st, GError **error)
{
  int fd = ctr_file_open_regular (path, error);
  if (fd < 0)
    return NULL;
  FILE *f = fstat (fd, st) == 0 ? fdopen (fd, "rb") : NULL;
  if (f == NULL)
    {
      int e = errno;
      close (fd);
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot open %s: %s", path, g_strerror (e));
    }
  return f;
}

CtrScsr *
ctr_scsr_load (const char *path, const char *key, const CtrGeometry *g, const CtrGrid *grid,
               CtrRayModel model, GError **error)
{
  GStatBuf sb;
  FILE *f = open_regular (path, &sb, error);
  if (f == NULL)
    return NULL;
  if (!ctr_cache_dir_check_file (&sb, path, error))
    {
      fclose (f);
      return NULL;
    }
  CtrSymmetry *sy = NULL, *mine = NULL;
  gint64 *seg = NULL;
  CtrScsrElem *el = NULL, *chunk = NULL;
  guint16 *r16 = NULL;
  float *w32 = NULL;
  float *sq = NULL, *sum = NULL;
  CtrDigest *dg = NULL;
  Header h;
  if (fread (&h, sizeof h, 1, f) != 1)
    BAD ("%s: truncated header", path);
  if (memcmp (h.magic, MAGIC, 8) != 0 || h.version != VERSION)
    BAD ("%s: not a CT Recon SCSR file of version %u", path, VERSION);
  if (strncmp (h.key, key, sizeof h.key) != 0 || h.model != (guint32) model)
    BAD ("%s: made for another geometry", path);
  if (h.n_parts < 1 || h.n_parts > 4096)
    BAD ("%s: bad header", path);
  sy = ctr_symmetry_find (g, grid, CTR_SYM_ALL, error);
  if (sy == NULL || !ctr_symmetry_partition (sy, h.n_parts, error))
    goto fail;
  if (h.K != sy->group.order || h.n_parts != sy->n_parts || h.n_orbits != sy->n_orbits || h.n_cols != g->n_cols
      || h.n_views != g->n_views || h.n_reps != sy->n_reps
      || h.n_pixels != (guint64) grid->nx * grid->ny)
    BAD ("%s: sizes disagree with the geometry", path);
  const gsize n_rows = (gsize) h.n_orbits * h.n_cols;
  const gsize seg_n = n_rows * h.K * h.n_parts + 1;
  /* Saturating: a header that claims 2⁶⁴ elements must not wrap round to
   * the file's size. */
  const guint64 expect = ctr_memory_add (ctr_memory_add (sizeof h, ctr_memory_mul (seg_n, sizeof (gint64))),
                                         ctr_memory_add (ctr_memory_mul (h.nnz, sizeof (CtrScsrElem)),
                                                         ctr_memory_mul (n_rows, 2 * sizeof (float))));
  if ((guint64) sb.st_size != expect)
    BAD ("%s: %" G_GUINT64_FORMAT " bytes where %" G_GUINT64_FORMAT " were expected (truncated or stale)",
         path, (guint64) sb.st_size, expect);
  /* A one-slice matrix goes straight into the compact store
   * (ctr-scsr-private.h), read chunk by chunk, and is regrouped there when
   * it was saved with another part count: no 8-byte copy is ever made. */
  const guint parts = ctr_scsr_parts_for (h.K, h.n_reps);
  /* The parts of this run, when the file was saved with others: the matrix
   * is read compact only when those fit the compact store too (else the
   * regrouping would make the 8-byte copy beside it: 14 bytes an element). */
  if (parts != h.n_parts)
    {
      mine = ctr_symmetry_find (g, grid, CTR_SYM_ALL, error);
      if (mine == NULL || !ctr_symmetry_partition (mine, parts, error))
        goto fail;
    }
  const gboolean compact = ctr_scsr_compact_applies (sy, grid->nz)
                           && (mine == NULL || ctr_scsr_compact_applies (mine, grid->nz));
  seg = g_try_new (gint64, seg_n);
  sq = g_try_new (float, n_rows);
  sum = g_try_new (float, n_rows);
  gboolean have;
  if (compact)
    have = (r16 = g_try_new (guint16, MAX (h.nnz, 1))) && (w32 = g_try_new (float, MAX (h.nnz, 1)))
           && (chunk = g_try_new (CtrScsrElem, ELEM_CHUNK));
  else
    have = (el = g_try_new (CtrScsrElem, MAX (h.nnz, 1))) != NULL;
  if (!seg || !have || !sq || !sum)
    BAD ("%s: cannot allocate %" G_GUINT64_FORMAT " elements", path, h.nnz);
  if (fread (seg, sizeof (gint64), seg_n, f) != seg_n)
    BAD ("%s: truncated", path);
  dg = ctr_digest_new ();
  ctr_digest_update (dg, seg, seg_n * sizeof (gint64));
  /* Structure: never index out of bounds, even with a forged digest. */
  if (seg[0] != 0 || seg[seg_n - 1] != (gint64) h.nnz)
    BAD ("%s: bad segment pointers", path);
  gboolean bad = FALSE;
#pragma omp parallel for reduction(||:bad) schedule(static)
  for (gsize i = 1; i < seg_n; i++)
    bad = bad || seg[i] < seg[i - 1];
  if (bad)
    BAD ("%s: bad segment pointers", path);
  const guint32 *ps = sy->part_start;
  if (compact)
    {
      /* Each rep stored relative to its segment's part (the segment walked
       * beside the elements) and checked against it, the weight too: an
       * element out of range is reported after the checksum, as the 8-byte
       * store's are. */
      gsize si = 0;
      for (guint64 e0 = 0; e0 < h.nnz; e0 += ELEM_CHUNK)
        {
          const gsize n = (gsize) MIN ((guint64) ELEM_CHUNK, h.nnz - e0);
          if (fread (chunk, sizeof (CtrScsrElem), n, f) != n)
            BAD ("%s: truncated", path);
          ctr_digest_update (dg, chunk, n * sizeof (CtrScsrElem));
          for (gsize e = 0; e < n; e++)
            {
              while (seg[si + 1] <= (gint64) (e0 + e))
                si++;
              const guint p = (guint) ((si / h.K) % h.n_parts);
              const gboolean in = chunk[e].rep >= ps[p] && chunk[e].rep < ps[p + 1] && isfinite (chunk[e].w);
              bad = bad || !in;
              r16[e0 + e] = in ? (guint16) (chunk[e].rep - ps[p]) : 0;
              w32[e0 + e] = chunk[e].w;
            }
        }
    }
  else
    {
      if (fread (el, sizeof (CtrScsrElem), h.nnz, f) != h.nnz)
        BAD ("%s: truncated", path);
      ctr_digest_update (dg, el, h.nnz * sizeof (CtrScsrElem));
    }
  if (fread (sq, sizeof (float), n_rows, f) != n_rows || fread (sum, sizeof (float), n_rows, f) != n_rows)
    BAD ("%s: truncated", path);
  ctr_digest_update (dg, sq, n_rows * sizeof (float));
  ctr_digest_update (dg, sum, n_rows * sizeof (float));
  guint8 digest[32];
  ctr_digest_finish (dg, digest);
  dg = NULL;
  if (memcmp (digest, h.digest, sizeof digest) != 0)
    BAD ("%s: checksum mismatch (corrupt file)", path);
  /* Every element inside its part's rep range: the threads of the transposed
   * product rely on it (the compact store was checked while read). */
  if (!compact)
    {
#pragma omp parallel for reduction(||:bad) schedule(static, 1024)
      for (gsize i = 0; i < seg_n - 1; i++)
        {
          guint p = (guint) ((i / h.K) % h.n_parts);
          for (gint64 e = seg[i]; e < seg[i + 1] && !bad; e++)
            bad = el[e].rep < ps[p] || el[e].rep >= ps[p + 1] || !isfinite (el[e].w);
        }
    }
  if (bad)
    BAD ("%s: element out of range", path);
  fclose (f);
  g_free (chunk);
  CtrScsr *m = compact ? ctr_scsr_new_from_compact (sy, model, h.n_views, h.n_pixels, h.nnz, seg, r16, w32, sq, sum)
                       : ctr_scsr_new_from_arrays (sy, model, h.n_views, h.n_pixels, h.nnz, seg, el, sq, sum);
  if (mine == NULL)
    return m;
  /* Saved by a run with another number of threads. */
  return ctr_scsr_repartition (m, mine, error);

fail:
  fclose (f);
  ctr_digest_free (dg);
  ctr_symmetry_free (sy);
  ctr_symmetry_free (mine);
  g_free (seg);
  g_free (el);
  g_free (chunk);
  g_free (r16);
  g_free (w32);
  g_free (sq);
  g_free (sum);
  return NULL;
}

/* Removes the stale temporaries of the cache folder, once per process. */
static void
clean_stale_temporaries (const char *cache_file)
{
  static gsize once = 0;
  if (!g_once_init_enter (&once))
    return;
  g_autofree char *dir = g_path_get_dirname (cache_file);
  ctr_cache_dir_clean (dir, ".scsr", MAGIC, sizeof MAGIC);
  g_once_init_leave (&once, 1);
}

/* Free bytes on the file system that holds @path or its nearest existing
 * parent folder; G_MAXUINT64 when it cannot be told. */
static guint64
free_bytes_near (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  while (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      char *up = g_path_get_dirname (dir);
      const gboolean top = g_str_equal (up, dir);
      g_free (dir);
      dir = up;
      if (top)
        break;
    }
  g_autoptr (GFile) f = g_file_new_for_path (dir);
  g_autoptr (GFileInfo) info = g_file_query_filesystem_info (f, G_FILE_ATTRIBUTE_FILESYSTEM_FREE, NULL, NULL);
  if (info == NULL || !g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE))
    return G_MAXUINT64;
  return g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE);
}

CtrScsr *
ctr_matrix_cache_get_scsr_full (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model,
                                gboolean *loaded, char **note, GCancellable *cancellable, GError **error)
{
  if (loaded)
    *loaded = FALSE;
  if (note)
    *note = NULL;
  if (!ctr_geometry_validate (g, error))
    return NULL;
  g_autofree char *key = ctr_matrix_cache_key (g, grid, model);
  g_autofree char *path = ctr_matrix_cache_path (key);
  g_autofree char *dir = path ? g_path_get_dirname (path) : NULL;
  if (dir != NULL && g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      /* A folder others can write: nothing in it is read, written or
       * removed (ctr-cache-dir.h). */
      g_autoptr (GError) e = NULL;
      if (!ctr_cache_dir_check_folder (dir, &e))
        {
          if (note)
            *note = g_strdup_printf ("matrix cache: not used: %s", e->message);
          g_clear_pointer (&path, g_free);
        }
    }
  if (path != NULL)
    clean_stale_temporaries (path);
  if (path != NULL && g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autoptr (GError) e = NULL;
      CtrScsr *m = ctr_scsr_load (path, key, g, grid, model, &e);
      if (m != NULL)
        {
          ctr_cache_dir_touch (path);   /* least recently used goes first */
          if (loaded)
            *loaded = TRUE;
          return m;
        }
      if (note)
        *note = g_strdup_printf ("matrix cache: %s; rebuilt", e->message);
    }
  CtrScsr *m = ctr_scsr_build (g, grid, model, CTR_SYM_ALL, cancellable, error);
  /* A matrix without symmetry stores every view (8× a D4 one): never let
   * the cache take more than half of the free disk space. */
  const guint64 bytes = m != NULL ? ctr_scsr_bytes (m) + sizeof (Header) : 0;
  if (m != NULL && path != NULL && bytes > free_bytes_near (path) / 2)
    {
      if (note)
        {
          char *prev = *note;
          g_autofree char *size = ctr_format_bytes (bytes);
          *note = g_strdup_printf ("%s%smatrix cache: not saved (%s would take more than half of the free "
                                   "disk space)", prev ? prev : "", prev ? "; " : "", size);
          g_free (prev);
        }
    }
  else if (m != NULL && path != NULL && bytes > ctr_cache_dir_cap_bytes ())
    {
      if (note)
        {
          char *prev = *note;
          *note = g_strdup_printf ("%s%smatrix cache: not saved (%.1f MiB is more than the cache's cap of "
                                   "%.0f MiB, CTR_CACHE_MAX_MB)", prev ? prev : "", prev ? "; " : "",
                                   bytes / 1048576.0, ctr_cache_dir_cap_bytes () / 1048576.0);
          g_free (prev);
        }
    }
  else if (m != NULL && path != NULL)
    {
      g_autoptr (GError) e = NULL;
      /* Room under the cap, least recently used out first. */
      ctr_cache_dir_trim (dir, ".scsr", MAGIC, sizeof MAGIC, bytes, ctr_cache_dir_cap_bytes ());
      if (!ctr_scsr_save (m, key, path, &e) && note)
        {
          char *prev = *note;
          *note = g_strdup_printf ("%s%smatrix cache: %s", prev ? prev : "", prev ? "; " : "", e->message);
          g_free (prev);
        }
    }
  return m;
}
