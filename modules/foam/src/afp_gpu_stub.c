/* afp_gpu_stub.c - the GPU entry points of a build without nvcc: every call
 * says so (the plugin then refuses backend gpu and picks cpu for auto). */
#include "afp.h"

int afp_gpu_built(void) { return 0; }
int afp_gpu_count(void) { AFP_FAIL("this libadiflowFoam.so was built without CUDA (no nvcc at build time)"); return 0; }
afp_gpu *afp_gpu_create(void) { return NULL; }
void afp_gpu_destroy(afp_gpu *g) { (void)g; }
int afp_gpu_solve(afp_gpu *g, const afp_system *sys, const afp_controls *ctl, const char *field,
                  double *psi, const double *source, afp_result *res)
{
    (void)g; (void)sys; (void)ctl; (void)field; (void)psi; (void)source; (void)res;
    return AFP_FAIL("this libadiflowFoam.so was built without CUDA (no nvcc at build time)");
}
