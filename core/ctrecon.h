/* ctrecon.h — the public API of libctrecon (core/): what the CLI, the window
 * and scripts build on.  No GTK, no CUDA, no cairo.
 *
 * Internals are included by their folder-qualified path where they are
 * needed: the system matrix and its products (sysmat/ctr-scsr*.h, ...), the
 * solvers' driver (solve/), the analytic kernels (analytic/), the backend
 * table that gpu/ implements (plan/ctr-backend.h) and the study's cairo
 * figure (study/ctr-study-plot.h).  docs/design.md has the layers. */
#pragma once

/* base/: errors, memory, random numbers, HU */
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "base/ctr-random.h"
#include "base/ctr-hu.h"
#include "base/ctr-spectrum.h"
/* data/: what a scan is */
#include "data/ctr-volume.h"
#include "data/ctr-geometry.h"
#include "data/ctr-geometry-vectors.h"
#include "data/ctr-helix.h"
#include "data/ctr-grid.h"
#include "data/ctr-projections.h"
#include "data/ctr-noise.h"
/* sim/: simulated scans */
#include "sim/ctr-phantom.h"
#include "sim/ctr-phantom3d.h"
#include "sim/ctr-dose.h"
/* quality/: image-quality measures */
#include "quality/ctr-metrics.h"
#include "quality/ctr-roi.h"
#include "quality/ctr-nps.h"
#include "quality/ctr-ttf.h"
#include "quality/ctr-detectability.h"
/* io/: files */
#include "io/ctr-file.h"
#include "io/ctr-tiff.h"
#include "io/ctr-dicom.h"
#include "io/ctr-geometry-json.h"
#include "io/ctr-geometry-import.h"
#include "preprocess/ctr-preprocess.h"
#include "preprocess/ctr-beamhard.h"
#include "io/ctr-dataset.h"
#include "io/ctr-dataset-write.h"
#include "io/ctr-output-path.h"
#include "io/ctr-output-set.h"
#include "io/ctr-temp.h"
/* calib/: centre of rotation and detector offset from the projections */
#include "calib/ctr-calib.h"
#include "calib/ctr-calib-output.h"
/* sysmat/: the operator interface (forward and adjoint products) */
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-operator-natural.h"
/* recon/: methods, parameters, progress */
#include "recon/ctr-recon-types.h"
#include "recon/ctr-params.h"
#include "recon/ctr-progress.h"
/* plan/: plan and run a reconstruction */
#include "plan/ctr-recon-plan.h"
#include "plan/ctr-recon.h"
/* study/: dose studies */
#include "study/ctr-study.h"
#include "study/ctr-study-rows.h"
#include "study/ctr-equal-dose.h"
