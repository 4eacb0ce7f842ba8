/* afp_gpu_tree.cuh - the fixed reduction tree of reduction TREE (afp.h): a
 * grid of nblocks(n) blocks of BLOCK threads, each block's sums written to
 * partials[r * MAXBLOCKS + block] by block_sums, then added by one block
 * (k_final, afp_gpu_sums.cu). The grid depends on the size only, so the sums
 * are the same from run to run; afp_cpu.c's tree_sum reproduces them. */
#ifndef AFP_GPU_TREE_CUH
#define AFP_GPU_TREE_CUH

#include "afp_gpu.h"

static inline int nblocks(int n) { int b = (n + BLOCK - 1) / BLOCK; return b < 1 ? 1 : (b > MAXBLOCKS ? MAXBLOCKS : b); }

/* fixed-shape block sum of NR values per thread; partials[r*MAXBLOCKS + block] */
template <int NR>
__device__ void block_sums(double (&v)[NR], double *partials)
{
    __shared__ double sh[NR][BLOCK];
    for (int r = 0; r < NR; r++) sh[r][threadIdx.x] = v[r];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            for (int r = 0; r < NR; r++) sh[r][threadIdx.x] += sh[r][threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        for (int r = 0; r < NR; r++) partials[r * MAXBLOCKS + blockIdx.x] = sh[r][0];
}

#endif
