/* ctr-mpi.h — CT Recon across the ranks of an Open MPI job (docs/design.md §10,
 * "Scale-out"): a small library over core's public API, as gpu/ is; core
 * knows no MPI.
 *
 * Decompositions (chosen from the method and the beam):
 *  - fan and parallel beam, slice-separable methods (fbp, art, part, sart,
 *    sirt): contiguous blocks of slices per rank (MemXCT, Hidayetoğlu et al.
 *    TPDS 2022 §3, and the petascale XCT system, SC20 §3: every rank holds
 *    the one system matrix of a slice and multiplies it by its batch of
 *    slices).  Each rank plans once (ctr-recon-plan.h: the matrix from the
 *    disk cache when it is there; the first rank of each node plans first
 *    and fills the cache, its neighbours then load it) and executes its
 *    block; the per-iteration report is that of the whole stack (partial
 *    sums reduced).  The result equals one process's to float rounding.
 *  - cone beam FDK: iFDK §4.1.1 (Chen et al., SC19): the ranks form an
 *    R × C grid; the views are split into C groups, each rank of a group
 *    filters 1/R of them (ctr_fdk_filter_views), the group all-gathers its
 *    filtered views, every rank back-projects them into its z-slab (one of
 *    R), and the C partial slabs of a slab are summed (MPI_Reduce).  When
 *    the options' backend has an FDK (ctr_backend_fdk) and some rank has a
 *    device, the group all-gathers its views unfiltered and each rank
 *    filters and back-projects them into its slab on its own device (its
 *    CPU, with the reason in its note line, when it has none).
 *  - cone beam SART/SIRT: z-slabs with halo slices: each rank reconstructs
 *    its slab plus a halo on either side from the detector rows that slab
 *    and halo project onto, and keeps its slab.  An approximation (the halo
 *    absorbs the rays that leave the slab), unlike the two above.
 *
 * Data: rank 0 reads the geometry (and the reference), broadcasts it with
 * the options; with a CtrMpiReader every rank then reads its own share of the
 * projections (its detector rows or views: ctr_dataset_load_part), without
 * one rank 0 reads the whole and sends each rank its share; rank 0 gathers
 * and writes the result.  Failures and cancellation: every step ends with a
 * collective status round (one MPI_Allreduce), so an error on one rank ends
 * every rank with that rank's message, and Ctrl-C (mpirun forwards SIGINT /
 * SIGTERM to the ranks) cancels all of them between views.  MPI's own
 * failures abort the job (MPI_ERRORS_ARE_FATAL), the last resort.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "ctrecon.h"

G_BEGIN_DECLS

/* TRUE when this process is one rank of a job started by mpirun (Open MPI
 * sets OMPI_COMM_WORLD_SIZE; PMIx and PMI launchers PMIX_RANK / PMI_RANK).
 * A plain run needs no MPI runtime and never calls MPI_Init. */
gboolean ctr_mpi_launched (void);

/* MPI_Init_thread (MPI_THREAD_SERIALIZED: one thread calls MPI at a time,
 * not always the main one).  CTR_ERROR_BACKEND_UNAVAILABLE when MPI cannot
 * start. */
gboolean ctr_mpi_init (int *argc, char ***argv, GError **error);
/* MPI_Finalize when ctr_mpi_init started MPI; else nothing. */
void ctr_mpi_finalize (void);
/* This rank and the job's size in MPI_COMM_WORLD (0 and 1 without MPI). */
guint ctr_mpi_rank (void);
guint ctr_mpi_size (void);
/* This rank's rank among the ranks of its node (MPI_Comm_split_type,
 * MPI_COMM_TYPE_SHARED: the ranks that share memory); 0 without MPI.  The
 * program gives it to a GPU backend, which takes device (local rank) mod
 * (device count): one device per rank of a node, round-robin.  Collective
 * over MPI_COMM_WORLD the first time (every rank calls it), then cached. */
