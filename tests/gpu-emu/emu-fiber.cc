/* emu-fiber.cc — context switching for the CUDA emulation harness (see
 * emu-fiber.h). */
#include "emu-fiber.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(CTR_EMU_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(CTR_EMU_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

#if defined(__x86_64__) && !defined(CTR_EMU_UCONTEXT)
#define CTR_EMU_ASM_SWITCH 1
/* void ctr_emu_ctx_switch (void **save_sp, void *new_sp): pushes the
 * callee-saved registers and the floating-point control words on the
 * current stack, saves its pointer, loads the other one and pops. */
__asm__ (
  ".text\n"
  ".globl ctr_emu_ctx_switch\n"
  ".type ctr_emu_ctx_switch,@function\n"
  "ctr_emu_ctx_switch:\n"
  "  .cfi_startproc\n"
  "  pushq %rbp\n"
  "  pushq %rbx\n"
  "  pushq %r12\n"
  "  pushq %r13\n"
  "  pushq %r14\n"
  "  pushq %r15\n"
  "  subq $8, %rsp\n"
  "  stmxcsr (%rsp)\n"
  "  fnstcw 4(%rsp)\n"
  "  movq %rsp, (%rdi)\n"
  "  movq %rsi, %rsp\n"
  "  ldmxcsr (%rsp)\n"
  "  fldcw 4(%rsp)\n"
  "  addq $8, %rsp\n"
  "  popq %r15\n"
  "  popq %r14\n"
  "  popq %r13\n"
  "  popq %r12\n"
  "  popq %rbx\n"
  "  popq %rbp\n"
  "  ret\n"
  "  .cfi_endproc\n"
  ".size ctr_emu_ctx_switch, .-ctr_emu_ctx_switch\n"
  /* a new fiber 'returns' here: fn (arg) from r13, r12 */
  ".globl ctr_emu_ctx_start\n"
  ".type ctr_emu_ctx_start,@function\n"
  "ctr_emu_ctx_start:\n"
  "  .cfi_startproc\n"
  "  .cfi_undefined rip\n"
  "  movq %r12, %rdi\n"
  "  callq *%r13\n"
  "  ud2\n"
  "  .cfi_endproc\n"
  ".size ctr_emu_ctx_start, .-ctr_emu_ctx_start\n"
  ".section .note.GNU-stack,\"\",@progbits\n"
  ".text\n");
extern "C" void ctr_emu_ctx_switch (void **save_sp, void *new_sp);
extern "C" void ctr_emu_ctx_start (void);
#else
#include <ucontext.h>
#endif

namespace ctr_emu {

void
fiber_alloc (FiberCtx *f, size_t stack_size)
{
  if (f->stack != nullptr)
    return;
  const size_t page = (size_t) sysconf (_SC_PAGESIZE);
  stack_size = (stack_size + page - 1) / page * page;
  char *m = (char *) mmap (nullptr, stack_size + page, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == (char *) MAP_FAILED)
    {
      fprintf (stderr, "ctr-emu: cannot map a fiber stack of %zu bytes\n", stack_size);
      abort ();
    }
  mprotect (m, page, PROT_NONE);   /* guard: an overflow faults */
  f->stack = m + page;
  f->size = stack_size;
#if defined(CTR_EMU_TSAN)
  f->tsan = __tsan_create_fiber (0);
#endif
#if !defined(CTR_EMU_ASM_SWITCH)
  f->uc = calloc (1, sizeof (ucontext_t));
#endif
}

void
fiber_prepare (FiberCtx *f, void (*fn) (void *), void *arg)
{
#if defined(CTR_EMU_ASM_SWITCH)
  uintptr_t top = ((uintptr_t) f->stack + f->size) & ~(uintptr_t) 15;
  uint64_t *sp = (uint64_t *) (top - 64);
  uint32_t mxcsr;
  uint16_t fpucw;
  __asm__ volatile ("stmxcsr %0" : "=m" (mxcsr));
  __asm__ volatile ("fnstcw %0" : "=m" (fpucw));
  sp[0] = (uint64_t) mxcsr | ((uint64_t) fpucw << 32);
  sp[1] = 0;                       /* r15 */
  sp[2] = 0;                       /* r14 */
  sp[3] = (uint64_t) fn;           /* r13 */
  sp[4] = (uint64_t) arg;          /* r12 */
  sp[5] = 0;                       /* rbx */
  sp[6] = 0;                       /* rbp */
  sp[7] = (uint64_t) ctr_emu_ctx_start;
  f->sp = sp;
#else
  ucontext_t *uc = (ucontext_t *) f->uc;
  getcontext (uc);
  uc->uc_stack.ss_sp = f->stack;
  uc->uc_stack.ss_size = f->size;
  uc->uc_link = nullptr;
  makecontext (uc, (void (*) (void)) fn, 1, arg);   /* one pointer argument: fine on LP64 glibc */
#endif
}

void
sched_init (SchedCtx *s)
{
#if defined(CTR_EMU_TSAN)
  s->self.tsan = __tsan_get_current_fiber ();
#endif
#if !defined(CTR_EMU_ASM_SWITCH)
  if (s->self.uc == nullptr)
    s->self.uc = calloc (1, sizeof (ucontext_t));
#endif
}

static void
raw_switch (FiberCtx *from, FiberCtx *to)
{
#if defined(CTR_EMU_ASM_SWITCH)
  ctr_emu_ctx_switch (&from->sp, to->sp);
#else
  swapcontext ((ucontext_t *) from->uc, (ucontext_t *) to->uc);
#endif
}

void
switch_to_fiber (SchedCtx *s, FiberCtx *f)
{
#if defined(CTR_EMU_ASAN)
  __sanitizer_start_switch_fiber (&s->self.asan_fake, f->stack, f->size);
#endif
#if defined(CTR_EMU_TSAN)
  __tsan_switch_to_fiber (f->tsan, 0);   /* the fiber sees what the scheduler wrote */
#endif
  raw_switch (&s->self, f);
#if defined(CTR_EMU_ASAN)
  __sanitizer_finish_switch_fiber (s->self.asan_fake, nullptr, nullptr);
#endif
}

void
switch_to_sched (SchedCtx *s, FiberCtx *f, bool finished)
{
#if defined(CTR_EMU_ASAN)
  __sanitizer_start_switch_fiber (finished ? nullptr : &f->asan_fake, s->bottom, s->size);
#endif
#if defined(CTR_EMU_TSAN)
  /* No happens-before from a CUDA thread to the scheduler: the next CUDA
   * thread the scheduler runs stays concurrent with this one. */
  __tsan_switch_to_fiber (s->self.tsan, __tsan_switch_to_fiber_no_sync);
#endif
  raw_switch (f, &s->self);
#if defined(CTR_EMU_ASAN)
  __sanitizer_finish_switch_fiber (f->asan_fake, &s->bottom, &s->size);
#endif
}

void
fiber_started (SchedCtx *s)
{
#if defined(CTR_EMU_ASAN)
  __sanitizer_finish_switch_fiber (nullptr, &s->bottom, &s->size);
#else
  (void) s;
#endif
}

void
hb_release (void *addr)
{
#if defined(CTR_EMU_TSAN)
  __tsan_release (addr);
#else
  (void) addr;
#endif
}

void
hb_acquire (void *addr)
{
#if defined(CTR_EMU_TSAN)
  __tsan_acquire (addr);
#else
  (void) addr;
#endif
}

}  /* namespace ctr_emu */
