/* ctr-emu.h — what the tests ask the CUDA emulation harness (tests/gpu-emu)
 * directly: resource accounting, fault injection, the device model, and
 * wrong kernel results on purpose.  Plain C; only test programs built on
 * the harness include it (CTR_EMU_BUILD is defined for them).
 *
 * Environment (read once, at the first CUDA call):
 *   CTR_EMU_THREADS=N          worker threads running the blocks (default 2)
 *   CTR_EMU_DEVICE_MB=N        device memory of the model (default 81559 MiB, an H100 80GB)
 *   CTR_EMU_NO_DEVICE=1        cudaGetDeviceCount answers 0 devices
 *   CTR_EMU_DEVICES=N          cudaGetDeviceCount answers N devices (default 1;
 *                              they share one memory; cudaSetDevice and
 *                              cudaGetDevice keep each host thread's id;
 *                              the kernel launches per device are printed
 *                              at exit)
 *   CTR_EMU_CORRUPT_KERNEL=P   launches of kernels whose name starts with P
 *                              skip their first block (a wrong kernel result)
 *   CTR_EMU_FAULT_AT=N         the N-th failable call fails (as ctr_emu_fault_arm)
 *   CTR_EMU_QUIET=1            no summary of device-side errors on stderr
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Live resources of the emulated device, counted by the harness. */
typedef struct {
  unsigned long long device_allocs, device_bytes;   /* cudaMalloc (and cuFFT work areas) */
  unsigned long long pinned_allocs, pinned_bytes;   /* cudaHostAlloc */
  unsigned long long arrays, array_bytes;           /* cudaMalloc3DArray */
  unsigned long long textures, streams, events, graphs, graph_execs;
  unsigned long long fft_plans, sparse_handles, sparse_mats, sparse_vecs;
} CtrEmuLive;

void ctr_emu_live (CtrEmuLive *out);
/* Writes "streams 3 → 4, device_allocs 10 → 9" for the fields that differ
 * into @buf; returns the number of differing fields. */
int ctr_emu_live_diff (const CtrEmuLive *before, const CtrEmuLive *after, char *buf, size_t len);

/* Copies between host and device memory and within the device since the
 * start (cudaMemcpy, cudaMemcpyAsync, cudaMemcpyToSymbol), counted when
 * they run (a copy in a graph at every launch): what a run moves over PCIe
 * (host ↔ device) and within the device. */
typedef struct {
  unsigned long long h2d_calls, h2d_bytes;
  unsigned long long d2h_calls, d2h_bytes;
  unsigned long long d2d_calls, d2d_bytes;
} CtrEmuCopies;
void ctr_emu_copies (CtrEmuCopies *out);

/* Fault injection.  Failable calls are those a program must handle:
 * allocations, creations, copies, launches, synchronisations, captures,
 * graph instantiation and launch, queries, cuFFT plans and executions,
 * cuSPARSE set-up and SpMV.  Frees and destroys never fail (nothing could be
 * done about it).  An injected failure is not sticky: later calls work. */
void ctr_emu_fault_arm (unsigned long long nth);   /* 1-based from now; 0 disarms */
unsigned long long ctr_emu_fault_calls (void);     /* failable calls since the last arm */
const char *ctr_emu_fault_fired (void);            /* the call that failed, or NULL */
/* Where the calls are made: on, every failable call from the next arm on
 * records a hash of its call stack (the return addresses: one per place in
 * the program and path to it; the calls of a loop share one), and
 * ctr_emu_fault_site (i) gives the i-th call's (1-based; 0: not recorded).
 * Slow (an unwind per call): for counting runs. */
void ctr_emu_fault_record_sites (int on);
unsigned long long ctr_emu_fault_site (unsigned long long i);

/* Device memory of the model (0: the default); the peak of live device
 * bytes (cudaMalloc, arrays, cuFFT work areas) since the last reset. */
void ctr_emu_set_device_memory (size_t total_bytes);
size_t ctr_emu_device_memory (void);
size_t ctr_emu_peak_device_bytes (void);
void ctr_emu_reset_peak (void);

/* On: every CUDA call sleeps a random 0-300 µs after it returns, so that
 * host threads calling CUDA at once interleave their calls in many orders. */
void ctr_emu_host_jitter (int on);

/* Launches of kernels whose name starts with @prefix (NULL: none) skip
 * their first block: what a miscompiled or faulty kernel would give. */
void ctr_emu_corrupt_kernel (const char *prefix);

/* Kernel launches since the start, and device-side errors found (bounds,
 * never-written memory read, barrier divergence); the harness aborts on
 * the first one unless CTR_EMU_ON_ERROR=continue. */
unsigned long long ctr_emu_launches (void);
unsigned long long ctr_emu_device_errors (void);
/* Kernel launches made while @dev was the launching thread's current device. */
unsigned long long ctr_emu_launches_on (int dev);

/* Traffic model (only in the harness built with CTR_EMU_TRAFFIC): global
 * memory traffic of the launches since the last reset, per kernel name. */
typedef struct {
  const char *kernel;                 /* name as written at the launch */
  unsigned long long launches;        /* seen */
  unsigned long long executed;        /* run (the others skipped by sampling) */
  unsigned long long requests;        /* warp-level memory instructions */
  unsigned long long sectors;         /* Σ distinct 32-byte sectors per warp request */
  unsigned long long unique_sectors;  /* Σ over launches of distinct sectors touched */
  unsigned long long atomics;         /* atomic operations (per lane) */
  unsigned long long blocks, blocks_run;  /* blocks of the launches run, and run (block sampling) */
} CtrEmuTraffic;
int ctr_emu_traffic_enabled (void);
void ctr_emu_traffic_reset (void);
/* Runs only every @every-th launch of each kernel (1: all); the rows say
 * how many were seen and run, the caller scales. */
void ctr_emu_traffic_sample (unsigned every);
/* Runs only every @every-th block of a launch (1: all). */
void ctr_emu_traffic_sample_blocks (unsigned every);
/* Fills up to @max rows; returns the number of kernels seen. */
unsigned ctr_emu_traffic_get (CtrEmuTraffic *rows, unsigned max);

#ifdef __cplusplus
}
#endif
