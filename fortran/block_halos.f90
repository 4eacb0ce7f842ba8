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
!> as for a single grid; beyond two interfaces (a C-grid's trailing edge),
!> the edge step (halo_cell_boxes with d > 0) copies them from the neighbour across the earlier
!> one once the neighbour's later ghosts are filled.
module block_halos
  use kinds, only: rk, ng
  use grid_blocks, only: block_interface_t, face_range_t
  implicit none
  private
  public :: fill_interface_cells, fill_interface_nodes, interface_image, inverse
  public :: halo_cell_boxes, fill_halo_step, pack_cells, unpack_cells

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
  !> side b; n: its nodes in i, j, k) that a step of its halo fill takes
  !> from the sending block, with the map (r, s, t: the receiving side, the
  !> sending side, the transform from r to s). d = 0: the ghost cells beyond
  !> the interface (one box). d > 0, a direction along the interface's
  !> face: the edges beyond the interface and beyond the block's d faces,
  !> where the face part reaches them (none to two boxes): the fill of the
  !> step of direction d takes them once every block's d faces are filled,
  !> so that such an edge holds what the sending block has there (at a
  !> C-grid's trailing edge, the corner beyond the wake's join to the
  !> airfoil block and beyond the wake cut is the airfoil block's wall
  !> ghost, as on the one-block grid). The CPU's loops (copy_cells) and the
  !> GPU's copies (fortran/backend_blocks_gpu.f90) take the same boxes.
  subroutine halo_cell_boxes(itf, into_a, n, d, nbox, lo, hi, r, s, t)
    type(block_interface_t), intent(in) :: itf
    logical, intent(in) :: into_a
    integer, intent(in) :: n(3), d
    integer, intent(out) :: nbox, lo(3, 2), hi(3, 2), t(3)
    type(face_range_t), intent(out) :: r, s
    integer :: flo(3), fhi(3), side
    call sides(itf, into_a, r, s, t)
    call halo_box(r, n, .true., flo, fhi)
    nbox = 0
    if (d == 0) then
      nbox = 1
      lo(:, 1) = flo
      hi(:, 1) = fhi
      return
    end if
    if (d == r%face/2 + 1) return
    do side = 1, 2
      if (side == 1 .and. flo(d) /= 1) cycle
      if (side == 2 .and. fhi(d) /= n(d) - 1) cycle
      nbox = nbox + 1
      lo(:, nbox) = flo
      hi(:, nbox) = fhi
      lo(d, nbox) = merge(-1, n(d), side == 1)
      hi(d, nbox) = merge(0, n(d) + 1, side == 1)
    end do
  end subroutine halo_cell_boxes

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
    call fill_halo_step(itf, into_a, n, 0, q, qs)
  end subroutine fill_interface_cells

  !> One step of the receiving block's halo fill (halo_cell_boxes' d) on the host.
  subroutine fill_halo_step(itf, into_a, n, d, q, qs)
    type(block_interface_t), intent(in) :: itf
    logical, intent(in) :: into_a
    integer, intent(in) :: n(3), d
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), intent(in) :: qs(-1:,-1:,-1:,:)
    type(face_range_t) :: r, s
    integer :: t(3), nbox, lo(3, 2), hi(3, 2), m
    call halo_cell_boxes(itf, into_a, n, d, nbox, lo, hi, r, s, t)
    do m = 1, nbox
      call copy_cells(lo(:, m), hi(:, m), r, s, t, q, qs)
    end do
  end subroutine fill_halo_step

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
