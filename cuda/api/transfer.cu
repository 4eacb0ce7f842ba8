/* The state q (5 fields, ghosts included) between the host and the grid:
 * snapshots and restarts go down, a restarted or changed state goes up;
 * a level's residual and forcing go down for the levels adiflow_mpi
 * gathers onto rank 0.
 * Both wait for the grid's stream first, so a fault of an earlier kernel
 * is reported here. */
#include "grid.cuh"

int adi_gpu_download_state(adi_gpu_grid *g, double *q)
{
  cudaError_t err;
  REQUIRE_INIT("adi_gpu_download_state");
  if (q == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_download_state: null argument");
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_gpu_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  ADI_GPU_CHECK(cudaMemcpy(q, g->v.q, (size_t)g->v.npts*ADI_NVAR*sizeof(double), cudaMemcpyDeviceToHost));
  return ADI_OK;
}

/* n doubles at dev to host, after the grid's stream */
static int download(adi_gpu_grid *g, double *host, const double *dev, size_t n)
{
  cudaError_t err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_gpu_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  ADI_GPU_CHECK(cudaMemcpy(host, dev, n*sizeof(double), cudaMemcpyDeviceToHost));
  return ADI_OK;
}

int adi_gpu_download_residual(adi_gpu_grid *g, double *res)
{
  REQUIRE_INIT("adi_gpu_download_residual");
  if (res == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_download_residual: null argument");
  return download(g, res, g->v.res, (size_t)g->v.npts*ADI_NVAR);
}

int adi_gpu_download_forcing(adi_gpu_grid *g, double *forcing)
{
  REQUIRE_INIT("adi_gpu_download_forcing");
  if (forcing == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_download_forcing: null argument");
  if (g->d_forcing == NULL)
    return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_download_forcing: the grid was not made by "
                            "adi_gpu_init_level (it has no forcing)");
  return download(g, forcing, g->d_forcing, (size_t)g->v.npts*ADI_NVAR);
}

int adi_gpu_upload_state(adi_gpu_grid *g, const double *q)
{
  cudaError_t err;
  REQUIRE_INIT("adi_gpu_upload_state");
  if (q == NULL) return adi_gpu_fail_msg(ADI_ERR_USAGE, "%s", "adi_gpu_upload_state: null argument");
  err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) return adi_gpu_fail(err, SYNC_WHAT, __FILE__, __LINE__);
  ADI_GPU_CHECK(cudaMemcpy(g->v.q, q, (size_t)g->v.npts*ADI_NVAR*sizeof(double), cudaMemcpyHostToDevice));
  ADI_GPU_CHECK(cudaDeviceSynchronize());
  return ADI_OK;
}
