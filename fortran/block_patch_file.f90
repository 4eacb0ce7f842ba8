!> The boundary patches of a multi-block grid (fortran/blocks_driver.f90):
!> each block's from the case's patch_file, or from a CGNS file's
!> boundary conditions (its zones' BC_t, as grid_blocks' block_bc_t lists
!> them). A multi-block patch file is the one-block form (patch_file.f90)
!> in sections, each opened by a line
!>
!>     block N          ! N = 1 .. the block count, as build/grid_check numbers them
!>
!> whose following lines (up to the next such line) are block N's patches,
!> the cell ranges in its own cells. A face that an interface joins takes
!> no patch; every other face of every block is covered whole, as one
!> block's faces are (periodic pairs come from the case's bc_* keys, for
!> all blocks).
module block_patch_file
  use text_util, only: int_text
  use case_config, only: case_t, case_error
  use solver_params, only: solver_params_t, BC_PERIODIC
  use boundary_patches, only: patch_set_t
  use patch_file, only: patches_from_lines, split_words
  use grid_blocks, only: grid_block_set_t
  use sys_interface, only: regular_file
  implicit none
  private
  public :: block_patch_sets

  integer, parameter :: max_line = 512

contains

  !> ps(b): block b's patches (sp(b): its parameters; joined(:, b): its
  !> faces the interfaces join) from path (a patch file, '' for none) or
  !> from set's boundary conditions. have: either gave any (else ps is
  !> left without patches: the blocks' faces take the bc_* keys). A bad
  !> line or face stops the run (exit 2) naming the file, line and block.
  subroutine block_patch_sets(cs, path, set, sp, joined, ps, have, partly)
    type(case_t), intent(in) :: cs
    character(len=*), intent(in) :: path
    type(grid_block_set_t), intent(in) :: set
    type(solver_params_t), intent(in) :: sp(:)
    logical, intent(in) :: joined(:,:)
    !> present: the faces an interface joins in part (fortran/block_split.f90 cuts them afterwards)
    logical, intent(in), optional :: partly(:,:)
    type(patch_set_t), intent(inout) :: ps(:)
    logical, intent(out) :: have
    character(len=max_line), allocatable :: lines(:)
    character(len=512), allocatable :: wheres(:)
    integer, allocatable :: owner(:)
    character(len=:), allocatable :: origin
    integer :: q
    have = .false.
    if (len(path) > 0) then
      if (allocated(set%bcs)) then
        if (size(set%bcs) > 0) call case_error(set%what//' (its boundary conditions) and patch_file = "'//path// &
          '" both give the boundary patches: leave patch_file out (the file''s BCs are taken), or use a grid file '// &
          'without BCs')
      end if
      call read_sections(path, set%nblocks, lines, wheres, owner)
      origin = 'patch file "'//path//'"'
    else if (allocated(set%bcs)) then
      if (size(set%bcs) == 0) return
      allocate(lines(size(set%bcs)), wheres(size(set%bcs)), owner(size(set%bcs)))
      do q = 1, size(set%bcs)
        lines(q) = set%bcs(q)%line
        wheres(q) = set%bcs(q)%where
        owner(q) = set%bcs(q)%block
        if (set%bcs(q)%thermal == 1 .and. cs%wall_thermal /= 'isothermal') call case_error(trim(wheres(q))// &
          ': an isothermal wall, but wall_thermal = '''//trim(cs%wall_thermal)//''' in the case file')
        if (set%bcs(q)%thermal == 2 .and. cs%wall_thermal /= 'adiabatic') call case_error(trim(wheres(q))// &
          ': a heat-flux wall (taken as adiabatic), but wall_thermal = '''//trim(cs%wall_thermal)// &
          ''' in the case file: set wall_thermal = ''adiabatic''')
      end do
      origin = set%what//' (its boundary conditions)'
    else
      return
    end if
    call patches_of_blocks()
    have = .true.
  contains
    function part_of(b) result(f)
      integer, intent(in) :: b
      logical :: f(6)
      f = .false.
      if (present(partly)) f = partly(:, b)
    end function part_of

    subroutine patches_of_blocks()
      integer :: b
      logical :: ok
      character(len=:), allocatable :: msg
      logical, allocatable :: mine(:)
      do b = 1, set%nblocks
        mine = owner == b
        associate (n => set%blocks(b)%n)
          call patches_from_lines(pack(lines, mine), pack(wheres, mine), origin//', block '//int_text(b), sp(b), &
            sp(b)%bc == BC_PERIODIC, [cs%lid_u, cs%lid_v, cs%lid_w], cs%freestream_alpha, cs%freestream_beta, &
            n(1) - 1, n(2) - 1, n(3) - 1, ps(b), ok, msg, joined=joined(:, b), partly=part_of(b))
        end associate
        if (.not. ok) call case_error(msg)
      end do
    end subroutine patches_of_blocks
  end subroutine block_patch_sets

  !> The patch lines of the file at path, each with where it stands
  !> ('patch file "P", line N') and the block whose section holds it.
  subroutine read_sections(path, nblocks, lines, wheres, owner)
    character(len=*), intent(in) :: path
    integer, intent(in) :: nblocks
    character(len=max_line), allocatable, intent(out) :: lines(:)
    character(len=512), allocatable, intent(out) :: wheres(:)
    integer, allocatable, intent(out) :: owner(:)
    character(len=max_line) :: line
    character(len=64) :: w(12)
    character(len=:), allocatable :: where
    integer :: u, ios, nline, nw, current, b
    allocate(lines(0), wheres(0), owner(0))
    if (.not. regular_file(path)) call case_error('patch file "'//path//'" is missing or not a regular file')
    open(newunit=u, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) call case_error('patch file "'//path//'" cannot be opened')
    nline = 0
    ! a file of one block (a C-grid cut at its wake, fortran/block_split.f90) takes the one-block form too
    current = merge(1, 0, nblocks == 1)
    do
      read(u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      nline = nline + 1
      where = 'patch file "'//path//'", line '//int_text(nline)
      call split_words(line, w, nw)
      if (nw == 0) cycle
      if (w(1) == 'block') then
        read(w(2), *, iostat=ios) b
        if (nw /= 2 .or. ios /= 0 .or. b < 1 .or. b > nblocks .or. verify(trim(w(2)), '0123456789') /= 0) then
          close(u)
          call case_error(where//': "'//trim(line)//'" is not a block''s heading "block N" with N from 1 to '// &
            int_text(nblocks)//' (the grid''s blocks, as build/grid_check numbers them)')
        end if
        current = b
        cycle
      end if
      if (current == 0) then
        close(u)
        call case_error(where//': the grid has '//int_text(nblocks)//' blocks, so its patch file gives each '// &
          'block''s lines under a heading "block N" (N as build/grid_check numbers the blocks); this line comes '// &
          'before the first')
      end if
      lines = [lines, line]
      wheres = [character(len=512) :: wheres, where//' (block '//int_text(current)//')']
      owner = [owner, current]
    end do
    close(u)
  end subroutine read_sections
end module block_patch_file
