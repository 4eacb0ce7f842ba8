!> The flow variables of flow.vts and flow.dat: their one list (names,
!> components and order, which both writers and README.md's "Output
!> variables" table follow) and their values on cells and on nodes.
!>
!> Units: the solver's own (README.md, "Outputs"): lengths over the box
!> length unit, velocities over the reference speed U_0 of Mach and Re,
!> density over the initial density rho_0 = 1, pressure over rho_0 U_0^2,
!> temperature over the initial temperature T_0 = 1.
!>
!> Node values: each primitive (rho, u, v, w, p, T) at a node is the mean of
!> the 8 cells around it, ghost cells included. After the boundary fill a
!> wall's first ghost mirrors its neighbour about the wall value (velocity
!> about the wall's, the temperature of an isothermal wall about t_wall),
!> so the mean on a wall node is the wall value itself; where two faces
!> meet, the face filled last (i, then j, then k) decides. cp and mach of a
!> node come from the node's primitives, by the cells' formulas (a mean of
!> cell Mach numbers would not give the wall's zero); vorticity is the mean
!> of the cells' (ghost cells' included).
module output_fields
  use, intrinsic :: iso_fortran_env, only: real32
  use kinds, only: rk, ik8, nprim
  use grid_layout, only: layout_t
  use solver_params
  use flow_math, only: rest_pressure
  use omp_policy, only: team_for
  use first_touch, only: advise_huge
  implicit none
  private
  public :: out_var_t, out_vars, OV_VORTICITY, out_column_count
  public :: OV_DENSITY, OV_VELOCITY, OV_PRESSURE, OV_TEMPERATURE, OV_MACH
  public :: primitive_values, cell_vorticity, node_means, node_primitives, output_scratch_bytes, vts_values

  !> One output array: its name, and the names of its components as
  !> separate variables (Tecplot's, and the .vts array's ComponentName*).
  type :: out_var_t
    character(len=12) :: name
    integer :: ncomp
    character(len=12) :: comp(3)
  end type out_var_t

  integer, parameter :: OV_DENSITY = 1, OV_VELOCITY = 2, OV_PRESSURE = 3, OV_CP = 4, OV_TEMPERATURE = 5, &
    OV_MACH = 6, OV_VORTICITY = 7
  type(out_var_t), parameter :: out_vars(7) = [ &
    out_var_t('density', 1, [character(len=12) :: 'density', '', '']), &
    out_var_t('velocity', 3, [character(len=12) :: 'u', 'v', 'w']), &
    out_var_t('pressure', 1, [character(len=12) :: 'pressure', '', '']), &
    out_var_t('cp', 1, [character(len=12) :: 'cp', '', '']), &
    out_var_t('temperature', 1, [character(len=12) :: 'temperature', '', '']), &
    out_var_t('mach', 1, [character(len=12) :: 'mach', '', '']), &
    out_var_t('vorticity', 3, [character(len=12) :: 'omega_x', 'omega_y', 'omega_z'])]

contains

  !> Number of scalar columns of all output arrays (Tecplot's variables after x, y, z).
  pure integer function out_column_count()
    out_column_count = sum(out_vars%ncomp)
  end function out_column_count

  !> Output variable v (not vorticity) at one cell or node from its
  !> primitives p = rho, u, v, w, p, T: f(1:out_vars(v)%ncomp).
  !> cp = (p - p_0)/(rho_0 U^2/2): p_0 = 1/(gamma Mach^2) and rho_0 = 1 are
  !> the initial state's; U is the lid speed |(lid_u, lid_v, lid_w)| (1,
  !> the velocity unit, when it is zero), the cavity's usual scale.
  pure function point_values(v, sp, p) result(f)
    integer, intent(in) :: v
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: p(nprim)
    real(rk) :: f(3)
    real(rk) :: ulid
    f = 0.0_rk
    select case (v)
    case (OV_DENSITY)
      f(1) = p(1)
    case (OV_VELOCITY)
      f = p(2:4)
    case (OV_PRESSURE)
      f(1) = p(5)
    case (OV_CP)
      ulid = norm2([sp%lid_u, sp%lid_v, sp%lid_w])
      if (ulid == 0.0_rk) ulid = 1.0_rk
      f(1) = (p(5) - rest_pressure(sp))/(0.5_rk*ulid*ulid)
    case (OV_TEMPERATURE)
      f(1) = p(6)
    case (OV_MACH)
      f(1) = sqrt(p(2)**2 + p(3)**2 + p(4)**2)/sqrt(sp%gamma*p(5)/p(1))
    case default
      error stop 'output_fields: vorticity is not a function of the primitives (cell_vorticity)'
    end select
  end function point_values

  !> Output array v (not vorticity) from primitives prim(:,:,:,1:6) of
  !> cells or nodes (point_values at each).
  pure function primitive_values(v, sp, prim) result(f)
    integer, intent(in) :: v
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: prim(:,:,:,:)
    real(rk) :: f(size(prim, 1), size(prim, 2), size(prim, 3), out_vars(v)%ncomp)
    real(rk) :: val(3)
    integer :: i, j, k
    do k = 1, size(prim, 3)
      do j = 1, size(prim, 2)
        do i = 1, size(prim, 1)
          val = point_values(v, sp, prim(i, j, k, 1:nprim))
          f(i, j, k, :) = val(1:out_vars(v)%ncomp)
        end do
      end do
    end do
  end function primitive_values

  !> Output variable v (not vorticity) of the cells (1..n) or, with nodes,
  !> of the nodes (0..n; pn from node_primitives) as one block of Float32
  !> values, components innermost (flow.vts's tuple order); threaded.
  subroutine vts_values(lay, v, sp, qp, pn, nodes, buf)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: v
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), pn(0:,0:,0:,:)
    logical, intent(in) :: nodes
    real(real32), allocatable, intent(out) :: buf(:,:,:,:)
    real(rk) :: val(3)
    integer :: i, j, k, nc, lo
    nc = out_vars(v)%ncomp
    lo = merge(0, 1, nodes)
    allocate(buf(nc, lo:lay%ni, lo:lay%nj, lo:lay%nk))
    call advise_huge(buf)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, val)
    do k = lo, lay%nk
      do j = lo, lay%nj
        do i = lo, lay%ni
          if (nodes) then
            val = point_values(v, sp, pn(i, j, k, 1:nprim))
          else
            val = point_values(v, sp, qp(i, j, k, 1:nprim))
          end if
          buf(:, i, j, k) = real(val(1:nc), real32)
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine vts_values

  !> curl(u) on cells 0..n+1 of each direction (the interior and the first
  !> ghost layer), by Green-Gauss over each cell's six faces:
  !> vol*curl(u) = sum over faces of S x u_face, S the outward area vector
  !> (fortran/metrics.f90's sf) and u_face the mean of the two cells beside
  !> the face. Exact for a linear field on any hexahedron whose faces close
  !> (metrics.f90's construction), and on a uniform box the central
  !> differences (u(i+1) - u(i-1))/(2h). Needs qp's velocities on the
  !> second ghost layer, which the boundary fill sets.
  !> (A subroutine: a function's allocatable result would lose its lower
  !> bounds of 0 in an assignment.)
  subroutine cell_vorticity(lay, qp, sf, vol, om)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:), sf(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), allocatable, intent(out) :: om(:,:,:,:)
    integer :: i, j, k, d, e(3)
    real(rk) :: acc(3), slo(3), shi(3), ulo(3), uhi(3)
    allocate(om(0:lay%ni+1, 0:lay%nj+1, 0:lay%nk+1, 3))
    call advise_huge(om)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, d, e, acc, slo, shi, ulo, uhi)
    do k = 0, lay%nk + 1
      do j = 0, lay%nj + 1
        do i = 0, lay%ni + 1
          acc = 0.0_rk
          do d = 1, 3
            e = 0
            e(d) = 1
            slo = sf(i, j, k, 3*d-2:3*d)
            shi = sf(i + e(1), j + e(2), k + e(3), 3*d-2:3*d)
            ulo = 0.5_rk*(qp(i, j, k, 2:4) + qp(i - e(1), j - e(2), k - e(3), 2:4))
            uhi = 0.5_rk*(qp(i, j, k, 2:4) + qp(i + e(1), j + e(2), k + e(3), 2:4))
            acc = acc + cross(shi, uhi) - cross(slo, ulo)
          end do
          om(i, j, k, :) = acc/vol(i, j, k)
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine cell_vorticity

  pure function cross(a, b) result(c)
    real(rk), intent(in) :: a(3), b(3)
    real(rk) :: c(3)
    c = [a(2)*b(3) - a(3)*b(2), a(3)*b(1) - a(1)*b(3), a(1)*b(2) - a(2)*b(1)]
  end function cross

  !> Node values (nodes 0..n of each direction) of cell fields c given on
  !> cells 0..n+1: node (i,j,k) of component m is the mean of cells i..i+1,
  !> j..j+1, k..k+1; threaded (nt threads).
  subroutine node_means(c, nd, nt)
    real(rk), intent(in) :: c(0:,0:,0:,:)
    real(rk), intent(out) :: nd(0:,0:,0:,:)
    integer, intent(in) :: nt
    integer :: i, j, k, m
    !$omp parallel do num_threads(nt) collapse(2) private(i, m)
    do k = 0, size(c, 3) - 2
      do j = 0, size(c, 2) - 2
        do m = 1, size(c, 4)
          do i = 0, size(c, 1) - 2
            nd(i, j, k, m) = 0.125_rk*(c(i, j, k, m) + c(i + 1, j, k, m) + c(i, j + 1, k, m) + c(i + 1, j + 1, k, m) &
              + c(i, j, k + 1, m) + c(i + 1, j, k + 1, m) + c(i, j + 1, k + 1, m) + c(i + 1, j + 1, k + 1, m))
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine node_means

  !> The most host memory the writers of flow.vts and flow.dat hold at once
  !> beyond the solver's fields, for the start-up memory check (a run must
  !> not pass it and then fail at its outputs, after the solve): 16 arrays of
  !> the grid's size with a layer around it (6 node primitives, 3 cell and 3
  !> node vorticity components, a block of values and the temporaries of the
  !> node means).
  pure integer(ik8) function output_scratch_bytes(lay) result(b)
    type(layout_t), intent(in) :: lay
    b = 16_ik8*8_ik8*int(lay%ni + 2, ik8)*int(lay%nj + 2, ik8)*int(lay%nk + 2, ik8)
  end function output_scratch_bytes

  !> The six primitives on the nodes (node_means of the cells and first ghosts).
  subroutine node_primitives(lay, qp, pn)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: qp(-1:,-1:,-1:,:)
    real(rk), allocatable, intent(out) :: pn(:,:,:,:)
    allocate(pn(0:lay%ni, 0:lay%nj, 0:lay%nk, nprim))
    call advise_huge(pn)
    call node_means(qp(0:lay%ni+1, 0:lay%nj+1, 0:lay%nk+1, 1:nprim), pn, team_for(lay))
  end subroutine node_primitives
end module output_fields
