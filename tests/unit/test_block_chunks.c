/* The cuts of exact mode's sweeps across GPU blocks (cuda/multi/block_chunks.h),
 * on the host: every chunk list covers its lines once, in order; the
 * pipelined sweep keeps its floor of lines a chunk; the staged sweep's
 * chunks are whole units, the first half of the units paired, the last
 * chunks one unit wide, the first the widest (the driver's row buffers are
 * sized by it), and never more than its arrays hold. A cut that
 * dropped or repeated a line would leave cells unswept on the GPU (the
 * strict identity checks on a device catch that too, bench/device_mpi_mg.sh
 * check; this runs in every CI). */
#include <stdio.h>

#include "block_chunks.h"

static int pass = 0, fail = 0;

static void check(int ok, const char *what)
{
  printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (ok) ++pass; else ++fail;
}

/* the staged sweep's widths for ni x nj with `want` chunks asked; 0 if its
 * chunks are not contiguous from 1 to ni */
static int staged_widths(int want, int ni, int nj, int *w, int *n)
{
  int units = stage_units(want, ni, nj), c, prev = 0, lo, hi;
  *n = stage_chunks(want, ni, nj);
  for (c = 0; c < *n; ++c) {
    stage_range(ni, units, c, &lo, &hi);
    if (lo != prev + 1 || hi < lo) return 0;
    w[c] = hi - lo + 1;
    prev = hi;
  }
  return prev == ni;
}

static int same(const int *a, const int *b, int n)
{
  int k;
  for (k = 0; k < n; ++k)
    if (a[k] != b[k]) return 0;
  return 1;
}

int main(void)
{
  int w[ADI_STAGE_MAX], n, ni, nj, want, ok, c, lo, hi;
  char what[160];

  /* the benchmark cube's levels along k (256^3 per GPU, 8 chunks asked) */
  {
    static const int fine[] = {64, 64, 32, 32, 32, 32}, l2[] = {64, 32, 32}, l3[] = {64};
    check(staged_widths(8, 256, 256, w, &n) && n == 6 && same(w, fine, 6),
          "staged 256 x 256, 8 asked: chunks of 64, 64, 32, 32, 32, 32 i");
    check(staged_widths(8, 128, 128, w, &n) && n == 3 && same(w, l2, 3), "staged 128 x 128: 64, 32, 32 i");
    check(staged_widths(8, 64, 64, w, &n) && n == 1 && same(w, l3, 1), "staged 64 x 64: one chunk of 64 i");
  }

  /* every size: contiguous cover, whole units, the last chunk one unit,
   * the count within ADI_STAGE_MAX, paired ones twice a unit's width */
  ok = 1;
  for (want = 1; want <= 80 && ok; want += 7)
    for (ni = 1; ni <= 300 && ok; ni += 13)
      for (nj = 1; nj <= 600 && ok; nj += 37) {
        int units = stage_units(want, ni, nj), np = stage_paired(units);
        if (!staged_widths(want, ni, nj, w, &n) || n > ADI_STAGE_MAX || n != units - np) ok = 0;
        /* the driver sizes its row buffers by chunk 0 (alloc_buffers) */
        for (c = 1; c < n && ok; ++c)
          if (w[c] > w[0]) ok = 0;
        for (c = 0; c < n && ok; ++c) {
          int u0, u1, lo2, hi2;
          if (c < np) {
            chunk_range(ni, units, 2*c, &u0, &hi2);
            chunk_range(ni, units, 2*c + 1, &lo2, &u1);
            if (w[c] != u1 - u0 + 1) ok = 0;
          } else {
            chunk_range(ni, units, c + np, &u0, &u1);
            if (w[c] != u1 - u0 + 1) ok = 0;
          }
        }
        if (!ok) {
          snprintf(what, sizeof what, "staged cut of %d x %d, %d asked: chunk %d", ni, nj, want, c);
          check(0, what);
        }
      }
  check(ok, "staged cuts of 1..300 x 1..600 i x j: contiguous, whole units, first half paired, chunk 0 the widest");

  /* pipelined: the floor of lines a chunk, contiguous cover */
  check(pipe_chunks(8, 256, 256) == 8 && pipe_chunks(8, 128, 128) == 4 && pipe_chunks(8, 64, 64) == 1,
        "pipelined 256^2 / 128^2 / 64^2 lines: 8 / 4 / 1 chunks (at least 4096 lines each)");
  ok = 1;
  for (want = 1; want <= 20 && ok; ++want)
    for (ni = 1; ni <= 257 && ok; ni += 16)
      for (nj = 1; nj <= 257 && ok; nj += 8) {
        int nch = pipe_chunks(want, ni, nj), prev = 0;
        if (nch < 1 || nch > want || nch > nj || (nch > 1 && (long long)nch*ADI_PIPE_MIN_LINES > (long long)ni*nj)) ok = 0;
        for (c = 0; c < nch && ok; ++c) {
          chunk_range(nj, nch, c, &lo, &hi);
          if (lo != prev + 1 || hi < lo) ok = 0;
          prev = hi;
        }
        if (prev != nj) ok = 0;
      }
  check(ok, "pipelined cuts: 1..want chunks, 4096 lines a chunk at least on average, covering every line once");

  printf("%d passed, %d failed\n", pass, fail);
  return fail != 0;
}
