!> adiflow_mpi's ranks must all run the same case. Each rank reads its own
!> case file and command line (mpirun's MPMD form even starts them with
!> different ones), and a rank with another Reynolds number computes a wrong
!> field without a word, another max_iter or --restart leaves the others
!> waiting in a collective forever, another grid breaks the halo messages.
!> So, once every rank has read and checked its input, the ranks compare
!> their effective settings (every key of &adiflow, &parallel, &multigrid and
!> &gpu after the command-line overrides, from the groups' key lists in
!> fortran/case_keys/) before anything depends on them.
!>
!> Each rank writes its settings as "key = value" texts in a fixed order.
!> Rank 0 broadcasts its texts (a few kB: the run folder and the tuning table
!> take at most 4000 characters each), every rank compares them with its own
!> exactly (no hash, so no collision can hide a difference), and the
!> lowest-numbered differing rank sends rank 0 the keys with both values.
module mpi_settings
  use mpi_f08
  use kinds, only: rk
  use case_config, only: case_t
  use multigrid_config, only: mg_config_t
  use parallel_config, only: parallel_config_t
  use mpi_decomp, only: mpi_check
  implicit none
  private
  public :: setting_t, settings_of, compare_settings

  !> One key and its value as text: integers as written, reals in the
  !> fewest digits that read back to the same double, logicals as
  !> .true./.false., texts quoted.
  type :: setting_t
    character(len=:), allocatable :: key, val
  end type setting_t

  integer, parameter :: TAG_SETTINGS = 3100

