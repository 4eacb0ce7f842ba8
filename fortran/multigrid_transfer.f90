!> Transfers between two multigrid levels (full approximation storage):
!>   restrict_level      coarse q = volume-weighted mean of its fine children,
!>                       coarse P = sum of their residuals (one pass)
!>   subtract_residual   P = P - R_coarse(restricted q): the FAS forcing
!>   coarse_correction   dq = q - q0 on the coarse level, ghosts included
!>   prolong_correction  fine q += trilinear interpolation of dq
!> ratio(d) is 2 where direction d coarsens, 1 where it does not; children
!> are visited k, then j, then i innermost, and the trilinear weights are
!> (3/4, 1/4) along a coarsened direction, (1, 0) along another, so the
!> same formula serves both. Mirror: cuda/api/multigrid.cu (same loops,
!> same order of operations: the GPU reproduces these bit for bit).
module multigrid_transfer
  use kinds, only: rk, nvar
  use grid_layout, only: layout_t
  use omp_policy, only: team_for
  implicit none
  private
  public :: restrict_level, subtract_residual, coarse_correction, prolong_correction

contains

  !> Coarse q = volume-weighted mean of the children's q; coarse P = sum of
  !> their residuals (a net flux, not per volume: children add up).
  subroutine restrict_level(lc, ratio, vol_f, q_f, res_f, q_c, p_c)
    type(layout_t), intent(in) :: lc
    integer, intent(in) :: ratio(3)
    real(rk), intent(in) :: vol_f(-1:,-1:,-1:), q_f(-1:,-1:,-1:,:), res_f(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: q_c(-1:,-1:,-1:,:), p_c(-1:,-1:,-1:,:)
    integer :: ic, jc, kc, di, dj, dk, i, j, k, m
    real(rk) :: num(nvar), den, s(nvar)
    !$omp parallel do num_threads(team_for(lc)) collapse(2) private(ic, di, dj, dk, i, j, k, m, num, den, s)
    do kc = 1, lc%nk
      do jc = 1, lc%nj
        do ic = 1, lc%ni
          num = 0.0_rk
          den = 0.0_rk
          s = 0.0_rk
          do dk = 0, ratio(3) - 1
            do dj = 0, ratio(2) - 1
              do di = 0, ratio(1) - 1
                i = ratio(1)*(ic - 1) + 1 + di
                j = ratio(2)*(jc - 1) + 1 + dj
                k = ratio(3)*(kc - 1) + 1 + dk
                den = den + vol_f(i,j,k)
                do m = 1, nvar
                  num(m) = num(m) + vol_f(i,j,k)*q_f(i,j,k,m)
                  s(m) = s(m) + res_f(i,j,k,m)
                end do
              end do
            end do
          end do
          do m = 1, nvar
            q_c(ic,jc,kc,m) = num(m)/den
            p_c(ic,jc,kc,m) = s(m)
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine restrict_level

  subroutine subtract_residual(lc, res_c, p_c)
    type(layout_t), intent(in) :: lc
    real(rk), intent(in) :: res_c(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: p_c(-1:,-1:,-1:,:)
    integer :: i, j, k, m
    !$omp parallel do num_threads(team_for(lc)) collapse(2) private(i, m)
    do k = 1, lc%nk
      do j = 1, lc%nj
        do m = 1, nvar
          do i = 1, lc%ni
            p_c(i,j,k,m) = p_c(i,j,k,m) - res_c(i,j,k,m)
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine subtract_residual

  !> dq = q - q0 on cells 0..n+1 (the first ghost layer: both states have
  !> their boundary conditions applied, so dq there is the boundary's own
  !> correction, e.g. the reflected velocity's at a wall).
  subroutine coarse_correction(lc, q, q0, dq)
    type(layout_t), intent(in) :: lc
    real(rk), intent(in) :: q(-1:,-1:,-1:,:), q0(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: dq(-1:,-1:,-1:,:)
    integer :: i, j, k, m
    !$omp parallel do num_threads(team_for(lc)) collapse(2) private(i, m)
    do k = 0, lc%nk + 1
      do j = 0, lc%nj + 1
        do m = 1, nvar
          do i = 0, lc%ni + 1
            dq(i,j,k,m) = q(i,j,k,m) - q0(i,j,k,m)
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine coarse_correction

  !> Fine cell i lies in coarse cell (i-1)/2+1; its other trilinear
  !> neighbour is the coarse cell below for the first child, above for the
  !> second (ghost cells 0 and n+1 at the ends).
  subroutine prolong_correction(lf, ratio, dq_c, q_f)
    type(layout_t), intent(in) :: lf
    integer, intent(in) :: ratio(3)
    real(rk), intent(in) :: dq_c(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: q_f(-1:,-1:,-1:,:)
    integer :: i, j, k, m, i0, i1, j0, j1, k0, k1
    real(rk) :: wi0, wi1, wj0, wj1, wk0, wk1
    !$omp parallel do num_threads(team_for(lf)) collapse(2) private(i, m, i0, i1, j0, j1, k0, k1, wi0, wi1, wj0, wj1, wk0, wk1)
    do k = 1, lf%nk
      do j = 1, lf%nj
        do i = 1, lf%ni
          call neighbours(ratio(1), i, i0, i1, wi0, wi1)
          call neighbours(ratio(2), j, j0, j1, wj0, wj1)
          call neighbours(ratio(3), k, k0, k1, wk0, wk1)
          do m = 1, nvar
            q_f(i,j,k,m) = q_f(i,j,k,m) &
              + (wk0*(wj0*(wi0*dq_c(i0,j0,k0,m) + wi1*dq_c(i1,j0,k0,m)) &
                    + wj1*(wi0*dq_c(i0,j1,k0,m) + wi1*dq_c(i1,j1,k0,m))) &
               + wk1*(wj0*(wi0*dq_c(i0,j0,k1,m) + wi1*dq_c(i1,j0,k1,m)) &
                    + wj1*(wi0*dq_c(i0,j1,k1,m) + wi1*dq_c(i1,j1,k1,m))))
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine prolong_correction

  !> Coarse cell c0 of fine index a and its second neighbour c1, weights.
  pure subroutine neighbours(r, a, c0, c1, w0, w1)
    integer, intent(in) :: r, a
    integer, intent(out) :: c0, c1
    real(rk), intent(out) :: w0, w1
    if (r == 2) then
      c0 = (a - 1)/2 + 1
      if (mod(a, 2) == 1) then
        c1 = c0 - 1
      else
        c1 = c0 + 1
      end if
      w0 = 0.75_rk
      w1 = 0.25_rk
    else
      c0 = a
      c1 = a
      w0 = 1.0_rk
      w1 = 0.0_rk
    end if
  end subroutine neighbours
end module multigrid_transfer
