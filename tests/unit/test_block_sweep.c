/* The multi-GPU exact mode splits each LU-ADI line across the blocks of a
 * decomposed grid: adi_stage4_fwd_var / adi_stage4_bwd_var
 * (cuda/common/mpi_decomp.h) run on each block in turn, starting from the
 * value the block below (above) passed on. This test runs them on the CPU
 * over a grid cut into three blocks along j and along k, each block a view
 * whose cell 0 is the previous block's last cell (what the GPU block finds
 * in its ghost row after the exchange), and checks the characteristic
 * variables against adi_stage4_line on the whole lines, bit for bit. The
 * block recurrences load a batch of points ahead of their steps (the GPU's
 * kernels run these very functions): block lengths below, at and above the
 * batch check its remainders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adiflow_bridge.h"   /* adi_layout_set */
#include "mpi_decomp.h"      /* adi_stage4_fwd_var/bwd_var, and the whole-line sweep */

static int pass = 0, fail = 0;

static void check(int ok, const char *what)
{
  printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (ok) ++pass; else ++fail;
}

/* deterministic values in [lo, hi) */
static double rnd(unsigned *s, double lo, double hi)
{
  *s = *s*1664525u + 1013904223u;
  return lo + (hi - lo)*(double)(*s >> 8)/16777216.0;
}

/* the view of block [lo, hi) along d of the grid whose whole view is v:
 * its cell 0 is the previous block's last cell; npts of the whole grid */
static adi_view block_view(const adi_solver_params *sp, const adi_view *v, int d, int lo, int hi, double *blk, ptrdiff_t npts)
{
  adi_solver_params bp = *sp;
  adi_view bv;
  if (d == 2) bp.nj = hi - lo; else bp.nk = hi - lo;
  bv = adi_make_view(&bp, NULL, NULL, NULL, NULL, NULL, blk + (ptrdiff_t)lo*adi_stride(v, d), NULL, NULL, NULL);
  bv.npts = npts;
  return bv;
}

