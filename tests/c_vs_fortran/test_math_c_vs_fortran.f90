!> The per-point formulas of cuda/common/adiflow_math.h (the ones the CUDA
!> kernels use), compiled by gcc with -ffp-contract=off, against their
!> Fortran twins in flow_math.f90 on random inputs: every result must be the
!> same bits. This is what makes a bit-identical GPU backend possible (nvcc
!> compiles the same header with --fmad=false in the strict build). The
!> single-precision twins of implicit_precision = 'single' (the _sp functions,
!> fortran/flow_math_sp.f90) are checked the same way, on the same inputs
!> rounded to single precision.
program test_math_c_vs_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use kinds, only: rk, sk
  use solver_params
  use flow_math
  use flow_math_sp
  use test_util
  implicit none

  interface
    subroutine c_cons_to_prim(sp, q, out) bind(c, name='c_cons_to_prim')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: q(5)
      real(c_double), intent(out) :: out(6)
    end subroutine
    real(c_double) function c_viscosity(sp, t) bind(c, name='c_viscosity')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: t
    end function
    real(c_double) function c_limiter(sp, a, b) bind(c, name='c_limiter')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), value :: a, b
    end function
    subroutine c_roe_flux(sp, in, f) bind(c, name='c_roe_flux')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: in(13)
      real(c_double), intent(out) :: f(5)
    end subroutine
    subroutine c_char_from_cons(sp, st, n, r, ch) bind(c, name='c_char_from_cons')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: st(5), n(3), r(5)
      real(c_double), intent(out) :: ch(5)
    end subroutine
    subroutine c_cons_from_char(sp, st, n, ch, r) bind(c, name='c_cons_from_char')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: st(5), n(3), ch(5)
      real(c_double), intent(out) :: r(5)
    end subroutine
    subroutine c_wall_ghost_state(sp, wv, qm, qg) bind(c, name='c_wall_ghost_state')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: wv(3), qm(5)
      real(c_double), intent(out) :: qg(5)
    end subroutine
    subroutine c_eigen_parts(sp, in, out) bind(c, name='c_eigen_parts')
      import :: solver_params_t, c_double
      type(solver_params_t), intent(in) :: sp
      real(c_double), intent(in) :: in(10)
      real(c_double), intent(out) :: out(3)
    end subroutine
    subroutine c_viscous_face_flux(sp, dn, dphi, mv, s, fv) bind(c, name='c_viscous_face_flux')
      import :: solver_params_t, c_double, c_int
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: dn
      real(c_double), intent(in) :: dphi(3, 4), mv(3, 3), s(6)
      real(c_double), intent(out) :: fv(5)
    end subroutine
    subroutine c_eigen_split_sp(in, out) bind(c, name='c_eigen_split_sp')
      import :: c_float
      real(c_float), intent(in) :: in(3)
      real(c_float), intent(out) :: out(9)
    end subroutine
    subroutine c_char_from_cons_sp(sp, st, n, r, ch) bind(c, name='c_char_from_cons_sp')
      import :: solver_params_t, c_float
      type(solver_params_t), intent(in) :: sp
      real(c_float), intent(in) :: st(5), n(3), r(5)
      real(c_float), intent(out) :: ch(5)
    end subroutine
    subroutine c_cons_from_char_sp(sp, st, n, ch, r) bind(c, name='c_cons_from_char_sp')
      import :: solver_params_t, c_float
      type(solver_params_t), intent(in) :: sp
      real(c_float), intent(in) :: st(5), n(3), ch(5)
      real(c_float), intent(out) :: r(5)
    end subroutine
    subroutine c_adi4_sp(in, out) bind(c, name='c_adi4_sp')
      import :: c_float
      real(c_float), intent(in) :: in(4)
      real(c_float), intent(out) :: out(3)
    end subroutine
  end interface

  integer, parameter :: ntrial = 5000
  type(solver_params_t) :: sp
  integer :: combo, trial
  integer :: bad_prim, bad_visc, bad_lim, bad_roe, bad_chr, bad_cons, bad_wall, bad_eig, bad_vis
  integer :: n_efix, n_lim_zero, n_lim_tie, n_lm_scaled, n_lm_clipped, n_lm_moved
  integer :: bad_eig_sp, bad_chr_sp, bad_cons_sp, bad_swp_sp, n_sp_own
  real(rk) :: x(40)
  character(len=160) :: name

  call random_seed(put=[(4242 + trial, trial = 1, 64)])
  bad_prim = 0; bad_visc = 0; bad_lim = 0; bad_roe = 0; bad_chr = 0; bad_cons = 0
  bad_wall = 0; bad_eig = 0; bad_vis = 0
  n_efix = 0; n_lim_zero = 0; n_lim_tie = 0; n_lm_scaled = 0; n_lm_clipped = 0; n_lm_moved = 0
  bad_eig_sp = 0; bad_chr_sp = 0; bad_cons_sp = 0; bad_swp_sp = 0; n_sp_own = 0

  ! every combination of viscosity law, wall thermal condition and limiter,
  ! each with the plain Roe dissipation (combo < 16) and Rieper's low-Mach fix
  do combo = 0, 31
    call random_number(x)
    sp = make_params(1.1_rk + 0.6_rk*x(1), 0.05_rk + 2.0_rk*x(2), 10.0_rk + 1.0e4_rk*x(3), &
      0.5_rk + x(4), iand(combo, 1), mod(combo, 16)/4, iand(ishft(combo, -1), 1))
    sp%roe_low_mach = merge(ROE_LM_RIEPER, ROE_LM_NONE, combo >= 16)
    do trial = 1, ntrial
      call random_number(x)
      call one_trial(x)
    end do
  end do

  write(name, '(a,i0,a)') 'cons_to_prim: C == Fortran bit for bit (', 32*ntrial, ' random states)'
  call check(bad_prim == 0, trim(name))
  call check(bad_visc == 0, 'viscosity (constant and Sutherland): C == Fortran bit for bit')
  write(name, '(a,i0,a,i0,a)') 'limiter (van Albada, minmod, van Leer, venkat): C == Fortran bit for bit (', n_lim_zero, &
    ' extrema, ', n_lim_tie, ' ties)'
  call check(bad_lim == 0, trim(name))
  call check_venkat_regimes()
  write(name, '(a,i0,a)') 'roe_flux (roe_low_mach none and rieper): C == Fortran bit for bit (entropy fix active in ', &
    n_efix, ' cases)'
  call check(bad_roe == 0, trim(name))
  call check(n_efix > 100, 'roe_flux test reaches the entropy fix')
  write(name, '(a,i0,a,i0,a)') 'roe_flux test covers roe_low_mach = rieper both ways (z < 1 in ', &
    n_lm_scaled, ' cases, z = 1 in ', n_lm_clipped, ')'
  call check(n_lm_scaled > 1000 .and. n_lm_clipped > 1000, trim(name))
  write(name, '(a,i0,a,i0,a)') 'roe_low_mach = rieper changes the flux wherever z < 1 and dun /= 0 (', n_lm_moved, &
    ' of ', n_lm_scaled, ' cases), and only there'
  call check(n_lm_moved > n_lm_scaled/2, trim(name))
  call check(bad_chr == 0, 'char_from_cons: C == Fortran bit for bit')
  call check(bad_cons == 0, 'cons_from_char: C == Fortran bit for bit')
  call check(bad_wall == 0, 'wall_ghost_state (isothermal, adiabatic, moving lid): C == Fortran bit for bit')
  call check(bad_eig == 0, 'eigen_parts: C == Fortran bit for bit')
  call check(bad_vis == 0, 'viscous_face_flux (dn = 1, 2, 3): C == Fortran bit for bit')
  call check(bad_eig_sp == 0, 'eigen_split_sp (implicit_precision single): C == Fortran bit for bit')
  call check(bad_chr_sp == 0, 'char_from_cons_sp (implicit_precision single): C == Fortran bit for bit')
  call check(bad_cons_sp == 0, 'cons_from_char_sp (implicit_precision single): C == Fortran bit for bit')
  call check(bad_swp_sp == 0, 'adi4_fwd_first_sp, adi4_fwd_sp, adi4_bwd_sp (implicit_precision single): '// &
    'C == Fortran bit for bit')
  write(name, '(a,i0,a,i0,a)') 'char_from_cons_sp computes in single precision: it differs from the double '// &
    'result rounded to single in ', n_sp_own, ' of ', 32*ntrial, ' cases'
  call check(n_sp_own > 32*ntrial/20, trim(name))
  call test_summary()

