/* fuzz-geometry.c — libFuzzer harness of the geometry checks the geometry
 * editor runs on every keystroke (ui/ctr-geometry-panel.c parses each field
 * with g_ascii_strtod, then calls ctr_geometry_validate and
 * ctr_grid_default): the input is the editor's fields as text, one per
 * line (beam, shape, SOD, SDD, columns, rows, pitch u, pitch v, offset u,
 * offset v, views, angle start, angle step, image size, pixel size), each
 * parsed as the editor does.  A geometry that passes must give a finite
 * field of view, a describable geometry, and a default grid that is either
 * valid or refused by ctr_grid_validate (never a size that wrapped round). */
#include "fuzz-common.h"
#include "ctrecon.h"

#include <math.h>

enum { F_BEAM, F_SHAPE, F_SOD, F_SDD, F_COLS, F_ROWS, F_PU, F_PV, F_OU, F_OV, F_VIEWS, F_START, F_STEP,
       F_SIZE, F_PIXEL, N_FIELDS };

void
fuzz_init (void)
{
}

/* As the panel's parse_field: trimmed, decimal comma accepted, finite. */
static gboolean
parse (const char *text, double *v)
{
  g_autofree char *t = g_strstrip (g_strdup (text));
  g_strdelimit (t, ",", '.');
  char *end = NULL;
  *v = g_ascii_strtod (t, &end);
  return *t != '\0' && end != t && *end == '\0' && isfinite (*v);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  if (size > 4096)
    return 0;
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_auto (GStrv) lines = g_strsplit (text, "\n", N_FIELDS + 1);
  double v[N_FIELDS];
  for (guint f = 0; f < N_FIELDS; f++)
    if (lines[f] == NULL || !parse (lines[f], &v[f]))
      return 0;
  /* The panel's own field checks: whole numbers up to 10⁶ for the sizes. */
  const guint ints[] = { F_COLS, F_ROWS, F_VIEWS, F_SIZE };
  for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
    if (v[ints[i]] != floor (v[ints[i]]) || v[ints[i]] < 0 || v[ints[i]] > 1e6)
      return 0;
  if (v[F_VIEWS] < 1 || v[F_VIEWS] > 100000 || v[F_SIZE] < 1 || v[F_SIZE] > 16384 || !(v[F_PIXEL] > 0))
    return 0;

  const CtrBeam beam = ((guint) fabs (fmod (v[F_BEAM], 3)));
  g_autoptr (CtrGeometry) g = ctr_geometry_new (beam, (guint) v[F_VIEWS]);
  g->shape = beam == CTR_BEAM_PARALLEL ? CTR_DETECTOR_FLAT : ((guint) fabs (fmod (v[F_SHAPE], 2)));
  g->sod_mm = beam == CTR_BEAM_PARALLEL ? 0 : v[F_SOD];
  g->sdd_mm = beam == CTR_BEAM_PARALLEL ? 0 : v[F_SDD];
  g->n_cols = (guint) v[F_COLS];
  g->n_rows = (guint) v[F_ROWS];
  g->pitch_u = v[F_PU];
  g->pitch_v_mm = v[F_PV];
  g->offset_u = v[F_OU];
  g->offset_v_mm = v[F_OV];
  ctr_geometry_set_uniform_angles (g, v[F_START] * G_PI / 180, v[F_STEP] * G_PI / 180);

  g_autoptr (GError) error = NULL;
  if (!ctr_geometry_validate (g, &error))
    {
      g_assert (error != NULL && error->message[0] != '\0');
      return 0;
    }
  const double fov = ctr_geometry_fov_radius_mm (g);
  g_assert (isfinite (fov) && fov >= 0);
  g_assert (isfinite (ctr_geometry_pitch_at_iso_mm (g)));
  g_autofree char *desc = ctr_geometry_describe (g);
  g_assert (desc != NULL && desc[0] != 0);
  for (int k = 0; k < 3; k++)
    {
      /* As the editor (size and pixel), and as the CLI's defaults. */
      const CtrGrid grid = ctr_grid_default (g, k == 0 ? (guint) v[F_SIZE] : 0, k == 2 ? 0 : v[F_PIXEL]);
      if (ctr_grid_validate (&grid, NULL))
        g_assert (grid.nx >= 1 && grid.nx <= 65536 && isfinite (grid.dx) && grid.dx > 0);
    }
  if (beam == CTR_BEAM_CONE)
    {
      double P[12];
      ctr_geometry_projection_matrix (g, 0, P);
      for (int i = 0; i < 12; i++)
        g_assert (isfinite (P[i]));
    }
  return 0;
}