int main(void)
{
  adi_solver_params sp;
  /* block starts along j (nj = 29), k (nk = 21): blocks shorter and longer
   * than the sweep's batch of loads (ADI_SWEEP_BATCH = 8), a whole batch
   * and a remainder */
  const int cut[2][4] = {{0, 3, 13, 29}, {0, 9, 12, 21}};
  ptrdiff_t npts, p;
  double *ref, *blk, *pass_on, *pass_on_init;
  unsigned seed = 12345u;
  int d, b, c, m, f, k, nb, nc, single, bad;
  char what[200];

  memset(&sp, 0, sizeof sp);
  sp.ni = 7; sp.nj = 29; sp.nk = 21;
  adi_layout_set(&sp);
  npts = (ptrdiff_t)sp.ldi*sp.ldj*sp.ldk;
  ref = malloc((size_t)(ADI_NWORK*npts)*sizeof(double));
  blk = malloc((size_t)(ADI_NWORK*npts)*sizeof(double));
  pass_on = malloc((size_t)(ADI_NWORK*npts)*sizeof(double));
  pass_on_init = malloc((size_t)(ADI_NWORK*npts)*sizeof(double));
  if (ref == NULL || blk == NULL || pass_on == NULL || pass_on_init == NULL) return 1;

  /* both implicit precisions: in single mode the work fields hold floats
   * (promoted), as the single-precision stages leave them */
  for (single = 0; single <= 1; ++single)
  for (d = 2; d <= 3; ++d) {
    adi_view v;
    sp.implicit_single = single ? ADI_IMPLICIT_SINGLE : ADI_IMPLICIT_DOUBLE;
    /* a diagonally dominant system with rounding in every operation (the
     * diagonal's reciprocal stored: diagonals 1.5 .. 3) */
    for (f = 0; f < ADI_NWORK; ++f)
      for (p = 0; p < npts; ++p) {
        double x;
        if (f >= WK_RDIAG && f < WK_RDIAG + 3) x = 1.0/rnd(&seed, 1.5, 3.0);
        else if (f >= WK_FLMP && f < WK_FLMN + 3) x = rnd(&seed, -0.45, 0.45);
        else x = rnd(&seed, -1.0, 1.0);
        ref[(ptrdiff_t)f*npts + p] = single ? (double)(float)x : x;
      }
    memcpy(blk, ref, (size_t)(ADI_NWORK*npts)*sizeof(double));
    memcpy(pass_on_init, ref, (size_t)(ADI_NWORK*npts)*sizeof(double));

    v = adi_make_view(&sp, NULL, NULL, NULL, NULL, NULL, ref, NULL, NULL, NULL);
    nb = sp.ni; nc = d == 2 ? sp.nk : sp.nj;
    for (c = 1; c <= nc; ++c)
      for (b = 1; b <= nb; ++b) adi_stage4_line(&v, d, b, c);

    /* three blocks along d: forward upwards, then backward downwards */
    for (k = 0; k < 3; ++k) {
      adi_view bv = block_view(&sp, &v, d, cut[d - 2][k], cut[d - 2][k + 1], blk, npts);
      for (c = 1; c <= nc; ++c)
        for (b = 1; b <= nb; ++b)
          for (m = 1; m <= 5; ++m) adi_stage4_fwd_var(&bv, d, b, c, m, k > 0);
    }
    for (k = 2; k >= 0; --k) {
      adi_view bv = block_view(&sp, &v, d, cut[d - 2][k], cut[d - 2][k + 1], blk, npts);
      for (c = 1; c <= nc; ++c)
        for (b = 1; b <= nb; ++b)
          for (m = 1; m <= 5; ++m) adi_stage4_bwd_var(&bv, d, b, c, m, k < 2);
    }
    snprintf(what, sizeof what, "LU-ADI sweep along %c over 3 blocks (sizes %d, %d, %d) == the whole lines, "
             "bit for bit (all work fields), implicit_precision %s", d == 2 ? 'j' : 'k', cut[d - 2][1] - cut[d - 2][0],
             cut[d - 2][2] - cut[d - 2][1], cut[d - 2][3] - cut[d - 2][2], single ? "single" : "double");
    check(memcmp(ref, blk, (size_t)(ADI_NWORK*npts)*sizeof(double)) == 0, what);
    /* the GPU kernels' form: each block's value handed to the next as an
     * argument (adi_stage4_fwd_from / _bwd_from return it), no ghost cell
     * read; and a wrong value handed on must change the result */
    for (bad = 0; bad <= 1; ++bad) {
      double *w = bad ? blk : pass_on;
      memcpy(w, pass_on_init, (size_t)(ADI_NWORK*npts)*sizeof(double));
      for (c = 1; c <= nc; ++c)
        for (b = 1; b <= nb; ++b)
          for (m = 1; m <= 5; ++m) {
            double x = 0.0;
            for (k = 0; k < 3; ++k) {
              adi_view bv = block_view(&sp, &v, d, cut[d - 2][k], cut[d - 2][k + 1], w, npts);
              x = adi_stage4_fwd_from(&bv, d, b, c, m, k > 0, k > 0 && bad && b == 1 && c == 1 ? x*1.5 : x);
            }
            for (k = 2; k >= 0; --k) {
              adi_view bv = block_view(&sp, &v, d, cut[d - 2][k], cut[d - 2][k + 1], w, npts);
              x = adi_stage4_bwd_from(&bv, d, b, c, m, k < 2, x);
            }
          }
      snprintf(what, sizeof what, "LU-ADI sweep along %c over 3 blocks, the values handed on as arguments: %s, "
               "implicit_precision %s", d == 2 ? 'j' : 'k', bad ? "a wrong one changes the result" :
               "== the whole lines, bit for bit", single ? "single" : "double");
      check((memcmp(ref, w, (size_t)(ADI_NWORK*npts)*sizeof(double)) == 0) == !bad, what);
    }
    /* the test must be able to fail: the recurrences changed something */
    {
      double *orig = malloc((size_t)(ADI_NWORK*npts)*sizeof(double));
      if (orig == NULL) return 1;
      memcpy(orig, ref, (size_t)(ADI_NWORK*npts)*sizeof(double));
      /* one forward step without the value passed on: must differ */
      {
        adi_solver_params bp = sp;
        adi_view bv;
        if (d == 2) bp.nj = cut[d - 2][2] - cut[d - 2][1]; else bp.nk = cut[d - 2][2] - cut[d - 2][1];
        bv = adi_make_view(&bp, NULL, NULL, NULL, NULL, NULL, orig + (ptrdiff_t)cut[d - 2][1]*adi_stride(&v, d),
                           NULL, NULL, NULL);
        bv.npts = npts;
        adi_stage4_fwd_var(&bv, d, 1, 1, 1, 0);
      }
      snprintf(what, sizeof what, "a block that ignores the value passed on changes the result (%c, %s)",
               d == 2 ? 'j' : 'k', single ? "single" : "double");
      check(memcmp(ref, orig, (size_t)(ADI_NWORK*npts)*sizeof(double)) != 0, what);
      free(orig);
    }
  }
  free(ref); free(blk); free(pass_on); free(pass_on_init);
  printf("%d passed, %d failed\n", pass, fail);
  return fail != 0;
}
