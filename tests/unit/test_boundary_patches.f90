!> Boundary patches (fortran/boundary_patches.f90) and their ghost fill
!> (boundary_conditions' apply_boundary_patches):
!>  - the face maps refuse gaps, overlaps, ranges outside a face and a face
!>    that is periodic in part, with messages that name the face and cells;
!>  - coarsening halves the ranges along the directions that coarsen and
!>    refuses a patch edge inside a coarse cell; the levels' sets stop where
!>    a patch does not coarsen, and say which;
!>  - a block's window of the patches (block_patches) maps its cells and the
!>    halo rows beside them to the grid's patches, up to the grid's edge;
!>  - the box's walls, lid and periodic pairs written as patches (each face
!>    split in several) fill every ghost cell with the same bits as the box's
!>    own fill;
!>  - on a curved grid a slip face reflects about the face's own normal, and
!>    a farfield all around keeps a uniform free stream in every ghost cell.
program test_boundary_patches
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use boundary_patches
  use flow_math, only: prim_to_cons
  use boundary_states, only: slip_ghost_state
  use boundary_conditions
  use block_patches, only: window_patches
  use grid_generation, only: generate_nodes
  use metrics, only: compute_metrics
  use case_setup
  use test_util
  implicit none

  call check_face_maps()
  call check_coarsening()
  call check_level_sets()
  call check_block_window()
  call check_box_as_patches()
  call check_curved_grid()
  call test_summary()

