!> The checks of a grid read from a file, before any large allocation of the
!> solver: collapsed faces (zero area), zero and negative cell volumes, and
!> the fix of a left-handed grid. Each failure is one sentence naming the
!> block, the cell or face (i,j,k as the file numbers its nodes, from 1) and
!> what is wrong; nothing stops here: the caller gets status 2 and the
!> sentence, and exits before it allocates the flow fields.
!>
!> Volumes and face vectors come from the solver's own formulas
!> (fortran/metrics.f90), so a grid that passes has no cell the solver would
!> see as degenerate. "Zero" is relative: a face whose area is below 1e-12 of
!> its longer diagonal squared (its corners coincide or lie on one line), a
!> cell whose volume is below 1e-12 of the product of its three mean edge
!> lengths (its nodes lie in one plane). A boundary-layer cell of aspect
!> ratio 1e6 is far above both.
module grid_checks
  use kinds, only: rk, ik8, ng
  use text_util, only: int_text, format_real
  use metrics, only: cell_volume, face_vector
  implicit none
  private
  public :: check_grid_cells, grid_cell_stats_t, flip_fix_text, check_periodic_faces

  real(rk), parameter :: degenerate = 1.0e-12_rk

  !> How a user turns a left-handed grid around; one wording for the
  !> message here and the option the driver offers (fortran/grid_file.f90).
  character(len=*), parameter :: flip_fix_text = 'reverse one index direction when writing it, or have '// &
    'the reader reverse it (the case key grid_flip, e.g. grid_flip = ''i'')'

  type :: grid_cell_stats_t
    real(rk) :: vol_min = 0.0_rk, vol_max = 0.0_rk
    integer(ik8) :: ncells = 0
  end type grid_cell_stats_t

