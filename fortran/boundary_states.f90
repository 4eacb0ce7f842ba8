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
  !> unit flow direction (dx, dy, dz) given: the static pressure comes from
  !> the interior (the one wave that leaves through an inflow face), the
  !> static temperature from the isentrope T = t0 (p/p0)**((gamma-1)/gamma),
  !> the speed from the energy t0 = T + gm2 |V|**2 / (2 gamma/(gamma-1)).
  !> An interior pressure above p0 (the flow would have to run backwards)
  !> gives the stagnation state: p = p0, T = t0, V = 0.
  pure subroutine subsonic_inflow_ghost_state(sp, p0, t0, dx, dy, dz, qm, qg)
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: p0, t0, dx, dy, dz, qm(5)
    real(rk), intent(out) :: qg(5)
    real(rk) :: rho, u, v, w, p, t, tb, rb, vb
    call cons_to_prim(sp, qm(1), qm(2), qm(3), qm(4), qm(5), rho, u, v, w, p, t)
    p = min(p, p0)
    tb = t0*portable_pow(p/p0, sp%gm1/sp%gamma)
    rb = sp%gm2*p/tb
    vb = sqrt(2.0_rk*sp%ggm1*(t0 - tb)/sp%gm2)
    call prim_to_cons(sp, rb, vb*dx, vb*dy, vb*dz, p, qg)
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
