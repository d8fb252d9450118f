/* ctr-sorted-sinogram.c — the stripe removers' sorting step (see
 * ctr-sorted-sinogram.h). */
#include "preprocess/ctr-sorted-sinogram.h"
#include "preprocess/ctr-median.h"

#include <stdlib.h>

static int
cmp_sample (const void *a, const void *b)
{
  const CtrSortedSample *x = a, *y = b;
  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return x->view < y->view ? -1 : x->view > y->view;
}

void
ctr_sorted_sinogram (const float *x, gsize view_stride, guint V, guint C, int size, CtrSortedSample *sorted,
                     float *smooth, float *win)
{
  for (guint c = 0; c < C; c++)
    {
      CtrSortedSample *col = sorted + (gsize) c * V;
      for (guint v = 0; v < V; v++)
        col[v] = (CtrSortedSample) { x[(gsize) v * view_stride + c], v };
      qsort (col, V, sizeof (CtrSortedSample), cmp_sample);
    }
  const int h = size / 2;
  for (guint v = 0; v < V; v++)
    for (guint c = 0; c < C; c++)
      {
        for (int k = -h; k <= h; k++)
          win[k + h] = sorted[(gsize) ctr_sorted_mirror ((int) c + k, C) * V + v].value;
        smooth[(gsize) v * C + c] = ctr_median_select (win, (gsize) size);
      }
}
