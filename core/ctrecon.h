/* ctrecon.h — the whole public API of libctrecon (core/). No GTK, no CUDA. */
#pragma once

#include "ctr-error.h"
#include "ctr-geometry.h"
#include "ctr-volume.h"
#include "ctr-projections.h"
#include "ctr-phantom.h"
#include "ctr-metrics.h"
#include "ctr-recon.h"
#include "io/ctr-tiff.h"
#include "io/ctr-dataset.h"
#include "sysmat/ctr-sysmat.h"
#include "solve/ctr-solver.h"
#include "analytic/ctr-filter.h"
#include "analytic/ctr-fbp.h"
