!> A grid from a Plot3D file (one block, whole format): the Fortran side of
!> the reader in fortran/plot3d_file.c (which finds the encoding, precision
!> and byte order from the bytes), turned into the solver's node layout,
!> xn(1:3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng), nodes 0..n per direction with
!> the ghost nodes filled as grid_generation fills them, and checked
!> (fortran/grid_checks.f90).
!>
!> The driver calls probe_grid_file first (the header only: the cell counts,
!> for the case's checks and the memory estimate), then read_grid_file,
!> which reads the coordinates and checks every cell. Neither stops: each
!> returns status 0, or GRID_BAD_INPUT (2, the exit code of bad input) with
!> a sentence naming the file, the block and the node, cell or face. So the
!> driver exits 2 before it allocates any flow field.
!>
!> A file of several blocks is read and checked as build/grid_check reads
!> it (fortran/grid_blocks.f90: its blocks and their interfaces), then
!> refused with the count of its blocks: this reader gives one block (a
!> driver that runs several asks for the count first: grid_source's
!> take_grid_sizes, fortran/blocks_driver.f90).
!>
!> A 2D grid (x, y), or a 3D file of one k-plane of constant z, becomes one
!> cell thick, quasi-2D as the 2D cavity decks are: its nodes at z0 and
!> z0 + span (span 1 by default, so that forces come per unit span). Node
!> i of the file (1-based) is node i-1 of the solver; cell i of the solver
!> lies between the file's nodes i and i+1.
module grid_file
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_int, c_char, c_double, c_size_t, c_null_char
  use kinds, only: rk, ik8, ng
  use sys_interface, only: c_text
  use text_util, only: int_text, format_real
  use grid_generation, only: fill_ghost_nodes
  use grid_checks, only: check_grid_cells, grid_cell_stats_t, check_periodic_faces
  use grid_blocks, only: grid_block_set_t, count_grid_blocks, read_grid_blocks, GRID_BLOCKS_OK, plot3d_layout_t, &
    adi_p3d_describe
  implicit none
  private
  public :: grid_read_options_t, grid_file_info_t, probe_grid_file, read_grid_file, check_extent, lay_out_nodes, finish_nodes
  public :: GRID_OK, GRID_BAD_INPUT

  integer, parameter :: GRID_OK = 0, GRID_BAD_INPUT = 2
  !> more nodes in a direction than any grid the solver takes (4096 cells)
  !> by far; also keeps the counts within default integers
  integer(ik8), parameter :: max_nodes = 1000000_ik8

  !> How to read the grid (the driver fills it from the case file).
  type :: grid_read_options_t
    logical :: need_3d = .false.        !< refuse a 2D grid (the case is 3D)
    logical :: flip(3) = .false.        !< reverse i, j, k (turns a left-handed grid around)
    real(rk) :: span = 1.0_rk           !< thickness of a 2D grid's one cell
    logical :: periodic(3) = .false.    !< ghost nodes as periodic images in i, j, k
  end type grid_read_options_t

  !> What the file holds.
  type :: grid_file_info_t
    integer :: ni = 0, nj = 0, nk = 0   !< cells as the solver takes them
    logical :: planar = .false.         !< a 2D grid, made one cell thick
    character(len=:), allocatable :: format   !< "Plot3D 3D, raw binary (no record markers), ..."
    real(rk) :: vol_min = 0.0_rk, vol_max = 0.0_rk
    logical :: cut(3) = .false.         !< i, j, k faces not declared periodic whose nodes coincide (read_grid_file)
    type(plot3d_layout_t) :: layout
  end type grid_file_info_t

  interface
    integer(c_int) function adi_p3d_probe(path, lay, msg, msglen) bind(c, name='adi_p3d_probe')
      import :: c_int, c_char, c_size_t, plot3d_layout_t
      character(kind=c_char), intent(in) :: path(*)
      type(plot3d_layout_t), intent(out) :: lay
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
    integer(c_int) function adi_p3d_read(path, lay, xyz, nvalues, msg, msglen) bind(c, name='adi_p3d_read')
      import :: c_int, c_char, c_size_t, c_double, c_int64_t, plot3d_layout_t
      character(kind=c_char), intent(in) :: path(*)
      type(plot3d_layout_t), intent(in) :: lay
      real(c_double), intent(out) :: xyz(*)
      integer(c_int64_t), value :: nvalues
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_size_t), value :: msglen
    end function
  end interface

  integer, parameter :: msg_chars = 8192

