/* The bridge of a build without CUDA: no device, and a clear message for
 * anyone who asks for the GPU backend anyway. */
#include <stdio.h>
#include <string.h>

#include "adiflow_bridge.h"

static const char *no_cuda =
  "this adiflow was built without the CUDA backend (nvcc was not found at build time, or make "
  "GPU_BACKEND=none); install the CUDA toolkit and run `make` again, or use backend = 'cpu'";

static int fail(void) { return ADI_ERR_NO_DEVICE; }

int adi_gpu_available(const adi_gpu_settings *settings) { (void)settings; return 0; }
void adi_gpu_narrow_visible(const adi_gpu_settings *settings) { (void)settings; }
/* nothing to warm up without a GPU backend */
int adi_gpu_warm_start(const adi_gpu_settings *settings, adi_gpu_warm **warm)
{
  (void)settings;
  if (warm != NULL) *warm = NULL;
  return ADI_OK;
}
int adi_gpu_warm_usable(adi_gpu_warm *warm, const adi_gpu_settings *settings)
{
  (void)warm;
  return adi_gpu_available(settings);
}
int adi_gpu_warm_finish(adi_gpu_warm *warm) { (void)warm; return ADI_OK; }
/* nothing to release without a GPU backend (no grid can exist) */
int adi_gpu_release_start(adi_gpu_grid **grids, int n, adi_gpu_release **release)
{
  (void)grids;
  (void)n;
  if (release != NULL) *release = NULL;
  return ADI_OK;
}
int adi_gpu_release_finish(adi_gpu_release *release) { (void)release; return ADI_OK; }
int adi_gpu_device_info(const adi_gpu_settings *settings, char *buf, int buflen)
{
  (void)settings;
  snprintf(buf, (size_t)buflen, "none");
  return fail();
}
/* nothing to check without a GPU backend: the settings are never used */
int adi_gpu_check_settings(const adi_gpu_settings *settings, char *msg, int msglen)
{
  (void)settings;
  if (msg != NULL && msglen > 0) msg[0] = '\0';
  return ADI_OK;
}
int adi_gpu_init(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels, const adi_gpu_settings *settings,
                 const double *sf, const double *sc, const double *vol, const double *q, int npatch,
                 const adi_bc_patch *patches, const int *face_maps)
{
  (void)sp; (void)kernels; (void)settings; (void)sf; (void)sc; (void)vol; (void)q;
  (void)npatch; (void)patches; (void)face_maps;
  if (grid != NULL) *grid = NULL;
  return fail();
}
int adi_gpu_init_level(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                       const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                       const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps)
{
  return adi_gpu_init(grid, sp, kernels, settings, sf, sc, vol, q, npatch, patches, face_maps);
}
int adi_gpu_init_member(adi_gpu_grid **grid, const adi_solver_params *sp, int kernels,
                        const adi_gpu_settings *settings, const double *sf, const double *sc, const double *vol,
                        const double *q, int npatch, const adi_bc_patch *patches, const int *face_maps,
                        const int phys[6], int coarse_level)
{
  (void)phys; (void)coarse_level;
  return adi_gpu_init(grid, sp, kernels, settings, sf, sc, vol, q, npatch, patches, face_maps);
}
int adi_gpu_fill_faces(adi_gpu_grid *grid, int d) { (void)grid; (void)d; return fail(); }
int adi_gpu_copy_halo(adi_gpu_grid *dst, adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3],
                      const int to_beg[3], const int t[3])
{
  (void)dst; (void)src; (void)lo; (void)hi; (void)from_beg; (void)to_beg; (void)t;
  return fail();
}
int adi_gpu_mg_keep_q0(adi_gpu_grid *coarse) { (void)coarse; return fail(); }
int adi_gpu_pack_halo(adi_gpu_grid *src, const int lo[3], const int hi[3], const int from_beg[3], const int to_beg[3],
                      const int t[3], double *buf)
{
  (void)src; (void)lo; (void)hi; (void)from_beg; (void)to_beg; (void)t; (void)buf;
  return fail();
}
int adi_gpu_unpack_halo(adi_gpu_grid *dst, const int lo[3], const int hi[3], const double *buf)
{
  (void)dst; (void)lo; (void)hi; (void)buf;
  return fail();
}
int adi_gpu_iterate(adi_gpu_grid *grid, double cfl) { (void)grid; (void)cfl; return fail(); }
int adi_gpu_residual(adi_gpu_grid *grid, double cfl) { (void)grid; (void)cfl; return fail(); }
int adi_gpu_mg_restrict(adi_gpu_grid *fine, adi_gpu_grid *coarse, const int ratio[3])
{
  (void)fine; (void)coarse; (void)ratio;
  return fail();
}
int adi_gpu_mg_forcing(adi_gpu_grid *coarse) { (void)coarse; return fail(); }
int adi_gpu_mg_prolong(adi_gpu_grid *fine, adi_gpu_grid *coarse, const int ratio[3])
{
  (void)fine; (void)coarse; (void)ratio;
  return fail();
}
int adi_gpu_residual_norms(adi_gpu_grid *grid, double norms[5]) { (void)grid; (void)norms; return fail(); }
int adi_gpu_residual_plane_sums(adi_gpu_grid *grid, double *plane) { (void)grid; (void)plane; return fail(); }
int adi_gpu_mass_plane_sums(adi_gpu_grid *grid, double *plane) { (void)grid; (void)plane; return fail(); }
int adi_gpu_scale_state(adi_gpu_grid *grid, double s) { (void)grid; (void)s; return fail(); }
int adi_gpu_download_state(adi_gpu_grid *grid, double *q) { (void)grid; (void)q; return fail(); }
int adi_gpu_download_residual(adi_gpu_grid *grid, double *res) { (void)grid; (void)res; return fail(); }
int adi_gpu_download_forcing(adi_gpu_grid *grid, double *forcing) { (void)grid; (void)forcing; return fail(); }
int adi_gpu_upload_state(adi_gpu_grid *grid, const double *q) { (void)grid; (void)q; return fail(); }
int adi_gpu_set_timing(adi_gpu_grid *grid, int enabled) { (void)grid; (void)enabled; return fail(); }
int adi_gpu_timing_report(adi_gpu_grid *grid, char *buf, int buflen)
{
  (void)grid;
  snprintf(buf, (size_t)buflen, "none");
  return fail();
}
int adi_gpu_finalize(adi_gpu_grid *grid) { (void)grid; return ADI_OK; }
void adi_gpu_error_message(char *buf, int buflen) { snprintf(buf, (size_t)buflen, "%s", no_cuda); }