contains

  function patch(kind, face, lo1, hi1, lo2, hi2) result(p)
    integer, intent(in) :: kind, face, lo1, hi1, lo2, hi2
    type(bc_patch_t) :: p
    p%kind = kind
    p%face = face
    p%lo = [lo1, lo2]
    p%hi = [hi1, hi2]
  end function patch

  !> Six whole faces of one kind on an ni x nj x nk block.
  function whole_faces(kinds, ni, nj, nk) result(ps)
    integer, intent(in) :: kinds(6), ni, nj, nk
    type(patch_set_t) :: ps
    integer :: f, nb, nc
    allocate(ps%p(6))
    do f = 1, 6
      call face_sizes(f, ni, nj, nk, nb, nc)
      ps%p(f) = patch(kinds(f), f, 1, nb, 1, nc)
    end do
  end function whole_faces

  subroutine expect_refusal(ps, ni, nj, nk, words, name)
    type(patch_set_t), intent(inout) :: ps
    integer, intent(in) :: ni, nj, nk
    character(len=*), intent(in) :: words, name
    logical :: ok
    character(len=:), allocatable :: msg
    call build_face_maps(ps, ni, nj, nk, ok, msg)
    call check(.not. ok .and. index(msg, words) > 0, name//': "'//msg//'"')
  end subroutine expect_refusal

  subroutine check_face_maps()
    type(patch_set_t) :: ps
    logical :: ok
    character(len=:), allocatable :: msg
    integer, parameter :: w = BC_WALL
    ! imin split in j into a wall and an inflow, the rest whole faces
    ps = whole_faces([w, w, w, w, w, w], 8, 6, 4)
    ps%p = [ps%p(2:6), patch(BC_WALL, 1, 1, 2, 1, 4), patch(BC_INFLOW, 1, 3, 6, 1, 4)]
    call build_face_maps(ps, 8, 6, 4, ok, msg)
    call check(ok .and. ps%face(1)%id(2, 4) == 6 .and. ps%face(1)%id(3, 1) == 7 .and. all(ps%face(3)%id == 2), &
      'face maps: a face split in two maps each cell to its patch')
    ps%p(7)%lo(1) = 4
    call expect_refusal(ps, 8, 6, 4, 'face imin: 4 boundary cells are covered by no patch, the first at (3,1)', &
      'a gap is refused, naming the face, the count and the first cell')
    ps%p(7)%lo(1) = 2
    call expect_refusal(ps, 8, 6, 4, 'face imin: patches 6 and 7 overlap at cell (2,1)', &
      'an overlap is refused, naming both patches and the cell')
    ps%p(7)%lo(1) = 3; ps%p(7)%hi(1) = 7
    call expect_refusal(ps, 8, 6, 4, 'patch 7 on face imin: cells 3..7 x 1..4 are not a range inside the face (1..6 x 1..4)', &
      'a range outside the face is refused')
    ps = whole_faces([BC_PERIODIC, BC_PERIODIC, w, w, w, w], 8, 6, 4)
    ps%p = [ps%p(2:6), patch(BC_PERIODIC, 1, 1, 2, 1, 4), patch(BC_WALL, 1, 3, 6, 1, 4)]
    call expect_refusal(ps, 8, 6, 4, 'face imin: a periodic face must be periodic as a whole', &
      'a face periodic in part is refused')
    ps = whole_faces([BC_PERIODIC, w, w, w, w, w], 8, 6, 4)
    call expect_refusal(ps, 8, 6, 4, 'and so must the face opposite (imax)', 'a periodic face without its pair is refused')
  end subroutine check_face_maps

  subroutine check_coarsening()
    type(patch_set_t) :: ps, pc
    logical :: ok
    character(len=:), allocatable :: msg
    integer, parameter :: w = BC_WALL
    ps = whole_faces([w, w, w, w, w, w], 8, 8, 1)
    ps%p = [ps%p(2:6), patch(BC_WALL, 1, 1, 4, 1, 1), patch(BC_OUTFLOW, 1, 5, 8, 1, 1)]
    call build_face_maps(ps, 8, 8, 1, ok, msg)
    call coarsen_patches(ps, [8, 8, 1], [2, 2, 1], pc, ok, msg)
    call check(ok .and. all(pc%p(7)%lo == [3, 1]) .and. all(pc%p(7)%hi == [4, 1]) .and. &
      all(pc%face(1)%id(:, 1) == [6, 6, 7, 7]), 'coarsening halves a patch along j and keeps k (not coarsened)')
    ps%p(6)%hi(1) = 3; ps%p(7)%lo(1) = 4
    call build_face_maps(ps, 8, 8, 1, ok, msg)
    call coarsen_patches(ps, [8, 8, 1], [2, 2, 1], pc, ok, msg)
    call check(.not. ok .and. index(msg, 'patch 6 on face imin (cells 1..3 x 1..1) has an edge inside a coarse cell') > 0, &
      'a patch edge inside a coarse cell stops the hierarchy, naming the patch: "'//msg//'"')
    call coarsen_patches(ps, [8, 8, 1], [1, 1, 1], pc, ok, msg)
    call check(ok, 'the same patches pass a level that does not coarsen across them')
  end subroutine check_coarsening

  !> The levels' patch sets: as many as coarsen, the cut said in the note.
  subroutine check_level_sets()
    type(patch_set_t) :: ps
    type(patch_set_t), allocatable :: sets(:)
    logical :: ok
    character(len=:), allocatable :: msg, note
    integer :: nlev
    integer, parameter :: w = BC_WALL
    ! imin split at j = 2|3: coarsens to 4 x 4 (1|2), not to 2 x 2
    ps = whole_faces([w, w, w, w, w, w], 8, 8, 8)
    ps%p = [ps%p(2:6), patch(BC_WALL, 1, 1, 2, 1, 8), patch(BC_SLIP, 1, 3, 8, 1, 8)]
    call build_face_maps(ps, 8, 8, 8, ok, msg)
    nlev = 4
    note = 'earlier note'
    call coarse_patch_sets(ps, reshape([8, 8, 8, 4, 4, 4, 2, 2, 2, 1, 1, 1], [3, 4]), &
      reshape([1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 4]), nlev, note, sets)
    call check(nlev == 2 .and. size(sets) == 2 .and. all(sets(2)%face(1)%id(:, 1) == [6, 7, 7, 7]) .and. &
      index(note, 'earlier note; the patches stop coarsening at level 2: patch 6 on face imin (cells 1..1 x 1..4)') == 1, &
      'coarse_patch_sets: two levels, the second halved, the cut said after the plan''s note: "'//note//'"')
  end subroutine check_level_sets

  !> A block of a 6 x 12 x 8 grid at offsets (0, 6, 3), 6 x 6 x 3 cells:
  !> at the grid's jmax face, inside the grid below in j and on both sides in k.
  subroutine check_block_window()
    type(patch_set_t) :: ps, bp
    logical :: ok
    character(len=:), allocatable :: msg
    integer :: b, c
    integer, parameter :: w = BC_WALL
    ps = whole_faces([w, w, w, w, w, w], 6, 12, 8)
    ! imin split in j at 6|7 (the block's lower edge) and in k at 4|5
    ps%p = [ps%p(2:6), patch(BC_WALL, 1, 1, 6, 1, 8), patch(BC_SLIP, 1, 7, 12, 1, 4), patch(BC_INFLOW, 1, 7, 12, 5, 8)]
    call build_face_maps(ps, 6, 12, 8, ok, msg)
    call window_patches(ps, [0, 6, 3], [6, 6, 3], [.true., .true., .false., .true., .false., .false.], bp)
    ok = all(lbound(bp%face(1)%id) == [-1, -1]) .and. all(ubound(bp%face(1)%id) == [6, 5])
    do c = -1, 5
      do b = -1, 6
        ok = ok .and. bp%face(1)%id(b, c) == ps%face(1)%id(b + 6, c + 3)
      end do
    end do
    call check(ok, 'block window: imin maps the block''s cells, two halo rows below in j and each side in k, and ends at the grid''s jmax')
    call check(size(bp%face(3)%id) == 0 .and. size(bp%face(5)%id) == 0 .and. size(bp%face(6)%id) == 0 .and. &
      all(lbound(bp%face(4)%id) == [1, -1]) &
      .and. all(ubound(bp%face(4)%id) == [6, 5]), 'block window: faces inside the grid get empty maps, i is never cut')
    ! the wall below the block lies in its halo rows (j = -1, 0)
    call check(all(bp%p(6)%lo == [-1, -1]) .and. all(bp%p(6)%hi == [0, 5]) .and. all(bp%p(7)%lo == [1, -1]) .and. &
      all(bp%p(7)%hi == [6, 1]) .and. all(bp%p(8)%lo == [1, 2]) .and. all(bp%p(8)%hi == [6, 5]) .and. &
      bp%p(8)%kind == BC_INFLOW, 'block window: the patches keep their numbers and kinds, their cells moved into the block')
    call check(all(bp%p(2)%hi < bp%p(2)%lo) .and. all(bp%p(5)%hi < bp%p(5)%lo) .and. size(bp%p) == size(ps%p), &
      'block window: a patch on a face inside the grid (jmin, kmax) covers no cell of the block')
  end subroutine check_block_window

  !> Random interior state, then the box fill and the patch fill on copies.
  subroutine check_box_as_patches()
    type(case_t) :: cs
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f
    type(patch_set_t) :: ps
    real(rk), allocatable :: qa(:,:,:,:), qb(:,:,:,:)
    logical :: ok
    character(len=:), allocatable :: msg
    integer :: f6, nb, nc, h
    cs%ni = 9; cs%nj = 7; cs%nk = 6
    cs%bc_imin = 'periodic'; cs%bc_imax = 'periodic'
    cs%bc_jmin = 'wall'; cs%bc_jmax = 'lid'
    cs%bc_kmin = 'wall'; cs%bc_kmax = 'wall'
    cs%lid_u = 1.0_rk; cs%lid_w = 0.25_rk
    call setup_case(cs, lay, sp, f)
    call random_seed(put=[(1234 + f6, f6 = 1, 64)])
    call random_number(f%q)
    f%q(:,:,:,1) = 0.5_rk + f%q(:,:,:,1)
    f%q(:,:,:,5) = 40.0_rk + f%q(:,:,:,5)
    ! each non-periodic face split in two patches of its own kind along its first direction
    allocate(ps%p(0))
    do f6 = 1, 6
      call face_sizes(f6, lay%ni, lay%nj, lay%nk, nb, nc)
      h = nb/2
      ps%p = [ps%p, patch(sp%bc(f6), f6, 1, h, 1, nc), patch(sp%bc(f6), f6, h + 1, nb, 1, nc)]
      if (sp%bc(f6) == BC_LID) then
        ps%p(size(ps%p) - 1)%v(1:3) = [sp%lid_u, sp%lid_v, sp%lid_w]
        ps%p(size(ps%p))%v(1:3) = [sp%lid_u, sp%lid_v, sp%lid_w]
      end if
    end do
    call build_face_maps(ps, lay%ni, lay%nj, lay%nk, ok, msg)
    call check(ok, 'the box (periodic in i, walls and a lid) as 12 patches: accepted')
    qa = f%q
    qb = f%q
    call apply_boundary_conditions(sp, lay, qa)
    call apply_boundary_patches(sp, lay, ps, f%sf, qb)
    call check(all(transfer(qa, 1_8, size(qa)) == transfer(qb, 1_8, size(qb))), &
      'the box written as patches fills every ghost cell with the same bits as the box fill')
  end subroutine check_box_as_patches

  !> On a curved grid: slip faces reflect about their own normals, and a
  !> farfield all around keeps a uniform free stream in every ghost cell.
  subroutine check_curved_grid()
    type(case_t) :: cs
    type(layout_t) :: lay
    type(solver_params_t) :: sp
    type(fields_t) :: f
    type(patch_set_t) :: ps
    real(rk) :: q0(5), qg(5), s(3), worst, mn, x, y, z
    real(rk), allocatable :: xn(:,:,:,:)
    logical :: ok
    character(len=:), allocatable :: msg
    integer :: i, j, k, m, kinds(6)
    cs%ni = 10; cs%nj = 8; cs%nk = 6
    cs%mach = 0.3_rk
    call setup_case(cs, lay, sp, f)
    ! a box bent so that no face is a plane: x' = x + y^2/4 + z/10, y' = y + xz/5
    call generate_nodes(cs, xn)
    do k = lbound(xn, 4), ubound(xn, 4)
      do j = lbound(xn, 3), ubound(xn, 3)
        do i = lbound(xn, 2), ubound(xn, 2)
          x = xn(1, i, j, k); y = xn(2, i, j, k); z = xn(3, i, j, k)
          xn(1, i, j, k) = x + 0.25_rk*y*y + 0.1_rk*z
          xn(2, i, j, k) = y + 0.2_rk*x*z
        end do
      end do
    end do
    call compute_metrics(lay, xn, f%sf, f%sc, f%vol, f%xc)
    call prim_to_cons(sp, 1.0_rk, 0.8_rk, -0.3_rk, 0.2_rk, 1.0_rk/sp%gm2, q0)
    do m = 1, 5
      f%q(:,:,:,m) = q0(m)
    end do
    kinds = BC_FARFIELD
    ps = whole_faces(kinds, lay%ni, lay%nj, lay%nk)
    do m = 1, 6
      ps%p(m)%v(1:5) = [1.0_rk, 0.8_rk, -0.3_rk, 0.2_rk, 1.0_rk/sp%gm2]
    end do
    call build_face_maps(ps, lay%ni, lay%nj, lay%nk, ok, msg)
    call apply_boundary_patches(sp, lay, ps, f%sf, f%q)
    worst = 0.0_rk
    do m = 1, 5
      worst = max(worst, maxval(abs(f%q(:,:,:,m) - q0(m)))/abs(q0(m)))
    end do
    call check_close(worst, 0.0_rk, 1.0e-14_rk, 'farfield on every face of a bent grid keeps a uniform free stream')
    ! slip on imin: the ghost of cell (1, j, k) reflects it about the outward normal -sf/|sf|
    ps%p(1)%kind = BC_SLIP
    call random_number(f%q(:,:,:,2:4))
    call apply_boundary_patches(sp, lay, ps, f%sf, f%q)
    worst = 0.0_rk
    call check(maxval(abs(f%sf(1, 1:lay%nj, 1:lay%nk, 2))) > 1.0e-3_rk, 'the bent imin face is not a plane of constant x')
    do k = 1, lay%nk
      do j = 1, lay%nj
        s = -f%sf(1, j, k, 1:3)
        s = s/sqrt(s(1)*s(1) + s(2)*s(2) + s(3)*s(3))
        call slip_ghost_state(s(1), s(2), s(3), f%q(1, j, k, :), qg)
        worst = max(worst, maxval(abs(f%q(0, j, k, :) - qg)))
        mn = dot_product(f%q(0, j, k, 2:4) + f%q(1, j, k, 2:4), s)
        worst = max(worst, abs(mn))
      end do
    end do
    call check_close(worst, 0.0_rk, 1.0e-14_rk, &
      'slip face on a bent grid: ghost = interior reflected about the face normal, normal momenta cancel')
  end subroutine check_curved_grid
end program test_boundary_patches
