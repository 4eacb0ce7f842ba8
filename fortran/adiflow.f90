!> adiflow: steady compressible Navier-Stokes on a structured grid, Roe flux
!> + LU-ADI, CPU reference or GPU backend through the C bridge.
!>
!>   adiflow CASE.nml [--backend auto|cpu|gpu] [--kernels split|merged]
!>                    [--implicit-precision double|single] [--max-iter N] [--run-dir DIR]
!>                    [--restart] [--mass-fix] [--mg-levels N]
!> With &multigrid levels > 1 each step is one FAS cycle (fortran/multigrid_cycle.f90)
!> over the levels below the fine grid, on either backend.
program adiflow
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr
  use, intrinsic :: iso_fortran_env, only: output_unit
  use kinds, only: rk, ik8
  use text_util, only: int_text
  use grid_layout
  use solver_params
  use case_config
  use flow_fields, only: host_field_count
  use grid_source, only: take_grid_sizes, make_grid_nodes, join_cuts, grid_origin_text, beside_case
  use boundary_patches, only: patch_set_t, coarsen_patches, coarse_patch_sets
  use patch_file, only: read_patch_file, has_open_patches, units_text
  use cgns_case, only: take_cgns_patches
  use output_wall_loads, only: wall_load_names
  use mass_constraint, only: total_mass
  use output_file, only: blocked_output
  use omp_policy, only: cells_per_thread
  use output_fields, only: output_scratch_bytes
  use driver_loop, only: run_iterations
  use blocks_driver, only: run_block_grid
  use multigrid_config, only: mg_config_t, read_multigrid_config, validate_multigrid_config, mg_config_text, &
    settle_coarse_dissipation
  use multigrid_levels, only: plan_levels, build_coarse_levels, level_sizes_text, coarse_bytes
  use backend, only: backend_t
  use backend_cpu, only: cpu_backend_t, to_cpu_backend
  use backend_gpu, only: gpu_backend_t
  use run_files, only: run_files_t
  use sys_interface, only: adi_install_signal_handlers, adi_host_memory_available, adi_guard_output_signals, &
    make_dirs, lock_run_dir
  use gpu_bridge, only: gpu_chosen, gpu_device_info, gpu_settings_error, gpu_warm_up, gpu_warm_done, ADI_KERNELS_SPLIT, &
    ADI_KERNELS_MERGED, adi_gpu_narrow_visible
  use gpu_settings, only: gpu_settings_t
  !$ use omp_lib, only: omp_get_max_threads, omp_set_num_threads
  implicit none

  type(case_t) :: cs
  type(layout_t) :: lay
  type(solver_params_t) :: sp
  type(gpu_settings_t) :: gs
  type(c_ptr) :: warm = c_null_ptr      ! the GPU's context in the making (gpu_warm_up)
  type(mg_config_t) :: mg               ! the &multigrid group
  class(backend_t), allocatable :: be   ! the CPU reference or the GPU, with the grid's levels
  type(run_files_t) :: files            ! restart and outputs
  real(rk), allocatable :: xn(:,:,:,:)
  character(len=:), allocatable :: case_path, dir, why, mg_note
  logical :: use_gpu, ok, in_part
  type(patch_set_t) :: ps               ! the boundary patches (patch_file), none without one
  logical :: have_cgns_patches          ! ps holds a CGNS grid file's boundary conditions
  logical :: cuts(3)                    ! faces of the grid file that close on themselves
  integer(ik8) :: it0, started
  real(rk) :: res0(5)
  integer :: nthreads, lock_fd, nlev, code, nblocks
  integer, allocatable :: lev_sizes(:,:), lev_ratios(:,:)

  call system_clock(started)
  call adi_guard_output_signals()
  case_path = command_argument(1)
  if (len_trim(case_path) == 0 .or. case_path == '--help' .or. case_path == '-h') then
    write(output_unit, '(a)') 'usage: adiflow CASE.nml [--backend auto|cpu|gpu] '// &
      '[--kernels split|merged] [--implicit-precision double|single] [--max-iter N] [--run-dir DIR] '// &
      '[--restart] [--accept-old-restart] [--mass-fix] [--mg-levels N]'
    write(output_unit, '(a)') 'case-file keys: see README.md, "Case file reference"'
    if (len_trim(case_path) == 0) error stop 2, quiet=.true.
    stop
  end if

  call read_case(case_path, cs)
  call read_multigrid_config(case_path, mg)
  call apply_overrides(cs, mg_option, '--mg-levels N')
  call take_grid_sizes(cs, case_path, nblocks)
  call validate_multigrid_config(mg)
  call settle_coarse_dissipation(mg, cs%precondition == 'turkel')
  if (nblocks > 1 .or. cs%min_blocks > 1) then
    ! a grid file of several blocks (or cut into them): its own set-up and files, the same loop
    call run_block_grid(cs, mg, case_path, started, code)
    if (code /= 0) error stop code, quiet=.true.
    stop
  end if
  call validate_case(cs)
  lay = make_layout(cs%ni, cs%nj, cs%nk)
  call check_host_memory(lay)
  gs = make_gpu_settings(cs)
  why = gpu_settings_error(cs%backend, gs)
  if (len(why) > 0) call case_error(why)
  ! the GPU is looked for and its context made on a thread while the host
  ! sets up the run (the nodes, the grid's fields and metrics, the levels, the
  ! run folder); the context is waited for before the backend starts, the
  ! look where the backend is chosen: with backend = 'gpu' before the run
  ! folder and the fields (a missing GPU stops the run there), with 'auto'
  ! once the grid is made (a run that finds no GPU turns to the CPU there)
  if (cs%backend /= 'cpu') then
    ! one process, one GPU: the driver starts the chosen GPU alone (the user's CUDA_VISIBLE_DEVICES stands)
    call adi_gpu_narrow_visible(gs)
    call gpu_warm_up(gs, warm)
  end if
  ! the grid's nodes, read and checked before the run folder and the fields; a
  ! grid closed on itself joins its cut before the boundaries are set up
  call make_grid_nodes(cs, xn, cuts, in_part)
  if (in_part) then
    ! a one-block grid joined to itself over part of a face (a C-grid): run over blocks, cut at the part's ends
    call gpu_warm_done(warm)
    call run_block_grid(cs, mg, case_path, started, code)
    if (code /= 0) error stop code, quiet=.true.
    stop
  end if
  call join_cuts(cs, cuts)
  sp = make_solver_params(cs, lay)

  ! a CGNS grid's boundary conditions are the patches (a patch_file beside them is refused)
  call take_cgns_patches(cs, sp, ps, have_cgns_patches, 'adiflow')
  if (len_trim(cs%patch_file) > 0) call read_patches()
  call plan_levels([cs%ni, cs%nj, cs%nk], sp%bc([1, 3, 5]) == BC_PERIODIC, mg%levels, nlev, lev_sizes, &
    lev_ratios, mg_note)
  if (allocated(ps%p)) call stop_levels_at_patches()

  if (cs%backend == 'gpu') use_gpu = gpu_chosen(cs%backend, gs, warm)
  dir = run_folder(cs, case_path)
  if (make_dirs(dir, why) /= 0) call case_error(why)
  lock_fd = lock_run_dir(dir, why)
  if (lock_fd < 0) call case_error(why)
  call files%init(cs, 'adiflow', dir, dir//'/restart.bin', .true., started)
  ! (a restart's own file is checked by its reader, which says more)
  why = blocked_output(dir, merge('           ', 'restart.bin', cs%restart)//' field.dump flow.vts flow.dat flow.xyz flow.q '// &
    'centreline_u.csv centreline_v.csv residual.dat residual.gp residual.png '// &
    merge('flow.pvd', '        ', files%write_series)//wall_load_names(ps))
  if (len(why) > 0) call case_error(why)

  nthreads = 1
  !$ if (cs%threads > 0) call omp_set_num_threads(cs%threads)
  !$ nthreads = omp_get_max_threads()
  write(output_unit, '(a)') 'adiflow: '//trim(cs%title)//' ('//trim(case_path)//')'
  write(output_unit, '(a,i0,a,i0,a,i0,a,es10.3,a,f6.3)') '  grid ', cs%ni, ' x ', cs%nj, ' x ', &
    cs%nk, grid_origin_text(cs)//', Re ', cs%reynolds, ', Mach ', cs%mach
  write(output_unit, '(a)') '  convection: Roe, '//trim(scheme_text(cs))
  write(output_unit, '(a)') '  implicit operator (LU-ADI): '//trim(implicit_text(cs))
  write(output_unit, '(a)') '  '//units_text(sp, has_open_patches(ps), cs%freestream_alpha, cs%freestream_beta)

  if (cs%backend /= 'cpu') then
    be = gpu_backend_t(kernels=merge(ADI_KERNELS_MERGED, ADI_KERNELS_SPLIT, trim(cs%kernels) == 'merged'), gs=gs)
  else
    be = cpu_backend_t()
  end if
  be%mg = mg
  call be%set_grid(sp, lay, xn, nlev)
  if (cs%backend == 'auto') then
    use_gpu = gpu_chosen(cs%backend, gs, warm)
    if (.not. use_gpu) then
      call gpu_warm_done(warm)
      call to_cpu_backend(be)
    end if
  else
    use_gpu = cs%backend == 'gpu'
  end if
  if (allocated(ps%p)) be%level(1)%f%ps = ps
  call check_grid(lay, be%level(1)%f%vol)
  if (mg%levels > 1) call start_multigrid()

  res0 = 0.0_rk
  it0 = 0
  if (cs%restart) then
    call files%read_restart(be, it0, res0, why)
    if (len(why) > 0) call case_error(why)
    if (files%nothing_left(it0)) stop
  else
    call be%start_at_rest()
    if (has_open_patches(ps)) call be%start_in_free_stream(cs%freestream_alpha, cs%freestream_beta)
  end if
  call be%fill_boundary(1)
  ! mass_fix: the reference mass is that of rho = 1, from the grid alone, so
  ! a restart holds the same level as the run it continues
  be%mass_fix = cs%mass_fix
  if (cs%mass_fix) then
    be%mass0 = total_mass(lay, be%level(1)%f%vol)
    write(output_unit, '(a,es23.16)') '  mass_fix: total mass held at ', be%mass0
  end if

  if (use_gpu) then
    call gpu_warm_done(warm)
    write(output_unit, '(a)') '  backend: gpu ('//trim(cs%kernels)//' kernels) on '//trim(gpu_device_info(gs))
  else
    write(output_unit, '(a,i0,a,i0,a)') '  backend: cpu (Fortran reference, up to ', nthreads, &
      ' OpenMP threads: one per ', cells_per_thread(), ' cells of a loop)'
  end if
  call be%start()
  write(output_unit, '(a)') '  outputs in '//trim(dir)//'/'

  call files%start_series(it0)
  call adi_install_signal_handlers()
  call run_iterations(cs, it0, res0, be, files, code)
  call be%finalize()
  if (code /= 0) error stop code, quiet=.true.

contains

  !> --mg-levels N overrides the &multigrid group's levels.
  logical function mg_option(flag, value) result(taken)
    character(len=*), intent(in) :: flag, value
    taken = flag == '--mg-levels'
    if (.not. taken) return
    mg%levels = int_option(flag, value)
  end function mg_option

  !> The coarse levels' grids and fields; says what the hierarchy is.
  subroutine start_multigrid()
    integer :: l
    write(output_unit, '(a,i0,a)') '  multigrid: ', nlev, ' levels ('//level_sizes_text(nlev, lev_sizes)// &
      '), '//mg_config_text(mg, sp%roe_low_mach /= ROE_LM_NONE)
    if (nlev < mg%levels) write(output_unit, '(a,i0,a,i0,a)') '  multigrid: asked for ', mg%levels, &
      ' levels, using ', nlev, ': '//mg_note
    if (nlev == mg%levels .and. len(mg_note) > 0) write(output_unit, '(a)') '  multigrid: '//mg_note
    if (nlev == 1) return
    call build_coarse_levels(cs, nlev, lev_sizes, lev_ratios, mg%coarse_order, mg%coarse_roe_low_mach == 'none', &
      be%level, be%host_iterates())
    do l = 2, nlev
      call check_grid(be%level(l)%lay, be%level(l)%f%vol)
      if (allocated(ps%p)) then
        call coarsen_patches(be%level(l-1)%f%ps, lev_sizes(:, l-1), lev_ratios(:, l), be%level(l)%f%ps, ok, why)
        if (.not. ok) call case_error('multigrid level '//int_text(l)//': '//why)   ! stop_levels_at_patches checked it
      end if
    end do
    be%weight = be%level%weight
  end subroutine start_multigrid

  !> The boundary patches of the patch file (beside the case file), checked
  !> before anything is allocated. Either backend fills the ghosts by them
  !> (the GPU: each level's patches on the device, backend_gpu).
  subroutine read_patches()
    logical :: per(6)
    per = sp%bc == BC_PERIODIC
    call read_patch_file(beside_case(cs%patch_file, case_path), sp, per, [cs%lid_u, cs%lid_v, cs%lid_w], &
      cs%freestream_alpha, cs%freestream_beta, cs%ni, cs%nj, cs%nk, ps, ok, why)
    if (.not. ok) call case_error(why)
  end subroutine read_patches

  !> The levels the patches allow: the hierarchy stops above the first
  !> level where a patch edge would fall inside a coarse cell, and says so.
  subroutine stop_levels_at_patches()
    type(patch_set_t), allocatable :: sets(:)
    call coarse_patch_sets(ps, lev_sizes, lev_ratios, nlev, mg_note, sets)
  end subroutine stop_levels_at_patches

  !> Before the grid's nodes and fields: the run's levels are planned only
  !> later (they need the boundaries), so the check plans its own, every
  !> direction coarsening as far as a periodic one would: never fewer coarse
  !> cells than the run's plan.
  subroutine check_host_memory(l)
    type(layout_t), intent(in) :: l
    integer(ik8) :: need, avail
    character(len=300) :: m
    integer :: bound_nlev
    integer, allocatable :: bound_sizes(:,:), bound_ratios(:,:)
    character(len=:), allocatable :: note
    call plan_levels([l%ni, l%nj, l%nk], [.true., .true., .true.], mg%levels, bound_nlev, bound_sizes, &
      bound_ratios, note)
    need = field_bytes(l, host_field_count()) + 24_ik8*int(l%ni + 5, ik8)*(l%nj + 5)*(l%nk + 5) &
      + coarse_bytes(bound_nlev, bound_sizes)
    if (cs%write_vtk .or. cs%write_tecplot) need = need + output_scratch_bytes(l)
    avail = adi_host_memory_available()
    if (avail > 0 .and. need > avail) then
      write(m, '(a,i0,a,i0,a,i0,a,f0.1,a,f0.1,a)') 'grid ', l%ni, ' x ', l%nj, ' x ', l%nk, &
        ' needs ', real(need, rk)/2.0_rk**30, ' GiB of host memory but only ', &
        real(avail, rk)/2.0_rk**30, ' GiB are available; use a smaller grid'
      call case_error(m)
    end if
  end subroutine check_host_memory

  subroutine check_grid(l, v)
    type(layout_t), intent(in) :: l
    real(rk), intent(in) :: v(-1:,-1:,-1:)
    if (any(.not. (v(1:l%ni, 1:l%nj, 1:l%nk) > 0.0_rk))) call case_error( &
      'the grid has cells with zero or negative volume (folded grid: reduce wavy_amplitude or beta)')
  end subroutine check_grid
end program adiflow
