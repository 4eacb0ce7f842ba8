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
!> Mirror: cuda/common/boundary_conditions.h (bc_fill_line, wall_temperature_line)
!> and, for the patches, cuda/common/boundary_patches.h (fill_patch_ghost,
!> patch_wall_temperature_ghost: the same loop bodies, per ghost).
module boundary_conditions
  use kinds, only: rk, nvar
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: wall_ghost_state, wall_ghost_temperature, prim_to_cons
  use boundary_states
  use boundary_patches
  use omp_policy, only: team_for
  implicit none
  private
  public :: apply_boundary_conditions, apply_wall_temperature, cell_index
  public :: fill_boundary_direction, fill_wall_temperature_direction
  public :: apply_boundary_patches, apply_patch_wall_temperature, fill_patch_direction

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

  !> The ghost fill of a grid whose faces are split into patches
  !> (boundary_patches), direction by direction like apply_boundary_conditions.
  !> sf: the face area vectors (metrics), for the faces' normals.
  subroutine apply_boundary_patches(sp, lay, ps, sf, q)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(patch_set_t), intent(in) :: ps
    real(rk), intent(in) :: sf(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    integer :: d
    do d = 1, 3
      call fill_patch_direction(sp, lay, d, ps, sf, q, all_faces)
    end do
  end subroutine apply_boundary_patches

  !> Ghosts of direction d on the faces marked in phys, each boundary cell by
  !> the kind of its patch. Walls, the lid and periodic faces fill as in
  !> fill_boundary_direction (each ghost layer from its mirror cell); a slip
  !> or symmetry face reflects each layer's mirror cell about the face; the
  !> open kinds give both ghost layers the state formed from the interior
  !> cell next to the face. Cells of the ghost rows across the face take the
  !> kind and the normal of the nearest cell of the face map
  !> (boundary_patches' nearest_mapped_cell).
  subroutine fill_patch_direction(sp, lay, d, ps, sf, q, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    type(patch_set_t), intent(in) :: ps
    real(rk), intent(in) :: sf(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    logical, intent(in) :: phys(6)
    integer :: side, face, layer, b, c, n, nb, nc, g, m, bb, cc, id, kind, pg(3), pm(3), pf(3)
    real(rk) :: qm(nvar), qg(nvar), s(3), rs, nx, ny, nz
    call direction_sizes(lay, d, n, nb, nc)
    do side = 1, 2
      face = 2*d - 2 + side
      if (.not. phys(face)) cycle
      !$omp parallel do num_threads(team_for(lay)) collapse(2) &
      !$omp private(b, bb, cc, id, kind, pf, s, rs, nx, ny, nz, layer, g, m, pg, pm, qm, qg)
      do c = -1, nc + 2
        do b = -1, nb + 2
          call nearest_mapped_cell(ps%face(face), b, c, bb, cc)
          id = ps%face(face)%id(bb, cc)
          kind = ps%p(id)%kind
          ! the boundary face is the low face of cell 1 (side 1) or of cell n+1 (side 2);
          ! its area vector points towards increasing index, so out of the domain on side 2
          pf = cell_index(d, merge(1, n + 1, side == 1), bb, cc)
          s = sf(pf(1), pf(2), pf(3), 3*d-2:3*d)
          rs = 1.0_rk/sqrt(s(1)*s(1) + s(2)*s(2) + s(3)*s(3))
          if (side == 1) rs = -rs
          nx = s(1)*rs
          ny = s(2)*rs
          nz = s(3)*rs
          do layer = 1, 2
            call ghost_and_mirror(side, layer, n, kind, g, m)
            pg = cell_index(d, g, b, c)
            if (kind == BC_PERIODIC .or. kind == BC_WALL .or. kind == BC_LID .or. kind == BC_SLIP &
                .or. kind == BC_SYMMETRY) then
              pm = cell_index(d, m, b, c)
            else
              pm = cell_index(d, merge(1, n, side == 1), b, c)
            end if
            qm = q(pm(1), pm(2), pm(3), :)
            select case (kind)
            case (BC_PERIODIC, BC_SUPERSONIC_OUTFLOW)
              qg = qm
            case (BC_WALL)
              call wall_ghost_state(sp, 0.0_rk, 0.0_rk, 0.0_rk, qm, qg)
            case (BC_LID)
              call wall_ghost_state(sp, ps%p(id)%v(1), ps%p(id)%v(2), ps%p(id)%v(3), qm, qg)
            case (BC_SLIP, BC_SYMMETRY)
              call slip_ghost_state(nx, ny, nz, qm, qg)
            case (BC_FARFIELD)
              call farfield_ghost_state(sp, ps%p(id)%v(1), ps%p(id)%v(2), ps%p(id)%v(3), ps%p(id)%v(4), &
                                        ps%p(id)%v(5), nx, ny, nz, qm, qg)
            case (BC_INFLOW)
              call subsonic_inflow_ghost_state(sp, ps%p(id)%v(1), ps%p(id)%v(2), ps%p(id)%v(3), ps%p(id)%v(4), &
                                               ps%p(id)%v(5), nx, ny, nz, qm, qg)
            case (BC_OUTFLOW)
              call subsonic_outflow_ghost_state(sp, ps%p(id)%v(1), qm, qg)
            case default   ! BC_SUPERSONIC_INFLOW
              call prim_to_cons(sp, ps%p(id)%v(1), ps%p(id)%v(2), ps%p(id)%v(3), ps%p(id)%v(4), ps%p(id)%v(5), qg)
            end select
            q(pg(1), pg(2), pg(3), :) = qg
          end do
        end do
      end do
      !$omp end parallel do
    end do
  end subroutine fill_patch_direction

  !> Isothermal walls of a patched grid: the ghost temperatures of the wall
  !> and lid patches reflected about t_wall, as apply_wall_temperature does
  !> for the box. The other kinds carry their temperature in their state.
  subroutine apply_patch_wall_temperature(sp, lay, ps, qp, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(patch_set_t), intent(in) :: ps
    real(rk), intent(inout) :: qp(-1:,-1:,-1:,:)
    logical, intent(in) :: phys(6)
    integer :: d, side, face, layer, b, c, n, nb, nc, g, m, bb, cc, kind, pg(3), pm(3)
    if (sp%wall_thermal /= WALL_ISOTHERMAL) return
    do d = 1, 3
      call direction_sizes(lay, d, n, nb, nc)
      do side = 1, 2
        face = 2*d - 2 + side
        if (.not. phys(face)) cycle
        !$omp parallel do num_threads(team_for(lay)) collapse(2) private(b, bb, cc, kind, layer, g, m, pg, pm)
        do c = -1, nc + 2
          do b = -1, nb + 2
            call nearest_mapped_cell(ps%face(face), b, c, bb, cc)
            kind = ps%p(ps%face(face)%id(bb, cc))%kind
            if (kind /= BC_WALL .and. kind /= BC_LID) cycle
            do layer = 1, 2
              call ghost_and_mirror(side, layer, n, kind, g, m)
              pg = cell_index(d, g, b, c)
              pm = cell_index(d, m, b, c)
              qp(pg(1), pg(2), pg(3), 6) = wall_ghost_temperature(sp, qp(pm(1), pm(2), pm(3), 6))
            end do
          end do
        end do
        !$omp end parallel do
      end do
    end do
  end subroutine apply_patch_wall_temperature
end module boundary_conditions
