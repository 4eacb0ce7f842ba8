/* The pipelined sweep's kernels: the recurrences of one chunk of lines
 * (clo..chi across the sweep direction d), one thread per (line,
 * characteristic variable): adi_stage4_fwd_var / adi_stage4_bwd_var of
 * cuda/common/mpi_decomp.h, which load a batch of points ahead of their
 * steps (tests/unit/test_block_sweep.c checks them against
 * adi_stage4_line on the CPU, bit for bit). Launched by
 * cuda/multi/block_driver.cu, timed alone by bench/pipe_sweep.cu. */
#ifndef ADIFLOW_BLOCK_SWEEP_CUH
#define ADIFLOW_BLOCK_SWEEP_CUH

#include "mpi_decomp.h"

__global__ void block_sweep_fwd(adi_view v, int d, int clo, int chi, int has_lo)
{
  int i = 1 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int c = clo + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  if (i > v.ni || c > chi) return;
  adi_stage4_fwd_var(&v, d, i, c, 1 + (int)blockIdx.z, has_lo);
}

__global__ void block_sweep_bwd(adi_view v, int d, int clo, int chi, int has_hi)
{
  int i = 1 + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int c = clo + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  if (i > v.ni || c > chi) return;
  adi_stage4_bwd_var(&v, d, i, c, 1 + (int)blockIdx.z, has_hi);
}

/* the launch shape of a chunk: 32 x 4 threads over (i, c), the variable in z */
static inline dim3 block_sweep_grid(int ni, int clo, int chi)
{
  return dim3((unsigned)((ni + 31)/32), (unsigned)((chi - clo + 1 + 3)/4), 5);
}
static inline dim3 block_sweep_threads(void) { return dim3(32, 4, 1); }

#endif
