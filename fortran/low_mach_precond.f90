!> Low-Mach preconditioning of the pseudo-time term (precondition = 'turkel').
!>
!> At lid Mach 0.1 the acoustic waves are ten times faster than the flow:
!> the local time step follows U + c, so the flow itself moves about one
!> cell in ten per pseudo-time step and convection-dominated modes converge
!> slowly (the cube at Re = 1000 needs three times the cycles at Mach 0.1
!> that it needs at Mach 0.3). Turkel's preconditioner (J. Comput. Phys. 72,
!> 1987) scales the pressure equation's pseudo-time derivative by 1/eps in
!> the symmetrising variables (dp/(rho c), du, dv, dw, drho - dp/c^2):
!>   Gamma^-1 = M diag(eps, 1, 1, 1, 1) M^-1,  M = dq/dw,
!> so that the acoustic pair's eigenvalues of Gamma^-1 A along n become
!>   lam+- = U + a+-,  a+- = (-(1 - eps) U +- sqrt((1 - eps)^2 U^2 + 4 eps c^2))/2,
!> both of the order of U when eps ~ M^2 (Weiss and Smith's cut-offs, AIAA J.
!> 33, 1995: eps = min(1, max(eps_min, |u|^2/c^2, (nu/dx)^2/c^2)), eps_min =
!> (K Mach)^2 from the case's reference Mach number). The residual is untouched, so
!> the steady state is the same discrete solution; only the path to it
!> changes.
!>
!> The diagonalised factors keep their form: ADI stage 3 takes the
!> increments to the characteristic variables of Gamma^-1 A (entropy and
!> vorticity as without preconditioning; the acoustic pair from the left
!> eigenvectors (a+-, eps c) of the 2x2 block [[eps U, eps c], [c, U]]),
!> stage 1 splits lam+-, stage 5 inverts stage 3, and the first direction's
!> right-hand side -dtv*res is multiplied by Gamma^-1 (its pressure part by
!> eps). The local time step uses the preconditioned spectral radius.
!>
!> Mirror: cuda/common/low_mach_precond.h, same names, same operations.
module low_mach_precond
  use kinds, only: rk
  use solver_params
  use flow_math, only: char_entropy_parts, cons_from_parts
  implicit none
  private
  public :: precond_on, precond_eps, precond_ckmax, precond_acoustic, precond_radius
  public :: char_from_cons_pc, cons_from_char_pc

contains

  pure logical function precond_on(sp)
    type(solver_params_t), intent(in) :: sp
    precond_on = sp%precondition == PRECOND_TURKEL
  end function precond_on

  !> eps of a cell: the largest of eps_min, its Mach number squared and its
  !> viscous Mach number squared (Weiss and Smith's cut-off), at most 1. The
  !> viscous speed nu/dx (dx the cell's smallest width, vol/|k| of its
  !> largest face metric, |k|max = ckmax/c) keeps the acoustic waves at
  !> least as fast as diffusion across the cell: where the cell Reynolds
  !> number is small the flow speed alone would make the preconditioned
  !> system stiff again. (rho, u, v, w): the cell's state, c its sound speed,
  !> mu its viscosity; ckmax the largest c|k| of its three directions
  !> (eigen_parts' ck; precond_ckmax).
  pure function precond_eps(sp, rho, u, v, w, c, mu, vol, ckmax) result(eps)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rho, u, v, w, c, mu, vol, ckmax
    real(rk) :: eps, vs, m2, v2
    vs = mu*sp%re_inv*(ckmax/c)/(rho*vol)
    m2 = (u*u + v*v + w*w)/(c*c)
    v2 = (vs*vs)/(c*c)
    eps = min(1.0_rk, max(sp%pc_eps_min, max(m2, v2)))
  end function precond_eps

  !> the largest c|k| of a cell's three metric vectors s(1:9), each formed as
  !> eigen_parts forms its ck
  pure function precond_ckmax(c, s) result(ckmax)
    real(rk), intent(in) :: c, s(9)
    real(rk) :: ckmax, ck1, ck2, ck3
    ck1 = c*sqrt(s(1)*s(1) + s(2)*s(2) + s(3)*s(3))
    ck2 = c*sqrt(s(4)*s(4) + s(5)*s(5) + s(6)*s(6))
    ck3 = c*sqrt(s(7)*s(7) + s(8)*s(8) + s(9)*s(9))
    ckmax = max(ck1, max(ck2, ck3))
  end function precond_ckmax

  !> a+- of the acoustic pair for normal velocity un and sound speed cn
  !> (unit normal: U and c; area-weighted: ucon and c|k|, the same formula
  !> scaled). a+ a- = -eps cn^2, so the root that would cancel is formed
  !> from the other one.
  pure subroutine precond_acoustic(eps, un, cn, ap, am)
    real(rk), intent(in) :: eps, un, cn
    real(rk), intent(out) :: ap, am
    real(rk) :: b, s, ec2
    b = (1.0_rk - eps)*un
    ec2 = eps*(cn*cn)
    s = sqrt(b*b + 4.0_rk*ec2)
    if (b >= 0.0_rk) then
      am = -(0.5_rk*(s + b))
      ap = (2.0_rk*ec2)/(s + b)
    else
      ap = 0.5_rk*(s - b)
      am = -((2.0_rk*ec2)/(s - b))
    end if
  end subroutine precond_acoustic

  !> the largest |eigenvalue| of direction k: the time step's spectral radius
  pure function precond_radius(eps, ucon, ck) result(r)
    real(rk), intent(in) :: eps, ucon, ck
    real(rk) :: r, ap, am
    call precond_acoustic(eps, ucon, ck, ap, am)
    r = max(abs(ucon + ap), abs(ucon + am))
  end function precond_radius

  !> ADI stage 3 at one point with preconditioning: conservative increments
  !> r(1:5) to the characteristic variables of Gamma^-1 A along n. pscale
  !> multiplies the pressure part: eps for the first direction (its r is
  !> -dtv*res, times Gamma^-1), 1 for the later ones.
  pure subroutine char_from_cons_pc(sp, eps, pscale, rho, u, v, w, p, nx, ny, nz, r, ch)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: eps, pscale, rho, u, v, w, p, nx, ny, nz, r(5)
    real(rk), intent(out) :: ch(5)
    real(rk) :: c, pc, dun, un, ap, am, ecd, rd
    call char_entropy_parts(sp, rho, u, v, w, p, nx, ny, nz, r, ch, pc, dun)
    pc = pscale*pc
    c = sqrt(sp%gamma*p/rho)
    un = nx*u + ny*v + nz*w
    call precond_acoustic(eps, un, c, ap, am)
    rd = 1.0_rk/(ap - am)
    ecd = eps*c*dun
    ch(4) = (ap*pc + ecd)*rd
    ch(5) = -((am*pc + ecd)*rd)
  end subroutine char_from_cons_pc

  !> ADI stage 5 at one point with preconditioning: the inverse of
  !> char_from_cons_pc with pscale = 1 (pc = ch4 + ch5,
  !> eps c dun = -(a- ch4 + a+ ch5)).
  pure subroutine cons_from_char_pc(sp, eps, rho, u, v, w, p, nx, ny, nz, ch, r)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: eps, rho, u, v, w, p, nx, ny, nz, ch(5)
    real(rk), intent(out) :: r(5)
    real(rk) :: c, un, ap, am
    c = sqrt(sp%gamma*p/rho)
    un = nx*u + ny*v + nz*w
    call precond_acoustic(eps, un, c, ap, am)
    call cons_from_parts(sp, rho, u, v, w, c, nx, ny, nz, ch, -((am*ch(4) + ap*ch(5))/(eps*c)), &
      rho*c*(ch(4) + ch(5)), r)
  end subroutine cons_from_char_pc
end module low_mach_precond
