/* ctr-geometry-import.c — ASTRA and RTK geometries (see ctr-geometry-import.h). */
#include "io/ctr-geometry-import.h"
#include "data/ctr-geometry-vectors.h"
#include "base/ctr-error.h"
#include "io/ctr-json.h"
#include "base/ctr-memory.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* ASTRA                                                                     */

static gboolean
astra_number (JsonObject *o, const char *key, double *out, GError **error)
{
  JsonNode *n = json_object_has_member (o, key) ? json_object_get_member (o, key) : NULL;
  const GType t = n != NULL && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;
  if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "ASTRA geometry: the key “%s” %s", key,
                   n == NULL ? "is missing" : "must be a number");
      return FALSE;
    }
  *out = json_node_get_double (n);
  return TRUE;
}

static gboolean
astra_count (JsonObject *o, const char *key, guint *out, GError **error)
{
  double v;
  if (!astra_number (o, key, &v, error))
    return FALSE;
  if (!(v >= 1 && v <= G_MAXINT32 && v == floor (v)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "ASTRA geometry: the key “%s” must be a positive whole "
                   "number, got %g", key, v);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

/* @key as an array of numbers (a flat list) or of equal-length arrays (rows
 * of @width numbers): the numbers in order, *n_rows rows. */
static double *
astra_numbers (JsonObject *o, const char *key, guint width, guint *n_rows, GError **error)
{
  JsonNode *n = json_object_has_member (o, key) ? json_object_get_member (o, key) : NULL;
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "ASTRA geometry: the key “%s” %s", key,
                   n == NULL ? "is missing" : "must be an array");
      return NULL;
    }
  JsonArray *a = json_node_get_array (n);
  const guint len = json_array_get_length (a);
  if (len == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "ASTRA geometry: the key “%s” is empty", key);
      return NULL;
    }
  g_autofree char *what = g_strdup_printf ("ASTRA geometry: “%s”", key);
  g_autofree double *v = ctr_memory_try_new ((gsize) len * width, sizeof (double), FALSE, what, error);
  if (v == NULL)
    return NULL;
  for (guint i = 0; i < len; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      JsonArray *row = width > 1 && JSON_NODE_HOLDS_ARRAY (e) ? json_node_get_array (e) : NULL;
      if (width > 1 && (row == NULL || json_array_get_length (row) != width))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "ASTRA geometry: “%s” row %u must hold %u numbers",
                       key, i, width);
          return NULL;
        }
      for (guint j = 0; j < width; j++)
        {
          JsonNode *x = row != NULL ? json_array_get_element (row, j) : e;
          const GType t = JSON_NODE_HOLDS_VALUE (x) ? json_node_get_value_type (x) : G_TYPE_INVALID;
          if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "ASTRA geometry: “%s” entry %u is not a number",
                           key, i);
              return NULL;
            }
          v[(gsize) i * width + j] = json_node_get_double (x);
        }
    }
  *n_rows = len;
  return g_steal_pointer (&v);
}

static CtrGeometry *
astra_circular (JsonObject *o, CtrBeam beam, GError **error)
{
  guint views = 0, cols, rows = 1;
  double pitch_u, pitch_v = 1.0, dos = 0, dod = 0;
  const gboolean cone = beam == CTR_BEAM_CONE;
  if (!(cone ? astra_count (o, "DetectorColCount", &cols, error) && astra_count (o, "DetectorRowCount", &rows, error)
               && astra_number (o, "DetectorSpacingX", &pitch_u, error)
               && astra_number (o, "DetectorSpacingY", &pitch_v, error)
             : astra_count (o, "DetectorCount", &cols, error) && astra_number (o, "DetectorWidth", &pitch_u, error)))
    return NULL;
  if (beam != CTR_BEAM_PARALLEL
      && (!astra_number (o, "DistanceOriginSource", &dos, error)
          || !astra_number (o, "DistanceOriginDetector", &dod, error)))
    return NULL;
  g_autofree double *angles = astra_numbers (o, "ProjectionAngles", 1, &views, error);
  if (angles == NULL)
    return NULL;
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (beam, views, error);
  if (g == NULL)
    return NULL;
  memcpy (g->angles, angles, views * sizeof (double));
  g->n_cols = cols;
  g->n_rows = rows;
  g->pitch_u = pitch_u;
  g->pitch_v_mm = pitch_v;
  g->sod_mm = dos;
  g->sdd_mm = dos + dod;
  return g_steal_pointer (&g);
}

