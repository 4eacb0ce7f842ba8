!> A history file of the run folder (residual.dat, forces.dat): one line
!> per monitor line, appended through fortran/history_file.c's descriptor,
!> which follows no link, checks every write and, on a restart, keeps the
!> old lines up to the restart's iteration. A failure stops the run
!> (case_config's io_error, exit code 5).
module history_log
  use, intrinsic :: iso_fortran_env, only: output_unit
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_long_long, c_size_t, c_null_char
  use kinds, only: ik8
  use case_config, only: io_error
  use sys_interface, only: c_string, from_c
  implicit none
  private
  public :: history_t

  type :: history_t
    integer(c_int) :: fd = -1
    character(len=:), allocatable :: path
    integer(c_long_long) :: bytes = 0     !< what the file must hold
  contains
    procedure :: open => history_open
    procedure :: append => history_append
    procedure :: close => history_close
    procedure :: is_open => history_is_open
  end type history_t

  interface
    integer(c_int) function adi_history_open(path, header, keep_through, bytes, msg, msglen) &
        bind(c, name='adi_history_open')
      import :: c_int, c_char, c_long_long, c_size_t
      character(kind=c_char), intent(in) :: path(*), header(*)
      integer(c_long_long), value :: keep_through
      integer(c_long_long), intent(out) :: bytes
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_history_append(fd, path, line, bytes, msg, msglen) bind(c, name='adi_history_append')
      import :: c_int, c_char, c_long_long, c_size_t
      integer(c_int), value :: fd
      character(kind=c_char), intent(in) :: path(*), line(*)
      integer(c_long_long), intent(inout) :: bytes
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_history_close(fd, path, msg, msglen) bind(c, name='adi_history_close')
      import :: c_int, c_char, c_size_t
      integer(c_int), value :: fd
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
  end interface

contains

  !> A fresh history at path with header (its lines, each ending in a
  !> newline), or (restart_iter >= 0) the old one kept up to the restart's
  !> iteration, so that iterations redone after a kill are not listed twice.
  !> An old history under another header (other columns) is not kept, and
  !> the run says so.
  subroutine history_open(self, path, header, restart_iter)
    class(history_t), intent(inout) :: self
    character(len=*), intent(in) :: path, header
    integer(ik8), intent(in) :: restart_iter
    character(kind=c_char, len=1024) :: cmsg
    self%path = path
    cmsg = c_null_char
    self%fd = adi_history_open(c_string(path), c_string(header), int(restart_iter, c_long_long), self%bytes, &
      cmsg, int(len(cmsg), c_size_t))
    if (self%fd < 0) call io_error(from_c(cmsg))
    if (len(from_c(cmsg)) > 0) write(output_unit, '(a)') '  note: '//from_c(cmsg)
  end subroutine history_open

  !> One line (without its newline).
  subroutine history_append(self, line)
    class(history_t), intent(inout) :: self
    character(len=*), intent(in) :: line
    character(kind=c_char, len=1024) :: cmsg
    cmsg = c_null_char
    if (adi_history_append(self%fd, c_string(self%path), c_string(line//new_line('a')), self%bytes, cmsg, &
      int(len(cmsg), c_size_t)) /= 0) call io_error(from_c(cmsg))
  end subroutine history_append

  subroutine history_close(self)
    class(history_t), intent(inout) :: self
    character(kind=c_char, len=1024) :: cmsg
    if (self%fd >= 0) then
      cmsg = c_null_char
      if (adi_history_close(self%fd, c_string(self%path), cmsg, int(len(cmsg), c_size_t)) /= 0) &
        call io_error(from_c(cmsg))
    end if
    self%fd = -1
  end subroutine history_close

  logical function history_is_open(self)
    class(history_t), intent(in) :: self
    history_is_open = self%fd >= 0
  end function history_is_open
end module history_log
