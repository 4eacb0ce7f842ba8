!> Where a run's grid comes from: the box the solver generates
!> (grid_generation: cavity or wavy), or the user's Plot3D file (grid_file,
!> read by fortran/grid_file.f90) or CGNS file (a name ending in .cgns, one
!> structured zone: fortran/cgns_grid.f90). The drivers ask here for the cell counts
!> (before the case's checks and the memory estimate) and for the nodes
!> (before any flow field is allocated); a bad file stops the run with exit 2
!> and the reader's sentence, which names the file, the block and the node,
!> cell or face.
module grid_source
  use, intrinsic :: iso_fortran_env, only: output_unit
  use kinds, only: rk, ik8, ng
  use text_util, only: int_text
  use case_config, only: case_t, case_error
  use grid_generation, only: generate_nodes
  use grid_file, only: grid_read_options_t, grid_file_info_t, probe_grid_file, read_grid_file, GRID_OK
  use cgns_grid, only: is_cgns_name, probe_cgns_grid, read_cgns_grid
  use cgns_blocks, only: count_block_file
  use grid_blocks, only: grid_block_set_t, GRID_BLOCKS_OK, find_set_interfaces, covers_whole_face, range_text
  implicit none
  private
  public :: take_grid_sizes, make_grid_nodes, join_cuts, grid_origin_text, beside_case, read_options

  character(len=1), parameter :: dirs(3) = ['i', 'j', 'k']

contains

  !> With grid_file set: the file's path made relative to the case file's
  !> folder (where a deck and its grid travel together), and the cell counts
  !> from the file's header into cs%ni, nj, nk (the file decides them; ni,
  !> nj, nk of the case file are not read).
  !> nblocks: the file's block count (1 without a file), and for a file of
  !> several blocks nothing else (the sizes are the blocks';
  !> fortran/blocks_driver.f90 reads them).
  subroutine take_grid_sizes(cs, case_path, nblocks)
    type(case_t), intent(inout) :: cs
    character(len=*), intent(in) :: case_path
    integer, intent(out) :: nblocks
    type(grid_file_info_t) :: info
    integer :: status
    character(len=:), allocatable :: msg, path
    nblocks = 1
    if (len_trim(cs%grid_file) == 0) return
    path = beside_case(cs%grid_file, case_path)
    if (len(path) > len(cs%grid_file)) call case_error('grid_file = "'//trim(cs%grid_file)//'" in the folder of '// &
      trim(case_path)//' makes a path of more than 256 characters: give a shorter one')
    cs%grid_file = path
    if (cs%grid_type /= 'cavity') call case_error('grid_type = "'//trim(cs%grid_type)//'" and grid_file = "'// &
      trim(cs%grid_file)//'" both name a grid: leave grid_type at cavity with a grid file')
    nblocks = int(max(count_block_file(trim(cs%grid_file)), 1_ik8))
    if (nblocks > 1) return
    if (is_cgns_name(cs%grid_file)) then
      call probe_cgns_grid(trim(cs%grid_file), read_options(cs), info, status, msg)
    else
      call probe_grid_file(trim(cs%grid_file), read_options(cs), info, status, msg)
    end if
    if (status /= GRID_OK) call case_error(msg)
    cs%ni = info%ni
    cs%nj = info%nj
    cs%nk = info%nk
  end subroutine take_grid_sizes

  !> Whether a one-block Plot3D grid is joined to itself other than by a
  !> periodic cut (two opposite faces whole, node for node, which the
  !> one-block path joins): a C-grid's wake cut, over part of a face. The
  !> one-block path would give that part a boundary condition where the
  !> flow crosses it; the drivers run such a grid over blocks instead
  !> (fortran/blocks_driver.f90, which cuts it at the part's ends). The
  !> faces of the nodes just read (xn: n cells, ghosts included) are matched
  !> as build/grid_check --blocks matches them; a grid whose faces cannot be
  !> matched (nodes that almost coincide, say) runs as before.
  logical function joined_in_part(path, xn, n)
    character(len=*), intent(in) :: path
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: n(3)
    type(grid_block_set_t) :: set
    integer :: status, q
    character(len=:), allocatable :: msg
    joined_in_part = .false.
    set%what = 'grid file "'//path//'"'
    set%nblocks = 1
    set%dims = 3
    allocate(set%blocks(1))
    set%blocks(1)%n = n + 1
    set%blocks(1)%xyz = xn(:, 0:n(1), 0:n(2), 0:n(3))
    call find_set_interfaces(set, status, msg)
    if (status /= GRID_BLOCKS_OK) return
    do q = 1, size(set%interfaces)
      associate (t => set%interfaces(q))
        if (t%a%face/2 == t%b%face/2 .and. t%a%face /= t%b%face .and. all(t%transform == [1, 2, 3]) .and. &
            covers_whole_face(t%a, n + 1) .and. covers_whole_face(t%b, n + 1)) cycle
        joined_in_part = .true.
      end associate
    end do
  end function joined_in_part

  !> The nodes of the grid, ghost nodes included, checked cell by cell
  !> when they come from a file. cuts(d): the file's two d-faces coincide
  !> node for node and were not declared periodic (a grid closed on
  !> itself); a driver that passes cuts joins them (join_cuts), one that
  !> does not stops with the keys that declare them.
  !> in_part: the grid is joined to itself over part of a face
  !> (joined_in_part): the driver runs it over blocks.
  subroutine make_grid_nodes(cs, xn, cuts, in_part)
    type(case_t), intent(in) :: cs
    real(rk), allocatable, intent(out) :: xn(:,:,:,:)
    logical, intent(out), optional :: cuts(3)
    logical, intent(out) :: in_part
    type(grid_file_info_t) :: info
    integer :: status, d
    character(len=:), allocatable :: msg
    if (present(cuts)) cuts = .false.
    in_part = .false.
    if (len_trim(cs%grid_file) == 0) then
      call generate_nodes(cs, xn)
      return
    end if
    if (is_cgns_name(cs%grid_file)) then
      call read_cgns_grid(trim(cs%grid_file), read_options(cs), xn, info, status, msg)
    else
      call read_grid_file(trim(cs%grid_file), read_options(cs), xn, info, status, msg)
      if (status == GRID_OK) in_part = joined_in_part(trim(cs%grid_file), xn, [info%ni, info%nj, info%nk])
    end if
    if (status /= GRID_OK) call case_error(msg)
    if (in_part) return
    if (present(cuts)) then
      cuts = info%cut
    else
      do d = 1, 3
        if (info%cut(d)) call case_error(cut_text(cs, d)//': declare it with bc_'//dirs(d)// &
          'min = ''periodic'', bc_'//dirs(d)//'max = ''periodic''')
      end do
    end if
  end subroutine make_grid_nodes

  !> A cut the reader found becomes the periodic pair of its direction
  !> (the ghost nodes already come from across it), and the run says so
  !> under the driver's name prog ('adiflow' when absent; '' says nothing:
  !> the MPI ranks but rank 0).
  subroutine join_cuts(cs, cuts, prog)
    type(case_t), intent(inout) :: cs
    logical, intent(in) :: cuts(3)
    character(len=*), intent(in), optional :: prog
    character(len=:), allocatable :: who
    integer :: d
    who = 'adiflow'
    if (present(prog)) who = prog
    do d = 1, 3
      if (.not. cuts(d)) cycle
      select case (d)
      case (1); cs%bc_imin = 'periodic'; cs%bc_imax = 'periodic'
      case (2); cs%bc_jmin = 'periodic'; cs%bc_jmax = 'periodic'
      case (3); cs%bc_kmin = 'periodic'; cs%bc_kmax = 'periodic'
      end select
      if (len(who) > 0) write(output_unit, '(a)') who//': '//cut_text(cs, d)//': joined, as bc_'//dirs(d)// &
        'min = bc_'//dirs(d)//'max = ''periodic'' would'
    end do
  end subroutine join_cuts

  function cut_text(cs, d) result(s)
    type(case_t), intent(in) :: cs
    integer, intent(in) :: d
    character(len=:), allocatable :: s
    integer :: n(3)
    n = [cs%ni, cs%nj, cs%nk]
    s = 'grid file "'//trim(cs%grid_file)//'": its '//dirs(d)//' = 1 and '//dirs(d)//' = '//int_text(n(d) + 1)// &
      ' node planes coincide node for node, a periodic cut'
  end function cut_text

  !> A file named in the case: a relative path is taken from the case
  !> file's folder, where a deck and its grid and patches travel together.
  function beside_case(name, case_path) result(path)
    character(len=*), intent(in) :: name, case_path
    character(len=:), allocatable :: path
    integer :: slash
    path = trim(name)
    slash = index(case_path, '/', back=.true.)
    if (path(1:1) /= '/' .and. slash > 0) path = case_path(1:slash)//path
  end function beside_case

  !> The header's word on a grid from a file (nothing for the generated box).
  function grid_origin_text(cs) result(s)
    type(case_t), intent(in) :: cs
    character(len=:), allocatable :: s
    s = ''
    if (len_trim(cs%grid_file) > 0) s = ' from '//trim(cs%grid_file)
  end function grid_origin_text

  !> The reader's options from the case: ghost nodes as periodic images
  !> where the boundary pair is periodic, the flip asked for, the span of a
  !> 2D grid.
  function read_options(cs) result(o)
    type(case_t), intent(in) :: cs
    type(grid_read_options_t) :: o
    o%periodic = [cs%bc_imin == 'periodic', cs%bc_jmin == 'periodic', cs%bc_kmin == 'periodic']
    o%flip = [cs%grid_flip == 'i', cs%grid_flip == 'j', cs%grid_flip == 'k']
    o%span = cs%grid_span
    o%need_3d = .false.
  end function read_options
end module grid_source
