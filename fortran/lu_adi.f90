!> Diagonalised LU-ADI in delta form (Obayashi-Kuwahara / Pulliam-Chaussee),
!> one direction at a time, in the five stages of the seed paper, mirrored
!> one to one by cuda/split/adi_kernels.cu:
!>   stage 1  eigenvalues and their split lam+- (three distinct: U, U+c|k|, U-c|k|)
!>   stage 2  sweep coefficients flmp, flmn, rdiag (the diagonal's reciprocal)
!>   stage 3  right-hand side into characteristic variables
!>   stage 4  forward and backward bidiagonal sweeps along every grid line
!>   stage 5  back to conservative increments; after the last direction, update q
!> The factor (D - dt lam+_{c-1}) D^-1 (D + dt lam-_{c+1}) of each scalar
!> characteristic equation is solved as
!>   res(c) = (res(c) - flmp(c) res(c-1)) * rdiag(c)     c = 2..n  (res(1) *= rdiag(1))
!>   res(c) =  res(c) - flmn(c) res(c+1)                 c = n-1..1
!> with flmp(c) = -dtv(c) lam+(c-1), rdiag(c) = 1/(1 + dtv(c) |lam|_v(c)),
!> flmn(c) = dtv(c) lam-(c+1) rdiag(c); increments beyond the wall are zero.
!> The reciprocal of the diagonal is stored, not the diagonal, so that the
!> forward recurrence multiplies: a division on its dependent chain is slow
!> on a GPU, and the C mirror must do the same operations.
!> Work fields (last index of wk): lamp 1-3, lamn 4-6, lamv 7-9, flmp 10-12,
!> flmn 13-15, rdiag 16-18, characteristic rhs 19-23.
!>
!> implicit_precision = 'single' (sp%implicit_single == IMPLICIT_SINGLE): the
!> operator, which only steers the update towards the steady state, runs in
!> real(sk); the state q, the residual res and what the operator reads of
!> them stay double, so the converged solution (res = 0) is the same. The
!> single path, exactly (the C stage bodies, cuda/common/adiflow_stages.h and
!> adiflow_merged.h, do the same operations in the same order):
!>   stage 1  rho, c, mu and eigen_parts (ucon, ck, lv) in double; ucon, ck,
!>            lv rounded to real(sk); lam, |lam|_v, lam+- in real(sk)
!>            (flow_math_sp's eigen_split_sp)
!>   stage 2  dtv rounded to real(sk) once; rdiag, flmp, flmn in real(sk)
!>   stage 3  r = -(dtv*res) (res + forcing on a coarse multigrid level) or
!>            dq in double, as in double mode; the unit normal in double; then
!>            rho, u, v, w, p, the normal and r rounded to real(sk) and
!>            char_from_cons_sp (gamma, gm1: the params rounded)
!>   stage 4  the recurrences in real(sk) (adi4_fwd_first_sp, adi4_fwd_sp,
!>            adi4_bwd_sp)
!>   stage 5  cons_from_char_sp; its increments promoted to double into dq,
!>            and q = q + dq in double
!> Every real(sk) result is stored in wk promoted to double (exact), so the
!> layout and every reader of wk (halo exchanges) are those of double mode,
!> and a value read back and rounded to real(sk) is the value stored. The
!> GPU stores these work fields (1-23) as 4-byte floats instead on a
!> single-domain grid (the view's wkf, cuda/common/adiflow_stages.h): the
!> same values, half the bytes for the memory-bound ADI kernels.
module lu_adi
  use kinds, only: rk, sk
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: viscosity, eigen_parts, char_from_cons, cons_from_char, unit_normal
  use flow_math_sp, only: eigen_split_sp, char_from_cons_sp, cons_from_char_sp, adi4_fwd_first_sp, &
    adi4_fwd_sp, adi4_bwd_sp
  use convective_flux, only: stage_bounds
  use low_mach_precond, only: precond_on, precond_eps, precond_ckmax, precond_acoustic, char_from_cons_pc, cons_from_char_pc
  use omp_policy, only: team_for
  implicit none
  private
  public :: adi_stage1_eigenvalues, adi_stage2_coefficients, adi_stage3_characteristic_rhs
  public :: adi_stage4_sweeps, adi_stage5_update
  public :: adi4x_fwd_first, adi4x_fwd, adi4x_bwd
  public :: WK_LAMP, WK_LAMN, WK_LAMV, WK_FLMP, WK_FLMN, WK_RDIAG, WK_WCH

  integer, parameter :: WK_LAMP = 0, WK_LAMN = 3, WK_LAMV = 6, WK_FLMP = 9
  integer, parameter :: WK_FLMN = 12, WK_RDIAG = 15, WK_WCH = 18
  !> which eigenvalue set each characteristic variable travels with
  integer, parameter :: eig_of_char(5) = [1, 1, 1, 2, 3]

contains

  !> the preconditioner's eps at cell (i,j,k) (low_mach_precond's precond_eps); the GPU
  !> kernels read the value the time step formed from the same primitives (the same bits:
  !> cuda/common/lu_adi.h, adi_precond_eps)
  pure function eps_at(sp, qp, sc, vol, i, j, k) result(eps)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    integer, intent(in) :: i, j, k
    real(rk) :: eps, c
    c = sqrt(sp%gamma*qp(i,j,k,5)/qp(i,j,k,1))
    eps = precond_eps(sp, qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), c, viscosity(sp, qp(i,j,k,6)), &
      vol(i,j,k), precond_ckmax(c, sc(i,j,k,1:9)))
  end function eps_at

  subroutine adi_stage1_eigenvalues(sp, lay, d, qp, sc, vol, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, s, s0
    real(rk) :: rho, c, mu, ucon, ck, lv, lam(3), av, ap, am, flo
    real(sk) :: lpf(3), lnf(3), lvf(3)
    logical :: single, pc
    s0 = 3*(d - 1)
    single = sp%implicit_single == IMPLICIT_SINGLE
    pc = precond_on(sp)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, s, rho, c, mu, ucon, ck, lv, lam, av, lpf, lnf, lvf, ap, am, flo)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          rho = qp(i,j,k,1)
          c = sqrt(sp%gamma*qp(i,j,k,5)/rho)
          mu = viscosity(sp, qp(i,j,k,6))
          call eigen_parts(sp, rho, qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), c, mu, vol(i,j,k), &
            sc(i,j,k,s0+1), sc(i,j,k,s0+2), sc(i,j,k,s0+3), ucon, ck, lv)
          if (single) then
            call eigen_split_sp(real(ucon, sk), real(ck, sk), real(lv, sk), lpf, lnf, lvf)
            do s = 1, 3
              wk(i,j,k,WK_LAMP+s) = real(lpf(s), rk)
              wk(i,j,k,WK_LAMN+s) = real(lnf(s), rk)
              wk(i,j,k,WK_LAMV+s) = real(lvf(s), rk)
            end do
            cycle
          end if
          lam(1) = ucon
          if (pc) then
            call precond_acoustic(eps_at(sp, qp, sc, vol, i, j, k), ucon, ck, ap, am)
            lam(2) = ucon + ap
            lam(3) = ucon + am
            ! the implicit operator's floor on |lam| (precondition_floor):
            ! the slow waves' diagonal at least that fraction of the radius
            flo = sp%pc_lam_floor*max(abs(lam(2)), abs(lam(3)))
          else
            lam(2) = ucon + ck
            lam(3) = ucon - ck
            flo = 0.0_rk
          end if
          do s = 1, 3
            av = max(abs(lam(s)), flo) + lv
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
  subroutine adi_stage2_coefficients(sp, lay, d, dtv, wk, offset, nglobal)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: dtv(-1:,-1:,-1:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer, intent(in), optional :: offset(3), nglobal(3)
    integer :: i, j, k, s, e(3), p(3), nd(3), off(3)
    real(rk) :: rdg
    real(sk) :: dtf, rdgf
    logical :: single
    e = 0; e(d) = 1
    nd = [lay%ni, lay%nj, lay%nk]
    off = 0
    if (present(offset)) off = offset
    if (present(nglobal)) nd = nglobal
    single = sp%implicit_single == IMPLICIT_SINGLE
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, s, p, rdg, dtf, rdgf)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          p = [i, j, k] + off
          if (single) then
            dtf = real(dtv(i,j,k), sk)
            do s = 1, 3
              rdgf = 1.0_sk/(1.0_sk + dtf*real(wk(i,j,k,WK_LAMV+s), sk))
              wk(i,j,k,WK_RDIAG+s) = real(rdgf, rk)
              if (p(d) > 1) then
                wk(i,j,k,WK_FLMP+s) = real(-(dtf*real(wk(i-e(1),j-e(2),k-e(3),WK_LAMP+s), sk)), rk)
              else
                wk(i,j,k,WK_FLMP+s) = 0.0_rk
              end if
              if (p(d) < nd(d)) then
                wk(i,j,k,WK_FLMN+s) = real(dtf*real(wk(i+e(1),j+e(2),k+e(3),WK_LAMN+s), sk)*rdgf, rk)
              else
                wk(i,j,k,WK_FLMN+s) = 0.0_rk
              end if
            end do
            cycle
          end if
          do s = 1, 3
            rdg = 1.0_rk/(1.0_rk + dtv(i,j,k)*wk(i,j,k,WK_LAMV+s))
            wk(i,j,k,WK_RDIAG+s) = rdg
            if (p(d) > 1) then
              wk(i,j,k,WK_FLMP+s) = -(dtv(i,j,k)*wk(i-e(1),j-e(2),k-e(3),WK_LAMP+s))
            else
              wk(i,j,k,WK_FLMP+s) = 0.0_rk
            end if
            if (p(d) < nd(d)) then
              wk(i,j,k,WK_FLMN+s) = dtv(i,j,k)*wk(i+e(1),j+e(2),k+e(3),WK_LAMN+s)*rdg
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
  subroutine adi_stage3_characteristic_rhs(sp, lay, d, qp, sc, vol, dtv, res, dq, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), vol(-1:,-1:,-1:), dtv(-1:,-1:,-1:)
    real(rk), intent(in) :: res(-1:,-1:,-1:,:), dq(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, m, s0
    real(rk) :: r(5), ch(5), nx, ny, nz, eps
    real(sk) :: chf(5)
    logical :: single, pc
    s0 = 3*(d - 1)
    single = sp%implicit_single == IMPLICIT_SINGLE
    pc = precond_on(sp)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, m, r, ch, nx, ny, nz, chf, eps)
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
          if (single) then
            call char_from_cons_sp(sp, real(qp(i,j,k,1), sk), real(qp(i,j,k,2), sk), real(qp(i,j,k,3), sk), &
              real(qp(i,j,k,4), sk), real(qp(i,j,k,5), sk), real(nx, sk), real(ny, sk), real(nz, sk), &
              real(r, sk), chf)
            wk(i,j,k,WK_WCH+1:WK_WCH+5) = real(chf, rk)
            cycle
          end if
          if (pc) then
            ! the first direction's r is -dtv*res: times Gamma^-1 (pressure part by eps)
            eps = eps_at(sp, qp, sc, vol, i, j, k)
            call char_from_cons_pc(sp, eps, merge(eps, 1.0_rk, d == 1), qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), &
              qp(i,j,k,4), qp(i,j,k,5), nx, ny, nz, r, ch)
          else
            call char_from_cons(sp, qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), &
              qp(i,j,k,5), nx, ny, nz, r, ch)
          end if
          wk(i,j,k,WK_WCH+1:WK_WCH+5) = ch
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine adi_stage3_characteristic_rhs

  !> Forward then backward sweep of every line of direction d, for the five
  !> characteristic variables. Lines are independent; the loop nest only
  !> differs per direction to keep memory access contiguous in i. The
  !> recurrences run in the grid's implicit precision (adi4x_*).
  subroutine adi_stage4_sweeps(sp, lay, d, wk)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: i, j, k, m, a, r, s, ni, nj, nk
    logical :: single
    single = sp%implicit_single == IMPLICIT_SINGLE
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    select case (d)
    case (1)
      !$omp parallel do num_threads(team_for(lay)) collapse(2) private(j, m, a, r, s)
      do k = 1, nk
        do j = 1, nj
          do m = 1, 5
            r = WK_WCH + m; s = eig_of_char(m)
            wk(1,j,k,r) = adi4x_fwd_first(single, wk(1,j,k,r), wk(1,j,k,WK_RDIAG+s))
            do a = 2, ni
              wk(a,j,k,r) = adi4x_fwd(single, wk(a,j,k,r), wk(a,j,k,WK_FLMP+s), wk(a,j,k,WK_RDIAG+s), wk(a-1,j,k,r))
            end do
            do a = ni - 1, 1, -1
              wk(a,j,k,r) = adi4x_bwd(single, wk(a,j,k,r), wk(a,j,k,WK_FLMN+s), wk(a+1,j,k,r))
            end do
          end do
        end do
      end do
      !$omp end parallel do
    case (2)
      !$omp parallel do num_threads(team_for(lay)) private(m, a, i, r, s)
      do k = 1, nk
        do m = 1, 5
          r = WK_WCH + m; s = eig_of_char(m)
          do i = 1, ni
            wk(i,1,k,r) = adi4x_fwd_first(single, wk(i,1,k,r), wk(i,1,k,WK_RDIAG+s))
          end do
          do a = 2, nj
            do i = 1, ni
              wk(i,a,k,r) = adi4x_fwd(single, wk(i,a,k,r), wk(i,a,k,WK_FLMP+s), wk(i,a,k,WK_RDIAG+s), wk(i,a-1,k,r))
            end do
          end do
          do a = nj - 1, 1, -1
            do i = 1, ni
              wk(i,a,k,r) = adi4x_bwd(single, wk(i,a,k,r), wk(i,a,k,WK_FLMN+s), wk(i,a+1,k,r))
            end do
          end do
        end do
      end do
      !$omp end parallel do
    case default
      !$omp parallel do num_threads(team_for(lay)) private(m, a, i, r, s)
      do j = 1, nj
        do m = 1, 5
          r = WK_WCH + m; s = eig_of_char(m)
          do i = 1, ni
            wk(i,j,1,r) = adi4x_fwd_first(single, wk(i,j,1,r), wk(i,j,1,WK_RDIAG+s))
          end do
          do a = 2, nk
            do i = 1, ni
              wk(i,j,a,r) = adi4x_fwd(single, wk(i,j,a,r), wk(i,j,a,WK_FLMP+s), wk(i,j,a,WK_RDIAG+s), wk(i,j,a-1,r))
            end do
          end do
          do a = nk - 1, 1, -1
            do i = 1, ni
              wk(i,j,a,r) = adi4x_bwd(single, wk(i,j,a,r), wk(i,j,a,WK_FLMN+s), wk(i,j,a+1,r))
            end do
          end do
        end do
      end do
      !$omp end parallel do
    end select
  end subroutine adi_stage4_sweeps

  !> ADI stage 4's recurrences, one element each, in the grid's implicit
  !> precision (adiflow_stages.h's adi4x_*): in single mode every operand is
  !> a real(sk) value stored promoted, so rounding it back is exact, the
  !> recurrence runs in real(sk) and its result is stored promoted.
  pure elemental function adi4x_fwd_first(single, w, rdg) result(x)
    logical, intent(in) :: single
    real(rk), intent(in) :: w, rdg
    real(rk) :: x
    if (single) then
      x = real(adi4_fwd_first_sp(real(w, sk), real(rdg, sk)), rk)
    else
      x = w*rdg
    end if
  end function adi4x_fwd_first

  pure elemental function adi4x_fwd(single, w, flmp, rdg, xp) result(x)
    logical, intent(in) :: single
    real(rk), intent(in) :: w, flmp, rdg, xp
    real(rk) :: x
    if (single) then
      x = real(adi4_fwd_sp(real(w, sk), real(flmp, sk), real(rdg, sk), real(xp, sk)), rk)
    else
      x = (w - flmp*xp)*rdg
    end if
  end function adi4x_fwd

  pure elemental function adi4x_bwd(single, w, flmn, xn) result(x)
    logical, intent(in) :: single
    real(rk), intent(in) :: w, flmn, xn
    real(rk) :: x
    if (single) then
      x = real(adi4_bwd_sp(real(w, sk), real(flmn, sk), real(xn, sk)), rk)
    else
      x = w - flmn*xn
    end if
  end function adi4x_bwd

  !> Back to conservative increments: dq for the next direction, or, after
  !> the last direction (d = 3), q = q + dq.
  subroutine adi_stage5_update(sp, lay, d, qp, sc, vol, wk, dq, q)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sc(-1:,-1:,-1:,:), vol(-1:,-1:,-1:), wk(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: dq(-1:,-1:,-1:,:), q(-1:,-1:,-1:,:)
    integer :: i, j, k, m, s0
    real(rk) :: r(5), nx, ny, nz, eps
    real(sk) :: rf(5)
    logical :: single, pc
    s0 = 3*(d - 1)
    single = sp%implicit_single == IMPLICIT_SINGLE
    pc = precond_on(sp)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, m, r, nx, ny, nz, rf, eps)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do i = 1, lay%ni
          call unit_normal(sc(i,j,k,s0+1), sc(i,j,k,s0+2), sc(i,j,k,s0+3), nx, ny, nz)
          if (single) then
            call cons_from_char_sp(sp, real(qp(i,j,k,1), sk), real(qp(i,j,k,2), sk), real(qp(i,j,k,3), sk), &
              real(qp(i,j,k,4), sk), real(qp(i,j,k,5), sk), real(nx, sk), real(ny, sk), real(nz, sk), &
              real(wk(i,j,k,WK_WCH+1:WK_WCH+5), sk), rf)
            r = real(rf, rk)
          else if (pc) then
            eps = eps_at(sp, qp, sc, vol, i, j, k)
            call cons_from_char_pc(sp, eps, qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), &
              qp(i,j,k,5), nx, ny, nz, wk(i,j,k,WK_WCH+1:WK_WCH+5), r)
          else
            call cons_from_char(sp, qp(i,j,k,1), qp(i,j,k,2), qp(i,j,k,3), qp(i,j,k,4), &
              qp(i,j,k,5), nx, ny, nz, wk(i,j,k,WK_WCH+1:WK_WCH+5), r)
          end if
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
