/* test-memory.c — the memory limit (base/ctr-memory.h) read from fixture
 * trees standing for "/": MemAvailable, the process's own cgroup v1 and v2
 * (walked up to the smallest limit, v1's "unlimited" ignored), the
 * address-space room left under RLIMIT_AS, CTR_MEMORY_LIMIT_MB; the bound
 * named in the message; the plan's estimate and its refusal; the matrix
 * builders running out of memory with an error, not an abort. */
#include "ctrecon.h"
#include "base/ctr-memory.h"
#include "ctr-test-memory.h"
#include "io/ctr-dicom-shim.h"
#include "analytic/ctr-fbp.h"
#include "analytic/ctr-fdk.h"
#include "analytic/ctr-rebin-helical.h"
#include "analytic/ctr-redundancy.h"
#include "base/ctr-sort.h"
#include "quality/ctr-metrics.h"
#include "quality/ctr-nps.h"
#include "quality/ctr-ttf.h"
#include "sysmat/ctr-blocking.h"
#include "sysmat/ctr-cone-op.h"
#include "sysmat/ctr-cone-projector.h"
#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-scsr-op.h"
#include "sysmat/ctr-symmetry.h"
#include "sysmat/ctr-sysmat.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MiB (G_GUINT64_CONSTANT (1) << 20)

/* Writes @text to @root/@rel, making the folders. */
static void
put (const char *root, const char *rel, const char *text)
{
  g_autofree char *path = g_build_filename (root, rel, NULL), *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static char *
fixture (void)
{
  g_autoptr (GError) error = NULL;
  char *root = g_dir_make_tmp ("ctr-memory-XXXXXX", &error);
  g_assert_no_error (error);
  put (root, "proc/meminfo", "MemTotal:       24576000 kB\nMemFree:         1000000 kB\n"
                             "MemAvailable:   20971520 kB\nBuffers:           12345 kB\n");
  put (root, "proc/self/status", "Name:\tctrecon\nVmPeak:\t  300000 kB\nVmSize:\t  262144 kB\nVmRSS:\t 1000 kB\n");
  return root;
}

static void
rm_rf (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  if (d != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          rm_rf (child);
        }
      g_dir_close (d);
    }
  g_remove (path);
}

static void
test_available (void)
{
  g_autofree char *root = fixture ();
  CtrMemoryLimit l;
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 20971520 * G_GUINT64_CONSTANT (1024));
  g_assert_cmpstr (l.bound, ==, "available memory");
  /* An old kernel without MemAvailable: the physical memory. */
  put (root, "proc/meminfo", "MemTotal:       24576000 kB\nMemFree:         1000000 kB\n");
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 24576000 * G_GUINT64_CONSTANT (1024));
  g_assert_cmpstr (l.bound, ==, "physical memory");
  rm_rf (root);
}

static void
test_cgroup_v2 (void)
{
  g_autofree char *root = fixture ();
  /* The process's own group, nested: the parent's limit is the smaller. */
  put (root, "proc/self/cgroup", "0::/user.slice/job.scope\n");
  put (root, "sys/fs/cgroup/memory.max", "max\n");
  put (root, "sys/fs/cgroup/user.slice/memory.max", "2147483648\n");
  put (root, "sys/fs/cgroup/user.slice/job.scope/memory.max", "max\n");
  CtrMemoryLimit l;
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 2048 * MiB);
  g_assert_cmpstr (l.bound, ==, "cgroup v2 limit");
  put (root, "sys/fs/cgroup/user.slice/job.scope/memory.max", "1258291200\n");
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 1200 * MiB);
  /* Only the process's own group counts, not the root's file alone. */
  put (root, "proc/self/cgroup", "0::/other\n");
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpstr (l.bound, ==, "available memory");
  rm_rf (root);
}

static void
test_cgroup_v1 (void)
{
  g_autofree char *root = fixture ();
  /* A hybrid hierarchy: the memory controller is v1, the v2 line has no
   * memory.max. */
  put (root, "proc/self/cgroup", "9:name=systemd:/\n8:pids:/\n4:cpu,memory:/docker/abc\n1:cpu:/\n0::/\n");
  put (root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  put (root, "sys/fs/cgroup/memory/docker/memory.limit_in_bytes", "9223372036854771712\n");
  put (root, "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "1258291200\n");
  CtrMemoryLimit l;
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 1200 * MiB);
  g_assert_cmpstr (l.bound, ==, "cgroup v1 limit");
  /* Inside the container the group's path may not exist under the mount:
   * the mount's root holds the container's limit. */
  g_autofree char *inner = g_build_filename (root, "sys/fs/cgroup/memory/docker", NULL);
  rm_rf (inner);
  put (root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n");
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 1024 * MiB);
  g_assert_cmpstr (l.bound, ==, "cgroup v1 limit");
  /* "Unlimited" everywhere: the available memory. */
  put (root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  ctr_memory_limit_parse (root, G_MAXUINT64, NULL, &l);
  g_assert_cmpstr (l.bound, ==, "available memory");
  rm_rf (root);
}

static void
test_rlimit_and_env (void)
{
  g_autofree char *root = fixture ();
  CtrMemoryLimit l;
  /* 1 GiB of address space, 256 MiB of it reserved already. */
  ctr_memory_limit_parse (root, 1024 * MiB, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 768 * MiB);
  g_assert_cmpstr (l.bound, ==, "address-space limit, ulimit -v");
  /* Less than what is reserved: nothing left. */
  ctr_memory_limit_parse (root, 100 * MiB, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, 0);
  ctr_memory_limit_parse (root, 1024 * MiB, "512", &l);
  g_assert_cmpuint (l.bytes, ==, 512 * MiB);
  g_assert_cmpstr (l.bound, ==, "CTR_MEMORY_LIMIT_MB");
  /* Not a number, zero, negative: ignored. */
  for (const char *const *bad = (const char *const[]) { "x", "0", "-5", "12abc", NULL }; *bad; bad++)
    {
      ctr_memory_limit_parse (root, G_MAXUINT64, *bad, &l);
      g_assert_cmpstr (l.bound, ==, "available memory");
    }
  /* Nothing readable at all: no bound (the live reading then takes the
   * physical memory). */
  ctr_memory_limit_parse ("/nonexistent-ctr-root", G_MAXUINT64, NULL, &l);
  g_assert_cmpuint (l.bytes, ==, G_MAXUINT64);
  g_assert_null (l.bound);
  rm_rf (root);
}

/* The live reading names its bound in the message; main() set
 * CTR_MEMORY_LIMIT_MB=256, well below this machine's memory. */
static void
test_live (void)
{
  CtrMemoryLimit l;
  ctr_memory_limit (&l);
  g_assert_cmpuint (l.bytes, ==, 256 * MiB);
  g_assert_cmpstr (l.bound, ==, "CTR_MEMORY_LIMIT_MB");
  g_autoptr (GError) error = NULL;
  g_assert_false (ctr_memory_check (300 * MiB, "the thing", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "the thing need 300.0\u00a0MiB of memory; "
                                            "256.0\u00a0MiB available (CTR_MEMORY_LIMIT_MB)"));
}

/* The plan refuses a stored matrix that does not fit before building it,
 * naming both figures; it states its estimate in the notes when it fits. */
static CtrGeometry *
fan (guint views, guint cols)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, views);
  g->n_cols = cols;
  g->shape = CTR_DETECTOR_FLAT;
  g->sod_mm = 250;
  g->sdd_mm = 450;
  const double gmax = asin (60.0 / g->sod_mm);
  g->pitch_u = 2 * g->sdd_mm * tan (gmax) / cols;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / views);
  return g;
}

