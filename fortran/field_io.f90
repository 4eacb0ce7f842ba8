!> Field dumps and restart files (one format, documented in
!> include/field_format.h): header (with its own CRC-64, and the place of the
!> block: rank, decomposition, global grid, offsets), interior conservative
!> state, CRC-64 over the whole file. Both directions go through the C reader
!> and writer (fortran/field_file.c) that the tools in validation/ use too: a
!> read compares the header with the case before reading the data, then
!> checks the file completely before a value is taken; a write is verified
!> and only then renamed over the previous file, so a full disk or a crash
!> never leaves a damaged or empty restart behind.
module field_io
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_double, c_char, c_null_char, c_ptr, &
    c_null_ptr, c_loc, c_associated
  use kinds, only: rk, ik8
  use grid_layout, only: layout_t
  use sys_interface, only: c_string, from_c
  use case_config, only: case_error, io_error
  implicit none
  private
  public :: write_field_dump, start_field_dump, finish_field_dump, read_field_dump, serial_place

  interface
    integer(c_int) function adi_dump_save(path, dims, place, q, iteration, res0, msg, msglen) &
        bind(c, name='adi_dump_save')
      import :: c_int, c_int32_t, c_int64_t, c_double, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t), intent(in) :: dims(6), place(9)
      real(c_double), intent(in) :: q(*)
      integer(c_int64_t), value :: iteration
      real(c_double), intent(in) :: res0(5)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function
    integer(c_int) function adi_dump_save_start(path, dims, place, q, iteration, res0, job, msg, msglen) &
        bind(c, name='adi_dump_save_start')
      import :: c_int, c_int32_t, c_int64_t, c_double, c_char, c_ptr
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t), intent(in) :: dims(6), place(9)
      type(c_ptr), value :: q
      integer(c_int64_t), value :: iteration
      real(c_double), intent(in) :: res0(5)
      type(c_ptr), intent(out) :: job
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function
    integer(c_int) function adi_dump_save_finish(job, msg, msglen) bind(c, name='adi_dump_save_finish')
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: job
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function
    integer(c_int) function adi_dump_load(path, dims, place, flags, q, iteration, res0, version, msg, msglen) &
        bind(c, name='adi_dump_load')
      import :: c_int, c_int32_t, c_int64_t, c_double, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t), intent(in) :: dims(6), place(9)
      integer(c_int32_t), value :: flags
      real(c_double), intent(inout) :: q(*)
      integer(c_int64_t), intent(out) :: iteration
      real(c_double), intent(out) :: res0(5)
      integer(c_int32_t), intent(out) :: version
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function
  end interface

  integer, parameter :: msg_len = 1024
  !> include/field_format.h's ADI_DUMP_ACCEPT_V1 and _V2
  integer(c_int32_t), parameter :: accept_v1 = 1, accept_v2 = 2

