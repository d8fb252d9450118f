/* ctr-session-file-private.h — what the files of a session folder share:
 * ctr-session-file.c writes it, ctr-session-file-read.c reads it,
 * ctr-session-save.c takes a session's snapshot and restores one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "ctr-session-file.h"

G_BEGIN_DECLS

/* An empty file: no runs, no ROIs, the default μ_water. */
CtrSessionFile *_ctr_session_file_new        (void);
void            _ctr_session_run_record_free (gpointer                    record);
/* "run-N.tif" (transfer full). */
char           *_ctr_session_run_image_name  (const CtrSessionRunRecord *record);
/* @key: @v, or null for NaN and infinities (JSON has neither). */
void            _ctr_session_file_add_number (JsonBuilder               *builder,
                                              const char                *key,
                                              double                     v);
/* "method", "parameters" (every parameter of ctr-params.h's table that
 * applies), "backend", "rebin", "metrics_radius_mm" of @o; read back with
 * their ranges checked (CTR_ERROR_FORMAT naming @where). */
void            _ctr_session_file_add_options (JsonBuilder              *builder,
                                               const CtrReconOptions    *o);
gboolean        _ctr_session_file_read_options (JsonObject              *object,
                                                CtrReconOptions         *o,
                                                const char              *where,
                                                GError                 **error);
/* session.json's text for @file (transfer full). */
char           *_ctr_session_file_manifest   (const CtrSessionFile      *file);
/* Writes @file as the folder @path (a staged folder swapped in); FALSE
 * with CTR_ERROR_IO or CTR_ERROR_INVALID_ARGUMENT (@path is not ours). */
gboolean        _ctr_session_file_write      (const CtrSessionFile      *file,
                                              const char                *path,
                                              GCancellable              *cancellable,
                                              GError                   **error);

/* ctr-session-file-study.c: session.json's "study" (the Dose Study's
 * table) written from @file->study_rows, and read back into it; a row that
 * names a run not among @file->runs, an unknown method or a dose not above
 * 0 is CTR_ERROR_FORMAT.  No "study" (version 1) reads as no rows. */
void            _ctr_session_file_add_study  (JsonBuilder               *builder,
                                              const CtrSessionFile      *file);
gboolean        _ctr_session_file_read_study (JsonObject                *root,
                                              CtrSessionFile            *file,
                                              const char                *where,
                                              GError                   **error);

G_END_DECLS
