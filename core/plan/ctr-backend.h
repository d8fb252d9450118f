/* ctr-backend.h — where reconstructions run (docs/design.md §9).
 *
 * A backend is a small vtable: a name, a one-line description, an
 * availability probe that says why not, the operators it makes
 * (ctr-operator.h: the projector every iterative method runs on) and its
 * FDK.  The CPU backend makes every operator (SCSR, CSR, cone beam on the
 * fly: sysmat/ctr-*-op.h); a GPU backend makes what it has and the plan
 * (ctr-recon-plan.h) runs the rest on the CPU with a note.
 *
 *   "cpu"       core's OpenMP operators; always there.
 *   "cuda"      the SCSR orbit kernel on the GPU (gpu/ctr-cuda-scsr.cu).
 *   "cusparse"  the cuART paper's baseline: cuSPARSE SpMV and transposed
 *               SpMV on the expanded CSR matrix (gpu/ctr-cuda-csr.cu),
 *               parallel ART only.
 *
 * core includes no CUDA header: the GPU backends live in gpu/ and register
 * themselves (ctr_backend_register, from a constructor of the gpu library)
 * when the build has them.  Whether a device answers is found at run time,
 * once, by the backend's probe.  The rest of the program asks for
 * ctr_backend_select ("best" or a name) and never branches on CUDA.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-projections.h"
#include "recon/ctr-recon-types.h"
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-symmetry.h"
#include "analytic/ctr-fdk.h"

G_BEGIN_DECLS

typedef struct _CtrBackend CtrBackend;

/* The backend's operator for a symmetry-compressed matrix @m of @g on
 * @grid (ctr-operator.h; the CPU's is ctr_scsr_op_new).  Errors:
 * CTR_ERROR_BACKEND_UNAVAILABLE, CTR_ERROR_OUT_OF_MEMORY (device memory). */
typedef CtrOperator *(*CtrBackendScsrOperator) (const CtrBackend *self, CtrScsr *m,
                                                 const CtrGeometry *g, const CtrGrid *grid,
                                                 GError **error);

struct _CtrBackend {
  const char *name;          /* "cpu", "cuda", "cusparse" */
  const char *description;   /* one line for --help and the window */
  int priority;              /* ctr_backend_best: highest available wins */
  /* TRUE when usable now; else FALSE and (transfer full) *reason, one line
   * ("no CUDA device", "no CUDA driver", "too little device memory: …").
   * Cheap after the first call (the result is cached). */
  gboolean (*available) (const CtrBackend *self, char **reason);
  /* (nullable) makes the backend's SCSR operator; NULL: none (the CPU's runs). */
  CtrBackendScsrOperator scsr_operator;
  /* Bit (1 << CtrMethod) of every iterative method the backend's operators
   * run; 0: all. */
  guint methods;
  /* (nullable) The device it runs on, one line ("NVIDIA H100 80GB HBM3,
   * cc 9.0, 79.1 GiB"), (transfer full); NULL for the CPU or no device. */
  char *(*device_name) (const CtrBackend *self);
  /* (nullable) Peak memory bandwidth of that device in GB/s (10⁹ B/s), 0
   * when unknown: what bench art compares its achieved GB/s with. */
  double (*peak_bandwidth_gbs) (const CtrBackend *self);
  /* (nullable) The backend's self-check (a small known problem on its
   * device and on the CPU, compared; run once per process, then cached):
   * lines for people, (transfer full), *passed set.  NULL for the CPU. */
  char *(*self_check) (const CtrBackend *self, gboolean *passed);
};

/* Adds @b (static storage, never freed) to the registry; a second backend
 * with the same name is ignored.  Called from the GPU library's constructor,
 * before main(). */
void ctr_backend_register (const CtrBackend *b);

/* The CPU backend (always available). */
const CtrBackend *ctr_backend_cpu (void);

/* The available backend of highest priority ("cuda" when a device answers,
 * else "cpu"). */
const CtrBackend *ctr_backend_best (void);

/**
 * ctr_backend_by_name:
 * @name: "cpu", "cuda" or "cusparse".
 * Returns: the backend when it is registered and available; else NULL with
 *   CTR_ERROR_BACKEND_UNAVAILABLE saying why (not built — this ctrecon was
 *   configured without CUDA —, no driver, no device, too little memory), or
 *   CTR_ERROR_INVALID_ARGUMENT for a name that is not a backend.
 */
const CtrBackend *ctr_backend_by_name (const char *name, GError **error);

/**
 * ctr_backend_select:
 * @name: (nullable): "best" (or NULL), "cpu", "cuda", "cusparse".
 * @note: (out) (optional) (transfer full): set when the backend asked for
 *   cannot run and the CPU runs instead, with the reason; else NULL.
 * Never returns NULL for a known name: an unavailable backend falls back to
 * the CPU (docs/design.md §9: fall back with a message rather than fail).
 * Returns: NULL only with CTR_ERROR_INVALID_ARGUMENT for an unknown name.
 */
const CtrBackend *ctr_backend_select (const char *name, char **note, GError **error);

/* Every registered backend, available or not, by falling priority; @n_out
 * the count.  Borrowed. */
const CtrBackend *const *ctr_backend_list (guint *n_out);

/* "cpu, cuda, cusparse": the names this build knows (for --help). */
const char *ctr_backend_known_names (void);

