/* ctr-widget-png.h — a widget as drawn, saved as PNG.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * ctr_widget_save_png:
 * @widget: a realized, laid-out widget (a window, a dialog or a page).
 * Renders @widget with its window's renderer at its current size and
 * writes the PNG to a temporary file beside @path, renamed into place.
 * G_IO_ERROR_FAILED when nothing is shown (not realized, zero size, drew
 * nothing) or the file cannot be written.
 */
gboolean ctr_widget_save_png (GtkWidget   *widget,
                              const char  *path,
                              GError     **error);

G_END_DECLS
