!> The halos of a block across a 1-to-1 interface (grid_blocks'
!> block_interface_t, fortran/block_interfaces.h's convention): the two
!> layers of ghost cells and of ghost nodes beyond the face part that the
!> interface joins come from the neighbouring block's interior, through the
!> interface's transform. The solver over several blocks fills a block's
!> interface ghosts with these where a single grid fills its ghosts from its
!> own interior (the nodes once, so that the ghost cells' metrics are the
!> neighbour's cells' metrics; the state at every stage that needs it).
!>
!> Indices: a block's fields as the solver holds them, cells
!> q(-1:ni+2, -1:nj+2, -1:nk+2, :) (cells 1..n, two ghost layers) and nodes
!> xn(3, -ng:ni+ng, ...) (nodes 0..n). The interfaces number nodes from 1,
!> so node p of an interface is the solver's node p-1, and the cell whose
!> lowest node is p is the solver's cell p: cell c spans interface nodes c
!> and c+1 in each direction, a ghost cell too (cell 0 spans nodes 0 and 1).
!>
!> The map: side a's node p is side b's node q, q(|t(d)|) = b%beg(|t(d)|) +
!> sign(t(d))*(p(d) - a%beg(d)) for each direction d of a (the normal
!> direction included: leaving a through its face enters b through its
!> face); from b to a the inverse transform. A cell maps to the cell between
!> the images of its two nodes in each direction. Edges and corners beyond
!> two faces: where the later face is a block's own, its fill covers them,
!> as for a single grid; beyond an interface and beyond the block's d faces,
!> the edge step (halo_cell_boxes with d > 0) copies them from the
!> neighbour, whose cells there lie beyond its faces of direction |t(d)|:
!> the step runs once those are filled (edge_step), which for faces of
!> different directions, or tangential directions that change places, is
!> later than d. The corners beyond the interface come last, from the
!> neighbour's edges (CORNER_STEP). Beyond two interfaces (a C-grid's
!> trailing edge) only the neighbour across the face of the lowest
!> direction fills an edge or corner.
module block_halos
  use kinds, only: rk, ng
  use grid_blocks, only: block_interface_t, face_range_t
  implicit none
  private
  public :: fill_interface_cells, fill_interface_nodes, interface_image, inverse
  public :: halo_cell_boxes, edge_step, directions_along, copy_cells, pack_cells, unpack_cells
  public :: CORNER_STEP, MAX_HALO_BOXES

  !> halo_cell_boxes' step of the corners, after the three directions' steps
  integer, parameter :: CORNER_STEP = 4
  !> the most boxes one step of one interface side takes (the corners: two
  !> sides in each of two directions)
  integer, parameter :: MAX_HALO_BOXES = 4

