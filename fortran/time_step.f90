!> Local time step from the CFL number, stored as dtv = dt / volume (the
!> factor every implicit and explicit term is multiplied by).
module time_step
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: viscosity, eigen_parts
  use omp_policy, only: team_for
  use low_mach_precond, only: precond_on, precond_eps, precond_radius
  implicit none
  private
  public :: compute_time_step

contains

  subroutine compute_time_step(sp, lay, cfl, qp, sc, vol, dtv)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: cfl
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: dtv(-1:,-1:,-1:)
    integer :: i, j, k
    real(rk) :: rho, u, v, w, c, mu, u1, c1, l1, u2, c2, l2, u3, c3, l3, eps
    logical :: pc
    pc = precond_on(sp)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, rho, u, v, w, c, mu, u1, c1, l1, u2, c2, l2, u3, c3, l3, eps)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          rho = qp(i,j,k,1)
          u = qp(i,j,k,2)
          v = qp(i,j,k,3)
          w = qp(i,j,k,4)
          c = sqrt(sp%gamma*qp(i,j,k,5)/rho)
          mu = viscosity(sp, qp(i,j,k,6))
          call eigen_parts(sp, rho, u, v, w, c, mu, vol(i,j,k), sc(i,j,k,1), sc(i,j,k,2), sc(i,j,k,3), u1, c1, l1)
          call eigen_parts(sp, rho, u, v, w, c, mu, vol(i,j,k), sc(i,j,k,4), sc(i,j,k,5), sc(i,j,k,6), u2, c2, l2)
          call eigen_parts(sp, rho, u, v, w, c, mu, vol(i,j,k), sc(i,j,k,7), sc(i,j,k,8), sc(i,j,k,9), u3, c3, l3)
          if (pc) then
            ! the preconditioned spectral radii (low_mach_precond.f90)
            eps = precond_eps(sp, rho, u, v, w, c, mu, vol(i,j,k), max(c1, max(c2, c3)))
            dtv(i,j,k) = cfl/((precond_radius(eps, u1, c1) + l1) + (precond_radius(eps, u2, c2) + l2) + &
              (precond_radius(eps, u3, c3) + l3))
          else
            dtv(i,j,k) = cfl/((abs(u1) + c1 + l1) + (abs(u2) + c2 + l2) + (abs(u3) + c3 + l3))
          end if
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine compute_time_step
end module time_step
