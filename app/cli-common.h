/* cli-common.h — what every ctrecon-cli subcommand shares. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "ctrecon.h"

/* Each subcommand: argv[0] is the subcommand's name; returns the exit status
 * (0 success, 1 error with a message on stderr, 2 bad usage, 130
 * cancelled: cli-signals.h). */
int ctr_cli_reconstruct (int argc, char **argv);
int ctr_cli_metrics (int argc, char **argv);
int ctr_cli_simulate (int argc, char **argv);
int ctr_cli_bench (int argc, char **argv);
int ctr_cli_simulate_dose (int argc, char **argv);
int ctr_cli_noise (int argc, char **argv);
int ctr_cli_roi (int argc, char **argv);
int ctr_cli_methods (int argc, char **argv);
int ctr_cli_montage (int argc, char **argv);
int ctr_cli_iq (int argc, char **argv);
int ctr_cli_study (int argc, char **argv);
int ctr_cli_selftest (int argc, char **argv);
int ctr_cli_import_geometry (int argc, char **argv);
int ctr_cli_project (int argc, char **argv);
int ctr_cli_calibrate (int argc, char **argv);
int ctr_cli_calibrate_water (int argc, char **argv);

/* Under mpirun (cli-mpi.c): starts MPI before @command runs (a non-zero
 * exit status when the job cannot run: MPI failed, a command that runs on
 * one process only, a build without MPI started as several ranks);
 * ctr_cli_mpi_stop() ends it.  ctr_cli_mpi_running(): MPI was started. */
int ctr_cli_mpi_start (int *argc, char ***argv, const char *command);
void ctr_cli_mpi_stop (void);
gboolean ctr_cli_mpi_running (void);

/* Prints "ctrecon-cli: <message>" on stderr and returns 1 (or 2 for usage
 * errors, G_OPTION_ERROR); cancellation prints "cancelled" and returns 130. */
int ctr_cli_fail (const GError *error);

/* Prints each of @d's warnings (what the loaders noticed: ctr-dataset.h) as
 * "ctrecon-cli: warning: …" on stderr. */
void ctr_cli_print_warnings (const CtrDataset *d);

/* Runs @work (@data, @cancellable) on a worker thread named @name while the
 * main thread waits; Ctrl-C, SIGTERM and SIGHUP cancel @cancellable (the
 * work checks it; cli-signals.h).  Returns when @work has returned. */
void ctr_cli_run_cancellable (const char *name, void (*work) (gpointer data, GCancellable *cancellable),
                              gpointer data, GCancellable *cancellable);

/* Reads the TIFF @path as a volume of @pixel_mm voxels centred on the
 * isocentre (pages = slices); @info (out) gets its shape. */
CtrVolume *ctr_cli_read_volume (const char *path, double pixel_mm, CtrTiffInfo *info, GError **error);

/* Adds member @name = @value to the object being built, null when not finite
 * (JSON has no infinity). */
void ctr_cli_json_number (JsonBuilder *b, const char *name, double value);

/**
 * ctr_cli_parse_roi:
 * "circle:X,Y,R" or "rect:X,Y,W,H" (mm; x to the right, y up, origin at the
 * grid centre) into @roi.  G_OPTION_ERROR_BAD_VALUE naming @option.
 */
gboolean ctr_cli_parse_roi (const char *text, const char *option, CtrRoi *roi, GError **error);

/* Parses the subcommand's options; on failure prints the message and the
 * usage hint and returns FALSE. */
gboolean ctr_cli_parse (GOptionContext *ctx, int *argc, char ***argv);
