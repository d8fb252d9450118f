/* ctr-test-scan.h — the small clinical-like scan the dose and noise tests
 * share: a curved-detector fan beam (SOD 595 mm, SDD 1085.6 mm, a 230 mm
 * field of view) of the analytic head phantom (radius 100 mm). */
#pragma once

#include <math.h>
#include "ctrecon.h"

/* @views over 360°, @cols columns. */
static inline CtrGeometry *
test_fan (guint views, guint cols)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, views);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 595;
  g->sdd_mm = 1085.6;
  g->n_cols = cols;
  g->pitch_u = 2 * asin (115.0 / 595) / cols;
  ctr_geometry_set_uniform_angles (g, 0, 2 * G_PI / views);
  return g;
}

/* Exact line integrals of the head phantom, @rays per detector bin. */
static inline CtrProjections *
test_head (const CtrGeometry *g, guint rays)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_head (100);
  CtrProjections *p = ctr_phantom_project (ph, g, rays, NULL);
  g_assert_nonnull (p);
  return p;
}
