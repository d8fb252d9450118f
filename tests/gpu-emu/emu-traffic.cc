/* emu-traffic.cc — the traffic model of the CUDA emulation harness
 * (tests/gpu-emu/README.md, "Traffic model").
 *
 * In the harness built with CTR_EMU_TRAFFIC the .cu code is compiled with
 * GCC's kernel-address instrumentation in out-of-line mode: every load and
 * store calls __asan_{load,store}N_noabort (address), defined here; the
 * harness itself and the host code are not counted (only accesses made by
 * a CUDA thread to device memory are).  An atomic counts as one access that
 * reads and writes.
 *
 * Per warp request: the k-th execution of an access site by a lane belongs
 * to the same warp instruction as the k-th execution of that site by the
 * other lanes of its warp (SIMT: lanes that run a loop fewer times simply
 * drop out); the request moves the distinct 32-byte sectors its lanes
 * touch — the L1↔L2 traffic when nothing hits in L1.  Per launch: the
 * distinct sectors read plus the distinct sectors written — what DRAM must
 * move at least (every sector once, L2 of unbounded size): the lower bound
 * that the model divides by the device's bandwidth.  cudaMemset counts its
 * bytes as written.
 *
 * Sampling (ctr_emu_traffic_sample): only every n-th launch of each kernel
 * runs; the others are counted as seen, not run, and the caller scales.
 * ctr_emu_traffic_sample_blocks does the same with the blocks of a launch
 * (for one big launch; data every block reads, such as the image, is then
 * undercounted in the unique sectors: small beside the matrix).
 * The traffic build runs one worker thread. */
#include "emu-internal.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ctr_emu {

#if defined(CTR_EMU_TRAFFIC)

struct Req {
  std::vector<uint64_t> sec;
};

struct KernelTraffic {
  unsigned long long launches = 0, executed = 0, requests = 0, sectors = 0, unique = 0, atomics = 0;
  unsigned long long blocks = 0, blocks_run = 0;
};

static std::map<std::string, KernelTraffic> per_kernel;
static std::string cur_name;
static bool in_launch;
static std::unordered_set<uint64_t> rd, wr;
static std::vector<std::unordered_map<uintptr_t, uint32_t>> site_count;   /* per thread of the block */
static std::vector<std::unordered_map<uint64_t, Req>> warp_req;           /* per warp of the block */
static unsigned stride = 1, block_stride = 1;
static std::map<std::string, unsigned long long> seen;
static uintptr_t pend_lo, pend_hi;   /* the atomic in progress: its own loads are not reads */
static KernelTraffic *cur;

static inline uint64_t
req_key (uintptr_t site, uint32_t k)
{
  return (uint64_t) site * 0x9E3779B97F4A7C15ull ^ k;
}

static void
record (uintptr_t a, size_t n, int kind, uintptr_t site)   /* kind 0 read, 1 write, 2 atomic */
{
  if (!in_launch)
    return;
  const int linear = current_linear ();
  if (linear < 0)
    return;
  if (kind == 0 && a >= pend_lo && a + n <= pend_hi)
    return;                  /* the atomic's own load: counted by traffic_atomic */
  pend_lo = pend_hi = 0;
  if (device_range ((const void *) a, n) == nullptr)
    return;                  /* shared, local or constant memory */
  if ((size_t) linear >= site_count.size ())
    site_count.resize (linear + 1);
  const uint32_t k = site_count[linear][site]++;
  const unsigned warp = (unsigned) linear / 32;
  if (warp >= warp_req.size ())
    warp_req.resize (warp + 1);
  Req &r = warp_req[warp][req_key (site, k)];
  for (uint64_t s = a >> 5; s <= (a + n - 1) >> 5; s++)
    {
      r.sec.push_back (s);
      if (kind != 1)
        rd.insert (s);
      if (kind != 0)
        wr.insert (s);
    }
  if (kind == 2)
    cur->atomics++;
}

void
traffic_atomic (const void *p, size_t n)
{
  record ((uintptr_t) p, n, 2, (uintptr_t) __builtin_return_address (0));
  pend_lo = (uintptr_t) p;
  pend_hi = pend_lo + n;
}

