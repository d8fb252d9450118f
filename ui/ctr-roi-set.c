/* ctr-roi-set.c — the window's shared ROIs, ruler, tool and μ_water.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CtrRoiItem is the set's element (as GtkStringObject is GtkStringList's):
 * a name and a CtrRoi, changed only through the set, which then reports the
 * position as removed and added again (GListModel::items-changed).
 */
#define G_LOG_DOMAIN "ctr-roi-set"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ctr-roi-set.h"

/* ---- CtrRoiItem ------------------------------------------------------------ */

struct _CtrRoiItem
{
  GObject parent_instance;
  char   *name;
  CtrRoi  roi;
};

G_DEFINE_FINAL_TYPE (CtrRoiItem, ctr_roi_item, G_TYPE_OBJECT)

static void
ctr_roi_item_finalize (GObject *object)
{
  g_free (CTR_ROI_ITEM (object)->name);
  G_OBJECT_CLASS (ctr_roi_item_parent_class)->finalize (object);
}

static void
ctr_roi_item_class_init (CtrRoiItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ctr_roi_item_finalize;
}

static void
ctr_roi_item_init (CtrRoiItem *self)
{
}

const char *
ctr_roi_item_get_name (CtrRoiItem *self)
{
  g_return_val_if_fail (CTR_IS_ROI_ITEM (self), NULL);
  return self->name;
}

const CtrRoi *
ctr_roi_item_get_roi (CtrRoiItem *self)
{
  g_return_val_if_fail (CTR_IS_ROI_ITEM (self), NULL);
  return &self->roi;
}

/* ---- CtrRoiSet ------------------------------------------------------------- */

struct _CtrRoiSet
{
  GObject    parent_instance;
  GPtrArray *items;        /* CtrRoiItem */
  guint      next_number;
  int        background;
  int        selected;
  CtrRoiTool tool;
  gboolean   have_ruler;
  double     ruler[4];
  double     mu_water;
  gboolean   calibrated;
  char      *dataset;      /* the dataset the ROIs were drawn on (ctr_roi_set_set_dataset) */
  GHashTable *put_aside;   /* another dataset's path → its Drawn */
};

/* What was drawn on a dataset that is not open now. */
typedef struct {
  GPtrArray *items;        /* CtrRoiItem */
  guint      next_number;
  int        background;
  gboolean   have_ruler;
  double     ruler[4];
} Drawn;

static void
drawn_free (gpointer data)
{
  Drawn *d = data;
  g_ptr_array_unref (d->items);
  g_free (d);
}

static void ctr_roi_set_list_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (CtrRoiSet, ctr_roi_set, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, ctr_roi_set_list_init))

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static GType
get_item_type (GListModel *list)
{
  return CTR_TYPE_ROI_ITEM;
}

static guint
get_n_items (GListModel *list)
{
  return CTR_ROI_SET (list)->items->len;
}

