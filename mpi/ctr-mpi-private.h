/* ctr-mpi-private.h — what the parts of mpi/ share: the job's communicator,
 * the status rounds, the broadcast of the inputs and the shares of the work.
 */
#pragma once

#include <mpi.h>
#include "ctr-mpi.h"

G_BEGIN_DECLS

/* Phases of a run (a round's @phase).  Iterations report in phases 1..n. */
enum {
  CTR_MPI_PHASE_INPUT = 1000001,  /* rank 0 has read; inputs broadcast */
  CTR_MPI_PHASE_GEOMETRY,         /* every rank has room for its copy of the geometry */
  CTR_MPI_PHASE_CHECKED,          /* every rank accepts the method across ranks */
  CTR_MPI_PHASE_SHARE,            /* every rank has allocated its share */
  CTR_MPI_PHASE_PLAN,             /* the node's first rank has planned (cache filled) */
  CTR_MPI_PHASE_PLANNED,          /* every rank has planned */
  CTR_MPI_PHASE_FILTERED,         /* FDK: every rank has filtered its views */
  CTR_MPI_PHASE_DONE,             /* every rank has its part of the result */
  CTR_MPI_PHASE_CHECKED_RESULT,   /* FDK: rank 0 has checked the whole image (finite values and metrics) */
  CTR_MPI_PHASE_READ              /* every rank has read its share (CtrMpiReader) */
};

/* The doubles one round sums and maximises besides its status. */
#define CTR_MPI_N_SUM 5   /* residual² · ||b||², ||b||², Σ RMSE, Σ PSNR, Σ SSIM */
#define CTR_MPI_N_MAX 2   /* the iteration's seconds, the residual's seconds */

typedef struct {
  MPI_Comm comm;
  int rank, size;
  CtrIterFunc callback;  /* rank 0's reports */
  CtrMpiNoteFunc note;   /* rank 0's lines */
  gpointer user_data;
  GCancellable *outer;   /* the caller's (nullable) */
  GCancellable *inner;   /* what the plan sees: cancelled by @outer or by a round */
  gulong outer_handler;
  const CtrMpiReader *reader;  /* nullable: every rank reads its share */
} CtrMpiJob;

/* The watchdog's default timeout of a status round, seconds: longer than
 * any step between two rounds should take (a matrix build, one iteration
 * of a large volume). */
#define CTR_MPI_DEFAULT_TIMEOUT_S 1800.0

/* The timeout of a status round: $CTR_MPI_TIMEOUT_S seconds (≥ 0; 0: no
 * watchdog), else CTR_MPI_DEFAULT_TIMEOUT_S.  When a round has waited this
 * long, rank 0 names the ranks that did not reach it and ends the job
 * (MPI_Abort, exit 124); the other ranks end it after twice as long. */
double ctr_mpi_timeout_s (void);

typedef enum {
  CTR_MPI_ROUND_OK,        /* every rank in the same phase, none failed */
  CTR_MPI_ROUND_MISMATCH,  /* ranks in different phases: one left the run */
  CTR_MPI_ROUND_FAILED     /* same phase, some rank failed or was cancelled */
} CtrMpiRound;

/**
 * ctr_mpi_round:
 * Collective: one MPI_Allreduce (sum) of the ranks' status and @sum, one
 * (max) of @max; on failure one MPI_Bcast of the chosen rank's error.
 * @phase: where this rank is (see the enum; iteration numbers).
 * @local: (nullable): this rank's failure (G_IO_ERROR_CANCELLED: cancelled).
 * @cancel_request: this rank asks every rank to cancel (its caller's
 *   cancellable fired).
 * @sum, @max: (inout) (nullable): CTR_MPI_N_SUM / CTR_MPI_N_MAX doubles.
 * @cancel_out: (out) (optional): some rank asked to cancel.
 * Returns: the round's outcome; FAILED sets @error (on every rank) to the
 *   lowest failing rank's error, real errors before cancellations.
 */
CtrMpiRound ctr_mpi_round (CtrMpiJob *job, int phase, const GError *local, gboolean cancel_request,
                           double *sum, double *max, gboolean *cancel_out, GError **error);

/* Rounds in @phase until every rank has reached it (ranks still in an
 * earlier phase are told to cancel by the MISMATCH they see).  TRUE when
 * none failed; else FALSE with the chosen error.  Frees and clears *@local
 * (this rank's error, or NULL). */
gboolean ctr_mpi_settle (CtrMpiJob *job, int phase, GError **local, GError **error);

/* A share of @n items for part @k of @parts: contiguous, sizes differing by
 * at most one, the larger first. */
typedef struct {
  guint first, count;
} CtrMpiBlock;

static inline CtrMpiBlock
ctr_mpi_block (guint n, guint parts, guint k)
{
  const guint base = n / parts, rem = n % parts;
  CtrMpiBlock b = { k * base + MIN (k, rem), base + (k < rem ? 1 : 0) };
  return b;
}

