!> Diagonalised LU-ADI in delta form (Obayashi-Kuwahara / Pulliam-Chaussee),
!> one direction at a time, in the five stages of the seed paper, mirrored
!> one to one by cuda/split/adi_kernels.cu:
!>   stage 1  eigenvalues and their split lam+- (three distinct: U, U+c|k|, U-c|k|)
!>   stage 2  sweep coefficients flmp, flmn, diag
!>   stage 3  right-hand side into characteristic variables
!>   stage 4  forward and backward bidiagonal sweeps along every grid line
!>   stage 5  back to conservative increments; after the last direction, update q
!> The factor (D - dt lam+_{c-1}) D^-1 (D + dt lam-_{c+1}) of each scalar
!> characteristic equation is solved as
!>   res(c) = (res(c) - flmp(c) res(c-1)) / diag(c)      c = 2..n  (res(1) /= diag(1))
!>   res(c) =  res(c) - flmn(c) res(c+1)                 c = n-1..1
!> with flmp(c) = -dtv(c) lam+(c-1), diag(c) = 1 + dtv(c) |lam|_v(c),
!> flmn(c) = dtv(c) lam-(c+1) / diag(c); increments beyond the wall are zero.
!> Work fields (last index of wk): lamp 1-3, lamn 4-6, lamv 7-9, flmp 10-12,
!> flmn 13-15, diag 16-18, characteristic rhs 19-23.
module lu_adi
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: viscosity, eigen_parts, char_from_cons, cons_from_char, unit_normal
  use convective_flux, only: stage_bounds
  implicit none
  private
  public :: adi_stage1_eigenvalues, adi_stage2_coefficients, adi_stage3_characteristic_rhs
  public :: adi_stage4_sweeps, adi_stage5_update
  public :: WK_LAMP, WK_LAMN, WK_LAMV, WK_FLMP, WK_FLMN, WK_DIAG, WK_WCH

  integer, parameter :: WK_LAMP = 0, WK_LAMN = 3, WK_LAMV = 6, WK_FLMP = 9
  integer, parameter :: WK_FLMN = 12, WK_DIAG = 15, WK_WCH = 18
  !> which eigenvalue set each characteristic variable travels with
  integer, parameter :: eig_of_char(5) = [1, 1, 1, 2, 3]

