!> An output file written safely: to PATH.tmp, every write's status kept,
!> then flushed, closed, checked for its full size, synced and renamed over
!> PATH (fortran/safe_file.c). A full disk, a file-size limit or a lost
!> permission therefore never leaves a truncated file under the final name:
!> the previous one stays and the run stops with a message and exit code 5.
!>
!> Files are opened for stream access (formatted text or bytes): the stream
!> position tells how many bytes were handed to the library, and the size on
!> disk must match it. That check is needed because gfortran's buffered
!> writes drop a failed write(2) (ENOSPC, EFBIG) without an error status.
module output_file
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_size_t, c_long_long, c_null_char
  use sys_interface, only: c_string, from_c, output_slot_problem
  use case_config, only: io_error
  implicit none
  private
  public :: out_file_t, out_open, out_check, out_wait, out_writeback, out_commit, remove_stale, commit_finished, blocked_output, copy_output

  type :: out_file_t
    integer :: unit = -1
    character(len=:), allocatable :: path, tmp
    integer :: ios = 0                !< first failed write's status
    character(len=512) :: msg = ''    !< and its message
  end type out_file_t

  interface
    integer(c_int) function adi_commit_file(tmp, final, expected, msg, msglen) bind(c, name='adi_commit_file')
      import :: c_int, c_char, c_size_t, c_long_long
      character(kind=c_char), intent(in) :: tmp(*), final(*)
      integer(c_long_long), value :: expected
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_link_or_copy_file(src, dst, msg, msglen) bind(c, name='adi_link_or_copy_file')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: src(*), dst(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    subroutine adi_remove_stale(path) bind(c, name='adi_remove_stale')
      import :: c_char
      character(kind=c_char), intent(in) :: path(*)
    end subroutine
    integer(c_long_long) function adi_file_size(path) bind(c, name='adi_file_size')
      import :: c_char, c_long_long
      character(kind=c_char), intent(in) :: path(*)
    end function
    subroutine adi_start_writeback(path) bind(c, name='adi_start_writeback')
      import :: c_char
      character(kind=c_char), intent(in) :: path(*)
    end subroutine
  end interface

contains

  !> Open PATH.tmp for writing: formatted text, or a byte stream if stream.
  subroutine out_open(of, path, stream)
    type(out_file_t), intent(out) :: of
    character(len=*), intent(in) :: path
    logical, intent(in), optional :: stream
    integer :: ios
    character(len=512) :: msg
    logical :: as_stream
    as_stream = .false.
    if (present(stream)) as_stream = stream
    of%path = trim(path)
    of%tmp = trim(path)//'.tmp'
    call adi_remove_stale(c_string(of%tmp))
    if (as_stream) then
      ! a binary file's large writes may run in the background (write_vts)
      open(newunit=of%unit, file=of%tmp, access='stream', form='unformatted', status='new', &
        action='write', asynchronous='yes', iostat=ios, iomsg=msg)
    else
      open(newunit=of%unit, file=of%tmp, access='stream', form='formatted', status='new', &
        action='write', iostat=ios, iomsg=msg)
    end if
    if (ios /= 0) call io_error('cannot write "'//of%tmp//'": '//trim(msg)// &
      '; the previous "'//of%path//'" is kept')
  end subroutine out_open

  !> Keep the first failed write's status (later writes fail the same way).
  subroutine out_check(of, ios, msg)
    type(out_file_t), intent(inout) :: of
    integer, intent(in) :: ios
    character(len=*), intent(in) :: msg
    if (ios /= 0 .and. of%ios == 0) then
      of%ios = ios
      of%msg = msg
    end if
  end subroutine out_check

  !> Wait for the unit's writes in the background (asynchronous ones) and
  !> keep their failure. gfortran reports such a failure here with the
  !> message of the waiting thread's last error, not the write's (a full
  !> disk read "No such file or directory", and the unit's position is no
  !> help either), so the message says what the disk holds instead: fewer
  !> than the expected bytes (those the file holds once every write is
  !> done: a full disk, a file-size limit), or a failed write.
  subroutine out_wait(of, expected)
    type(out_file_t), intent(inout) :: of
    integer(c_long_long), intent(in) :: expected
    integer :: ios
    integer(c_long_long) :: got
    character(len=160) :: m
    wait(of%unit, iostat=ios)
    if (ios == 0 .or. of%ios /= 0) return
    got = adi_file_size(c_string(of%tmp))
    if (got >= 0 .and. got < expected) then
      write(m, '(i0,a,i0,a)') got, ' of ', expected, ' bytes reached the disk'
    else
      m = 'a write in the background did not complete'
    end if
    call out_check(of, ios, m)
  end subroutine out_wait

  !> A large file's finished part goes to the disk while the writer makes
  !> the next (the library's buffer flushed, the kernel's write-back
  !> started): out_commit's sync then waits for the rest only. A failed
  !> flush is kept as every failed write is.
  subroutine out_writeback(of)
    type(out_file_t), intent(inout) :: of
    integer :: ios
    character(len=512) :: msg
    if (of%ios /= 0) return
    flush(of%unit, iostat=ios, iomsg=msg)
    call out_check(of, ios, msg)
    if (of%ios == 0) call adi_start_writeback(c_string(of%tmp))
  end subroutine out_writeback

  !> Flush and close with their status checked, then sync and rename; any
  !> failure removes PATH.tmp, keeps PATH and stops the run (exit code 5).
  subroutine out_commit(of)
    type(out_file_t), intent(inout) :: of
    integer :: ios
    integer(c_long_long) :: pos
    character(len=512) :: msg
    character(kind=c_char, len=1024) :: cmsg
    pos = 0
    if (of%ios == 0) then
      inquire(unit=of%unit, pos=pos, iostat=ios, iomsg=msg)
      call out_check(of, ios, msg)
    end if
    if (of%ios == 0) then
      flush(of%unit, iostat=ios, iomsg=msg)
      call out_check(of, ios, msg)
    end if
    if (of%ios == 0) then
      close(of%unit, iostat=ios, iomsg=msg)
      call out_check(of, ios, msg)
    else
      close(of%unit, iostat=ios)
    end if
    of%unit = -1
    if (of%ios /= 0) then
      call adi_remove_stale(c_string(of%tmp))
      call io_error('writing "'//of%tmp//'" failed: '//trim(of%msg)// &
        ' (disk full or a file-size limit?); the previous "'//of%path//'" is kept')
    end if
    cmsg = c_null_char
    if (adi_commit_file(c_string(of%tmp), c_string(of%path), pos - 1, cmsg, int(len(cmsg), c_size_t)) /= 0) &
      call io_error(from_c(cmsg)//'; the previous "'//of%path//'" is kept')
  end subroutine out_commit

  !> The first of dir's outputs (names separated by blanks) that the run could
  !> not replace at its end (a folder or a FIFO in its place), as a message;
  !> '' when all can be. Checked at the start, so that no solve is lost to it.
  function blocked_output(dir, names) result(why)
    character(len=*), intent(in) :: dir, names
    character(len=:), allocatable :: why
    integer :: a, b
    why = ''
    a = 1
    do while (a <= len_trim(names))
      if (names(a:a) == ' ') then
        a = a + 1
        cycle
      end if
      b = index(names(a:), ' ')
      b = merge(len_trim(names), a + b - 2, b == 0)
      why = output_slot_problem(trim(dir)//'/'//names(a:b))
      if (len(why) > 0) return
      a = b + 1
    end do
  end function blocked_output

  !> Remove a stale file or link at path (never following it).
  subroutine remove_stale(path)
    character(len=*), intent(in) :: path
    call adi_remove_stale(c_string(path))
  end subroutine remove_stale

  !> dst with the bytes of the file src: a second name of it where the file
  !> system allows (no bytes written), else a copy (through dst.tmp, synced
  !> and renamed as every output; fortran/safe_file.h); a failure stops the
  !> run (io_error, exit code 5) with dst untouched.
  subroutine copy_output(src, dst)
    character(len=*), intent(in) :: src, dst
    character(kind=c_char, len=1024) :: cmsg
    cmsg = c_null_char
    if (adi_link_or_copy_file(c_string(src), c_string(dst), cmsg, int(len(cmsg), c_size_t)) /= 0) &
      call io_error(from_c(cmsg))
  end subroutine copy_output

  !> A file another program finished at tmp (gnuplot's plot), checked to be
  !> a regular file, synced and renamed over final; .false. with the reason
  !> in why (tmp removed, final kept).
  logical function commit_finished(tmp, final, why) result(done)
    character(len=*), intent(in) :: tmp, final
    character(len=:), allocatable, intent(out) :: why
    character(kind=c_char, len=1024) :: cmsg
    cmsg = c_null_char
    done = adi_commit_file(c_string(tmp), c_string(final), -1_c_long_long, cmsg, int(len(cmsg), c_size_t)) == 0
    why = from_c(cmsg)
  end function commit_finished
end module output_file