contains

  !> The effective settings of this rank. dir is the run folder as the run
  !> will use it (run_dir, or the default from the case file's name); the
  !> case file's own name is not compared, so copies of one case agree. A
  !> key of a group other than &adiflow is named with its group:
  !> "npj (&parallel)".
  function settings_of(cs, dir, pc, mg) result(s)
    type(case_t), intent(in) :: cs
    character(len=*), intent(in) :: dir
    type(parallel_config_t), intent(in) :: pc
    type(mg_config_t), intent(in) :: mg
    type(setting_t), allocatable :: s(:)
    type(case_t) :: c
    c = cs
    c%run_dir = dir
    allocate(s(0))
#define KEY_INT(name, default, lo, hi, why) call put_i(s, 'name'//KEY_LABEL, KEY_OF%name)
#define KEY_REAL(name, default, lo, hi, bound, why) call put_r(s, 'name'//KEY_LABEL, KEY_OF%name)
#define KEY_FLAG(name, default) call put_l(s, 'name'//KEY_LABEL, KEY_OF%name)
#define KEY_TEXT(name, length, default, normalize) call put_s(s, 'name'//KEY_LABEL, KEY_OF%name)
#define KEY_CHOICE(name, length, default, normalize, choices, style) call put_s(s, 'name'//KEY_LABEL, KEY_OF%name)
#define KEY_OF c
#define KEY_LABEL ''
#include "case_keys/adiflow.def"
#undef KEY_OF
#undef KEY_LABEL
    call put_l(s, '--accept-old-restart', cs%accept_old_restart)
#define KEY_OF pc
#define KEY_LABEL ' (&parallel)'
#include "case_keys/parallel.def"
#undef KEY_OF
#undef KEY_LABEL
#define KEY_OF mg
#define KEY_LABEL ' (&multigrid)'
#include "case_keys/multigrid.def"
#undef KEY_OF
#undef KEY_LABEL
#define KEY_OF c%gpu
#define KEY_LABEL ' (&gpu)'
#include "case_keys/gpu.def"
#undef KEY_OF
#undef KEY_LABEL
#include "case_keys/undef_rows.inc"
  end function settings_of

  subroutine put(s, key, val)
    type(setting_t), allocatable, intent(inout) :: s(:)
    character(len=*), intent(in) :: key, val
    type(setting_t), allocatable :: t(:)
    allocate(t(size(s) + 1))
    t(1:size(s)) = s
    t(size(t))%key = trim(adjustl(key))
    t(size(t))%val = val
    call move_alloc(t, s)
  end subroutine put

  subroutine put_i(s, key, v)
    type(setting_t), allocatable, intent(inout) :: s(:)
    character(len=*), intent(in) :: key
    integer, intent(in) :: v
    character(len=16) :: b
    write(b, '(i0)') v
    call put(s, key, trim(b))
  end subroutine put_i

  subroutine put_r(s, key, v)
    type(setting_t), allocatable, intent(inout) :: s(:)
    character(len=*), intent(in) :: key
    real(rk), intent(in) :: v
    call put(s, key, real_text(v))
  end subroutine put_r

  subroutine put_l(s, key, v)
    type(setting_t), allocatable, intent(inout) :: s(:)
    character(len=*), intent(in) :: key
    logical, intent(in) :: v
    call put(s, key, trim(merge('.true. ', '.false.', v)))
  end subroutine put_l

  subroutine put_s(s, key, v)
    type(setting_t), allocatable, intent(inout) :: s(:)
    character(len=*), intent(in) :: key, v
    call put(s, key, '"'//trim(v)//'"')
  end subroutine put_s

  !> v in the fewest significant digits that read back to v exactly, so that
  !> two different doubles never print alike, and 400 prints as 400, not as
  !> 400.00000000000000: plain decimals from 1e-5 to 1e16, else "1.5e-12".
  function real_text(v) result(t)
    real(rk), intent(in) :: v
    character(len=:), allocatable :: t
    character(len=40) :: b, fm
    character(len=:), allocatable :: digits
    real(rk) :: back
    integer :: d, ios, e, epos
    if (.not. (abs(v) <= huge(v))) then
      write(b, '(g0)') v          ! NaN, Infinity: as the compiler names them
      t = trim(adjustl(b))
      return
    end if
    do d = 1, 17
      write(fm, '(a,i0,a)') '(es32.', d - 1, 'e4)'
      write(b, fm) abs(v)
      read(b, *, iostat=ios) back
      if (ios == 0 .and. back == abs(v)) exit
    end do
    b = adjustl(b)
    epos = index(b, 'E')
    read(b(epos+1:), *) e
    ! the significant digits without the point, trailing zeros dropped
    digits = b(1:1)//b(3:epos-1)
    do while (len(digits) > 1 .and. digits(len(digits):len(digits)) == '0')
      digits = digits(1:len(digits)-1)
    end do
    if (v == 0.0_rk) then
      t = '0'
    else if (e >= 0 .and. e <= 16) then
      if (len(digits) <= e + 1) then
        t = digits//repeat('0', e + 1 - len(digits))
      else
        t = digits(1:e+1)//'.'//digits(e+2:)
      end if
    else if (e < 0 .and. e >= -5) then
      t = '0.'//repeat('0', -e - 1)//digits
    else
      write(fm, '(i0)') e
      if (len(digits) > 1) then
        t = digits(1:1)//'.'//digits(2:)//'e'//trim(fm)
      else
        t = digits//'e'//trim(fm)
      end if
    end if
    if (sign(1.0_rk, v) < 0.0_rk) t = '-'//t
  end function real_text

  !> Collective over comm: compares every rank's settings s with rank 0's.
  !> ok is the same on every rank; when it is .false., rank 0's msg names
  !> the lowest-numbered rank that differs, each differing key and both
  !> values, and how many ranks differ (the other ranks' msg is empty).
  subroutine compare_settings(comm, s, ok, msg)
    type(MPI_Comm), intent(in) :: comm
    type(setting_t), intent(in) :: s(:)
    logical, intent(out) :: ok
    character(len=:), allocatable, intent(out) :: msg
    integer :: rank, nranks, n0, i, pos, first, ndiff, nlen, ierr
    integer, allocatable :: len0(:)
    character(len=:), allocatable :: text0, mine, v0
    character(len=32) :: rs, cnt
    type(MPI_Status) :: st

    call MPI_Comm_rank(comm, rank, ierr)
    call mpi_check(ierr, 'MPI_Comm_rank (comparing the ranks'' settings)')
    call MPI_Comm_size(comm, nranks, ierr)
    call mpi_check(ierr, 'MPI_Comm_size (comparing the ranks'' settings)')
    write(rs, '(i0)') rank

    ! rank 0's texts: how many, their lengths, then all of them in one piece
    n0 = size(s)
    call MPI_Bcast(n0, 1, MPI_INTEGER, 0, comm, ierr)
    call mpi_check(ierr, 'MPI_Bcast (comparing the ranks'' settings)')
    allocate(len0(n0))
    if (rank == 0) len0 = [(len(s(i)%val), i = 1, n0)]
    call MPI_Bcast(len0, n0, MPI_INTEGER, 0, comm, ierr)
    call mpi_check(ierr, 'MPI_Bcast (comparing the ranks'' settings)')
    allocate(character(len=sum(len0)) :: text0)
    if (rank == 0) then
      pos = 0
      do i = 1, n0
        text0(pos+1:pos+len0(i)) = s(i)%val
        pos = pos + len0(i)
      end do
    end if
    if (len(text0) > 0) then
      call MPI_Bcast(text0, len(text0), MPI_CHARACTER, 0, comm, ierr)
      call mpi_check(ierr, 'MPI_Bcast (comparing the ranks'' settings)')
    end if

    ! this rank's differences, as the message's "key = mine on rank r, theirs on rank 0" parts
    mine = ''
    if (size(s) /= n0) then
      write(cnt, '(i0,a,i0)') size(s), ' settings, rank 0 has ', n0
      mine = 'it runs another build of adiflow_mpi ('//trim(cnt)//')'
    else
      pos = 0
      do i = 1, n0
        v0 = text0(pos+1:pos+len0(i))
        pos = pos + len0(i)
        if (len(v0) /= len(s(i)%val) .or. v0 /= s(i)%val) then
          if (len(mine) > 0) mine = mine//'; '
          mine = mine//s(i)%key//' = '//s(i)%val//' on rank '//trim(rs)//', '//v0//' on rank 0'
        end if
      end do
    end if

    call MPI_Allreduce(merge(rank, nranks, len(mine) > 0), first, 1, MPI_INTEGER, MPI_MIN, comm, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (comparing the ranks'' settings)')
    call MPI_Allreduce(merge(1, 0, len(mine) > 0), ndiff, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (comparing the ranks'' settings)')
    ok = first == nranks
    msg = ''
    if (ok) return

    ! rank 0 never differs from itself, so first > 0: it sends its part
    if (rank == first) then
      nlen = len(mine)
      call MPI_Send(nlen, 1, MPI_INTEGER, 0, TAG_SETTINGS, comm, ierr)
      call mpi_check(ierr, 'MPI_Send (comparing the ranks'' settings)')
      call MPI_Send(mine, nlen, MPI_CHARACTER, 0, TAG_SETTINGS, comm, ierr)
      call mpi_check(ierr, 'MPI_Send (comparing the ranks'' settings)')
    else if (rank == 0) then
      call MPI_Recv(nlen, 1, MPI_INTEGER, first, TAG_SETTINGS, comm, st, ierr)
      call mpi_check(ierr, 'MPI_Recv (comparing the ranks'' settings)')
      deallocate(mine)
      allocate(character(len=nlen) :: mine)
      call MPI_Recv(mine, nlen, MPI_CHARACTER, first, TAG_SETTINGS, comm, st, ierr)
      call mpi_check(ierr, 'MPI_Recv (comparing the ranks'' settings)')
      write(rs, '(i0)') first
      msg = 'rank '//trim(rs)//'''s settings differ from rank 0''s: '//mine// &
        ' (every rank must read the same case file and options'
      if (ndiff > 1) then
        write(cnt, '(i0)') ndiff
        msg = msg//'; '//trim(cnt)//' ranks differ from rank 0, the lowest-numbered is shown'
      end if
      msg = msg//')'
    end if
  end subroutine compare_settings
end module mpi_settings
