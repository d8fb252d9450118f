/* ctr-matrix-cache.h — the SCSR matrix kept on disk between runs.
 *
 * A matrix depends only on the geometry, the grid and the ray model, so it is
 * built once and stored under the XDG cache directory
 * ($XDG_CACHE_HOME/ctrecon/matrices/KEY.scsr, or $CTR_CACHE_DIR/KEY.scsr),
 * KEY = SHA-256 of every number that defines it (ctr_matrix_cache_key).
 * Files are written to a temporary name and renamed.  On load the header
 * (magic, version, key, sizes), the exact file size, a SHA-256 of the arrays
 * and the structure (monotone segment pointers, every rep index in range,
 * finite weights) are checked; a file that fails any check is rebuilt and
 * replaced, never used; so is anything there that is not a regular file (a
 * FIFO is opened without blocking and refused) and a file of another user
 * or one others can write.  A folder others can write without the sticky
 * bit is not used at all (ctr_cache_dir_check_folder): the digest alone
 * would not stop someone who can write the file; its ownership does.  Temporaries are named
 * ".KEY.scsr.tmp-XXXXXX" and locked by their writer (ctr-cache-dir.h); the
 * first use of the cache in a process removes those of ours no one holds
 * a lock on, and nothing else.  CTR_MATRIX_CACHE=0 in the environment
 * turns the cache off.
 *
 * One file per geometry, grid and model, whatever the number of threads:
 * the file keeps the rep partition it was built with (P parts,
 * ctr_symmetry_partition), and a run with another thread count regroups the
 * loaded rows for its own (ctr_scsr_repartition: O(nnz), far below a
 * build).  Geometries without symmetry (K = 1, every view stored) are
 * cached the same way.  A matrix that would take more than half of the
 * free space of the cache's file system, or more than the cache's cap
 * (CTR_CACHE_MAX_MB, 4096 MiB by default), is not saved (a note says so);
 * to keep within the cap, the cache files used least recently (access
 * time, set on every hit) are removed first (ctr_cache_dir_trim).  The plain CSR matrix (--matrix csr, and ART) is not
 * cached: it is the baseline.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "sysmat/ctr-scsr.h"

G_BEGIN_DECLS

/* Hex SHA-256 of geometry, grid and model (g_free); not of the thread count. */
char *ctr_matrix_cache_key (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model);
/* Path of the cache file for @key (g_free); NULL when the cache is off. */
char *ctr_matrix_cache_path (const char *key);

/**
 * ctr_scsr_save:
 * Writes @m to @path (temporary file + rename).  CTR_ERROR_IO on failure.
 */
gboolean ctr_scsr_save (const CtrScsr *m, const char *key, const char *path, GError **error);

/**
 * ctr_scsr_load:
 * Reads a matrix saved for @key and checks it against @g and @grid (whose
 * symmetry is recomputed); saved with another number of parts than
 * ctr_scsr_default_parts (), it is re-partitioned for this one.
 * CTR_ERROR_IO (unreadable), CTR_ERROR_FORMAT (truncated, corrupt, other
 * key or version).
 */
CtrScsr *ctr_scsr_load (const char *path, const char *key, const CtrGeometry *g,
                        const CtrGrid *grid, CtrRayModel model, GError **error);

/**
 * ctr_matrix_cache_get_scsr:
 * The SCSR matrix of (@g, @grid, @model) from the cache when a valid file is
 * there, else built (ctr_scsr_build with CTR_SYM_ALL) and saved.  A cache
 * that cannot be read or written only costs the build (said in @note); the
 * errors are those of ctr_scsr_build.
 * @loaded: (out) (optional): TRUE when it came from the cache.
 * @note: (out) (optional) (transfer full): what went wrong with the cache
 *   file, or NULL.
 */
CtrScsr *ctr_matrix_cache_get_scsr_full (const CtrGeometry *g, const CtrGrid *grid,
                                         CtrRayModel model, gboolean *loaded, char **note,
                                         GCancellable *cancellable, GError **error);
#define ctr_matrix_cache_get_scsr(g, grid, model, cancellable, error) \
  ctr_matrix_cache_get_scsr_full ((g), (grid), (model), NULL, NULL, (cancellable), (error))

G_END_DECLS
