/* ctr-widget-png.c — a widget as drawn, saved as PNG.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-widget-png"

#include <glib/gstdio.h>

#include "ctr-widget-png.h"

gboolean
ctr_widget_save_png (GtkWidget   *widget,
                     const char  *path,
                     GError     **error)
{
  GtkNative *native;
  GskRenderer *renderer = NULL;
  int width, height;
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *tmp = NULL;
  GtkSnapshot *snapshot;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  native = gtk_widget_get_native (widget);
  if (native != NULL)
    renderer = gtk_native_get_renderer (native);
  width = gtk_widget_get_width (widget);
  height = gtk_widget_get_height (widget);
  if (renderer == NULL || width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Nothing is shown to export");
      return FALSE;
    }

  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node != NULL)
    texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (texture == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The view drew nothing");
      return FALSE;
    }

  /* gdk_texture_save_to_png writes in place: go through a temporary file */
  tmp = g_strdup_printf ("%s.part", path);
  if (!gdk_texture_save_to_png (texture, tmp) || g_rename (tmp, path) != 0)
    {
      g_unlink (tmp);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Could not write “%s”", path);
      return FALSE;
    }
  return TRUE;
}
