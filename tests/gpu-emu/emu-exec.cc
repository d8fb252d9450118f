/* emu-exec.cc — how the CUDA emulation harness (tests/gpu-emu) runs a
 * kernel: the blocks of a launch are shared out to a pool of worker threads
 * (CTR_EMU_THREADS, default 2: the calling thread and one more); a worker
 * runs one block at a time, every CUDA thread of it a fiber with its own
 * stack (emu-fiber.h), scheduled round robin until it waits or ends.
 *
 *   __syncthreads: a block barrier; the threads that ended count as
 *     arrived (sm_70+); threads waiting at different __syncthreads are a
 *     barrier divergence (an error: a hang or undefined on a device).
 *   warp intrinsics (__shfl*_sync, __ballot_sync, __any/__all_sync,
 *     __syncwarp): every lane of the mask deposits its value; the last one
 *     to arrive computes every lane's result (the same instruction at the
 *     same place with the same mask, or an error); a mask naming a lane
 *     that has ended, is not in it, or does not exist is an error.
 *   A launch whose threads cannot all go on (some wait at a barrier that
 *     the others never reach) is a deadlock: an error, with who waits where.
 *
 * ThreadSanitizer (the TSan variant): each fiber is a TSan context;
 * switches from a CUDA thread to the scheduler carry no happens-before, so
 * two CUDA threads are concurrent unless a block barrier (release/acquire
 * on the block), __syncwarp, an atomic or stream order (release at the end
 * of a thread, acquire before the next launch) orders them: a data race
 * between CUDA threads is reported as one.  The blocks a worker runs one
 * after another are ordered (their shared memory and stacks are the same
 * bytes), blocks on different workers are not. */
#include "emu-internal.h"
#include "emu-fiber.h"

#include <algorithm>
#include <condition_variable>
#include <stdio.h>
#include <stdlib.h>

