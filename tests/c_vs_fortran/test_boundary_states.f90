!> The ghost states of the open and slip boundary types
!> (fortran/boundary_states.f90) and the portable log/exp/pow they use
!> (fortran/portable_math.f90):
!>  - their C twins (cuda/common/boundary_states.h, portable_math.h, compiled
!>    by gcc with -ffp-contract=off) return the same bits on random inputs;
!>  - portable log/exp/pow agree with the compiler's intrinsics to a few ulp;
!>  - each state does what its boundary type promises: no mass through a slip
!>    face, the free stream kept by the farfield, the Riemann invariants
!>    carried the right way, total pressure/temperature and direction of an
!>    inflow face, the static pressure of an outflow face.
program test_boundary_states
  use, intrinsic :: iso_c_binding
  use kinds, only: rk
  use solver_params
  use flow_math, only: cons_to_prim, prim_to_cons, roe_flux
  use portable_math
  use boundary_states
  use test_util
  implicit none

  interface
    real(c_double) function c_portable_log(x) bind(c, name='c_portable_log')
      import :: c_double
      real(c_double), value :: x
    end function
    real(c_double) function c_portable_exp(y) bind(c, name='c_portable_exp')
      import :: c_double
      real(c_double), value :: y
    end function
    real(c_double) function c_portable_pow(x, y) bind(c, name='c_portable_pow')
      import :: c_double
      real(c_double), value :: x, y
    end function
    subroutine c_slip_ghost_state(n, qm, qg) bind(c, name='c_slip_ghost_state')
      import :: c_double
      real(c_double), intent(in) :: n(3), qm(5)
      real(c_double), intent(out) :: qg(5)
    end subroutine
    subroutine c_farfield_ghost_state(sp, fs, n, qm, qg) bind(c, name='c_farfield_ghost_state')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: fs(5), n(3), qm(5)
      real(c_double), intent(out) :: qg(5)
    end subroutine
    subroutine c_subsonic_inflow_ghost_state(sp, in, n, qm, qg) bind(c, name='c_subsonic_inflow_ghost_state')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: in(5), n(3), qm(5)
      real(c_double), intent(out) :: qg(5)
    end subroutine
    subroutine c_subsonic_outflow_ghost_state(sp, p_out, qm, qg) bind(c, name='c_subsonic_outflow_ghost_state')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: p_out
      real(c_double), intent(in) :: qm(5)
      real(c_double), intent(out) :: qg(5)
    end subroutine
  end interface

  integer, parameter :: ntrial = 20000
  type(solver_params_t) :: sp
  real(rk) :: mach
  integer :: iseed

  mach = 0.2_rk
  sp = params_for_mach(mach)
  call random_seed(put=[(7001 + 3*iseed, iseed = 1, 64)])
  call check_portable_math()
  call check_twins()
  call check_slip()
  call check_farfield()
  call check_inflow_outflow()
  call test_summary()