static void
test_plan_refuses (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = fan (720, 1024);
  CtrGrid grid = ctr_grid_square (1024, 120.0 / 1024, 1, 1);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  o.matrix = CTR_MATRIX_SCSR;
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  g_assert_null (plan);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "SCSR matrix need"));
  g_assert_nonnull (strstr (error->message, "available (CTR_MEMORY_LIMIT_MB)"));
  g_clear_error (&error);

  CtrGrid small = ctr_grid_square (64, 120.0 / 64, 1, 1);
  g_autoptr (CtrReconPlan) ok = ctr_recon_plan_new (g, &small, &o, NULL, &error);
  g_assert_no_error (error);
  gboolean seen = FALSE;
  for (const char *const *n = ctr_recon_plan_get_notes (ok); *n != NULL; n++)
    {
      g_test_message ("note: %s", *n);
      seen = seen || (g_str_has_prefix (*n, "memory: ") && strstr (*n, "estimated (SCSR matrix ") != NULL
                      && strstr (*n, "available (CTR_MEMORY_LIMIT_MB)") != NULL);
    }
  g_assert_true (seen);
}

/* Running out of memory while a matrix is built (the estimate passed, the
 * kernel said no): CTR_ERROR_OUT_OF_MEMORY with the figures, never GLib's
 * abort.  In a child under an address-space limit 64 MiB above what it has
 * reserved; @data: "csr" or "scsr", the builder. */
static void
test_build_out_of_memory (gconstpointer data)
{
  const gboolean csr = strcmp (data, "csr") == 0;
  if (g_getenv ("CTR_SANITIZED") != NULL)
    {
      g_test_skip ("an address-space limit stops the sanitizers");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autoptr (CtrGeometry) g = fan (720, 1024);
      CtrGrid grid = ctr_grid_square (512, 120.0 / 512, 1, 1);
      struct rlimit rl;
      rl.rlim_cur = rl.rlim_max = test_vm_size () + (64u << 20);
      g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
      g_autoptr (GError) error = NULL;
      gpointer m = csr ? (gpointer) ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, &error)
                       : (gpointer) ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &error);
      g_assert_null (m);
      g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
      g_printerr ("%s\n", error->message);
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (csr ? "*system matrix of 720 views * 1024 columns ran out of memory while it was built*"
                                   "available (address-space limit, ulimit -v)*"
                                 : "*SCSR matrix of * orbits * 1024 columns ran out of memory while it was built*"
                                   "available (address-space limit, ulimit -v)*");
}

/* The allocations after the build (issue 36's leftovers): the blocked
 * layout, the symmetry's pixel tables, the SCSR operator's image weights
 * run out of memory with CTR_ERROR_OUT_OF_MEMORY, never GLib's abort (on
 * the old code: "failed to allocate", SIGTRAP, exit 133).  In a child,
 * under an address-space limit a few MiB above what it has reserved, set
 * after the matrix is built (its OpenMP threads already started);
 * @data: "blocked", "expand" (the blocked layout of a compact matrix),
 * "symmetry", "weights" or "arrays" (a compact matrix's 8-byte elements
 * asked for through ctr_scsr_arrays, which made them with g_new: on the
 * old code "failed to allocate 79974064 bytes"). */
static void
test_no_abort (gconstpointer data)
{
  if (g_getenv ("CTR_SANITIZED") != NULL)
    {
      g_test_skip ("an address-space limit stops the sanitizers");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      const gboolean weights = strcmp (data, "weights") == 0;
      g_autoptr (CtrGeometry) g = fan (360, 512);
      /* two slices: the matrix is born in the 8-byte store (the blocked
       * layout's own arrays fail); one: the compact one (its expansion) */
      g->n_rows = weights ? 256 : strcmp (data, "blocked") == 0 ? 2 : 1;
      CtrGrid grid = ctr_grid_square (256, 120.0 / 256, g->n_rows, 1);
      g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &error);
      g_assert_no_error (error);
      CtrGrid big = ctr_grid_square (4096, 120.0 / 4096, 1, 1);
      struct rlimit rl;
      rl.rlim_cur = rl.rlim_max = test_vm_size () + (4u << 20);
      g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
      if (g_str_has_prefix (data, "blocked") || strcmp (data, "expand") == 0)
        g_assert_null (ctr_blocked_new (m, CTR_BLOCKING_ORBIT, &error));
      else if (strcmp (data, "symmetry") == 0)
        g_assert_null (ctr_symmetry_find (g, &big, CTR_SYM_ALL, &error));
      else if (strcmp (data, "arrays") == 0)
        {
          const CtrScsrElem *el = NULL;
          g_assert_false (ctr_scsr_arrays (m, NULL, &el, &error));
          g_assert_null (el);
        }
      else
        g_assert_null (ctr_scsr_op_new (m, g, &grid, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
      g_printerr ("%s\n", error->message);
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  const char *what = strcmp (data, "blocked") == 0 ? "*blocked layout of the system matrix*"
                     : strcmp (data, "expand") == 0 || strcmp (data, "arrays") == 0 ? "*SCSR matrix's 8-byte elements*"
                     : strcmp (data, "symmetry") == 0 ? "*symmetry's pixel tables*"
                                                       : "*SCSR operator's image weights*";
  g_test_trap_assert_stderr (what);
}

/* The SCSR operator of 8 views × 16 columns on a 2048² grid: a small matrix
 * whose column sums and subset overlaps need image-sized buffers. */
static CtrOperator *
scsr_op_2048 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = fan (8, 16);
  CtrGrid grid = ctr_grid_square (2048, 120.0 / 2048, 1, 1);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &error);
  g_assert_no_error (error);
  CtrOperator *op = ctr_scsr_op_new (m, g, &grid, &error);
  g_assert_no_error (error);
  return op;
}

