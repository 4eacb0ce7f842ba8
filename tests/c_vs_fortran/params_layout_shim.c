/* The C side of tests/c_vs_fortran/test_params_layout.f90: the size of adi_solver_params
 * and of adi_gpu_settings and the offset and size of each member, in
 * declaration order, every member from the rows that make the struct
 * (include/adiflow_params.def, include/adiflow_gpu_settings.def); the same
 * for a boundary patch (include/adiflow_patches.h, its members listed here). */
#include <stddef.h>
#include <stdint.h>

#include "adiflow_gpu_settings.h"
#include "adiflow_params.h"
#include "adiflow_patches.h"

/* out[0] = sizeof(type), then the offset and the size of each member (as
 * many as nmax holds); returns the number of members */
#define LAYOUT_BEGIN(type)                                                                                \
  int n = 0, members = 0;                                                                                 \
  out[n++] = (int64_t)sizeof(type);
#define MEMBER(type, m)                                                                                   \
  ++members;                                                                                              \
  if (n + 2 <= nmax) {                                                                                    \
    out[n++] = (int64_t)offsetof(type, m);                                                                \
    out[n++] = (int64_t)sizeof(((type *)0)->m);                                                           \
  }

int adi_params_layout(int64_t *out, int nmax)
{
  LAYOUT_BEGIN(adi_solver_params)
#define ADI_PARAM_CODE(name, value)
#define ADI_PARAM_REAL(name, init) MEMBER(adi_solver_params, name)
#define ADI_PARAM_INT(name, init) MEMBER(adi_solver_params, name)
#define ADI_PARAM_INTS(name, count, init) MEMBER(adi_solver_params, name)
#include "adiflow_params.def"
#undef ADI_PARAM_CODE
#undef ADI_PARAM_REAL
#undef ADI_PARAM_INT
#undef ADI_PARAM_INTS
  return members;
}

int adi_gpu_settings_layout(int64_t *out, int nmax)
{
  LAYOUT_BEGIN(adi_gpu_settings)
#define ADI_GPU_SIZE(name, value)
#define ADI_GPU_INT(name, init) MEMBER(adi_gpu_settings, name)
#define ADI_GPU_TEXT(name, size) MEMBER(adi_gpu_settings, name)
#include "adiflow_gpu_settings.def"
#undef ADI_GPU_SIZE
#undef ADI_GPU_INT
#undef ADI_GPU_TEXT
  return members;
}

int adi_bc_patch_layout(int64_t *out, int nmax)
{
  LAYOUT_BEGIN(adi_bc_patch)
  MEMBER(adi_bc_patch, kind)
  MEMBER(adi_bc_patch, face)
  MEMBER(adi_bc_patch, lo)
  MEMBER(adi_bc_patch, hi)
  MEMBER(adi_bc_patch, v)
  return members;
}
