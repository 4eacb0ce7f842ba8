/* What the bridge offers the GPU-to-GPU halos of a block set spread over
 * MPI ranks (cuda/multi/set_link.cu): a block's halo box packed into, or
 * unpacked from, a device buffer on another stream, ordered against the
 * block's own stream by events (that stream waits for the block's queued
 * work, and the block's later work waits for the copy), the same kernels
 * and the same bytes as adi_gpu_pack_halo / adi_gpu_unpack_halo
 * (include/adiflow_bridge.h). Defined in cuda/api/block_set.cu. */
#ifndef ADIFLOW_API_SET_HALO_CUH
#define ADIFLOW_API_SET_HALO_CUH

#include "adiflow_gpu_vendor.h"
#include "adiflow_bridge.h"

/* the box's source cells into dbuf (device memory, 5 values a cell, the
 * box's order) on stream s; ev: an event of the caller's, recorded on s */
int adi_gpu_pack_halo_on(adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                         const int to_beg[3], const int t[3], double *dbuf, cudaStream_t s, cudaEvent_t ev);
/* the box's cells of dst from dbuf (device memory, as adi_gpu_pack_halo_on wrote it) on stream s */
int adi_gpu_unpack_halo_on(adi_gpu_grid *dst, const int lo[3], const int hi[3], const double *dbuf, cudaStream_t s,
                           cudaEvent_t ev);

#endif