static CtrGeometry *
astra_vectors (JsonObject *o, CtrBeam beam, GError **error)
{
  const gboolean cone = beam == CTR_BEAM_CONE;
  guint cols, rows = 1, views = 0;
  if (!(cone ? astra_count (o, "DetectorColCount", &cols, error) && astra_count (o, "DetectorRowCount", &rows, error)
             : astra_count (o, "DetectorCount", &cols, error)))
    return NULL;
  g_autofree double *v = astra_numbers (o, "Vectors", cone ? 12 : 6, &views, error);
  if (v == NULL)
    return NULL;
  if (cone)
    return ctr_geometry_new_from_vectors (beam, views, rows, cols, v, error);
  /* fanflat_vec: S_x S_y D_x D_y u_x u_y → our 12-number rows (z = 0). */
  g_autofree double *w = ctr_memory_try_new ((gsize) views * CTR_GEOMETRY_VECTOR_LEN, sizeof (double), TRUE,
                                             "the projection vectors", error);
  if (w == NULL)
    return NULL;
  for (guint k = 0; k < views; k++)
    for (guint i = 0; i < 6; i++)
      w[(gsize) k * CTR_GEOMETRY_VECTOR_LEN + (i / 2) * 3 + i % 2] = v[(gsize) k * 6 + i];
  for (guint k = 0; k < views; k++)
    w[(gsize) k * CTR_GEOMETRY_VECTOR_LEN + 11] = 1.0;
  return ctr_geometry_new_from_vectors (beam, views, rows, cols, w, error);
}

/* The spread tolerated in the per-view pitch and offset of parallel_vec
 * (relative to the pitch) and in the cosine between ray and detector row. */
#define PARALLEL_VEC_TOL 1e-6

/* parallel_vec: per view ray direction r, detector centre d, column step u
 * (ASTRA's vec_geom; column j at d + (j − (n − 1)/2) u).  ASTRA makes them
 * from `parallel` as r = (sin β, −cos β), d = 0, u = w (cos β, sin β):
 * so β = atan2 (u_y, u_x) (unwrapped along the views), pitch |u| and the
 * offset d·u/|u| (FORMAT.md: u is the signed distance from the axis along
 * (cos β, sin β); the rays' direction, either way along a line, does not
 * matter).  Our parallel beam has one pitch and one offset and rays across
 * the detector row: other vectors are refused. */
static CtrGeometry *
astra_parallel_vec (JsonObject *o, GError **error)
{
  guint cols, views = 0;
  if (!astra_count (o, "DetectorCount", &cols, error))
    return NULL;
  g_autofree double *v = astra_numbers (o, "Vectors", 6, &views, error);
  if (v == NULL)
    return NULL;
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (CTR_BEAM_PARALLEL, views, error);
  if (g == NULL)
    return NULL;
  g->n_cols = cols;
  g->n_rows = 1;
  for (guint k = 0; k < views; k++)
    {
      const double *r = v + (gsize) k * 6, *d = r + 2, *u = r + 4;
      const double w = hypot (u[0], u[1]), rn = hypot (r[0], r[1]);
      if (!(w > 0) || !(rn > 0))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "ASTRA geometry: view %u of parallel_vec has a zero %s vector", k, w > 0 ? "ray" : "u");
          return NULL;
        }
      const double beta = atan2 (u[1], u[0]), offset = (d[0] * u[0] + d[1] * u[1]) / w;
      const double prev = k > 0 ? g->angles[k - 1] : beta;
      g->angles[k] = beta + 2 * G_PI * nearbyint ((prev - beta) / (2 * G_PI));
      const double cos_ru = fabs (r[0] * u[0] + r[1] * u[1]) / (rn * w);
      if (k == 0)
        g->pitch_u = w, g->offset_u = offset;
      const char *why = cos_ru > PARALLEL_VEC_TOL ? "rays not perpendicular to the detector row"
                        : fabs (w - g->pitch_u) > PARALLEL_VEC_TOL * g->pitch_u ? "a pitch other than the first view's"
                        : fabs (offset - g->offset_u) > PARALLEL_VEC_TOL * g->pitch_u
                          ? "a detector offset other than the first view's" : NULL;
      if (why != NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                       "ASTRA geometry: parallel_vec view %u has %s; a parallel beam here has rays across the row, "
                       "one pitch and one offset (|u| %.9g mm, offset %.9g mm, cos(ray, u) %.2g; first view: "
                       "pitch %.9g mm, offset %.9g mm)", k, why, w, offset, cos_ru, g->pitch_u, g->offset_u);
          return NULL;
        }
    }
  return g_steal_pointer (&g);
}

