/* The multi-GPU block mode of the bridge, for build/adiflow_mpi: one MPI rank
 * per GPU, each holding one block of the j/k decomposition of
 * fortran/mpi_decomp.f90 (cuda/multi/block_driver.cu). Halos and cross-block
 * sweeps travel through a transport (cuda/multi/block_transport.cuh): NCCL
 * (RCCL on HIP) GPU to GPU where the build has it, else MPI through host
 * memory; ADIFLOW_BLOCK_TRANSPORT=nccl|mpi picks one in a build with both.
 * The Fortran driver broadcasts rank 0's ids, chains the residual plane sums
 * (adi_gpu_residual_plane_sums) and agrees on stopping.
 *
 * Fortran declares the same functions in fortran/gpu_block_bridge.f90.
 * Builds without a GPU backend link cuda/multi/block_stub.c (no device).
 */
#ifndef ADIFLOW_BLOCK_H
#define ADIFLOW_BLOCK_H

#include "adiflow_params.h"
#include "adiflow_bridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What rank 0 hands every rank: which transport carries the halos (rank
 * 0's choice, so that all ranks take the same), then that transport's own
 * ids (NCCL: two unique ids of 128 bytes, one communicator for the halos
 * and one for the pipelined sweeps). */
enum { ADI_BLOCK_ID_BYTES = 264 };

/* Rank 0 only: make the ids that every rank passes to adi_gpu_block_init.
 * ADI_ERR_USAGE for an ADIFLOW_BLOCK_TRANSPORT this build does not have. */
int adi_gpu_block_make_ids(char ids[ADI_BLOCK_ID_BYTES]);

/* The transport adi_gpu_block_make_ids would choose, for the run's header:
 * "NCCL", "RCCL" or "MPI host-staged" into buf; ADI_ERR_USAGE (and "?") for
 * an ADIFLOW_BLOCK_TRANSPORT this build does not have, ADI_ERR_NO_DEVICE
 * (and "none") in a build without a GPU backend. */
int adi_gpu_block_transport_name(char *buf, int buflen);

/* Number of visible GPUs (0 when none). */
int adi_gpu_device_count(void);

/* Whether ranks_on_node ranks of one node can each have a GPU there: one
 * rank per GPU, or, where may_share, more ranks than GPUs with
 * ADIFLOW_BLOCK_SHARE_GPU=1 (adi_gpu_block_init's blocks; cuda/multi/
 * block_driver.cu); 0 in a build without a GPU backend. */
int adi_gpu_block_ranks_fit(int ranks_on_node, int may_share);

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
 *   timeout_s   how long the NCCL start-up may take before it is an error
 *               (the MPI transport starts over MPI_COMM_WORLD, which every
 *               rank has reached by then) */
int adi_gpu_block_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                       const adi_gpu_settings *settings, const double *sf,
                       const double *sc, const double *vol, const double *q, const int phys[6], const int off[3],
                       const int nglob[3], const int nbr[4], const int swp[4], int exact, int chunks,
                       int rank, int nranks, const char ids[ADI_BLOCK_ID_BYTES], int device,
                       double timeout_s);

/* A coarse multigrid level of block `fine` (a grid of adi_gpu_block_init):
 * adi_gpu_init_level's grid (with forcing and q0, for the transfers of
 * include/adiflow_bridge.h) with the block's rank, device, mode and
 * transport; sp, phys, off, nglob, nbr and swp those of the level's
 * decomposition (fortran/mpi_decomp.f90), as adi_gpu_block_init takes
 * them. Free the levels before the fine block (its transport). */
int adi_gpu_block_init_level(adi_gpu_grid **grid, adi_gpu_grid *fine, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc,
                             const double *vol, const double *q, const int phys[6], const int off[3],
                             const int nglob[3], const int nbr[4], const int swp[4]);

/* The coarse multigrid levels that run whole on every rank (build/adiflow_mpi,
 * fortran/multigrid_whole.f90; none of them gets a decomposition):
 *   adi_gpu_block_init_whole     one such level: adi_gpu_init_level's grid
 *                                (box boundary types) on the GPU of block
 *                                `fine` (a grid of adi_gpu_block_init)
 *   adi_gpu_block_share_reserve  once, at set-up: buffers for the first of
 *                                them; ext[4*r .. 4*r+3] = rank r's j and k
 *                                offsets and cell counts of its block of
 *                                that level, ni its cells in i
 *   adi_gpu_block_share_level    every rank's block of that level (blk:
 *                                restricted, its forcing made) into whole,
 *                                its grid on this rank: state and forcing,
 *                                through the fine block's transport
 *   adi_gpu_block_take_level     blk's interior state = whole's at blk's
 *                                offsets (before blk's prolongation)
 * Plain copies: the whole level holds the blocks' bits. Free the whole
 * levels before the fine block. */
int adi_gpu_block_init_whole(adi_gpu_grid **grid, adi_gpu_grid *fine, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                             const double *q);
int adi_gpu_block_share_reserve(adi_gpu_grid *fine, int ni, const int *ext, int nranks);
int adi_gpu_block_share_level(adi_gpu_grid *fine, adi_gpu_grid *blk, adi_gpu_grid *whole, const int *ext, int nranks);
int adi_gpu_block_take_level(adi_gpu_grid *blk, adi_gpu_grid *whole, int joff, int koff);

/* Event timings of the exchanges and pipelined sweeps (ADIFLOW_GPU_TIMING=1);
 * an empty text without them. ADI_ERR_USAGE for a grid of no block. */
int adi_gpu_block_timing_report(adi_gpu_grid *grid, char *buf, int buflen);

/* adi_gpu_finalize: the grid, then its block buffers, streams and
 * transport (adi_gpu_finalize of a block grid does the same). ADI_OK
 * for NULL. */
int adi_gpu_block_finalize(adi_gpu_grid *grid);

/* GPU-to-GPU halos of a block set spread over the ranks (cuda/multi/set_link.cu):
 * a link over rank 0's transport (the ids of adi_gpu_block_make_ids,
 * broadcast), opened by every rank together on its GPU. A group of halo
 * steps queues boxes to send (a box of the receiving block's cells, filled
 * from block src's cells through the interface's map: from_beg, to_beg, t
 * as adi_gpu_pack_halo takes them) and boxes to receive into block dst,
 * then adi_set_link_flush packs, carries and unpacks them, ordered on the
 * blocks' streams (the host does not wait). Every rank queues its messages
 * to and from each peer in the same order. Close frees the link (NULL: no
 * link). */
typedef struct adi_set_link adi_set_link;
int adi_set_link_open(adi_set_link **link, const char ids[ADI_BLOCK_ID_BYTES], int rank, int nranks, int device,
                      double timeout_s);
int adi_set_link_send(adi_set_link *link, adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                      const int to_beg[3], const int t[3], int peer);
int adi_set_link_recv(adi_set_link *link, adi_gpu_grid *dst, const int lo[3], const int hi[3], int peer);
int adi_set_link_flush(adi_set_link *link);
int adi_set_link_close(adi_set_link *link);

#ifdef __cplusplus
}
#endif
#endif
