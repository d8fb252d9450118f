/* emu-stream.cc — streams, events, CUDA graphs and kernel launches of the
 * CUDA emulation harness (tests/gpu-emu).
 *
 * Work is recorded, not done, when it is issued: every stream keeps a queue
 * of operations (kernels, copies, memsets, event records, cuFFT and
 * cuSPARSE calls) that run in issue order when the program waits for them
 * (stream, event or device synchronisation, a blocking copy, cudaFree).  A
 * program that reads a result it did not wait for sees stale data here, as
 * it may on a device.  Stream capture records the operations into a graph
 * instead; cudaGraphLaunch queues the recorded ones again, with the
 * argument values they had at capture.  Capture follows the rules of
 * cudaStreamCaptureModeGlobal/ThreadLocal: a synchronisation or an
 * allocation on a capturing thread fails with
 * cudaErrorStreamCaptureUnsupported and invalidates the capture.
 * Events are time-stamped (host clock) when their record runs:
 * cudaEventElapsedTime of an event that has not run yet is
 * cudaErrorNotReady, as on a device.  Emulated times are no GPU timings. */
#include "emu-internal.h"

#include <algorithm>
#include <set>
#include <stdio.h>

namespace ctr_emu {

static CUstream_st legacy_stream;
static std::set<CUstream_st *> streams;
static std::set<CUevent_st *> events;
static std::set<CUgraph_st *> graphs;
static std::set<CUgraphExec_st *> graph_execs;
static unsigned long long n_launches, event_seq;

CUstream_st *
stream_of (cudaStream_t st)
{
  return st ? (CUstream_st *) st : &legacy_stream;
}

bool
stream_valid (cudaStream_t st)
{
  return st == nullptr || streams.count ((CUstream_st *) st) != 0;
}

bool
stream_capturing (cudaStream_t st)
{
  return stream_of (st)->capturing;
}

void
invalidate_capture (cudaStream_t st)
{
  CUstream_st *s = stream_of (st);
  if (s->capturing)
    s->capture_invalid = true;
}

bool
capture_forbids (const char *call)
{
  const std::thread::id me = std::this_thread::get_id ();
  bool forbid = false;
  for (CUstream_st *s : streams)
    if (s->capturing && s->capture_mode != cudaStreamCaptureModeRelaxed
        && (s->capture_mode == cudaStreamCaptureModeGlobal || s->capture_thread == me))
      {
        s->capture_invalid = true;
        forbid = true;
      }
  return forbid;
}

cudaError_t
enqueue (cudaStream_t st, OpPtr op)
{
  CUstream_st *s = stream_of (st);
  if (s->capturing)
    {
      if (s->capture_invalid)
        return cudaErrorStreamCaptureInvalidated;
      op->captured = true;
      s->captured.push_back (std::move (op));
      return cudaSuccess;
    }
  s->q.push_back (std::move (op));
  return cudaSuccess;
}

void
flush_stream (CUstream_st *s)
{
  while (!s->q.empty ())
    {
      OpPtr op = std::move (s->q.front ());
      s->q.pop_front ();
      op->exec ();
    }
}

void
flush_all ()
{
  flush_stream (&legacy_stream);
  for (CUstream_st *s : streams)
    flush_stream (s);
}

/* ------------------------------------------------------------ kernels -- */

struct KernelOp final : Op {
  std::shared_ptr<KernelCall> call;
  dim3 grid, block;
  const char *file;
  int line;
  void exec () override { run_kernel (call.get (), grid, block, file, line); }
  const char *what () const override { return call->name; }
};

void
submit_launch (KernelCall *call, dim3 grid, dim3 block, size_t shmem, cudaStream_t st, const char *file,
               int line, const void *const *ptrs, const int *ptr_index, int n_ptrs)
{
  EMU_API;
  std::shared_ptr<KernelCall> owned (call);
  if (fault ("kernel launch"))
    {
      invalidate_capture (st);
      set_last (cudaErrorLaunchOutOfResources);
      return;
    }
  if (!stream_valid (st))
    {
      set_last (cudaErrorInvalidResourceHandle);
      return;
    }
  const unsigned long long threads = (unsigned long long) block.x * block.y * block.z;
  if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0
      || grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535 || shmem > (48u << 10))
    {
      invalidate_capture (st);
      set_last (cudaErrorInvalidConfiguration);
      return;
    }
  for (int i = 0; i < n_ptrs; i++)
    if (ptrs[i] != nullptr && device_range (ptrs[i], 0) == nullptr && !pinned_range (ptrs[i], 0))
      device_error ("%s:%d: kernel %s, argument %d (%p) is neither device memory nor null", file, line,
                    call->name, ptr_index[i], ptrs[i]);
  count_launch ();
  auto op = std::make_shared<KernelOp> ();
  op->call = std::move (owned);
  op->grid = grid;
  op->block = block;
  op->file = file;
  op->line = line;
  cudaError_t e = enqueue (st, op);
  if (e != cudaSuccess)
    set_last (e);
  n_launches++;
}

