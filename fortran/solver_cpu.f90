!> One iteration of the CPU reference: boundary fill, primitives, local time
!> step, residual (convective + viscous, per direction), LU-ADI update.
!> The GPU backend (cuda/split/schedule.cu, cuda/merged/schedule.cu) launches the same stages in the same order.
module solver_cpu
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use flow_fields, only: fields_t
  use ghost_fill, only: fill_ghosts, fill_wall_temperatures
  use primitives, only: compute_primitives
  use time_step, only: compute_time_step
  use convective_flux
  use viscous_flux, only: viscous_flux_faces
  use lu_adi
  use mass_constraint, only: total_mass, rescale_to_mass
  use omp_policy, only: team_for
  implicit none
  private
  public :: cpu_compute_residual, cpu_iteration, residual_of_filled_state, add_forcing, cpu_adi_update

contains

  !> Everything up to the residual (used alone by the conservation and
  !> free-stream tests).
  subroutine cpu_compute_residual(sp, lay, cfl, f)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: cfl
    type(fields_t), intent(inout) :: f
    call fill_ghosts(sp, lay, f)
    call residual_of_filled_state(sp, lay, cfl, f)
  end subroutine cpu_compute_residual

  !> From a state whose ghosts are filled: primitives, time step, wall
  !> temperatures, residual. phys marks the faces on the domain boundary
  !> (a block of a decomposed grid, fortran/adiflow_mpi.f90); all by default.
  subroutine residual_of_filled_state(sp, lay, cfl, f, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: cfl
    type(fields_t), intent(inout) :: f
    logical, intent(in), optional :: phys(6)
    integer :: d
    call compute_primitives(sp, lay, f%q, f%qp)
    call compute_time_step(sp, lay, cfl, f%qp, f%sc, f%vol, f%dtv)
    ! after the time step, which reads interior temperatures only (the GPU
    ! schedule has the same order)
    call fill_wall_temperatures(sp, lay, f, phys)
    f%res = 0.0_rk
    do d = 1, 3
      if (sp%order == 2) call flux_stage1_differences(lay, d, f%qp, f%wk)
      call flux_stage2_reconstruct(sp, lay, d, f%qp, f%wk)
      call flux_stage3_roe(sp, lay, d, f%sf, f%wk)
      call viscous_flux_faces(sp, lay, d, f%qp, f%sf, f%sc, f%vol, f%wk)
      call flux_stage4_accumulate(lay, d, f%wk, f%res)
    end do
  end subroutine residual_of_filled_state

  !> mass0 present (case key mass_fix): after the update, scale the interior
  !> state back to the total mass mass0 (fortran/mass_constraint.f90); absent,
  !> the iteration is exactly the unconstrained one. forcing present (a
  !> coarse multigrid level, fortran/backend_cpu.f90): the residual the
  !> update drives to zero is R(q) + forcing.
  subroutine cpu_iteration(sp, lay, cfl, f, mass0, forcing)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: cfl
    type(fields_t), intent(inout) :: f
    real(rk), intent(in), optional :: mass0
    real(rk), intent(in), optional :: forcing(-1:,-1:,-1:,:)
    call cpu_compute_residual(sp, lay, cfl, f)
    if (present(forcing)) call add_forcing(lay, forcing, f%res)
    call cpu_adi_update(sp, lay, f)
    if (present(mass0)) call rescale_to_mass(lay, f%q, mass0, total_mass(lay, f%vol, f%q))
  end subroutine cpu_iteration

  !> The LU-ADI sweeps of the residual in f%res along each direction, and the
  !> update of the state: the grid's own lines (a block of several: its
  !> interface increments held at zero, fortran/backend_blocks.f90).
  subroutine cpu_adi_update(sp, lay, f)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(inout) :: f
    integer :: d
    do d = 1, 3
      call adi_stage1_eigenvalues(sp, lay, d, f%qp, f%sc, f%vol, f%wk)
      call adi_stage2_coefficients(sp, lay, d, f%dtv, f%wk)
      call adi_stage3_characteristic_rhs(sp, lay, d, f%qp, f%sc, f%vol, f%dtv, f%res, f%dq, f%wk)
      call adi_stage4_sweeps(sp, lay, d, f%wk)
      call adi_stage5_update(sp, lay, d, f%qp, f%sc, f%vol, f%wk, f%dq, f%q)
    end do
  end subroutine cpu_adi_update

  !> res = res + forcing on the interior cells (the FAS forcing of a coarse
  !> level). Mirror: the GPU's add-forcing kernel (cuda/api/multigrid.cu).
  subroutine add_forcing(lay, forcing, res)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: forcing(-1:,-1:,-1:,:)
    real(rk), intent(inout) :: res(-1:,-1:,-1:,:)
    integer :: i, j, k, m
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, m)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do m = 1, 5
          do i = 1, lay%ni
            res(i,j,k,m) = res(i,j,k,m) + forcing(i,j,k,m)
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine add_forcing
end module solver_cpu
