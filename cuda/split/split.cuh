/* The split kernel family's internals: its stage list (split_stages.h) and
 * the launchers its kernel files offer its schedule (cuda/split/schedule.cu),
 * one per kernel, each running on the given stream and returning ADI_OK or
 * the status of a failed launch. The launchers it shares with the merged
 * family (boundary fill, wall temperatures, residual reset):
 * cuda/common/kernels.cuh. */
#ifndef ADIFLOW_SPLIT_CUH
#define ADIFLOW_SPLIT_CUH

#include "kernels.cuh"
#include "split_stages.h"

/* primitives and local time step (timestep_kernels.cu) */
int launch_primitives_kernel(const adi_view *v, cudaStream_t s);
int launch_time_step_kernel(const adi_view *v, double cfl, cudaStream_t s);
/* the primitives in two parts: 1 = interior, 2 = the ghost shell */
int launch_primitives_part(const adi_view *v, int part, cudaStream_t s);
/* convective flux, stages 1-4 of direction d (flux_kernels.cu) */
int launch_flux_kernel1(const adi_view *v, int d, cudaStream_t s);
int launch_flux_kernel2(const adi_view *v, int d, cudaStream_t s);
int launch_flux_kernel3(const adi_view *v, int d, cudaStream_t s);
int launch_flux_kernel4(const adi_view *v, int d, cudaStream_t s);
/* viscous face flux of direction d (viscous_kernels.cu) */
int launch_viscous_kernel(const adi_view *v, int d, cudaStream_t s);
/* LU-ADI, stages 1-5 of direction d (adi_kernels.cu) */
int launch_ADI_kernel1(const adi_view *v, int d, cudaStream_t s);
int launch_ADI_kernel2(const adi_view *v, int d, cudaStream_t s);
int launch_ADI_kernel3(const adi_view *v, int d, cudaStream_t s);
int launch_ADI_kernel4(const adi_view *v, int d, cudaStream_t s);
int launch_ADI_kernel5(const adi_view *v, int d, cudaStream_t s);

#endif
