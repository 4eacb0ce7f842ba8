!> RMS of each residual component per unit volume over the interior.
!> Partial sums per k-plane in a fixed order, then summed in k order, so
!> the norms are the same for any OpenMP thread count (and, with the plane
!> sums passed along the j ranks, for any MPI decomposition).
module residual_norms
  use kinds, only: rk
  use grid_layout, only: layout_t
  use omp_policy, only: team_for
  implicit none
  private
  public :: compute_residual_norms, add_residual_plane_sums, norms_from_plane_sums

contains

  subroutine compute_residual_norms(lay, res, vol, norms)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: res(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), intent(out) :: norms(5)
    real(rk), allocatable :: plane(:,:)
    allocate(plane(5, lay%nk))
    plane = 0.0_rk
    call add_residual_plane_sums(lay, res, vol, plane)
    norms = norms_from_plane_sums(plane, lay%ni, lay%nj, lay%nk)
  end subroutine compute_residual_norms

  !> plane(m, k) += sum over the plane k of (res_m / vol)^2, j then i in order
  !> (a block of a decomposed grid starts from the sums of the blocks below).
  subroutine add_residual_plane_sums(lay, res, vol, plane)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: res(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: plane(:,:)
    integer :: i, j, k, m
    real(rk) :: r
    !$omp parallel do num_threads(team_for(lay)) private(i, j, m, r)
    do k = 1, lay%nk
      do m = 1, 5
        do j = 1, lay%nj
          do i = 1, lay%ni
            r = res(i,j,k,m)/vol(i,j,k)
            plane(m, k) = plane(m, k) + r*r
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine add_residual_plane_sums

  !> The norms from the plane sums of the whole grid, added in k order.
  pure function norms_from_plane_sums(plane, ni, nj, nk) result(norms)
    real(rk), intent(in) :: plane(:,:)
    integer, intent(in) :: ni, nj, nk
    real(rk) :: norms(5)
    integer :: k
    norms = 0.0_rk
    do k = 1, nk
      norms = norms + plane(:, k)
    end do
    norms = sqrt(norms/(real(ni, rk)*real(nj, rk)*real(nk, rk)))
  end function norms_from_plane_sums
end module residual_norms
