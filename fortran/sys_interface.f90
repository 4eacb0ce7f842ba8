!> Fortran side of the system services in C: fortran/sys_support.c, run_folder.c,
!> safe_file.c and the host library (host/: the regular-file check, the host memory).
module sys_interface
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: adi_install_signal_handlers, adi_interrupt_requested
  public :: adi_guard_output_signals, make_dirs, lock_run_dir, run_gnuplot, regular_file
  public :: adi_host_memory_available, c_string, from_c, c_text, signal_text, output_slot_problem, remove_old_restart_sets, &
    remove_old_block_restarts, earlier_snapshots

  interface
    subroutine adi_install_signal_handlers() bind(c, name='adi_install_signal_handlers')
    end subroutine
    integer(c_int) function adi_interrupt_requested() bind(c, name='adi_interrupt_requested')
      import :: c_int
    end function
    integer(c_int64_t) function adi_host_memory_available() bind(c, name='adi_host_memory_available')
      import :: c_int64_t
    end function
    integer(c_int) function adi_check_regular_file(path, msg, msglen) bind(c, name='adi_check_regular_file')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    subroutine adi_guard_output_signals() bind(c, name='adi_guard_output_signals')
    end subroutine
    integer(c_int) function adi_make_dirs(path, msg, msglen) bind(c, name='adi_make_dirs')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_lock_run_dir(dir, msg, msglen) bind(c, name='adi_lock_run_dir')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: dir(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    subroutine adi_signal_name(sig, buf, buflen) bind(c, name='adi_signal_name')
      import :: c_int, c_char, c_size_t
      integer(c_int), value :: sig
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: buflen
    end subroutine
    integer(c_int) function adi_check_output_slot(path, msg, msglen) bind(c, name='adi_check_output_slot')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_run_gnuplot(script, title, data, png, msg, msglen) bind(c, name='adi_run_gnuplot')
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: script(*), title(*), data(*), png(*)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_remove_old_restart_sets(dir, keep, rank, nranks, msg, msglen) &
        bind(c, name='adi_remove_old_restart_sets')
      import :: c_int, c_char, c_size_t, c_long_long
      character(kind=c_char), intent(in) :: dir(*)
      integer(c_long_long), value :: keep
      integer(c_int), value :: rank, nranks
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_remove_old_block_restarts(dir, keep, msg, msglen) &
        bind(c, name='adi_remove_old_block_restarts')
      import :: c_int, c_char, c_size_t, c_long_long
      character(kind=c_char), intent(in) :: dir(*)
      integer(c_long_long), value :: keep
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_long_long) function adi_find_snapshots(dir, prefix, ext, width, every, upto, iters, cap) &
        bind(c, name='adi_find_snapshots')
      import :: c_int, c_char, c_long_long
      character(kind=c_char), intent(in) :: dir(*), prefix(*), ext(*)
      integer(c_int), value :: width
      integer(c_long_long), value :: every, upto, cap
      integer(c_long_long), intent(out) :: iters(*)
    end function
  end interface

