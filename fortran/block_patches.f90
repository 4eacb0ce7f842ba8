!> The boundary patches of one block of a grid decomposed in j and k
!> (build/adiflow_mpi, fortran/mpi_decomp.f90): the grid's patch set seen
!> through the block's window, so that the serial fill
!> (boundary_conditions' fill_patch_direction) run on the block gives every
!> cell the value the whole grid's fill gives it.
!>
!> What must match is the kind and the normal each ghost takes. The fill
!> gives a ghost row beyond a face's cells the patch and normal of the
!> nearest mapped cell (boundary_patches' nearest_mapped_cell). At the
!> grid's edge that is the face's first or last cell, the same in both; at a
!> block boundary inside the face the whole grid's nearest cell is the
!> neighbour's, one or two cells on. So a block's map reaches that far, into
!> the ghost rows its halos hold (their face vectors are the grid's too: the
!> metrics are pointwise on the grid's nodes), and ends where the grid's
!> face ends. A sum over a patch's faces (the force history) takes the
!> block's own cells only (own_cells), so that each face counts once.
module block_patches
  use, intrinsic :: iso_c_binding, only: c_int
  use kinds, only: ng
  use boundary_patches, only: patch_set_t, face_sizes
  implicit none
  private
  public :: window_patches, own_cells

contains

  !> local: the patches of the block of nloc cells at offset off (global
  !> cell = local cell + off) of the grid whose patch set is global (face
  !> maps built: read_patch_file, coarsen_patches). phys(f): the block's
  !> face f lies on the grid's face f; its other faces are halos and get an
  !> empty map (the fill never reads it). The patches keep the grid's
  !> numbers, kinds and values; lo and hi become the block's cells of the
  !> patch within its map (lo > hi where the patch misses the block).
  subroutine window_patches(global, off, nloc, phys, local)
    type(patch_set_t), intent(in) :: global
    integer, intent(in) :: off(3), nloc(3)
    logical, intent(in) :: phys(6)
    type(patch_set_t), intent(out) :: local
    integer :: f, n, ob, oc, nb, nc, lo(2), hi(2)
    local%p = global%p
    do f = 1, 6
      if (.not. phys(f)) then
        allocate(local%face(f)%id(1:0, 1:0))
        cycle
      end if
      ! the permutations that give a face's cell counts give its offsets too
      call face_sizes(f, off(1), off(2), off(3), ob, oc)
      call face_sizes(f, nloc(1), nloc(2), nloc(3), nb, nc)
      ! the block's cells and the ghost rows beside them, within the grid's face
      lo = max(1 - ng, 1 - [ob, oc])
      hi = min([nb, nc] + ng, ubound(global%face(f)%id) - [ob, oc])
      allocate(local%face(f)%id(lo(1):hi(1), lo(2):hi(2)))
      local%face(f)%id = global%face(f)%id(lo(1)+ob:hi(1)+ob, lo(2)+oc:hi(2)+oc)
    end do
    do n = 1, size(local%p)
      associate (p => local%p(n))
        if (.not. phys(p%face)) then
          p%lo = 1
          p%hi = 0
          cycle
        end if
        call face_sizes(p%face, off(1), off(2), off(3), ob, oc)
        p%lo = int(max(p%lo - [ob, oc], lbound(local%face(p%face)%id)), c_int)
        p%hi = int(min(p%hi - [ob, oc], ubound(local%face(p%face)%id)), c_int)
      end associate
    end do
  end subroutine window_patches

  !> The patches of a block's window (window_patches) cut to the block's own
  !> cells (nloc): the ghost rows the window reaches are the neighbours'
  !> cells, which a sum over the blocks must not count twice.
  function own_cells(local, nloc) result(own)
    type(patch_set_t), intent(in) :: local
    integer, intent(in) :: nloc(3)
    type(patch_set_t) :: own
    integer :: n, nb, nc
    own = local
    do n = 1, size(own%p)
      associate (p => own%p(n))
        call face_sizes(p%face, nloc(1), nloc(2), nloc(3), nb, nc)
        p%lo = int(max(p%lo, 1), c_int)
        p%hi = int(min(p%hi, [nb, nc]), c_int)
      end associate
    end do
  end function own_cells
end module block_patches
