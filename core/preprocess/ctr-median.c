/* ctr-median.c — quickselect median (see ctr-median.h). */
#include "preprocess/ctr-median.h"

float
ctr_median_select (float *a, gsize n)
{
  gsize lo = 0, hi = n - 1, k = n / 2;
  while (lo < hi)
    {
      const float pivot = a[lo + (hi - lo) / 2];
      gsize i = lo, j = hi;
      while (i <= j)
        {
          while (a[i] < pivot)
            i++;
          while (a[j] > pivot)
            j--;
          if (i <= j)
            {
              const float t = a[i];
              a[i] = a[j];
              a[j] = t;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        break;
    }
  return a[k];
}
