!> adiflow: steady compressible Navier-Stokes on a structured grid, Roe flux
!> + LU-ADI, CPU reference or GPU backend through the C bridge.
!>
!>   adiflow CASE.nml [--backend auto|cpu|gpu] [--kernels split|merged]
!>                    [--implicit-precision double|single] [--max-iter N] [--run-dir DIR]
!>                    [--restart] [--mass-fix] [--mg-levels N]
!> With &multigrid levels > 1 each step is one FAS cycle (fortran/multigrid_cycle.f90)
!> over the levels below the fine grid, on either backend.
program adiflow
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr
  use kinds, only: rk, ik8, ng
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use grid_generation, only: generate_nodes
  use metrics, only: compute_metrics
  use solver_cpu, only: cpu_iteration
  use boundary_conditions, only: apply_boundary_conditions, apply_wall_temperature
  use primitives, only: compute_primitives
  use flow_math, only: rest_pressure
  use residual_norms, only: compute_residual_norms
  use mass_constraint, only: total_mass, mass_from_plane_sums, mass_scale_factor
  use field_io, only: write_field_dump, read_field_dump
  use output_vtk, only: write_vts, snapshot_stem, vtk_series_t, series_start, series_snapshot, series_final
  use output_file, only: blocked_output
  use omp_policy, only: cells_per_thread
  use output_fields, only: output_scratch_bytes
  use output_tecplot, only: write_tecplot
  use output_profiles, only: write_profiles
  use driver_loop, only: run_iterations, old_restart_note
  use multigrid_config, only: mg_config_t, read_multigrid_config, validate_multigrid_config, mg_config_text
  use multigrid_levels, only: mg_level_t, plan_levels, build_coarse_levels, level_sizes_text, coarse_bytes
  use multigrid_cycle, only: run_cycle
  use multigrid_cpu, only: cpu_mg_smooth, cpu_mg_down, cpu_mg_up
  use mass_constraint, only: rescale_to_mass
  use sys_interface, only: adi_install_signal_handlers, adi_interrupt_requested, &
    adi_host_memory_available, adi_guard_output_signals, make_dirs, lock_run_dir
  use gpu_bridge
  use gpu_settings, only: gpu_settings_t
  !$ use omp_lib, only: omp_get_max_threads, omp_set_num_threads
  implicit none

  type(case_t) :: cs
  type(layout_t) :: lay
  type(solver_params_t) :: sp
  type(fields_t) :: f
  type(gpu_grid_t) :: gpu
  type(gpu_settings_t) :: gs        ! the grid on the device (GPU backend)
  real(rk), allocatable :: xn(:,:,:,:)
  character(len=:), allocatable :: case_path, dir, restart_path, why
  logical :: use_gpu
  integer(ik8) :: it0
  real(rk) :: res0(5), mass0
  integer :: rversion
  integer :: nthreads, lock_fd
  ! multigrid (fortran/multigrid_*.f90): the &multigrid group, the levels
  ! below the fine grid, their cost weights, the work units done
  type(mg_config_t) :: mg
  type(mg_level_t), allocatable :: levels(:)
  integer :: nlev
  integer, allocatable :: lev_sizes(:,:), lev_ratios(:,:)
  real(rk), allocatable :: lev_weight(:)
  real(rk) :: work_units = 0.0_rk
  type(gpu_grid_t), allocatable :: gpu_levels(:)   ! levels 2.. on the device (level 1 is gpu)
  character(len=:), allocatable :: mg_note
  type(vtk_series_t) :: series      ! flow.pvd of the snapshots (output_interval > 0)
  logical :: write_series

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
  call validate_case(cs)
  call validate_multigrid_config(mg)
  sp = make_solver_params(cs)
  lay = make_layout(cs%ni, cs%nj, cs%nk)
  sp%ldi = lay%ldi; sp%ldj = lay%ldj; sp%ldk = lay%ldk

  gs = make_gpu_settings(cs)
  ! the &gpu group is checked whenever the GPU may run, before any allocation
  if (cs%backend /= 'cpu') then
    why = gpu_settings_problem(gs)
    if (len(why) > 0) call case_error(why//' (&gpu group)')
  end if
  use_gpu = choose_backend(cs%backend)
  call plan_levels([cs%ni, cs%nj, cs%nk], sp%bc([1, 3, 5]) == BC_PERIODIC, mg%levels, nlev, lev_sizes, &
    lev_ratios, mg_note)
  call check_host_memory(lay)

  dir = run_folder(cs, case_path)
  if (make_dirs(dir, why) /= 0) call case_error(why)
  lock_fd = lock_run_dir(dir, why)
  if (lock_fd < 0) call case_error(why)
  ! (a restart's own file is checked by its reader, which says more)
  write_series = cs%write_vtk .and. cs%output_interval > 0
  why = blocked_output(dir, merge('           ', 'restart.bin', cs%restart)//' field.dump flow.vts flow.dat '// &
    'centreline_u.csv centreline_v.csv residual.dat residual.gp residual.png '//merge('flow.pvd', '        ', write_series))
  if (len(why) > 0) call case_error(why)
  restart_path = dir//'/restart.bin'

  nthreads = 1
  !$ if (cs%threads > 0) call omp_set_num_threads(cs%threads)
  !$ nthreads = omp_get_max_threads()
  write(output_unit, '(a)') 'adiflow: '//trim(cs%title)//' ('//trim(case_path)//')'
  write(output_unit, '(a,i0,a,i0,a,i0,a,es10.3,a,f6.3)') '  grid ', cs%ni, ' x ', cs%nj, ' x ', &
    cs%nk, ', Re ', cs%reynolds, ', Mach ', cs%mach
  write(output_unit, '(a)') '  convection: Roe, '//trim(scheme_text(cs))
  write(output_unit, '(a)') '  implicit operator (LU-ADI): '//trim(implicit_text(cs))

  call allocate_fields(lay, f)
  call generate_nodes(cs, xn)
  call compute_metrics(lay, xn, f%sf, f%sc, f%vol, f%xc)
  call check_grid(lay, f%vol)
  if (mg%levels > 1) call start_multigrid()

  res0 = 0.0_rk
  it0 = 0
  if (cs%restart) then
    call read_field_dump(restart_path, lay, f%q, it0, res0, cs%accept_old_restart, rversion)
    write(output_unit, '(a,i0)') '  restarting from '//trim(restart_path)//' at iteration ', it0
    call old_restart_note(output_unit, trim(restart_path), rversion, it0)
    if (it0 >= cs%max_iter) then
      write(output_unit, '(a,i0,a,i0,a)') 'adiflow: nothing left to do: the restart is at iteration ', it0, &
        ', max_iter is ', cs%max_iter, '; raise max_iter (or --max-iter) to continue. No file was changed.'
      stop
    end if
  else
    call initial_state(sp, f%q)
  end if
  call apply_boundary_conditions(sp, lay, f%q)
  ! mass_fix: the reference mass is that of rho = 1, from the grid alone, so
  ! a restart holds the same level as the run it continues
  mass0 = 0.0_rk
  if (cs%mass_fix) then
    mass0 = total_mass(lay, f%vol)
    write(output_unit, '(a,es23.16)') '  mass_fix: total mass held at ', mass0
  end if

  if (use_gpu) then
    write(output_unit, '(a)') '  backend: gpu ('//trim(cs%kernels)//' kernels) on '//trim(gpu_device_info(gs))
    call gpu_check(adi_gpu_init(gpu%ptr, sp, kernel_family(cs%kernels), gs, f%sf, f%sc, f%vol, f%q), &
      'initialisation')
    if (nlev > 1) call start_gpu_levels()
  else
    write(output_unit, '(a,i0,a,i0,a)') '  backend: cpu (Fortran reference, up to ', nthreads, &
      ' OpenMP threads: one per ', cells_per_thread(), ' cells of a loop)'
  end if
  write(output_unit, '(a)') '  outputs in '//trim(dir)//'/'

  if (write_series) call series_start(series, dir, '.vts', int(cs%max_iter, ik8), it0, cs%output_interval)
  call adi_install_signal_handlers()
  call run_iterations(cs, 'adiflow', dir, restart_path, .true., it0, res0, iterate, current_norms, &
    interrupted, save_restart, write_snapshot, write_outputs, finish, work_done)

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
    call build_coarse_levels(sp, xn, nlev, lev_sizes, lev_ratios, mg%coarse_order, &
      mg%coarse_roe_low_mach == 'none', levels)
    allocate(lev_weight(nlev))
    lev_weight(1) = 1.0_rk
    do l = 2, nlev
      call check_grid(levels(l)%lay, levels(l)%f%vol)
      lev_weight(l) = levels(l)%weight
    end do
  end subroutine start_multigrid

  !> One device grid per coarse level, each with its forcing (adi_gpu_init_level).
  subroutine start_gpu_levels()
    integer :: l
    allocate(gpu_levels(nlev))
    do l = 2, nlev
      call gpu_check(adi_gpu_init_level(gpu_levels(l)%ptr, levels(l)%sp, kernel_family(cs%kernels), gs, &
        levels(l)%f%sf, levels(l)%f%sc, levels(l)%f%vol, levels(l)%f%q), 'initialisation of a multigrid level')
    end do
  end subroutine start_gpu_levels

  !> The device handle of level l.
  type(c_ptr) function level_ptr(l)
    integer, intent(in) :: l
    if (l == 1) then
      level_ptr = gpu%ptr
    else
      level_ptr = gpu_levels(l)%ptr
    end if
  end function level_ptr

  real(rk) function work_done()
    work_done = work_units
  end function work_done

  !> The cycle's level operations (fortran/multigrid_cycle.f90): the CPU
  !> reference's, or the same steps on the device.
  subroutine mg_smooth(l, cfl)
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (use_gpu) then
      call gpu_check(adi_gpu_iterate(level_ptr(l), cfl), 'multigrid iteration')
    else
      call cpu_mg_smooth(sp, lay, f, levels, l, cfl)
    end if
  end subroutine mg_smooth

  subroutine mg_down(l, cfl)
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (use_gpu) then
      call gpu_check(adi_gpu_residual(level_ptr(l), cfl), 'multigrid residual')
      call gpu_check(adi_gpu_mg_restrict(level_ptr(l), level_ptr(l + 1), levels(l + 1)%ratio), &
        'multigrid restriction')
      call gpu_check(adi_gpu_residual(level_ptr(l + 1), cfl), 'multigrid coarse residual')
      call gpu_check(adi_gpu_mg_forcing(level_ptr(l + 1)), 'multigrid forcing')
    else
      call cpu_mg_down(sp, lay, f, levels, l, cfl)
    end if
  end subroutine mg_down

  subroutine mg_up(l)
    integer, intent(in) :: l
    if (use_gpu) then
      call gpu_check(adi_gpu_mg_prolong(level_ptr(l), level_ptr(l + 1), levels(l + 1)%ratio), &
        'multigrid prolongation')
    else
      call cpu_mg_up(lay, f, levels, l)
    end if
  end subroutine mg_up

  subroutine iterate(cfl)
    real(rk), intent(in) :: cfl
    if (nlev > 1) then
      call run_cycle(mg, nlev, lev_weight, cfl, mg_smooth, mg_down, mg_up, work_units)
      if (cs%mass_fix .and. use_gpu) then
        call gpu_mass_fix()
      else if (cs%mass_fix) then
        call rescale_to_mass(lay, f%q, mass0, total_mass(lay, f%vol, f%q))
      end if
      return
    end if
    work_units = work_units + 1.0_rk
    if (use_gpu) then
      call gpu_check(adi_gpu_iterate(gpu%ptr, cfl), 'iteration')
      if (cs%mass_fix) call gpu_mass_fix()
    else if (cs%mass_fix) then
      call cpu_iteration(sp, lay, cfl, f, mass0)
    else
      call cpu_iteration(sp, lay, cfl, f)
    end if
  end subroutine iterate

  logical function interrupted()
    interrupted = adi_interrupt_requested() /= 0
  end function interrupted

  !> Release the GPU and stop with the driver's exit code.
  subroutine finish(code)
    integer, intent(in) :: code
    integer :: l
    if (use_gpu .and. allocated(gpu_levels)) then
      do l = 2, nlev
        call gpu_check(gpu_finalize(gpu_levels(l)), 'finalisation of a multigrid level')
      end do
    end if
    if (use_gpu) call gpu_check(gpu_finalize(gpu), 'finalisation')
    if (code /= 0) error stop code, quiet=.true.
    stop
  end subroutine finish

  function choose_backend(req) result(gpu)
    character(len=*), intent(in) :: req
    logical :: gpu
    select case (trim(req))
    case ('cpu')
      gpu = .false.
    case ('gpu')
      if (adi_gpu_available(gs) == 0) call gpu_check(int(1, c_int), 'backend = ''gpu''')
      gpu = .true.
    case default
      gpu = adi_gpu_available(gs) /= 0
      if (.not. gpu) write(output_unit, '(a)') &
        'adiflow: backend = auto: no usable GPU found, running on the CPU backend'
    end select
  end function choose_backend

  !> mass_fix on the GPU: the device's plane sums (the Fortran order of
  !> total_mass), the total and s = M0/M here, the rescale on the device: the
  !> steps of cpu_iteration's rescale_to_mass. Synchronises every iteration.
  subroutine gpu_mass_fix()
    real(rk) :: plane(lay%nk)
    plane = 0.0_rk
    call gpu_check(adi_gpu_mass_plane_sums(gpu%ptr, plane), 'mass sums (mass_fix)')
    call gpu_check(adi_gpu_scale_state(gpu%ptr, mass_scale_factor(mass0, mass_from_plane_sums(plane))), &
      'mass rescale (mass_fix)')
  end subroutine gpu_mass_fix

  integer(c_int) function kernel_family(name)
    character(len=*), intent(in) :: name
    kernel_family = merge(ADI_KERNELS_MERGED, ADI_KERNELS_SPLIT, trim(name) == 'merged')
  end function kernel_family

  subroutine check_host_memory(l)
    type(layout_t), intent(in) :: l
    integer(ik8) :: need, avail
    character(len=300) :: m
    need = field_bytes(l, host_field_count()) + 24_ik8*int(l%ni + 5, ik8)*(l%nj + 5)*(l%nk + 5) &
      + coarse_bytes(nlev, lev_sizes)
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

  subroutine initial_state(s, q)
    type(solver_params_t), intent(in) :: s
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    ! fluid at rest, rho = 1, T = 1: p = 1 / (gamma Mach^2)
    q(:,:,:,1) = 1.0_rk
    q(:,:,:,2:4) = 0.0_rk
    q(:,:,:,5) = rest_pressure(s)/s%gm1
  end subroutine initial_state

  subroutine current_norms(nrm)
    real(rk), intent(out) :: nrm(5)
    if (use_gpu) then
      call gpu_check(adi_gpu_residual_norms(gpu%ptr, nrm), 'residual norms')
    else
      call compute_residual_norms(lay, f%res, f%vol, nrm)
    end if
  end subroutine current_norms

  subroutine fetch_state()
    if (use_gpu) call gpu_check(adi_gpu_download_state(gpu%ptr, f%q), 'state download')
  end subroutine fetch_state

  !> Restart only from a finite state: a diverging run keeps the last good one.
  logical function save_restart(iter, ref) result(saved)
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    real(rk) :: nrm(5)
    call current_norms(nrm)
    saved = all(abs(nrm) <= huge(1.0_rk))
    if (.not. saved) return
    call fetch_state()
    call write_field_dump(restart_path, lay, f%q, iter, ref)
  end function save_restart

  !> The state downloaded, its boundary fill and primitives (the wall
  !> temperature's ghosts included: the outputs' wall nodes read them).
  subroutine output_state()
    call fetch_state()
    call apply_boundary_conditions(sp, lay, f%q)
    call compute_primitives(sp, lay, f%q, f%qp)
    call apply_wall_temperature(sp, lay, f%qp)
  end subroutine output_state

  subroutine write_snapshot(iter)
    integer(ik8), intent(in) :: iter
    if (.not. cs%write_vtk) return
    call output_state()
    call write_vts(dir//'/'//snapshot_stem(iter, int(cs%max_iter, ik8))//'.vts', lay, sp, xn, f%qp, f%sf, f%vol)
    if (write_series) call series_snapshot(series, iter)
  end subroutine write_snapshot

  subroutine write_outputs(iter, ref)
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    call output_state()
    if (cs%write_dump) call write_field_dump(dir//'/field.dump', lay, f%q, iter, ref)
    if (cs%write_vtk) call write_vts(trim(dir)//'/flow.vts', lay, sp, xn, f%qp, f%sf, f%vol)
    if (write_series) call series_final(series, iter)
    if (cs%write_tecplot) call write_tecplot(trim(dir)//'/flow.dat', cs%title, lay, sp, xn, f%qp, f%sf, f%vol)
    if (cs%write_profiles) call write_profiles(dir, lay, sp, cs%lx, cs%ly, cs%lz, f%xc, f%qp)
  end subroutine write_outputs
end program adiflow
