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
 * operations of adi_stage4_line in the same order. has_lo: the block below's
 * last forward value (the GPU kernels take it from the received row,
 * adi_stage4_fwd_var from the ghost cell 0) starts the recurrence at cell 1,
 * as the single line's own cell 0 would; has_hi: the block above's first
 * backward value (cell n+1) starts the backward one. Without them, the
 * line's own end conditions (adi_stage4_line exactly). The _from forms
 * return the value the block passes on. wk, not adi_wk_get/put: a block
 * keeps the ADI fields in wk (wkf NULL, cuda/api/grid.cu), where
 * block_driver.cu's halos find them. ---- */
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

/* the forward recurrence from x_lo, the block below's last forward value
 * (has_lo), else from the line's own first cell; returns the value it leaves
 * at cell n, the one the block above starts from */
ADI_HD static inline double adi_stage4_fwd_from(const adi_view *v, int d, int b, int c, int m, int has_lo,
                                                double x_lo)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), r = WK_WCH + m, s = adi_eig_of_char(m), a, nb, t, pa, pc[3];
  int single = adi_single(v);
  double x, w[ADI_SWEEP_BATCH], fl[ADI_SWEEP_BATCH], rd[ADI_SWEEP_BATCH];
  cell_index(d, 1, b, c, pc);
  pa = adi_pt(v, pc[0], pc[1], pc[2]);
  if (has_lo) {
    x = x_lo;
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
  return x;
}

/* the same, has_lo's value read from the ghost cell 0 */
ADI_HD static inline void adi_stage4_fwd_var(const adi_view *v, int d, int b, int c, int m, int has_lo)
{
  int pc[3];
  cell_index(d, 0, b, c, pc);
  (void)adi_stage4_fwd_from(v, d, b, c, m, has_lo,
                            has_lo ? ADI_F(v, wk, WK_WCH + m, adi_pt(v, pc[0], pc[1], pc[2])) : 0.0);
}

/* the backward recurrence from x_hi, the block above's first backward
 * value (has_hi), else from the line's own last cell; returns the value it
 * leaves at cell 1, the one the block below starts from */
ADI_HD static inline double adi_stage4_bwd_from(const adi_view *v, int d, int b, int c, int m, int has_hi,
                                                double x_hi)
{
  int n = adi_ncells(v, d), e = adi_stride(v, d), r = WK_WCH + m, s = adi_eig_of_char(m), a, nb, t, pa, pc[3];
  int single = adi_single(v);
  double x, w[ADI_SWEEP_BATCH], fl[ADI_SWEEP_BATCH];
  cell_index(d, n, b, c, pc);
  pa = adi_pt(v, pc[0], pc[1], pc[2]);
  if (has_hi) {
    x = x_hi;
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
  return x;
}

/* the same, has_hi's value read from the ghost cell n + 1 */
ADI_HD static inline void adi_stage4_bwd_var(const adi_view *v, int d, int b, int c, int m, int has_hi)
{
  int pc[3];
  cell_index(d, adi_ncells(v, d) + 1, b, c, pc);
  (void)adi_stage4_bwd_from(v, d, b, c, m, has_hi,
                            has_hi ? ADI_F(v, wk, WK_WCH + m, adi_pt(v, pc[0], pc[1], pc[2])) : 0.0);
}

#endif