contains

  !> venkat: the central slope (a+b)/2 well below the threshold (smooth
  !> extrema kept) and on a smooth monotone line (a = b); well above it an
  !> extremum is clipped to 0 and a monotone jump keeps within 2 min(a, b)
  !> (TVD); symmetric under (a, b) -> (b, a) and (a, b) -> (-a, -b).
  subroutine check_venkat_regimes()
    type(solver_params_t) :: s
    real(rk) :: small
    s = make_params(1.4_rk, 0.1_rk, 100.0_rk, 0.72_rk, 0, 3, 0)
    s%lim_eps2 = 1.0_rk
    small = limiter(s, 1.0e-4_rk, -3.0e-4_rk)
    call check(abs(small - (-1.0e-4_rk)) < 1.0e-11_rk, &
      'venkat below its threshold: a smooth extremum (a = 1e-4, b = -3e-4) keeps the central slope (a+b)/2')
    call check(limiter(s, 0.0_rk, 0.0_rk) == 0.0_rk, 'venkat: slope 0 where both differences are 0')
    call check(limiter(s, 0.3_rk, -0.7_rk) == limiter(s, -0.7_rk, 0.3_rk) .and. &
      limiter(s, 0.3_rk, -0.7_rk) == -limiter(s, -0.3_rk, 0.7_rk), 'venkat is symmetric in a and b and odd')
    s%lim_eps2 = 1.0e-20_rk
    call check(limiter(s, 0.25_rk, 0.25_rk) == 0.25_rk, 'venkat keeps the slope of a straight line (a = b)')
    call check(abs(limiter(s, 0.2_rk, -0.5_rk)) < 1.0e-15_rk, &
      'venkat well above its threshold clips an extremum (a*b < 0) to 0')
    call check(limiter(s, 0.01_rk, 1.0_rk) > 0.0_rk .and. limiter(s, 0.01_rk, 1.0_rk) <= 0.02_rk + 1.0e-15_rk, &
      'venkat well above its threshold keeps a monotone jump (a = 0.01, b = 1) within 0 < s <= 2 min(a, b)')
  end subroutine check_venkat_regimes

  !> Parameters as case_config's make_solver_params derives them.
  function make_params(gamma, mach, re, pr, visc, lim, wall) result(s)
    real(rk), intent(in) :: gamma, mach, re, pr
    integer, intent(in) :: visc, lim, wall
    type(solver_params_t) :: s
    s%gamma = gamma
    s%gm1 = gamma - 1.0_rk
    s%ggm1 = gamma/s%gm1
    s%gm2 = gamma*mach*mach
    s%re_inv = 1.0_rk/re
    s%cond_coef = 1.0_rk/(re*pr*s%gm1*mach*mach)
    s%sutherland_s = 110.4_rk/288.15_rk
    s%efix = 0.1_rk
    s%vis_fac = 2.0_rk
    s%t_wall = 0.8_rk + 0.4_rk*pr
    s%lid_u = 1.0_rk; s%lid_v = 0.0_rk; s%lid_w = 0.0_rk
    s%visc_law = merge(VISC_SUTHERLAND, VISC_CONSTANT, visc == 1)
    s%limiter = merge(LIM_MINMOD, merge(LIM_VANLEER, merge(LIM_VENKAT, LIM_VANALBADA, lim == 3), lim == 2), lim == 1)
    ! venkat's threshold eps = 0.1 inside the range of the random slopes
    ! (-0.5..0.5): both of its regimes are reached
    s%lim_eps2 = 0.01_rk
    s%wall_thermal = merge(WALL_ISOTHERMAL, WALL_ADIABATIC, wall == 1)
  end function make_params

  logical function same(a, b)
    real(rk), intent(in) :: a(:), b(:)
    same = all(transfer(a, 0_int64, size(a)) == transfer(b, 0_int64, size(b)))
  end function same

  logical function same_sp(a, b)
    real(sk), intent(in) :: a(:), b(:)
    same_sp = all(transfer(a, 0_int32, size(a)) == transfer(b, 0_int32, size(b)))
  end function same_sp

  !> A state rho, u, v, w, p with p near the case's pressure scale 1/(gamma M^2).
  function state(r) result(st)
    real(rk), intent(in) :: r(5)
    real(rk) :: st(5)
    st(1) = 0.5_rk + r(1)
    st(2) = 2.0_rk*(r(2) - 0.5_rk)
    st(3) = 2.0_rk*(r(3) - 0.5_rk)
    st(4) = 2.0_rk*(r(4) - 0.5_rk)
    st(5) = (0.7_rk + 0.6_rk*r(5))/sp%gm2
  end function state

  function cons(st) result(q)
    real(rk), intent(in) :: st(5)
    real(rk) :: q(5)
    q(1) = st(1)
    q(2) = st(1)*st(2)
    q(3) = st(1)*st(3)
    q(4) = st(1)*st(4)
    q(5) = st(5)/sp%gm1 + 0.5_rk*st(1)*(st(2)**2 + st(3)**2 + st(4)**2)
  end function cons

  subroutine one_trial(x)
    real(rk), intent(in) :: x(40)
    real(rk) :: stl(5), str(5), q(5), o6(6), f6(6), fo(5), co(5), s(3), n(3), r(5), ch(5), ch2(5)
    real(rk) :: in13(13), in10(10), o3(3), f3(3), dphi(3, 4), mv(3, 3), s6(6), a, b, c, t, kk(3)
    real(rk) :: unt, ct, fl(5)
    real(sk) :: stf(5), nf(3), rf(5), chf(5), chf2(5), rf2(5), rf3(5), e9(9), e9c(9), w4(4), o3f(3)
    integer :: dn, k
    integer(c_int) :: dnc

    stl = state(x(1:5))
    str = state(x(6:10))
    if (x(30) < 0.3_rk) str = stl*(1.0_rk + 1.0e-3_rk*(x(6:10) - 0.5_rk))   ! smooth neighbours

    ! cons_to_prim
    q = cons(stl)
    call cons_to_prim(sp, q(1), q(2), q(3), q(4), q(5), f6(1), f6(2), f6(3), f6(4), f6(5), f6(6))
    call c_cons_to_prim(sp, q, o6)
    if (.not. same(f6, o6)) bad_prim = bad_prim + 1

    ! viscosity over a wide temperature range
    t = 0.2_rk + 3.0_rk*x(11)
    if (.not. same([viscosity(sp, t)], [c_viscosity(sp, t)])) bad_visc = bad_visc + 1

    ! limiter: random slopes, extrema (a*b <= 0), zeros and exact ties |a| = |b|
    a = x(12) - 0.5_rk
    b = x(13) - 0.5_rk
    if (x(14) < 0.1_rk) b = 0.0_rk
    if (x(14) > 0.9_rk) b = sign(a, x(15) - 0.5_rk)
    if (a*b <= 0.0_rk) n_lim_zero = n_lim_zero + 1
    if (abs(a) == abs(b)) n_lim_tie = n_lim_tie + 1
    if (.not. same([limiter(sp, a, b)], [c_limiter(sp, a, b)])) bad_lim = bad_lim + 1
    if (.not. same([limiter(sp, b, a)], [c_limiter(sp, b, a)])) bad_lim = bad_lim + 1

    ! Roe flux, with face normals of any orientation; some states put the
    ! normal velocity close to the sound speed to reach the entropy fix
    s = [x(16) - 0.5_rk, x(17) - 0.5_rk, x(18) - 0.5_rk]
    if (x(19) < 0.25_rk) then
      c = sqrt(sp%gamma*stl(5)/stl(1))
      n = s/sqrt(sum(s*s))
      stl(2:4) = (c*(1.0_rk + 0.2_rk*(x(20) - 0.5_rk)))*n*merge(1.0_rk, -1.0_rk, x(21) < 0.5_rk)
      str(2:4) = stl(2:4)*(1.0_rk + 0.01_rk*(x(22) - 0.5_rk))
      str(1) = stl(1)*(1.0_rk + 0.01_rk*(x(23) - 0.5_rk))
      str(5) = stl(5)*(1.0_rk + 0.01_rk*(x(24) - 0.5_rk))
    end if
    in13 = [stl, str, s]
    call roe_flux(sp, stl(1), stl(2), stl(3), stl(4), stl(5), str(1), str(2), str(3), str(4), str(5), &
      s(1), s(2), s(3), fl)
    call c_roe_flux(sp, in13, fo)
    if (.not. same(fl, fo)) bad_roe = bad_roe + 1
    if (sp%roe_low_mach == ROE_LM_RIEPER) call low_mach_counts(stl, str, s, fl)
    ! count the cases where the entropy fix is active (rough Roe-average check)
    unt = dot_product(0.5_rk*(stl(2:4) + str(2:4)), s/sqrt(sum(s*s)))
    ct = sqrt(sp%gamma*0.5_rk*(stl(5) + str(5))/(0.5_rk*(stl(1) + str(1))))
    if (abs(abs(unt) - ct) < sp%efix*ct) n_efix = n_efix + 1

    ! characteristic transforms, both ways, with a unit normal
    kk = [x(25) - 0.5_rk, x(26) - 0.5_rk, x(27) - 0.5_rk]
    n = kk/sqrt(kk(1)*kk(1) + kk(2)*kk(2) + kk(3)*kk(3))
    r = 1.0e-3_rk*(x(31:35) - 0.5_rk)
    call char_from_cons(sp, stl(1), stl(2), stl(3), stl(4), stl(5), n(1), n(2), n(3), r, ch)
    call c_char_from_cons(sp, stl, n, r, ch2)
    if (.not. same(ch, ch2)) bad_chr = bad_chr + 1
    call cons_from_char(sp, stl(1), stl(2), stl(3), stl(4), stl(5), n(1), n(2), n(3), ch, r)
    call c_cons_from_char(sp, stl, n, ch, co)
    if (.not. same(r, co)) bad_cons = bad_cons + 1

    ! their single-precision twins on the same inputs rounded to single
    stf = real(stl, sk)
    nf = real(n, sk)
    rf = real(1.0e-3_rk*(x(31:35) - 0.5_rk), sk)
    call char_from_cons_sp(sp, stf(1), stf(2), stf(3), stf(4), stf(5), nf(1), nf(2), nf(3), rf, chf)
    call c_char_from_cons_sp(sp, stf, nf, rf, chf2)
    if (.not. same_sp(chf, chf2)) bad_chr_sp = bad_chr_sp + 1
    call char_from_cons(sp, real(stf(1), rk), real(stf(2), rk), real(stf(3), rk), real(stf(4), rk), &
      real(stf(5), rk), real(nf(1), rk), real(nf(2), rk), real(nf(3), rk), real(rf, rk), ch2)
    if (.not. same_sp(chf, real(ch2, sk))) n_sp_own = n_sp_own + 1
    call cons_from_char_sp(sp, stf(1), stf(2), stf(3), stf(4), stf(5), nf(1), nf(2), nf(3), chf, rf2)
    call c_cons_from_char_sp(sp, stf, nf, chf, rf3)
    if (.not. same_sp(rf2, rf3)) bad_cons_sp = bad_cons_sp + 1

    ! wall ghost state: resting and moving walls
    q = cons(str)
    call wall_ghost_state(sp, 0.0_rk, 0.0_rk, 0.0_rk, q, fl)
    call c_wall_ghost_state(sp, [0.0_rk, 0.0_rk, 0.0_rk], q, fo)
    if (.not. same(fl, fo)) bad_wall = bad_wall + 1
    call wall_ghost_state(sp, sp%lid_u*x(28), 0.1_rk*x(29), -0.1_rk*x(30), q, fl)
    call c_wall_ghost_state(sp, [sp%lid_u*x(28), 0.1_rk*x(29), -0.1_rk*x(30)], q, fo)
    if (.not. same(fl, fo)) bad_wall = bad_wall + 1

    ! eigenvalue parts
    c = sqrt(sp%gamma*stl(5)/stl(1))
    in10 = [stl(1), stl(2), stl(3), stl(4), c, viscosity(sp, 1.0_rk + x(36)), 1.0e-4_rk*(0.5_rk + x(37)), &
      kk(1), kk(2), kk(3)]
    call eigen_parts(sp, in10(1), in10(2), in10(3), in10(4), in10(5), in10(6), in10(7), in10(8), in10(9), &
      in10(10), f3(1), f3(2), f3(3))
    call c_eigen_parts(sp, in10, o3)
    if (.not. same(f3, o3)) bad_eig = bad_eig + 1
    call eigen_split_sp(real(f3(1), sk), real(f3(2), sk), real(f3(3), sk), e9(1:3), e9(4:6), e9(7:9))
    call c_eigen_split_sp(real(f3, sk), e9c)
    if (.not. same_sp(e9, e9c)) bad_eig_sp = bad_eig_sp + 1

    ! the sweep recurrences' single-precision steps
    w4 = real([x(36) - 0.5_rk, 0.9_rk*(x(37) - 0.5_rk), 1.0_rk + 2.0_rk*x(38), x(39) - 0.5_rk], sk)
    call c_adi4_sp(w4, o3f)
    if (.not. same_sp([adi4_fwd_first_sp(w4(1), w4(3)), adi4_fwd_sp(w4(1), w4(2), w4(3), w4(4)), &
      adi4_bwd_sp(w4(1), w4(2), w4(4))], o3f)) bad_swp_sp = bad_swp_sp + 1

    ! viscous face flux through each face direction
    do k = 1, 4
      dphi(:, k) = 0.1_rk*([x(k), x(k + 10), x(k + 20)] - 0.5_rk)
    end do
    mv = reshape(0.01_rk*(x(1:9) - 0.5_rk), [3, 3])
    s6 = [1.0e-6_rk*(0.5_rk + x(38)), stl(2), stl(3), stl(4), 0.8_rk + 0.4_rk*x(39), 0.8_rk + 0.4_rk*x(40)]
    do dn = 1, 3
      dnc = int(dn, c_int)
      call viscous_face_flux(sp, dn, dphi, mv, s6(1), s6(2), s6(3), s6(4), s6(5), s6(6), fl)
      call c_viscous_face_flux(sp, dnc, dphi, mv, s6, fo)
      if (.not. same(fl, fo)) bad_vis = bad_vis + 1
    end do
  end subroutine one_trial
  !> Rieper's z from its definition, counted: z < 1 (the fix acts: the flux
  !> must differ from the plain one where the normal velocity jumps) or
  !> z = 1 (the flux must equal the plain one, bit for bit). A miss in
  !> either counts against n_lm_moved through a negative offset.
  subroutine low_mach_counts(stl, str, s, fl)
    real(rk), intent(in) :: stl(5), str(5), s(3), fl(5)
    type(solver_params_t) :: plain
    real(rk) :: fp(5), ml, mr, dun
    ml = sqrt(sum(stl(2:4)**2)/(sp%gamma*stl(5)/stl(1)))
    mr = sqrt(sum(str(2:4)**2)/(sp%gamma*str(5)/str(1)))
    dun = dot_product(str(2:4) - stl(2:4), s)
    plain = sp
    plain%roe_low_mach = ROE_LM_NONE
    call roe_flux(plain, stl(1), stl(2), stl(3), stl(4), stl(5), str(1), str(2), str(3), str(4), str(5), &
      s(1), s(2), s(3), fp)
    if (max(ml, mr) < 0.999_rk) then
      n_lm_scaled = n_lm_scaled + 1
      if (dun /= 0.0_rk .and. .not. same(fl, fp)) n_lm_moved = n_lm_moved + 1
    else if (max(ml, mr) > 1.001_rk) then
      n_lm_clipped = n_lm_clipped + 1
      if (.not. same(fl, fp)) n_lm_moved = n_lm_moved - 1000000
    end if
  end subroutine low_mach_counts
end program test_math_c_vs_fortran