/* The child of test_no_abort_run: @what fails with CTR_ERROR_OUT_OF_MEMORY
 * (its message on stderr) or, "cone", runs without allocating. */
static void
no_abort_child (const char *what)
{
  g_autoptr (GError) error = NULL;
  if (strcmp (what, "sums") == 0 || strcmp (what, "overlap") == 0)
    {
      g_autoptr (CtrOperator) op = scsr_op_2048 ();
      g_autofree float *out = g_new (float, op->scale_size);
      test_limit_room (4 * MiB);
      double kappa;
      g_assert_false (strcmp (what, "sums") == 0 ? op->klass->column_sums (op, CTR_SUBSET_ALL, out, &error)
                                                 : op->klass->subset_overlap (op, 0, &kappa, &error));
    }
  else if (strcmp (what, "fly") == 0)
    {
      /* The on-the-fly adjoint's buckets grow on the first product: the
       * threads started by a forward product, then the limit. */
      g_autoptr (CtrGeometry) g = fan (8, 64);
      CtrGrid grid = ctr_grid_square (2048, 120.0 / 2048, 1, 1);
      g_autoptr (CtrOperator) op = ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_JOSEPH, NULL, &error);
      g_assert_no_error (error);
      g_autofree float *x = g_new0 (float, op->image_size), *y = g_new0 (float, op->data_size);
      g_assert_true (op->klass->forward (op, CTR_SUBSET_ALL, x, y, &error));
      test_limit_room (1 * MiB);
      g_assert_false (op->klass->adjoint (op, CTR_SUBSET_ALL, y, x, &error));
    }
  else if (strcmp (what, "fly-rows") == 0)
    {
      /* Rows that cannot grow lose elements: the product fails instead of
       * coming back short (it used to return TRUE with truncated rays).  A
       * small operator starts the threads; then one whose area rows are
       * long (16 columns over 120 mm on 2048² pixels: ~2 MB a row) meets
       * the limit on its first product. */
      g_autoptr (CtrGeometry) g0 = fan (8, 16);
      CtrGrid small = ctr_grid_square (64, 120.0 / 64, 1, 1);
      g_autoptr (CtrOperator) op0 = ctr_fly_op_new (g0, &small, CTR_RAY_MODEL_AREA, NULL, &error);
      g_assert_no_error (error);
      g_autofree float *x0 = g_new0 (float, op0->image_size), *y0 = g_new0 (float, op0->data_size);
      g_assert_true (op0->klass->forward (op0, CTR_SUBSET_ALL, x0, y0, &error));
      CtrGrid grid = ctr_grid_square (2048, 120.0 / 2048, 1, 1);
      g_autoptr (CtrOperator) op = ctr_fly_op_new (g0, &grid, CTR_RAY_MODEL_AREA, NULL, &error);
      g_assert_no_error (error);
      g_autofree float *x = g_new0 (float, op->image_size), *y = g_new0 (float, op->data_size);
      test_limit_room (1 * MiB);
      g_assert_false (op->klass->forward (op, CTR_SUBSET_ALL, x, y, &error));
    }
  else if (strcmp (what, "cone-adjoint") == 0)
    {
      /* The adjoint of a view of 512 × 512 rays: its ray tables (11 MiB)
       * do not fit; the blocks set the rays up again, the same sums. */
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_CONE, 1);
      g->sod_mm = 400.0;
      g->sdd_mm = 700.0;
      g->n_cols = g->n_rows = 512;
      g->pitch_u = g->pitch_v_mm = 0.25;
      ctr_geometry_set_uniform_angles (g, 0.3, G_PI);
      CtrGrid grid = ctr_grid_square (64, 1.0, 64, 1.0);
      g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &grid, &error);
      g_assert_no_error (error);
      const gsize nrays = (gsize) g->n_rows * g->n_cols, nvox = ctr_grid_size (&grid);
      g_autofree float *y = g_new (float, nrays), *tabled = g_new0 (float, nvox), *untabled = g_new0 (float, nvox);
      for (gsize i = 0; i < nrays; i++)
        y[i] = (float) (1 + i % 7);
      ctr_cone_projector_adjoint_view (cp, y, 0, tabled, NULL);
      test_limit_room (4 * MiB);
      ctr_cone_projector_adjoint_view (cp, y, 0, untabled, NULL);
      g_assert_cmpmem (tabled, nvox * sizeof (float), untabled, nvox * sizeof (float));
      double total = 0;
      for (gsize q = 0; q < nvox; q++)
        total += untabled[q];
      g_assert_cmpfloat (total, >, 0);
      g_printerr ("cone adjoint without its tables: the same %g\n", total);
      return;
    }
  else if (strcmp (what, "rebin") == 0)
    {
      /* A helix of 4 turns × 1000 views with a (still) flying focal spot:
       * its rebinning tables are 3 × 4000 × 736 doubles (67 MiB). */
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_CONE, 4000);
      g->shape = CTR_DETECTOR_CURVED;
      g->sod_mm = 300.0;
      g->sdd_mm = 600.0;
      g->n_rows = 4;
      g->n_cols = 736;
      g->pitch_u = 2.0 * asin (64.0 / 300.0) / g->n_cols;
      g->pitch_v_mm = 2.0;
      ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / 1000);
      ctr_geometry_set_source_z (g, 0.0, 4.0 / 1000, NULL);
      g->focal_shift = g_new0 (double, 3 * g->n_views);
      const double z = 8.0;
      test_limit_room (4 * MiB);
      g_assert_null (ctr_rebin_plan_new (g, CTR_REBIN_360LI, &z, 1, &error));
    }
  else if (strcmp (what, "metrics") == 0)
    {
      const guint n = 2048;
      g_autofree float *a = g_new0 (float, (gsize) n * n), *b = g_new0 (float, (gsize) n * n);
      a[12345] = 1.f;
      test_limit_room (4 * MiB);
      double ssim;
      g_assert_false (ctr_metrics_ssim_full (a, b, n, n, 1.0, &ssim, &error));
    }
  else if (strcmp (what, "sysmat") == 0)
    {
      /* The threads and their heaps start on a small build, then the limit:
       * room for the matrix (Joseph rays: about 10⁶ elements), not for
       * every thread's chunk owner of each of the 4096² pixels (64 MiB a
       * thread). */
      g_autoptr (CtrGeometry) g = fan (8, 16);
      CtrGrid small = ctr_grid_square (64, 120.0 / 64, 1, 1), big = ctr_grid_square (4096, 120.0 / 4096, 1, 1);
      g_autoptr (CtrSysmat) warm = ctr_sysmat_build (g, &small, CTR_RAY_MODEL_JOSEPH, NULL, &error);
      g_assert_no_error (error);
      test_limit_room (64 * MiB);
      g_assert_null (ctr_sysmat_build (g, &big, CTR_RAY_MODEL_JOSEPH, NULL, &error));
    }
  else
    {
      /* Row sums of the cone pair: the image of ones is the operator's own
       * scratch, nothing of the volume's size is allocated. */
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_CONE, 2);
      g->sod_mm = 400.0;
      g->sdd_mm = 700.0;
      g->n_cols = g->n_rows = 8;
      g->pitch_u = g->pitch_v_mm = 2.0;
      ctr_geometry_set_uniform_angles (g, 0.1, G_PI);
      CtrGrid grid = ctr_grid_square (256, 0.5, 256, 0.5);
      CtrConeProjector *cp = ctr_cone_projector_new (g, &grid, &error);
      g_assert_no_error (error);
      g_autoptr (CtrOperator) op = ctr_cone_op_new (cp, &error);
      g_assert_no_error (error);
      g_autofree float *sum = g_new0 (float, op->data_size);
      op->klass->row_sums (op, NULL, sum);   /* starts the threads */
      memset (sum, 0, op->data_size * sizeof (float));
      test_limit_room (4 * MiB);
      op->klass->row_sums (op, NULL, sum);
      g_assert_cmpfloat (sum[(g->n_rows / 2) * g->n_cols + g->n_cols / 2], >, 100.f);   /* ~128 mm of 1s */
      g_printerr ("cone row sums: %g\n", sum[(g->n_rows / 2) * g->n_cols + g->n_cols / 2]);
      return;
    }
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_printerr ("%s\n", error->message);
}

