!> Low-Mach preconditioning (fortran/low_mach_precond.f90): its C mirror
!> (cuda/common/low_mach_precond.h, compiled by gcc with -ffp-contract=off)
!> returns the Fortran's bits on random states, and the math is what the
!> ADI factors need:
!>   - the acoustic pair: lam+- = U + a+- are the roots of
!>     lam^2 - (1 + eps) U lam + eps (U^2 - c^2) = 0, a+ a- = -eps c^2;
!>   - char_from_cons_pc diagonalises Gamma^-1 A along n: for the Euler
!>     Jacobian A = T0 diag(U, U, U, U + c, U - c) T0^-1 (the unpreconditioned
!>     transforms) and Gamma^-1 = cons_from_char_pc(char_from_cons_pc(., eps)),
!>     the characteristic values of Gamma^-1 A x are diag(U, U, U, U + a+,
!>     U + a-) times those of x;
!>   - cons_from_char_pc inverts char_from_cons_pc; eps = 1 gives the
!>     unpreconditioned transforms back.
program test_precond_c_vs_fortran
  use, intrinsic :: iso_c_binding
  use kinds, only: rk
  use solver_params
  use flow_math, only: char_from_cons, cons_from_char
  use low_mach_precond
  use test_util
  implicit none

  interface
    real(c_double) function c_precond_eps(sp, cell) bind(c, name='c_precond_eps')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: cell(8)
    end function
    real(c_double) function c_precond_ckmax(c, s) bind(c, name='c_precond_ckmax')
      import :: c_double
      real(c_double), value :: c
      real(c_double), intent(in) :: s(9)
    end function
    subroutine c_precond_acoustic(in, out) bind(c, name='c_precond_acoustic')
      import :: c_double
      real(c_double), intent(in) :: in(3)
      real(c_double), intent(out) :: out(3)
    end subroutine
    subroutine c_char_from_cons_pc(sp, es, st, n, r, ch) bind(c, name='c_char_from_cons_pc')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: es(2), st(5), n(3), r(5)
      real(c_double), intent(out) :: ch(5)
    end subroutine
    subroutine c_cons_from_char_pc(sp, eps, st, n, ch, r) bind(c, name='c_cons_from_char_pc')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: eps
      real(c_double), intent(in) :: st(5), n(3), ch(5)
      real(c_double), intent(out) :: r(5)
    end subroutine
  end interface

  integer, parameter :: ntrial = 20000
  type(solver_params_t) :: sp
  integer :: trial, bad_eps, bad_ac, bad_chr, bad_cons, n_floor, n_one, n_neg, n_visc
  real(rk) :: x(40), st(5), n(3), r(5), ch(5), ch2(5), rb(5), rb2(5), ac(3), ac2(3), eps, un, c, ap, am
  real(rk) :: t, vol, sm(9), vs, m2, ckm
  real(rk) :: worst_root, worst_prod, worst_trip, worst_diag, worst_one, mach
  character(len=160) :: name

  call random_seed(put=[(777 + trial, trial = 1, 64)])
  sp%gamma = 1.4_rk; sp%gm1 = 0.4_rk
  bad_eps = 0; bad_ac = 0; bad_chr = 0; bad_cons = 0; n_floor = 0; n_one = 0; n_neg = 0; n_visc = 0
  sp%visc_law = VISC_CONSTANT
  worst_root = 0; worst_prod = 0; worst_trip = 0; worst_diag = 0; worst_one = 0
  do trial = 1, ntrial
    call random_number(x)
    mach = 0.01_rk + 0.5_rk*x(1)                       ! reference Mach 0.01 .. 0.51
    sp%precondition = PRECOND_TURKEL
    sp%pc_eps_min = min(1.0_rk, (3.0_rk*x(2)*mach)**2)
    st(1) = 0.5_rk + x(3)                               ! rho
    st(2:4) = (2.0_rk*x(4:6) - 1.0_rk)*(0.2_rk + 3.0_rk*x(7))  ! u, v, w in lid units
    st(5) = st(1)/(1.4_rk*mach*mach)*(0.8_rk + 0.4_rk*x(8))    ! p: c about 1/mach
    n = 2.0_rk*x(9:11) - 1.0_rk
    n = n/sqrt(sum(n*n))
    r = 2.0_rk*x(12:16) - 1.0_rk
    r(5) = r(5)/mach**2                                 ! energy increments of pressure scale
    c = sqrt(sp%gamma*st(5)/st(1))
    un = n(1)*st(2) + n(2)*st(3) + n(3)*st(4)

    ! eps: C == Fortran, and its floor, its viscous cut-off and its ceiling
    ! are reached (viscous speed mu/Re |k|max/(rho vol), mu = 1)
    sp%re_inv = 1.0_rk/(10.0_rk**(1.0_rk + 4.0_rk*x(17)))
    t = 0.8_rk + 0.4_rk*x(18)
    vol = 10.0_rk**(-3.0_rk*x(19))
    sm = (2.0_rk*x(20:28) - 1.0_rk)*vol**(2.0_rk/3.0_rk)*(1.0_rk + 20.0_rk*x(29))
    ckm = precond_ckmax(c, sm)
    if (transfer(ckm, 0_c_int64_t) /= transfer(c_precond_ckmax(c, sm), 0_c_int64_t) .or. &
      abs(ckm - c*sqrt(max(sum(sm(1:3)**2), sum(sm(4:6)**2), sum(sm(7:9)**2)))) > 1.0e-14_rk*ckm) &
      bad_eps = bad_eps + 1
    eps = precond_eps(sp, st(1), st(2), st(3), st(4), c, t, vol, ckm)   ! mu = t here: any positive viscosity
    if (transfer(eps, 0_c_int64_t) /= transfer(c_precond_eps(sp, [st(1:4), c, t, vol, ckm]), 0_c_int64_t)) &
      bad_eps = bad_eps + 1
    vs = t*sp%re_inv*sqrt(max(sum(sm(1:3)**2), sum(sm(4:6)**2), sum(sm(7:9)**2)))/(st(1)*vol)
    m2 = (st(2)**2 + st(3)**2 + st(4)**2)/c**2
    if (eps == sp%pc_eps_min) n_floor = n_floor + 1
    if (eps == 1.0_rk) n_one = n_one + 1
    if (eps < 1.0_rk .and. vs**2/c**2 > max(m2, sp%pc_eps_min)) then
      n_visc = n_visc + 1
      if (abs(eps - vs**2/c**2) > 1.0e-12_rk*eps) bad_eps = bad_eps + 1
    end if

    ! a+-, radius: C == Fortran; roots of the characteristic polynomial
    call precond_acoustic(eps, un, c, ap, am)
    ac = [ap, am, precond_radius(eps, un, c)]
    call c_precond_acoustic([eps, un, c], ac2)
    if (any(transfer(ac, 0_c_int64_t, 3) /= transfer(ac2, 0_c_int64_t, 3))) bad_ac = bad_ac + 1
    if ((1.0_rk - eps)*un < 0.0_rk) n_neg = n_neg + 1
    worst_root = max(worst_root, abs(charpoly(un + ap)), abs(charpoly(un + am)))
    worst_prod = max(worst_prod, abs(ap*am + eps*c*c)/(eps*c*c))

    ! transforms: C == Fortran, both pscale values
    call char_from_cons_pc(sp, eps, eps, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), r, ch)
    call c_char_from_cons_pc(sp, [eps, eps], st, n, r, ch2)
    if (any(transfer(ch, 0_c_int64_t, 5) /= transfer(ch2, 0_c_int64_t, 5))) bad_chr = bad_chr + 1
    call char_from_cons_pc(sp, eps, 1.0_rk, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), r, ch)
    call c_char_from_cons_pc(sp, [eps, 1.0_rk], st, n, r, ch2)
    if (any(transfer(ch, 0_c_int64_t, 5) /= transfer(ch2, 0_c_int64_t, 5))) bad_chr = bad_chr + 1
    call cons_from_char_pc(sp, eps, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), ch, rb)
    call c_cons_from_char_pc(sp, eps, st, n, ch, rb2)
    if (any(transfer(rb, 0_c_int64_t, 5) /= transfer(rb2, 0_c_int64_t, 5))) bad_cons = bad_cons + 1
    worst_trip = max(worst_trip, maxval(abs(rb - r)/scale_of(r)))

    ! diagonalisation of Gamma^-1 A
    worst_diag = max(worst_diag, diag_error(eps, un, ap, am))

    ! eps = 1: the unpreconditioned transform
    call char_from_cons_pc(sp, 1.0_rk, 1.0_rk, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), r, ch)
    call char_from_cons(sp, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), r, ch2)
    worst_one = max(worst_one, maxval(abs(ch - ch2))/maxval(abs(ch2)))
  end do

  write(name, '(a,i0,a,i0,a,i0,a,i0,a)') 'precond_eps: C == Fortran bit for bit (', ntrial, ' states; ', n_floor, &
    ' at the cut-off, ', n_visc, ' at the viscous cut-off (nu/dx)^2/c^2, ', n_one, ' at 1)'
  call check(bad_eps == 0 .and. n_floor > 1000 .and. n_one > 100 .and. n_visc > 300, trim(name))
  write(name, '(a,i0,a)') 'precond_acoustic, precond_radius: C == Fortran bit for bit ((1 - eps) U < 0 in ', &
    n_neg, ' states)'
  call check(bad_ac == 0 .and. n_neg > 1000, trim(name))
  call check(bad_chr == 0, 'char_from_cons_pc (pscale eps and 1): C == Fortran bit for bit')
  call check(bad_cons == 0, 'cons_from_char_pc: C == Fortran bit for bit')
  write(name, '(a,es9.2,a,es9.2,a)') 'U + a+- are the roots of the preconditioned acoustic pair (worst residual ', &
    worst_root, ', a+ a- = -eps c^2 within ', worst_prod, ')'
  call check(worst_root < 1.0e-12_rk .and. worst_prod < 1.0e-13_rk, trim(name))
  write(name, '(a,es9.2,a)') 'cons_from_char_pc inverts char_from_cons_pc (worst relative ', worst_trip, ')'
  call check(worst_trip < 1.0e-11_rk, trim(name))
  write(name, '(a,es9.2,a)') 'char_from_cons_pc diagonalises Gamma^-1 A: diag(U, U, U, U + a+, U + a-) '// &
    '(worst relative ', worst_diag, ')'
  call check(worst_diag < 1.0e-10_rk, trim(name))
  write(name, '(a,es9.2,a)') 'eps = 1 gives char_from_cons back (worst relative ', worst_one, ')'
  call check(worst_one < 1.0e-13_rk, trim(name))
  call test_summary()

