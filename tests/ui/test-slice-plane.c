/* test-slice-plane.c — the window's display buffers sized by the image,
 * without a display (issue 38): a coronal or sagittal plane's copy, the
 * 8-bit picture of a plane and the Image Quality panel's slice copy that
 * do not fit end with CTR_ERROR_OUT_OF_MEMORY naming them (the slice view
 * then says so in place of the image), never GLib's abort ("failed to
 * allocate", SIGTRAP, on the old code).  The planes' orientation and the
 * picture's grey levels are checked on a small volume.  The out-of-memory
 * cases run in a child under an address-space limit a few MiB above what
 * it holds (tests/ctr-test-memory.h); skipped under the sanitizers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "ctr-test-memory.h"
#include "ctr-iq-measure.h"
#include "ctr-slice-plane.h"

#define MiB (G_GUINT64_CONSTANT (1) << 20)

/* A volume of @nx × @ny × @nz pixels whose value is x + 10 y + 100 z. */
static CtrVolume *
ramp (guint nx, guint ny, guint nz)
{
  CtrGrid g = ctr_grid_square (nx, 1.0, nz, 1.0);
  g.ny = ny;
  g_autoptr(GError) error = NULL;
  CtrVolume *v = ctr_volume_new (&g, &error);
  g_assert_no_error (error);
  for (guint z = 0; z < nz; z++)
    for (guint y = 0; y < ny; y++)
      for (guint x = 0; x < nx; x++)
        v->data[((gsize) z * ny + y) * nx + x] = (float) (x + 10 * y + 100 * z);
  return v;
}

/* Coronal: x right, z up (row 0 the top slice); sagittal: y right reversed
 * (ctr-slice-plane.h); the picture grey from @lo to @hi. */
static void
test_planes (void)
{
  g_autoptr(CtrVolume) v = ramp (4, 3, 2);
  g_autoptr(GError) error = NULL;
  CtrSlicePlane p = { 0 };
  g_assert_true (ctr_slice_plane_extract (&p, v, CTR_SLICE_CORONAL, 1, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (p.grid.nx, ==, 4);
  g_assert_cmpuint (p.grid.ny, ==, 2);
  g_assert_cmpfloat (p.data[0], ==, 110.f);   /* top row: z = 1, y = 1, x = 0 */
  g_assert_cmpfloat (p.data[4 + 3], ==, 13.f);
  g_assert_true (ctr_slice_plane_extract (&p, v, CTR_SLICE_SAGITTAL, 2, &error));
  g_assert_cmpuint (p.grid.nx, ==, 3);
  g_assert_cmpfloat (p.data[0], ==, 122.f);   /* z = 1, y = 2, x = 2 */
  g_assert_true (ctr_slice_plane_extract (&p, v, CTR_SLICE_AXIAL, 0, &error));
  g_autoptr(GdkTexture) t = ctr_slice_plane_texture (&p, 0, 23, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);
  guchar px[4 * 3 * 4];
  gdk_texture_download (t, px, 4 * 4);   /* 4 bytes a pixel, grey in each colour */
  g_assert_cmpuint (px[0], ==, 0);                       /* (0, 0): 0 */
  g_assert_cmpuint (px[(1 * 4 + 1) * 4], ==, 122);       /* (1, 1): 11 of 23 */
  g_assert_cmpuint (px[(2 * 4 + 3) * 4], ==, 255);       /* (3, 2): 23 */
  ctr_slice_plane_clear (&p);
}

/* The children: @what fails with CTR_ERROR_OUT_OF_MEMORY, its message on
 * stderr. */
static void
no_abort_child (const char *what)
{
  g_autoptr(GError) error = NULL;
  CtrSlicePlane p = { 0 };
  if (strcmp (what, "plane") == 0)
    {
      /* the coronal plane of 2²⁰ × 1 × 8 pixels (32 MiB): its copy (32 MiB
       * again) does not fit in 8 */
      g_autoptr(CtrVolume) v = ramp (1u << 20, 1, 8);
      test_limit_room (8 * MiB);
      g_assert_false (ctr_slice_plane_extract (&p, v, CTR_SLICE_CORONAL, 0, &error));
      g_assert_null (p.data);
      g_assert_cmpuint (p.grid.nx, ==, 1u << 20);   /* the plane's grid is known */
    }
  else if (strcmp (what, "picture") == 0)
    {
      /* the picture of a 4096² slice (64 MiB of floats): 48 MiB of grey
       * pixels do not fit in 8 */
      g_autoptr(CtrVolume) v = ramp (4096, 4096, 1);
      g_assert_true (ctr_slice_plane_extract (&p, v, CTR_SLICE_AXIAL, 0, &error));
      test_limit_room (8 * MiB);
      g_assert_null (ctr_slice_plane_texture (&p, 0, 1, &error));
    }
  else
    {
      /* the Image Quality panel's HU copy of a 4096² slice (64 MiB) */
      g_autoptr(CtrVolume) v = ramp (4096, 4096, 1);
      gboolean hu;
      test_limit_room (8 * MiB);
      g_assert_null (ctr_iq_slice_hu (v, 0, 0.02, &hu, &error));
    }
  ctr_slice_plane_clear (&p);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_printerr ("%s\n", error->message);
}

static void
test_no_abort (gconstpointer data)
{
  test_no_abort_trap (no_abort_child, data,
                      strcmp (data, "plane") == 0     ? "*shown plane of 1048576 * 8 pixels*"
                      : strcmp (data, "picture") == 0 ? "*picture of 4096 * 4096 pixels*"
                      : "*measured slice of 4096 * 4096 pixels*");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/slice-plane/planes", test_planes);
  g_test_add_data_func ("/ui/slice-plane/no-abort/plane", "plane", test_no_abort);
  g_test_add_data_func ("/ui/slice-plane/no-abort/picture", "picture", test_no_abort);
  g_test_add_data_func ("/ui/slice-plane/no-abort/iq-slice", "iq-slice", test_no_abort);
  return g_test_run ();
}
