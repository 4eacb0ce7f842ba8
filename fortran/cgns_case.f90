!> A case whose grid_file is a CGNS file: the zone's boundary conditions
!> become the run's boundary patches, as a patch_file's lines would
!> (patch_file's patches_from_lines reads both).
!>
!> A CGNS file with boundary conditions and a patch_file both name the
!> patches: the run refuses, rather than let one silently win (drop the
!> patch_file, or convert the grid without its BCs). A CGNS file without
!> boundary conditions is a grid only, as a Plot3D file is: the patch_file
!> or the case's bc_* keys give the boundaries.
!>
!> The walls: adiflow's wall condition is the case's (wall_thermal,
!> t_wall), one for all walls. BCWall and BCWallViscous take it; a
!> BCWallViscousIsothermal needs wall_thermal = 'isothermal' (its
!> temperature is the case's t_wall: the file's value is not read), a
!> BCWallViscousHeatFlux wall_thermal = 'adiabatic' (taken as zero flux).
module cgns_case
  use, intrinsic :: iso_fortran_env, only: output_unit
  use text_util, only: int_text
  use case_config, only: case_t, case_error
  use solver_params, only: solver_params_t, BC_PERIODIC
  use boundary_patches, only: patch_set_t
  use patch_file, only: patches_from_lines
  use grid_file, only: GRID_OK
  use cgns_grid, only: is_cgns_name, cgns_patch_lines, cgns_available
  implicit none
  private
  public :: take_cgns_patches

contains

  !> ps: the zone's boundary conditions as patches; have: it has any (else
  !> ps is left as it was). Also refuses write_cgns in a build without CGNS. who: the driver's name for the note it prints
  !> ('' prints nothing: the MPI ranks but rank 0).
  subroutine take_cgns_patches(cs, sp, ps, have, who)
    type(case_t), intent(in) :: cs
    type(solver_params_t), intent(in) :: sp
    type(patch_set_t), intent(inout) :: ps
    logical, intent(out) :: have
    character(len=*), intent(in) :: who
    character(len=256), allocatable :: lines(:)
    character(len=512), allocatable :: wheres(:)
    integer, allocatable :: thermal(:)
    integer :: status, b
    logical :: ok
    character(len=:), allocatable :: msg, origin
    have = .false.
    ! write_cgns in a build without CGNS: said now, not after the run
    if (cs%write_cgns .and. .not. cgns_available()) call case_error('write_cgns = .true., but this build has no '// &
      'CGNS support (libcgns-dev was missing when it was built): rebuild after installing libcgns-dev, or leave '// &
      'write_cgns out')
    if (.not. is_cgns_name(cs%grid_file)) return
    call cgns_patch_lines(trim(cs%grid_file), lines, wheres, thermal, status, msg)
    if (status /= GRID_OK) call case_error(msg)
    if (size(lines) == 0) return
    origin = 'grid file "'//trim(cs%grid_file)//'" (its boundary conditions)'
    if (len_trim(cs%patch_file) > 0) call case_error(origin//' and patch_file = "'//trim(cs%patch_file)// &
      '" both give the boundary patches: leave patch_file out (the CGNS file''s BCs are taken), or use a grid '// &
      'file without BCs')
    do b = 1, size(lines)
      if (thermal(b) == 1 .and. cs%wall_thermal /= 'isothermal') call case_error(trim(wheres(b))// &
        ': an isothermal wall, but wall_thermal = '''//trim(cs%wall_thermal)//''' in the case file')
      if (thermal(b) == 2 .and. cs%wall_thermal /= 'adiabatic') call case_error(trim(wheres(b))// &
        ': a heat-flux wall (taken as adiabatic), but wall_thermal = '''//trim(cs%wall_thermal)// &
        ''' in the case file: set wall_thermal = ''adiabatic''')
    end do
    call patches_from_lines(lines, wheres, origin, sp, sp%bc == BC_PERIODIC, [cs%lid_u, cs%lid_v, cs%lid_w], &
      cs%freestream_alpha, cs%freestream_beta, cs%ni, cs%nj, cs%nk, ps, ok, msg)
    if (.not. ok) call case_error(msg)
    have = .true.
    if (len(who) > 0) write(output_unit, '(a)') who//': '//origin//': '//int_text(size(lines))// &
      ' boundary conditions taken as patches, walls '//trim(cs%wall_thermal)
  end subroutine take_cgns_patches
end module cgns_case