/* Problem-sized scratch of the operators and the metrics (issue 36): out
 * of memory is CTR_ERROR_OUT_OF_MEMORY naming the buffer, never GLib's
 * abort ("failed to allocate", SIGTRAP, on the old code): the SCSR column
 * sums, the SCSR subset overlaps, the SSIM buffers, the system matrix's
 * chunk owners, the on-the-fly adjoint's buckets, the helical rebinning's
 * focal-spot tables; the cone pair's row sums allocate nothing and its
 * adjoint runs without its ray tables, to the same bits.  In a child
 * under an address-space limit a few MiB above what it has reserved. */
static void
test_no_abort_run (gconstpointer data)
{
  const char *what = data;
  test_no_abort_trap (no_abort_child, data,
                      strcmp (what, "sums") == 0      ? "*column sums' image of * packed pixels*"
                      : strcmp (what, "overlap") == 0 ? "*subset overlaps' counts of * threads * 4194304 pixels*"
                      : strcmp (what, "metrics") == 0 ? "*SSIM buffers of 2048 * 2048 pixels*"
                      : strcmp (what, "fly") == 0     ? "*on-the-fly adjoint's element buckets*"
                      : strcmp (what, "fly-rows") == 0 ? "*on-the-fly projector's row buffers*"
                      : strcmp (what, "rebin") == 0   ? "*focal spot's rebinning tables of 4000 views * 736 columns*"
                      : strcmp (what, "cone-adjoint") == 0 ? "*cone adjoint without its tables: the same *"
                      : strcmp (what, "sysmat") == 0  ? "*system matrix's chunk owners of * threads * 16777216 pixels*"
                      : "*cone row sums: *");
}

/* @threads OpenMP threads, started (their stacks reserved) before a limit. */
static void
start_threads (int threads)
{
#ifdef _OPENMP
  omp_set_num_threads (threads);
  volatile int sum = 0;
#pragma omp parallel
  g_atomic_int_add (&sum, 1);
#endif
}

/* A cone beam of @views × @rows × @cols on a flat panel for FDK. */
static CtrGeometry *
cone (guint views, guint rows, guint cols)
{
  CtrGeometry *g = fan (views, cols);
  g->beam = CTR_BEAM_CONE;
  g->n_rows = rows;
  g->pitch_v_mm = 0.001;
  return g;
}

/* The child of test_no_abort_small: @what fails with CTR_ERROR_OUT_OF_MEMORY
 * under a limit a few MiB above what the data already hold, where the small
 * buffers beside the data (one detector plane, the threads' filter rows, a
 * table per view) do not fit. */
