/* ctrecon-cli — the headless front end of libctrecon: batch runs, benchmarks, tests. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "cli-signals.h"
#include "ctr-config.h"

static const struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "reconstruct", ctr_cli_reconstruct, "reconstruct a dataset (geometry.json or DICOM) with any method of 'methods'" },
  { "methods", ctr_cli_methods, "the methods and their parameters (names, ranges, defaults) from the table (JSON on stdout)" },
  { "simulate", ctr_cli_simulate, "simulate a fan/parallel scan of an analytic phantom (writes geometry.json + TIFFs)" },
  { "simulate-dose", ctr_cli_simulate_dose, "the same scan at a lower dose (binomial thinning / Poisson re-sampling; writes a new dataset)" },
  { "noise", ctr_cli_noise, "noise level of a dataset: photons per bin stated or estimated from the sinogram (JSON on stdout)" },
  { "study", ctr_cli_study, "dose study: doses × methods × parameters on one dataset (writes study.csv and study.png)" },
  { "montage", ctr_cli_montage, "images side by side in HU with captions and their window, and a difference (PNG)" },
  { "roi", ctr_cli_roi, "mean, SD and CNR in HU inside circular/rectangular ROIs of an image (JSON on stdout)" },
  { "iq", ctr_cli_iq, "task-based image quality (AAPM TG-233): NPS, TTF of inserts, d′ of NPW/NPWE observers" },
  { "bench", ctr_cli_bench, "benchmarks: 'bench art' (parallel ART, CSR vs SCSR), 'bench fdk' (cone-beam FDK), 'bench cone' (iterative cone beam); JSON on stdout" },
  { "metrics", ctr_cli_metrics, "RMSE, PSNR, SSIM of an image against a reference (JSON on stdout)" },
  { "project", ctr_cli_project, "forward-project an image (TIFF) through a geometry.json (fan, parallel, cone, vectors)" },
  { "calibrate", ctr_cli_calibrate, "the centre of rotation / detector offset from the projections, as a new geometry.json" },
  { "calibrate-water", ctr_cli_calibrate_water, "beam-hardening coefficients from a scan of a water cylinder, as a \"preprocess\" step" },
  { "import-geometry", ctr_cli_import_geometry, "an ASTRA (proj_geom as JSON) or RTK (geometry XML) geometry as our geometry.json" },
  { "selftest", ctr_cli_selftest, "the GPU backends checked against the CPU on a small known problem, and the backend chosen" },
};

static const struct {
  const char *name, *summary;
} options[] = {
  { "-h, --help", "show this help and exit" },
  { "--version", "show the version and exit" },
};

/* The commands and options in two columns, the second where the longest
 * name (of either table) leaves room for it. */
static void
usage (FILE *out)
{
  int width = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    width = MAX (width, (int) strlen (commands[i].name));
  for (gsize i = 0; i < G_N_ELEMENTS (options); i++)
    width = MAX (width, (int) strlen (options[i].name));
  fprintf (out, "Usage: ctrecon-cli COMMAND [OPTION…]\n\nCommands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-*s  %s\n", width, commands[i].name, commands[i].summary);
  fprintf (out, "\nOptions:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (options); i++)
    fprintf (out, "  %-*s  %s\n", width, options[i].name, options[i].summary);
  fprintf (out, "\nRun 'ctrecon-cli COMMAND --help' for a command's options.\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  ctr_cli_signals_init ();
  if (argc < 2)
    {
      usage (stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("ctrecon-cli %s\n", CTR_VERSION);
      return 0;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        /* GOption's usage line names the program: "ctrecon-cli reconstruct". */
        g_autofree char *prgname = g_strconcat ("ctrecon-cli ", commands[i].name, NULL);
        g_set_prgname (prgname);
        int status = ctr_cli_mpi_start (&argc, &argv, commands[i].name);
        if (status == 0)
          status = commands[i].run (argc - 1, argv + 1);
        ctr_cli_mpi_stop ();
        return status;
      }
  fprintf (stderr, "ctrecon-cli: unknown command '%s'\n\n", argv[1]);
  usage (stderr);
  return 2;
}
