/* ctr-sort.h — a stable sort that runs out of memory with an error.
 *
 * g_qsort_with_data (and g_array_sort, g_ptr_array_sort) merge through a
 * copy of the array taken with g_malloc: an array sized by the data (views,
 * rows, rays) that leaves no room for its copy aborts the process.  This
 * sort is the same stable merge sort with its copy taken through
 * ctr_memory_try_new, so the same comparison gives the same order, bit for
 * bit, and a copy that cannot be had is CTR_ERROR_OUT_OF_MEMORY.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_sort_stable:
 * @base: @n elements of @size bytes each, sorted in place.
 * @compare: negative, 0 or positive as its first element sorts before, with
 *   or after its second; elements that compare equal keep their order.
 * @what: what is sorted, for the message ("the views of 1048576 by angle").
 * Sorts @base (a merge sort: O(n log n) comparisons, stable, the order
 * g_qsort_with_data gives).  It needs a copy of @base, n·size bytes.
 * Returns: TRUE; FALSE with CTR_ERROR_OUT_OF_MEMORY naming @what and the
 *   copy's size when the copy cannot be allocated (@base unchanged).
 */
gboolean ctr_sort_stable (gpointer base, gsize n, gsize size, GCompareDataFunc compare, gpointer user_data,
                          const char *what, GError **error);

G_END_DECLS
