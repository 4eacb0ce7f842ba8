/* The block mode of a build without a GPU backend: no device, and a clear
 * message for anyone who asks for the multi-GPU backend anyway. */
#include <stdio.h>
#include <string.h>

#include "adiflow_block.h"
#include "adiflow_bridge.h"

int adi_gpu_block_make_ids(char ids[ADI_BLOCK_ID_BYTES]) { memset(ids, 0, ADI_BLOCK_ID_BYTES); return ADI_ERR_NO_DEVICE; }
int adi_gpu_block_transport_name(char *buf, int buflen)
{
  if (buf != NULL && buflen > 0) snprintf(buf, (size_t)buflen, "none");
  return ADI_ERR_NO_DEVICE;
}
int adi_gpu_device_count(void) { return 0; }
int adi_gpu_block_ranks_fit(int ranks_on_node, int may_share) { (void)ranks_on_node; (void)may_share; return 0; }
int adi_gpu_block_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                       const adi_gpu_settings *settings, const double *sf,
                       const double *sc, const double *vol, const double *q, const int phys[6], const int off[3],
                       const int nglob[3], const int nbr[4], const int swp[4], int exact, int chunks,
                       int rank, int nranks, const char ids[ADI_BLOCK_ID_BYTES], int device,
                       double timeout_s)
{
  (void)sp; (void)kernels; (void)settings; (void)sf; (void)sc; (void)vol; (void)q; (void)phys; (void)off; (void)nglob;
  (void)nbr; (void)swp; (void)exact; (void)chunks; (void)rank; (void)nranks; (void)ids; (void)device;
  (void)timeout_s;
  if (grid != NULL) *grid = NULL;
  return ADI_ERR_NO_DEVICE;
}
int adi_gpu_block_init_level(adi_gpu_grid **grid, adi_gpu_grid *fine, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc,
                             const double *vol, const double *q, const int phys[6], const int off[3],
                             const int nglob[3], const int nbr[4], const int swp[4])
{
  (void)fine; (void)sp; (void)kernels; (void)settings; (void)sf; (void)sc; (void)vol; (void)q; (void)phys; (void)off;
  (void)nglob; (void)nbr; (void)swp;
  if (grid != NULL) *grid = NULL;
  return ADI_ERR_NO_DEVICE;
}
int adi_gpu_block_init_whole(adi_gpu_grid **grid, adi_gpu_grid *fine, const adi_solver_params *sp, int kernels,
                             const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                             const double *q)
{
  (void)fine; (void)sp; (void)kernels; (void)settings; (void)sf; (void)sc; (void)vol; (void)q;
  if (grid != NULL) *grid = NULL;
  return ADI_ERR_NO_DEVICE;
}
int adi_gpu_block_share_reserve(adi_gpu_grid *fine, int ni, const int *ext, int nranks)
{
  (void)fine; (void)ni; (void)ext; (void)nranks;
  return ADI_ERR_NO_DEVICE;
}
int adi_gpu_block_share_level(adi_gpu_grid *fine, adi_gpu_grid *blk, adi_gpu_grid *whole, const int *ext, int nranks)
{
  (void)fine; (void)blk; (void)whole; (void)ext; (void)nranks;
  return ADI_ERR_NO_DEVICE;
}
int adi_gpu_block_take_level(adi_gpu_grid *blk, adi_gpu_grid *whole, int joff, int koff)
{
  (void)blk; (void)whole; (void)joff; (void)koff;
  return ADI_ERR_NO_DEVICE;
}
int adi_gpu_block_timing_report(adi_gpu_grid *grid, char *buf, int buflen)
{
  (void)grid;
  if (buflen > 0) buf[0] = '\0';
  return ADI_OK;
}
int adi_gpu_block_finalize(adi_gpu_grid *grid) { return adi_gpu_finalize(grid); }
int adi_set_link_open(adi_set_link **link, const char ids[ADI_BLOCK_ID_BYTES], int rank, int nranks, int device,
                      double timeout_s)
{
  (void)ids; (void)rank; (void)nranks; (void)device; (void)timeout_s;
  if (link != NULL) *link = NULL;
  return ADI_ERR_NO_DEVICE;
}
int adi_set_link_send(adi_set_link *link, adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                      const int to_beg[3], const int t[3], int peer)
{
  (void)link; (void)src; (void)lo; (void)hi; (void)from_beg; (void)to_beg; (void)t; (void)peer;
  return ADI_ERR_NO_DEVICE;
}
int adi_set_link_recv(adi_set_link *link, adi_gpu_grid *dst, const int lo[3], const int hi[3], int peer)
{
  (void)link; (void)dst; (void)lo; (void)hi; (void)peer;
  return ADI_ERR_NO_DEVICE;
}
int adi_set_link_flush(adi_set_link *link) { (void)link; return ADI_ERR_NO_DEVICE; }
int adi_set_link_close(adi_set_link *link) { (void)link; return ADI_OK; }
