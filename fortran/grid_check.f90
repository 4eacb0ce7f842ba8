!> grid_check: reads a Plot3D grid file with the solver's reader and checks
!> it, as a run would before it allocates anything (fortran/grid_file.f90):
!> what the file is, its sizes, its cell volumes; exit 2 with the reason
!> otherwise. The hostile-input suite drives the reader through it
!> (tests/hostile/grid_files.sh).
!>
!>   grid_check FILE [--need-3d] [--flip i|j|k]... [--span S] [--same-as OTHER] [--blocks]
!>
!> --same-as OTHER: both files must hold the same node coordinates, bit for
!> bit (exit 1 naming the first node that differs).
!>
!> A file of several blocks (fortran/grid_blocks.f90): each block's sizes
!> and cell volumes (its cells checked as a one-block grid's),
!> each 1-to-1 interface found from the coordinates (both sides' ranges,
!> 1-based node indices, and CGNS's transform), each face part left for
!> boundary patches; the options do not apply to it. --blocks gives that
!> report for a file of one block too (a C-grid's wake cut: an interface of
!> the block with itself). It ends with what build/adiflow does with such a
!> file (solves its blocks together, or refuses it, saying why), but exits
!> 0 when the file reads and checks.
program grid_check
  use kinds, only: rk
  use grid_file
  use grid_blocks, only: grid_block_set_t, range_text, transform_text, block_label, GRID_BLOCKS_OK
  use cgns_blocks, only: count_block_file, read_block_file
  use backend_blocks, only: set_problem, flat_block_problem
  use block_split, only: piece_t, cut_at_face_parts
  use blocks_driver, only: make_one_cell_thick
  implicit none
  type(grid_read_options_t) :: opts
  type(grid_file_info_t) :: info, other_info
  real(rk), allocatable :: xn(:,:,:,:), xo(:,:,:,:)
  character(len=:), allocatable :: path, other, msg, arg
  integer :: status, a, nargs, i, j, k
  logical :: blocks_report = .false.
  real(rk) :: span
  character(len=64) :: b

  nargs = command_argument_count()
  path = ''
  other = ''
  a = 1
  do while (a <= nargs)
    arg = argument(a)
    select case (arg)
    case ('--blocks')
      blocks_report = .true.
    case ('--need-3d')
      opts%need_3d = .true.
    case ('--flip')
      a = a + 1
      select case (argument(a))
      case ('i'); opts%flip(1) = .true.
      case ('j'); opts%flip(2) = .true.
      case ('k'); opts%flip(3) = .true.
      case default; call usage('--flip needs i, j or k')
      end select
    case ('--span')
      a = a + 1
      arg = argument(a)
      read(arg, *, iostat=status) span
      if (status /= 0) call usage('--span needs a number')
      opts%span = span
    case ('--same-as')
      a = a + 1
      other = argument(a)
      if (len(other) == 0) call usage('--same-as needs a file')
    case default
      if (len(path) > 0 .or. len(arg) == 0 .or. arg(1:1) == '-') call usage('unknown option "'//arg//'"')
      path = arg
    end select
    a = a + 1
  end do
  if (len(path) == 0) call usage('no grid file given')
  if (blocks_report .or. count_block_file(path) > 1) call check_blocks(path)

  call read_grid_file(path, opts, xn, info, status, msg)
  if (status /= GRID_OK) call fail(status, msg)
  write(*, '(3a)') 'grid_check: "', path, '": '//info%format
  if (info%planar) then
    write(b, '(g0.6)') opts%span
    write(*, '(a,i0,a,i0,a,i0,a,i0,a)') '  ', info%ni + 1, ' x ', info%nj + 1, ' nodes -> ', info%ni, ' x ', &
      info%nj, ' x 1 cells (2D, made one cell thick, span '//trim(adjustl(b))//')'
  else
    write(*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a)') '  ', info%ni + 1, ' x ', info%nj + 1, ' x ', info%nk + 1, &
      ' nodes -> ', info%ni, ' x ', info%nj, ' x ', info%nk, ' cells'
  end if
  write(*, '(a,es12.5,a,es12.5)') '  cell volumes ', info%vol_min, ' to ', info%vol_max

  if (len(other) > 0) then
    opts%flip = .false.   ! the other file as it is
    call read_grid_file(other, opts, xo, other_info, status, msg)
    if (status /= GRID_OK) call fail(status, msg)
    if (any(shape(xo) /= shape(xn))) then
      write(*, '(a)') 'grid_check: the grids differ in size'
      stop 1, quiet=.true.
    end if
    do k = 0, info%nk
      do j = 0, info%nj
        do i = 0, info%ni
          if (any(xn(:, i, j, k) /= xo(:, i, j, k))) then
            write(*, '(a,i0,a,i0,a,i0,a,3es25.17,a,3es25.17)') 'grid_check: the grids differ at node i,j,k = ', &
              i + 1, ',', j + 1, ',', k + 1, ':', xn(:, i, j, k), ' against', xo(:, i, j, k)
            stop 1, quiet=.true.
          end if
        end do
      end do
    end do
    write(*, '(3a)') '  the same node coordinates as "', other, '", bit for bit'
  end if
  write(*, '(a)') '  OK'

contains

  !> The multi-block report; exit 0, or 2 with the reason.
  subroutine check_blocks(path)
    character(len=*), intent(in) :: path
    type(grid_block_set_t) :: set
    type(piece_t), allocatable :: pieces(:)
    integer :: b, q, st, nfile
    character(len=:), allocatable :: why

    call read_block_file(path, set, st, why)
    if (st /= GRID_BLOCKS_OK) call fail(st, why)
    write(*, '(3a)') 'grid_check: "', path, '": '//set%format//', '//itext(set%nblocks)//merge(' blocks', ' block ', set%nblocks > 1)
    do b = 1, set%nblocks
      associate (n => set%blocks(b)%n)
        if (n(3) == 1) then
          write(*, '(a)', advance='no') '  '//block_label(set, b)//': '//itext(n(1))//' x '//itext(n(2))// &
            ' nodes (2D: one cell thick, span 1, k 1..2)'
        else
          write(*, '(a)', advance='no') '  '//block_label(set, b)//': '//itext(n(1))//' x '//itext(n(2))//' x '//itext(n(3))//' nodes'
        end if
        write(*, '(a,es12.5,a,es12.5)') ', cell volumes ', set%blocks(b)%vol_min, ' to ', set%blocks(b)%vol_max
      end associate
    end do
    write(*, '(a)') '  '//itext(size(set%interfaces))//' 1-to-1 interface(s):'
    do q = 1, size(set%interfaces)
      write(*, '(a)') '    '//range_text(set, set%interfaces(q)%a)//' = '//range_text(set, set%interfaces(q)%b)// &
        ' ('//transform_text(set%interfaces(q)%transform)//')'
    end do
    write(*, '(a)') '  '//itext(size(set%left))//' face part(s) left for boundary patches:'
    do q = 1, size(set%left)
      write(*, '(a)') '    '//range_text(set, set%left(q))
    end do
    if (allocated(set%bcs)) then
      write(*, '(a)') '  '//itext(size(set%bcs))//' boundary condition(s) the file gives:'
      do q = 1, size(set%bcs)
        write(*, '(a)') '    block '//itext(set%bcs(q)%block)//': '//set%bcs(q)%line//'   ('//set%bcs(q)%where//')'
      end do
    end if
    nfile = set%nblocks
    if (set%dims == 2) call make_one_cell_thick(set, 1.0_rk)
    why = flat_block_problem(set)
    if (len(why) == 0) then
      ! what a run does with it: the same steps build/adiflow takes first
      call cut_at_face_parts(set, pieces)
      why = set_problem(set)
    end if
    if (len(why) > 0) then
      write(*, '(a)') '  OK as a file; build/adiflow refuses to run it: '//why
    else if (set%nblocks > nfile) then
      write(*, '(a)') '  OK (build/adiflow cuts it where an interface covers part of a face, into '// &
        itext(set%nblocks)//' blocks, and solves them together, on the CPU or the GPU; adiflow_mpi spreads them '// &
        'over its ranks)'
    else if (nfile > 1) then
      write(*, '(a)') '  OK (build/adiflow solves its blocks together, on the CPU or the GPU; adiflow_mpi spreads '// &
        'them over its ranks)'
    else
      write(*, '(a)') '  OK'
    end if
    stop 0, quiet=.true.
  end subroutine check_blocks

  function itext(v) result(s)
    integer, intent(in) :: v
    character(len=:), allocatable :: s
    character(len=24) :: b
    write(b, '(i0)') v
    s = trim(b)
  end function itext

  function argument(n) result(s)
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    integer :: l
    if (n > nargs) then
      s = ''
      return
    end if
    call get_command_argument(n, length=l)
    allocate(character(len=l) :: s)
    call get_command_argument(n, s)
  end function argument

  subroutine usage(why)
    character(len=*), intent(in) :: why
    write(0, '(a)') 'grid_check: '//why
    write(0, '(a)') 'usage: grid_check FILE [--need-3d] [--flip i|j|k]... [--span S] [--same-as OTHER] [--blocks]'
    error stop 2, quiet=.true.
  end subroutine usage

  subroutine fail(code, why)
    integer, intent(in) :: code
    character(len=*), intent(in) :: why
    write(0, '(a)') 'grid_check: error: '//why
    if (code == 2) error stop 2, quiet=.true.
    error stop 1, quiet=.true.
  end subroutine fail
end program grid_check
