/* The bridge of a build without CUDA: no device, and a clear message for
 * anyone who asks for the GPU backend anyway. */
#include <stdio.h>
#include <string.h>

#include "adiflow_bridge.h"

static const char *no_cuda =
  "this adiflow was built without the CUDA backend (nvcc was not found at build time); "
  "install the CUDA toolkit and run `make` again, or use backend = 'cpu'";

static int fail(void) { return ADI_ERR_NO_DEVICE; }

int adi_gpu_available(void) { return 0; }
int adi_gpu_device_info(char *buf, int buflen) { snprintf(buf, (size_t)buflen, "none"); return fail(); }
int adi_gpu_init(const adi_solver_params *sp, int kernels, const double *sf, const double *sc,
                 const double *vol, const double *q)
{
  (void)sp; (void)kernels; (void)sf; (void)sc; (void)vol; (void)q;
  return fail();
}
int adi_gpu_iterate(double cfl) { (void)cfl; return fail(); }
int adi_gpu_residual_norms(double norms[5]) { (void)norms; return fail(); }
int adi_gpu_residual_plane_sums(double *plane) { (void)plane; return fail(); }
int adi_gpu_mass_plane_sums(double *plane) { (void)plane; return fail(); }
int adi_gpu_scale_state(double s) { (void)s; return fail(); }
int adi_gpu_download_state(double *q) { (void)q; return fail(); }
int adi_gpu_upload_state(const double *q) { (void)q; return fail(); }
int adi_gpu_set_timing(int enabled) { (void)enabled; return fail(); }
int adi_gpu_timing_report(char *buf, int buflen) { snprintf(buf, (size_t)buflen, "none"); return fail(); }
int adi_gpu_finalize(void) { return ADI_OK; }
void adi_gpu_error_message(char *buf, int buflen) { snprintf(buf, (size_t)buflen, "%s", no_cuda); }