/* ------------------------------------------------------------- events -- */

struct RecordOp final : Op {
  CUevent_st *ev;
  unsigned long long seq;
  void exec () override
  {
    if (events.count (ev) && ev->seq == seq)
      {
        ev->complete = true;
        ev->t_ms = now_ms ();
      }
  }
  const char *what () const override { return "cudaEventRecord"; }
};

}  /* namespace ctr_emu */

using namespace ctr_emu;

extern "C" cudaError_t
cudaStreamCreate (cudaStream_t *st)
{
  return cudaStreamCreateWithFlags (st, cudaStreamDefault);
}

extern "C" cudaError_t
cudaStreamCreateWithFlags (cudaStream_t *st, unsigned flags)
{
  EMU_API;
  *st = nullptr;
  if (fault ("cudaStreamCreateWithFlags"))
    return set_last (cudaErrorLaunchOutOfResources);
  CUstream_st *s = new CUstream_st ();
  s->flags = flags;
  streams.insert (s);
  *st = s;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaStreamDestroy (cudaStream_t st)
{
  EMU_API;
  CUstream_st *s = (CUstream_st *) st;
  if (s == nullptr || !streams.count (s))
    return set_last (cudaErrorInvalidResourceHandle);
  if (s->capturing)
    device_error ("cudaStreamDestroy of a stream that is still capturing");
  flush_stream (s);   /* its work completes before the resources go */
  streams.erase (s);
  delete s;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaStreamSynchronize (cudaStream_t st)
{
  EMU_API;
  if (fault ("cudaStreamSynchronize"))
    return set_last (cudaErrorLaunchFailure);
  if (!stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  if (stream_capturing (st))
    {
      invalidate_capture (st);
      return set_last (cudaErrorStreamCaptureUnsupported);
    }
  if (st == nullptr)
    flush_all ();
  else
    flush_stream ((CUstream_st *) st);
  return cudaSuccess;
}

extern "C" cudaError_t
cudaDeviceSynchronize (void)
{
  EMU_API;
  if (fault ("cudaDeviceSynchronize"))
    return set_last (cudaErrorLaunchFailure);
  if (capture_forbids ("cudaDeviceSynchronize"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  flush_all ();
  return cudaSuccess;
}

extern "C" cudaError_t
cudaEventCreate (cudaEvent_t *ev)
{
  return cudaEventCreateWithFlags (ev, cudaEventDefault);
}

extern "C" cudaError_t
cudaEventCreateWithFlags (cudaEvent_t *ev, unsigned flags)
{
  EMU_API;
  *ev = nullptr;
  if (fault ("cudaEventCreate"))
    return set_last (cudaErrorLaunchOutOfResources);
  CUevent_st *e = new CUevent_st ();
  events.insert (e);
  *ev = e;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaEventDestroy (cudaEvent_t ev)
{
  EMU_API;
  if (ev == nullptr || !events.count (ev))
    return set_last (cudaErrorInvalidResourceHandle);
  events.erase (ev);
  delete ev;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaEventRecord (cudaEvent_t ev, cudaStream_t st)
{
  EMU_API;
  if (fault ("cudaEventRecord"))
    return set_last (cudaErrorLaunchFailure);
  if (ev == nullptr || !events.count (ev) || !stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  ev->recorded = true;
  ev->complete = false;
  ev->stream = stream_of (st);
  ev->seq = ++event_seq;
  auto op = std::make_shared<RecordOp> ();
  op->ev = ev;
  op->seq = ev->seq;
  return set_last (enqueue (st, op));
}

extern "C" cudaError_t
cudaEventSynchronize (cudaEvent_t ev)
{
  EMU_API;
  if (fault ("cudaEventSynchronize"))
    return set_last (cudaErrorLaunchFailure);
  if (ev == nullptr || !events.count (ev))
    return set_last (cudaErrorInvalidResourceHandle);
  if (!ev->recorded)
    return cudaSuccess;
  if (ev->stream->capturing)
    {
      ev->stream->capture_invalid = true;
      return set_last (cudaErrorStreamCaptureUnsupported);
    }
  CUstream_st *s = ev->stream;
  while (!ev->complete && !s->q.empty ())
    {
      OpPtr op = std::move (s->q.front ());
      s->q.pop_front ();
      op->exec ();
    }
  return cudaSuccess;
}

extern "C" cudaError_t
cudaEventQuery (cudaEvent_t ev)
{
  EMU_API;
  if (ev == nullptr || !events.count (ev))
    return set_last (cudaErrorInvalidResourceHandle);
  return !ev->recorded || ev->complete ? cudaSuccess : cudaErrorNotReady;
}

extern "C" cudaError_t
cudaEventElapsedTime (float *ms, cudaEvent_t a, cudaEvent_t b)
{
  EMU_API;
  if (fault ("cudaEventElapsedTime"))
    return set_last (cudaErrorLaunchFailure);
  if (a == nullptr || b == nullptr || !events.count (a) || !events.count (b))
    return set_last (cudaErrorInvalidResourceHandle);
  if (!a->recorded || !b->recorded)
    return set_last (cudaErrorInvalidResourceHandle);
  if (!a->complete || !b->complete)
    return set_last (cudaErrorNotReady);
  *ms = (float) (b->t_ms - a->t_ms);
  return cudaSuccess;
}

extern "C" cudaError_t
cudaStreamWaitEvent (cudaStream_t st, cudaEvent_t ev, unsigned flags)
{
  EMU_API;
  if (fault ("cudaStreamWaitEvent"))
    return set_last (cudaErrorLaunchFailure);
  if (ev == nullptr || !events.count (ev) || !stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  /* Work queued on @st later must follow the event: run up to it now. */
  if (ev->recorded && !ev->stream->capturing)
    while (!ev->complete && !ev->stream->q.empty ())
      {
        OpPtr op = std::move (ev->stream->q.front ());
        ev->stream->q.pop_front ();
        op->exec ();
      }
  return cudaSuccess;
}

/* ------------------------------------------------------------- graphs -- */

extern "C" cudaError_t
cudaStreamBeginCapture (cudaStream_t st, enum cudaStreamCaptureMode mode)
{
  EMU_API;
  if (fault ("cudaStreamBeginCapture"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  if (st == nullptr || !stream_valid (st))
    return set_last (st == nullptr ? cudaErrorStreamCaptureUnsupported : cudaErrorInvalidResourceHandle);
  CUstream_st *s = (CUstream_st *) st;
  if (s->capturing)
    return set_last (cudaErrorStreamCaptureUnsupported);
  s->capturing = true;
  s->capture_invalid = false;
  s->capture_mode = mode;
  s->capture_thread = std::this_thread::get_id ();
  s->captured.clear ();
  return cudaSuccess;
}

extern "C" cudaError_t
cudaStreamEndCapture (cudaStream_t st, cudaGraph_t *graph)
{
  EMU_API;
  *graph = nullptr;
  if (st == nullptr || !stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  CUstream_st *s = (CUstream_st *) st;
  if (!s->capturing)
    return set_last (cudaErrorStreamCaptureUnmatched);
  if (s->capture_thread != std::this_thread::get_id () && s->capture_mode != cudaStreamCaptureModeRelaxed)
    return set_last (cudaErrorStreamCaptureWrongThread);
  s->capturing = false;
  std::vector<OpPtr> ops;
  ops.swap (s->captured);
  /* The end of capture is failable: it can run out of resources. */
  if (fault ("cudaStreamEndCapture"))
    return set_last (cudaErrorStreamCaptureInvalidated);
  if (s->capture_invalid)
    {
      s->capture_invalid = false;
      return set_last (cudaErrorStreamCaptureInvalidated);
    }
  CUgraph_st *g = new CUgraph_st ();
  g->ops = std::move (ops);
  graphs.insert (g);
  *graph = g;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaGraphInstantiate (cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
  EMU_API;
  *exec = nullptr;
  if (fault ("cudaGraphInstantiate"))
    return set_last (cudaErrorMemoryAllocation);
  if (graph == nullptr || !graphs.count (graph))
    return set_last (cudaErrorInvalidResourceHandle);
  CUgraphExec_st *x = new CUgraphExec_st ();
  x->ops = graph->ops;
  graph_execs.insert (x);
  *exec = x;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaGraphLaunch (cudaGraphExec_t exec, cudaStream_t st)
{
  EMU_API;
  if (fault ("cudaGraphLaunch"))
    return set_last (cudaErrorLaunchFailure);
  if (exec == nullptr || !graph_execs.count (exec) || !stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  for (const OpPtr &op : exec->ops)
    {
      cudaError_t e = enqueue (st, op);
      if (e != cudaSuccess)
        return set_last (e);
      if (dynamic_cast<KernelOp *> (op.get ()))
        n_launches++;
    }
  return cudaSuccess;
}

extern "C" cudaError_t
cudaGraphDestroy (cudaGraph_t graph)
{
  EMU_API;
  if (graph == nullptr || !graphs.count (graph))
    return set_last (cudaErrorInvalidResourceHandle);
  graphs.erase (graph);
  delete graph;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaGraphExecDestroy (cudaGraphExec_t exec)
{
  EMU_API;
  if (exec == nullptr || !graph_execs.count (exec))
    return set_last (cudaErrorInvalidResourceHandle);
  graph_execs.erase (exec);
  delete exec;
  return cudaSuccess;
}

namespace ctr_emu {
void
count_streams (CtrEmuLive *l)
{
  l->streams = streams.size ();
  l->events = events.size ();
  l->graphs = graphs.size ();
  l->graph_execs = graph_execs.size ();
}
}

extern "C" unsigned long long
ctr_emu_launches (void)
{
  EMU_API;
  return n_launches;
}
