!> The ghost cells of a grid's fields by its boundary rules: the box's one
!> type per face (sp%bc, boundary_conditions' apply_boundary_conditions), or
!> the boundary patches the fields carry (f%ps, apply_boundary_patches). The
!> CPU iteration and the host's outputs call these, so that a grid with
!> patches is filled the same way everywhere on the host; a block of a
!> decomposed grid (fortran/mpi_decomp.f90) fills direction by direction
!> between its halo exchanges (fill_ghosts_direction).
module ghost_fill
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use flow_fields, only: fields_t
  use boundary_conditions, only: apply_boundary_conditions, apply_wall_temperature, apply_boundary_patches, &
    apply_patch_wall_temperature, fill_boundary_direction, fill_patch_direction
  implicit none
  private
  public :: fill_ghosts, fill_ghosts_direction, fill_wall_temperatures

  logical, parameter :: all_faces(6) = .true.

contains

  !> Ghost states of every face.
  subroutine fill_ghosts(sp, lay, f)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(inout) :: f
    if (allocated(f%ps%p)) then
      call apply_boundary_patches(sp, lay, f%ps, f%sf, f%q)
    else
      call apply_boundary_conditions(sp, lay, f%q)
    end if
  end subroutine fill_ghosts

  !> Ghost states of direction d on the faces marked in phys.
  subroutine fill_ghosts_direction(sp, lay, d, f, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    type(fields_t), intent(inout) :: f
    logical, intent(in) :: phys(6)
    if (allocated(f%ps%p)) then
      call fill_patch_direction(sp, lay, d, f%ps, f%sf, f%q, phys)
    else
      call fill_boundary_direction(sp, lay, d, f%q, phys)
    end if
  end subroutine fill_ghosts_direction

  !> Isothermal walls' ghost temperatures of the faces in phys (all when absent).
  subroutine fill_wall_temperatures(sp, lay, f, phys)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(inout) :: f
    logical, intent(in), optional :: phys(6)
    if (allocated(f%ps%p)) then
      if (present(phys)) then
        call apply_patch_wall_temperature(sp, lay, f%ps, f%qp, phys)
      else
        call apply_patch_wall_temperature(sp, lay, f%ps, f%qp, all_faces)
      end if
    else
      call apply_wall_temperature(sp, lay, f%qp, phys)
    end if
  end subroutine fill_wall_temperatures
end module ghost_fill