contains

  !> The file's node number (1-based) of solver node plane p (0..n) of a
  !> direction with n cells, reversed or not.
  pure integer function file_node(p, n, flipped)
    integer, intent(in) :: p, n
    logical, intent(in) :: flipped
    if (flipped) then
      file_node = n - p + 1
    else
      file_node = p + 1
    end if
  end function file_node

  !> The file's number of solver cell c (1..n): the lower of its two nodes.
  pure integer function file_cell(c, n, flipped)
    integer, intent(in) :: c, n
    logical, intent(in) :: flipped
    file_cell = min(file_node(c - 1, n, flipped), file_node(c, n, flipped))
  end function file_cell

  !> A coordinate or a volume in a message.
  pure function rtoa(v) result(s)
    real(rk), intent(in) :: v
    character(len=:), allocatable :: s
    s = format_real(v, '(es11.4)')
  end function rtoa

  !> Mean of the four edges of cell (i,j,k) in direction d.
  pure function mean_edge(xn, d, i, j, k) result(e)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: d, i, j, k
    real(rk) :: e(3)
    select case (d)
    case (1)
      e = 0.25_rk*(xn(:, i, j-1, k-1) + xn(:, i, j, k-1) + xn(:, i, j-1, k) + xn(:, i, j, k) &
        - xn(:, i-1, j-1, k-1) - xn(:, i-1, j, k-1) - xn(:, i-1, j-1, k) - xn(:, i-1, j, k))
    case (2)
      e = 0.25_rk*(xn(:, i-1, j, k-1) + xn(:, i, j, k-1) + xn(:, i-1, j, k) + xn(:, i, j, k) &
        - xn(:, i-1, j-1, k-1) - xn(:, i, j-1, k-1) - xn(:, i-1, j-1, k) - xn(:, i, j-1, k))
    case default
      e = 0.25_rk*(xn(:, i-1, j-1, k) + xn(:, i, j-1, k) + xn(:, i-1, j, k) + xn(:, i, j, k) &
        - xn(:, i-1, j-1, k-1) - xn(:, i, j-1, k-1) - xn(:, i-1, j, k-1) - xn(:, i, j, k-1))
    end select
  end function mean_edge

  !> Squared length of the longer diagonal of the low face in direction d
  !> of cell (i,j,k) (the corners face_vector in metrics.f90 takes).
  pure real(rk) function diagonal2(xn, d, i, j, k)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: d, i, j, k
    real(rk) :: d1(3), d2(3)
    select case (d)
    case (1)
      d1 = xn(:, i-1, j, k) - xn(:, i-1, j-1, k-1)
      d2 = xn(:, i-1, j-1, k) - xn(:, i-1, j, k-1)
    case (2)
      d1 = xn(:, i, j-1, k) - xn(:, i-1, j-1, k-1)
      d2 = xn(:, i, j-1, k-1) - xn(:, i-1, j-1, k)
    case default
      d1 = xn(:, i, j, k-1) - xn(:, i-1, j-1, k-1)
      d2 = xn(:, i-1, j, k-1) - xn(:, i, j-1, k-1)
    end select
    diagonal2 = max(sum(d1**2), sum(d2**2))
  end function diagonal2

  !> The two faces of each index direction against each other. A direction
  !> declared periodic (declared(d): the pair of bc_* keys) must have its
  !> last node plane one translation away from its first: the same vector
  !> for every node (a channel repeated along x), or the zero vector (a
  !> grid closed on itself, as an O-grid's cut); otherwise the ghost cells
  !> taken from across it would not continue the grid. A direction not
  !> declared whose two node planes coincide node for node is such a cut:
  !> cut(d) is set, for the driver to join it. Nodes coincide, and
  !> translations agree, within 1e-6 of the shortest edge that meets the
  !> faces. status 0, or 2 with the sentence in msg (the file's node
  !> numbers, as check_grid_cells gives them).
  subroutine check_periodic_faces(xn, ni, nj, nk, flip, planar, declared, where, cut, status, msg)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: ni, nj, nk
    logical, intent(in) :: flip(3), planar, declared(3)
    character(len=*), intent(in) :: where
    logical, intent(out) :: cut(3)
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    integer :: n(3), d, a, b, p0(3), p1(3), worst(2)
    real(rk) :: tol, t0(3), t(3), e, dev, far
    character(len=1), parameter :: dn(3) = ['i', 'j', 'k']
    n = [ni, nj, nk]
    cut = .false.
    status = 0
    msg = ''
    do d = 1, 3
      if (planar .and. d == 3) cycle    ! a 2D grid's two z planes are its span apart by construction
      tol = huge(1.0_rk)
      dev = 0.0_rk
      far = 0.0_rk
      worst = 0
      do b = 0, n(other(d, 2))
        do a = 0, n(other(d, 1))
          p0 = node(d, 0, a, b)
          p1 = node(d, n(d), a, b)
          e = min(norm2(xn(:, p0(1), p0(2), p0(3)) - xn(:, p0(1) + dd(d, 1), p0(2) + dd(d, 2), p0(3) + dd(d, 3))), &
                  norm2(xn(:, p1(1), p1(2), p1(3)) - xn(:, p1(1) - dd(d, 1), p1(2) - dd(d, 2), p1(3) - dd(d, 3))))
          tol = min(tol, 1.0e-6_rk*e)
          t = xn(:, p1(1), p1(2), p1(3)) - xn(:, p0(1), p0(2), p0(3))
          if (a == 0 .and. b == 0) t0 = t
          far = max(far, norm2(t))
          if (norm2(t - t0) > dev) then
            dev = norm2(t - t0)
            worst = [a, b]
          end if
        end do
      end do
      if (declared(d) .and. dev > tol) then
        p0 = node(d, 0, worst(1), worst(2))
        p1 = node(d, n(d), worst(1), worst(2))
        status = 2
        msg = where//': bc_'//dn(d)//'min = bc_'//dn(d)//'max = ''periodic'', but its '//dn(d)//' = '// &
          int_text(file_node(0, n(d), flip(d)))//' and '//dn(d)//' = '//int_text(file_node(n(d), n(d), flip(d)))// &
          ' node planes are neither the same nodes (a cut) nor one translation apart: node '//node_text(p0)// &
          ' and node '//node_text(p1)//' are '//vec_text(xn(:, p1(1), p1(2), p1(3)) - xn(:, p0(1), p0(2), p0(3)))// &
          ' apart, the first pair '//vec_text(t0)//'; make the faces match, or give them patches instead'
        return
      end if
      cut(d) = .not. declared(d) .and. far <= tol
    end do

  contains

    !> the two directions across d, in cell_index order
    pure integer function other(d, m)
      integer, intent(in) :: d, m
      integer, parameter :: o(2, 3) = reshape([2, 3, 1, 3, 1, 2], [2, 3])
      other = o(m, d)
    end function other

    !> unit step along d
    pure integer function dd(d, c)
      integer, intent(in) :: d, c
      dd = merge(1, 0, d == c)
    end function dd

    !> solver node (i, j, k) at position p along d and (a, b) across it
    pure function node(d, p, a, b) result(ijk)
      integer, intent(in) :: d, p, a, b
      integer :: ijk(3)
      ijk(d) = p
      ijk(other(d, 1)) = a
      ijk(other(d, 2)) = b
    end function node

    function node_text(p) result(t)
      integer, intent(in) :: p(3)
      character(len=:), allocatable :: t
      t = '('//int_text(file_node(p(1), ni, flip(1)))//','//int_text(file_node(p(2), nj, flip(2)))
      if (.not. planar) t = t//','//int_text(file_node(p(3), nk, flip(3)))
      t = t//')'
    end function node_text

    function vec_text(v) result(t)
      real(rk), intent(in) :: v(3)
      character(len=:), allocatable :: t
      t = '('//rtoa(v(1))//', '//rtoa(v(2))
      if (.not. planar) t = t//', '//rtoa(v(3))
      t = t//')'
    end function vec_text
  end subroutine check_periodic_faces

  !> Checks cells 1..ni x 1..nj x 1..nk of xn (nodes 0..n, ghost nodes
  !> around). flip: the directions the reader reversed (messages give the
  !> file's numbers); planar: a 2D grid made one cell thick (messages name
  !> i,j only). where: 'grid file "name", block 1'. status 0, or 2 with the
  !> sentence in msg.
  subroutine check_grid_cells(xn, ni, nj, nk, flip, planar, where, status, msg, stats)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: ni, nj, nk
    logical, intent(in) :: flip(3), planar
    character(len=*), intent(in) :: where
    integer, intent(out) :: status
    character(len=:), allocatable, intent(out) :: msg
    type(grid_cell_stats_t), intent(out) :: stats
    integer :: i, j, k, d, e(3), n(3), first(3)
    integer(ik8) :: nneg, nzero
    real(rk) :: s(3), v, scale, first_v
    logical :: first_zero
    character(len=1), parameter :: dn(3) = ['i', 'j', 'k']

    status = 0
    msg = ''
    n = [ni, nj, nk]
    ! faces of every cell, the boundary faces included: cell indices up to n+1 in d
    do d = 1, 3
      if (planar .and. d == 3) cycle   ! the span's faces are the cells themselves: their volume says it
      e = 0
      e(d) = 1
      do k = 1, nk + e(3)
        do j = 1, nj + e(2)
          do i = 1, ni + e(1)
            s = face_vector(xn, d, i, j, k)
            if (sqrt(sum(s**2)) > degenerate*diagonal2(xn, d, i, j, k)) cycle
            status = 2
            if (planar) then
              msg = where//': the grid line at '//dn(d)//' = '//face_plane(d, [i, j, k])//' between '// &
                dn(3-d)//' = '//span_text(3-d, [i, j, k])//' has zero length (two nodes coincide): a collapsed '// &
                'cell edge'
            else
              msg = where//': the face at node plane '//dn(d)//' = '//face_plane(d, [i, j, k])//', between '// &
                other_spans(d, [i, j, k])//', has zero area (collapsed: its corners coincide or lie on one line)'
            end if
            return
          end do
        end do
      end do
    end do

    nneg = 0; nzero = 0; first = 0; first_v = 0.0_rk; first_zero = .false.
    stats%vol_min = huge(1.0_rk); stats%vol_max = -huge(1.0_rk)
    stats%ncells = int(ni, ik8)*int(nj, ik8)*int(nk, ik8)
    do k = 1, nk
      do j = 1, nj
        do i = 1, ni
          v = cell_volume(xn, i, j, k)
          stats%vol_min = min(stats%vol_min, v)
          stats%vol_max = max(stats%vol_max, v)
          scale = norm2(mean_edge(xn, 1, i, j, k))*norm2(mean_edge(xn, 2, i, j, k))*norm2(mean_edge(xn, 3, i, j, k))
          if (v > degenerate*scale) cycle
          if (abs(v) <= degenerate*scale) then
            nzero = nzero + 1
          else
            nneg = nneg + 1
          end if
          if (first(1) == 0) then
            first = [i, j, k]
            first_v = v
            first_zero = abs(v) <= degenerate*scale
          end if
        end do
      end do
    end do
    if (nneg + nzero == 0) return
    status = 2
    if (nneg == stats%ncells) then
      if (planar) then
        msg = where//': every cell volume is negative: the 2D grid runs clockwise (i, j and the span '// &
          'direction z form a left-handed system): '//flip_fix_text
      else
        msg = where//': every cell volume is negative: the grid is left-handed (its i, j, k directions '// &
          'form a left-handed system): '//flip_fix_text
      end if
    else if (.not. first_zero) then
      msg = where//': cell '//cell_text(first)//' has a negative volume ('//rtoa(first_v)//'; '// &
        count_text(nneg)//' of '//count_text(stats%ncells)//' cells are negative): the grid folds over '// &
        'itself there (crossing grid lines)'
    else
      msg = where//': cell '//cell_text(first)//' has zero volume ('//rtoa(first_v)//'; its nodes lie in '// &
        'one plane): a degenerate cell ('//count_text(nzero)//' such, '//count_text(nneg)//' negative)'
    end if

  contains

    function count_text(m) result(t)
      integer(ik8), intent(in) :: m
      character(len=:), allocatable :: t
      character(len=24) :: b
      write(b, '(i0)') m
      t = trim(b)
    end function count_text

    !> "i,j,k = 3,4,1" (planar: "i,j = 3,4") in the file's numbering
    function cell_text(c) result(t)
      integer, intent(in) :: c(3)
      character(len=:), allocatable :: t
      if (planar) then
        t = 'i,j = '//int_text(file_cell(c(1), n(1), flip(1)))//','//int_text(file_cell(c(2), n(2), flip(2)))
      else
        t = 'i,j,k = '//int_text(file_cell(c(1), n(1), flip(1)))//','//int_text(file_cell(c(2), n(2), flip(2)))// &
          ','//int_text(file_cell(c(3), n(3), flip(3)))
      end if
    end function cell_text

    !> the file's node number of the low face of cell c in direction dd
    function face_plane(dd, c) result(t)
      integer, intent(in) :: dd, c(3)
      character(len=:), allocatable :: t
      t = int_text(file_node(c(dd) - 1, n(dd), flip(dd)))
    end function face_plane

    !> "3..4": the file's nodes of cell c in direction dd
    function span_text(dd, c) result(t)
      integer, intent(in) :: dd, c(3)
      character(len=:), allocatable :: t
      integer :: lo
      lo = file_cell(c(dd), n(dd), flip(dd))
      t = int_text(lo)//'..'//int_text(lo + 1)
    end function span_text

    !> "j = 3..4, k = 1..2" for a face normal to dd
    function other_spans(dd, c) result(t)
      integer, intent(in) :: dd, c(3)
      character(len=:), allocatable :: t
      integer :: a, b
      a = merge(2, 1, dd == 1)
      b = merge(2, 3, dd == 3)
      t = dn(a)//' = '//span_text(a, c)//', '//dn(b)//' = '//span_text(b, c)
    end function other_spans
  end subroutine check_grid_cells
end module grid_checks
