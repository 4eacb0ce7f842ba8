!> RMS of each residual component per unit volume over the interior.
!> Partial sums per k-plane in a fixed order, then summed in k order, so
!> the norms are the same for any OpenMP thread count.
module residual_norms
  use kinds, only: rk
  use grid_layout, only: layout_t
  implicit none
  private
  public :: compute_residual_norms

contains

  subroutine compute_residual_norms(lay, res, vol, norms)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: res(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), intent(out) :: norms(5)
    real(rk), allocatable :: plane(:,:)
    integer :: i, j, k, m
    real(rk) :: r
    allocate(plane(5, lay%nk))
    plane = 0.0_rk
    !$omp parallel do private(i, j, m, r)
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
    norms = 0.0_rk
    do k = 1, lay%nk
      norms = norms + plane(:, k)
    end do
    norms = sqrt(norms/(real(lay%ni, rk)*real(lay%nj, rk)*real(lay%nk, rk)))
  end subroutine compute_residual_norms
end module residual_norms
