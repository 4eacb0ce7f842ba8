/* ADI stage 4 of a block of a decomposed line: the halves of the
 * pipelined sweep of fortran/mpi_decomp.f90 (adi_stage4_pipelined), with the
 * operations of lu_adi.h's adi_stage4_line in the same order. The GPU
 * side: cuda/multi/block_driver.cu; tests/unit/test_block_sweep.c checks it
 * against whole-line sweeps. */
#ifndef ADIFLOW_MPI_DECOMP_H
#define ADIFLOW_MPI_DECOMP_H

#include "lu_adi.h"

/* ---- ADI stage 4 split for a block of a decomposed line (the multi-GPU
 * exact mode, cuda/multi/block_driver.cu): the forward, then the backward
 * recurrence of one characteristic variable m of the line (b, c), with the
 * operations of adi_stage4_line in the same order. has_lo: the value of cell
 * 0 (the block below's last forward value, received into the ghost row)
 * starts the recurrence at cell 1, as the single line's own cell 0 would;
 * has_hi: cell n+1 holds the block above's first backward value. Without
 * them, the line's own end conditions (adi_stage4_line exactly). wk, not
 * adi_wk_get/put: a block keeps the ADI fields in wk (wkf NULL,
 * cuda/api/grid.cu), where block_driver.cu's row copies and halos find
 * them. ---- */
/* The loads of ADI_SWEEP_BATCH points are issued before their steps: the
 * same operations on the same values in the same order as one point at a
 * time, but on the GPU, where one thread walks a line, a point's loads no
 * longer wait for the previous point's store (no compiler moves a load above
 * a store into the same array), and the sweep stops being bound by memory
 * latency (bench/log/2026-11-28-multi-gpu-graph.md). A batch reads only
 * points its steps have not yet written: r at later points, and flmp+-/rdiag,
 * which the sweep does not write. */
#define ADI_SWEEP_BATCH 8
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)   /* the device pass (the host compiler knows no unroll) */
#define ADI_UNROLL _Pragma("unroll")
#else
#define ADI_UNROLL
#endif

ADI_HD static inline void adi_stage4_fwd_var(const adi_view *v, int d, int b, int c, int m, int has_lo)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), r = WK_WCH + m, s = adi_eig_of_char(m), a, nb, t, pa, pc[3];
  int single = adi_single(v);
  double x, w[ADI_SWEEP_BATCH], fl[ADI_SWEEP_BATCH], rd[ADI_SWEEP_BATCH];
  cell_index(d, 1, b, c, pc);
  pa = adi_pt(v, pc[0], pc[1], pc[2]);
  if (has_lo) {
    x = ADI_F(v, wk, r, pa - e);
    a = 1;
  } else {
    x = adi4x_fwd_first(single, ADI_F(v, wk, r, pa), ADI_F(v, wk, WK_RDIAG + s, pa));
    ADI_F(v, wk, r, pa) = x;
    pa += e;
    a = 2;
  }
  for (; a <= n; a += nb, pa += nb*e) {
    nb = n - a + 1 < ADI_SWEEP_BATCH ? n - a + 1 : ADI_SWEEP_BATCH;
    ADI_UNROLL
    for (t = 0; t < ADI_SWEEP_BATCH; ++t)
      if (t < nb) {
        w[t] = ADI_F(v, wk, r, pa + t*e);
        fl[t] = ADI_F(v, wk, WK_FLMP + s, pa + t*e);
        rd[t] = ADI_F(v, wk, WK_RDIAG + s, pa + t*e);
      }
    ADI_UNROLL
    for (t = 0; t < ADI_SWEEP_BATCH; ++t)
      if (t < nb) {
        x = adi4x_fwd(single, w[t], fl[t], rd[t], x);
        ADI_F(v, wk, r, pa + t*e) = x;
      }
  }
}

ADI_HD static inline void adi_stage4_bwd_var(const adi_view *v, int d, int b, int c, int m, int has_hi)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), r = WK_WCH + m, s = adi_eig_of_char(m), a, nb, t, pa, pc[3];
  int single = adi_single(v);
  double x, w[ADI_SWEEP_BATCH], fl[ADI_SWEEP_BATCH];
  cell_index(d, n, b, c, pc);
  pa = adi_pt(v, pc[0], pc[1], pc[2]);
  if (has_hi) {
    x = ADI_F(v, wk, r, pa + e);
    a = n;
  } else {
    x = ADI_F(v, wk, r, pa);
    pa -= e;
    a = n - 1;
  }
  for (; a >= 1; a -= nb, pa -= nb*e) {
    nb = a < ADI_SWEEP_BATCH ? a : ADI_SWEEP_BATCH;
    ADI_UNROLL
    for (t = 0; t < ADI_SWEEP_BATCH; ++t)
      if (t < nb) {
        w[t] = ADI_F(v, wk, r, pa - t*e);
        fl[t] = ADI_F(v, wk, WK_FLMN + s, pa - t*e);
      }
    ADI_UNROLL
    for (t = 0; t < ADI_SWEEP_BATCH; ++t)
      if (t < nb) {
        x = adi4x_bwd(single, w[t], fl[t], x);
        ADI_F(v, wk, r, pa - t*e) = x;
      }
  }
}

#endif