contains

  function layout_dims(lay) result(d)
    type(layout_t), intent(in) :: lay
    integer(c_int32_t) :: d(6)
    d = int([lay%ni, lay%nj, lay%nk, lay%ldi, lay%ldj, lay%ldk], c_int32_t)
  end function layout_dims

  !> The place of a serial file: rank 0 of npj x npk = 1 x 1, the global grid
  !> its own, offsets 0 (rank, npj, npk, gni, gnj, gnk, offsets i, j, k).
  pure function serial_place(lay) result(p)
    type(layout_t), intent(in) :: lay
    integer :: p(9)
    p = [0, 1, 1, lay%ni, lay%nj, lay%nk, 0, 0, 0]
  end function serial_place

  !> Write PATH (through PATH.tmp, verified, renamed). place: where the block
  !> lies (serial_place when absent). A failure (a full disk, a file-size
  !> limit, no permission, a NaN in the state) keeps the previous PATH and
  !> stops the run with exit code 5.
  subroutine write_field_dump(path, lay, q, iteration, res0, place)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: q(-1:,-1:,-1:,:)
    integer(ik8), intent(in) :: iteration
    real(rk), intent(in) :: res0(5)
    integer, intent(in), optional :: place(9)
    character(kind=c_char, len=msg_len) :: msg
    integer :: p(9)
    p = serial_place(lay)
    if (present(place)) p = place
    msg = c_null_char
    if (adi_dump_save(c_string(path), layout_dims(lay), int(p, c_int32_t), q, int(iteration, c_int64_t), res0, msg, &
        int(msg_len, c_int)) /= 0) call io_error(from_c(msg))
  end subroutine write_field_dump

  !> write_field_dump's serial file on a thread of its own (fortran/dump_job.c):
  !> job holds it until finish_field_dump, and q must stay as it is until
  !> then (its ghost cells may change: the file holds the interior only). A
  !> q that is not one contiguous array is written at once instead.
  subroutine start_field_dump(path, lay, q, iteration, res0, job)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    real(rk), intent(in), target :: q(-1:,-1:,-1:,:)
    integer(ik8), intent(in) :: iteration
    real(rk), intent(in) :: res0(5)
    type(c_ptr), intent(out) :: job
    character(kind=c_char, len=msg_len) :: msg
    job = c_null_ptr
    if (.not. is_contiguous(q)) then
      call write_field_dump(path, lay, q, iteration, res0)
      return
    end if
    msg = c_null_char
    if (adi_dump_save_start(c_string(path), layout_dims(lay), int(serial_place(lay), c_int32_t), c_loc(q), &
        int(iteration, c_int64_t), res0, job, msg, int(msg_len, c_int)) /= 0) call io_error(from_c(msg))
  end subroutine start_field_dump

  !> Wait for start_field_dump's file (nothing when job is null); a failure
  !> stops the run as write_field_dump's does (exit code 5, the previous
  !> file kept). job is null afterwards.
  subroutine finish_field_dump(job)
    type(c_ptr), intent(inout) :: job
    character(kind=c_char, len=msg_len) :: msg
    integer(c_int) :: rc
    if (.not. c_associated(job)) return
    msg = c_null_char
    rc = adi_dump_save_finish(job, msg, int(msg_len, c_int))
    job = c_null_ptr
    if (rc /= 0) call io_error(from_c(msg))
  end subroutine finish_field_dump

  !> Read a dump into q's interior. Its header is compared with the case
  !> (grid; for a rank file the rank, decomposition and offsets in place)
  !> before the data is read, then the file is checked whole (CRC, every
  !> value finite); exit code 2 otherwise. accept_old: read versions 1 and 2
  !> too (the --accept-old-restart option); without it a serial read takes
  !> version 2 (whose header the old checksum covers), a rank file
  !> (present(place)) only version 3, the first that records its rank.
  !> version: the file's. A version-1 file's res0 comes back as zeros: its
  !> header is unprotected, and the caller restarts the convergence
  !> reference from the next residual.
  subroutine read_field_dump(path, lay, q, iteration, res0, accept_old, version, place)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    integer(ik8), intent(out) :: iteration
    real(rk), intent(out) :: res0(5)
    logical, intent(in) :: accept_old
    integer, intent(out) :: version
    integer, intent(in), optional :: place(9)
    character(kind=c_char, len=msg_len) :: msg
    integer(c_int64_t) :: it
    integer(c_int32_t) :: flags, v
    integer :: p(9)
    p = serial_place(lay)
    flags = accept_v2
    if (present(place)) then
      p = place
      flags = 0
    end if
    if (accept_old) flags = ior(accept_v1, accept_v2)
    msg = c_null_char
    if (adi_dump_load(c_string(path), layout_dims(lay), int(p, c_int32_t), flags, q, it, res0, v, msg, &
        int(msg_len, c_int)) /= 0) call case_error('restart '//from_c(msg))
    iteration = int(it, ik8)
    version = int(v)
  end subroutine read_field_dump
end module field_io
