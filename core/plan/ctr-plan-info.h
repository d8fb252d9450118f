/* ctr-plan-info.h — a plan's operator in figures (CtrPlanInfo), what
 * ctr_recon_plan_get_info (ctr-recon-plan.h) fills.  A header of its own so
 * that the plan's routes (ctr-plan-route.h), which fill it, need not include
 * the facade's header.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * CtrPlanInfo:
 * The plan's operator in figures (for benchmarks and the window's details).
 * @operator_name: "cpu-scsr", "cpu-csr", "cpu-cone", "cuda-scsr", …; "fbp"
 *   or "fdk" for a one-pass method.  Static string.
 * @setup_s: seconds ctr_recon_plan_new() took to make the operator.
 * @from_cache: the matrix was read from the disk cache.
 * @matrix_bytes, @nnz: bytes and elements of the stored matrix (0 for the
 *   cone pair and one-pass methods).
 * @nnz_expanded: elements of the equivalent plain CSR matrix.
 * @stored_views: views whose rows are stored (SCSR: orbits).
 * @symmetry: the symmetry group's name ("D4", "C4", "none"), static.
 * @padding_view, @padding_global: the fraction of padded zeros in the
 *   view-level and global blocked layouts of the SCSR matrix (cuART §4),
 *   computed only when asked (ctr_recon_plan_get_info's @blocking); else NaN.
 */
typedef struct {
  const char *operator_name;
  double setup_s;
  gboolean from_cache;
  guint64 matrix_bytes;
  guint64 nnz;
  guint64 nnz_expanded;
  guint stored_views;
  const char *symmetry;
  double padding_view;
  double padding_global;
} CtrPlanInfo;

G_END_DECLS
