!> Fortran interface to the C bridge (include/adiflow_bridge.h), plus a
!> check that turns a failed call into a clear error message.
module gpu_bridge
  use, intrinsic :: iso_c_binding
  use solver_params, only: solver_params_t
  implicit none
  private
  public :: adi_gpu_available, adi_gpu_init, adi_gpu_iterate, adi_gpu_residual_norms
  public :: adi_gpu_download_state, adi_gpu_upload_state, adi_gpu_finalize
  public :: adi_gpu_set_timing, gpu_check, gpu_device_info, gpu_timing_report
  public :: adi_gpu_residual_plane_sums, gpu_error_text
  public :: adi_gpu_mass_plane_sums, adi_gpu_scale_state
  public :: ADI_KERNELS_SPLIT, ADI_KERNELS_MERGED

  integer(c_int), parameter :: ADI_KERNELS_SPLIT = 0, ADI_KERNELS_MERGED = 1

  interface
    integer(c_int) function adi_gpu_available() bind(c, name='adi_gpu_available')
      import :: c_int
    end function
    integer(c_int) function c_device_info(buf, n) bind(c, name='adi_gpu_device_info')
      import :: c_int, c_char
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end function
    integer(c_int) function adi_gpu_init(sp, kernels, sf, sc, vol, q) bind(c, name='adi_gpu_init')
      import :: c_int, c_double, solver_params_t
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: kernels
      real(c_double), intent(in) :: sf(*), sc(*), vol(*), q(*)
    end function
    integer(c_int) function adi_gpu_iterate(cfl) bind(c, name='adi_gpu_iterate')
      import :: c_int, c_double
      real(c_double), value :: cfl
    end function
    integer(c_int) function adi_gpu_residual_norms(norms) bind(c, name='adi_gpu_residual_norms')
      import :: c_int, c_double
      real(c_double), intent(out) :: norms(5)
    end function
    integer(c_int) function adi_gpu_residual_plane_sums(plane) bind(c, name='adi_gpu_residual_plane_sums')
      import :: c_int, c_double
      real(c_double), intent(inout) :: plane(*)
    end function
    integer(c_int) function adi_gpu_mass_plane_sums(plane) bind(c, name='adi_gpu_mass_plane_sums')
      import :: c_int, c_double
      real(c_double), intent(inout) :: plane(*)
    end function
    integer(c_int) function adi_gpu_scale_state(s) bind(c, name='adi_gpu_scale_state')
      import :: c_int, c_double
      real(c_double), value :: s
    end function
    integer(c_int) function adi_gpu_download_state(q) bind(c, name='adi_gpu_download_state')
      import :: c_int, c_double
      real(c_double), intent(inout) :: q(*)
    end function
    integer(c_int) function adi_gpu_upload_state(q) bind(c, name='adi_gpu_upload_state')
      import :: c_int, c_double
      real(c_double), intent(in) :: q(*)
    end function
    integer(c_int) function adi_gpu_set_timing(enabled) bind(c, name='adi_gpu_set_timing')
      import :: c_int
      integer(c_int), value :: enabled
    end function
    integer(c_int) function c_timing_report(buf, n) bind(c, name='adi_gpu_timing_report')
      import :: c_int, c_char
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end function
    integer(c_int) function adi_gpu_finalize() bind(c, name='adi_gpu_finalize')
      import :: c_int
    end function
    subroutine c_error_message(buf, n) bind(c, name='adi_gpu_error_message')
      import :: c_int, c_char
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end subroutine
  end interface

contains

  function from_c(buf) result(s)
    character(kind=c_char, len=*), intent(in) :: buf
    character(len=len(buf)) :: s
    integer :: n
    n = index(buf, c_null_char)
    if (n == 0) n = len(buf) + 1
    s = buf(1:n-1)
  end function from_c

  !> Stop with the bridge's message when a call failed (exit code 4).
  subroutine gpu_check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    character(kind=c_char, len=2048) :: buf
    if (status == 0) return
    call c_error_message(buf, int(len(buf), c_int))
    write(0, '(a)') 'adiflow: error: GPU backend, '//trim(what)//' failed: '//trim(from_c(buf))
    error stop 4, quiet=.true.
  end subroutine gpu_check

  !> The bridge's text of the last failure (for drivers that stop otherwise).
  function gpu_error_text() result(s)
    character(len=2048) :: s
    character(kind=c_char, len=2048) :: buf
    call c_error_message(buf, int(len(buf), c_int))
    s = from_c(buf)
  end function gpu_error_text

  function gpu_device_info() result(s)
    character(len=512) :: s
    character(kind=c_char, len=512) :: buf
    integer(c_int) :: st
    st = c_device_info(buf, int(len(buf), c_int))
    s = from_c(buf)
  end function gpu_device_info

  function gpu_timing_report() result(s)
    character(len=8192) :: s
    character(kind=c_char, len=8192) :: buf
    integer(c_int) :: st
    st = c_timing_report(buf, int(len(buf), c_int))
    s = from_c(buf)
  end function gpu_timing_report
end module gpu_bridge