CtrGeometry *
ctr_geometry_import_astra (const char *json_text, gssize length, GError **error)
{
  g_return_val_if_fail (json_text != NULL, NULL);
  g_autoptr (JsonParser) parser = ctr_json_parse (json_text, length, "ASTRA geometry", error);
  if (parser == NULL)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "ASTRA geometry: expected one JSON object with the keys of ASTRA's proj_geom");
      return NULL;
    }
  JsonObject *o = json_node_get_object (root);
  JsonNode *tn = json_object_has_member (o, "type") ? json_object_get_member (o, "type") : NULL;
  const char *type = tn != NULL && JSON_NODE_HOLDS_VALUE (tn) ? json_node_get_string (tn) : NULL;
  if (type == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "ASTRA geometry: the key “type” is missing or not a string");
      return NULL;
    }
  g_autoptr (CtrGeometry) g = NULL;
  if (g_str_equal (type, "parallel"))
    g = astra_circular (o, CTR_BEAM_PARALLEL, error);
  else if (g_str_equal (type, "fanflat"))
    g = astra_circular (o, CTR_BEAM_FAN, error);
  else if (g_str_equal (type, "cone"))
    g = astra_circular (o, CTR_BEAM_CONE, error);
  else if (g_str_equal (type, "fanflat_vec"))
    g = astra_vectors (o, CTR_BEAM_FAN, error);
  else if (g_str_equal (type, "parallel_vec"))
    g = astra_parallel_vec (o, error);
  else if (g_str_equal (type, "cone_vec"))
    g = astra_vectors (o, CTR_BEAM_CONE, error);
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "ASTRA geometry type “%s” is not read; parallel, parallel_vec, fanflat, fanflat_vec, cone and "
                   "cone_vec are",
                   type);
      return NULL;
    }
  if (g == NULL)
    return NULL;
  if (!ctr_geometry_validate (g, error))
    {
      g_prefix_error (error, "ASTRA geometry: ");
      return NULL;
    }
  return g_steal_pointer (&g);
}

/* ------------------------------------------------------------------------ */
/* RTK                                                                       */

enum { SID, SDD, GANTRY, POX, POY, OOP, IPA, SOX, SOY, RADIUS, N_KEYS };
static const char *const rtk_keys[N_KEYS] = {
  "SourceToIsocenterDistance", "SourceToDetectorDistance", "GantryAngle", "ProjectionOffsetX",
  "ProjectionOffsetY", "OutOfPlaneAngle", "InPlaneAngle", "SourceOffsetX", "SourceOffsetY",
  "RadiusCylindricalDetector",
};

typedef struct {
  double v[N_KEYS];
  guint32 set;  /* bit k: v[k] given */
} RtkValues;

typedef struct {
  gboolean root_seen, in_projection;
  int key;            /* element being read, or -1 */
  GString *text;
  RtkValues top, cur;
  RtkValues *projections;   /* n_projections of room for capacity */
  guint n_projections, capacity;
} RtkParse;

/* Room for one more projection's values in @p (grown by doubling with the
 * non-aborting allocator: a document of short <Projection/> elements
 * implies 88 bytes a projection from 13 bytes of text); FALSE with
 * CTR_ERROR_OUT_OF_MEMORY. */
