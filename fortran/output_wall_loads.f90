!> The wall outputs of a grid with boundary patches (patch_file): for every
!> wall or lid patch, wall_NN_FACE.csv with cp and cf at each wall face
!> (fortran/wall_loads.f90), and forces.csv with each patch's force
!> coefficients, pressure and viscous parts. Both files say their units in
!> their header lines. Written through output_file (temporary name, checked,
!> renamed), as every output. The force history of the run
!> (fortran/forces_monitor.f90) takes its name, reference line and loads
!> from here, so that its last row is forces.csv's.
module output_wall_loads
  use kinds, only: rk
  use flow_math, only: rest_pressure
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use flow_fields, only: fields_t
  use boundary_patches, only: patch_set_t, face_name, patch_kind_name
  use wall_loads, only: wall_face_t, patch_load_t, wall_faces_of_patch, patch_load, is_wall_kind
  use output_file, only: out_file_t, out_open, out_check, out_commit
  implicit none
  private
  public :: write_wall_loads, wall_load_names, wall_patch_loads, forces_line, forces_history_name
  public :: open_forces_csv, add_wall_loads

  !> the force history written every monitor line (fortran/forces_monitor.f90)
  character(len=*), parameter :: forces_history_name = 'forces.dat'

  !> the reference quantities of every coefficient
  character(len=*), parameter :: reference_text = 'p_ref the free stream''s static pressure 1/(gamma Mach^2), '// &
    'U_ref the lid speed (cavity) or the free-stream speed, lengths in the grid''s units'
  character(len=*), parameter :: units_line = '# cp = (p - p_ref)/(rho_ref U_ref^2/2); cf = tau_wall/'// &
    '(rho_ref U_ref^2/2), signed along the face''s first index direction; '//reference_text
  !> the force coefficients' definition, the first line of forces.csv and forces.dat
  character(len=*), parameter :: forces_line = '# force coefficients of the wall patches: F/(rho_ref U_ref^2/2 A), '// &
    'A = 1 in the grid''s units (the fluid''s force on the wall; pressure part against p_ref); '//reference_text

