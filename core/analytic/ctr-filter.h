/* ctr-filter.h — the row-wise ramp filter shared by FBP (and FDK later).
 *
 * The discrete spatial-domain Ram-Lak kernel h(n·τ) = 1/(4τ²) (n = 0),
 * 0 (n even), -1/(n²π²τ²) (n odd) (Kak & Slaney Eq. 61) is transformed with
 * FFTW after zero padding to a power of two >= 2N, multiplied by the window,
 * and applied by FFT convolution.  Using the discrete kernel rather than
 * |ω| sampled avoids the DC offset of the naive ramp.  The plan is made once;
 * ctr_ramp_filter_apply() is thread-safe and processes rows in parallel.
 */
#pragma once

#include <glib.h>
#include "base/ctr-fft-lock.h"

G_BEGIN_DECLS

/* Apodisation window of the ramp filter (Kak & Slaney ch. 3). */
typedef enum {
  CTR_FILTER_RAM_LAK,     /* plain ramp (no apodisation) */
  CTR_FILTER_SHEPP_LOGAN, /* sinc */
  CTR_FILTER_COSINE,
  CTR_FILTER_HAMMING,
  CTR_FILTER_HANN,
  CTR_N_FILTERS
} CtrFilterWindow;

/* "ram-lak", "shepp-logan", "cosine", "hamming", "hann": the names by
 * CtrFilterWindow, NULL-terminated. */
extern const char *const ctr_filter_window_names[CTR_N_FILTERS + 1];
/* ctr_filter_window_names[w]. */
const char *ctr_filter_window_name (CtrFilterWindow w);
/* CTR_ERROR_INVALID_ARGUMENT naming the valid choices. */
gboolean ctr_filter_window_from_name (const char *name, CtrFilterWindow *out, GError **error);

typedef struct _CtrRampFilter CtrRampFilter;

/* ctr_fft_planner_lock / ctr_fft_planner_unlock: base/ctr-fft-lock.h. */

/**
 * ctr_ramp_filter_new:
 * @n: samples per row (detector columns).
 * @spacing: sample spacing τ (mm, or radians for equiangular data).
 * @window, @cutoff: apodisation; cutoff in (0, 1] of Nyquist.
 * @kernel_scale: (nullable): 2n-1 factors applied to the spatial kernel
 *   before the transform, indexed by the lag k + (n-1), k in [-(n-1), n-1]
 *   (the equiangular fan's (γ/sin γ)² term); NULL for none.
 * Returns: (transfer full): NULL with CTR_ERROR_INVALID_ARGUMENT.
 */
CtrRampFilter *ctr_ramp_filter_new (guint n, double spacing, CtrFilterWindow window,
                                    double cutoff, const double *kernel_scale,
                                    GError **error);
void ctr_ramp_filter_free (CtrRampFilter *f);
/**
 * ctr_ramp_filter_apply:
 * @rows: (inout): @n_rows rows of n samples, row-major ([row][sample]).
 * Filters the rows in place, in parallel: out = τ · (row ⊛ h_windowed).
 * Returns: FALSE with CTR_ERROR_OUT_OF_MEMORY (naming the size) when the
 *   threads' padded rows (m floats and m/2 + 1 complex values each, m the
 *   padded length ≥ 2n) cannot be allocated; @rows are then unchanged.
 */
gboolean ctr_ramp_filter_apply (CtrRampFilter *f, float *rows, guint n_rows, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrRampFilter, ctr_ramp_filter_free)

G_END_DECLS
