!> Per-point formulas: primitive variables, viscosity, limiter, Roe flux,
!> characteristic transforms, wall ghost state.
!>
!> Mirror: cuda/common/adiflow_math.h. The two files read side by side with the
!> same names and the same order of operations (every sum written left to
!> right as here), so the CPU and GPU backends agree bit for bit when FMA
!> contraction is off. Change one, change the other.
module flow_math
  use kinds, only: rk
  use solver_params
  implicit none
  private
  real(rk), parameter :: two_thirds = 2.0_rk/3.0_rk
  public :: rest_pressure, cons_to_prim, prim_to_cons, viscosity, limiter, roe_flux
  public :: char_from_cons, cons_from_char, wall_ghost_state, wall_ghost_temperature
  public :: char_entropy_parts, cons_from_parts
  public :: eigen_parts, viscous_face_flux, unit_normal

contains

  !> Pressure of the reference state at rest, rho = 1 and T = 1 (T = gamma
  !> Mach^2 p / rho, pressure in units of rho_0 U_0^2): 1/(gamma Mach^2).
  !> The initial state of every run, and p_0 of the output's cp.
  pure real(rk) function rest_pressure(sp)
    type(solver_params_t), intent(in) :: sp
    rest_pressure = 1.0_rk/sp%gm2
  end function rest_pressure

  pure subroutine cons_to_prim(sp, q1, q2, q3, q4, q5, rho, u, v, w, p, t)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: q1, q2, q3, q4, q5
    real(rk), intent(out) :: rho, u, v, w, p, t
    rho = q1
    u = q2/rho
    v = q3/rho
    w = q4/rho
    p = sp%gm1*(q5 - 0.5_rk*(q2*u + q3*v + q4*w))
    t = sp%gm2*p/rho
  end subroutine cons_to_prim

  !> Conservative state of (rho, u, v, w, p).
  pure subroutine prim_to_cons(sp, rho, u, v, w, p, q)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rho, u, v, w, p
    real(rk), intent(out) :: q(5)
    q(1) = rho
    q(2) = rho*u
    q(3) = rho*v
    q(4) = rho*w
    q(5) = p/sp%gm1 + 0.5_rk*rho*(u*u + v*v + w*w)
  end subroutine prim_to_cons

  !> Nondimensional molecular viscosity mu(T) (mu = 1 at T = 1).
  pure function viscosity(sp, t) result(mu)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: t
    real(rk) :: mu
    if (sp%visc_law == VISC_SUTHERLAND) then
      mu = t*sqrt(t)*(1.0_rk + sp%sutherland_s)/(t + sp%sutherland_s)
    else
      mu = 1.0_rk
    end if
  end function viscosity

  !> Slope limiter of two one-sided differences a = q(i) - q(i-1) and
  !> b = q(i+1) - q(i): van Albada, minmod, van Leer's harmonic mean
  !> 2ab/(a+b) (these three zero at extrema), or Venkatakrishnan's
  !> (LIM_VENKAT, venkat_slope).
  pure function limiter(sp, a, b) result(s)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: a, b
    real(rk) :: s
    if (sp%limiter == LIM_VENKAT) then
      s = venkat_slope(sp%lim_eps2, a, b)
    else if (a*b <= 0.0_rk) then
      s = 0.0_rk
    else if (sp%limiter == LIM_MINMOD) then
      if (abs(a) < abs(b)) then
        s = a
      else
        s = b
      end if
    else if (sp%limiter == LIM_VANLEER) then
      s = 2.0_rk*a*b/(a + b)
    else
      s = a*b*(a + b)/(a*a + b*b)
    end if
  end function limiter

  !> Venkatakrishnan's limiter (J. Comput. Phys. 118, 1995) along one grid
  !> line: the central slope (a+b)/2, scaled by the smaller of the smooth
  !> factors phi = num/den of its two face increments (+-h, h = |a+b|/4)
  !> against the room to the neighbours' extreme values (bp, bm), and by at
  !> most 1. The threshold eps2 lets increments well below it through
  !> unscaled, smooth extrema included; well above it an extremum is clipped
  !> to a zero slope. The two factors are compared by cross products (the
  !> denominators are positive), so that only the smaller one is divided out.
  pure function venkat_slope(eps2, a, b) result(s)
    real(rk), intent(in) :: eps2, a, b
    real(rk) :: s, sigma, h, bp, bm, nump, denp, numm, denm
    sigma = 0.5_rk*(a + b)
    if (sigma == 0.0_rk) then
      s = 0.0_rk
    else
      h = 0.5_rk*abs(sigma)
      bp = max(max(0.0_rk, -a), b)
      bm = max(max(0.0_rk, a), -b)
      nump = bp*bp + eps2 + 2.0_rk*h*bp
      denp = bp*bp + 2.0_rk*h*h + h*bp + eps2
      numm = bm*bm + eps2 + 2.0_rk*h*bm
      denm = bm*bm + 2.0_rk*h*h + h*bm + eps2
      if (numm*denp < nump*denm) then
        nump = numm
        denp = denm
      end if
      if (nump >= denp) then
        s = sigma
      else
        s = (nump/denp)*sigma
      end if
    end if
  end function venkat_slope

  !> Roe flux-difference splitting with Harten's entropy fix on the acoustic
  !> waves, through a face of area vector (sx, sy, sz). Returns flux * area.
  !> With sp%roe_low_mach == ROE_LM_RIEPER, Rieper's low-Mach fix (J. Comput.
  !> Phys. 230, 2011): the normal-velocity jump in the acoustic wave
  !> strengths is scaled by z = min(1, M), M the larger local Mach number of
  !> the two sides.
  pure subroutine roe_flux(sp, rl, ul, vl, wl, pl, rr, ur, vr, wr, pr, sx, sy, sz, f)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rl, ul, vl, wl, pl, rr, ur, vr, wr, pr, sx, sy, sz
    real(rk), intent(out) :: f(5)
    real(rk) :: area, nx, ny, nz, unl, unr, hl, hr, sl, sr, ssum, rt
    real(rk) :: ut, vt, wt, ht, q2t, ct, unt, dr, dp, du, dv, dw, dun
    real(rk) :: m2l, m2r, z, dunz
    real(rk) :: a1, a2, a5, l1, l2, l5, delta, fl1, fr1
    real(rk) :: d1, d2, d3, d4, d5
    ! reciprocals taken once and multiplied: each division is a long
    ! dependent chain on a GPU, and a face of the fused flux had about 30
    real(rk) :: rarea, rsum, rc2

    area = sqrt(sx*sx + sy*sy + sz*sz)
    rarea = 1.0_rk/area
    nx = sx*rarea
    ny = sy*rarea
    nz = sz*rarea
    unl = ul*nx + vl*ny + wl*nz
    unr = ur*nx + vr*ny + wr*nz
    hl = sp%ggm1*pl/rl + 0.5_rk*(ul*ul + vl*vl + wl*wl)
    hr = sp%ggm1*pr/rr + 0.5_rk*(ur*ur + vr*vr + wr*wr)

    ! Roe averages
    sl = sqrt(rl)
    sr = sqrt(rr)
    ssum = sl + sr
    rt = sl*sr
    rsum = 1.0_rk/ssum
    ut = (sl*ul + sr*ur)*rsum
    vt = (sl*vl + sr*vr)*rsum
    wt = (sl*wl + sr*wr)*rsum
    ht = (sl*hl + sr*hr)*rsum
    q2t = 0.5_rk*(ut*ut + vt*vt + wt*wt)
    ct = sqrt(sp%gm1*(ht - q2t))
    unt = ut*nx + vt*ny + wt*nz

    ! jumps and wave strengths
    dr = rr - rl
    dp = pr - pl
    du = ur - ul
    dv = vr - vl
    dw = wr - wl
    dun = unr - unl
    ! Low-Mach fix: Roe's acoustic waves dissipate momentum by about
    ! rho*c*dun, 1/M times what the flow speed calls for, so at low Mach the
    ! velocity field carries an error that grows as 1/M. Scaling dun by z
    ! there makes that term rho*|V|*dun; z = 1 (the plain Roe flux, bit for
    ! bit) from M = 1 up. The shear (l2) terms keep dun: they are not the defect.
    dunz = dun
    if (sp%roe_low_mach == ROE_LM_RIEPER) then
      m2l = (ul*ul + vl*vl + wl*wl)*rl/(sp%gamma*pl)
      m2r = (ur*ur + vr*vr + wr*wr)*rr/(sp%gamma*pr)
      z = m2l
      if (m2r > z) z = m2r
      z = sqrt(z)
      if (z > 1.0_rk) z = 1.0_rk
      dunz = z*dun
    end if
    rc2 = 1.0_rk/(ct*ct)
    a1 = (dp - rt*ct*dunz)*(0.5_rk*rc2)
    a5 = (dp + rt*ct*dunz)*(0.5_rk*rc2)
    a2 = dr - dp*rc2

    ! wave speeds, entropy fix on the acoustic ones
    l1 = abs(unt - ct)
    l2 = abs(unt)
    l5 = abs(unt + ct)
    delta = sp%efix*ct
    if (l1 < delta) l1 = (l1*l1 + delta*delta)/(2.0_rk*delta)
    if (l5 < delta) l5 = (l5*l5 + delta*delta)/(2.0_rk*delta)

    ! |A| dq
    d1 = l1*a1 + l2*a2 + l5*a5
    d2 = l1*a1*(ut - ct*nx) + l2*(a2*ut + rt*(du - nx*dun)) + l5*a5*(ut + ct*nx)
    d3 = l1*a1*(vt - ct*ny) + l2*(a2*vt + rt*(dv - ny*dun)) + l5*a5*(vt + ct*ny)
    d4 = l1*a1*(wt - ct*nz) + l2*(a2*wt + rt*(dw - nz*dun)) + l5*a5*(wt + ct*nz)
    d5 = l1*a1*(ht - unt*ct) + l2*(a2*q2t + rt*(ut*du + vt*dv + wt*dw - unt*dun)) &
       + l5*a5*(ht + unt*ct)

    fl1 = rl*unl
    fr1 = rr*unr
    f(1) = 0.5_rk*(fl1 + fr1 - d1)*area
    f(2) = 0.5_rk*(fl1*ul + pl*nx + (fr1*ur + pr*nx) - d2)*area
    f(3) = 0.5_rk*(fl1*vl + pl*ny + (fr1*vr + pr*ny) - d3)*area
    f(4) = 0.5_rk*(fl1*wl + pl*nz + (fr1*wr + pr*nz) - d4)*area
    f(5) = 0.5_rk*(fl1*hl + fr1*hr - d5)*area
  end subroutine roe_flux

  !> The unit normal (nx, ny, nz) of a cell's metric vector (kx, ky, kz):
  !> ADI stages 3 and 5 transform along it. 1/|k| is taken once and
  !> multiplied (a division is a long dependent chain on a GPU).
  pure subroutine unit_normal(kx, ky, kz, nx, ny, nz)
    real(rk), intent(in) :: kx, ky, kz
    real(rk), intent(out) :: nx, ny, nz
    real(rk) :: kmag, rkmag
    kmag = sqrt(kx*kx + ky*ky + kz*kz)
    rkmag = 1.0_rk/kmag
    nx = kx*rkmag
    ny = ky*rkmag
    nz = kz*rkmag
  end subroutine unit_normal

  !> The part of ADI stage 3 that every form shares: the entropy and
  !> vorticity characteristics ch(1:3) of the conservative increments r along
  !> the unit normal n, the pressure part pc = dp/(rho c) and the normal
  !> velocity increment dun, which char_from_cons (and, preconditioned,
  !> char_from_cons_pc) turn into the acoustic pair.
  pure subroutine char_entropy_parts(sp, rho, u, v, w, p, nx, ny, nz, r, ch, pc, dun)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rho, u, v, w, p, nx, ny, nz, r(5)
    real(rk), intent(inout) :: ch(5)
    real(rk), intent(out) :: pc, dun
    real(rk) :: c, q2h, dpr, du, dv, dw, ent, rrho, rc
    c = sqrt(sp%gamma*p/rho)
    rrho = 1.0_rk/rho
    rc = 1.0_rk/c
    q2h = 0.5_rk*(u*u + v*v + w*w)
    dpr = sp%gm1*(r(5) - (u*r(2) + v*r(3) + w*r(4)) + q2h*r(1))
    du = (r(2) - u*r(1))*rrho
    dv = (r(3) - v*r(1))*rrho
    dw = (r(4) - w*r(1))*rrho
    dun = nx*du + ny*dv + nz*dw
    ent = r(1) - dpr*(rc*rc)
    ch(1) = nx*ent - (ny*dw - nz*dv)
    ch(2) = ny*ent - (nz*du - nx*dw)
    ch(3) = nz*ent - (nx*dv - ny*du)
    pc = dpr*(rrho*rc)
  end subroutine char_entropy_parts

  !> ADI stage 3 at one point: conservative increments r(1:5) to the
  !> characteristic variables of direction n (unit normal). w(1:3) travel
  !> with U, w(4) with U + c|k|, w(5) with U - c|k|.
  pure subroutine char_from_cons(sp, rho, u, v, w, p, nx, ny, nz, r, ch)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rho, u, v, w, p, nx, ny, nz, r(5)
    real(rk), intent(out) :: ch(5)
    real(rk) :: pc, dun
    call char_entropy_parts(sp, rho, u, v, w, p, nx, ny, nz, r, ch, pc, dun)
    ch(4) = 0.5_rk*(pc + dun)
    ch(5) = 0.5_rk*(pc - dun)
  end subroutine char_from_cons

  !> The part of ADI stage 5 that every form shares: the conservative
  !> increments r from the entropy and vorticity characteristics ch(1:3), the
  !> normal velocity increment dun and the pressure increment dpr (sound
  !> speed c).
  pure subroutine cons_from_parts(sp, rho, u, v, w, c, nx, ny, nz, ch, dun, dpr, r)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rho, u, v, w, c, nx, ny, nz, ch(5), dun, dpr
    real(rk), intent(out) :: r(5)
    real(rk) :: q2h, ent, du, dv, dw, rc
    rc = 1.0_rk/c
    q2h = 0.5_rk*(u*u + v*v + w*w)
    ent = nx*ch(1) + ny*ch(2) + nz*ch(3)
    du = (ny*ch(3) - nz*ch(2)) + nx*dun
    dv = (nz*ch(1) - nx*ch(3)) + ny*dun
    dw = (nx*ch(2) - ny*ch(1)) + nz*dun
    r(1) = ent + dpr*(rc*rc)
    r(2) = rho*du + u*r(1)
    r(3) = rho*dv + v*r(1)
    r(4) = rho*dw + w*r(1)
    r(5) = dpr/sp%gm1 + q2h*r(1) + rho*(u*du + v*dv + w*dw)
  end subroutine cons_from_parts

  !> ADI stage 5 at one point: the inverse of char_from_cons.
  pure subroutine cons_from_char(sp, rho, u, v, w, p, nx, ny, nz, ch, r)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rho, u, v, w, p, nx, ny, nz, ch(5)
    real(rk), intent(out) :: r(5)
    real(rk) :: c
    c = sqrt(sp%gamma*p/rho)
    call cons_from_parts(sp, rho, u, v, w, c, nx, ny, nz, ch, ch(4) - ch(5), rho*c*(ch(4) + ch(5)), r)
  end subroutine cons_from_char

  !> Ghost state mirroring an interior state across a no-slip wall moving
  !> with velocity (uw, vw, ww): density and pressure mirrored (no mass
  !> crosses the wall), velocity reflected about the wall velocity. An
  !> isothermal wall sets the ghost temperature separately
  !> (wall_ghost_temperature, applied to the primitives).
  pure subroutine wall_ghost_state(sp, uw, vw, ww, qm, qg)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: uw, vw, ww, qm(5)
    real(rk), intent(out) :: qg(5)
    real(rk) :: rho, u, v, w, p, t, ug, vg, wg
    call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rho, u, v, w, p, t)
    ug = 2.0_rk*uw - u
    vg = 2.0_rk*vw - v
    wg = 2.0_rk*ww - w
    call prim_to_cons(sp, rho, ug, vg, wg, p, qg)
  end subroutine wall_ghost_state

  !> Ghost temperature of an isothermal wall: linear through t_wall on the face.
  pure function wall_ghost_temperature(sp, tm) result(tg)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: tm
    real(rk) :: tg
    tg = 2.0_rk*sp%t_wall - tm
  end function wall_ghost_temperature

  !> Pieces of the eigenvalues of direction k = (kx, ky, kz) (the cell's
  !> area-weighted metric vector): contravariant velocity ucon = u.k, the
  !> acoustic part ck = c|k| and the viscous spectral term lv.
  !> Eigenvalues are ucon (three times), ucon + ck, ucon - ck.
  pure subroutine eigen_parts(sp, rho, u, v, w, c, mu, vol, kx, ky, kz, ucon, ck, lv)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rho, u, v, w, c, mu, vol, kx, ky, kz
    real(rk), intent(out) :: ucon, ck, lv
    real(rk) :: kk
    kk = kx*kx + ky*ky + kz*kz
    ucon = u*kx + v*ky + w*kz
    ck = c*sqrt(kk)
    lv = sp%vis_fac*mu*sp%re_inv*kk/(rho*vol)
  end subroutine eigen_parts

  !> Viscous flux through a face of area vector mv(:,dn) (dn: the face's
  !> direction). dphi(d, v) is the computational-space difference of
  !> variable v (u, v, w, T) along direction d, mv(:, d) the metric vector of
  !> direction d at the face, volf the face's control volume. Green-Gauss in
  !> computational space: grad = (mv(:,1) d1 + mv(:,2) d2 + mv(:,3) d3) / volf
  !> (times 1/volf, taken once).
  pure subroutine viscous_face_flux(sp, dn, dphi, mv, volf, uf, vf, wf, tl, tr, fv)
    type(solver_params_t), intent(in) :: sp
    integer, intent(in) :: dn
    real(rk), intent(in) :: dphi(3, 4), mv(3, 3), volf, uf, vf, wf, tl, tr
    real(rk), intent(out) :: fv(5)
    real(rk) :: g(3, 4), muf, mue, kq, div, txx, tyy, tzz, txy, txz, tyz
    real(rk) :: sx, sy, sz, rvol
    integer :: v
    rvol = 1.0_rk/volf
    do v = 1, 4
      g(1, v) = (mv(1, 1)*dphi(1, v) + mv(1, 2)*dphi(2, v) + mv(1, 3)*dphi(3, v))*rvol
      g(2, v) = (mv(2, 1)*dphi(1, v) + mv(2, 2)*dphi(2, v) + mv(2, 3)*dphi(3, v))*rvol
      g(3, v) = (mv(3, 1)*dphi(1, v) + mv(3, 2)*dphi(2, v) + mv(3, 3)*dphi(3, v))*rvol
    end do
    muf = 0.5_rk*(viscosity(sp, tl) + viscosity(sp, tr))
    mue = muf*sp%re_inv
    kq = muf*sp%cond_coef
    div = g(1, 1) + g(2, 2) + g(3, 3)
    txx = mue*(2.0_rk*g(1, 1) - two_thirds*div)
    tyy = mue*(2.0_rk*g(2, 2) - two_thirds*div)
    tzz = mue*(2.0_rk*g(3, 3) - two_thirds*div)
    txy = mue*(g(2, 1) + g(1, 2))
    txz = mue*(g(3, 1) + g(1, 3))
    tyz = mue*(g(3, 2) + g(2, 3))
    sx = mv(1, dn)
    sy = mv(2, dn)
    sz = mv(3, dn)
    fv(1) = 0.0_rk
    fv(2) = txx*sx + txy*sy + txz*sz
    fv(3) = txy*sx + tyy*sy + tyz*sz
    fv(4) = txz*sx + tyz*sy + tzz*sz
    fv(5) = uf*fv(2) + vf*fv(3) + wf*fv(4) + kq*(g(1, 4)*sx + g(2, 4)*sy + g(3, 4)*sz)
  end subroutine viscous_face_flux
end module flow_math
