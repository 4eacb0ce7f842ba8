!> Fortran side of fortran/sys_support.c.
module sys_interface
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: adi_install_signal_handlers, adi_interrupt_requested, atomic_rename
  public :: adi_checksum_update, adi_checksum_final, adi_host_memory_available, c_string

  interface
    subroutine adi_install_signal_handlers() bind(c, name='adi_install_signal_handlers')
    end subroutine
    integer(c_int) function adi_interrupt_requested() bind(c, name='adi_interrupt_requested')
      import :: c_int
    end function
    integer(c_int) function c_atomic_rename(tmp, final) bind(c, name='adi_atomic_rename')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: tmp(*), final(*)
    end function
    subroutine adi_checksum_update(state, data, n) bind(c, name='adi_checksum_update')
      import :: c_int64_t, c_double
      integer(c_int64_t), intent(inout) :: state(2)
      real(c_double), intent(in) :: data(*)
      integer(c_int64_t), value :: n
    end subroutine
    integer(c_int64_t) function adi_checksum_final(state) bind(c, name='adi_checksum_final')
      import :: c_int64_t
      integer(c_int64_t), intent(in) :: state(2)
    end function
    integer(c_int64_t) function adi_host_memory_available() bind(c, name='adi_host_memory_available')
      import :: c_int64_t
    end function
  end interface

contains

  pure function c_string(s) result(cs)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s)+1) :: cs
    cs = trim(s)//c_null_char
  end function c_string

  integer function atomic_rename(tmp, final) result(ierr)
    character(len=*), intent(in) :: tmp, final
    ierr = int(c_atomic_rename(c_string(tmp), c_string(final)))
  end function atomic_rename
end module sys_interface
