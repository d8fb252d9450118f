/* emu-cufft.cc — cuFFT of the CUDA emulation harness (tests/gpu-emu) on
 * FFTW (single precision, FFTW_ESTIMATE plans executed on the new arrays).
 *
 * Model: cuFFT's unnormalised transforms, 1-D R2C/C2R batched with
 * strides and distances (no embedding); a plan owns a work area in device
 * memory of batch·n·8 bytes (the harness's model of cuFFT's scratch; it
 * counts against the device and fails with CUFFT_ALLOC_FAILED when it does
 * not fit) unless cufftSetAutoAllocation(plan, 0) leaves it to
 * cufftSetWorkArea.  Executions run in the plan's stream order; their
 * input and output ranges must lie inside live device allocations, and an
 * input sample that was never written is reported (initcheck).  The C2R
 * input may be overwritten, as cuFFT allows. */
#include "emu-internal.h"

#include <cufft.h>
#include <fftw3.h>
#include <map>

namespace ctr_emu {

struct Plan {
  bool made = false;
  cufftType type = CUFFT_R2C;
  int n = 0, batch = 0, istride = 1, idist = 0, ostride = 1, odist = 0;
  fftwf_plan p = nullptr;
  cudaStream_t stream = nullptr;
  bool auto_alloc = true;
  void *work = nullptr;        /* owned when auto_alloc */
  void *user_work = nullptr;
  size_t work_size = 0;
};

static std::map<int, Plan> plans;
static int next_plan = 1;

/* FFTW's planner is not thread-safe and fftwf_make_planner_thread_safe is a
   no-op in Debian's libfftw3f_omp: plan and destroy under core's planner lock
   (the CUDA FDK host code builds core's ramp filter outside the API lock, so
   a second host thread would plan beside us).  Weak: the harness's own
   self-test links no core. */
extern "C" void ctr_fft_planner_lock (void) __attribute__ ((weak));
extern "C" void ctr_fft_planner_unlock (void) __attribute__ ((weak));

struct PlannerGuard {
  PlannerGuard ()
  {
    if (ctr_fft_planner_lock)
      ctr_fft_planner_lock ();
  }
  ~PlannerGuard ()
  {
    if (ctr_fft_planner_unlock)
      ctr_fft_planner_unlock ();
  }
};

void
count_fft (CtrEmuLive *l)
{
  l->fft_plans = plans.size ();
}

static size_t
work_model (int n, int batch)
{
  return (size_t) batch * (size_t) n * 8;
}

static size_t
span (int count, int dist, int stride, int len)
{
  return ((size_t) (count - 1) * dist + (size_t) (len - 1) * stride + 1);
}

static cufftResult
make (Plan &pl, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
      cufftType type, int batch)
{
  if (rank != 1 || n == nullptr || n[0] < 2 || batch < 1 || istride < 1 || ostride < 1)
    return CUFFT_INVALID_SIZE;
  if (type != CUFFT_R2C && type != CUFFT_C2R)
    return CUFFT_INVALID_TYPE;
  if ((inembed == nullptr) != (onembed == nullptr) || inembed != nullptr)
    return CUFFT_NOT_IMPLEMENTED;
  const int nf = n[0] / 2 + 1;
  pl.type = type;
  pl.n = n[0];
  pl.batch = batch;
  pl.istride = istride;
  pl.ostride = ostride;
  pl.idist = idist ? idist : (type == CUFFT_R2C ? n[0] : nf);
  pl.odist = odist ? odist : (type == CUFFT_R2C ? nf : n[0]);
  const size_t rin = span (batch, type == CUFFT_R2C ? pl.idist : pl.odist, type == CUFFT_R2C ? istride : ostride, n[0]);
  const size_t cin = span (batch, type == CUFFT_R2C ? pl.odist : pl.idist, type == CUFFT_R2C ? ostride : istride, nf);
  float *r = fftwf_alloc_real (rin);
  fftwf_complex *c = fftwf_alloc_complex (cin);
  if (r == nullptr || c == nullptr)
    {
      fftwf_free (r);
      fftwf_free (c);
      return CUFFT_ALLOC_FAILED;
    }
  const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
  PlannerGuard planner;
  if (type == CUFFT_R2C)
    pl.p = fftwf_plan_many_dft_r2c (1, n, batch, r, nullptr, istride, pl.idist, c, nullptr, ostride, pl.odist, flags);
  else
    pl.p = fftwf_plan_many_dft_c2r (1, n, batch, c, nullptr, istride, pl.idist, r, nullptr, ostride, pl.odist,
                                    flags | FFTW_DESTROY_INPUT);
  fftwf_free (r);
  fftwf_free (c);
  if (pl.p == nullptr)
    return CUFFT_SETUP_FAILED;
  pl.work_size = work_model (n[0], batch);
  if (pl.auto_alloc)
    {
      cudaError_t e;
      pl.work = alloc_bytes (pl.work_size, (pl.work_size + 511) / 512 * 512, ALLOC_FFT_WORK, &e);
      if (pl.work == nullptr)
        {
          fftwf_destroy_plan (pl.p);   /* still under the planner guard */
          pl.p = nullptr;
          return CUFFT_ALLOC_FAILED;
        }
    }
  pl.made = true;
  return CUFFT_SUCCESS;
}

static Plan *
plan_of (cufftHandle h)
{
  auto it = plans.find (h);
  return it == plans.end () ? nullptr : &it->second;
}

struct FftOp final : Op {
  Plan pl;          /* copied at the call */
  void *in, *out;
  void exec () override
  {
    if (pl.type == CUFFT_R2C)
      fftwf_execute_dft_r2c (pl.p, (float *) in, (fftwf_complex *) out);
    else
      fftwf_execute_dft_c2r (pl.p, (fftwf_complex *) in, (float *) out);
  }
  const char *what () const override { return pl.type == CUFFT_R2C ? "cufftExecR2C" : "cufftExecC2R"; }
};

/* The input of each transform must have been written (initcheck). */
struct FftCheckOp final : Op {
  const float *in;
  size_t n_floats, stride_floats, count, dist_floats;
  const char *call;
  void exec () override
  {
    for (size_t b = 0; b < count; b++)
      for (size_t i = 0; i < n_floats; i++)
        if (is_poison (in[b * dist_floats + i * stride_floats]))
          {
            device_error ("%s reads never-written device memory: transform %zu of %zu, sample %zu (%p)", call, b,
                          count, i, (const void *) (in + b * dist_floats + i * stride_floats));
            return;
          }
  }
  const char *what () const override { return call; }
};

static cufftResult
exec (cufftHandle h, cufftType type, void *in, void *out, const char *call)
{
  Plan *pl = plan_of (h);
  if (pl == nullptr || !pl->made)
    return CUFFT_INVALID_PLAN;
  if (pl->type != type)
    return CUFFT_INVALID_TYPE;
  if (!pl->auto_alloc && pl->user_work == nullptr)
    return CUFFT_NO_WORKSPACE;
  const int nf = pl->n / 2 + 1;
  const bool r2c = type == CUFFT_R2C;
  const size_t in_bytes = span (pl->batch, pl->idist, pl->istride, r2c ? pl->n : nf) * (r2c ? 4 : 8);
  const size_t out_bytes = span (pl->batch, pl->odist, pl->ostride, r2c ? nf : pl->n) * (r2c ? 8 : 4);
  if (device_range (in, in_bytes) == nullptr || device_range (out, out_bytes) == nullptr)
    {
      device_error ("%s: input %p + %zu or output %p + %zu bytes is not inside one live device allocation", call, in,
                    in_bytes, out, out_bytes);
      return CUFFT_INVALID_VALUE;
    }
  if (!pl->auto_alloc && device_range (pl->user_work, pl->work_size) == nullptr)
    {
      device_error ("%s: the work area %p is not %zu bytes of live device memory", call, pl->user_work, pl->work_size);
      return CUFFT_INVALID_VALUE;
    }
  auto check = std::make_shared<FftCheckOp> ();
  check->in = (const float *) in;
  check->n_floats = r2c ? pl->n : 2 * nf;
  check->stride_floats = r2c ? pl->istride : 1;
  check->count = pl->batch;
  check->dist_floats = r2c ? pl->idist : 2 * (size_t) pl->idist;
  check->call = call;
  auto op = std::make_shared<FftOp> ();
  op->pl = *pl;
  op->in = in;
  op->out = out;
  if (enqueue (pl->stream, check) != cudaSuccess || enqueue (pl->stream, op) != cudaSuccess)
    return CUFFT_EXEC_FAILED;
  return CUFFT_SUCCESS;
}

}  /* namespace ctr_emu */

