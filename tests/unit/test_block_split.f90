!> Interfaces over part of a face cut away (fortran/block_split.f90): a
!> block whose i = 5 face is joined to two blocks, one over nodes j 1..5 and
!> one over j 5..9 (the interfaces found from the coordinates), is cut at
!> j = 5 into two pieces; then every interface joins whole faces, the
!> pieces' nodes are the block's, each keeps its place in the file's block,
!> and the block's patches go to the pieces they reach, clipped (a j = 1
!> wall to the first only, an i = 1 farfield to both); a patch over the
!> joined face is refused. cut_to_count halves the largest block until a
!> set has enough: a block of 16 x 8 x 4 cells with 2 levels asked for 4
!> blocks becomes pieces of 4 x 8 x 4 cells (i, its longest direction,
!> each time: the first on a tie), every cut at an even cell count; a periodic
!> direction is not cut; and it stops where no direction has the 8 cells
!> a halving needs.
program test_block_split
  use kinds, only: rk
  use text_util, only: int_text
  use grid_blocks, only: grid_block_set_t, face_range_t, find_set_interfaces, covers_whole_face, GRID_BLOCKS_OK
  use block_split, only: piece_t, cut_at_face_parts, cut_to_count, split_patches
  use boundary_patches, only: patch_set_t, bc_patch_t
  use solver_params, only: BC_WALL, BC_FARFIELD
  use test_util
  implicit none
  type(grid_block_set_t) :: set
  type(piece_t), allocatable :: pieces(:)
  type(patch_set_t) :: file_ps(3), ps(4)
  logical :: joined(6, 4), whole, ok
  type(face_range_t) :: r
  integer :: status, q, s, ncell(3, 4), b
  character(len=:), allocatable :: msg

  set%what = 'test set'
  set%nblocks = 3
  set%dims = 3
  allocate(set%blocks(3))
  call box(1, [5, 9, 3], [0.0_rk, 0.0_rk])
  call box(2, [5, 5, 3], [4.0_rk, 0.0_rk])
  call box(3, [5, 5, 3], [4.0_rk, 4.0_rk])
  call find_set_interfaces(set, status, msg)
  call check(status == GRID_BLOCKS_OK .and. size(set%interfaces) == 3, 'the finder: 3 interfaces (two over part '// &
    'of block 1''s i = 5 face, one between blocks 2 and 3)')

  call cut_at_face_parts(set, pieces)
  call check(set%nblocks == 4, 'block 1 cut once: 4 blocks ('//int_text(set%nblocks)//')')
  call check(all(set%blocks(1)%n == [5, 5, 3]) .and. all(set%blocks(4)%n == [5, 5, 3]), &
    'the pieces: nodes j 1..5 and 5..9 of block 1')
  call check(pieces(4)%origin == 1 .and. all(pieces(4)%offset == [0, 4, 0]) .and. pieces(1)%origin == 1 .and. &
    all(pieces(1)%offset == 0), 'each piece knows its place in the file''s block')
  call check(all(abs(set%blocks(4)%xyz(2, :, 1, :) - 4.0_rk) < 1.0e-12_rk), 'the second piece starts at y = 4 '// &
    '(the cut''s node plane)')
  whole = size(set%interfaces) == 4
  do q = 1, size(set%interfaces)
    do s = 1, 2
      r = merge(set%interfaces(q)%a, set%interfaces(q)%b, s == 1)
      whole = whole .and. covers_whole_face(r, set%blocks(r%block)%n)
    end do
  end do
  call check(whole, 'every interface joins whole faces (4: two to blocks 2 and 3, the pieces'' own, 2-3)')

  ! patches: block 1's i = 1 face a farfield over j cells 1..6 and a wall over 7..8, its j = 1 face a
  ! wall, its other free faces farfield; blocks 2 and 3 farfield wherever no interface joins them
  file_ps(1)%p = [patch(BC_FARFIELD, 1, [1, 1], [6, 2]), patch(BC_WALL, 1, [7, 1], [8, 2]), &
    patch(BC_WALL, 3, [1, 1], [4, 2]), patch(BC_FARFIELD, 4, [1, 1], [4, 2]), patch(BC_FARFIELD, 5, [1, 1], [4, 8]), &
    patch(BC_FARFIELD, 6, [1, 1], [4, 8])]
  file_ps(2)%p = [patch(BC_FARFIELD, 2, [1, 1], [4, 2]), patch(BC_FARFIELD, 3, [1, 1], [4, 2]), &
    patch(BC_FARFIELD, 5, [1, 1], [4, 4]), patch(BC_FARFIELD, 6, [1, 1], [4, 4])]
  file_ps(3)%p = [patch(BC_FARFIELD, 2, [1, 1], [4, 2]), patch(BC_FARFIELD, 4, [1, 1], [4, 2]), &
    patch(BC_FARFIELD, 5, [1, 1], [4, 4]), patch(BC_FARFIELD, 6, [1, 1], [4, 4])]
  joined = .false.
  do q = 1, size(set%interfaces)
    joined(set%interfaces(q)%a%face + 1, set%interfaces(q)%a%block) = .true.
    joined(set%interfaces(q)%b%face + 1, set%interfaces(q)%b%block) = .true.
  end do
  do b = 1, 4
    ncell(:, b) = set%blocks(b)%n - 1
  end do
  call split_patches(file_ps, pieces, ncell, joined, ps, ok, msg)
  call check(ok, 'every piece''s free faces covered ('//msg//')')
  if (ok) then
    call check(count(ps(1)%p%face == 3) == 1 .and. count(ps(4)%p%face == 3) == 0 .and. &
      count(ps(4)%p%face == 4) == 1 .and. count(ps(1)%p%face == 4) == 0, 'the j = 1 wall goes to the first '// &
      'piece only, the j = 9 farfield to the second only')
    call check(count(ps(1)%p%face == 1) == 1 .and. count(ps(4)%p%face == 1) == 2, 'the i = 1 face''s farfield '// &
      'to both pieces, its wall to the second')
    call check(all(ps(4)%face(1)%id(1:2, :) == ps(4)%face(1)%id(1, 1)) .and. ps(4)%p(ps(4)%face(1)%id(3, 1))%kind &
      == BC_WALL .and. ps(4)%p(ps(4)%face(1)%id(1, 1))%kind == BC_FARFIELD, 'clipped to the second piece''s cells: '// &
      'farfield over its j cells 1..2, wall over 3..4')
  end if
  file_ps(1)%p = [file_ps(1)%p, patch(BC_WALL, 2, [1, 1], [8, 2])]
  call split_patches(file_ps, pieces, ncell, joined, ps, ok, msg)
  call check(.not. ok .and. index(msg, 'an interface joins') > 0, 'a patch over the joined i = 5 face: refused ('// &
    msg//')')
  call halving()
  call test_summary()
contains
  !> cut_to_count on one block of 16 x 8 x 4 cells
  subroutine halving()
    type(piece_t), allocatable :: pc(:)
    integer :: bb, qq, ss
    logical :: even
    call one_block()
    pc = [piece_t(origin=1)]
    call cut_to_count(set, pc, 4, 2, [.false., .false., .false.])
    even = set%nblocks == 4
    do bb = 1, set%nblocks
      even = even .and. all(set%blocks(bb)%n == [5, 9, 5]) .and. all(mod(pc(bb)%offset, 2) == 0) .and. &
        pc(bb)%origin == 1
    end do
    call check(even, 'cut_to_count: 16 x 8 x 4 cells into 4 blocks of 4 x 8 x 4 (i halved each time), at even '// &
      'offsets ('//int_text(set%nblocks)//' blocks)')
    whole = size(set%interfaces) == 3
    do qq = 1, size(set%interfaces)
      do ss = 1, 2
        r = merge(set%interfaces(qq)%a, set%interfaces(qq)%b, ss == 1)
        whole = whole .and. covers_whole_face(r, set%blocks(r%block)%n)
      end do
    end do
    call check(whole, 'cut_to_count: 3 interfaces between the 4 slabs, each over whole faces')
    call one_block()
    pc = [piece_t(origin=1)]
    call cut_to_count(set, pc, 4, 2, [.true., .false., .false.])
    call check(set%nblocks == 2 .and. all(set%blocks(1)%n == [17, 5, 5]), 'cut_to_count: i periodic, so j '// &
      'halved once and nothing more (2 blocks of 16 x 4 x 4 cells; '//int_text(set%nblocks)//')')
    call one_block()
    pc = [piece_t(origin=1)]
    call cut_to_count(set, pc, 100, 2, [.false., .false., .false.])
    call check(set%nblocks == 8, 'cut_to_count: asked for 100, stops at 8 blocks of 4 x 4 x 4 (no direction '// &
      'of 8 cells left; '//int_text(set%nblocks)//')')
  end subroutine halving

  !> set: one block of 16 x 8 x 4 unit cells, no interfaces
  subroutine one_block()
    integer :: st
    character(len=:), allocatable :: m
    deallocate(set%blocks)
    if (allocated(set%interfaces)) deallocate(set%interfaces)
    set%nblocks = 1
    allocate(set%blocks(1))
    call box(1, [17, 9, 5], [0.0_rk, 0.0_rk])
    call find_set_interfaces(set, st, m)
  end subroutine one_block

  !> block b: nodes n, unit spacing from (x0, y0)
  subroutine box(b, n, x0)
    integer, intent(in) :: b, n(3)
    real(rk), intent(in) :: x0(2)
    integer :: i, j, k
    set%blocks(b)%n = n
    allocate(set%blocks(b)%xyz(3, n(1), n(2), n(3)))
    do k = 1, n(3)
      do j = 1, n(2)
        do i = 1, n(1)
          set%blocks(b)%xyz(:, i, j, k) = [x0(1) + i - 1, x0(2) + j - 1, real(k - 1, rk)]
        end do
      end do
    end do
  end subroutine box

  function patch(kind, face, lo, hi) result(p)
    integer, intent(in) :: kind, face, lo(2), hi(2)
    type(bc_patch_t) :: p
    p%kind = kind
    p%face = face
    p%lo = lo
    p%hi = hi
  end function patch
end program test_block_split
