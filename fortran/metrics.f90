!> Finite-volume metrics from node coordinates: face area vectors, cell
!> volumes, cell-centred metric vectors and cell centres.
!>
!> sf(:,:,:, c + 3*(d-1)) is component c of the area vector of the LOW face
!> of each cell in direction d (between cell-1 and cell), pointing towards
!> increasing index. sc(..., c + 3*(d-1)) is the mean of a cell's low and high
!> face vectors in direction d: the k = grad(xi)*vol vector of the ADI
!> eigen-decomposition and the cross-derivative metric of the viscous terms.
!> Face vectors are half the cross product of the face diagonals, so each
!> closed cell sums its six face vectors to zero up to round-off, which is
!> what keeps a uniform stream uniform on a curved grid.
module metrics
  use kinds, only: rk, ng
  use grid_layout, only: layout_t
  use omp_policy, only: team_for
  use first_touch, only: zero_field
  implicit none
  private
  public :: compute_metrics, cell_centre, cell_volume, face_vector

contains

  !> Area vector of the low face in direction d of cell (i,j,k): node plane
  !> (i-1 | j-1 | k-1) in that direction.
  pure function face_vector(xn, d, i, j, k) result(s)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: d, i, j, k
    real(rk) :: s(3), d1(3), d2(3)
    select case (d)
    case (1)   ! plane i-1; diagonals in (j,k)
      d1 = xn(:, i-1, j, k) - xn(:, i-1, j-1, k-1)
      d2 = xn(:, i-1, j-1, k) - xn(:, i-1, j, k-1)
    case (2)   ! plane j-1; diagonals in (k,i)
      d1 = xn(:, i, j-1, k) - xn(:, i-1, j-1, k-1)
      d2 = xn(:, i, j-1, k-1) - xn(:, i-1, j-1, k)
    case default   ! plane k-1; diagonals in (i,j)
      d1 = xn(:, i, j, k-1) - xn(:, i-1, j-1, k-1)
      d2 = xn(:, i-1, j, k-1) - xn(:, i, j-1, k-1)
    end select
    s(1) = 0.5_rk*(d1(2)*d2(3) - d1(3)*d2(2))
    s(2) = 0.5_rk*(d1(3)*d2(1) - d1(1)*d2(3))
    s(3) = 0.5_rk*(d1(1)*d2(2) - d1(2)*d2(1))
  end function face_vector

  !> Centre of the low face in direction d of cell (i,j,k).
  pure function face_centre(xn, d, i, j, k) result(c)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: d, i, j, k
    real(rk) :: c(3)
    select case (d)
    case (1)
      c = 0.25_rk*(xn(:, i-1, j-1, k-1) + xn(:, i-1, j, k-1) + xn(:, i-1, j, k) + xn(:, i-1, j-1, k))
    case (2)
      c = 0.25_rk*(xn(:, i-1, j-1, k-1) + xn(:, i, j-1, k-1) + xn(:, i, j-1, k) + xn(:, i-1, j-1, k))
    case default
      c = 0.25_rk*(xn(:, i-1, j-1, k-1) + xn(:, i, j-1, k-1) + xn(:, i, j, k-1) + xn(:, i-1, j, k-1))
    end select
  end function face_centre

  !> Volume of cell (i,j,k) by the divergence theorem over its six faces
  !> (x . n summed over the faces, over 3): the one formula of the solver's
  !> volumes and of the grid checks (fortran/grid_checks.f90). Negative for a
  !> cell whose i, j, k directions form a left-handed system.
  pure function cell_volume(xn, i, j, k) result(v)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: i, j, k
    real(rk) :: v, slo(3), shi(3)
    integer :: d, e(3)
    v = 0.0_rk
    do d = 1, 3
      e = 0
      e(d) = 1
      slo = face_vector(xn, d, i, j, k)
      shi = face_vector(xn, d, i + e(1), j + e(2), k + e(3))
      v = v + dot_product(face_centre(xn, d, i + e(1), j + e(2), k + e(3)), shi) &
            - dot_product(face_centre(xn, d, i, j, k), slo)
    end do
    v = v/3.0_rk
  end function cell_volume

  subroutine compute_metrics(lay, xn, sf, sc, vol, xc)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    real(rk), intent(out) :: sf(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:)
    real(rk), intent(out) :: vol(-1:,-1:,-1:), xc(-1:,-1:,-1:,:)
    integer :: i, j, k, d, e(3)
    real(rk) :: slo(3), shi(3)
    ! zeros first (the padding keeps them), the pages touched by the team
    call zero_field(sf, team_for(lay)); call zero_field(sc, team_for(lay))
    call zero_field(vol, team_for(lay)); call zero_field(xc, team_for(lay))
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, d, e, slo, shi)
    do k = -1, lay%nk + 2
      do j = -1, lay%nj + 2
        do i = -1, lay%ni + 2
          do d = 1, 3
            e = 0
            e(d) = 1
            slo = face_vector(xn, d, i, j, k)
            shi = face_vector(xn, d, i + e(1), j + e(2), k + e(3))
            sf(i, j, k, 3*d-2:3*d) = slo
            sc(i, j, k, 3*d-2:3*d) = 0.5_rk*(slo + shi)
          end do
          vol(i, j, k) = cell_volume(xn, i, j, k)
          xc(i, j, k, :) = cell_centre(xn, i, j, k)
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine compute_metrics

  !> compute_metrics' cell centres alone (the same values): what a run's
  !> centreline profiles need of the whole grid, without the other 19
  !> metric fields.
  !> The centre of cell (i, j, k): the mean of its eight nodes.
  pure function cell_centre(xn, i, j, k) result(c)
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:)
    integer, intent(in) :: i, j, k
    real(rk) :: c(3)
    c = 0.125_rk*(xn(:, i-1, j-1, k-1) + xn(:, i, j-1, k-1) + xn(:, i-1, j, k-1) &
      + xn(:, i, j, k-1) + xn(:, i-1, j-1, k) + xn(:, i, j-1, k) + xn(:, i-1, j, k) + xn(:, i, j, k))
  end function cell_centre
end module metrics