namespace ctr_emu {

__thread uint3 tl_thread_idx, tl_block_idx;
__thread dim3 tl_block_dim, tl_grid_dim;

enum FState { F_RUN, F_BAR, F_WARP, F_DONE };

struct Thread {
  FiberCtx ctx;
  int state;
  unsigned linear;
  uint3 idx;
  const char *file;      /* where it waits */
  int line;
  /* warp exchange */
  int xop;
  unsigned xmask;
  uint64_t xval, xres;
  int xarg, xwidth;
};

struct Worker {
  SchedCtx sched;
  std::vector<Thread> th;
  size_t stack_size;
  Thread *cur = nullptr;
  KernelCall *call = nullptr;
  unsigned n = 0, live = 0, bar_arrived = 0;
  std::vector<unsigned> runq;
  size_t rq_head = 0;
  std::vector<uint32_t> warp_arrived, warp_exited;
  char block_sync, bar_sync;             /* TSan sync addresses */
  std::vector<char> warp_sync;
  const char *kname = nullptr, *kfile = nullptr;
  int kline = 0;
};

static thread_local Worker *tw;

/* A host thread that launched kernels (the tests' concurrent runs) takes its
   worker, fiber stacks included, with it when it ends. */
struct WorkerOwner {
  ~WorkerOwner () { delete tw; tw = nullptr; }
};
static thread_local WorkerOwner tw_owner;

const char *
current_kernel ()
{
  return tw && tw->cur ? tw->kname : nullptr;
}

int
current_linear ()
{
  return tw && tw->cur ? (int) tw->cur->linear : -1;
}
static char launch_sync;                 /* TSan: stream order between launches */

static Worker *
worker ()
{
  if (tw == nullptr)
    {
      (void) &tw_owner;
      tw = new Worker ();
#if defined(CTR_EMU_ASAN) || defined(CTR_EMU_TSAN)
      tw->stack_size = 512 << 10;
#else
      tw->stack_size = 128 << 10;
#endif
      sched_init (&tw->sched);
    }
  return tw;
}

static const char *
op_name (int op)
{
  static const char *const names[] = { "__shfl_sync", "__shfl_xor_sync", "__shfl_down_sync", "__shfl_up_sync",
                                       "__ballot_sync", "__any_sync", "__all_sync", "__syncwarp" };
  return op >= 0 && op < 8 ? names[op] : "?";
}

static void
push (Worker *w, unsigned t)
{
  w->runq.push_back (t);
}

/* Every thread waiting at the block barrier goes on (the ones that ended
 * count as arrived); they must all wait at the same __syncthreads. */
static void
release_barrier (Worker *w, Thread *self)
{
  const Thread *first = nullptr;
  for (unsigned t = 0; t < w->n; t++)
    {
      Thread *x = &w->th[t];
      if (x->state != F_BAR)
        continue;
      if (first == nullptr)
        first = x;
      else if (x->line != first->line || strcmp (x->file, first->file) != 0)
        device_error ("kernel %s (%s:%d), block (%u,%u,%u): barrier divergence: thread %u waits at %s:%d, thread %u at %s:%d",
                      w->kname, w->kfile, w->kline, tl_block_idx.x, tl_block_idx.y, tl_block_idx.z,
                      first->linear, first->file, first->line, x->linear, x->file, x->line);
      x->state = F_RUN;
      if (x != self)
        push (w, t);
    }
  w->bar_arrived = 0;
}

/* Bookkeeping when a CUDA thread ends (on its fiber, before the last
 * switch: the TSan ignore must end there, the slot's context is reused). */
static void
thread_ended (Worker *w, Thread *t)
{
  TsanIgnore ignore;
  t->state = F_DONE;
  w->live--;
  hb_release (&w->block_sync);
  hb_release (&launch_sync);
  /* Lanes of its warp waiting for it at a warp intrinsic can never go on. */
  const unsigned warp = t->linear / 32, lane = t->linear % 32;
  w->warp_exited[warp] |= 1u << lane;
  if (w->warp_arrived[warp] != 0)
    for (unsigned l = 0; l < 32 && warp * 32 + l < w->n; l++)
      {
        const Thread *x = &w->th[warp * 32 + l];
        if (x->state == F_WARP && (x->xmask >> lane & 1))
          device_error ("kernel %s (%s:%d): thread %u ended while lane %u of its warp waits for it at %s (%s)",
                        w->kname, w->kfile, w->kline, t->linear, l, op_name (x->xop), x->file);
      }
  if (w->live > 0 && w->bar_arrived == w->live)
    release_barrier (w, nullptr);
  w->cur = nullptr;
}

static void
thread_entry (void *arg)
{
  Worker *w = tw;
  Thread *t = (Thread *) arg;
  fiber_started (&w->sched);
  w->call->run_thread ();
  thread_ended (w, t);
  switch_to_sched (&w->sched, &t->ctx, true);
  abort ();   /* never resumed */
}

void
block_barrier (const char *file, int line)
{
  TsanIgnore ignore;
  Worker *w = tw;
  Thread *t = w ? w->cur : nullptr;
  if (t == nullptr)
    {
      device_error ("__syncthreads at %s:%d outside a kernel", file, line);
      return;
    }
  t->file = file;
  t->line = line;
  t->state = F_BAR;
  w->bar_arrived++;
  hb_release (&w->bar_sync);
  if (w->bar_arrived == w->live)
    release_barrier (w, t);
  else
    {
      w->cur = nullptr;
      switch_to_sched (&w->sched, &t->ctx, false);
    }
  hb_acquire (&w->bar_sync);
}

static uint64_t
lane_result (Worker *w, unsigned base, unsigned lane, const Thread *me)
{
  const int width = me->xwidth > 0 && me->xwidth <= 32 ? me->xwidth : 32;
  const unsigned seg = lane / width * width;
  int src = -1;
  switch (me->xop)
    {
    case WARP_SHFL: src = (int) (seg + (unsigned) me->xarg % width); break;
    case WARP_SHFL_XOR: src = (int) (lane ^ (unsigned) me->xarg); if ((unsigned) src >= seg + width) src = (int) lane; break;
    case WARP_SHFL_DOWN: src = (int) (lane + (unsigned) me->xarg); if ((unsigned) src >= seg + width) src = (int) lane; break;
    case WARP_SHFL_UP: src = (int) lane - me->xarg; if (src < (int) seg) src = (int) lane; break;
    case WARP_BALLOT:
    case WARP_ANY:
    case WARP_ALL:
      {
        uint64_t bits = 0;
        for (unsigned l = 0; l < 32; l++)
          if (me->xmask >> l & 1)
            bits |= (w->th[base + l].xval ? 1ull : 0ull) << l;
        return me->xop == WARP_BALLOT ? bits : me->xop == WARP_ANY ? bits != 0 : bits == me->xmask;
      }
    default: return 0;
    }
  if (!(me->xmask >> src & 1))
    {
      device_error ("kernel %s (%s:%d): lane %u reads lane %d with %s at %s, which is not in the mask %#x",
                    w->kname, w->kfile, w->kline, lane, src, op_name (me->xop), me->file, me->xmask);
      return me->xval;
    }
  return w->th[base + src].xval;
}

uint64_t
warp_exchange (WarpOp op, unsigned mask, uint64_t v, int arg, int width, const char *site)
{
  TsanIgnore ignore;
  Worker *w = tw;
  Thread *t = w ? w->cur : nullptr;
  if (t == nullptr)
    {
      device_error ("%s at %s outside a kernel", op_name (op), site);
      return v;
    }
  const unsigned warp = t->linear / 32, lane = t->linear % 32, base = warp * 32;
  const unsigned exist = w->n - base >= 32 ? 0xffffffffu : (1u << (w->n - base)) - 1;
  if (!(mask >> lane & 1) || (mask & ~exist) != 0)
    device_error ("kernel %s (%s:%d): %s at %s by lane %u with mask %#x (lanes that exist: %#x)", w->kname,
                  w->kfile, w->kline, op_name (op), site, lane, mask, exist);
  t->xop = op;
  t->xmask = mask;
  t->xval = v;
  t->xarg = arg;
  t->xwidth = width;
  t->file = site;
  t->line = 0;
  t->state = F_WARP;
  if (op == WARP_SYNC)
    hb_release (&w->warp_sync[warp]);
  w->warp_arrived[warp] |= 1u << lane;
  if ((w->warp_arrived[warp] & mask & exist) == (mask & exist))
    {
      /* the last lane to arrive: same intrinsic, place and mask for all,
       * then every lane's result (all values are in: one pass suffices) */
      const unsigned m = mask & exist;
      for (unsigned l = 0; l < 32; l++)
        if (m >> l & 1)
          {
            Thread *x = &w->th[base + l];
            if (x->xop != op || x->xmask != mask || (x->file != site && strcmp (x->file, site) != 0))
              device_error ("kernel %s (%s:%d): warp divergence: lane %u at %s (%s, mask %#x), lane %u at %s (%s, mask %#x)",
                            w->kname, w->kfile, w->kline, lane, site, op_name (op), mask, l, x->file,
                            op_name (x->xop), x->xmask);
            x->xres = op == WARP_SHFL_XOR && width == 32 && (m >> (l ^ ((unsigned) arg & 31)) & 1)
                        ? w->th[base + (l ^ ((unsigned) arg & 31))].xval
                        : lane_result (w, base, l, x);
          }
      for (unsigned l = 0; l < 32; l++)
        if (m >> l & 1)
          {
            Thread *x = &w->th[base + l];
            x->state = F_RUN;
            if (x != t)
              push (w, base + l);
          }
      w->warp_arrived[warp] &= ~m;
    }
  else
    {
      if (mask & w->warp_exited[warp])
        device_error ("kernel %s (%s:%d): %s at %s waits for lanes %#x, which have ended", w->kname, w->kfile,
                      w->kline, op_name (op), site, mask & w->warp_exited[warp]);
      w->cur = nullptr;
      switch_to_sched (&w->sched, &t->ctx, false);
    }
  if (op == WARP_SYNC)
    hb_acquire (&w->warp_sync[warp]);
  return t->xres;
}

/* Runs block @b of the launch on this worker. */
static void
run_block (Worker *w, KernelCall *call, dim3 grid, dim3 block, unsigned long long b)
{
  const unsigned n = block.x * block.y * block.z;
  w->call = call;
  w->n = n;
  w->live = n;
  w->bar_arrived = 0;
  if (w->th.size () < n)
    w->th.resize (n);
  w->warp_arrived.assign ((n + 31) / 32, 0);
  w->warp_exited.assign ((n + 31) / 32, 0);
  w->warp_sync.resize ((n + 31) / 32);
  w->runq.clear ();
  w->rq_head = 0;
  tl_block_idx = uint3 { (unsigned) (b % grid.x), (unsigned) (b / grid.x % grid.y),
                         (unsigned) (b / ((unsigned long long) grid.x * grid.y)) };
  tl_block_dim = block;
  tl_grid_dim = grid;
  traffic_block_begin (n);
  hb_acquire (&w->block_sync);
  for (unsigned t = 0; t < n; t++)
    {
      Thread *x = &w->th[t];
      fiber_alloc (&x->ctx, w->stack_size);
      fiber_prepare (&x->ctx, thread_entry, x);
      x->state = F_RUN;
      x->linear = t;
      x->idx = uint3 { t % block.x, t / block.x % block.y, t / (block.x * block.y) };
      x->file = "";
      x->line = 0;
      push (w, t);
    }
  while (w->rq_head < w->runq.size ())
    {
      Thread *x = &w->th[w->runq[w->rq_head++]];
      if (x->state != F_RUN)
        continue;
      w->cur = x;
      tl_thread_idx = x->idx;
      switch_to_fiber (&w->sched, &x->ctx);
    }
  if (w->live > 0)
    {
      char buf[512];
      size_t at = 0;
      for (unsigned t = 0; t < n && at < sizeof buf - 64; t++)
        if (w->th[t].state != F_DONE && (t < 4 || t + 4 >= n))
          at += snprintf (buf + at, sizeof buf - at, " thread %u at %s%s%d;", t, w->th[t].file,
                          w->th[t].line ? ":" : "", w->th[t].line);
      device_error ("kernel %s (%s:%d), block (%u,%u,%u): deadlock, %u threads cannot go on:%s", w->kname,
                    w->kfile, w->kline, tl_block_idx.x, tl_block_idx.y, tl_block_idx.z, w->live, buf);
    }
  for (unsigned warp = 0; warp < (n + 31) / 32; warp++)
    traffic_warp_end (warp);
}

/* ------------------------------------------------------------- the pool -- */

struct Launch {
  KernelCall *call;
  dim3 grid, block;
  unsigned long long n_blocks;
  std::atomic<unsigned long long> next { 0 };
  bool skip_first;
  const char *file;
  int line;
};

struct Pool {
  std::mutex m;
  std::condition_variable work, done;
  unsigned long long gen = 0;
  unsigned busy = 0, n_threads = 0;
  Launch *cur = nullptr;
};

static Pool *pool;

static void
work_on (Launch *l)
{
  Worker *w = worker ();
  w->kname = l->call->name;
  w->kfile = l->file;
  w->kline = l->line;
  unsigned long long b;
  while ((b = l->next.fetch_add (1)) < l->n_blocks)
    if (!(l->skip_first && b == 0) && !traffic_skip_block (b))
      run_block (w, l->call, l->grid, l->block, b);
}

static void
pool_thread ()
{
  unsigned long long seen = 0;
  for (;;)
    {
      Launch *l;
      {
        std::unique_lock<std::mutex> lk (pool->m);
        pool->work.wait (lk, [&] { return pool->gen != seen; });
        seen = pool->gen;
        l = pool->cur;
      }
      work_on (l);
      {
        std::lock_guard<std::mutex> lk (pool->m);
        if (--pool->busy == 0)
          pool->done.notify_all ();
      }
    }
}

void
run_kernel (KernelCall *call, dim3 grid, dim3 block, const char *file, int line)
{
  if (traffic_skip (call->name))
    return;
  if (pool == nullptr)
    {
      pool = new Pool ();
      pool->n_threads = config ().threads - 1;
      for (unsigned i = 0; i < pool->n_threads; i++)
        std::thread (pool_thread).detach ();
    }
  Launch l;
  l.call = call;
  l.grid = grid;
  l.block = block;
  l.n_blocks = (unsigned long long) grid.x * grid.y * grid.z;
  const std::string &p = config ().corrupt_prefix;
  l.skip_first = !p.empty () && strncmp (call->name, p.c_str (), p.size ()) == 0;
  l.file = file;
  l.line = line;
  traffic_launch_begin (call->name);
  hb_release (&launch_sync);
  if (pool->n_threads > 0 && l.n_blocks > 1)
    {
      std::unique_lock<std::mutex> lk (pool->m);
      pool->cur = &l;
      pool->busy = pool->n_threads;
      pool->gen++;
      pool->work.notify_all ();
      lk.unlock ();
      work_on (&l);
      lk.lock ();
      pool->done.wait (lk, [] { return pool->busy == 0; });
    }
  else
    work_on (&l);
  hb_acquire (&launch_sync);
  traffic_launch_end ();
}

}  /* namespace ctr_emu */