contains

  pure function params_for_mach(m) result(p)
    real(rk), intent(in) :: m
    type(solver_params_t) :: p
    p%gamma = 1.4_rk
    p%gm1 = p%gamma - 1.0_rk
    p%ggm1 = p%gamma/p%gm1
    p%gm2 = p%gamma*m*m
  end function params_for_mach

  real(rk) function urand(a, b)
    real(rk), intent(in) :: a, b
    real(rk) :: x
    call random_number(x)
    urand = a + (b - a)*x
  end function urand

  !> A random unit vector.
  function random_normal() result(n)
    real(rk) :: n(3)
    n = [urand(-1.0_rk, 1.0_rk), urand(-1.0_rk, 1.0_rk), urand(-1.0_rk, 1.0_rk)]
    n = n/sqrt(n(1)*n(1) + n(2)*n(2) + n(3)*n(3))
  end function random_normal

  !> A conservative state near the reference state (rho ~ 1, p ~ 1/gm2)
  !> moving with speed up to vmax in units of U_ref.
  function random_state(vmax) result(q)
    real(rk), intent(in) :: vmax
    real(rk) :: q(5), rho, p, u(3)
    rho = urand(0.7_rk, 1.3_rk)
    p = urand(0.7_rk, 1.3_rk)/sp%gm2
    u = vmax*urand(0.0_rk, 1.0_rk)*random_normal()
    call prim_to_cons(sp, rho, u(1), u(2), u(3), p, q)
  end function random_state

  subroutine check_portable_math()
    integer :: t, bad
    real(rk) :: x, y, e_log, e_exp, e_pow, r
    character(len=160) :: name
    bad = 0; e_log = 0; e_exp = 0; e_pow = 0
    do t = 1, ntrial
      x = 10.0_rk**urand(-6.0_rk, 6.0_rk)
      y = urand(-6.0_rk, 6.0_rk)
      if (.not. same_bits(portable_log(x), c_portable_log(x))) bad = bad + 1
      if (.not. same_bits(portable_exp(y*10.0_rk), c_portable_exp(y*10.0_rk))) bad = bad + 1
      if (.not. same_bits(portable_pow(x, y/3.0_rk), c_portable_pow(x, y/3.0_rk))) bad = bad + 1
      if (abs(x - 1.0_rk) > 1.0e-3_rk) e_log = max(e_log, abs(portable_log(x)/log(x) - 1.0_rk))
      e_exp = max(e_exp, abs(portable_exp(y*10.0_rk)/exp(y*10.0_rk) - 1.0_rk))
      ! the powers the boundary states take: ratios near 1, exponents 2/(gamma-1), (gamma-1)/gamma
      r = urand(0.5_rk, 2.0_rk)
      e_pow = max(e_pow, abs(portable_pow(r, 2.5_rk)/r**2.5_rk - 1.0_rk), &
                  abs(portable_pow(r, 2.0_rk/7.0_rk)/r**(2.0_rk/7.0_rk) - 1.0_rk))
    end do
    write(name, '(a,i0,a)') 'portable log/exp/pow: C == Fortran bit for bit (', 3*ntrial, ' random arguments)'
    call check(bad == 0, trim(name))
    write(name, '(a,3es10.2,a)') 'portable log, exp, pow within 4 ulp of the intrinsics (max rel. errors', &
      e_log, e_exp, e_pow, ')'
    call check(e_log < 9.0e-16_rk .and. e_exp < 9.0e-16_rk .and. e_pow < 9.0e-16_rk, trim(name))
    call check(portable_pow(1.0_rk, 0.2857_rk) == 1.0_rk .and. portable_exp(0.0_rk) == 1.0_rk &
               .and. portable_log(1.0_rk) == 0.0_rk, 'portable pow(1, y) = exp(0) = 1 and log(1) = 0 exactly')
  end subroutine check_portable_math

  logical function same_bits(a, b)
    real(rk), intent(in) :: a, b
    same_bits = transfer(a, 1_c_int64_t) == transfer(b, 1_c_int64_t)
  end function same_bits

  logical function same_state(a, b)
    real(rk), intent(in) :: a(5), b(5)
    integer :: v
    same_state = .true.
    do v = 1, 5
      same_state = same_state .and. same_bits(a(v), b(v))
    end do
  end function same_state

  !> C == Fortran on random states in every regime of every type.
  subroutine check_twins()
    integer :: t, bad(4), regime(4)
    real(rk) :: qm(5), qf(5), qc(5), n(3), fs(5), in(5), vmax
    real(rk) :: rho, u, v, w, p, tt, vn, c
    bad = 0; regime = 0
    do t = 1, ntrial
      vmax = merge(0.3_rk, 2.0_rk/mach, mod(t, 3) /= 0)   ! subsonic, or up to Mach 2
      qm = random_state(vmax)
      n = random_normal()
      call slip_ghost_state(n(1), n(2), n(3), qm, qf)
      call c_slip_ghost_state(n, qm, qc)
      if (.not. same_state(qf, qc)) bad(1) = bad(1) + 1
      fs = [urand(0.9_rk, 1.1_rk), vmax*random_normal(), urand(0.9_rk, 1.1_rk)/sp%gm2]
      call farfield_ghost_state(sp, fs(1), fs(2), fs(3), fs(4), fs(5), n(1), n(2), n(3), qm, qf)
      call c_farfield_ghost_state(sp, fs, n, qm, qc)
      if (.not. same_state(qf, qc)) bad(2) = bad(2) + 1
      call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rho, u, v, w, p, tt)
      vn = u*n(1) + v*n(2) + w*n(3)
      c = sqrt(sp%gamma*p/rho)
      if (vn >= c) then
        regime(1) = regime(1) + 1
      else if (vn <= -c) then
        regime(2) = regime(2) + 1
      else if (vn > 0.0_rk) then
        regime(3) = regime(3) + 1
      else
        regime(4) = regime(4) + 1
      end if
      in = [urand(0.9_rk, 1.2_rk)/sp%gm2, urand(0.9_rk, 1.2_rk), -random_normal()]
      call subsonic_inflow_ghost_state(sp, in(1), in(2), in(3), in(4), in(5), n(1), n(2), n(3), qm, qf)
      call c_subsonic_inflow_ghost_state(sp, in, n, qm, qc)
      if (.not. same_state(qf, qc)) bad(3) = bad(3) + 1
      call subsonic_outflow_ghost_state(sp, in(1), qm, qf)
      call c_subsonic_outflow_ghost_state(sp, in(1), qm, qc)
      if (.not. same_state(qf, qc)) bad(4) = bad(4) + 1
    end do
    call check(bad(1) == 0, 'slip_ghost_state: C == Fortran bit for bit')
    call check(bad(2) == 0, 'farfield_ghost_state (supersonic out/in, subsonic out/in): C == Fortran bit for bit')
    call check(minval(regime) > 500, 'farfield twin test reaches all four regimes')
    call check(bad(3) == 0, 'subsonic_inflow_ghost_state: C == Fortran bit for bit')
    call check(bad(4) == 0, 'subsonic_outflow_ghost_state: C == Fortran bit for bit')
  end subroutine check_twins

  !> No mass through a slip face, normal momentum reversed, the rest kept.
  subroutine check_slip()
    integer :: t
    real(rk) :: qm(5), qg(5), n(3), f(5), pm(6), pg(6), err_mass, err_t, mn, mg
    err_mass = 0; err_t = 0
    do t = 1, 2000
      qm = random_state(0.5_rk)
      n = random_normal()
      call slip_ghost_state(n(1), n(2), n(3), qm, qg)
      call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), pm(1), pm(2), pm(3), pm(4), pm(5), pm(6))
      call cons_to_prim(sp, qg(1), qg(2), qg(3), qg(4), qg(5), pg(1), pg(2), pg(3), pg(4), pg(5), pg(6))
      call roe_flux(sp, pm(1), pm(2), pm(3), pm(4), pm(5), pg(1), pg(2), pg(3), pg(4), pg(5), n(1), n(2), n(3), f)
      err_mass = max(err_mass, abs(f(1)))
      mn = qm(2)*n(1) + qm(3)*n(2) + qm(4)*n(3)
      mg = qg(2)*n(1) + qg(3)*n(2) + qg(4)*n(3)
      err_t = max(err_t, abs(mn + mg), abs(pg(5) - pm(5))*sp%gm2, &
                  maxval(abs((qg(2:4) - mg*n) - (qm(2:4) - mn*n))))
    end do
    call check_close(err_mass, 0.0_rk, 1.0e-15_rk, 'slip face: Roe mass flux of interior|ghost is zero to round-off')
    call check_close(err_t, 0.0_rk, 1.0e-14_rk, &
      'slip face: normal momentum reversed, tangential momentum and pressure kept')
  end subroutine check_slip

  !> The farfield keeps a uniform free stream (every regime), and between
  !> the free stream and another interior state it carries R+ out of the
  !> interior and R- in from the free stream.
  subroutine check_farfield()
    integer :: t, k
    real(rk) :: qf(5), qg(5), qm(5), n(3), fs(5), err_keep, err_plus, err_minus
    real(rk) :: rho, u, v, w, p, tt, vn, c, rm, um, vm, wm, pmm, cm, vnm, cinf, vninf
    real(rk) :: speeds(4)
    err_keep = 0; err_plus = 0; err_minus = 0
    speeds = [0.5_rk, 0.95_rk, 1.5_rk/mach, 3.0_rk/mach]   ! Mach 0.1, 0.19, 1.5, 3 (U_ref = 1 at Mach 0.2)
    do t = 1, 4000
      k = 1 + mod(t, 4)
      fs = [urand(0.9_rk, 1.1_rk), speeds(k)*random_normal(), urand(0.9_rk, 1.1_rk)/sp%gm2]
      n = random_normal()
      call prim_to_cons(sp, fs(1), fs(2), fs(3), fs(4), fs(5), qf)
      call farfield_ghost_state(sp, fs(1), fs(2), fs(3), fs(4), fs(5), n(1), n(2), n(3), qf, qg)
      err_keep = max(err_keep, maxval(abs(qg - qf)/max(1.0_rk, abs(qf))))
      if (k <= 2) then
        qm = random_state(0.3_rk)
        call farfield_ghost_state(sp, fs(1), fs(2), fs(3), fs(4), fs(5), n(1), n(2), n(3), qm, qg)
        call cons_to_prim(sp, qg(1), qg(2), qg(3), qg(4), qg(5), rho, u, v, w, p, tt)
        call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rm, um, vm, wm, pmm, tt)
        vn = u*n(1) + v*n(2) + w*n(3); c = sqrt(sp%gamma*p/rho)
        vnm = um*n(1) + vm*n(2) + wm*n(3); cm = sqrt(sp%gamma*pmm/rm)
        vninf = fs(2)*n(1) + fs(3)*n(2) + fs(4)*n(3); cinf = sqrt(sp%gamma*fs(5)/fs(1))
        if (abs(vnm) < cm) then
          err_plus = max(err_plus, abs((vn + 2.0_rk*c/sp%gm1) - (vnm + 2.0_rk*cm/sp%gm1))/cm)
          err_minus = max(err_minus, abs((vn - 2.0_rk*c/sp%gm1) - (vninf - 2.0_rk*cinf/sp%gm1))/cm)
        end if
      end if
    end do
    call check_close(err_keep, 0.0_rk, 1.0e-14_rk, 'farfield: a uniform free stream stays (Mach 0.1 to 3, any normal)')
    call check_close(err_plus, 0.0_rk, 1.0e-13_rk, 'farfield: the outgoing invariant R+ comes from the interior')
    call check_close(err_minus, 0.0_rk, 1.0e-13_rk, 'farfield: the incoming invariant R- comes from the free stream')
  end subroutine check_farfield

  !> An inflow face has the total pressure, total temperature and direction
  !> given and carries the outgoing invariant R+ of the interior; an outflow
  !> face the static pressure given and the interior's density and velocity.
  subroutine check_inflow_outflow()
    integer :: t, nmoving, nrest
    real(rk) :: qm(5), qg(5), qprev(5), n(3), d(3), p0, t0, rho, u, v, w, p, tt, rm, um, vm, wm, pm, tm
    real(rk) :: m2, err_p0, err_t0, err_dir, err_r, err_out, vv, cb, jump, cost, rplus, err_rest
    err_p0 = 0; err_t0 = 0; err_dir = 0; err_r = 0; err_out = 0; nmoving = 0; nrest = 0; err_rest = 0
    do t = 1, 2000
      qm = random_state(0.3_rk)
      call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rm, um, vm, wm, pm, tm)
      n = random_normal()
      d = -n + 0.5_rk*random_normal()            ! into the domain, not always along the normal
      d = d/sqrt(sum(d*d))
      p0 = pm*urand(1.0_rk, 1.3_rk)
      t0 = urand(0.9_rk, 1.2_rk)
      call subsonic_inflow_ghost_state(sp, p0, t0, d(1), d(2), d(3), n(1), n(2), n(3), qm, qg)
      call cons_to_prim(sp, qg(1), qg(2), qg(3), qg(4), qg(5), rho, u, v, w, p, tt)
      vv = sqrt(u*u + v*v + w*w)
      m2 = (u*u + v*v + w*w)*rho/(sp%gamma*p)
      err_p0 = max(err_p0, abs(p*(1.0_rk + 0.5_rk*sp%gm1*m2)**sp%ggm1/p0 - 1.0_rk))
      err_t0 = max(err_t0, abs((tt + sp%gm2*vv*vv/(2.0_rk*sp%ggm1))/t0 - 1.0_rk))
      ! R+ is matched below 2 c0/(gamma-1); above it the face is at rest (stagnation)
      rplus = um*n(1) + vm*n(2) + wm*n(3) + 2.0_rk*sqrt(sp%gamma*pm/rm)/sp%gm1
      cost = sum(d*n)
      if (rplus >= 2.0_rk*sqrt(sp%gamma*t0/sp%gm2)/sp%gm1) then
        nrest = nrest + 1
        err_rest = max(err_rest, vv)
      else if (vv > 1.0e-3_rk) then
        nmoving = nmoving + 1
        err_dir = max(err_dir, maxval(abs([u, v, w]/vv - d)))
        cb = sqrt(sp%gamma*p/rho)
        err_r = max(err_r, abs((u*n(1) + v*n(2) + w*n(3) + 2.0_rk*cb/sp%gm1) - &
                               (um*n(1) + vm*n(2) + wm*n(3) + 2.0_rk*sqrt(sp%gamma*pm/rm)/sp%gm1))/cb)
      end if
      call subsonic_outflow_ghost_state(sp, p0, qm, qg)
      call cons_to_prim(sp, qg(1), qg(2), qg(3), qg(4), qg(5), rho, u, v, w, p, tt)
      err_out = max(err_out, abs(p/p0 - 1.0_rk), abs(rho - rm), abs(u - um), abs(v - vm), abs(w - wm))
    end do
    call check_close(err_p0, 0.0_rk, 1.0e-13_rk, 'subsonic inflow: total pressure of the ghost state = p0')
    call check_close(err_t0, 0.0_rk, 1.0e-13_rk, 'subsonic inflow: total temperature of the ghost state = t0')
    call check(nmoving > 500 .and. nrest > 100, 'subsonic inflow: the random interiors reach both the moving and the resting inflow')
    call check(err_rest < 1.0e-6_rk, 'subsonic inflow: an interior pushing out (R+ >= 2 c0/(gamma-1)) meets the stagnation state (|V| at round-off of c0)')
    call check_close(err_dir, 0.0_rk, 1.0e-12_rk, 'subsonic inflow: the flow along the given direction')
    call check_close(err_r, 0.0_rk, 1.0e-12_rk, 'subsonic inflow: the outgoing invariant R+ comes from the interior')
    call check_close(err_out, 0.0_rk, 1.0e-13_rk, 'subsonic outflow: p = p_out, density and velocity from the interior')
    ! An interior at rest at the total temperature is the stagnation state itself.
    call prim_to_cons(sp, 1.0_rk, 0.0_rk, 0.0_rk, 0.0_rk, 1.0_rk/sp%gm2, qm)
    call subsonic_inflow_ghost_state(sp, 1.05_rk/sp%gm2, 1.0_rk, 1.0_rk, 0.0_rk, 0.0_rk, -1.0_rk, 0.0_rk, 0.0_rk, qm, qg)
    call cons_to_prim(sp, qg(1), qg(2), qg(3), qg(4), qg(5), rho, u, v, w, p, tt)
    call check(abs(p*sp%gm2 - 1.05_rk) < 1.0e-14_rk .and. abs(tt - 1.0_rk) < 1.0e-14_rk .and. abs(u) < 1.0e-6_rk, &
      'subsonic inflow: an interior at rest at t0 gives the stagnation state (p0, t0, V = 0)')
    ! The ghost state moves continuously as the interior pressure rises through p0
    ! (the earlier clamp at p = p0 switched there, and an iteration settled on the switch).
    jump = 0
    cost = -1.0_rk
    do t = 0, 400
      call prim_to_cons(sp, 1.0_rk, 0.3_rk, 0.0_rk, 0.0_rk, (0.98_rk + 1.0e-4_rk*t)/sp%gm2, qm)
      call subsonic_inflow_ghost_state(sp, 1.0_rk/sp%gm2, 1.0_rk, 1.0_rk, 0.0_rk, 0.0_rk, cost, 0.0_rk, 0.0_rk, qm, qg)
      if (t > 0) jump = max(jump, maxval(abs(qg - qprev)/max(1.0_rk, abs(qg))))
      qprev = qg
    end do
    call check(jump < 2.0e-3_rk, 'subsonic inflow: the ghost state moves continuously as the interior pressure passes p0')
  end subroutine check_inflow_outflow
end program test_boundary_states