static gpointer
get_item (GListModel *list, guint position)
{
  CtrRoiSet *self = CTR_ROI_SET (list);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
ctr_roi_set_list_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static void
ctr_roi_set_finalize (GObject *object)
{
  CtrRoiSet *self = CTR_ROI_SET (object);
  g_ptr_array_unref (self->items);
  g_hash_table_unref (self->put_aside);
  g_free (self->dataset);
  G_OBJECT_CLASS (ctr_roi_set_parent_class)->finalize (object);
}

static void
ctr_roi_set_class_init (CtrRoiSetClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ctr_roi_set_finalize;

  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
ctr_roi_set_init (CtrRoiSet *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->put_aside = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, drawn_free);
  self->next_number = 1;
  self->background = -1;
  self->selected = -1;
  self->mu_water = CTR_MU_WATER_PER_MM;
}

CtrRoiSet *
ctr_roi_set_new (void)
{
  return g_object_new (CTR_TYPE_ROI_SET, NULL);
}

static void
changed (CtrRoiSet *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

guint
ctr_roi_set_add (CtrRoiSet *self, const CtrRoi *roi)
{
  CtrRoiItem *item;
  guint position;

  g_return_val_if_fail (CTR_IS_ROI_SET (self), 0);
  g_return_val_if_fail (roi != NULL, 0);

  item = g_object_new (CTR_TYPE_ROI_ITEM, NULL);
  item->name = g_strdup_printf ("ROI %u", self->next_number++);
  item->roi = *roi;
  position = self->items->len;
  g_ptr_array_add (self->items, item);
  self->selected = position;
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
  changed (self);
  return position;
}

guint
ctr_roi_set_add_named (CtrRoiSet *self, const char *name, const CtrRoi *roi)
{
  guint position, number = 0;
  CtrRoiItem *item;

  g_return_val_if_fail (CTR_IS_ROI_SET (self), 0);
  g_return_val_if_fail (name != NULL, 0);
  position = ctr_roi_set_add (self, roi);
  item = g_ptr_array_index (self->items, position);
  g_free (item->name);
  item->name = g_strdup (name);
  /* "ROI 7": the next one drawn is "ROI 8" at least */
  if (sscanf (name, "ROI %u", &number) == 1 && number >= self->next_number)
    self->next_number = number + 1;
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
  return position;
}

void
ctr_roi_set_clear (CtrRoiSet *self)
{
  guint n;

  g_return_if_fail (CTR_IS_ROI_SET (self));
  n = self->items->len;
  g_ptr_array_set_size (self->items, 0);
  self->next_number = 1;
  self->background = -1;
  self->selected = -1;
  self->have_ruler = FALSE;
  if (n > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
  changed (self);
}

void
ctr_roi_set_set_dataset (CtrRoiSet *self, const char *path)
{
  g_return_if_fail (CTR_IS_ROI_SET (self) && path != NULL);
  if (g_strcmp0 (self->dataset, path) == 0)
    return;
  const guint n = self->items->len;
  if (self->dataset != NULL)
    {
      Drawn *d = g_new0 (Drawn, 1);
      d->items = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (d->items, g_object_ref (g_ptr_array_index (self->items, i)));
      d->next_number = self->next_number;
      d->background = self->background;
      d->have_ruler = self->have_ruler;
      memcpy (d->ruler, self->ruler, sizeof d->ruler);
      g_hash_table_replace (self->put_aside, g_strdup (self->dataset), d);
      g_ptr_array_set_size (self->items, 0);
      self->next_number = 1;
      self->background = -1;
      self->have_ruler = FALSE;
    }
  /* the first dataset keeps what is there (a session's ROIs come with it) */
  Drawn *back = g_hash_table_lookup (self->put_aside, path);
  if (back != NULL)
    {
      for (guint i = 0; i < back->items->len; i++)
        g_ptr_array_add (self->items, g_object_ref (g_ptr_array_index (back->items, i)));
      self->next_number = back->next_number;
      self->background = back->background;
      self->have_ruler = back->have_ruler;
      memcpy (self->ruler, back->ruler, sizeof self->ruler);
      g_hash_table_remove (self->put_aside, path);
    }
  self->selected = -1;
  g_free (self->dataset);
  self->dataset = g_strdup (path);
  if (n > 0 || self->items->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, n, self->items->len);
  changed (self);
}

void
ctr_roi_set_update (CtrRoiSet *self, guint position, const CtrRoi *roi)
{
  g_return_if_fail (CTR_IS_ROI_SET (self));
  g_return_if_fail (position < self->items->len && roi != NULL);

  CtrRoiItem *item = g_ptr_array_index (self->items, position);
  if (memcmp (&item->roi, roi, sizeof *roi) == 0)
    return;
  item->roi = *roi;
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
  changed (self);
}

/* An index after removing @position: the same ROI, or -1 when it was removed. */
static int
shift_index (int index, guint position)
{
  if (index == (int) position)
    return -1;
  return index > (int) position ? index - 1 : index;
}

void
ctr_roi_set_remove (CtrRoiSet *self, guint position)
{
  g_return_if_fail (CTR_IS_ROI_SET (self));
  g_return_if_fail (position < self->items->len);

  g_ptr_array_remove_index (self->items, position);
  self->background = shift_index (self->background, position);
  self->selected = shift_index (self->selected, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  changed (self);
}

static gboolean
roi_contains (const CtrRoi *r, double x, double y)
{
  double dx = x - r->x_mm, dy = y - r->y_mm;

  if (r->shape == CTR_ROI_CIRCLE)
    return dx * dx + dy * dy <= r->radius_mm * r->radius_mm;
  return fabs (dx) <= 0.5 * r->width_mm && fabs (dy) <= 0.5 * r->height_mm;
}

int
ctr_roi_set_find (CtrRoiSet *self, double x_mm, double y_mm)
{
  g_return_val_if_fail (CTR_IS_ROI_SET (self), -1);

  for (guint i = self->items->len; i-- > 0;)
    if (roi_contains (&CTR_ROI_ITEM (g_ptr_array_index (self->items, i))->roi, x_mm, y_mm))
      return i;
  return -1;
}

int
ctr_roi_set_get_background (CtrRoiSet *self)
{
  g_return_val_if_fail (CTR_IS_ROI_SET (self), -1);
  return self->background;
}

/* Sets *@index to @position (-1 when it names no ROI); "changed" when it changed. */
static void
set_index (CtrRoiSet *self, int *index, int position)
{
  if (position >= (int) self->items->len || position < 0)
    position = -1;
  if (*index == position)
    return;
  *index = position;
  changed (self);
}

void
ctr_roi_set_set_background (CtrRoiSet *self, int position)
{
  g_return_if_fail (CTR_IS_ROI_SET (self));
  set_index (self, &self->background, position);
}

int
ctr_roi_set_get_selected (CtrRoiSet *self)
{
  g_return_val_if_fail (CTR_IS_ROI_SET (self), -1);
  return self->selected;
}

void
ctr_roi_set_set_selected (CtrRoiSet *self, int position)
{
  g_return_if_fail (CTR_IS_ROI_SET (self));
  set_index (self, &self->selected, position);
}

CtrRoiTool
ctr_roi_set_get_tool (CtrRoiSet *self)
{
  g_return_val_if_fail (CTR_IS_ROI_SET (self), CTR_ROI_TOOL_NONE);
  return self->tool;
}

void
ctr_roi_set_set_tool (CtrRoiSet *self, CtrRoiTool tool)
{
  g_return_if_fail (CTR_IS_ROI_SET (self));
  if (self->tool == tool)
    return;
  self->tool = tool;
  changed (self);
}

gboolean
ctr_roi_set_get_ruler (CtrRoiSet *self, double ruler[4])
{
  g_return_val_if_fail (CTR_IS_ROI_SET (self), FALSE);
  if (self->have_ruler)
    memcpy (ruler, self->ruler, sizeof self->ruler);
  return self->have_ruler;
}

void
ctr_roi_set_set_ruler (CtrRoiSet *self, const double ruler[4])
{
  g_return_if_fail (CTR_IS_ROI_SET (self));
  self->have_ruler = ruler != NULL;
  if (ruler != NULL)
    memcpy (self->ruler, ruler, sizeof self->ruler);
  changed (self);
}

double
ctr_roi_set_get_mu_water (CtrRoiSet *self, gboolean *calibrated)
{
  g_return_val_if_fail (CTR_IS_ROI_SET (self), CTR_MU_WATER_PER_MM);
  if (calibrated != NULL)
    *calibrated = self->calibrated;
  return self->mu_water;
}

void
ctr_roi_set_set_mu_water (CtrRoiSet *self, double mu_water, gboolean calibrated)
{
  g_return_if_fail (CTR_IS_ROI_SET (self));
  if (!(mu_water > 0) || !isfinite (mu_water))
    {
      mu_water = CTR_MU_WATER_PER_MM;
      calibrated = FALSE;
    }
  if (self->mu_water == mu_water && self->calibrated == !!calibrated)
    return;
  self->mu_water = mu_water;
  self->calibrated = !!calibrated;
  changed (self);
}

char *
ctr_roi_set_describe_mu_water (CtrRoiSet *self)
{
  g_return_val_if_fail (CTR_IS_ROI_SET (self), NULL);
  return g_strdup_printf ("μ_water %.4g/mm (%s)", self->mu_water, self->calibrated ? "calibrated" : "default");
}
