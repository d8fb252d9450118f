/* ctr-error.h — the one error domain of libctrecon.
 *
 * Every fallible function of core/ takes a GError ** as its last argument and
 * returns FALSE / NULL on failure; nothing in core prints, exits or aborts on
 * bad input.  Cancellation is reported as G_IO_ERROR_CANCELLED.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CTR_ERROR (ctr_error_quark ())

typedef enum {
  CTR_ERROR_FAILED,             /* anything not covered below */
  CTR_ERROR_IO,                 /* a file could not be opened, read or written */
  CTR_ERROR_FORMAT,             /* a file is not what it claims to be (TIFF, JSON) */
  CTR_ERROR_INVALID_GEOMETRY,   /* distances, sizes, angles out of range */
  CTR_ERROR_INVALID_DATA,       /* NaN/Inf, negative counts, sizes that disagree */
  CTR_ERROR_INVALID_ARGUMENT,   /* a parameter out of its documented range */
  CTR_ERROR_UNSUPPORTED,        /* valid input this version cannot handle yet */
  CTR_ERROR_OUT_OF_MEMORY,      /* an allocation of a stated size failed */
  CTR_ERROR_BACKEND_UNAVAILABLE /* no device, no driver, too little device memory */
} CtrErrorCode;

GQuark ctr_error_quark (void);

/**
 * ctr_error_cpu_may_run_instead:
 * @e: (nullable): the error of a device (GPU backend) operation.
 * The one rule of the fall-back (docs/design.md §9): TRUE when @e says the
 * device cannot run the work (CTR_ERROR_BACKEND_UNAVAILABLE: no driver, no
 * device, too little device memory; CTR_ERROR_OUT_OF_MEMORY), so the CPU
 * runs it instead with a note; FALSE for any other error (bad input,
 * cancellation, a failed file), which the caller passes on.  NULL: FALSE.
 */
gboolean ctr_error_cpu_may_run_instead (const GError *e);

G_END_DECLS
