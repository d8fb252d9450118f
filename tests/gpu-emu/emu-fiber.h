/* emu-fiber.h — the fibers that run CUDA threads in the emulation harness
 * (tests/gpu-emu): a context switch that saves only what the ABI asks
 * (x86-64: six registers, MXCSR and the x87 control word; elsewhere
 * ucontext), stacks with a guard page, and the sanitizer annotations
 * (ASan: __sanitizer_start/finish_switch_fiber; TSan: one fiber context per
 * CUDA thread slot, switched to without synchronisation, so that two CUDA
 * threads are concurrent for TSan unless a barrier or an atomic orders
 * them). */
#pragma once

#include <stddef.h>

namespace ctr_emu {

struct FiberCtx {
  void *sp = nullptr;           /* saved stack pointer (x86-64) */
  void *uc = nullptr;           /* ucontext_t elsewhere */
  char *stack = nullptr;        /* usable stack [stack, stack + size) */
  size_t size = 0;
  void *asan_fake = nullptr;    /* ASan's fake stack of this fiber */
  void *tsan = nullptr;         /* TSan's context of this fiber */
};

/* The context a worker thread schedules from (its own stack). */
struct SchedCtx {
  FiberCtx self;
  const void *bottom = nullptr; /* its stack, as ASan reports it */
  size_t size = 0;
};

/* Allocates the stack (and TSan context) of @f once. */
void fiber_alloc (FiberCtx *f, size_t stack_size);
/* Prepares @f to start in fn(arg) at the next switch to it. */
void fiber_prepare (FiberCtx *f, void (*fn) (void *), void *arg);
void sched_init (SchedCtx *s);
/* Scheduler → fiber (returns when the fiber yields or finishes). */
void switch_to_fiber (SchedCtx *s, FiberCtx *f);
/* Fiber → scheduler; @finished: the fiber never runs again. */
void switch_to_sched (SchedCtx *s, FiberCtx *f, bool finished);
/* First thing a fiber's entry function calls. */
void fiber_started (SchedCtx *s);

/* TSan happens-before annotations (no-ops without TSan). */
void hb_release (void *addr);
void hb_acquire (void *addr);

}  /* namespace ctr_emu */
