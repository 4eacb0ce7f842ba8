!> The case file's optional &gpu group: how the GPU backend runs (which
!> device, timing, the multi-GPU overlap, the merged family's techniques,
!> its tuning table). It changes no result. Mirror: include/adiflow_gpu_settings.h.
module gpu_settings
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
  implicit none
  private
  public :: gpu_settings_t, make_gpu_settings, GPU_STEPS_LEN, GPU_TABLE_LEN

  integer, parameter :: GPU_STEPS_LEN = 256, GPU_TABLE_LEN = 4096

  !> An environment variable of the same setting, when set, overrides the
  !> case file for that run (include/adiflow_gpu_settings.h names them).
  type, bind(c) :: gpu_settings_t
    integer(c_int) :: device = -1        !< -1: ADIFLOW_DEVICE or 0 (multi-GPU: node-local rank)
    integer(c_int) :: timing = 0         !< 1: per-kernel event times, table at the end
    integer(c_int) :: overlap = 1        !< multi-GPU split schedule: halo exchange under interior work
    character(kind=c_char) :: merged_steps(GPU_STEPS_LEN) = c_null_char
    character(kind=c_char) :: tuning_table(GPU_TABLE_LEN) = c_null_char
  end type gpu_settings_t

contains

  !> From the &gpu keys as read.
  function make_gpu_settings(device, timing, overlap, merged_steps, tuning_table) result(g)
    integer, intent(in) :: device
    logical, intent(in) :: timing, overlap
    character(len=*), intent(in) :: merged_steps, tuning_table
    type(gpu_settings_t) :: g
    g%device = int(device, c_int)
    g%timing = merge(1_c_int, 0_c_int, timing)
    g%overlap = merge(1_c_int, 0_c_int, overlap)
    call put(trim(merged_steps), g%merged_steps)
    call put(trim(tuning_table), g%tuning_table)
  end function make_gpu_settings

  subroutine put(s, buf)
    character(len=*), intent(in) :: s
    character(kind=c_char), intent(out) :: buf(:)
    integer :: i
    buf = c_null_char
    do i = 1, min(len(s), size(buf) - 1)
      buf(i) = s(i:i)
    end do
  end subroutine put
end module gpu_settings
