!> The CPU reference's level operations for the multigrid cycle
!> (fortran/multigrid_cycle.f90). Level 1 is the driver's grid (sp1, lay1,
!> f1); levels 2.. are levels(l) (fortran/multigrid_levels.f90).
module multigrid_cpu
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use flow_fields, only: fields_t
  use boundary_conditions, only: apply_boundary_conditions
  use solver_cpu, only: cpu_iteration, cpu_compute_residual, add_forcing
  use multigrid_levels, only: mg_level_t
  use multigrid_transfer
  implicit none
  private
  public :: cpu_mg_smooth, cpu_mg_down, cpu_mg_up

contains

  subroutine cpu_mg_smooth(sp1, lay1, f1, levels, l, cfl)
    type(solver_params_t), intent(in) :: sp1
    type(layout_t), intent(in) :: lay1
    type(fields_t), intent(inout) :: f1
    type(mg_level_t), intent(inout) :: levels(:)
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (l == 1) then
      call cpu_iteration(sp1, lay1, cfl, f1)
    else
      call cpu_iteration(levels(l)%sp, levels(l)%lay, cfl, levels(l)%f, forcing=levels(l)%forcing)
    end if
  end subroutine cpu_mg_smooth

  !> Residual of level l (forcing included), its state and residual to
  !> level l+1, and level l+1's forcing.
  subroutine cpu_mg_down(sp1, lay1, f1, levels, l, cfl)
    type(solver_params_t), intent(in) :: sp1
    type(layout_t), intent(in) :: lay1
    type(fields_t), intent(inout) :: f1
    type(mg_level_t), intent(inout), target :: levels(:)
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    type(mg_level_t), pointer :: c
    c => levels(l + 1)
    if (l == 1) then
      call cpu_compute_residual(sp1, lay1, cfl, f1)
      call restrict_to(f1)
    else
      call cpu_compute_residual(levels(l)%sp, levels(l)%lay, cfl, levels(l)%f)
      call add_forcing(levels(l)%lay, levels(l)%forcing, levels(l)%f%res)
      call restrict_to(levels(l)%f)
    end if
    call cpu_compute_residual(c%sp, c%lay, cfl, c%f)
    call subtract_residual(c%lay, c%f%res, c%forcing)
  contains
    subroutine restrict_to(ff)
      type(fields_t), intent(in) :: ff
      call restrict_level(c%lay, c%ratio, ff%vol, ff%q, ff%res, c%f%q, c%forcing)
      call apply_boundary_conditions(c%sp, c%lay, c%f%q)
      c%q0 = c%f%q
    end subroutine restrict_to
  end subroutine cpu_mg_down

  !> Level l += the interpolated correction of level l+1.
  subroutine cpu_mg_up(lay1, f1, levels, l)
    type(layout_t), intent(in) :: lay1
    type(fields_t), intent(inout) :: f1
    type(mg_level_t), intent(inout), target :: levels(:)
    integer, intent(in) :: l
    type(mg_level_t), pointer :: c
    c => levels(l + 1)
    call apply_boundary_conditions(c%sp, c%lay, c%f%q)
    call coarse_correction(c%lay, c%f%q, c%q0, c%f%dq)
    if (l == 1) then
      call prolong_correction(lay1, c%ratio, c%f%dq, f1%q)
    else
      call prolong_correction(levels(l)%lay, c%ratio, c%f%dq, levels(l)%f%q)
    end if
  end subroutine cpu_mg_up
end module multigrid_cpu
