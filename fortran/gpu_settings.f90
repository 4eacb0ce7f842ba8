!> The case file's optional &gpu group as the GPU backend reads it: which
!> device, timing, the multi-GPU overlap, the merged family's techniques,
!> its tuning table. It changes no result. The members are the rows of
!> include/adiflow_gpu_settings.def, from which include/adiflow_gpu_settings.h
!> makes C's adi_gpu_settings too; make_gpu_settings (fortran/case_config.f90)
!> fills it from the &gpu keys.
module gpu_settings
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  private
  public :: gpu_settings_t

#define ADI_GPU_SIZE(name, value) integer, parameter, public :: name = value
#define ADI_GPU_INT(name, init)
#define ADI_GPU_TEXT(name, size)
#include "adiflow_gpu_settings.def"
#undef ADI_GPU_SIZE
#undef ADI_GPU_INT
#undef ADI_GPU_TEXT

  !> An environment variable of the same setting, when set, overrides the
  !> case file for that run (include/adiflow_gpu_settings.def names them).
  type, bind(c) :: gpu_settings_t
#define ADI_GPU_SIZE(name, value)
#define ADI_GPU_INT(name, init) integer(c_int) :: name = init
#define ADI_GPU_TEXT(name, size) character(kind=c_char) :: name(size) = c_null_char
#include "adiflow_gpu_settings.def"
#undef ADI_GPU_SIZE
#undef ADI_GPU_INT
#undef ADI_GPU_TEXT
  end type gpu_settings_t
end module gpu_settings
