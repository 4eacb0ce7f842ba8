/* The multi-GPU block mode of the bridge, for build/adiflow_mpi: one MPI rank
 * per GPU, each holding one block of the j/k decomposition of
 * fortran/mpi_decomp.f90; halos and cross-block sweeps travel GPU to GPU
 * through NCCL (cuda/multi/block_nccl.cu). MPI stays in the Fortran driver:
 * it broadcasts the NCCL ids, chains the residual plane sums
 * (adi_gpu_residual_plane_sums) and agrees on stopping.
 *
 * Fortran declares the same functions in fortran/gpu_block_bridge.f90.
 * Builds without CUDA or NCCL link cuda/multi/block_stub.c (no device).
 */
#ifndef ADIFLOW_BLOCK_H
#define ADIFLOW_BLOCK_H

#include "adiflow_params.h"
#include "adiflow_bridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NCCL's unique id is 128 bytes; the block mode uses two communicators
 * (halos on the compute stream, pipelined sweeps on a second stream). */
enum { ADI_BLOCK_ID_BYTES = 256 };

/* Rank 0 only: make the ids that every rank passes to adi_gpu_block_init. */
int adi_gpu_block_make_ids(char ids[ADI_BLOCK_ID_BYTES]);

/* Number of visible GPUs (0 when none). */
int adi_gpu_device_count(void);

/* adi_gpu_init for block `rank` of `nranks`: on success *grid is the
 * block's grid handle (every adi_gpu_* call of include/adiflow_bridge.h
 * takes it; its halo buffers, communicators and streams hang off it), on
 * failure NULL.
 *   sp          the block's local parameters (ni, nj, nk, ld*)
 *   phys[6]     1 where the face gets the physical boundary fill
 *   off[3], nglob[3]   global index = local + off; the global sizes
 *   nbr[4]      halo neighbours (j lo, j hi, k lo, k hi; periodic wrap
 *               included), -1 for none
 *   swp[4]      sweep neighbours (no wrap), -1 for none
 *   exact       1: LU-ADI pipelined across the blocks (bit-identical to one
 *               domain); 0: decoupled (every block sweeps alone)
 *   chunks      pipeline chunks of lines in exact mode
 *   device      the GPU of this rank (node-local rank)
 *   timeout_s   how long the NCCL start-up may take before it is an error */
int adi_gpu_block_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                       const adi_gpu_settings *settings, const double *sf,
                       const double *sc, const double *vol, const double *q, const int phys[6], const int off[3],
                       const int nglob[3], const int nbr[4], const int swp[4], int exact, int chunks,
                       int rank, int nranks, const char ids[ADI_BLOCK_ID_BYTES], int device,
                       double timeout_s);

/* A coarse multigrid level of block `fine` (a grid of adi_gpu_block_init):
 * adi_gpu_init_level's grid (with forcing and q0, for the transfers of
 * include/adiflow_bridge.h) with the block's rank, device, mode and
 * communicators; sp, phys, off, nglob, nbr and swp those of the level's
 * decomposition (fortran/mpi_decomp.f90), as adi_gpu_block_init takes
 * them. Free the levels before the fine block (its communicators). */
int adi_gpu_block_init_level(adi_gpu_grid **grid, adi_gpu_grid *fine, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc,
                             const double *vol, const double *q, const int phys[6], const int off[3],
                             const int nglob[3], const int nbr[4], const int swp[4]);

/* Event timings of the exchanges and pipelined sweeps (ADIFLOW_GPU_TIMING=1);
 * an empty text without them. ADI_ERR_USAGE for a grid of no block. */
int adi_gpu_block_timing_report(adi_gpu_grid *grid, char *buf, int buflen);

/* adi_gpu_finalize: the grid, then its block buffers, streams and
 * communicators (adi_gpu_finalize of a block grid does the same). ADI_OK
 * for NULL. */
int adi_gpu_block_finalize(adi_gpu_grid *grid);

#ifdef __cplusplus
}
#endif
#endif
