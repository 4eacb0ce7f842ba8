!> Roe flux: consistency F(q, q) = F(q).S, exact upwinding for supersonic
!> states in both directions, and mirror symmetry F(qL,qR,S) = -F(qR',qL',-S),
!> each with the plain dissipation and with Rieper's low-Mach fix; and the
!> fix itself: a jump in normal velocity alone is dissipated z = min(1, M)
!> times as much, M = max(|V_L|/c_L, |V_R|/c_R), and a jump with no normal
!> velocity part (pressure, density, shear) exactly as much as without it.
program test_roe_flux
  use, intrinsic :: iso_fortran_env, only: int64
  use kinds, only: rk
  use solver_params
  use flow_math, only: roe_flux
  use test_util
  implicit none
  type(solver_params_t) :: sp
  real(rk) :: st(5), st2(5), s(3), f(5), fe(5), g(5), r(12), worst
  integer :: trial, m, mode
  character(len=*), parameter :: mode_name(0:1) = [character(len=28) :: '', ' (roe_low_mach = rieper)']

  sp%gamma = 1.4_rk; sp%gm1 = 0.4_rk; sp%ggm1 = 3.5_rk; sp%efix = 0.1_rk
  do mode = 0, 1
  sp%roe_low_mach = merge(ROE_LM_RIEPER, ROE_LM_NONE, mode == 1)
  call random_seed(put=[(12345 + m, m = 1, 64)])

  ! consistency
  worst = 0.0_rk
  do trial = 1, 2000
    call random_number(r)
    st = [0.5_rk + r(1), r(2) - 0.5_rk, r(3) - 0.5_rk, r(4) - 0.5_rk, 0.5_rk + 2.0_rk*r(5)]
    s = [r(6) - 0.5_rk, r(7) - 0.5_rk, r(8) - 0.5_rk]
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st(1), st(2), st(3), st(4), st(5), &
      s(1), s(2), s(3), f)
    call euler_flux(st, s, fe)
    worst = max(worst, maxval(abs(f - fe))/maxval(abs(fe)))
  end do
  call check(worst < 1.0e-14_rk, 'Roe flux consistency F(q,q) = F(q).S over 2000 random states'//trim(mode_name(mode)))

  ! supersonic: all waves to the right -> F = F(qL); to the left -> F = F(qR)
  worst = 0.0_rk
  do trial = 1, 1000
    call random_number(r)
    s = [1.0_rk, 0.2_rk*(r(9) - 0.5_rk), 0.2_rk*(r(10) - 0.5_rk)]
    st = [0.5_rk + r(1), 2.5_rk + r(2), r(3) - 0.5_rk, r(4) - 0.5_rk, 0.3_rk + 0.5_rk*r(5)]
    st2 = [0.5_rk + r(6), 2.5_rk + r(7), r(8) - 0.5_rk, r(11) - 0.5_rk, 0.3_rk + 0.5_rk*r(12)]
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st2(1), st2(2), st2(3), st2(4), st2(5), &
      s(1), s(2), s(3), f)
    call euler_flux(st, s, fe)
    worst = max(worst, maxval(abs(f - fe))/maxval(abs(fe)))
    st(2) = -st(2); st2(2) = -st2(2)
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st2(1), st2(2), st2(3), st2(4), st2(5), &
      s(1), s(2), s(3), f)
    call euler_flux(st2, s, fe)
    worst = max(worst, maxval(abs(f - fe))/maxval(abs(fe)))
  end do
  call check(worst < 1.0e-12_rk, 'Roe flux is pure upwind for supersonic states (both directions)'//trim(mode_name(mode)))

  ! mirror: swapping the sides and reversing the face gives minus the flux
  worst = 0.0_rk
  do trial = 1, 1000
    call random_number(r)
    st = [0.5_rk + r(1), r(2) - 0.5_rk, r(3) - 0.5_rk, r(4) - 0.5_rk, 0.5_rk + r(5)]
    st2 = [0.5_rk + r(6), r(7) - 0.5_rk, r(8) - 0.5_rk, r(9) - 0.5_rk, 0.5_rk + r(10)]
    s = [r(11), r(12), 0.3_rk]
    call roe_flux(sp, st(1), st(2), st(3), st(4), st(5), st2(1), st2(2), st2(3), st2(4), st2(5), &
      s(1), s(2), s(3), f)
    call roe_flux(sp, st2(1), st2(2), st2(3), st2(4), st2(5), st(1), st(2), st(3), st(4), st(5), &
      -s(1), -s(2), -s(3), g)
    worst = max(worst, maxval(abs(f + g))/maxval(abs(f)))
  end do
  call check(worst < 1.0e-13_rk, 'Roe flux mirror symmetry F(qL,qR,S) = -F(qR,qL,-S)'//trim(mode_name(mode)))
  end do

  call low_mach_fix_checks()
  call test_summary()

contains

  !> Rieper's fix against its definition, on low-Mach states (|V| < 0.18,
  !> c about 1.2: M up to about 0.15) with face normals of any orientation.
  subroutine low_mach_fix_checks()
    type(solver_params_t) :: pn, pr
    real(rk) :: n(3), sv(3), stl(5), str(5), fn(5), fr(5), fc(5), fe2(5), z, dn(5), dr(5), t(3)
    real(rk) :: worst_scale, zmin, zmax
    integer :: nsame, ntrial, it
    pn = sp
    pn%roe_low_mach = ROE_LM_NONE
    pr = sp
    pr%roe_low_mach = ROE_LM_RIEPER
    call random_seed(put=[(777 + it, it = 1, 64)])
    worst_scale = 0.0_rk
    zmin = 1.0_rk; zmax = 0.0_rk
    nsame = 0
    ntrial = 2000
    do it = 1, ntrial
      call random_number(r)
      sv = [r(1) - 0.5_rk, r(2) - 0.5_rk, r(3) - 0.5_rk]
      n = sv/sqrt(sum(sv*sv))
      stl = [1.0_rk, 0.2_rk*(r(4) - 0.5_rk), 0.2_rk*(r(5) - 0.5_rk), 0.2_rk*(r(6) - 0.5_rk), 1.0_rk]
      ! (1) a jump in normal velocity only: the dissipation D = F_central - F
      ! of every equation is z times the plain one
      str = stl
      str(2:4) = stl(2:4) + (0.01_rk*(1.0_rk + r(7)))*n   ! a jump well above rounding
      z = min(1.0_rk, max(sqrt(sum(stl(2:4)**2)/(sp%gamma*stl(5)/stl(1))), &
                          sqrt(sum(str(2:4)**2)/(sp%gamma*str(5)/str(1)))))
      zmin = min(zmin, z); zmax = max(zmax, z)
      call roe_flux(pn, stl(1), stl(2), stl(3), stl(4), stl(5), str(1), str(2), str(3), str(4), str(5), &
        sv(1), sv(2), sv(3), fn)
      call roe_flux(pr, stl(1), stl(2), stl(3), stl(4), stl(5), str(1), str(2), str(3), str(4), str(5), &
        sv(1), sv(2), sv(3), fr)
      call euler_flux(stl, sv, fc)
      call euler_flux(str, sv, fe2)
      fc = 0.5_rk*(fc + fe2)
      dn = fc - fn
      dr = fc - fr
      worst_scale = max(worst_scale, maxval(abs(dr - z*dn))/(z*maxval(abs(dn))))
      ! (2) jumps with no normal-velocity part: pressure, density and the
      ! tangential velocity (the shear wave). With a face normal along an axis
      ! the normal-velocity jump is exactly 0, and the flux must be the same
      ! bits as the plain one
      sv = 0.0_rk
      sv(1 + mod(it, 3)) = sign(0.5_rk + r(8), r(9) - 0.5_rk)
      str = stl
      str(1) = stl(1)*(1.0_rk + 0.01_rk*(r(10) - 0.5_rk))
      str(5) = stl(5)*(1.0_rk + 0.01_rk*(r(11) - 0.5_rk))
      t = 0.02_rk*(r(12) - 0.5_rk)
      where (sv == 0.0_rk) str(2:4) = stl(2:4) + t
      call roe_flux(pn, stl(1), stl(2), stl(3), stl(4), stl(5), str(1), str(2), str(3), str(4), str(5), &
        sv(1), sv(2), sv(3), fn)
      call roe_flux(pr, stl(1), stl(2), stl(3), stl(4), stl(5), str(1), str(2), str(3), str(4), str(5), &
        sv(1), sv(2), sv(3), fr)
      if (all(transfer(fn, 0_int64, 5) == transfer(fr, 0_int64, 5)) .and. any(fn /= 0.0_rk)) nsame = nsame + 1
    end do
    call check(worst_scale < 1.0e-10_rk .and. zmin < 0.02_rk .and. zmax > 0.1_rk, &
      'roe_low_mach = rieper: a normal-velocity jump is dissipated exactly z = min(1, max(M_L, M_R)) times '// &
      'the plain Roe dissipation (all 5 equations, low-Mach states)')
    call check(nsame == ntrial, 'roe_low_mach = rieper: jumps in pressure, density and tangential velocity '// &
      '(no normal-velocity jump) give the plain Roe flux bit for bit')
  end subroutine low_mach_fix_checks

  !> Physical Euler flux of primitive state w = (rho,u,v,w,p) through S.
  subroutine euler_flux(w, sv, fx)
    real(rk), intent(in) :: w(5), sv(3)
    real(rk), intent(out) :: fx(5)
    real(rk) :: un, h
    un = w(2)*sv(1) + w(3)*sv(2) + w(4)*sv(3)
    h = 3.5_rk*w(5)/w(1) + 0.5_rk*(w(2)**2 + w(3)**2 + w(4)**2)
    fx = [w(1)*un, w(1)*un*w(2) + w(5)*sv(1), w(1)*un*w(3) + w(5)*sv(2), &
          w(1)*un*w(4) + w(5)*sv(3), w(1)*un*h]
  end subroutine euler_flux
end program test_roe_flux
