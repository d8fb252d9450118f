/* ctr-fft-lock.h — the one process-wide lock around FFTW's planner. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_fft_planner_lock:
 * ctr_fft_planner_unlock:
 *
 * FFTW's planner (plan creation and fftwf_destroy_plan) is not thread-safe,
 * and fftwf_make_planner_thread_safe does nothing in Debian's OpenMP build
 * of FFTW.  Every FFTW plan in this process is made and destroyed between
 * these two calls (the ramp filter does, the noise power spectrum does; so
 * must any other FFTW user in the process, such as the CUDA emulation
 * harness's cuFFT).  Not recursive.
 */
void ctr_fft_planner_lock (void);
void ctr_fft_planner_unlock (void);

G_END_DECLS
