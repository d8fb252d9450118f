/* cuComplex.h — single-precision complex of the CUDA emulation harness
 * (tests/gpu-emu): float2, as in CUDA. */
#pragma once

#include "cuda_runtime.h"

typedef float2 cuFloatComplex;
typedef cuFloatComplex cuComplex;
static inline cuFloatComplex make_cuFloatComplex (float r, float i) { return make_float2 (r, i); }
static inline float cuCrealf (cuFloatComplex z) { return z.x; }
static inline float cuCimagf (cuFloatComplex z) { return z.y; }