using namespace ctr_emu;

extern "C" cufftResult
cufftCreate (cufftHandle *h)
{
  EMU_API;
  if (fault ("cufftCreate"))
    return CUFFT_ALLOC_FAILED;
  *h = next_plan++;
  plans[*h] = Plan ();
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftMakePlanMany (cufftHandle h, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                   int ostride, int odist, cufftType type, int batch, size_t *work_size)
{
  EMU_API;
  if (fault ("cufftMakePlanMany"))
    return CUFFT_ALLOC_FAILED;
  Plan *pl = plan_of (h);
  if (pl == nullptr || pl->made)
    return CUFFT_INVALID_PLAN;
  cufftResult r = make (*pl, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
  if (r == CUFFT_SUCCESS && work_size)
    *work_size = pl->work_size;
  return r;
}

extern "C" cufftResult
cufftPlanMany (cufftHandle *h, int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride,
               int odist, cufftType type, int batch)
{
  EMU_API;
  if (fault ("cufftPlanMany"))
    return CUFFT_ALLOC_FAILED;
  Plan pl;
  cufftResult r = make (pl, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
  if (r != CUFFT_SUCCESS)
    return r;
  *h = next_plan++;
  plans[*h] = pl;
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftPlan1d (cufftHandle *h, int nx, cufftType type, int batch)
{
  EMU_API;
  if (fault ("cufftPlan1d"))
    return CUFFT_ALLOC_FAILED;
  Plan pl;
  cufftResult r = make (pl, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch);
  if (r != CUFFT_SUCCESS)
    return r;
  *h = next_plan++;
  plans[*h] = pl;
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftEstimateMany (int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
                   cufftType type, int batch, size_t *work_size)
{
  EMU_API;
  if (fault ("cufftEstimateMany"))
    return CUFFT_INTERNAL_ERROR;
  if (rank != 1 || n == nullptr || n[0] < 2 || batch < 1)
    return CUFFT_INVALID_SIZE;
  *work_size = work_model (n[0], batch);
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftGetSize (cufftHandle h, size_t *work_size)
{
  EMU_API;
  Plan *pl = plan_of (h);
  if (pl == nullptr || !pl->made)
    return CUFFT_INVALID_PLAN;
  *work_size = pl->work_size;
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftSetAutoAllocation (cufftHandle h, int auto_allocate)
{
  EMU_API;
  Plan *pl = plan_of (h);
  if (pl == nullptr || pl->made)
    return CUFFT_INVALID_PLAN;
  pl->auto_alloc = auto_allocate != 0;
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftSetWorkArea (cufftHandle h, void *work)
{
  EMU_API;
  if (fault ("cufftSetWorkArea"))
    return CUFFT_INVALID_VALUE;
  Plan *pl = plan_of (h);
  if (pl == nullptr || !pl->made || pl->auto_alloc)
    return CUFFT_INVALID_PLAN;
  pl->user_work = work;
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftSetStream (cufftHandle h, cudaStream_t st)
{
  EMU_API;
  if (fault ("cufftSetStream"))
    return CUFFT_INVALID_PLAN;
  Plan *pl = plan_of (h);
  if (pl == nullptr || !stream_valid (st))
    return CUFFT_INVALID_PLAN;
  pl->stream = st;
  return CUFFT_SUCCESS;
}

extern "C" cufftResult
cufftExecR2C (cufftHandle h, cufftReal *in, cufftComplex *out)
{
  EMU_API;
  if (fault ("cufftExecR2C"))
    return CUFFT_EXEC_FAILED;
  return exec (h, CUFFT_R2C, in, out, "cufftExecR2C");
}

extern "C" cufftResult
cufftExecC2R (cufftHandle h, cufftComplex *in, cufftReal *out)
{
  EMU_API;
  if (fault ("cufftExecC2R"))
    return CUFFT_EXEC_FAILED;
  return exec (h, CUFFT_C2R, in, out, "cufftExecC2R");
}

extern "C" cufftResult
cufftDestroy (cufftHandle h)
{
  EMU_API;
  Plan *pl = plan_of (h);
  if (pl == nullptr)
    return CUFFT_INVALID_PLAN;
  flush_all ();
  if (pl->p)
    {
      PlannerGuard planner;
      fftwf_destroy_plan (pl->p);
    }
  if (pl->work)
    free_bytes (pl->work, ALLOC_FFT_WORK);
  plans.erase (h);
  return CUFFT_SUCCESS;
}
