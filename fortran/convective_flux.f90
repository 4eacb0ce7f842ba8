!> Convective (Roe) flux of one direction in the four stages of the seed
!> paper, mirrored one to one by cuda/split/flux_kernels.cu:
!>   stage 1  du(c) = qp(c) - qp(c-1)                  cells 0..n+2 along d
!>   stage 2  MUSCL left/right states at faces        faces 1..n+1
!>   stage 3  Roe flux at faces                       faces 1..n+1
!>   stage 4  flux difference into the residual       cells 1..n
!> Face f of direction d lies between cells f-1 and f (the low face of f).
!> Work fields (last index of wk): du 1-5, ql 6-10, qr 11-15, fc 16-20,
!> fv 21-25 (viscous face flux, filled by viscous_flux between 3 and 4).
module convective_flux
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: limiter, roe_flux
  use omp_policy, only: team_for
  implicit none
  private
  public :: flux_stage1_differences, flux_stage2_reconstruct
  public :: flux_stage3_roe, flux_stage4_accumulate, stage_bounds
  public :: WK_DU, WK_QL, WK_QR, WK_FC, WK_FV

  integer, parameter :: WK_DU = 0, WK_QL = 5, WK_QR = 10, WK_FC = 15, WK_FV = 20

contains

  !> Loop bounds: [alo, ahi] along d, interior 1..n across.
  pure subroutine stage_bounds(lay, d, alo, ahi, lo, hi)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d, alo, ahi
    integer, intent(out) :: lo(3), hi(3)
    integer :: nd(3)
    nd = [lay%ni, lay%nj, lay%nk]
    lo = 1
    hi = nd
    lo(d) = alo
    hi(d) = nd(d) + ahi
  end subroutine stage_bounds

  subroutine flux_stage1_differences(lay, d, qp, wk)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, m, e(3), lo(3), hi(3)
    e = 0; e(d) = 1
    call stage_bounds(lay, d, 0, 2, lo, hi)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, m)
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do m = 1, 5
          do i = lo(1), hi(1)
            wk(i,j,k,WK_DU+m) = qp(i,j,k,m) - qp(i-e(1),j-e(2),k-e(3),m)
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine flux_stage1_differences

  subroutine flux_stage2_reconstruct(sp, lay, d, qp, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, m, e(3), lo(3), hi(3), il, jl, kl, ir, jr, kr
    e = 0; e(d) = 1
    call stage_bounds(lay, d, 1, 1, lo, hi)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, m, il, jl, kl, ir, jr, kr)
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do m = 1, 5
          do i = lo(1), hi(1)
            il = i - e(1); jl = j - e(2); kl = k - e(3)
            if (sp%order == 2) then
              ir = i + e(1); jr = j + e(2); kr = k + e(3)
              wk(i,j,k,WK_QL+m) = qp(il,jl,kl,m) + 0.5_rk*limiter(sp, wk(il,jl,kl,WK_DU+m), wk(i,j,k,WK_DU+m))
              wk(i,j,k,WK_QR+m) = qp(i,j,k,m) - 0.5_rk*limiter(sp, wk(i,j,k,WK_DU+m), wk(ir,jr,kr,WK_DU+m))
            else
              wk(i,j,k,WK_QL+m) = qp(il,jl,kl,m)
              wk(i,j,k,WK_QR+m) = qp(i,j,k,m)
            end if
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine flux_stage2_reconstruct

  subroutine flux_stage3_roe(sp, lay, d, sf, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: sf(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, lo(3), hi(3), s0
    real(rk) :: f(5)
    s0 = 3*(d - 1)
    call stage_bounds(lay, d, 1, 1, lo, hi)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, f)
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          call roe_flux(sp, wk(i,j,k,WK_QL+1), wk(i,j,k,WK_QL+2), wk(i,j,k,WK_QL+3), &
            wk(i,j,k,WK_QL+4), wk(i,j,k,WK_QL+5), wk(i,j,k,WK_QR+1), wk(i,j,k,WK_QR+2), &
            wk(i,j,k,WK_QR+3), wk(i,j,k,WK_QR+4), wk(i,j,k,WK_QR+5), &
            sf(i,j,k,s0+1), sf(i,j,k,s0+2), sf(i,j,k,s0+3), f)
          wk(i,j,k,WK_FC+1:WK_FC+5) = f
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine flux_stage3_roe

  !> res(c) += (fc - fv)(c+1) - (fc - fv)(c): net outflow through the two faces.
  subroutine flux_stage4_accumulate(lay, d, wk, res)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: wk(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: res(-1:,-1:,-1:,:)
    integer :: i, j, k, m, e(3), lo(3), hi(3), ih, jh, kh
    e = 0; e(d) = 1
    call stage_bounds(lay, d, 1, 0, lo, hi)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, m, ih, jh, kh)
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do m = 1, 5
          do i = lo(1), hi(1)
            ih = i + e(1); jh = j + e(2); kh = k + e(3)
            res(i,j,k,m) = res(i,j,k,m) + ((wk(ih,jh,kh,WK_FC+m) - wk(ih,jh,kh,WK_FV+m)) &
                                         - (wk(i,j,k,WK_FC+m) - wk(i,j,k,WK_FV+m)))
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine flux_stage4_accumulate
end module convective_flux