/* Every rank's copy of rank 0's inputs (the projections stay on rank 0). */
typedef struct {
  CtrGeometry *geometry;
  CtrGrid grid;
  CtrReconOptions options;
  gboolean has_reference;
  gboolean has_mask;     /* rank 0's projections have a dead-pixel mask */
  double data_range;     /* max − min of the resampled reference */
} CtrMpiShared;

/* Collective: broadcasts @in's geometry, grid and options from rank 0
 * (@in NULL elsewhere) into @out.  Every rank allocates its copy of the
 * geometry's per-view arrays (with the non-aborting allocator) before any
 * of them is sent.  Returns: TRUE; FALSE on every rank (and @out cleared)
 * with the lowest failing rank's error ("rank 1: cannot allocate 32 MiB
 * for this rank's copy of the geometry's angles of 4194304 views; …",
 * CTR_ERROR_OUT_OF_MEMORY) when some rank could not. */
gboolean ctr_mpi_share_inputs (CtrMpiJob *job, const CtrMpiInput *in, CtrMpiShared *out, GError **error);
void ctr_mpi_shared_clear (CtrMpiShared *s);

/* @g restricted to the detector rows @first .. @first + @count − 1 (offset_v
 * moved so each row keeps its v); NULL with CTR_ERROR_OUT_OF_MEMORY when
 * its per-view arrays cannot be copied. */
CtrGeometry *ctr_mpi_geometry_rows (const CtrGeometry *g, guint first, guint count, GError **error);
/* @g restricted to the views @first .. @first + @count − 1; NULL with
 * CTR_ERROR_OUT_OF_MEMORY as ctr_geometry_select_views. */
CtrGeometry *ctr_mpi_geometry_views (const CtrGeometry *g, guint first, guint count, GError **error);
/* @grid's slices @first .. @first + @count − 1 as a grid of their own. */
CtrGrid ctr_mpi_grid_slices (const CtrGrid *grid, guint first, guint count);

/* Collective: rank 0 sends every rank its detector rows (rows[rank]) of all
 * views of @p (rank 0's; NULL elsewhere) into @mine (allocated by the
 * caller: n_views × rows[rank].count × n_cols), with the dead-pixel mask
 * when @mine has one (allocated by the caller, rows[rank].count × n_cols
 * bytes, where the shared inputs' has_mask says @p has one). */
void ctr_mpi_scatter_rows (CtrMpiJob *job, const CtrProjections *p, const CtrMpiBlock *rows, CtrProjections *mine);
/* Collective: rank 0 sends every rank the views views[rank] of @p into
 * @mine (allocated: views[rank].count views). */
void ctr_mpi_scatter_views (CtrMpiJob *job, const CtrProjections *p, const CtrMpiBlock *views,
                            CtrProjections *mine);
/**
 * ctr_mpi_read_share:
 * Collective: this rank reads blocks[rank] of the rows or views (@axis)
 * through job->reader into *@mine; rank 0 notes every rank's read (its
 * ->read_note), judges the claims check of a split read over every rank's
 * sample of the rows or views it alone holds, and notes its dataset's
 * warnings; then a status round (CTR_MPI_PHASE_READ).
 * Returns: TRUE on every rank when every rank read its share; else FALSE
 *   with the lowest failing rank's error (the loader's), *@mine NULL.
 */
gboolean ctr_mpi_read_share (CtrMpiJob *job, CtrDatasetAxis axis, const CtrMpiBlock *blocks, CtrProjections **mine,
                             GError **error);

/* Collective: the slices slices[rank] of a volume of @nx × @ny pixels per
 * slice, from @part (every rank) into @whole (rank 0; NULL elsewhere),
 * into @whole at slice slices[rank].first.  @scatter: the other way round. */
void ctr_mpi_gather_slices (CtrMpiJob *job, const float *part, float *whole, gsize slice_size,
                            const CtrMpiBlock *slices, gboolean scatter);

/* Collective: every rank's backend and the device it runs on ("cuda on
 * <name> (device 1 of 2), …"; "cpu"), of the backend named @backend (this
 * rank's plan's), gathered on rank 0: size lines of CTR_MPI_DEVICE_LEN
 * chars (transfer full); NULL on the other ranks. */
#define CTR_MPI_DEVICE_LEN 200
char *ctr_mpi_gather_devices (CtrMpiJob *job, const char *backend);
/* Collective: every rank's @line (cut to CTR_MPI_DEVICE_LEN − 1 bytes)
 * gathered on rank 0 as ctr_mpi_gather_devices's (transfer full); NULL on
 * the other ranks. */
char *ctr_mpi_gather_lines (CtrMpiJob *job, const char *line);

/* A line for the user (rank 0, when the job has a note function). */
void ctr_mpi_note (CtrMpiJob *job, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* The three decompositions; each sets *@result on rank 0. */
gboolean ctr_mpi_run_stack (CtrMpiJob *job, const CtrMpiInput *in, CtrMpiShared *sh, CtrVolume **result,
                            GError **error);
gboolean ctr_mpi_run_fdk (CtrMpiJob *job, const CtrMpiInput *in, CtrMpiShared *sh, CtrVolume **result,
                          GError **error);

G_END_DECLS
