!> Ghost-cell fill for walls, the moving lid and periodic pairs.
!>
!> Directions are filled one after another (i, then j, then k), each over
!> the full cross-section including the ghost layers already filled, so
!> edge and corner ghosts get defined values the same way on every backend.
!>
!> Walls mirror density and pressure and reflect the velocity about the wall
!> velocity, so no mass crosses a wall face (the Roe flux of a mirrored state
!> has an exactly zero mass component). An isothermal wall acts through the
!> ghost temperature alone: after the primitives are formed,
!> apply_wall_temperature sets T_ghost = 2 T_wall - T_mirror, which is what
!> the viscous heat flux reads. (Reflecting T through the ghost density
!> instead would leak mass through every wall whose T differs from T_wall,
!> and the residual of a driven cavity would stall.)
!> Mirror: cuda/common/adiflow_stages.h (bc_fill_line, wall_temperature_line).
module boundary_conditions
  use kinds, only: rk, nvar
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: wall_ghost_state, wall_ghost_temperature
  use omp_policy, only: team_for
  implicit none
  private
  public :: apply_boundary_conditions, apply_wall_temperature, cell_index
  public :: fill_boundary_direction, fill_wall_temperature_direction

  logical, parameter :: all_faces(6) = .true.

contains

  !> Cell (i,j,k) from a position a along direction d and b, c across it
  !> (the two other directions in increasing order).
  pure function cell_index(d, a, b, c) result(p)
    integer, intent(in) :: d, a, b, c
    integer :: p(3)
    select case (d)
    case (1); p = [a, b, c]
    case (2); p = [b, a, c]
    case default; p = [b, c, a]
    end select
  end function cell_index

  !> Ghost cell g and the cell m it copies or mirrors, for layer 1 or 2 of
  !> side 1 (low) or 2 (high) of a direction with n cells.
  pure subroutine ghost_and_mirror(side, layer, n, bc, g, m)
    integer, intent(in) :: side, layer, n, bc
    integer, intent(out) :: g, m
    if (side == 1) then
      g = 1 - layer            ! ghosts 0, -1
      m = layer                ! mirror cells 1, 2
    else
      g = n + layer            ! ghosts n+1, n+2
      m = n + 1 - layer        ! mirror cells n, n-1
    end if
    if (bc == BC_PERIODIC) m = 1 + modulo(g - 1, n)
  end subroutine ghost_and_mirror

  !> Sizes along d and across it (b, c), for the loops of both fills.
  pure subroutine direction_sizes(lay, d, n, nb, nc)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    integer, intent(out) :: n, nb, nc
    integer :: nd(3)
    nd = [lay%ni, lay%nj, lay%nk]
    n = nd(d)
    select case (d)
    case (1); nb = nd(2); nc = nd(3)
    case (2); nb = nd(1); nc = nd(3)
    case default; nb = nd(1); nc = nd(2)
    end select
  end subroutine direction_sizes

  subroutine apply_boundary_conditions(sp, lay, q)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    integer :: d
    do d = 1, 3
      call fill_boundary_direction(sp, lay, d, q, all_faces)
    end do
  end subroutine apply_boundary_conditions

  !> Ghosts of direction d on the faces marked in phys (a block of a
  !> decomposed grid fills only its faces on the domain boundary).
  subroutine fill_boundary_direction(sp, lay, d, q, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    logical, intent(in) :: phys(6)
    integer :: side, layer, b, c, n, nb, nc, g, m, bc, pg(3), pm(3)
    real(rk) :: uw, vw, ww, qm(nvar), qg(nvar)
    call direction_sizes(lay, d, n, nb, nc)
    do side = 1, 2
      if (.not. phys(2*d - 2 + side)) cycle
      bc = sp%bc(2*d - 2 + side)
      uw = 0.0_rk; vw = 0.0_rk; ww = 0.0_rk
      if (bc == BC_LID) then
        uw = sp%lid_u; vw = sp%lid_v; ww = sp%lid_w
      end if
      !$omp parallel do num_threads(team_for(lay)) collapse(2) private(b, layer, g, m, pg, pm, qm, qg)
      do c = -1, nc + 2
        do b = -1, nb + 2
          do layer = 1, 2
            call ghost_and_mirror(side, layer, n, bc, g, m)
            pg = cell_index(d, g, b, c)
            pm = cell_index(d, m, b, c)
            qm = q(pm(1), pm(2), pm(3), :)
            if (bc == BC_PERIODIC) then
              qg = qm
            else
              call wall_ghost_state(sp, uw, vw, ww, qm, qg)
            end if
            q(pg(1), pg(2), pg(3), :) = qg
          end do
        end do
      end do
      !$omp end parallel do
    end do
  end subroutine fill_boundary_direction

  !> Isothermal walls: ghost temperatures (qp(..., 6)) reflected about
  !> t_wall, direction by direction like the state fill. Nothing to do for
  !> adiabatic walls (the mirrored state already copies T).
  subroutine apply_wall_temperature(sp, lay, qp, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: qp(-1:,-1:,-1:,:)
    logical, intent(in), optional :: phys(6)
    integer :: d
    if (sp%wall_thermal /= WALL_ISOTHERMAL) return
    do d = 1, 3
      if (present(phys)) then
        call fill_wall_temperature_direction(sp, lay, d, qp, phys)
      else
        call fill_wall_temperature_direction(sp, lay, d, qp, all_faces)
      end if
    end do
  end subroutine apply_wall_temperature

  subroutine fill_wall_temperature_direction(sp, lay, d, qp, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(inout) :: qp(-1:,-1:,-1:,:)
    logical, intent(in) :: phys(6)
    integer :: side, layer, b, c, n, nb, nc, g, m, bc, pg(3), pm(3)
    call direction_sizes(lay, d, n, nb, nc)
    do side = 1, 2
      bc = sp%bc(2*d - 2 + side)
      if (.not. phys(2*d - 2 + side) .or. bc == BC_PERIODIC) cycle
      !$omp parallel do num_threads(team_for(lay)) collapse(2) private(b, layer, g, m, pg, pm)
      do c = -1, nc + 2
        do b = -1, nb + 2
          do layer = 1, 2
            call ghost_and_mirror(side, layer, n, bc, g, m)
            pg = cell_index(d, g, b, c)
            pm = cell_index(d, m, b, c)
            qp(pg(1), pg(2), pg(3), 6) = wall_ghost_temperature(sp, qp(pm(1), pm(2), pm(3), 6))
          end do
        end do
      end do
      !$omp end parallel do
    end do
  end subroutine fill_wall_temperature_direction
end module boundary_conditions
