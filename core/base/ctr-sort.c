/* ctr-sort.c — a stable merge sort whose copy is allocated without abort
 * (see ctr-sort.h). */
#include "base/ctr-sort.h"
#include "base/ctr-memory.h"

#include <string.h>

/* Runs of this many elements are sorted by insertion before merging. */
#define RUN 16

/* Insertion sort of @n elements at @a (stable); @held: @size bytes of room. */
static void
insertion (guint8 *a, gsize n, gsize size, GCompareDataFunc compare, gpointer user_data, guint8 *held)
{
  for (gsize i = 1; i < n; i++)
    {
      gsize j = i;
      if (compare (a + (j - 1) * size, a + j * size, user_data) <= 0)
        continue;
      memcpy (held, a + i * size, size);
      while (j > 0 && compare (a + (j - 1) * size, held, user_data) > 0)
        j--;
      memmove (a + (j + 1) * size, a + j * size, (i - j) * size);
      memcpy (a + j * size, held, size);
    }
}

/* Merges the sorted runs @from[lo, mid) and @from[mid, hi) into @to[lo, hi),
 * the left run first among equals. */
static void
merge (const guint8 *from, guint8 *to, gsize lo, gsize mid, gsize hi, gsize size, GCompareDataFunc compare,
       gpointer user_data)
{
  gsize i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    {
      if (compare (from + i * size, from + j * size, user_data) <= 0)
        memcpy (to + k++ * size, from + i++ * size, size);
      else
        memcpy (to + k++ * size, from + j++ * size, size);
    }
  memcpy (to + k * size, from + i * size, (mid - i) * size);
  k += mid - i;
  memcpy (to + k * size, from + j * size, (hi - j) * size);
}

gboolean
ctr_sort_stable (gpointer base, gsize n, gsize size, GCompareDataFunc compare, gpointer user_data,
                 const char *what, GError **error)
{
  g_return_val_if_fail ((base != NULL || n == 0) && size > 0 && compare != NULL, FALSE);
  if (n < 2)
    return TRUE;
  guint8 *copy = ctr_memory_try_new (n, size, FALSE, what, error);
  if (copy == NULL)
    return FALSE;
  guint8 *a = base, *b = copy;
  for (gsize lo = 0; lo < n; lo += RUN)
    insertion (a + lo * size, MIN (RUN, n - lo), size, compare, user_data, copy);
  for (gsize width = RUN; width < n; width *= 2)
    {
      for (gsize lo = 0; lo < n; lo += 2 * width)
        {
          const gsize mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n);
          merge (a, b, lo, mid, hi, size, compare, user_data);
        }
      guint8 *t = a;
      a = b;
      b = t;
    }
  if (a != base)
    memcpy (base, a, n * size);
  g_free (copy);
  return TRUE;
}
