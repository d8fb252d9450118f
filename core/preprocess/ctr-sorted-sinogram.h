/* ctr-sorted-sinogram.h — the sorting step shared by the stripe removers
 * (Vo, Atwood & Drakopoulos 2018, Opt. Express 26(22):28396, algorithm 3:
 * each column sorted along the views, then a median across columns in the
 * sorted image), used by ctr-rings.c and ctr-stripes.c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One sample of a sorted column: its value and the view it came from. */
typedef struct {
  float value;
  guint view;
} CtrSortedSample;

/* Mirrored index (d c b a | a b c d … ) of @j into [0, n), for |j| < n. */
static inline guint
ctr_sorted_mirror (int j, guint n)
{
  if (j < 0)
    return (guint) (-j - 1);
  if (j >= (int) n)
    return (guint) (2 * (int) n - j - 1);
  return (guint) j;
}

/**
 * ctr_sorted_sinogram:
 * @x: one detector row's sinogram, sample (view v, column c) at
 *   x[v · @view_stride + c] (line integrals)
 * @V, @C: views and columns (C ≥ @size)
 * @size: the median window across columns, odd, ≥ 3
 * @sorted: (out): [C][V], each column's samples sorted along the views by
 *   value (ties by view)
 * @smooth: (out): [V][C], at rank v of column c the median of the sorted
 *   image's rank v over columns c − size/2 … c + size/2 (mirrored at the
 *   edges)
 * @win: scratch of @size floats
 *
 * Algorithm 3's sort and smoothing; the callers put @smooth back (or an
 * interpolation) in the views @sorted records.  No error.
 */
void ctr_sorted_sinogram (const float *x, gsize view_stride, guint V, guint C, int size, CtrSortedSample *sorted,
                          float *smooth, float *win);

G_END_DECLS