static gboolean
rtk_room (RtkParse *p, GError **error)
{
  if (p->n_projections < p->capacity)
    return TRUE;
  const guint64 cap = MAX (64, (guint64) p->capacity * 2);
  g_autofree char *what = NULL;
  gpointer grown = NULL;
  if (cap <= G_MAXUINT)
    {
      what = g_strdup_printf ("RTK geometry: room for the values of %" G_GUINT64_FORMAT " projections", cap);
      if (!ctr_memory_check (ctr_memory_mul (cap, sizeof (RtkValues)), what, error))
        return FALSE;
      grown = g_try_realloc_n (p->projections, cap, sizeof (RtkValues));
    }
  if (grown == NULL)
    {
      ctr_memory_set_error (error, ctr_memory_mul (cap, sizeof (RtkValues)),
                            what != NULL ? what : "RTK geometry: the values of more than 2³² projections");
      return FALSE;
    }
  p->projections = grown;
  p->capacity = (guint) cap;
  return TRUE;
}

static void
rtk_start (GMarkupParseContext *ctx, const char *name, const char **an, const char **av, gpointer data,
           GError **error)
{
  RtkParse *p = data;
  (void) ctx;
  (void) an;
  (void) av;
  p->key = -1;
  g_string_truncate (p->text, 0);
  if (!p->root_seen)
    {
      if (!g_str_equal (name, "RTKThreeDCircularGeometry"))
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "RTK geometry: the document element is <%s>, not <RTKThreeDCircularGeometry>", name);
      p->root_seen = TRUE;
      return;
    }
  if (g_str_equal (name, "Projection"))
    {
      if (p->in_projection)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "RTK geometry: <Projection> inside <Projection>");
      p->in_projection = TRUE;
      memset (&p->cur, 0, sizeof p->cur);
      return;
    }
  for (int k = 0; k < N_KEYS; k++)
    if (g_str_equal (name, rtk_keys[k]))
      p->key = k;
}

static void
rtk_text (GMarkupParseContext *ctx, const char *text, gsize len, gpointer data, GError **error)
{
  RtkParse *p = data;
  (void) ctx;
  (void) error;
  if (p->key >= 0)
    g_string_append_len (p->text, text, (gssize) len);
}

static void
rtk_end (GMarkupParseContext *ctx, const char *name, gpointer data, GError **error)
{
  RtkParse *p = data;
  (void) ctx;
  if (g_str_equal (name, "Projection"))
    {
      if (!rtk_room (p, error))
        return;
      p->projections[p->n_projections++] = p->cur;
      p->in_projection = FALSE;
      return;
    }
  if (p->key < 0)
    return;
  g_strstrip (p->text->str);
  char *end = NULL;
  const double v = g_ascii_strtod (p->text->str, &end);
  if (end == p->text->str || *end != '\0' || !isfinite (v))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "RTK geometry: <%s> holds “%s”, not a number", name,
                   p->text->str);
      return;
    }
  RtkValues *into = p->in_projection ? &p->cur : &p->top;
  into->v[p->key] = v;
  into->set |= 1u << p->key;
  p->key = -1;
}

/* The value of @key for projection @pr: its own, else the shared one, else 0. */
static double
rtk_value (const RtkValues *pr, const RtkValues *top, int key)
{
  if (pr->set & (1u << key))
    return pr->v[key];
  return (top->set & (1u << key)) ? top->v[key] : 0.0;
}

/* RTK fixed frame → ours: (x_r, y_r, z_r) ↦ (x_r, −z_r, y_r). */
static void
rtk_to_ours (const double r[3], double *out)
{
  out[0] = r[0];
  out[1] = -r[2];
  out[2] = r[1];
}

/* Rᵀ·a for R = Rz(−c)·Rx(−a)·Ry(−b) (a: out-of-plane, b: gantry, c: in-plane),
 * i.e. Rᵀ = Ry(b)·Rx(a)·Rz(c). */
static void
rtk_rotate_back (double oop, double gantry, double inplane, const double a[3], double out[3])
{
  const double cz = cos (inplane), sz = sin (inplane), cx = cos (oop), sx = sin (oop);
  const double cy = cos (gantry), sy = sin (gantry);
  const double z[3] = { cz * a[0] - sz * a[1], sz * a[0] + cz * a[1], a[2] };
  const double x[3] = { z[0], cx * z[1] - sx * z[2], sx * z[1] + cx * z[2] };
  out[0] = cy * x[0] + sy * x[2];
  out[1] = x[1];
  out[2] = -sy * x[0] + cy * x[2];
}

