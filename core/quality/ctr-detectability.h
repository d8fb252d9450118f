/* ctr-detectability.h — the detectability index d′ of model observers.
 *
 * AAPM Task Group 233 (Samei et al., Med. Phys. 46(11), 2019), section on
 * task-based detectability; the non-prewhitening observers of Burgess
 * (J. Opt. Soc. Am. A 11(4), 1994) and Eckstein et al. (Proc. SPIE 3340,
 * 1998), as Richard and Samei used them for CT (Med. Phys. 39(7), 2012):
 *
 *   d′²_NPW  = [∫∫ W²·TTF² df]² / ∫∫ W²·TTF²·NPS df
 *   d′²_NPWE = [∫∫ W²·TTF²·E² df]² / ∫∫ W²·TTF²·E⁴·NPS df
 *
 * W(f) is the task function, the Fourier transform of the difference
 * between the signal-present and signal-absent objects: a disc of diameter
 * D and contrast C, W(f) = C·(D/2)·J₁(π·D·f)/f (C·π·D²/4 at 0), or TG-233's
 * "designer" profile c(r) = C·(1 − (2r/D)²)^n (r ≤ D/2), whose transform
 * 2π∫ c(r) J₀(2πfr) r dr is integrated numerically (Simpson, 400 steps).
 * E(f) is the eye filter E(ρ) = ρ^n·exp(−c·ρ²), ρ the frequency at the eye
 * in cycles/degree, n = 1.3 and c chosen so that E peaks at 4 cycles/degree
 * (c = n/(2·4²)); ρ = f·R·π/(180·m) for an object frequency f in cycles/mm
 * shown at a magnification m (display mm per object mm) and viewed from R
 * mm.  Our defaults: R = 500 mm (TG-233's viewing distance) and m = 1
 * (the image shown at its physical size); d′_NPWE does not depend on E's
 * scale.  No internal noise term.
 *
 * The TTF and NPS enter as radial functions (isotropic), so the 2-D
 * integrals are 2π∫₀^f_max g(f)·f df, integrated by Simpson's rule on 2000
 * steps up to @f_max (the Nyquist frequency of the NPS, normally).
 * Units: contrast in the image unit u, lengths in mm, NPS in u²·mm²; d′ is
 * dimensionless.
 */
#pragma once

#include <glib.h>
#include "quality/ctr-nps.h"
#include "quality/ctr-ttf.h"

G_BEGIN_DECLS

/**
 * CtrTask:
 * @diameter_mm: D, mm (> 0).
 * @contrast: C, image unit (HU when the NPS is in HU²·mm²); not 0.
 * @designer_n: 0 for a disc (flat profile), > 0 for the designer profile's n.
 */
typedef struct {
  double diameter_mm;
  double contrast;
  double designer_n;
} CtrTask;

/**
 * CtrEyeFilter:
 * @viewing_distance_mm: R (default 500).
 * @magnification: m, display mm per object mm (default 1).
 * @exponent: n (default 1.3).
 * @peak_cycles_per_degree: where E peaks (default 4).
 */
typedef struct {
  double viewing_distance_mm;
  double magnification;
  double exponent;
  double peak_cycles_per_degree;
} CtrEyeFilter;

/**
 * ctr_task_parse:
 * A task from its text form, the CLI's: "disc:D,C" (diameter mm, contrast)
 * or "designer:D,C,N" (TG-233's designer profile with exponent N > 0).
 * @task is set only on success.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT naming the text and the forms.
 */
gboolean ctr_task_parse (const char *text, CtrTask *task, GError **error);

/* The defaults above. */
CtrEyeFilter ctr_eye_filter_default (void);

/* E at object frequency @f (cycles/mm), 1 at its peak. */
double ctr_eye_filter (const CtrEyeFilter *eye, double f);

/* W(@f), the task function at @f cycles/mm, u·mm². */
double ctr_task_function (const CtrTask *task, double f);

/* A radial function of frequency (cycles/mm): the TTF or the NPS. */
typedef double (*CtrRadialFunc) (gconstpointer data, double f);

/**
 * CtrDprime:
 * @npw, @npwe: d′ of the NPW and NPWE observers.
 */
typedef struct {
  double npw, npwe;
} CtrDprime;

/**
 * ctr_dprime:
 * d′ for @task with the radial TTF @ttf (@ttf_data) and NPS @nps
 * (@nps_data), integrated up to @f_max cycles/mm; @eye (NULL: defaults).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (task diameter not
 *   positive, contrast 0 or non-finite, designer n negative, f_max not
 *   positive, an eye filter parameter not positive) or
 *   CTR_ERROR_INVALID_DATA (an NPS or TTF value NaN or negative, or the
 *   noise integral 0).
 */
gboolean ctr_dprime (const CtrTask *task, CtrRadialFunc ttf, gconstpointer ttf_data,
                     CtrRadialFunc nps, gconstpointer nps_data, double f_max,
                     const CtrEyeFilter *eye, CtrDprime *out, GError **error);

/**
 * ctr_dprime_measured:
 * ctr_dprime with a measured TTF (ctr_ttf_at) and NPS (ctr_nps_radial_at),
 * integrated up to the NPS's Nyquist frequency 1/(2·dx): what the dose
 * study and the window call.  Errors as ctr_dprime.
 */
gboolean ctr_dprime_measured (const CtrTask *task, const CtrTtf *ttf, const CtrNps *nps,
                              const CtrEyeFilter *eye, CtrDprime *out, GError **error);

G_END_DECLS
