/* The pipelined sweep of exact mode (adiflow_mpi on GPU blocks), its
 * kernels timed alone on one GPU: a block of n^3 cells swept along k
 * (forward, then backward) as one chunk and cut into C chunks, and the
 * blocks of the coarser multigrid levels (n/2, n/4, ...) as one chunk.
 * What a pipeline over P ranks can gain depends on whether a chunk's time
 * shrinks with its lines (it overlaps the other ranks' chunks) or stays
 * at a floor (each chunk then only adds its message's latency): the
 * figures behind pipe_chunks' lines per chunk (cuda/multi/block_driver.cu).
 *   pipe_sweep [n, default 256] [repetitions, default 20]
 * Prints one row per (block, chunks): lines per chunk, microseconds per
 * chunk (forward + backward), the whole sweep's time, and the bytes the
 * sweep moves over that time. Values are arbitrary (a stable recurrence);
 * only the time is measured. Built with the CUDA backend (make); run on one
 * GPU by bench/device_mpi_mg.sh pipe. */
#include <stdio.h>
#include <stdlib.h>

#include "adiflow_gpu_vendor.h"
#include "adiflow_bridge.h"    /* adi_layout_set */
#include "../cuda/multi/block_sweep.cuh"

#define CK(call)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "pipe_sweep: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,   \
              cudaGetErrorString(e_));                                             \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* a stable recurrence: reciprocal diagonals 0.5, off-diagonals 0.2, rhs 1 */
__global__ void fill_work(double *wk, ptrdiff_t npts)
{
  ptrdiff_t p = (ptrdiff_t)blockIdx.x*blockDim.x + threadIdx.x;
  int f;
  if (p >= npts) return;
  for (f = 0; f < ADI_NWORK; ++f) {
    double x = 1.0;
    if (f >= WK_RDIAG && f < WK_RDIAG + 3) x = 0.5;
    else if (f >= WK_FLMP && f < WK_FLMN + 3) x = 0.2;
    wk[(ptrdiff_t)f*npts + p] = x;
  }
}

/* microseconds of the fwd + bwd sweeps over the ncr lines in nch chunks, chunk after chunk */
static double time_sweep(const adi_view *v, int nch, int reps, cudaEvent_t e0, cudaEvent_t e1)
{
  int ncr = v->nj, r, c, dir;
  float ms;
  for (r = -2; r < reps; ++r) {          /* two warm-up rounds */
    if (r == 0) CK(cudaEventRecord(e0, 0));
    for (dir = 0; dir < 2; ++dir)
      for (c = 0; c < nch; ++c) {
        int clo = 1 + (int)((long long)ncr*c/nch), chi = (int)((long long)ncr*(c + 1)/nch);
        block_sweep<<<block_sweep_grid(1, v->ni, clo, chi), block_sweep_threads()>>>(*v, 3, dir, 1, v->ni, clo, chi, NULL,
                                                                                   NULL);
        CK(cudaGetLastError());
      }
  }
  CK(cudaEventRecord(e1, 0));
  CK(cudaEventSynchronize(e1));
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return 1000.0*(double)ms/reps;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 256, reps = argc > 2 ? atoi(argv[2]) : 20, m, k;
  const int chunks[] = {1, 2, 4, 8, 16, 32};
  cudaEvent_t e0, e1;
  cudaDeviceProp prop;
  if (n < 8 || n > 1024 || reps < 1) {
    fprintf(stderr, "pipe_sweep: usage: pipe_sweep [n in 8..1024] [repetitions >= 1]\n");
    return 2;
  }
  CK(cudaGetDeviceProperties(&prop, 0));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("pipe_sweep: %s, blocks of m^3 cells swept along k, fwd + bwd, %d repetitions\n", prop.name, reps);
  printf("%6s %7s %12s %14s %12s %10s\n", "m", "chunks", "lines/chunk", "us per chunk", "us in all", "GB/s");
  for (m = n; m >= 8; m /= 2) {
    adi_solver_params sp = {0};
    adi_view v;
    double *wk = NULL, us, bytes;
    sp.ni = sp.nj = sp.nk = m;
    adi_layout_set(&sp);
    v = adi_make_view(&sp, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    CK(cudaMalloc((void **)&wk, (size_t)ADI_NWORK*(size_t)v.npts*sizeof(double)));
    v.wk = wk;
    fill_work<<<(unsigned)((v.npts + 255)/256), 256>>>(wk, v.npts);
    CK(cudaGetLastError());
    /* fwd: r, flmp, rdiag read, r written; bwd: r, flmn read, r written (5 variables a cell) */
    bytes = (double)m*m*m*5.0*(4.0 + 3.0)*sizeof(double);
    for (k = 0; k < (int)(sizeof chunks/sizeof chunks[0]); ++k) {
      int nch = chunks[k];
      if (nch > m || (m < n && nch > 1)) continue;     /* coarse levels: one chunk */
      us = time_sweep(&v, nch, reps, e0, e1);
      printf("%6d %7d %12d %14.1f %12.1f %10.0f\n", m, nch, m*m/nch, us/nch, us, bytes/(us*1e3));
    }
    CK(cudaFree(wk));
  }
  return 0;
}