static void
no_abort_small_child (const char *what)
{
  g_autoptr (GError) error = NULL;
  if (strcmp (what, "open-beam") == 0)
    {
      /* counts of 1 view × 1024 × 2048 and their flat (8 MiB each): the
       * open beam of the plane as doubles (16 MiB) does not fit in 4 */
      g_autoptr (CtrProjections) p = ctr_projections_new (1, 1024, 2048, CTR_PROJ_COUNTS, &error);
      g_assert_no_error (error);
      const gsize plane = (gsize) 1024 * 2048;
      p->flat = g_new (float, plane);
      for (gsize i = 0; i < plane; i++)
        {
          p->flat[i] = 1000.f;
          p->data[i] = 500.f;
        }
      g_assert_true (ctr_projections_check_finite (p, &error));   /* starts the threads */
      test_limit_room (4 * MiB);
      g_assert_false (ctr_projections_to_line_integrals (p, &error));
    }
  else if (strcmp (what, "fbp-rows") == 0)
    {
      /* 8 views of 2¹⁷ columns (4 MiB), 8 threads: their padded rows
       * (8 × 2²⁰ samples, 16 MiB) do not fit in 10 MiB */
      g_autoptr (CtrGeometry) g = fan (8, 1u << 17);
      g_autoptr (CtrProjections) p = ctr_projections_new (8, 1, 1u << 17, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      CtrGrid grid = ctr_grid_square (8, 1.0, 1, 1);
      start_threads (8);
      test_limit_room (10 * MiB);
      g_assert_null (ctr_fbp_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, &error));
    }
  else if (strcmp (what, "fdk-rows") == 0)
    {
      /* the same for FDK's filter: 8 views × 1 row × 2¹⁷ columns, 8
       * threads' padded rows (16 MiB) beyond 14 MiB */
      g_autoptr (CtrGeometry) g = cone (8, 1, 1u << 17);
      g_autoptr (CtrProjections) p = ctr_projections_new (8, 1, 1u << 17, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      start_threads (8);
      test_limit_room (14 * MiB);
      g_assert_null (ctr_fdk_filter (g, p, CTR_FILTER_RAM_LAK, 1.0, NULL, &error));
    }
  else if (strcmp (what, "fdk-columns") == 0)
    {
      /* FDK's back-projection of 1 view × 2¹⁷ rows × 1 column: the view
       * batch (4 MiB) fits in 8 MiB, 16 threads' blended columns (8 MiB)
       * do not */
      g_autoptr (CtrGeometry) g = cone (1, 1u << 17, 1);
      g_autoptr (CtrProjections) q = ctr_projections_new (1, 1u << 17, 1, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      CtrGrid grid = ctr_grid_square (2, 1.0, 1, 1.0);
      g_autoptr (CtrVolume) vol = ctr_volume_new (&grid, &error);
      g_assert_no_error (error);
      start_threads (16);
      test_limit_room (8 * MiB);
      g_assert_false (ctr_fdk_backproject (g, q, vol, NULL, &error));
    }
  else if (strcmp (what, "helix-step") == 0)
    {
      /* two views 10⁻⁹ rad apart: 6·10⁹ directions a rotation would be
       * lines of the coverage's tables (on the old code a count cast from
       * that, then GLib's abort); less than a turn: no z is covered */
      g_autoptr (CtrGeometry) g = cone (2, 4, 4);
      g->angles[1] = 1e-9;
      ctr_geometry_set_source_z (g, 0.0, 1.0, NULL);
      test_limit_room (64 * MiB);
      double lo = 0, hi = 0;
      g_assert_false (ctr_helix_z_coverage (g, TRUE, &lo, &hi));
      g_printerr ("coverage of two views 1e-9 rad apart: none\n");
      return;
    }
  else if (strcmp (what, "calib-sinogram") == 0)
    {
      /* the entropy cross-check of 8 views × 2²⁰ columns in one row (32
       * MiB): the row's sinogram (32 MiB again) does not fit in 8 */
      g_autoptr (CtrGeometry) g = fan (8, 1u << 20);
      g_autoptr (CtrProjections) p = ctr_projections_new (8, 1, 1u << 20, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      start_threads (2);
      test_limit_room (8 * MiB);
      CtrCalibEstimate est;
      g_assert_false (ctr_calib_entropy (g, p, ((1u << 20) - 1) / 2.0, 2.0, &est, NULL, &error));
    }
  else if (strcmp (what, "geometry-copy") == 0)
    {
      /* the cone projector of 2²⁰ views copies the geometry: its angles
       * (8 MiB) do not fit in 4 */
      g_autoptr (CtrGeometry) g = cone (1u << 20, 4, 4);
      CtrGrid grid = ctr_grid_square (8, 1.0, 4, 1.0);
      test_limit_room (4 * MiB);
      g_assert_null (ctr_cone_projector_new (g, &grid, &error));
    }
  else if (strcmp (what, "helix-z") == 0)
    {
      /* a helical geometry.json of 2²⁰ views of one detector pixel with a
       * source z step: the data it implies (4 MiB) and its angles (8 MiB)
       * pass the check and fit in 14 MiB, the source z per view (8 MiB
       * more) does not */
      const char *json = "{\"type\": \"helical\", \"detector_shape\": \"curved\", \"views\": 1048576, "
                         "\"detector_cols\": 1, \"detector_rows\": 1, \"source_to_isocenter_mm\": 500, "
                         "\"source_to_detector_mm\": 900, \"detector_pitch_u_rad\": 0.01, "
                         "\"detector_pitch_v_mm\": 1.8, \"angle_start_rad\": 0, \"angle_step_rad\": 1e-3, "
                         "\"source_z_start_mm\": 0, \"source_z_step_mm\": 1e-3}";
      test_limit_room (14 * MiB);
      g_assert_null (ctr_dataset_parse_geometry (json, -1, &error));
    }
  else if (strcmp (what, "view-subset") == 0)
    {
      /* all views but the first of 2²⁰ with their source z: the subset's
       * angles (8 MiB) do not fit in 4 */
      g_autoptr (CtrGeometry) g = cone (1u << 20, 4, 4);
      ctr_geometry_set_source_z (g, 0.0, 1e-6, NULL);
      test_limit_room (4 * MiB);
      g_assert_null (ctr_geometry_select_views (g, 1, (1u << 20) - 1, &error));
    }
  else if (strcmp (what, "calib-tables") == 0)
    {
      /* the mirror calibration of 2²⁰ views × 4 columns (16 MiB): the
       * sorted copy of the angles (8 MiB) does not fit in 4 */
      g_autoptr (CtrGeometry) g = fan (1u << 20, 4);
      g_autoptr (CtrProjections) p = ctr_projections_new (1u << 20, 1, 4, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      test_limit_room (4 * MiB);
      CtrCalibEstimate est;
      g_assert_false (ctr_calib_mirror (g, p, NULL, &est, NULL, &error));
    }
  else if (strcmp (what, "roi-mask") == 0)
    {
      /* the statistics of an ROI on a 4096² slice (64 MiB): its mask of a
       * byte a pixel (16 MiB) does not fit in 4 */
      CtrGrid grid = ctr_grid_square (4096, 0.1, 1, 0.1);
      g_autoptr (CtrVolume) v = ctr_volume_new (&grid, &error);
      g_assert_no_error (error);
      test_limit_room (4 * MiB);
      CtrRoi roi = { CTR_ROI_CIRCLE, 0, 0, 10, 0, 0 };
      CtrRoiStats st;
      g_assert_false (ctr_roi_stats (v, 0, &roi, 0.02, &st, &error));
    }
  else if (strcmp (what, "ttf-bins") == 0)
    {
      /* the TTF of an insert of radius 2000 pixels on a 4100² image: its
       * mean image (64 MiB) fits, its radial bins (20300 of 8 bytes, 159
       * KiB) do not fit in the 32 KiB beyond */
      const guint n = 4100;
      g_autofree float *img = g_new (float, (gsize) n * n);
      for (gsize i = 0; i < (gsize) n * n; i++)
        img[i] = hypot ((double) (i % n) - 2049.5, (double) (i / n) - 2049.5) < 2000 ? 1.f : 0.f;
      const float *slices[1] = { img };
      test_limit_room ((guint64) n * n * sizeof (float) + 32 * 1024);
      g_assert_null (ctr_ttf_insert (slices, 1, n, n, 0.1, 2049.5, 2049.5, 2000, &error));
    }
  else if (strcmp (what, "rebin-samples") == 0)
    {
      /* a helix of 16 views over a turn, 2¹⁵ rows × 4 columns (8 MiB): each
       * fan-beam ray gathers up to 2 × 3 turns × 2¹⁵ samples, 3 MiB a
       * thread; 8 threads' (24 MiB) do not fit in 12 */
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_CONE, 16);
      g->shape = CTR_DETECTOR_CURVED;
      g->sod_mm = 300.0;
      g->sdd_mm = 600.0;
      g->n_rows = 1u << 15;
      g->n_cols = 4;
      g->pitch_u = 2.0 * asin (64.0 / 300.0) / g->n_cols;
      g->pitch_v_mm = 0.01;
      ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / 16);
      ctr_geometry_set_source_z (g, 0.0, 1.0 / 16, NULL);
      const double z = 0.5;
      g_autoptr (CtrRebinPlan) r = ctr_rebin_plan_new (g, CTR_REBIN_360LI, &z, 1, &error);
      g_assert_no_error (error);
      g_autoptr (CtrProjections) p = ctr_projections_new (16, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      start_threads (8);
      test_limit_room (12 * MiB);
      g_assert_null (ctr_rebin_run (r, p, NULL, &error));
    }
  else if (strcmp (what, "draft") == 0)
    {
      /* a geometry.json to correct (no distances) of 10⁷ views of one
       * column: the draft's angles (80 MB) do not fit in 4 MiB */
      g_autofree char *dir = g_dir_make_tmp ("ctr-memory-draft-XXXXXX", &error);
      g_assert_no_error (error);
      g_autofree char *path = g_build_filename (dir, "geometry.json", NULL);
      g_assert_true (g_file_set_contents (path, "{\"type\": \"fan\", \"views\": 10000000, \"detector_cols\": 1, "
                                                "\"projections\": \"sinogram.tif\"}", -1, NULL));
      test_limit_room (4 * MiB);
      CtrDataset *d = ctr_dataset_load_draft (path, NULL, &error);
      g_unlink (path);
      g_rmdir (dir);
      g_assert_null (d);
    }
  else if (strcmp (what, "vendor-names") == 0)
    {
      /* a Nikon scan file of 10⁶ projections of one pixel: the geometry's
       * angles (8 MB) fit in 12 MiB, the views' file names (a pointer and
       * a path each, about 70 MB) do not; nothing is read */
      g_autofree char *dir = g_dir_make_tmp ("ctr-memory-xtek-XXXXXX", &error);
      g_assert_no_error (error);
      g_autofree char *path = g_build_filename (dir, "scan.xtekct", NULL);
      g_assert_true (g_file_set_contents (path, "[XTekCT]\r\nName=scan\r\nSrcToObject=500\r\n"
                                                "SrcToDetector=1000\r\nDetectorPixelsX=1\r\nDetectorPixelsY=1\r\n"
                                                "DetectorPixelSizeX=0.2\r\nDetectorPixelSizeY=0.2\r\n"
                                                "Projections=1000000\r\nInitialAngle=0\r\nAngularStep=0.00036\r\n"
                                                "WhiteLevel=60000\r\n", -1, NULL));
      test_limit_room (12 * MiB);
      CtrDataset *d = ctr_dataset_load (path, NULL, NULL, &error);
      g_unlink (path);
      g_rmdir (dir);
      g_assert_null (d);
    }
  else if (strcmp (what, "dicom-scan") == 0)
    {
      /* the scan of 2¹⁸ DICOM files (one small file named 2¹⁸ times; the
       * names, 2 MiB, allocated before the limit): its list of entries (40
       * bytes a file, 10 MiB) does not fit in 4 MiB.  Nothing is opened. */
      g_autofree char *dir = g_dir_make_tmp ("ctr-memory-dicom-XXXXXX", &error);
      g_assert_no_error (error);
      g_autofree char *path = g_build_filename (dir, "view.dcm", NULL);
      g_autoptr (CtrDcm) d = ctr_dcm_new ();
      g_autofree char *sop = ctr_dcm_new_uid ();
      g_assert_true (ctr_dcm_put_string (d, 0x0008, 0x0016, NULL, "1.2.840.10008.5.1.4.1.1.2", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x0008, 0x0018, NULL, sop, NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x0020, 0x000e, NULL, "1.2.3", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x0020, 0x0013, NULL, "1", NULL));
      g_assert_true (ctr_dcm_save (d, path, &error));
      const guint n = 1u << 18;
      g_autofree const char **files = g_new (const char *, n + 1);
      for (guint i = 0; i < n; i++)
        files[i] = path;
      files[n] = NULL;
      test_limit_room (4 * MiB);
      GPtrArray *series = ctr_dicom_scan_files (files, NULL, &error);
      g_unlink (path);
      g_rmdir (dir);
      g_assert_null (series);
    }
  else
    {
      /* a DICOM-CT-PD series of 2²⁰ views (its list of files: 8 MiB): the
       * per-view tables (8 MiB each) do not fit in 4 MiB; nothing is read */
      const guint n = 1u << 20;
      g_autofree char **files = g_new (char *, n + 1);
      for (guint i = 0; i < n; i++)
        files[i] = (char *) "/nonexistent/view.dcm";
      files[n] = NULL;
      CtrDicomSeries series = { .series_uid = (char *) "1.2.3", .kind = CTR_DICOM_KIND_CTPD, .files = files,
                                .n_files = n, .n_views = n };
      test_limit_room (4 * MiB);
      g_assert_null (ctr_dicom_ctpd_load (&series, CTR_DICOM_CTPD_DEFAULT, NULL, &error));
    }
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_printerr ("%s\n", error->message);
}

/* The small buffers beside the data (issue 38): one detector plane in the
 * conversion to line integrals, the FBP and FDK filters' padded rows, FDK's
 * blended detector columns, DICOM-CT-PD's per-view tables, the geometry's
 * copies, view subsets and source z, the calibration's per-view tables,
 * the ROI mask and the TTF's radial bins run out of memory with
 * CTR_ERROR_OUT_OF_MEMORY naming them, never GLib's abort ("failed to
 * allocate", SIGTRAP, on the old code).  In a child under an address-space
 * limit a few MiB above what it has reserved. */
static void
test_no_abort_small (gconstpointer data)
{
  const char *what = data;
  test_no_abort_trap (no_abort_small_child, data,
                      strcmp (what, "open-beam") == 0     ? "*open-beam counts of 1024 rows * 2048 columns*"
                      : strcmp (what, "fbp-rows") == 0    ? "*ramp filter's padded rows of 262144 samples * 8 threads*"
                      : strcmp (what, "fdk-rows") == 0    ? "*ramp filter's padded rows of 262144 samples * 8 threads*"
                      : strcmp (what, "fdk-columns") == 0 ? "*FDK's blended detector columns of 131072 rows * 16 threads*"
                      : strcmp (what, "rebin-samples") == 0 ? "*rebinning's samples of * per ray * 8 threads*"
                      : strcmp (what, "helix-step") == 0  ? "*coverage of two views 1e-9 rad apart: none*"
                      : strcmp (what, "calib-sinogram") == 0 ? "*sinogram of one detector row*"
                      : strcmp (what, "geometry-copy") == 0 ? "*geometry's angles of 1048576 views*"
                      : strcmp (what, "view-subset") == 0 ? "*geometry's angles of 1048575 views*"
                      : strcmp (what, "helix-z") == 0     ? "*geometry's source z of 1048576 views*"
                      : strcmp (what, "calib-tables") == 0 ? "*sorted view angles*"
                      : strcmp (what, "roi-mask") == 0    ? "*ROI's mask of 4096 * 4096 pixels*"
                      : strcmp (what, "ttf-bins") == 0    ? "*TTF's radial bins (20300)*"
                      : strcmp (what, "dicom-scan") == 0 ? "*list of 262144 DICOM files*"
                      : strcmp (what, "draft") == 0 ? "*geometry.json: the angles of 10000000 views*"
                      : strcmp (what, "vendor-names") == 0 ? "*file names of 1000000 views*"
                      : "*per-view tables of 1048576 views*");
}

/* The child of test_no_abort_views: @what fails with CTR_ERROR_OUT_OF_MEMORY
 * under a limit a few MiB above what the data already hold, where a table
 * of a few bytes a view or a row, or the merge copy of a sort, does not fit. */
static void
no_abort_views_child (const char *what)
{
  g_autoptr (GError) error = NULL;
  if (strcmp (what, "operator-geometry") == 0)
    {
      /* the on-the-fly operator of 2²⁰ views copies the geometry: its
       * angles (8 MiB) do not fit in 4 */
      g_autoptr (CtrGeometry) g = fan (1u << 20, 4);
      CtrGrid grid = ctr_grid_square (8, 1.0, 1, 1.0);
      test_limit_room (4 * MiB);
      g_assert_null (ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_JOSEPH, NULL, &error));
    }
  else if (strcmp (what, "fly-bands") == 0)
    {
      /* the on-the-fly operator of a 1 × 2²² image: its bands' table of a
       * guint an image row (16 MiB) does not fit in 8 */
      g_autoptr (CtrGeometry) g = fan (8, 4);
      CtrGrid grid = ctr_grid_square (1, 1.0, 1, 1.0);
      grid.ny = 1u << 22;
      grid.dy = 1e-4;
      test_limit_room (8 * MiB);
      g_assert_null (ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_JOSEPH, NULL, &error));
    }
  else if (strcmp (what, "cone-visit") == 0)
    {
      /* the cone operator of 2²⁰ views: its copy of the geometry (8 MiB)
       * fits in 12, its visit order's keys (8 MiB more) do not */
      g_autoptr (CtrGeometry) g = cone (1u << 20, 4, 4);
      CtrGrid grid = ctr_grid_square (8, 1.0, 4, 1.0);
      CtrConeProjector *cp = ctr_cone_projector_new (g, &grid, &error);
      g_assert_no_error (error);
      test_limit_room (12 * MiB);
      g_assert_null (ctr_cone_op_new (cp, &error));
    }
  else if (strcmp (what, "view-spacing") == 0)
    {
      /* FBP's and FDK's angular spacing of 2²⁰ views: the spacing (8 MiB)
       * and the views' order (4 MiB) fit in 14, the sort's copy of the
       * order (4 MiB more; g_qsort_with_data's g_malloc) does not */
      g_autoptr (CtrGeometry) g = fan (1u << 20, 4);
      test_limit_room (14 * MiB);
      g_assert_null (ctr_view_spacing (g, &error));
    }
  else if (strcmp (what, "entropy-rows") == 0)
    {
      /* the entropy cross-check of 2²⁰ rows × 4 columns: the rows'
       * variances and order (12 MiB) fit in 14, the sort's copy does not */
      g_autoptr (CtrGeometry) g = fan (1, 4);
      g->n_rows = 1u << 20;
      g_autoptr (CtrProjections) p = ctr_projections_new (1, 1u << 20, 4, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      test_limit_room (14 * MiB);
      CtrCalibEstimate est;
      g_assert_false (ctr_calib_entropy (g, p, 1.5, 2.0, &est, NULL, &error));
    }
  else if (strcmp (what, "noise-rows") == 0)
    {
      /* the noise estimate of one row of 2²⁰ columns: its samples (8 MiB)
       * fit in 12, the smoothed row (16 bytes a column) does not */
      g_autoptr (CtrProjections) p = ctr_projections_new (1, 1, 1u << 20, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      test_limit_room (12 * MiB);
      g_assert_true (isnan (ctr_noise_estimate_i0 (p, &error)));
    }
  else
    {
      /* the noise estimate of 2²⁰ views × 8 columns of noise: 2²¹ windows
       * (every second line), their samples (16 MiB) fit in 20, the sorted
       * copy of the edge samples (8 MiB more) does not */
      g_autoptr (CtrProjections) p = ctr_projections_new (1u << 20, 1, 8, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      for (gsize i = 0; i < (gsize) 8 << 20; i++)
        p->data[i] = 0.5f + 0.01f * (float) ((i * 2654435761u) % 1000) / 1000.f;
      test_limit_room (20 * MiB);
      g_assert_true (isnan (ctr_noise_estimate_i0 (p, &error)));
    }
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_printerr ("%s\n", error->message);
}

/* The tables of a few bytes a view or a row and the sorts of such tables
 * (issue 38): an operator's own copy of the geometry, the on-the-fly
 * operator's bands of image rows, the cone operator's visit order, the
 * views' spacing of FBP and FDK, the calibration's rows by variance and
 * the noise estimate's row buffers run out of memory with
 * CTR_ERROR_OUT_OF_MEMORY naming them, never GLib's abort ("failed to
 * allocate", SIGTRAP; g_qsort_with_data's hidden copy of the array). */
static void
test_no_abort_views (gconstpointer data)
{
  const char *what = data;
  test_no_abort_trap (no_abort_views_child, data,
                      strcmp (what, "operator-geometry") == 0 ? "*geometry's angles of 1048576 views*"
                      : strcmp (what, "fly-bands") == 0 ? "*operator's bands of 4194304 image rows*"
                      : strcmp (what, "cone-visit") == 0 ? "*cone operator's visit order of 1048576 views*"
                      : strcmp (what, "view-spacing") == 0 ? "*order by angle of 1048576 views*"
                      : strcmp (what, "entropy-rows") == 0 ? "*order of 1048576 detector rows by variance*"
                      : strcmp (what, "noise-rows") == 0 ? "*noise estimator's smoothed rows of 1048576 columns*"
                      : "*noise estimator's sorted edge samples (2097152)*");
}

typedef struct {
  guint key, at;
} Keyed;

static int
cmp_keyed (gconstpointer a, gconstpointer b, gpointer data)
{
  const guint x = ((const Keyed *) a)->key, y = ((const Keyed *) b)->key;
  return (x > y) - (x < y);
}

/* The stable sort gives g_qsort_with_data's order (both stable: equal keys
 * keep their places) at every length around its runs of 16 and beyond,
 * with keys of many ties; nothing is sorted in place of nothing. */
static void
test_sort_stable (void)
{
  static const gsize lengths[] = { 0, 1, 2, 15, 16, 17, 31, 33, 1000, 65537 };
  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    {
      const gsize n = lengths[l];
      g_autofree Keyed *a = g_new (Keyed, MAX (n, 1));
      g_autofree Keyed *b = g_new (Keyed, MAX (n, 1));
      for (gsize i = 0; i < n; i++)
        a[i] = b[i] = (Keyed) { (guint) ((i * 2654435761u) >> 7) % (guint) MAX (n / 4, 1), (guint) i };
      g_autoptr (GError) error = NULL;
      g_assert_true (ctr_sort_stable (a, n, sizeof (Keyed), cmp_keyed, NULL, "keys", &error));
      g_assert_no_error (error);
      g_qsort_with_data (b, (gint) n, sizeof (Keyed), cmp_keyed, NULL);
      for (gsize i = 0; i < n; i++)
        {
          g_assert_cmpuint (a[i].key, ==, b[i].key);
          g_assert_cmpuint (a[i].at, ==, b[i].at);
          if (i > 0)
            g_assert_true (a[i - 1].key < a[i].key || (a[i - 1].key == a[i].key && a[i - 1].at < a[i].at));
        }
    }
}

/* The TTF of an insert near the corner of a 20000² image: its mean image
 * (1.6 GB) is refused against the memory limit (main sets 256 MiB) with
 * CTR_ERROR_OUT_OF_MEMORY, where it was allocated without a check (an
 * abort when it could not be had).  Only the insert's box is ever read. */
static void
test_ttf_memory (void)
{
  const guint nx = 20000, ny = 20000;
  const gsize n = (gsize) 90 * nx;                /* rows 0 … 89: the box */
  g_autofree float *img = g_new0 (float, n);
  for (gsize i = 0; i < n; i++)
    {
      const double x = (double) (i % nx), y = (double) (i / nx);
      if (x < 90 && hypot (x - 40, y - 40) < 8)
        img[i] = 1.0f;
    }
  const float *slices[1] = { img };
  g_autoptr (GError) error = NULL;
  CtrTtf *t = ctr_ttf_insert (slices, 1, nx, ny, 0.5, 40, 40, 8, &error);
  g_assert_null (t);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "TTF's mean image"));
}

/* The NPS's ROI buffers (two complex FFT planes, the accumulator and the
 * spectrum: 48 bytes a pixel) are estimated before they are allocated: a
 * 2900² ROI needs 404 MB against the 256 MB limit, so the call fails with
 * an error instead of allocating past the limit. */
static void
test_nps_memory (void)
{
  const guint n = 2900;
  g_autofree float *img = g_new0 (float, (gsize) n * n);
  for (gsize i = 0; i < (gsize) n * n; i++)
    img[i] = (float) (i % 7);
  const float *slices[1] = { img };
  const guint corner[2] = { 0, 0 };
  g_autoptr (GError) error = NULL;
  CtrNps *nps = ctr_nps_compute (slices, 1, n, n, 0.5, corner, 1, n, CTR_NPS_DETREND_MEAN, 1.0, &error);
  g_assert_null (nps);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "noise power spectrum"));
}

