/* How the GPU backend runs (never what it computes): the case file's
 * optional &gpu group, in one struct that Fortran sees unchanged (the
 * bind(c) type gpu_settings_t of fortran/gpu_settings.f90). Both are made
 * from the rows of adiflow_gpu_settings.def, which also names the
 * environment variable that overrides each setting. */
#ifndef ADIFLOW_GPU_SETTINGS_H
#define ADIFLOW_GPU_SETTINGS_H

#define ADI_GPU_SIZE(name, value) enum { ADI_##name = value };
#define ADI_GPU_INT(name, init)
#define ADI_GPU_TEXT(name, size)
#include "adiflow_gpu_settings.def"
#undef ADI_GPU_SIZE
#undef ADI_GPU_INT
#undef ADI_GPU_TEXT

typedef struct adi_gpu_settings {
#define ADI_GPU_SIZE(name, value)
#define ADI_GPU_INT(name, init) int name;
#define ADI_GPU_TEXT(name, size) char name[ADI_##size];
#include "adiflow_gpu_settings.def"
#undef ADI_GPU_SIZE
#undef ADI_GPU_INT
#undef ADI_GPU_TEXT
} adi_gpu_settings;

#endif
