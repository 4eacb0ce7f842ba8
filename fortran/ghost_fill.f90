!> The ghost cells of a grid's fields by its boundary rules: the box's one
!> type per face (sp%bc, boundary_conditions' apply_boundary_conditions), or
!> the boundary patches the fields carry (f%ps, apply_boundary_patches). The
!> CPU iteration and the host's outputs call these, so that a grid with
!> patches is filled the same way everywhere on the host.
module ghost_fill
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use flow_fields, only: fields_t
  use boundary_conditions, only: apply_boundary_conditions, apply_wall_temperature, apply_boundary_patches, &
    apply_patch_wall_temperature
  implicit none
  private
  public :: fill_ghosts, fill_wall_temperatures

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
