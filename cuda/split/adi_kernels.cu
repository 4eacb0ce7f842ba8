/* Diagonalised LU-ADI of direction d in the seed paper's five kernels:
 *   ADI_kernel1  eigenvalues and their split lam+-     one thread per cell
 *   ADI_kernel2  sweep coefficients flmp, flmn, rdiag  one thread per cell
 *   ADI_kernel3  rhs into characteristic variables     one thread per cell
 *   ADI_kernel4  forward then backward sweep           ONE THREAD PER GRID LINE
 *   ADI_kernel5  back to conservative increments       one thread per cell
 *                (dq, or q += dq after d = 3)
 * ADI_kernel4's lines run across the other two directions: for d = 1 the
 * threads span (j, k), for d = 2 (i, k), for d = 3 (i, j), so for j and k
 * neighbouring threads read neighbouring i (coalesced); the i-sweeps are
 * strided, the baseline that the merged family improves on.
 * Each kernel is a template on the storage T of the ADI work fields (wk, or
 * the float wkf of a single-mode grid; kernels.cuh's adi_storage_float),
 * the launcher picks the grid's.
 * Mirror: fortran/lu_adi.f90. */
#include "split.cuh"

template <typename T, int PC = 0>
__global__ void ADI_kernel1(adi_view_wk<T, PC> v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage1_point(&v, d, i, j, k);
}

template <typename T, int PC = 0>
__global__ void ADI_kernel2(adi_view_wk<T, PC> v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage2_point(&v, d, i, j, k);
}

template <typename T, int PC = 0>
__global__ void ADI_kernel3(adi_view_wk<T, PC> v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage3_point(&v, d, i, j, k);
}

template <typename T, int PC = 0>
__global__ void ADI_kernel4(adi_view_wk<T, PC> v, int d, adi_box b)
{
  int bb, cc, unused;
  if (!adi_box_cell(&b, &bb, &cc, &unused)) return;
  adi_stage4_line(&v, d, bb, cc);
}

template <typename T, int PC = 0>
__global__ void ADI_kernel5(adi_view_wk<T, PC> v, int d, adi_box b)
{
  int i, j, k;
  if (!adi_box_cell(&b, &i, &j, &k)) return;
  adi_stage5_point(&v, d, i, j, k);
}

/* launch_ADI_kernelN: ADI_kernelN<T, PC> over the index box of its stage, T
 * the storage of the view's ADI work fields, PC its preconditioning */
#define ADI_SPLIT_LAUNCHER(kernel, stage)                                                          \
  int launch_##kernel(const adi_view *v, int d, cudaStream_t s)                                    \
  {                                                                                                \
    adi_box b = adi_stage_box(v, stage, d);                                                        \
    if (adi_storage_float(v))                                                                      \
      kernel<float><<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(adi_view_as<float>(v), d, b);     \
    else if (adi_precond(v))                                                                       \
      kernel<double, 1><<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(adi_view_as<double, 1>(v), d, b); \
    else                                                                                           \
      kernel<double><<<adi_grid_dim(&b), adi_block_dim(), 0, s>>>(adi_view_as<double>(v), d, b);   \
    ADI_LAUNCH_CHECK(#kernel);                                                                     \
    return ADI_OK;                                                                                 \
  }

ADI_SPLIT_LAUNCHER(ADI_kernel1, ST_ADI1)
ADI_SPLIT_LAUNCHER(ADI_kernel2, ST_ADI2)
ADI_SPLIT_LAUNCHER(ADI_kernel3, ST_ADI3)
ADI_SPLIT_LAUNCHER(ADI_kernel4, ST_ADI4)
ADI_SPLIT_LAUNCHER(ADI_kernel5, ST_ADI5)
