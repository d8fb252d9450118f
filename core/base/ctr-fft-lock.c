/* ctr-fft-lock.c — the FFTW planner lock (see ctr-fft-lock.h). */
#include "base/ctr-fft-lock.h"

static GMutex planner_lock;

void
ctr_fft_planner_lock (void)
{
  g_mutex_lock (&planner_lock);
}

void
ctr_fft_planner_unlock (void)
{
  g_mutex_unlock (&planner_lock);
}