contains

  !> The iterations (ascending) of the snapshot files dir/PREFIX<width
  !> digits>EXT at multiples of every up to upto that are regular files; none
  !> if the folder cannot be read.
  function earlier_snapshots(dir, prefix, ext, width, every, upto) result(iters)
    character(len=*), intent(in) :: dir, prefix, ext
    integer, intent(in) :: width
    integer(c_long_long), intent(in) :: every, upto
    integer(c_long_long), allocatable :: iters(:)
    integer(c_long_long) :: n, got, none(1)
    n = adi_find_snapshots(c_string(dir), c_string(prefix), c_string(ext), int(width, c_int), every, upto, none, 0_c_long_long)
    allocate(iters(max(n, 0_c_long_long)))
    if (n <= 0) return
    got = adi_find_snapshots(c_string(dir), c_string(prefix), c_string(ext), int(width, c_int), every, upto, iters, n)
    ! the folder changed between the two listings: fewer found are sorted and
    ! kept; more did not fit, came unsorted, and none is kept
    if (got < n) iters = iters(1:max(got, 0_c_long_long))
    if (got > n) iters = [integer(c_long_long) ::]
  end function earlier_snapshots

  pure function c_string(s) result(cs)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s)+1) :: cs
    cs = trim(s)//c_null_char
  end function c_string

  !> A NUL-terminated C buffer as a Fortran string (up to the NUL; the
  !> whole buffer if it holds none).
  function from_c(buf) result(s)
    character(kind=c_char, len=*), intent(in) :: buf
    character(len=:), allocatable :: s
    integer :: n
    n = index(buf, c_null_char)
    if (n == 0) n = len(buf) + 1
    s = buf(1:n-1)
  end function from_c

  !> The text of a C character array up to its NUL (all of it without one).
  function c_text(buf) result(s)
    character(kind=c_char), intent(in) :: buf(:)
    character(len=:), allocatable :: s
    integer :: n
    n = 0
    do while (n < size(buf))
      if (buf(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate(character(len=n) :: s)
    s = transfer(buf(1:n), s)
  end function c_text

  !> .true. if path is a regular file (not a folder, FIFO or device).
  logical function regular_file(path)
    character(len=*), intent(in) :: path
    character(kind=c_char, len=512) :: buf
    regular_file = adi_check_regular_file(c_string(path), buf, int(len(buf), c_size_t)) == 0
  end function regular_file

  !> mkdir -p of path (no shell); 0, or an errno with the reason in msg.
  integer function make_dirs(path, msg) result(ierr)
    character(len=*), intent(in) :: path
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char, len=1024) :: buf
    buf = c_null_char
    ierr = int(adi_make_dirs(c_string(path), buf, int(len(buf), c_size_t)))
    msg = from_c(buf)
  end function make_dirs

  !> Lock the run folder for this process's lifetime: the descriptor, or -1
  !> with the reason (another run holds it, or the folder is not writable).
  integer function lock_run_dir(dir, msg) result(fd)
    character(len=*), intent(in) :: dir
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char, len=1024) :: buf
    buf = c_null_char
    fd = int(adi_lock_run_dir(c_string(dir), buf, int(len(buf), c_size_t)))
    msg = from_c(buf)
  end function lock_run_dir

  !> What stopped the run: "interrupted by SIGINT (Ctrl-C)", ..., or
  !> "interrupted" when the signal came to another MPI rank.
  function signal_text() result(s)
    character(len=:), allocatable :: s
    character(kind=c_char, len=64) :: buf
    integer(c_int) :: sig
    sig = adi_interrupt_requested()
    s = 'interrupted'
    if (sig == 0) return
    buf = c_null_char
    call adi_signal_name(sig, buf, int(len(buf), c_size_t))
    s = s//' by '//from_c(buf)
  end function signal_text

  !> '' if path can take an output at the end of the run (absent, a file, or
  !> a link that will be replaced); else why not (a folder, a FIFO, ...).
  function output_slot_problem(path) result(why)
    character(len=*), intent(in) :: path
    character(len=:), allocatable :: why
    character(kind=c_char, len=1024) :: buf
    buf = c_null_char
    why = ''
    if (adi_check_output_slot(c_string(path), buf, int(len(buf), c_size_t)) /= 0) why = from_c(buf)
  end function output_slot_problem

  !> gnuplot -c script title data png, no shell: 0 drawn, 1 not installed,
  !> 2 failed (msg says how).
  integer function run_gnuplot(script, title, data, png, msg) result(st)
    character(len=*), intent(in) :: script, title, data, png
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char, len=512) :: buf
    buf = c_null_char
    st = int(adi_run_gnuplot(c_string(script), c_string(title), c_string(data), c_string(png), buf, &
      int(len(buf), c_size_t)))
    msg = from_c(buf)
  end function run_gnuplot

  !> adiflow_mpi, once its index names the set of iteration keep: removes
  !> the older sets' rank files and stale temporaries of this rank's share
  !> (fortran/safe_file.h says which); the number it could not remove, the
  !> first one's reason in msg.
  integer function remove_old_restart_sets(dir, keep, rank, nranks, msg) result(nfail)
    character(len=*), intent(in) :: dir
    integer(c_int64_t), intent(in) :: keep
    integer, intent(in) :: rank, nranks
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char, len=1024) :: buf
    buf = c_null_char
    nfail = int(adi_remove_old_restart_sets(c_string(dir), int(keep, c_long_long), int(rank, c_int), &
      int(nranks, c_int), buf, int(len(buf), c_size_t)))
    msg = from_c(buf)
  end function remove_old_restart_sets

  !> build/adiflow on a multi-block grid, once its index names the set of
  !> iteration keep: removes the older sets' block files and the
  !> temporaries a crash left (fortran/safe_file.h); as remove_old_restart_sets.
  integer function remove_old_block_restarts(dir, keep, msg) result(nfail)
    character(len=*), intent(in) :: dir
    integer(c_int64_t), intent(in) :: keep
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char, len=1024) :: buf
    buf = c_null_char
    nfail = int(adi_remove_old_block_restarts(c_string(dir), int(keep, c_long_long), buf, int(len(buf), c_size_t)))
    msg = from_c(buf)
  end function remove_old_block_restarts
end module sys_interface
