/* ctr-calib-output.c — a calibration written as a new geometry.json
 * (ctr-calib-output.h). */
#include "calib/ctr-calib-output.h"
#include "io/ctr-geometry-json.h"
#include "io/ctr-json.h"

#include <math.h>

gboolean
ctr_calib_stated_tilt (const char *source, double *tilt, GError **error)
{
  *tilt = 0;
  g_autoptr (JsonParser) parser = ctr_json_parse_file (source, error);
  if (parser == NULL)
    return FALSE;
  JsonNode *root = json_parser_get_root (parser);
  JsonNode *tn = root != NULL && JSON_NODE_HOLDS_OBJECT (root)
                 ? json_object_get_member (json_node_get_object (root), "detector_tilt_rad") : NULL;
  if (tn != NULL && JSON_NODE_HOLDS_VALUE (tn) && json_node_get_value_type (tn) != G_TYPE_STRING)
    *tilt = json_node_get_double (tn);
  return TRUE;
}

double
ctr_calib_tilt_columns (const CtrGeometry *g, double tilt)
{
  return fabs (tan (tilt)) * (g->n_rows - 1) / 2.0 * g->pitch_v_mm / g->pitch_u;
}

double
ctr_calib_written_tilt (const CtrGeometry *g, const CtrCalibResult *r, double stated_tilt)
{
  return isfinite (r->tilt_rad) && fabs (r->tilt_rad) > 2 * r->sigma_tilt_rad
         && ctr_calib_tilt_columns (g, r->tilt_rad) >= CTR_CALIB_TILT_MIN_COLS ? stated_tilt + r->tilt_rad : NAN;
}

gboolean
ctr_calib_stage_geometry (CtrOutputSet *outputs, guint index, const char *source, const CtrGeometry *g,
                          const CtrCalibResult *r, double *written_tilt, GError **error)
{
  double stated = 0;
  if (!ctr_calib_stated_tilt (source, &stated, error))
    return FALSE;
  const double tilt = ctr_calib_written_tilt (g, r, stated);
  if (written_tilt != NULL)
    *written_tilt = tilt;
  const gboolean curved = g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED;
  const char *stage = ctr_output_set_stage (outputs, index, error);
  return stage != NULL && ctr_geometry_json_write_offset_u (source, curved, r->offset_u, tilt, stage, error);
}