/**
 * CtrBackendRunFdk:
 * A backend's cone-beam FDK: same contract as ctr_fdk_run
 * (core/analytic/ctr-fdk.h) with the window and cutoff of @options;
 * @timings (nullable): seconds per step.  @first_view: @p holds the
 * @p->n_views consecutive views @first_view … of the whole scan @g (0 and
 * all views for a whole run): they are weighted as views of @g
 * (ctr_fdk_filter_views) and back-projected alone, so that the volumes of
 * consecutive parts sum to the whole's (one MPI rank's share, iFDK §4.1.1).
 * @grid may be any part (a z-slab) of the whole's grid.  Errors as
 * ctr_fdk_run (CTR_ERROR_INVALID_ARGUMENT for views outside @g), plus
 * CTR_ERROR_BACKEND_UNAVAILABLE / CTR_ERROR_OUT_OF_MEMORY from the device
 * (the caller then runs the CPU's FDK).
 */
typedef CtrVolume *(*CtrBackendRunFdk) (const CtrBackend *self, const CtrGeometry *g, guint first_view,
                                        const CtrProjections *p, const CtrGrid *grid,
                                        const CtrReconOptions *options, CtrFdkTimings *timings,
                                        GCancellable *cancellable, GError **error);

/* Records @fn as the FDK of the backend named @name (called from the GPU
 * library's constructor, before main(); a second one for a name is
 * ignored).  Kept beside the vtable so that a backend's FDK lives in its
 * own module. */
void ctr_backend_register_fdk (const char *name, CtrBackendRunFdk fn);

/* (nullable) @b's FDK; NULL for the CPU (ctr_fdk_run) and a backend without. */
CtrBackendRunFdk ctr_backend_fdk (const CtrBackend *b);

/**
 * CtrBackendConeOperator:
 * A backend's operator (sysmat/ctr-operator.h) for the cone-beam projector
 * pair of @g on @grid: the ray model of sysmat/ctr-cone-projector.h (Joseph
 * 1982, bilinear in the transverse axis and z, exact adjoint), the same
 * subsets (one view each, the same visiting order) and layouts (volume
 * [z][y][x], data [view][row][col]) as sysmat/ctr-cone-op.h, so the
 * iteration driver and every method run on it unchanged.  @mask
 * (nullable; n_views·n_rows·n_cols bytes, [view][row][col]; read, not
 * kept): the rays whose entry is 0 are rows of zeros, as
 * ctr_cone_op_new_masked.  Returns (transfer full) the operator, or NULL
 * with CTR_ERROR_BACKEND_UNAVAILABLE (no device, a failed device call),
 * CTR_ERROR_OUT_OF_MEMORY (too little device memory) or
 * CTR_ERROR_UNSUPPORTED (a geometry the backend's pair does not take); the
 * caller then runs the CPU's operator and says why.
 */
typedef CtrOperator *(*CtrBackendConeOperator) (const CtrBackend *self, const CtrGeometry *g,
                                                const CtrGrid *grid, const guint8 *mask, GError **error);

/* Records @fn as the cone-beam operator of the backend named @name (from
 * the GPU library's constructor, as ctr_backend_register_fdk). */
void ctr_backend_register_cone (const char *name, CtrBackendConeOperator fn);

/* (nullable) @b's cone-beam operator; NULL for the CPU (ctr_cone_op_new)
 * and a backend without. */
CtrBackendConeOperator ctr_backend_cone (const CtrBackend *b);

/**
 * CtrBackendConeMemory:
 * One line for the plan's estimate (ctr_recon_plan_estimate): the memory
 * the backend's cone-beam pair of @g on @grid needs on its device, what is
 * usable there, and how the pair fits (whole, or split: how many pieces and
 * why), without building anything.  Returns (transfer full) the line, or
 * NULL when the backend cannot say (no device).
 */
typedef char *(*CtrBackendConeMemory) (const CtrBackend *self, const CtrGeometry *g, const CtrGrid *grid);

/* Records @fn as the cone-beam memory plan of the backend named @name. */
void ctr_backend_register_cone_memory (const char *name, CtrBackendConeMemory fn);

/* (nullable) @b's cone-beam memory plan; NULL for the CPU and a backend
 * without. */
CtrBackendConeMemory ctr_backend_cone_memory (const CtrBackend *b);

/**
 * CtrBackendFlyOperator:
 * A backend's on-the-fly fan/parallel operator (no stored matrix): the ray
 * model, subsets and layouts of sysmat/ctr-fly-op.h (ctr_fly_op_new's
 * arguments; @orbits (nullable) (transfer full), freed on failure too).
 * Returns (transfer full) the operator, or NULL with
 * CTR_ERROR_BACKEND_UNAVAILABLE, CTR_ERROR_OUT_OF_MEMORY or
 * CTR_ERROR_UNSUPPORTED (a ray the backend's pair does not take); the
 * caller then runs the CPU's operator and says why.
 */
typedef CtrOperator *(*CtrBackendFlyOperator) (const CtrBackend *self, const CtrGeometry *g, const CtrGrid *grid,
                                               CtrRayModel model, CtrSymmetry *orbits, GError **error);

/**
 * CtrBackendFlyMemory:
 * One line for the plan's estimate: the device memory the backend's
 * on-the-fly pair of @g on @grid with @model needs and what is usable
 * there, without building anything; (transfer full), or NULL when the
 * backend cannot say (no device).
 */
typedef char *(*CtrBackendFlyMemory) (const CtrBackend *self, const CtrGeometry *g, const CtrGrid *grid,
                                      CtrRayModel model);

/* Records the on-the-fly operator and its memory plan of the backend named
 * @name (from the GPU library's constructor, as ctr_backend_register_fdk). */
void ctr_backend_register_fly (const char *name, CtrBackendFlyOperator fn, CtrBackendFlyMemory memory);

/* (nullable) @b's on-the-fly operator and memory plan; NULL for the CPU
 * (ctr_fly_op_new) and a backend without. */
CtrBackendFlyOperator ctr_backend_fly (const CtrBackend *b);
CtrBackendFlyMemory ctr_backend_fly_memory (const CtrBackend *b);

G_END_DECLS
