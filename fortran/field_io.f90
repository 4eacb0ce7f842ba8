!> Field dumps and restart files (one format, documented in
!> include/field_format.h): header, interior conservative state, checksum
!> over the whole file. Both directions go through the C reader and writer
!> (fortran/field_file.c) that the tools in validation/ use too: a read
!> checks the file completely before a value is taken, a write is verified
!> and only then renamed over the previous file, so a full disk or a crash
!> never leaves a damaged or empty restart behind.
module field_io
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_double, c_char, c_null_char
  use kinds, only: rk, ik8
  use grid_layout, only: layout_t
  use sys_interface, only: c_string, from_c
  use case_config, only: case_error, io_error
  implicit none
  private
  public :: write_field_dump, read_field_dump

  interface
    integer(c_int) function adi_dump_save(path, dims, q, iteration, res0, msg, msglen) &
        bind(c, name='adi_dump_save')
      import :: c_int, c_int32_t, c_int64_t, c_double, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t), intent(in) :: dims(6)
      real(c_double), intent(in) :: q(*)
      integer(c_int64_t), value :: iteration
      real(c_double), intent(in) :: res0(5)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function
    integer(c_int) function adi_dump_load(path, dims, q, iteration, res0, msg, msglen) &
        bind(c, name='adi_dump_load')
      import :: c_int, c_int32_t, c_int64_t, c_double, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t), intent(in) :: dims(6)
      real(c_double), intent(inout) :: q(*)
      integer(c_int64_t), intent(out) :: iteration
      real(c_double), intent(out) :: res0(5)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function
  end interface

  integer, parameter :: msg_len = 1024

contains

  function layout_dims(lay) result(d)
    type(layout_t), intent(in) :: lay
    integer(c_int32_t) :: d(6)
    d = int([lay%ni, lay%nj, lay%nk, lay%ldi, lay%ldj, lay%ldk], c_int32_t)
  end function layout_dims

  !> Write PATH (through PATH.tmp, verified, renamed). A failure (a full
  !> disk, a file-size limit, no permission) keeps the previous PATH and
  !> stops the run with exit code 5.
  subroutine write_field_dump(path, lay, q, iteration, res0)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: q(-1:,-1:,-1:,:)
    integer(ik8), intent(in) :: iteration
    real(rk), intent(in) :: res0(5)
    character(kind=c_char, len=msg_len) :: msg
    msg = c_null_char
    if (adi_dump_save(c_string(path), layout_dims(lay), q, int(iteration, c_int64_t), res0, msg, &
        int(msg_len, c_int)) /= 0) call io_error(from_c(msg))
  end subroutine write_field_dump

  !> Read a dump into q's interior; the file is checked whole first, and its
  !> grid must match the case exactly (exit code 2 otherwise).
  subroutine read_field_dump(path, lay, q, iteration, res0)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    integer(ik8), intent(out) :: iteration
    real(rk), intent(out) :: res0(5)
    character(kind=c_char, len=msg_len) :: msg
    integer(c_int64_t) :: it
    msg = c_null_char
    if (adi_dump_load(c_string(path), layout_dims(lay), q, it, res0, msg, int(msg_len, c_int)) /= 0) &
      call case_error('restart '//from_c(msg))
    iteration = int(it, ik8)
  end subroutine read_field_dump
end module field_io
