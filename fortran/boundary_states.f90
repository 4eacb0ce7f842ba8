!> Ghost states of the open and slip boundary types, one point at a time:
!> slip wall and symmetry plane, characteristic farfield, subsonic inflow
!> (total pressure, total temperature, direction), subsonic outflow (static
!> pressure). Supersonic inflow is the given state itself and supersonic
!> outflow the interior state: they need no formula.
!>
!> Every function takes the conservative state qm of the interior cell next
!> to the boundary face and, where the face's orientation matters, the unit
!> normal (nx, ny, nz) of that face pointing OUT of the domain. Units are the
!> solver's (flow_math): rho, velocity and pressure in rho_ref, U_ref and
!> rho_ref U_ref**2, T = gm2 p / rho (gm2 = gamma Mach**2), so the reference
!> state at rest has rho = 1, T = 1 and p = 1/gm2, and its speed of sound is
!> 1/Mach. For external flows U_ref is the free-stream speed.
!>
!> Mirror: cuda/common/boundary_states.h (same names, same order of
!> operations; tests/c_vs_fortran/test_boundary_states.f90 checks the bits).
module boundary_states
  use kinds, only: rk
  use solver_params
  use flow_math, only: cons_to_prim, prim_to_cons
  use portable_math, only: portable_pow
  implicit none
  private
  public :: slip_ghost_state, farfield_ghost_state
  public :: subsonic_inflow_ghost_state, subsonic_outflow_ghost_state

