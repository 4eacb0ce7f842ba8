/* The pipelined sweep's kernel: the forward or the backward recurrence of
 * one chunk of lines (clo..chi across the sweep direction d), one thread
 * per (line, characteristic variable): adi_stage4_fwd_from /
 * adi_stage4_bwd_from of cuda/common/mpi_decomp.h, which load a batch of
 * points ahead of their steps (tests/unit/test_block_sweep.c checks them
 * against adi_stage4_line on the CPU, bit for bit). Launched by
 * cuda/multi/block_driver.cu, timed alone by bench/pipe_sweep.cu. */
#ifndef ADIFLOW_BLOCK_SWEEP_CUH
#define ADIFLOW_BLOCK_SWEEP_CUH

#include "mpi_decomp.h"

/* rb: the chunk's row from the neighbour the sweep comes from (NULL: the
 * line's own end), sb: where the row for the neighbour it goes to is left
 * (NULL: none); both in the order of the pipeline's messages, i fastest
 * (ilo..ihi), then the variable, then the line across (clo..chi). Reading
 * and leaving them here saves each chunk a copy into and out of the ghost
 * rows (two kernels a message on the pipeline's critical path). A chunk is
 * the lines ilo..ihi x clo..chi: all i and a range across (the pipelined
 * sweep), or a range of i and all across (the staged sweep, whose chunks
 * follow the local direction's lines, block_driver.cu). */
static __device__ __forceinline__ size_t block_sweep_row_index(int ilo, int ihi, int i, int c, int clo, int m)
{
  return ((size_t)(c - clo)*5 + (size_t)(m - 1))*(size_t)(ihi - ilo + 1) + (size_t)(i - ilo);
}

/* dir 0: forward (upwards along d), 1: backward */
__global__ void block_sweep(adi_view v, int d, int dir, int ilo, int ihi, int clo, int chi, const double *rb,
                            double *sb)
{
  int i = ilo + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  int c = clo + (int)(blockIdx.y*blockDim.y + threadIdx.y), m = 1 + (int)blockIdx.z;
  size_t k;
  double x0, x;
  if (i > ihi || c > chi) return;
  k = block_sweep_row_index(ilo, ihi, i, c, clo, m);
  x0 = rb != NULL ? rb[k] : 0.0;
  x = dir == 0 ? adi_stage4_fwd_from(&v, d, i, c, m, rb != NULL, x0)
               : adi_stage4_bwd_from(&v, d, i, c, m, rb != NULL, x0);
  if (sb != NULL) sb[k] = x;
}

/* the launch shape of a chunk: 32 x 4 threads over (i, c), the variable in z */
static inline dim3 block_sweep_grid(int ilo, int ihi, int clo, int chi)
{
  return dim3((unsigned)((ihi - ilo + 1 + 31)/32), (unsigned)((chi - clo + 1 + 3)/4), 5);
}
static inline dim3 block_sweep_threads(void) { return dim3(32, 4, 1); }

#endif
