!> Minimal assertion helpers for the Fortran unit tests: every check is
!> printed, and test_summary ends with the "N passed, N failed" line and a
!> non-zero exit code when anything failed.
module test_util
  use, intrinsic :: iso_fortran_env, only: output_unit, real64
  implicit none
  private
  public :: check, check_close, test_summary

  integer :: n_pass = 0, n_fail = 0

contains

  subroutine check(cond, name)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: name
    if (cond) then
      n_pass = n_pass + 1
      write(output_unit, '(a)') 'PASS '//name
    else
      n_fail = n_fail + 1
      write(output_unit, '(a)') 'FAIL '//name
    end if
  end subroutine check

  !> |got - want| <= tol * max(1, |want|), reported with the numbers.
  subroutine check_close(got, want, tol, name)
    real(real64), intent(in) :: got, want, tol
    character(len=*), intent(in) :: name
    character(len=120) :: detail
    write(detail, '(a,es12.4,a,es12.4,a,es9.2)') ' (got ', got, ', want ', want, ', tol ', tol
    call check(abs(got - want) <= tol*max(1.0_real64, abs(want)), name//trim(detail)//')')
  end subroutine check_close

  subroutine test_summary()
    write(output_unit, '(i0,a,i0,a)') n_pass, ' passed, ', n_fail, ' failed'
    if (n_fail > 0) error stop 1
  end subroutine test_summary
end module test_util