bool
traffic_skip (const char *name)
{
  unsigned long long k = seen[name]++;
  KernelTraffic &t = per_kernel[name];
  t.launches++;
  if (stride > 1 && k % stride != 0)
    return true;
  t.executed++;
  return false;
}

bool
traffic_skip_block (unsigned long long b)
{
  cur->blocks++;
  if (block_stride > 1 && b % block_stride != 0)
    return true;
  cur->blocks_run++;
  return false;
}

void
traffic_launch_begin (const char *name)
{
  cur_name = name;
  cur = &per_kernel[cur_name];
  rd.clear ();
  wr.clear ();
  in_launch = true;
}

void
traffic_block_begin (unsigned n)
{
  site_count.assign (n, {});
  warp_req.assign ((n + 31) / 32, {});
}

void
traffic_warp_end (unsigned warp)
{
  if (warp >= warp_req.size ())
    return;
  for (auto &kv : warp_req[warp])
    {
      std::vector<uint64_t> &v = kv.second.sec;
      std::sort (v.begin (), v.end ());
      cur->sectors += (unsigned long long) (std::unique (v.begin (), v.end ()) - v.begin ());
      cur->requests++;
    }
  warp_req[warp].clear ();
}

void
traffic_launch_end ()
{
  cur->unique += rd.size () + wr.size ();
  in_launch = false;
}

void
traffic_memset (size_t n)
{
  KernelTraffic &t = per_kernel["cudaMemsetAsync"];
  t.launches++;
  t.executed++;
  t.unique += (n + 31) / 32;
}

#else

void traffic_launch_begin (const char *) {}
void traffic_launch_end () {}
void traffic_block_begin (unsigned) {}
void traffic_warp_end (unsigned) {}
void traffic_atomic (const void *, size_t) {}
bool traffic_skip (const char *) { return false; }
void traffic_memset (size_t) {}
bool traffic_skip_block (unsigned long long) { return false; }

#endif

}  /* namespace ctr_emu */

using namespace ctr_emu;

#if defined(CTR_EMU_TRAFFIC)

extern "C" {
#define LOADSTORE(N)                                                                                     \
  void __asan_load##N##_noabort (uintptr_t a) { record (a, N, 0, (uintptr_t) __builtin_return_address (0)); } \
  void __asan_store##N##_noabort (uintptr_t a) { record (a, N, 1, (uintptr_t) __builtin_return_address (0)); }
LOADSTORE (1)
LOADSTORE (2)
LOADSTORE (4)
LOADSTORE (8)
LOADSTORE (16)
#undef LOADSTORE
void __asan_loadN_noabort (uintptr_t a, size_t n) { record (a, n, 0, (uintptr_t) __builtin_return_address (0)); }
void __asan_storeN_noabort (uintptr_t a, size_t n) { record (a, n, 1, (uintptr_t) __builtin_return_address (0)); }
void __asan_handle_no_return (void) {}
}

extern "C" int
ctr_emu_traffic_enabled (void)
{
  return 1;
}

extern "C" void
ctr_emu_traffic_reset (void)
{
  EMU_API;
  per_kernel.clear ();
  seen.clear ();
}

extern "C" void
ctr_emu_traffic_sample (unsigned every)
{
  EMU_API;
  stride = every ? every : 1;
}

extern "C" void
ctr_emu_traffic_sample_blocks (unsigned every)
{
  EMU_API;
  block_stride = every ? every : 1;
}

extern "C" unsigned
ctr_emu_traffic_get (CtrEmuTraffic *rows, unsigned max)
{
  EMU_API;
  unsigned i = 0;
  for (const auto &kv : per_kernel)
    {
      if (i < max)
        {
          const KernelTraffic &t = kv.second;
          rows[i] = CtrEmuTraffic { kv.first.c_str (), t.launches, t.executed, t.requests, t.sectors, t.unique, t.atomics,
                                    t.blocks, t.blocks_run };
        }
      i++;
    }
  return i;
}

#else

extern "C" int ctr_emu_traffic_enabled (void) { return 0; }
extern "C" void ctr_emu_traffic_reset (void) {}
extern "C" void ctr_emu_traffic_sample (unsigned) {}
extern "C" void ctr_emu_traffic_sample_blocks (unsigned) {}
extern "C" unsigned ctr_emu_traffic_get (CtrEmuTraffic *, unsigned) { return 0; }

#endif