contains

  !> Slip wall and symmetry plane: density and pressure mirrored, the
  !> momentum reflected about the face (normal part reversed, tangential
  !> kept). The Roe flux of the pair then carries no mass through the face,
  !> and the tangential velocity has no jump across it, so the viscous
  !> stress on the face has no shear part: a wall without friction, or a
  !> plane of symmetry.
  pure subroutine slip_ghost_state(nx, ny, nz, qm, qg)
    real(rk), intent(in) :: nx, ny, nz, qm(5)
    real(rk), intent(out) :: qg(5)
    real(rk) :: mn
    mn = qm(2)*nx + qm(3)*ny + qm(4)*nz
    qg(1) = qm(1)
    qg(2) = qm(2) - 2.0_rk*mn*nx
    qg(3) = qm(3) - 2.0_rk*mn*ny
    qg(4) = qm(4) - 2.0_rk*mn*nz
    qg(5) = qm(5)
  end subroutine slip_ghost_state

  !> Characteristic farfield from the Riemann invariants of the face-normal
  !> direction: the outgoing R+ = vn + 2c/(gamma-1) from the interior, the
  !> incoming R- = vn - 2c/(gamma-1) from the free stream (rinf, uinf,
  !> vinf, winf, pinf); their mean is the normal velocity on the face, their
  !> difference its speed of sound. Where the flow leaves the domain the
  !> tangential velocity and the entropy come from the interior, where it
  !> enters from the free stream. A supersonic normal velocity takes the
  !> whole state from upstream: the interior leaving, the free stream
  !> entering.
  pure subroutine farfield_ghost_state(sp, rinf, uinf, vinf, winf, pinf, nx, ny, nz, qm, qg)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: rinf, uinf, vinf, winf, pinf, nx, ny, nz, qm(5)
    real(rk), intent(out) :: qg(5)
    real(rk) :: rho, u, v, w, p, t, ci, cf, vni, vnf, rplus, rminus, vnb, cb
    real(rk) :: rr, ur, vr, wr, cr, vnr, rb
    call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rho, u, v, w, p, t)
    ci = sqrt(sp%gamma*p/rho)
    cf = sqrt(sp%gamma*pinf/rinf)
    vni = u*nx + v*ny + w*nz
    vnf = uinf*nx + vinf*ny + winf*nz
    if (vni >= ci) then
      qg = qm
    else if (vni <= -ci) then
      call prim_to_cons(sp, rinf, uinf, vinf, winf, pinf, qg)
    else
      rplus = vni + 2.0_rk*ci/sp%gm1
      rminus = vnf - 2.0_rk*cf/sp%gm1
      vnb = 0.5_rk*(rplus + rminus)
      cb = 0.25_rk*sp%gm1*(rplus - rminus)
      if (vnb > 0.0_rk) then
        rr = rho; ur = u; vr = v; wr = w; cr = ci; vnr = vni
      else
        rr = rinf; ur = uinf; vr = vinf; wr = winf; cr = cf; vnr = vnf
      end if
      ! isentropic from the upstream state: rho ~ c**(2/(gamma-1))
      rb = rr*portable_pow((cb*cb)/(cr*cr), 1.0_rk/sp%gm1)
      ur = ur + (vnb - vnr)*nx
      vr = vr + (vnb - vnr)*ny
      wr = wr + (vnb - vnr)*nz
      call prim_to_cons(sp, rb, ur, vr, wr, rb*cb*cb/sp%gamma, qg)
    end if
  end subroutine farfield_ghost_state

  !> Subsonic inflow with total pressure p0, total temperature t0 and the
  !> unit flow direction (dx, dy, dz) given, (nx, ny, nz) the face's unit
  !> normal out of the domain. One wave leaves through an inflow face: the
  !> invariant R+ = vn + 2c/(gamma-1) is taken from the interior, and with
  !> the total enthalpy c0**2/(gamma-1) = c**2/(gamma-1) + |V|**2/2 and
  !> vn = |V| cos(theta), cos(theta) = (d . n), it fixes the face's speed of
  !> sound cb as the larger root of
  !>   (cos**2 + 2/(gamma-1)) cb**2 - 2 R+ cb + (gamma-1)/2 R+**2 - c0**2 cos**2 = 0
  !> (the form of Blazek, Computational Fluid Dynamics, 3rd ed. 2015, sec.
  !> 8.4; Carlson, NASA/TM-2011-217181, sec. 2.4). Then T = t0 cb**2/c0**2,
  !> p = p0 (T/t0)**(gamma/(gamma-1)) and |V| from the energy. Unlike taking
  !> the interior's static pressure, the state moves smoothly with the
  !> interior through every state: an interior pressure above p0 slows the
  !> inflow down to rest (cb = c0) instead of switching to a clamped one, a
  !> switch an iteration can settle on without converging. The larger root
  !> is at most c0 and reaches it at R+ = 2 c0/(gamma-1); an interior that
  !> pushes harder (flowing out, or hotter than t0) gets the stagnation state
  !> cb = c0, V = 0, to which the root runs continuously. In the solver's
  !> units c**2 = gamma T / gm2.
  pure subroutine subsonic_inflow_ghost_state(sp, p0, t0, dx, dy, dz, nx, ny, nz, qm, qg)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: p0, t0, dx, dy, dz, nx, ny, nz, qm(5)
    real(rk), intent(out) :: qg(5)
    real(rk) :: rho, u, v, w, p, t, ci, c02, c0, rplus, cost, a, disc, cb, tb, pb, rb, vb
    call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rho, u, v, w, p, t)
    ci = sqrt(sp%gamma*p/rho)
    c02 = sp%gamma*t0/sp%gm2
    c0 = sqrt(c02)
    rplus = (u*nx + v*ny + w*nz) + 2.0_rk*ci/sp%gm1
    if (rplus >= 2.0_rk*c0/sp%gm1) then
      cb = c0
    else
      cost = dx*nx + dy*ny + dz*nz
      a = cost*cost + 2.0_rk/sp%gm1
      disc = a*c02 - 0.5_rk*sp%gm1*rplus*rplus
      cb = min((rplus + abs(cost)*sqrt(disc))/a, c0)
    end if
    tb = t0*((cb*cb)/c02)
    pb = p0*portable_pow(tb/t0, sp%ggm1)
    rb = sp%gm2*pb/tb
    vb = sqrt(2.0_rk*max(c02 - cb*cb, 0.0_rk)/sp%gm1)   ! c0*c0 may pass c02 by an ulp
    call prim_to_cons(sp, rb, vb*dx, vb*dy, vb*dz, pb, qg)
  end subroutine subsonic_inflow_ghost_state

  !> Subsonic outflow at static pressure p_out: density and velocity from
  !> the interior (the waves that leave), the pressure imposed (the one
  !> that enters).
  pure subroutine subsonic_outflow_ghost_state(sp, p_out, qm, qg)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: p_out, qm(5)
    real(rk), intent(out) :: qg(5)
    real(rk) :: rho, u, v, w, p, t
    call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rho, u, v, w, p, t)
    call prim_to_cons(sp, rho, u, v, w, p_out, qg)
  end subroutine subsonic_outflow_ghost_state
end module boundary_states
