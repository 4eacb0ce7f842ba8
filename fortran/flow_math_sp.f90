!> Single-precision twins of the point formulas of the implicit operator,
!> for implicit_precision = 'single' (fortran/lu_adi.f90's header says which
!> operations run in single precision and why the layout stays double).
!> Every argument, local and literal is real(sk), and every expression is the
!> one of its double twin (flow_math.f90's char_from_cons and cons_from_char,
!> lu_adi.f90's eigenvalue split and sweep recurrences) in the same order, so
!> each operation is that one rounded to single precision.
!>
!> Mirror: the _sp functions of cuda/common/adiflow_math.h, the same names and
!> the same order of operations. With FMA contraction off and IEEE single
!> division and square root on both sides, they agree bit for bit
!> (tests/c_vs_fortran/test_math_c_vs_fortran.f90). Change one, change the other.
module flow_math_sp
  use kinds, only: sk
  use solver_params
  implicit none
  private
  public :: eigen_split_sp, char_from_cons_sp, cons_from_char_sp
  public :: adi4_fwd_first_sp, adi4_fwd_sp, adi4_bwd_sp

contains

  !> ADI stage 1 at one point: the eigenvalues ucon (three times), ucon + ck,
  !> ucon - ck, split into lam+ = (lam + |lam|_v)/2, lam- = (lam - |lam|_v)/2
  !> with |lam|_v = |lam| + lv, for the three distinct ones.
  pure subroutine eigen_split_sp(ucon, ck, lv, lamp, lamn, lamv)
    real(sk), intent(in) :: ucon, ck, lv
    real(sk), intent(out) :: lamp(3), lamn(3), lamv(3)
    real(sk) :: lam(3), av
    integer :: s
    lam(1) = ucon
    lam(2) = ucon + ck
    lam(3) = ucon - ck
    do s = 1, 3
      av = abs(lam(s)) + lv
      lamp(s) = 0.5_sk*(lam(s) + av)
      lamn(s) = 0.5_sk*(lam(s) - av)
      lamv(s) = av
    end do
  end subroutine eigen_split_sp

  !> ADI stage 3 at one point (flow_math's char_from_cons in single precision).
  pure subroutine char_from_cons_sp(sp, rho, u, v, w, p, nx, ny, nz, r, ch)
    type(solver_params_t), intent(in) :: sp
    real(sk), intent(in) :: rho, u, v, w, p, nx, ny, nz, r(5)
    real(sk), intent(out) :: ch(5)
    real(sk) :: c, q2h, dpr, du, dv, dw, dun, ent, pc, rrho, rc
    c = sqrt(real(sp%gamma, sk)*p/rho)
    rrho = 1.0_sk/rho
    rc = 1.0_sk/c
    q2h = 0.5_sk*(u*u + v*v + w*w)
    dpr = real(sp%gm1, sk)*(r(5) - (u*r(2) + v*r(3) + w*r(4)) + q2h*r(1))
    du = (r(2) - u*r(1))*rrho
    dv = (r(3) - v*r(1))*rrho
    dw = (r(4) - w*r(1))*rrho
    dun = nx*du + ny*dv + nz*dw
    ent = r(1) - dpr*(rc*rc)
    ch(1) = nx*ent - (ny*dw - nz*dv)
    ch(2) = ny*ent - (nz*du - nx*dw)
    ch(3) = nz*ent - (nx*dv - ny*du)
    pc = dpr*(rrho*rc)
    ch(4) = 0.5_sk*(pc + dun)
    ch(5) = 0.5_sk*(pc - dun)
  end subroutine char_from_cons_sp

  !> ADI stage 5 at one point (flow_math's cons_from_char in single precision).
  pure subroutine cons_from_char_sp(sp, rho, u, v, w, p, nx, ny, nz, ch, r)
    type(solver_params_t), intent(in) :: sp
    real(sk), intent(in) :: rho, u, v, w, p, nx, ny, nz, ch(5)
    real(sk), intent(out) :: r(5)
    real(sk) :: c, q2h, ent, dun, dpr, du, dv, dw, rc
    c = sqrt(real(sp%gamma, sk)*p/rho)
    rc = 1.0_sk/c
    q2h = 0.5_sk*(u*u + v*v + w*w)
    ent = nx*ch(1) + ny*ch(2) + nz*ch(3)
    dun = ch(4) - ch(5)
    dpr = rho*c*(ch(4) + ch(5))
    du = (ny*ch(3) - nz*ch(2)) + nx*dun
    dv = (nz*ch(1) - nx*ch(3)) + ny*dun
    dw = (nx*ch(2) - ny*ch(1)) + nz*dun
    r(1) = ent + dpr*(rc*rc)
    r(2) = rho*du + u*r(1)
    r(3) = rho*dv + v*r(1)
    r(4) = rho*dw + w*r(1)
    r(5) = dpr/real(sp%gm1, sk) + q2h*r(1) + rho*(u*du + v*dv + w*dw)
  end subroutine cons_from_char_sp

  !> ADI stage 4's recurrences, one element each: the first cell of the
  !> forward sweep, the forward step, the backward step (lu_adi.f90's
  !> adi_stage4_sweeps). rdg is the reciprocal of the diagonal (stage 2
  !> stores 1/diag, so the forward step multiplies).
  pure elemental function adi4_fwd_first_sp(w, rdg) result(x)
    real(sk), intent(in) :: w, rdg
    real(sk) :: x
    x = w*rdg
  end function adi4_fwd_first_sp

  pure elemental function adi4_fwd_sp(w, flmp, rdg, xp) result(x)
    real(sk), intent(in) :: w, flmp, rdg, xp
    real(sk) :: x
    x = (w - flmp*xp)*rdg
  end function adi4_fwd_sp

  pure elemental function adi4_bwd_sp(w, flmn, xn) result(x)
    real(sk), intent(in) :: w, flmn, xn
    real(sk) :: x
    x = w - flmn*xn
  end function adi4_bwd_sp
end module flow_math_sp
