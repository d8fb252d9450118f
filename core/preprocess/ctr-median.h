/* ctr-median.h — the median of a small float array (quickselect), for the
 * preprocessing filters. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The median of @a[0..n-1] (n ≥ 1; the upper one of the middle two when n
 * is even); reorders @a. */
float ctr_median_select (float *a, gsize n);

G_END_DECLS
