!> Ghost-cell fill for walls, the moving lid and periodic pairs.
!>
!> Directions are filled one after another (i, then j, then k), each over
!> the full cross-section including the ghost layers already filled, so
!> edge and corner ghosts get defined values the same way on every backend.
module boundary_conditions
  use kinds, only: rk, nvar
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: wall_ghost_state
  implicit none
  private
  public :: apply_boundary_conditions, cell_index

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

  subroutine apply_boundary_conditions(sp, lay, q)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    integer :: d, side, layer, b, c, n, nb, nc, g, m, bc, pg(3), pm(3)
    integer :: nd(3)
    real(rk) :: uw, vw, ww, qm(nvar), qg(nvar)

    nd = [lay%ni, lay%nj, lay%nk]
    do d = 1, 3
      n = nd(d)
      select case (d)
      case (1); nb = nd(2); nc = nd(3)
      case (2); nb = nd(1); nc = nd(3)
      case default; nb = nd(1); nc = nd(2)
      end select
      do side = 1, 2
        bc = sp%bc(2*d - 2 + side)
        uw = 0.0_rk; vw = 0.0_rk; ww = 0.0_rk
        if (bc == BC_LID) then
          uw = sp%lid_u; vw = sp%lid_v; ww = sp%lid_w
        end if
        !$omp parallel do collapse(2) private(b, layer, g, m, pg, pm, qm, qg)
        do c = -1, nc + 2
          do b = -1, nb + 2
            do layer = 1, 2
              if (side == 1) then
                g = 1 - layer            ! ghosts 0, -1
                m = layer                ! mirror cells 1, 2
              else
                g = n + layer            ! ghosts n+1, n+2
                m = n + 1 - layer        ! mirror cells n, n-1
              end if
              if (bc == BC_PERIODIC) m = 1 + modulo(g - 1, n)
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
    end do
  end subroutine apply_boundary_conditions
end module boundary_conditions
