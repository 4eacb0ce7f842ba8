!> Primitive variables (rho, u, v, w, p, T) on every cell, ghosts included:
!> computed once per iteration after the boundary fill and read by every
!> flux and ADI stage.
module primitives
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: cons_to_prim
  use omp_policy, only: team_for
  implicit none
  private
  public :: compute_primitives

contains

  subroutine compute_primitives(sp, lay, q, qp)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: q(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: qp(-1:,-1:,-1:,:)
    integer :: i, j, k
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i)
    do k = -1, lay%nk + 2
      do j = -1, lay%nj + 2
        do i = -1, lay%ni + 2
          call cons_to_prim(sp, q(i,j,k,1), q(i,j,k,2), q(i,j,k,3), q(i,j,k,4), q(i,j,k,5), &
            qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), qp(i,j,k,5), qp(i,j,k,6))
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine compute_primitives
end module primitives