contains

  !> The file name of patch n's wall loads.
  function wall_file_name(n, face) result(s)
    integer, intent(in) :: n, face
    character(len=:), allocatable :: s
    character(len=16) :: b
    write(b, '(i2.2)') n
    s = 'wall_'//trim(b)//'_'//face_name(face)//'.csv'
  end function wall_file_name

  !> The names of the files write_wall_loads writes for the patches ps
  !> (blank-separated, for the driver's check of the output slots; '' for
  !> none, or no patches).
  !> first present (a block of a multi-block grid, whose patches are
  !> numbered first+1, first+2, ... over all blocks): its wall files only.
  function wall_load_names(ps, first) result(s)
    type(patch_set_t), intent(in) :: ps
    integer, intent(in), optional :: first
    character(len=:), allocatable :: s
    integer :: n, n0
    s = ''
    if (.not. allocated(ps%p)) return
    n0 = 0
    if (present(first)) n0 = first
    do n = 1, size(ps%p)
      if (is_wall_kind(ps%p(n)%kind)) s = s//' '//wall_file_name(n0 + n, ps%p(n)%face)
    end do
    if (len(s) > 0 .and. .not. present(first)) s = s//' forces.csv '//forces_history_name
  end function wall_load_names

  !> The force coefficients of wall patch n as forces.csv and forces.dat
  !> list them: against the rest pressure, over the unit area. ps: the
  !> faces summed, f's patches or a block's share of them (a decomposed
  !> run sums the blocks' shares, fortran/run_files_mpi.f90).
  function wall_patch_load(sp, lay, ps, f, n) result(load)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(patch_set_t), intent(in) :: ps
    type(fields_t), intent(in) :: f
    integer, intent(in) :: n
    type(patch_load_t) :: load
    load = patch_load(sp, lay, ps, f, n, rest_pressure(sp), 1.0_rk)
  end function wall_patch_load

  !> wall_patch_load of every wall or lid patch of ps, by patch number (the
  !> other patches' zero): what a row of forces.dat lists.
  function wall_patch_loads(sp, lay, ps, f) result(loads)
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(patch_set_t), intent(in) :: ps
    type(fields_t), intent(in) :: f
    type(patch_load_t), allocatable :: loads(:)
    integer :: n
    allocate(loads(size(ps%p)))
    do n = 1, size(ps%p)
      if (is_wall_kind(ps%p(n)%kind)) loads(n) = wall_patch_load(sp, lay, ps, f, n)
    end do
  end function wall_patch_loads

  subroutine write_wall_loads(dir, sp, lay, f)
    character(len=*), intent(in) :: dir
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(in) :: f
    type(out_file_t) :: ff
    if (len(wall_load_names(f%ps)) == 0) return
    call open_forces_csv(ff, dir)
    call add_wall_loads(ff, dir, sp, lay, f, 0, '')
    call out_commit(ff)
  end subroutine write_wall_loads

  !> forces.csv opened, its header written (add_wall_loads adds the rows).
  subroutine open_forces_csv(ff, dir)
    type(out_file_t), intent(out) :: ff
    character(len=*), intent(in) :: dir
    integer :: ios
    character(len=512) :: msg
    call out_open(ff, dir//'/forces.csv')
    write(ff%unit, '(a)', iostat=ios, iomsg=msg) forces_line
    call out_check(ff, ios, msg)
    write(ff%unit, '(a)', iostat=ios, iomsg=msg) 'patch,face,kind,cx_pressure,cy_pressure,cz_pressure,'// &
      'cx_viscous,cy_viscous,cz_viscous,cx,cy,cz'
    call out_check(ff, ios, msg)
  end subroutine open_forces_csv

  !> The wall files of f's wall patches and their rows of forces.csv (ff),
  !> the patches numbered first+1, first+2, ...; block: '' for one grid,
  !> else the block's label, which the face names carry ('block 2 jmin').
  subroutine add_wall_loads(ff, dir, sp, lay, f, first, block)
    type(out_file_t), intent(inout) :: ff
    character(len=*), intent(in) :: dir, block
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(in) :: f
    integer, intent(in) :: first
    type(out_file_t) :: of
    type(wall_face_t), allocatable :: faces(:)
    type(patch_load_t) :: load
    real(rk) :: p_ref
    integer :: n, m, ios
    character(len=512) :: msg
    character(len=:), allocatable :: fname
    p_ref = rest_pressure(sp)
    do n = 1, size(f%ps%p)
      if (.not. is_wall_kind(f%ps%p(n)%kind)) cycle
      fname = face_name(f%ps%p(n)%face)
      if (len(block) > 0) fname = block//' '//fname
      call wall_faces_of_patch(sp, lay, f%ps, f, n, p_ref, faces)
      call out_open(of, dir//'/'//wall_file_name(first + n, f%ps%p(n)%face))
      write(of%unit, '(a,i0,a,4(i0,a))', iostat=ios, iomsg=msg) '# patch ', first + n, ' ('// &
        patch_kind_name(f%ps%p(n)%kind)//', face '//fname//', cells ', f%ps%p(n)%lo(1), '..', f%ps%p(n)%hi(1), &
        ' x ', f%ps%p(n)%lo(2), '..', f%ps%p(n)%hi(2), ')'
      call out_check(of, ios, msg)
      write(of%unit, '(a)', iostat=ios, iomsg=msg) units_line
      call out_check(of, ios, msg)
      write(of%unit, '(a)', iostat=ios, iomsg=msg) 'b,c,x,y,z,cp,cf,cf_x,cf_y,cf_z'
      call out_check(of, ios, msg)
      do m = 1, size(faces)
        write(of%unit, '(i0,",",i0,8(",",es23.15e3))', iostat=ios, iomsg=msg) faces(m)%b, faces(m)%c, faces(m)%x, &
          faces(m)%cp, faces(m)%cf, faces(m)%cf_vec
        call out_check(of, ios, msg)
      end do
      call out_commit(of)
      load = wall_patch_load(sp, lay, f%ps, f, n)
      write(ff%unit, '(i0,",",a,",",a,9(",",es23.15e3))', iostat=ios, iomsg=msg) first + n, fname, &
        patch_kind_name(f%ps%p(n)%kind), load%pressure, load%viscous, load%pressure + load%viscous
      call out_check(ff, ios, msg)
    end do
  end subroutine add_wall_loads
end module output_wall_loads