contains

  !> lam^2 - (1 + eps) U lam + eps (U^2 - c^2), relative to c^2
  real(rk) function charpoly(lam)
    real(rk), intent(in) :: lam
    charpoly = (lam*lam - (1.0_rk + eps)*un*lam + eps*(un*un - c*c))/(c*c + un*un)
  end function charpoly

  real(rk) function scale_of(v)
    real(rk), intent(in) :: v(5)
    scale_of = max(maxval(abs(v(1:4))), abs(v(5))*mach**2)
  end function scale_of

  !> max over three probe vectors of |T^-1 (Gamma^-1 A x) - lam T^-1 x|,
  !> relative to |lam T^-1 x|
  real(rk) function diag_error(e, u0, a_p, a_m) result(err)
    real(rk), intent(in) :: e, u0, a_p, a_m
    real(rk) :: xv(5), ax(5), gx(5), w0(5), wx(5), wg(5), lam(5), lam0(5), cc
    integer :: probe
    cc = sqrt(sp%gamma*st(5)/st(1))
    lam0 = [u0, u0, u0, u0 + cc, u0 - cc]
    lam = [u0, u0, u0, u0 + a_p, u0 + a_m]
    err = 0.0_rk
    do probe = 1, 3
      xv = cshift(r, probe)
      ! A x through the unpreconditioned eigensystem
      call char_from_cons(sp, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), xv, w0)
      w0 = lam0*w0
      call cons_from_char(sp, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), w0, ax)
      ! Gamma^-1 (A x)
      call char_from_cons_pc(sp, e, e, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), ax, wg)
      call cons_from_char_pc(sp, e, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), wg, gx)
      call char_from_cons_pc(sp, e, 1.0_rk, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), gx, wg)
      call char_from_cons_pc(sp, e, 1.0_rk, st(1), st(2), st(3), st(4), st(5), n(1), n(2), n(3), xv, wx)
      err = max(err, maxval(abs(wg - lam*wx))/maxval(abs(lam*wx)))
    end do
  end function diag_error
end program test_precond_c_vs_fortran
