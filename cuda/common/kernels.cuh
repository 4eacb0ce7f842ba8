/* The launch geometry every point and line kernel shares (blocks of
 * ADI_BLOCK_X x ADI_BLOCK_Y, a box of cells per launch), the view as the
 * ADI kernels of both families take it, and the launches both families and
 * the bridge share: the boundary fill and the walls' ghost temperatures
 * (cuda/common/bc_kernels.cu) and the residual reset. Each launcher runs on
 * the given stream and returns ADI_OK or the status of a failed launch.
 * The kernels are thin: a thread finds its cell (or grid line) and calls
 * the stage body of cuda/common/adiflow_stages.h, the code the CPU tests
 * check against Fortran. The families' own launchers: cuda/split/split.cuh,
 * cuda/merged/merged.cuh. */
#ifndef ADIFLOW_KERNELS_CUH
#define ADIFLOW_KERNELS_CUH

#include "adiflow_gpu_vendor.h"   /* first: the runtime (CUDA or HIP) and its names */
#include "adiflow_stages.h"
#include "gpu_check.cuh"

/* Threads of a block: x along i (contiguous in memory), y along j; one
 * block row of cells per k (gridDim.z). Line kernels map (b, c) to (x, y).
 * ADI_BLOCK_X is a row of cells, not a warp: the block holds whole warps of
 * 32 and whole wavefronts of 64 alike. */
enum { ADI_BLOCK_X = 32, ADI_BLOCK_Y = 4 };
static_assert((ADI_BLOCK_X*ADI_BLOCK_Y) % ADI_WARP_SIZE_MAX == 0,
              "a block of the split kernels must be a whole number of 64-lane wavefronts");

static inline dim3 adi_block_dim(void)
{
  return dim3(ADI_BLOCK_X, ADI_BLOCK_Y, 1);
}

/* grid of blocks covering box b (all three extents >= 1) */
static inline dim3 adi_grid_dim(const adi_box *b)
{
  unsigned nx = (unsigned)(b->hi[0] - b->lo[0] + 1), ny = (unsigned)(b->hi[1] - b->lo[1] + 1);
  unsigned nz = (unsigned)(b->hi[2] - b->lo[2] + 1);
  return dim3((nx + ADI_BLOCK_X - 1)/ADI_BLOCK_X, (ny + ADI_BLOCK_Y - 1)/ADI_BLOCK_Y, nz);
}

/* The storage of the ADI work fields (adi_view's wkf): the ADI kernels of
 * both families are templates on it, T = float where the grid has wkf, T =
 * double where it has not, and take the view as an adi_view_wk<T>
 * (cuda/common/lu_adi.h), so that the bodies' accesses to those
 * fields and, for float, their precision tests are decided at compile
 * time. adi_storage_float: whether the launch takes T = float. */
static inline bool adi_storage_float(const adi_view *v)
{
  return v->wkf != NULL;
}

/* the grid's view as the kernels of storage T (and preconditioning PC)
 * take it */
template <typename T, int PC = 0>
static inline adi_view_wk<T, PC> adi_view_as(const adi_view *v)
{
  adi_view_wk<T, PC> w;
  static_cast<adi_view &>(w) = *v;
  return w;
}

/* The cell (or line) of this thread in box b; 0 when it lies outside. */
__device__ static inline int adi_box_cell(const adi_box *b, int *i, int *j, int *k)
{
  *i = b->lo[0] + (int)(blockIdx.x*blockDim.x + threadIdx.x);
  *j = b->lo[1] + (int)(blockIdx.y*blockDim.y + threadIdx.y);
  *k = b->lo[2] + (int)blockIdx.z;
  return *i <= b->hi[0] && *j <= b->hi[1] && *k <= b->hi[2];
}

/* boundary conditions of direction d and the walls' ghost temperatures
 * (bc_kernels.cu, fortran/boundary_conditions.f90) */
int launch_bc_kernel(const adi_view *v, int d, cudaStream_t s);
int launch_bc_temperature_kernel(const adi_view *v, int d, cudaStream_t s);
/* the same, the launch allowed to overlap the kernel before it when dep
 * (the merged family's step dep: adi_launch_dep) */
int launch_bc_kernel_dep(const adi_view *v, int d, int dep, cudaStream_t s);
int launch_bc_temperature_kernel_dep(const adi_view *v, int d, int dep, cudaStream_t s);

/* res = 0 over the whole field, padding included, before the flux stages:
 * a memset */
static inline int launch_res_zero(const adi_view *v, cudaStream_t s)
{
  ADI_GPU_CHECK(cudaMemsetAsync(v->res, 0, (size_t)v->npts*ADI_NVAR*sizeof(double), s));
  return ADI_OK;
}

#endif
