!> Boundary patches: each of the six faces of a block split into rectangular
!> cell ranges, each with its own boundary type and values.
!>
!> A patch names its face (1..6: imin, imax, jmin, jmax, kmin, kmax) and a
!> range of cells in the face's two tangential directions, in the order
!> cell_index (boundary_conditions) uses: for an i-face (j, k), for a j-face
!> (i, k), for a k-face (i, j). build_face_maps checks that every boundary
!> cell of a face is covered by exactly one patch, and gives each face a map
!> from its cells to their patch, which the ghost fill reads. The checks
!> return a message for the driver to stop with (exit 2) before the solver
!> allocates its fields.
!>
!> Multigrid: a coarse cell is made of fine cells 2c-1 and 2c in each
!> direction that coarsens, so a patch coarsens where it starts on an odd
!> cell and ends on an even one; otherwise coarsen_patches names the patch
!> that stops the hierarchy at that level; coarse_patch_sets gives every
!> level's set and cuts the hierarchy there.
!>
!> The ghost rows across a face (beyond its first and last cell) take the
!> patch and the normal of the nearest cell of the face map
!> (nearest_mapped_cell). A grid's map covers its face; the map of a block
!> of a decomposed grid (block_patches) also covers the ghost rows its
!> neighbours hold, so that they take the cells the whole grid's fill gives them.
module boundary_patches
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  use kinds, only: rk
  use text_util, only: int_text
  use solver_params, only: BC_WALL, BC_LID, BC_PERIODIC, BC_SLIP, BC_SYMMETRY, BC_FARFIELD, BC_INFLOW, &
                           BC_OUTFLOW, BC_SUPERSONIC_INFLOW, BC_SUPERSONIC_OUTFLOW, NPATCH_VALUES
  implicit none
  private
  public :: bc_patch_t, face_map_t, patch_set_t, NPATCH_VALUES
  public :: face_sizes, build_face_maps, coarsen_patches, coarse_patch_sets, nearest_mapped_cell, joined_face_maps
  public :: patch_kind_name, face_name

  ! The kinds (BC_*) and NPATCH_VALUES are rows of include/adiflow_params.def,
  ! shared with C; C's twin of bc_patch_t is adi_bc_patch
  ! (include/adiflow_patches.h: the GPU backend takes the patches as they are).
  !> v(:) of a patch, by kind: lid: wall velocity u, v, w; farfield and
  !> supersonic inflow: rho, u, v, w, p of the state outside; inflow: p0,
  !> t0 and the unit direction; outflow: p.
  type, bind(c) :: bc_patch_t
    integer(c_int) :: kind = BC_WALL
    integer(c_int) :: face = 0
    integer(c_int) :: lo(2) = 0, hi(2) = 0   !< first and last cell in the face's two directions
    real(c_double) :: v(NPATCH_VALUES) = 0.0_rk
  end type bc_patch_t

  type :: face_map_t
    !> patch number of each boundary cell of the face: id(1:nb, 1:nc) for
    !> a grid; a block's map may start below 1 and end beyond its cells
    !> (block_patches), an empty one for a face inside the grid
    integer(c_int), allocatable :: id(:,:)
  end type face_map_t

  type :: patch_set_t
    type(bc_patch_t), allocatable :: p(:)
    type(face_map_t) :: face(6)
    !> faces an interface joins to another block of a multi-block grid
    !> (fortran/backend_blocks.f90): they take no patch, and their maps stay
    !> all zero (the fill never reads them)
    logical :: joined(6) = .false.
    !> faces an interface joins in part (a file block before it is cut at
    !> the part's ends, fortran/block_split.f90): their patches may leave
    !> the joined cells uncovered
    logical :: partly(6) = .false.
  end type patch_set_t

  character(len=4), parameter :: face_names(6) = ['imin', 'imax', 'jmin', 'jmax', 'kmin', 'kmax']

contains

  pure function face_name(face) result(s)
    integer, intent(in) :: face
    character(len=4) :: s
    s = face_names(face)
  end function face_name

  pure function patch_kind_name(kind) result(s)
    integer, intent(in) :: kind
    character(len=:), allocatable :: s
    select case (kind)
    case (BC_WALL); s = 'wall'
    case (BC_LID); s = 'lid'
    case (BC_PERIODIC); s = 'periodic'
    case (BC_SLIP); s = 'slip'
    case (BC_SYMMETRY); s = 'symmetry'
    case (BC_FARFIELD); s = 'farfield'
    case (BC_INFLOW); s = 'inflow'
    case (BC_OUTFLOW); s = 'outflow'
    case (BC_SUPERSONIC_INFLOW); s = 'supersonic_inflow'
    case (BC_SUPERSONIC_OUTFLOW); s = 'supersonic_outflow'
    case default; s = 'unknown'
    end select
  end function patch_kind_name

  !> Cell counts of a face's two tangential directions (cell_index order).
  pure subroutine face_sizes(face, ni, nj, nk, nb, nc)
    integer, intent(in) :: face, ni, nj, nk
    integer, intent(out) :: nb, nc
    select case ((face + 1)/2)
    case (1); nb = nj; nc = nk
    case (2); nb = ni; nc = nk
    case default; nb = ni; nc = nj
    end select
  end subroutine face_sizes

  !> The face maps of ps for a block of ni x nj x nk cells; ok false and msg
  !> set at the first patch out of range, overlap, gap or half-periodic face.
  subroutine build_face_maps(ps, ni, nj, nk, ok, msg)
    type(patch_set_t), intent(inout) :: ps
    integer, intent(in) :: ni, nj, nk
    logical, intent(out) :: ok
    character(len=:), allocatable, intent(out) :: msg
    integer :: f, n, nb, nc, b, c, gaps, b1, c1
    character(len=200) :: m
    ok = .true.
    msg = ''
    do f = 1, 6
      call face_sizes(f, ni, nj, nk, nb, nc)
      if (allocated(ps%face(f)%id)) deallocate(ps%face(f)%id)
      allocate(ps%face(f)%id(nb, nc), source=0_c_int)
    end do
    do n = 1, size(ps%p)
      associate (p => ps%p(n))
        if (p%face < 1 .or. p%face > 6) then
          write(m, '(a,i0,a,i0,a)') 'patch ', n, ': face ', p%face, ' is not a face (use imin, imax, jmin, jmax, kmin or kmax)'
          call fail(m); return
        end if
        if (ps%joined(p%face)) then
          write(m, '(a,i0,a)') 'patch ', n, ': face '//face_names(p%face)//' is joined to another block by a '// &
            '1-to-1 interface and takes no patch'
          call fail(m); return
        end if
        call face_sizes(p%face, ni, nj, nk, nb, nc)
        if (any(p%lo < 1) .or. p%hi(1) > nb .or. p%hi(2) > nc .or. any(p%lo > p%hi)) then
          write(m, '(a,i0,a,a,a,4(i0,a),a,i0,a,i0,a)') 'patch ', n, ' on face ', face_names(p%face), ': cells ', &
            p%lo(1), '..', p%hi(1), ' x ', p%lo(2), '..', p%hi(2), ' are not a range inside the face', &
            ' (1..', nb, ' x 1..', nc, ')'
          call fail(m); return
        end if
        do c = p%lo(2), p%hi(2)
          do b = p%lo(1), p%hi(1)
            if (ps%face(p%face)%id(b, c) /= 0) then
              write(m, '(a,a,a,i0,a,i0,a,i0,a,i0,a)') 'face ', face_names(p%face), ': patches ', &
                ps%face(p%face)%id(b, c), ' and ', n, ' overlap at cell (', b, ',', c, ')'
              call fail(m); return
            end if
            ps%face(p%face)%id(b, c) = int(n, c_int)
          end do
        end do
      end associate
    end do
    do f = 1, 6
      if (ps%joined(f) .or. ps%partly(f)) cycle
      gaps = count(ps%face(f)%id == 0)
      if (gaps > 0) then
        call first_zero(ps%face(f)%id, b1, c1)
        write(m, '(a,a,a,i0,a,i0,a,i0,a)') 'face ', face_names(f), ': ', gaps, &
          ' boundary cells are covered by no patch, the first at (', b1, ',', c1, ')'
        call fail(m); return
      end if
      ! a periodic face is periodic all over, and so is the face opposite
      if (periodic_cells(ps, f) > 0 .and. (periodic_cells(ps, f) < size(ps%face(f)%id) .or. &
          periodic_cells(ps, opposite(f)) < size(ps%face(opposite(f))%id))) then
        call fail('face '//face_names(f)//': a periodic face must be periodic as a whole, and so must the face '// &
          'opposite ('//face_names(opposite(f))//')')
        return
      end if
    end do
  contains
    subroutine fail(text)
      character(len=*), intent(in) :: text
      ok = .false.
      msg = trim(text)
    end subroutine fail
  end subroutine build_face_maps

  !> The six face maps one after another (imin, imax, jmin, jmax, kmin,
  !> kmax), each in its element order: as the GPU backend takes them
  !> (include/adiflow_patches.h).
  pure function joined_face_maps(ps) result(maps)
    type(patch_set_t), intent(in) :: ps
    integer(c_int), allocatable :: maps(:)
    integer :: f
    maps = [(ps%face(f)%id, f = 1, 6)]
  end function joined_face_maps

  !> The cell (bb, cc) of the face map nearest to (b, c): (b, c) itself
  !> inside the map, the map's edge for a ghost row beyond it. The GPU's
  !> twin (cuda/common/boundary_patches.h) clamps to 1..nb, 1..nc: a grid's
  !> map, the only kind it takes (the GPU blocks of adiflow_mpi take none).
  pure subroutine nearest_mapped_cell(map, b, c, bb, cc)
    type(face_map_t), intent(in) :: map
    integer, intent(in) :: b, c
    integer, intent(out) :: bb, cc
    bb = min(max(b, lbound(map%id, 1)), ubound(map%id, 1))
    cc = min(max(c, lbound(map%id, 2)), ubound(map%id, 2))
  end subroutine nearest_mapped_cell

  pure integer function opposite(face)
    integer, intent(in) :: face
    opposite = face + 1 - 2*modulo(face + 1, 2)
  end function opposite

  !> Boundary cells of a face whose patch is periodic.
  pure integer function periodic_cells(ps, face)
    type(patch_set_t), intent(in) :: ps
    integer, intent(in) :: face
    integer :: b, c
    periodic_cells = 0
    do c = 1, size(ps%face(face)%id, 2)
      do b = 1, size(ps%face(face)%id, 1)
        if (ps%p(ps%face(face)%id(b, c))%kind == BC_PERIODIC) periodic_cells = periodic_cells + 1
      end do
    end do
  end function periodic_cells

  pure subroutine first_zero(id, b1, c1)
    integer(c_int), intent(in) :: id(:,:)
    integer, intent(out) :: b1, c1
    integer :: b, c
    b1 = 0; c1 = 0
    do c = 1, size(id, 2)
      do b = 1, size(id, 1)
        if (id(b, c) == 0) then
          b1 = b; c1 = c
          return
        end if
      end do
    end do
  end subroutine first_zero

  !> The two grid directions across a face, in cell_index order.
  pure function across(face) result(dirs)
    integer, intent(in) :: face
    integer :: dirs(2)
    select case ((face + 1)/2)
    case (1); dirs = [2, 3]
    case (2); dirs = [1, 3]
    case default; dirs = [1, 2]
    end select
  end function across

  !> The patches of the next coarser level, whose cells are those of the
  !> fine level nf(3) merged ratio(d) (1 or 2: multigrid_levels' plan) at a
  !> time; ok false, with the patch that does not coarsen in msg, where a
  !> patch edge falls inside a coarse cell.
  subroutine coarsen_patches(fine, nf, ratio, coarse, ok, msg)
    type(patch_set_t), intent(in) :: fine
    integer, intent(in) :: nf(3), ratio(3)
    type(patch_set_t), intent(out) :: coarse
    logical, intent(out) :: ok
    character(len=:), allocatable, intent(out) :: msg
    integer :: n, a, dirs(2), r
    character(len=240) :: m
    ok = .true.
    msg = ''
    coarse%p = fine%p
    coarse%joined = fine%joined
    do n = 1, size(fine%p)
      dirs = across(fine%p(n)%face)
      do a = 1, 2
        r = ratio(dirs(a))
        if (r == 1) cycle
        if (modulo(fine%p(n)%lo(a), 2) /= 1 .or. modulo(fine%p(n)%hi(a), 2) /= 0) then
          write(m, '(a,i0,a,a,a,4(i0,a))') 'patch ', n, ' on face ', face_names(fine%p(n)%face), &
            ' (cells ', fine%p(n)%lo(1), '..', fine%p(n)%hi(1), ' x ', fine%p(n)%lo(2), '..', fine%p(n)%hi(2), &
            ') has an edge inside a coarse cell: a patch coarsens where it starts on an odd cell and ends on an even one'
          ok = .false.
          msg = trim(m)
          return
        end if
        coarse%p(n)%lo(a) = (fine%p(n)%lo(a) + 1)/2
        coarse%p(n)%hi(a) = fine%p(n)%hi(a)/2
      end do
    end do
    call build_face_maps(coarse, nf(1)/ratio(1), nf(2)/ratio(2), nf(3)/ratio(3), ok, msg)
  end subroutine coarsen_patches

  !> The patch sets of the multigrid levels planned with cell counts
  !> sizes(:, l) and ratios ratios(:, l) (multigrid_levels' plan_levels):
  !> sets(1) = ps, sets(l) coarsened from sets(l-1). The hierarchy stops
  !> above the first level a patch does not coarsen to: nlev is cut there
  !> and note (the plan's) says which patch and why.
  subroutine coarse_patch_sets(ps, sizes, ratios, nlev, note, sets)
    type(patch_set_t), intent(in) :: ps
    integer, intent(in) :: sizes(:,:), ratios(:,:)
    integer, intent(inout) :: nlev
    character(len=:), allocatable, intent(inout) :: note
    type(patch_set_t), allocatable, intent(out) :: sets(:)
    type(patch_set_t), allocatable :: tmp(:)
    character(len=:), allocatable :: why
    logical :: ok
    integer :: l
    allocate(sets(nlev))
    sets(1) = ps
    do l = 2, nlev
      call coarsen_patches(sets(l-1), sizes(:, l-1), ratios(:, l), sets(l), ok, why)
      if (.not. ok) then
        if (.not. allocated(note)) note = ''
        if (len_trim(note) > 0) note = trim(note)//'; '
        note = note//'the patches stop coarsening at level '//int_text(l-1)//': '//why
        nlev = l - 1
        tmp = sets(1:nlev)
        call move_alloc(tmp, sets)
        exit
      end if
    end do
  end subroutine coarse_patch_sets
end module boundary_patches