int
main (int argc, char **argv)
{
  g_setenv ("CTR_MEMORY_LIMIT_MB", "256", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/available", test_available);
  g_test_add_func ("/memory/cgroup-v2", test_cgroup_v2);
  g_test_add_func ("/memory/cgroup-v1", test_cgroup_v1);
  g_test_add_func ("/memory/rlimit-env", test_rlimit_and_env);
  g_test_add_func ("/memory/live", test_live);
  g_test_add_func ("/memory/plan-refuses", test_plan_refuses);
  g_test_add_data_func ("/memory/build-out-of-memory/csr", "csr", test_build_out_of_memory);
  g_test_add_data_func ("/memory/build-out-of-memory/scsr", "scsr", test_build_out_of_memory);
  g_test_add_data_func ("/memory/no-abort/blocked", "blocked", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/expand", "expand", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/symmetry", "symmetry", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/scsr-arrays", "arrays", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/weights", "weights", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/scsr-sums", "sums", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/scsr-overlap", "overlap", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/metrics", "metrics", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/fly", "fly", test_no_abort_run);
  g_test_add_func ("/memory/no-abort/ttf", test_ttf_memory);
  g_test_add_func ("/memory/no-abort/nps", test_nps_memory);
  g_test_add_data_func ("/memory/no-abort/fly-rows", "fly-rows", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/rebin", "rebin", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/cone-adjoint", "cone-adjoint", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/sysmat", "sysmat", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/cone", "cone", test_no_abort_run);
  g_test_add_data_func ("/memory/no-abort/open-beam", "open-beam", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/fbp-rows", "fbp-rows", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/fdk-rows", "fdk-rows", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/fdk-columns", "fdk-columns", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/ctpd-tables", "ctpd-tables", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/rebin-samples", "rebin-samples", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/helix-step", "helix-step", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/calib-sinogram", "calib-sinogram", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/geometry-copy", "geometry-copy", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/view-subset", "view-subset", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/helix-z", "helix-z", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/calib-tables", "calib-tables", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/roi-mask", "roi-mask", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/ttf-bins", "ttf-bins", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/dicom-scan", "dicom-scan", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/draft", "draft", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/vendor-names", "vendor-names", test_no_abort_small);
  g_test_add_data_func ("/memory/no-abort/operator-geometry", "operator-geometry", test_no_abort_views);
  g_test_add_data_func ("/memory/no-abort/fly-bands", "fly-bands", test_no_abort_views);
  g_test_add_data_func ("/memory/no-abort/cone-visit", "cone-visit", test_no_abort_views);
  g_test_add_data_func ("/memory/no-abort/view-spacing", "view-spacing", test_no_abort_views);
  g_test_add_data_func ("/memory/no-abort/entropy-rows", "entropy-rows", test_no_abort_views);
  g_test_add_data_func ("/memory/no-abort/noise-rows", "noise-rows", test_no_abort_views);
  g_test_add_data_func ("/memory/no-abort/noise-edges", "noise-edges", test_no_abort_views);
  g_test_add_func ("/memory/sort-stable", test_sort_stable);
  return g_test_run ();
}
