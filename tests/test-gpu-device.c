/* test-gpu-device.c — the device a process uses (ctr-cuda-api.h), on the
 * CUDA emulation harness with 2 emulated devices: the node-local rank
 * chooses it (rank 3 of a node with 2 devices: device 1), the probe reports
 * it, and kernels queued from any thread run on it, not on device 0 (CUDA
 * keeps the current device per host thread; a thread that never set one
 * would use device 0). */
#include <glib.h>

#include "ctr-cuda.h"
#include "ctr-cuda-vecops-api.h"
#include "ctr-emu.h"

/* Fills a small device vector from the calling thread; TRUE when it ran. */
static gpointer
fill_once (gpointer unused)
{
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaVecs *v = NULL;
  float *y = NULL, host[64];
  gboolean ok = ctr_cuda_vecs_create (NULL, &v, err) == CTR_CUDA_OK
                && ctr_cuda_vec_alloc (v, 64, &y, err) == CTR_CUDA_OK
                && ctr_cuda_vec_fill (v, y, 64, 2.5f, err) == CTR_CUDA_OK
                && ctr_cuda_vec_download (v, host, y, 64, err) == CTR_CUDA_OK && host[63] == 2.5f;
  if (!ok)
    g_printerr ("fill: %s\n", err);
  if (y != NULL)
    ctr_cuda_vec_free (v, y);
  ctr_cuda_vecs_destroy (v);
  return GINT_TO_POINTER (ok);
}

static void
test_rank_device (void)
{
  ctr_cuda_device_set_local_rank (3);
  CtrCudaDeviceInfo info;
  g_autoptr (GError) e = NULL;
  g_assert_true (ctr_cuda_probe (&info, &e));
  g_assert_no_error (e);
  g_assert_cmpint (info.count, ==, 2);
  g_assert_cmpint (info.device, ==, 1);

  /* This thread (the probe's), then a thread that has not touched CUDA. */
  g_assert_true (GPOINTER_TO_INT (fill_once (NULL)));
  const unsigned long long on1 = ctr_emu_launches_on (1);
  g_assert_cmpuint (on1, >, 0);
  GThread *t = g_thread_new ("other", fill_once, NULL);
  g_assert_true (GPOINTER_TO_INT (g_thread_join (t)));
  g_assert_cmpuint (ctr_emu_launches_on (1), >, on1);
  g_assert_cmpuint (ctr_emu_launches_on (0), ==, 0);
}

static void
test_choice (void)
{
  g_assert_cmpint (ctr_cuda_device_for_rank (0, 2), ==, 0);
  g_assert_cmpint (ctr_cuda_device_for_rank (1, 2), ==, 1);
  g_assert_cmpint (ctr_cuda_device_for_rank (2, 2), ==, 0);
  g_assert_cmpint (ctr_cuda_device_for_rank (5, 1), ==, 0);
  g_assert_cmpint (ctr_cuda_device_for_rank (-1, 4), ==, 0);
  g_assert_cmpint (ctr_cuda_device_for_rank (3, 0), ==, 0);
}

int
main (int argc, char **argv)
{
  /* Read by the harness at its first CUDA call, which comes later. */
  g_setenv ("CTR_EMU_DEVICES", "2", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/gpu/device/choice", test_choice);
  g_test_add_func ("/ctr/gpu/device/rank", test_rank_device);
  return g_test_run ();
}
