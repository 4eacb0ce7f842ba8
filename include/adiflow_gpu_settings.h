/* How the GPU backend runs (never what it computes): the case file's
 * optional &gpu group, mirror of the bind(c) type in fortran/gpu_settings.f90.
 * Each setting has an environment variable that, when set, overrides the
 * case file for that run:
 *   device        ADIFLOW_DEVICE          GPU index; -1: 0 (multi-GPU: the rank's node-local GPU)
 *   timing        ADIFLOW_GPU_TIMING      1: per-kernel event times, a table at the end
 *   overlap       ADIFLOW_BLOCK_OVERLAP   multi-GPU split schedule: halos under interior work
 *   merged_steps  ADIFLOW_MERGED_STEPS    the merged family's techniques ("" = all; "all,-graph", ...)
 *   tuning_table  ADIFLOW_TUNE_TABLE      the merged family's block shapes; "" = tune/sm_XY.txt beside
 *                                         the executable, else the built-in shapes */
#ifndef ADIFLOW_GPU_SETTINGS_H
#define ADIFLOW_GPU_SETTINGS_H

enum { ADI_GPU_STEPS_LEN = 256, ADI_GPU_TABLE_LEN = 4096 };

typedef struct adi_gpu_settings {
  int device;
  int timing;
  int overlap;
  char merged_steps[ADI_GPU_STEPS_LEN];
  char tuning_table[ADI_GPU_TABLE_LEN];
} adi_gpu_settings;

#endif
