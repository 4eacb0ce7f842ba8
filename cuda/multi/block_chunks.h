/* How exact mode's sweeps across the blocks are cut into chunks (the
 * pipelined sweep, sweep_pipelined, and the staged k sweep, sweep_staged,
 * in cuda/multi/block_driver.cu). Plain C, no device code: the driver
 * includes it, and tests/unit/test_block_chunks.c checks the cuts on the
 * host. Every rank of a pipe holds the same ni and cross-section (the block
 * column along the sweep), so every rank cuts alike. */
#ifndef ADIFLOW_BLOCK_CHUNKS_H
#define ADIFLOW_BLOCK_CHUNKS_H

#include <stddef.h>

/* ADI_PIPE_MIN_LINES: see pipe_chunks. ADI_STAGE_MAX: the most chunks of a
 * staged sweep (its per-chunk arrays) */
enum { ADI_PIPE_MIN_LINES = 4096, ADI_STAGE_MAX = 64 };

/* chunk cc (0-based) of ncr lines over nch chunks, mpi_decomp's
 * split_range: *clo .. *chi, 1-based */
static inline void chunk_range(int ncr, int nch, int cc, int *clo, int *chi)
{
  int cnt = ncr/nch + (cc < ncr%nch ? 1 : 0);
  int off = cc*(ncr/nch) + (cc < ncr%nch ? cc : ncr%nch);
  *clo = off + 1;
  *chi = off + cnt;
}

/* The chunks of a pipelined sweep across ncr lines of ni cells: the
 * requested count, but never fewer than ADI_PIPE_MIN_LINES lines a chunk.
 * A chunk's sweep is one thread per (line, variable); below some 20k
 * threads it no longer keeps enough loads in flight to run at the memory's
 * pace, so its time stops shrinking with its size while each chunk still
 * pays its message's latency: on a multigrid cycle's coarse levels a
 * level's whole cross-section is one chunk. */
static inline int pipe_chunks(int want, int ni, int ncr)
{
  long long most = (long long)ni*ncr/ADI_PIPE_MIN_LINES;
  int nch = want < ncr ? want : ncr;
  if (nch > most) nch = (int)most;
  return nch < 1 ? 1 : nch;
}

/* The staged sweep's chunks: lines cut by i (ni of them across, nj lines
 * each) into as many units as pipe_chunks allows, the first half of them
 * taken two at a time. A rank's last chunks set how long the sweep runs
 * on after its local work (the chain through every rank and back), its
 * first ones are waited for by nobody while the local work goes on, and
 * every chunk costs its launches and hand-overs (bench/log/2026-11-29-
 * exact-pipeline.md, section 18). Whole units, not uneven cuts: the point
 * kernels along k run whole warps of i (MS_ALIGN), so a chunk that is not
 * a unit's multiple runs some of them part empty. */
static inline int stage_units(int want, int ni, int nj)
{
  int n = pipe_chunks(want, nj, ni);
  return n < ADI_STAGE_MAX ? n : ADI_STAGE_MAX;
}

/* the units taken two at a time: they make the first units/4 chunks */
static inline int stage_paired(int units)
{
  return units/4;
}

static inline int stage_chunks(int want, int ni, int nj)
{
  int n = stage_units(want, ni, nj);
  return n - stage_paired(n);
}

/* chunk c of a staged sweep across ni cells of i cut into `units` units:
 * i = *ilo .. *ihi. Chunk 0 is the widest (a pair, or the first unit,
 * which chunk_range gives the remainder first). */
static inline void stage_range(int ni, int units, int c, int *ilo, int *ihi)
{
  int np = stage_paired(units), lo, hi;
  if (c < np) {
    chunk_range(ni, units, 2*c, ilo, &hi);
    chunk_range(ni, units, 2*c + 1, &lo, ihi);
  } else {
    chunk_range(ni, units, c + np, ilo, ihi);
  }
}

/* the doubles of a staged chunk's row (i = ilo..ihi, 5 variables, all nj
 * lines across): what it sends and receives */
static inline size_t stage_rows(int ilo, int ihi, int nj)
{
  return (size_t)(ihi - ilo + 1)*5*(size_t)nj;
}

#endif