contains

  !> Node p of side `from` on side `to` (t: the transform from `from` to `to`).
  pure function interface_image(from, to, t, p) result(q)
    type(face_range_t), intent(in) :: from, to
    integer, intent(in) :: t(3), p(3)
    integer :: q(3), d, e
    do d = 1, 3
      e = abs(t(d))
      q(e) = to%beg(e) + sign(1, t(d))*(p(d) - from%beg(d))
    end do
  end function interface_image

  !> The transform from side b to side a.
  pure function inverse(t) result(u)
    integer, intent(in) :: t(3)
    integer :: u(3), d
    do d = 1, 3
      u(abs(t(d))) = sign(d, t(d))
    end do
  end function inverse

  !> The receiving side (a when into_a, else b), the sending side and the
  !> transform from the receiving side to the sending one.
  subroutine sides(itf, into_a, r, s, t)
    type(block_interface_t), intent(in) :: itf
    logical, intent(in) :: into_a
    type(face_range_t), intent(out) :: r, s
    integer, intent(out) :: t(3)
    if (into_a) then
      r = itf%a; s = itf%b; t = int(itf%transform)
    else
      r = itf%b; s = itf%a; t = inverse(int(itf%transform))
    end if
  end subroutine sides

  !> The lowest and highest index of the receiving side's face part in each
  !> direction, nodes when cells is false, cells when true, with the normal
  !> direction's two layers beyond the face.
  subroutine halo_box(r, n, cells, lo, hi)
    type(face_range_t), intent(in) :: r
    integer, intent(in) :: n(3)        !< the receiving block's nodes
    logical, intent(in) :: cells
    integer, intent(out) :: lo(3), hi(3)
    integer :: d, dn
    dn = r%face/2 + 1
    do d = 1, 3
      lo(d) = min(r%beg(d), r%end(d))
      hi(d) = max(r%beg(d), r%end(d)) - merge(1, 0, cells)
    end do
    if (mod(r%face, 2) == 1) then      ! the max face: beyond node n, cells n and n+1
      lo(dn) = n(dn) + merge(0, 1, cells)
      hi(dn) = n(dn) + merge(1, 2, cells)
    else                               ! the min face: beyond node 1, nodes and cells 0 and -1
      lo(dn) = -1
      hi(dn) = 0
    end if
  end subroutine halo_box

  !> The boxes of the receiving block's cells (side a when into_a, else
  !> side b; n: its nodes in i, j, k; phys: which of its faces, imin, imax,
  !> jmin, ..., its own conditions fill) that a step of its halo fill takes
  !> from the sending block, with the map (r, s, t: the receiving side, the
  !> sending side, the transform from r to s).
  !> - d = 0: the ghost cells beyond the interface (one box).
  !> - d = 1..3, a direction along the interface's face: the edges beyond
  !>   the interface and beyond the block's d faces, where the face part
  !>   reaches them (none to two boxes). The set's fill takes them at step
  !>   edge_step(itf, into_a, d), once the sending block's ghosts they come
  !>   from are filled, so that such an edge holds what the sending block
  !>   has there (at a C-grid's trailing edge, the corner beyond the wake's
  !>   join to the airfoil block and beyond the wake cut is the airfoil
  !>   block's wall ghost, as on the one-block grid).
  !> - d = CORNER_STEP: the corners beyond the interface and beyond faces of
  !>   both directions along it (none to four boxes), from the sending
  !>   block's edges, once every edge is filled: a block's own fills make a
  !>   corner from the edges before it, which beyond an interface whose
  !>   edges come later, or beyond three interfaces, are not there yet
  !>   (where they are, corner_left leaves the corner to them). The
  !>   prolongation's interpolation reads the corners.
  !> An edge or corner beyond two or three interfaces is the box of the one
  !> whose face has the lowest direction only, so that no cell has two
  !> writers. The CPU's loops (copy_cells) and the GPU's copies
  !> (fortran/backend_blocks_gpu.f90) take the same boxes.
  !> corner_left(side1, side2), for d = CORNER_STEP: the corner beyond the
  !> block's faces of the two directions along the interface on those sides
  !> (1: min, 2: max) that the block's own fills already make from final
  !> edges (the set's corner_from_own_fill), whose box is left out.
  subroutine halo_cell_boxes(itf, into_a, n, phys, d, nbox, lo, hi, r, s, t, corner_left)
    type(block_interface_t), intent(in) :: itf
    logical, intent(in) :: into_a, phys(6)
    integer, intent(in) :: n(3), d
    integer, intent(out) :: nbox, lo(3, MAX_HALO_BOXES), hi(3, MAX_HALO_BOXES), t(3)
    type(face_range_t), intent(out) :: r, s
    logical, intent(in), optional :: corner_left(2, 2)
    integer :: flo(3), fhi(3), side, side2, dn, e(2)
    call sides(itf, into_a, r, s, t)
    call halo_box(r, n, .true., flo, fhi)
    dn = r%face/2 + 1
    nbox = 0
    if (d == 0) then
      nbox = 1
      lo(:, 1) = flo
      hi(:, 1) = fhi
    else if (d == CORNER_STEP) then
      e = directions_along(dn)
      do side2 = 1, 2
        do side = 1, 2
          if (.not. (beyond(e(1), side) .and. beyond(e(2), side2))) cycle
          if (present(corner_left)) then
            if (corner_left(side, side2)) cycle
          end if
          nbox = nbox + 1
          lo(:, nbox) = flo
          hi(:, nbox) = fhi
          call ghost_layers(e(1), side, lo(:, nbox), hi(:, nbox))
          call ghost_layers(e(2), side2, lo(:, nbox), hi(:, nbox))
        end do
      end do
    else if (d /= dn) then
      do side = 1, 2
        if (.not. beyond(d, side)) cycle
        nbox = nbox + 1
        lo(:, nbox) = flo
        hi(:, nbox) = fhi
        call ghost_layers(d, side, lo(:, nbox), hi(:, nbox))
      end do
    end if
  contains
    !> the face part reaches the block's face of direction e on side
    !> (1: min, 2: max), and that face is not an interface of a lower
    !> direction than this one's (whose own box takes the cells)
    logical function beyond(e, side)
      integer, intent(in) :: e, side
      if (side == 1) then
        beyond = flo(e) == 1
      else
        beyond = fhi(e) == n(e) - 1
      end if
      if (e < dn) beyond = beyond .and. phys(2*e - 2 + side)
    end function beyond

    !> a box's range in direction e: the two ghost layers on side
    subroutine ghost_layers(e, side, blo, bhi)
      integer, intent(in) :: e, side
      integer, intent(inout) :: blo(3), bhi(3)
      blo(e) = merge(-1, n(e), side == 1)
      bhi(e) = merge(0, n(e) + 1, side == 1)
    end subroutine ghost_layers
  end subroutine halo_cell_boxes

  !> The two directions along a face of direction dn, in increasing order.
  pure function directions_along(dn) result(e)
    integer, intent(in) :: dn
    integer :: e(2)
    e = [merge(2, 1, dn == 1), merge(2, 3, dn == 3)]
  end function directions_along

  !> The step of the set's fill (the direction of its loop) that takes
  !> edge step d of interface itf's receiving side (a when into_a): the
  !> later of d and the direction |t(d)| the sending block's cells run
  !> there, whose ghosts the edge copies. d itself where the two agree
  !> (blocks whose directions line up).
  pure integer function edge_step(itf, into_a, d)
    type(block_interface_t), intent(in) :: itf
    logical, intent(in) :: into_a
    integer, intent(in) :: d
    integer :: t(3)
    t = int(itf%transform)
    if (.not. into_a) t = inverse(t)
    edge_step = max(d, abs(t(d)))
  end function edge_step

  !> Cells lo..hi of q from the cells of qs that the map (r, s, t) gives:
  !> the cell between the images of its lowest and highest node. Both
  !> arrays as the solver holds them (the i extent may be padded). Mirror:
  !> cuda/common/block_halos.h's adi_halo_source_cell.
  subroutine copy_cells(lo, hi, r, s, t, q, qs)
    integer, intent(in) :: lo(3), hi(3), t(3)
    type(face_range_t), intent(in) :: r, s
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), intent(in) :: qs(-1:,-1:,-1:,:)
    integer :: i, j, k, c(3)
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          c = min(interface_image(r, s, t, [i, j, k]), interface_image(r, s, t, [i + 1, j + 1, k + 1]))
          q(i, j, k, :) = qs(c(1), c(2), c(3), :)
        end do
      end do
    end do
  end subroutine copy_cells

  !> copy_cells in two halves, for a receiving block on another process:
  !> buf takes the cells of qs that cells lo..hi take, in the box's order
  !> (i fastest), five values each; unpack_cells puts them in place. Mirror:
  !> cuda/api/block_set.cu's pack and unpack kernels.
  subroutine pack_cells(lo, hi, r, s, t, qs, buf)
    integer, intent(in) :: lo(3), hi(3), t(3)
    type(face_range_t), intent(in) :: r, s
    real(rk), intent(in) :: qs(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: buf(:)
    integer :: i, j, k, c(3), n
    n = 0
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          c = min(interface_image(r, s, t, [i, j, k]), interface_image(r, s, t, [i + 1, j + 1, k + 1]))
          buf(n + 1:n + 5) = qs(c(1), c(2), c(3), 1:5)
          n = n + 5
        end do
      end do
    end do
  end subroutine pack_cells

  subroutine unpack_cells(lo, hi, buf, q)
    integer, intent(in) :: lo(3), hi(3)
    real(rk), intent(in) :: buf(:)
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    integer :: i, j, k, n
    n = 0
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          q(i, j, k, 1:5) = buf(n + 1:n + 5)
          n = n + 5
        end do
      end do
    end do
  end subroutine unpack_cells

  !> The ghost cells of the receiving block (side a when into_a, else side
  !> b; n: its nodes) beyond the interface, every field of q, from the
  !> sending block's cells qs (its interior).
  subroutine fill_interface_cells(itf, into_a, n, q, qs)
    type(block_interface_t), intent(in) :: itf
    logical, intent(in) :: into_a
    integer, intent(in) :: n(3)
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), intent(in) :: qs(-1:,-1:,-1:,:)
    type(face_range_t) :: r, s
    logical, parameter :: own(6) = .true.   ! (the box beyond the interface does not look at them)
    integer :: t(3), nbox, lo(3, MAX_HALO_BOXES), hi(3, MAX_HALO_BOXES)
    call halo_cell_boxes(itf, into_a, n, own, 0, nbox, lo, hi, r, s, t)
    call copy_cells(lo(:, 1), hi(:, 1), r, s, t, q, qs)
  end subroutine fill_interface_cells

  !> The ghost nodes of the receiving block (n: its nodes) beyond the
  !> interface (the two node layers over the face part, its edges included),
  !> from the sending block's nodes xs. Both as the solver holds them.
  subroutine fill_interface_nodes(itf, into_a, n, xn, xs)
    type(block_interface_t), intent(in) :: itf
    logical, intent(in) :: into_a
    integer, intent(in) :: n(3)
    real(rk), intent(inout) :: xn(:,-ng:,-ng:,-ng:)
    real(rk), intent(in) :: xs(:,-ng:,-ng:,-ng:)
    type(face_range_t) :: r, s
    integer :: t(3), lo(3), hi(3), i, j, k, p(3)
    call sides(itf, into_a, r, s, t)
    call halo_box(r, n, .false., lo, hi)
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          p = interface_image(r, s, t, [i, j, k])
          xn(:, i - 1, j - 1, k - 1) = xs(:, p(1) - 1, p(2) - 1, p(3) - 1)
        end do
      end do
    end do
  end subroutine fill_interface_nodes
end module block_halos
