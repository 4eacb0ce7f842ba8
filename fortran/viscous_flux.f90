!> Viscous flux of one direction at faces 1..n+1, second-order central:
!> normal differences across the face, cross differences averaged over the
!> two cells beside it. Written into wk(..., WK_FV+1:WK_FV+5); flux stage 4
!> subtracts it from the convective flux. Mirror: cuda/split/viscous_kernels.cu
module viscous_flux
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: viscous_face_flux
  use convective_flux, only: stage_bounds, WK_FV
  use omp_policy, only: team_for
  implicit none
  private
  public :: viscous_flux_faces

  integer, parameter :: prim_of_grad(4) = [2, 3, 4, 6]   !< u, v, w, T in qp

contains

  subroutine viscous_flux_faces(sp, lay, d, qp, sf, sc, vol, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sf(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:)
    real(rk), intent(in) :: vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, e(3), lo(3), hi(3), il, jl, kl, dd, v, m, ep(3)
    real(rk) :: dphi(3, 4), mv(3, 3), volf, fv(5)
    e = 0; e(d) = 1
    call stage_bounds(lay, d, 1, 1, lo, hi)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, il, jl, kl, dd, v, m, ep, dphi, mv, volf, fv)
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          il = i - e(1); jl = j - e(2); kl = k - e(3)
          do dd = 1, 3
            if (dd == d) then
              do v = 1, 4
                m = prim_of_grad(v)
                dphi(dd, v) = qp(i,j,k,m) - qp(il,jl,kl,m)
              end do
              mv(:, dd) = sf(i,j,k,3*dd-2:3*dd)
            else
              ep = 0; ep(dd) = 1
              do v = 1, 4
                m = prim_of_grad(v)
                dphi(dd, v) = 0.25_rk*((qp(i+ep(1),j+ep(2),k+ep(3),m) + qp(il+ep(1),jl+ep(2),kl+ep(3),m)) &
                                     - (qp(i-ep(1),j-ep(2),k-ep(3),m) + qp(il-ep(1),jl-ep(2),kl-ep(3),m)))
              end do
              mv(:, dd) = 0.5_rk*(sc(il,jl,kl,3*dd-2:3*dd) + sc(i,j,k,3*dd-2:3*dd))
            end if
          end do
          volf = 0.5_rk*(vol(il,jl,kl) + vol(i,j,k))
          call viscous_face_flux(sp, d, dphi, mv, volf, &
            0.5_rk*(qp(il,jl,kl,2) + qp(i,j,k,2)), 0.5_rk*(qp(il,jl,kl,3) + qp(i,j,k,3)), &
            0.5_rk*(qp(il,jl,kl,4) + qp(i,j,k,4)), qp(il,jl,kl,6), qp(i,j,k,6), fv)
          wk(i,j,k,WK_FV+1:WK_FV+5) = fv
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine viscous_flux_faces
end module viscous_flux
