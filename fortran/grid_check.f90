!> grid_check: reads a Plot3D grid file with the solver's reader and checks
!> it, as a run would before it allocates anything (fortran/grid_file.f90):
!> what the file is, its sizes, its cell volumes; exit 2 with the reason
!> otherwise. The hostile-input suite drives the reader through it
!> (tests/hostile/grid_files.sh).
!>
!>   grid_check FILE [--need-3d] [--flip i|j|k]... [--span S] [--same-as OTHER]
!>
!> --same-as OTHER: both files must hold the same node coordinates, bit for
!> bit (exit 1 naming the first node that differs).
program grid_check
  use kinds, only: rk
  use grid_file
  implicit none
  type(grid_read_options_t) :: opts
  type(grid_file_info_t) :: info, other_info
  real(rk), allocatable :: xn(:,:,:,:), xo(:,:,:,:)
  character(len=:), allocatable :: path, other, msg, arg
  integer :: status, a, nargs, i, j, k
  real(rk) :: span
  character(len=64) :: b

  nargs = command_argument_count()
  path = ''
  other = ''
  a = 1
  do while (a <= nargs)
    arg = argument(a)
    select case (arg)
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
    write(0, '(a)') 'usage: grid_check FILE [--need-3d] [--flip i|j|k]... [--span S] [--same-as OTHER]'
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