contains

  subroutine adi_stage1_eigenvalues(sp, lay, d, qp, sc, vol, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, s, s0
    real(rk) :: rho, c, mu, ucon, ck, lv, lam(3), av
    s0 = 3*(d - 1)
    !$omp parallel do collapse(2) private(i, s, rho, c, mu, ucon, ck, lv, lam, av)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          rho = qp(i,j,k,1)
          c = sqrt(sp%gamma*qp(i,j,k,5)/rho)
          mu = viscosity(sp, qp(i,j,k,6))
          call eigen_parts(sp, rho, qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), c, mu, vol(i,j,k), &
            sc(i,j,k,s0+1), sc(i,j,k,s0+2), sc(i,j,k,s0+3), ucon, ck, lv)
          lam(1) = ucon
          lam(2) = ucon + ck
          lam(3) = ucon - ck
          do s = 1, 3
            av = abs(lam(s)) + lv
            wk(i,j,k,WK_LAMP+s) = 0.5_rk*(lam(s) + av)
            wk(i,j,k,WK_LAMN+s) = 0.5_rk*(lam(s) - av)
            wk(i,j,k,WK_LAMV+s) = av
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine adi_stage1_eigenvalues

  !> A block of a decomposed grid passes its offset in the global grid and
  !> the global cell counts, so the end conditions (flmp = 0 on the first
  !> cell of a line, flmn = 0 on the last) hold on the global line and the
  !> coefficients at an internal block face use the neighbour's lam+-
  !> (exchanged into the ghost layer beforehand).
  subroutine adi_stage2_coefficients(lay, d, dtv, wk, offset, nglobal)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: dtv(-1:,-1:,-1:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer, intent(in), optional :: offset(3), nglobal(3)
    integer :: i, j, k, s, e(3), p(3), nd(3), off(3)
    real(rk) :: dg
    e = 0; e(d) = 1
    nd = [lay%ni, lay%nj, lay%nk]
    off = 0
    if (present(offset)) off = offset
    if (present(nglobal)) nd = nglobal
    !$omp parallel do collapse(2) private(i, s, p, dg)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          p = [i, j, k] + off
          do s = 1, 3
            dg = 1.0_rk + dtv(i,j,k)*wk(i,j,k,WK_LAMV+s)
            wk(i,j,k,WK_DIAG+s) = dg
            if (p(d) > 1) then
              wk(i,j,k,WK_FLMP+s) = -(dtv(i,j,k)*wk(i-e(1),j-e(2),k-e(3),WK_LAMP+s))
            else
              wk(i,j,k,WK_FLMP+s) = 0.0_rk
            end if
            if (p(d) < nd(d)) then
              wk(i,j,k,WK_FLMN+s) = dtv(i,j,k)*wk(i+e(1),j+e(2),k+e(3),WK_LAMN+s)/dg
            else
              wk(i,j,k,WK_FLMN+s) = 0.0_rk
            end if
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine adi_stage2_coefficients

  !> First direction: rhs = -dtv*res; later ones: the previous direction's dq.
  subroutine adi_stage3_characteristic_rhs(sp, lay, d, qp, sc, dtv, res, dq, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), dtv(-1:,-1:,-1:)
    real(rk), intent(in) :: res(-1:,-1:,-1:,:), dq(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, m, s0
    real(rk) :: r(5), ch(5), nx, ny, nz
    s0 = 3*(d - 1)
    !$omp parallel do collapse(2) private(i, m, r, ch, nx, ny, nz)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          if (d == 1) then
            do m = 1, 5
              r(m) = -(dtv(i,j,k)*res(i,j,k,m))
            end do
          else
            r = dq(i,j,k,:)
          end if
          call unit_normal(sc(i,j,k,s0+1), sc(i,j,k,s0+2), sc(i,j,k,s0+3), nx, ny, nz)
          call char_from_cons(sp, qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), &
            qp(i,j,k,5), nx, ny, nz, r, ch)
          wk(i,j,k,WK_WCH+1:WK_WCH+5) = ch
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine adi_stage3_characteristic_rhs

  !> Forward then backward sweep of every line of direction d, for the five
  !> characteristic variables. Lines are independent; the loop nest only
  !> differs per direction to keep memory access contiguous in i.
  subroutine adi_stage4_sweeps(lay, d, wk)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, m, a, r, s, ni, nj, nk
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    select case (d)
    case (1)
      !$omp parallel do collapse(2) private(j, m, a, r, s)
      do k = 1, nk
        do j = 1, nj
          do m = 1, 5
            r = WK_WCH + m; s = eig_of_char(m)
            wk(1,j,k,r) = wk(1,j,k,r)/wk(1,j,k,WK_DIAG+s)
            do a = 2, ni
              wk(a,j,k,r) = (wk(a,j,k,r) - wk(a,j,k,WK_FLMP+s)*wk(a-1,j,k,r))/wk(a,j,k,WK_DIAG+s)
            end do
            do a = ni - 1, 1, -1
              wk(a,j,k,r) = wk(a,j,k,r) - wk(a,j,k,WK_FLMN+s)*wk(a+1,j,k,r)
            end do
          end do
        end do
      end do
      !$omp end parallel do
    case (2)
      !$omp parallel do private(m, a, i, r, s)
      do k = 1, nk
        do m = 1, 5
          r = WK_WCH + m; s = eig_of_char(m)
          do i = 1, ni
            wk(i,1,k,r) = wk(i,1,k,r)/wk(i,1,k,WK_DIAG+s)
          end do
          do a = 2, nj
            do i = 1, ni
              wk(i,a,k,r) = (wk(i,a,k,r) - wk(i,a,k,WK_FLMP+s)*wk(i,a-1,k,r))/wk(i,a,k,WK_DIAG+s)
            end do
          end do
          do a = nj - 1, 1, -1
            do i = 1, ni
              wk(i,a,k,r) = wk(i,a,k,r) - wk(i,a,k,WK_FLMN+s)*wk(i,a+1,k,r)
            end do
          end do
        end do
      end do
      !$omp end parallel do
    case default
      !$omp parallel do private(m, a, i, r, s)
      do j = 1, nj
        do m = 1, 5
          r = WK_WCH + m; s = eig_of_char(m)
          do i = 1, ni
            wk(i,j,1,r) = wk(i,j,1,r)/wk(i,j,1,WK_DIAG+s)
          end do
          do a = 2, nk
            do i = 1, ni
              wk(i,j,a,r) = (wk(i,j,a,r) - wk(i,j,a,WK_FLMP+s)*wk(i,j,a-1,r))/wk(i,j,a,WK_DIAG+s)
            end do
          end do
          do a = nk - 1, 1, -1
            do i = 1, ni
              wk(i,j,a,r) = wk(i,j,a,r) - wk(i,j,a,WK_FLMN+s)*wk(i,j,a+1,r)
            end do
          end do
        end do
      end do
      !$omp end parallel do
    end select
  end subroutine adi_stage4_sweeps

  !> Back to conservative increments: dq for the next direction, or, after
  !> the last direction (d = 3), q = q + dq.
  subroutine adi_stage5_update(sp, lay, d, qp, sc, wk, dq, q)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), wk(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: dq(-1:,-1:,-1:,:), q(-1:,-1:,-1:,:)
    integer :: i, j, k, m, s0
    real(rk) :: r(5), nx, ny, nz
    s0 = 3*(d - 1)
    !$omp parallel do collapse(2) private(i, m, r, nx, ny, nz)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          call unit_normal(sc(i,j,k,s0+1), sc(i,j,k,s0+2), sc(i,j,k,s0+3), nx, ny, nz)
          call cons_from_char(sp, qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), &
            qp(i,j,k,5), nx, ny, nz, wk(i,j,k,WK_WCH+1:WK_WCH+5), r)
          if (d < 3) then
            dq(i,j,k,:) = r
          else
            do m = 1, 5
              q(i,j,k,m) = q(i,j,k,m) + r(m)
            end do
          end if
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine adi_stage5_update
end module lu_adi