CtrGeometry *
ctr_geometry_import_rtk (const char *xml_text, gssize length, const CtrRtkDetector *det, GError **error)
{
  g_return_val_if_fail (xml_text != NULL && det != NULL, NULL);
  if (det->cols == 0 || det->rows == 0 || !(det->spacing_u_mm > 0) || !(det->spacing_v_mm > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "RTK geometry: the projection images' size and spacing must be given (got %u × %u pixels of "
                   "%g × %g mm)", det->cols, det->rows, det->spacing_u_mm, det->spacing_v_mm);
      return NULL;
    }
  static const GMarkupParser parser = { rtk_start, rtk_end, rtk_text, NULL, NULL };
  RtkParse p = { .key = -1, .text = g_string_new (NULL) };
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, G_MARKUP_IGNORE_QUALIFIED, &p, NULL);
  g_autoptr (GError) local = NULL;
  const gboolean ok = g_markup_parse_context_parse (ctx, xml_text, length, &local)
                      && g_markup_parse_context_end_parse (ctx, &local);
  g_markup_parse_context_free (ctx);
  g_string_free (p.text, TRUE);
  g_autofree RtkValues *projections = p.projections;
  if (!ok)
    {
      if (local->domain == CTR_ERROR)
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "RTK geometry: not valid XML: %s", local->message);
      return NULL;
    }
  const guint views = p.n_projections;
  if (!p.root_seen || views == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "RTK geometry: no <Projection> elements");
      return NULL;
    }
  g_autofree char *what = g_strdup_printf ("RTK geometry: the vectors of %u views", views);
  g_autofree double *vec = ctr_memory_try_new ((gsize) views * CTR_GEOMETRY_VECTOR_LEN, sizeof (double), FALSE,
                                               what, error);
  if (vec == NULL)
    return NULL;
  /* u and v (mm) of the detector's centre pixel (in doubles: sizes are unsigned) */
  const double hu = (det->cols - 1.0) * 0.5 * det->spacing_u_mm, hv = (det->rows - 1.0) * 0.5 * det->spacing_v_mm;
  const double uc = isnan (det->origin_u_mm) ? 0.0 : det->origin_u_mm + hu;
  const double vc = isnan (det->origin_v_mm) ? 0.0 : det->origin_v_mm + hv;
  for (guint k = 0; k < views; k++)
    {
      const RtkValues *pr = &projections[k];
      double v[N_KEYS];
      for (int i = 0; i < N_KEYS; i++)
        v[i] = rtk_value (pr, &p.top, i);
      const guint32 given = pr->set | p.top.set;
      if (!(given & (1u << SID)) || !(given & (1u << SDD)))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "RTK geometry: projection %u has no SourceToIsocenterDistance or SourceToDetectorDistance", k);
          return NULL;
        }
      if (v[RADIUS] != 0.0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                       "RTK geometry: a cylindrical detector (RadiusCylindricalDetector %g mm) is not supported; "
                       "per-view vectors describe a flat panel", v[RADIUS]);
          return NULL;
        }
      if (v[SDD] == 0.0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                       "RTK geometry: projection %u is parallel beam (SourceToDetectorDistance 0); RTK's parallel "
                       "geometry is not imported", k);
          return NULL;
        }
      const double a = v[OOP] * G_PI / 180.0, b = v[GANTRY] * G_PI / 180.0, c = v[IPA] * G_PI / 180.0;
      const double src[3] = { v[SOX], v[SOY], v[SID] };
      const double centre[3] = { uc + v[POX], vc + v[POY], v[SID] - v[SDD] };
      const double eu[3] = { det->spacing_u_mm, 0, 0 }, ev[3] = { 0, det->spacing_v_mm, 0 };
      double r[3], *w = vec + (gsize) k * CTR_GEOMETRY_VECTOR_LEN;
      rtk_rotate_back (a, b, c, src, r);
      rtk_to_ours (r, w);
      rtk_rotate_back (a, b, c, centre, r);
      rtk_to_ours (r, w + 3);
      rtk_rotate_back (a, b, c, eu, r);
      rtk_to_ours (r, w + 6);
      rtk_rotate_back (a, b, c, ev, r);
      rtk_to_ours (r, w + 9);
    }
  CtrGeometry *g = ctr_geometry_new_from_vectors (CTR_BEAM_CONE, views, det->rows, det->cols, vec, error);
  if (g == NULL)
    g_prefix_error (error, "RTK geometry: ");
  return g;
}