guint ctr_mpi_local_rank (void);

/**
 * CtrMpiInput:
 * What rank 0 read; the other ranks pass NULL.
 * @geometry: the scan.
 * @projections: line integrals [view][row][col] of @geometry.
 * @grid: the output grid (fan/parallel: nz = detector rows).
 * @options: method and parameters (as for ctr_recon_plan_new).
 * @reference: (nullable): a reference on any grid, resampled onto @grid as
 *   ctr_recon_plan_execute does, for the reports' metrics.
 */
typedef struct {
  const CtrGeometry *geometry;
  const CtrProjections *projections;
  CtrGrid grid;
  CtrReconOptions options;
  const CtrVolume *reference;
} CtrMpiInput;

/**
 * CtrMpiReader:
 * How every rank reads its share of the projections itself.
 * @read: called on every rank with its share (@part: detector rows of every
 *   view, or views) and @data; returns the dataset loaded with
 *   ctr_dataset_load_part (@part), or NULL with the loader's error.  Its
 *   ->read_note becomes a note on rank 0 ("rank 1 read rows 32-63 of 64:
 *   N bytes of pixel data"), the claims check of a split read is judged on
 *   rank 0 over every rank's sample (ctr_dataset_claims_sample), and rank
 *   0's warnings become notes ("warning: ...").
 */
typedef CtrDataset *(*CtrMpiReadFunc) (const CtrDatasetPart *part, gpointer data, GError **error);
typedef struct {
  CtrMpiReadFunc read;
  gpointer data;
} CtrMpiReader;

/* A line for the user (rank 0 only): the plan's notes, how the work was
 * split (the decomposition, every rank's share, the matrix from the cache
 * or built) as soon as it is decided, every rank's timings at the end. */
typedef void (*CtrMpiNoteFunc) (const char *line, gpointer user_data);

/**
 * ctr_mpi_reconstruct:
 * Collective over MPI_COMM_WORLD: every rank calls it.
 * @input: rank 0: the inputs, or NULL with @input_error saying why rank 0
 *   has none (every rank then fails with it); other ranks: NULL.  With
 *   @reader its projections are not used (NULL).
 * @reader: (nullable): the same on every rank: each rank reads its share
 *   (CtrMpiReader); NULL: rank 0's @input projections are sent.
 * @input_error: (nullable) (transfer full): rank 0's failure before the run.
 * @callback: (nullable): called on rank 0 after every iteration with the
 *   whole stack's report (one-pass methods: once): residual over every
 *   rank's rays, RMSE/PSNR/SSIM averaged over every slice with one data
 *   range; iteration_s and residual_s are the slowest rank's; @image is
 *   NULL (the image lives in parts until the end).  The other ranks' callbacks are not called.
 * @note: (nullable): called on rank 0 with lines for the user (see
 *   CtrMpiNoteFunc), with @user_data, from this thread.
 * @cancellable: (nullable): this rank's; a cancelled rank cancels all.
 * @result: (out) (transfer full): rank 0: the image on @input's grid; other
 *   ranks: NULL.
 * Returns: TRUE on every rank when every rank succeeded; else FALSE on every
 *   rank with the same error: the lowest failing rank's, prefixed "rank R: "
 *   (a real error wins over a cancellation), codes as ctr_recon_plan_new and
 *   ctr_recon_plan_execute, CTR_ERROR_UNSUPPORTED for a method that couples
 *   the slices of a stack (cgls, pwls, asd-pocs) or --stop auto across
 *   ranks, G_IO_ERROR_CANCELLED.
 */
gboolean ctr_mpi_reconstruct (const CtrMpiInput *input, const CtrMpiReader *reader, GError *input_error,
                              CtrIterFunc callback,
                              CtrMpiNoteFunc note, gpointer user_data, GCancellable *cancellable,
                              CtrVolume **result, GError **error);

G_END_DECLS
