/* ctr-test-driver.h — a scripted session of the real window, for UI tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-window.h"

G_BEGIN_DECLS

/**
 * ctr_test_driver_start:
 * @window: a window that is about to load a dataset (fan or parallel, with or
 *   without a reference; gel-fan in tests/ui/run-ui-test.sh).
 * @out_dir: where screenshots and exported files go.
 * @done: called once with the number of failed checks (0 = all passed).
 *
 * Drives the window through the scenario, asserting on widget state
 * at every step and printing one "ok"/"FAIL" line per check:
 * geometry page (valid as loaded; an SDD below the SOD and a negative pixel
 * size are refused with the reason beside the field and Reconstruct
 * disabled; an edited offset saved as geometry.json loads back), a SIRT run
 * cancelled after its first iteration, a second SIRT run to the end, an FBP
 * run, a line profile over both runs and the reference (exported as CSV),
 * the comparison page with linked zoom.  Screenshots: ui-geometry.png,
 * ui-geometry-invalid.png, ui-reconstruct.png, ui-profile.png,
 * ui-compare.png in @out_dir.
 */
void ctr_test_driver_start (CtrWindow  *window,
                            const char *out_dir,
                            void      (*done) (int failures, gpointer user_data),
                            gpointer    user_data);

/* Renders @widget (a realized toplevel) into a PNG at @filename. */
gboolean ctr_test_driver_save_png (GtkWidget *widget, const char *filename);

/**
 * ctr_test_dicom_start:
 * @window: a window about to open a DICOM folder that holds two projection
 *   series, one of them gel-fan's DICOM-CT-PD series (tests/ui/run-ui-test.sh
 *   builds it from links), the other with missing views.
 * The DICOM session (ui/ctr-test-dicom.c): the series dialog lists both with
 * their reports (the missing views stated) — ui-dicom-series.png; the gel
 * series is chosen and loads with its report in the summary and in the
 * recent files; SIRT reconstructs it; the pointer read-out gives HU; the HU
 * window preset applies; the result exports as a DICOM series that scans
 * back as one image series of nz files; ui-dicom.png.
 * With @xa, @window is about to open an X-ray angiography file of 36 frames
 * without SOD, SDD, pixel spacing and angles instead: the geometry dialog
 * refuses bad values with the reason beside the field, enables Load once all
 * are valid (ui-dicom-xa.png), and the frames load as a cone beam with the
 * typed values.
 */
void ctr_test_dicom_start (CtrWindow  *window,
                           gboolean    xa,
                           const char *out_dir,
                           void      (*done) (int failures, gpointer user_data),
                           gpointer    user_data);

G_END_DECLS