contains

  function where_text(path) result(s)
    character(len=*), intent(in) :: path
    character(len=:), allocatable :: s
    s = 'grid file "'//trim(path)//'", block 1'
  end function where_text

  !> The header: cell counts and the format; nothing large is allocated.
  subroutine probe_grid_file(path, opts, info, status, msg)
    character(len=*), intent(in) :: path
    type(grid_read_options_t), intent(in) :: opts
    type(grid_file_info_t), intent(out) :: info
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    character(kind=c_char) :: cmsg(msg_chars), cdesc(400)
    integer(ik8) :: nb
    type(grid_block_set_t) :: set

    status = GRID_OK
    msg = ''
    if (adi_p3d_probe(trim(path)//c_null_char, info%layout, cmsg, int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BAD_INPUT
      msg = c_text(cmsg)
      nb = count_grid_blocks(path)
      if (nb > 1) then
        ! a multi-block file: read and checked as build/grid_check does, then refused
        ! (a one-block reader), so that both say the same about it
        call read_grid_blocks(path, set, status, msg)
        if (status == GRID_BLOCKS_OK) msg = 'grid file "'//trim(path)//'" holds '//int_text(nb)// &
          ' blocks (a multi-block grid), read and checked: '//int_text(size(set%interfaces))// &
          ' 1-to-1 interface(s) between them (build/grid_check lists them), but adiflow_mpi runs one block: '// &
          'build/adiflow solves the blocks together (on the CPU), or write one block as a file of its own'
        status = GRID_BAD_INPUT
      end if
      return
    end if
    call adi_p3d_describe(info%layout, cdesc, int(size(cdesc), c_size_t))
    info%format = c_text(cdesc)
    call check_extent(where_text(path), info%layout%n, int(info%layout%dims), opts, info, status, msg)
  end subroutine probe_grid_file

  !> A grid of n nodes in i, j, k with dims coordinates (a Plot3D block, a
  !> CGNS zone): its cells into info (ni, nj, nk; planar: a 2D grid, one
  !> cell of the span thick), and the checks of its size against the limit
  !> and the case (a 3D case, a k reversal, the span). where: the file as
  !> messages name it.
  subroutine check_extent(where, n, dims, opts, info, status, msg)
    character(len=*), intent(in) :: where
    integer(c_int64_t), intent(in) :: n(3)
    integer, intent(in) :: dims
    type(grid_read_options_t), intent(in) :: opts
    type(grid_file_info_t), intent(inout) :: info
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    status = GRID_OK
    msg = ''
    if (any(n > max_nodes)) then
      status = GRID_BAD_INPUT
      msg = where//': '//int_text(n(1))//' x '//int_text(n(2))//' x '//int_text(n(3))// &
        ' nodes: more than '//int_text(max_nodes)//' in a direction'
      return
    end if
    info%planar = dims == 2 .or. n(3) == 1
    info%ni = int(n(1)) - 1
    info%nj = int(n(2)) - 1
    info%nk = merge(1, int(n(3)) - 1, info%planar)
    if (opts%need_3d .and. info%planar) then
      status = GRID_BAD_INPUT
      if (dims == 2) then
        msg = where//' is a 2D grid (x, y only), but this case needs a 3D grid'
      else
        msg = where//' holds one k-plane of nodes (a 2D grid), but this case needs a 3D grid'
      end if
      return
    end if
    if (info%planar .and. opts%flip(3)) then
      status = GRID_BAD_INPUT
      msg = where//' is a 2D grid: it has no k direction to reverse (reverse i or j)'
    else if (.not. (opts%span > 0.0_rk .and. opts%span <= huge(1.0_rk))) then
      status = GRID_BAD_INPUT
      msg = 'the span of a 2D grid must be a number > 0'
    end if
  end subroutine check_extent

  !> Reads, lays out and checks the grid. xn is allocated here:
  !> xn(1:3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng).
  subroutine read_grid_file(path, opts, xn, info, status, msg)
    character(len=*), intent(in) :: path
    type(grid_read_options_t), intent(in) :: opts
    real(rk), allocatable, intent(out) :: xn(:,:,:,:)
    type(grid_file_info_t), intent(out) :: info
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    real(c_double), allocatable :: xyz(:)
    character(kind=c_char) :: cmsg(msg_chars)
    integer(ik8) :: nn
    integer :: dims, st

    call probe_grid_file(path, opts, info, status, msg)
    if (status /= GRID_OK) return
    dims = int(info%layout%dims)
    nn = product(info%layout%n)
    allocate(xyz(dims*nn), stat=st)
    if (st /= 0) then
      status = GRID_BAD_INPUT
      msg = where_text(path)//': no memory for its '//int_text(nn)//' nodes'
      return
    end if
    if (adi_p3d_read(trim(path)//c_null_char, info%layout, xyz, int(dims*nn, c_int64_t), cmsg, &
        int(msg_chars, c_size_t)) /= 0) then
      status = GRID_BAD_INPUT
      msg = c_text(cmsg)
      return
    end if
    call lay_out_nodes(where_text(path), xyz, dims, info%layout%n, opts, info, xn, status, msg)
    if (status == GRID_OK) call finish_nodes(where_text(path), opts, info, xn, status, msg)
  end subroutine read_grid_file

  !> A file's nodes xyz (dims values a node, each coordinate's block of
  !> n(1) x n(2) x n(3) nodes with i fastest: Plot3D's and CGNS's order) laid
  !> out as the solver's xn(1:3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng) (the
  !> options' reversals; a 2D grid one cell of the span thick), then its
  !> periodic pairs checked and its cuts found (info%cut). where: the file
  !> as messages name it. xyz is released; xn too on a failure.
  subroutine lay_out_nodes(where, xyz, dims, n, opts, info, xn, status, msg)
    character(len=*), intent(in) :: where
    real(c_double), allocatable, intent(inout) :: xyz(:)
    integer, intent(in) :: dims
    integer(c_int64_t), intent(in) :: n(3)
    type(grid_read_options_t), intent(in) :: opts
    type(grid_file_info_t), intent(inout) :: info
    real(rk), allocatable, intent(out) :: xn(:,:,:,:)
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    integer(ik8) :: nn, m, n1, n2
    integer :: ni, nj, nk, i, j, k, p(3), st
    real(rk) :: z0
    status = GRID_OK
    ni = info%ni; nj = info%nj; nk = info%nk
    n1 = n(1); n2 = n(2); nn = n1*n2*n(3)
    z0 = 0.0_rk
    if (info%planar .and. dims == 3) then
      ! a 3D file of one k-plane must be a plane of constant z
      z0 = xyz(2*nn + 1)
      do m = 1, nn
        if (xyz(2*nn + m) /= z0) then
          status = GRID_BAD_INPUT
          msg = where//': its one k-plane is not a plane of constant z (node i,j = '// &
            int_text(mod(m - 1, n1) + 1)//','//int_text((m - 1)/n1 + 1)//' has z = '//format_real(xyz(2*nn + m), '(es22.15)')// &
            ', node 1,1 has '//format_real(z0, '(es22.15)')//'): a 2D grid must lie in a plane z = constant'
          return
        end if
      end do
    end if
    allocate(xn(3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng), stat=st)
    if (st /= 0) then
      status = GRID_BAD_INPUT
      msg = where//': no memory for its '//int_text(nn)//' nodes'
      return
    end if

    xn = 0.0_rk
    if (info%planar) then
      do j = 0, nj
        do i = 0, ni
          m = 1 + node_index(i, ni, opts%flip(1)) + n1*node_index(j, nj, opts%flip(2))
          do k = 0, 1
            xn(1, i, j, k) = xyz(m)
            xn(2, i, j, k) = xyz(nn + m)
          end do
          xn(3, i, j, 0) = z0
          xn(3, i, j, 1) = z0 + opts%span
        end do
      end do
    else
      do k = 0, nk
        do j = 0, nj
          do i = 0, ni
            p = [node_index(i, ni, opts%flip(1)), node_index(j, nj, opts%flip(2)), node_index(k, nk, opts%flip(3))]
            m = 1 + p(1) + n1*(p(2) + n2*p(3))
            xn(:, i, j, k) = [xyz(m), xyz(nn + m), xyz(2*nn + m)]
          end do
        end do
      end do
    end if
    deallocate(xyz)
    ! the periodic pairs declared must match; a pair of faces that coincide is a cut,
    ! whose ghost nodes come from across it like a declared pair's
    call check_periodic_faces(xn, ni, nj, nk, [opts%flip(1), opts%flip(2), opts%flip(3) .and. .not. info%planar], &
      info%planar, opts%periodic, where, info%cut, status, msg)
    if (status /= GRID_OK) deallocate(xn)
  end subroutine lay_out_nodes

  !> The ghost nodes of laid-out nodes xn (periodic images and cuts as
  !> lay_out_nodes found them) and the cell checks; the cell volumes' range
  !> into info. xn is released on a failure.
  subroutine finish_nodes(where, opts, info, xn, status, msg)
    character(len=*), intent(in) :: where
    type(grid_read_options_t), intent(in) :: opts
    type(grid_file_info_t), intent(inout) :: info
    real(rk), allocatable, intent(inout) :: xn(:,:,:,:)
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(grid_cell_stats_t) :: stats
    call fill_ghost_nodes(xn, info%ni, info%nj, info%nk, opts%periodic .or. info%cut)
    call check_grid_cells(xn, info%ni, info%nj, info%nk, [opts%flip(1), opts%flip(2), opts%flip(3) .and. &
      .not. info%planar], info%planar, where, status, msg, stats)
    info%vol_min = stats%vol_min
    info%vol_max = stats%vol_max
    if (status /= GRID_OK) deallocate(xn)
  end subroutine finish_nodes

  !> The file's node (0-based) of solver node p of a direction of n cells.
  pure integer function node_index(p, n, flipped)
    integer, intent(in) :: p, n
    logical, intent(in) :: flipped
    node_index = merge(n - p, p, flipped)
  end function node_index
end module grid_file
