!> adiflow_mpi: the solver over a block decomposition of the grid in j and
!> k (MPI; i stays whole), on CPUs or one GPU per rank. Same case files as build/adiflow;
!> the decomposition comes from an optional second namelist group in the
!> case file (ignored by build/adiflow)
!>     &parallel  npj = 2, npk = 1, adi_mode = 'exact', pipeline_chunks = 0 /
!> or from the command line:
!>   mpirun -np P adiflow_mpi CASE.nml [--npj N] [--npk N] [--adi-mode exact|decoupled]
!>          [--chunks N] [--max-iter N] [--run-dir DIR] [--restart] [--accept-old-restart] [--backend auto|cpu|cuda]
!>          [--kernels split|merged] [--implicit-precision double|single] [--mass-fix] [--mg-levels N]
!> &multigrid (CPU backend): the same FAS cycle on every block, each coarse
!> level decomposed like the fine one, as many levels as the blocks allow
!> (every split direction even at every coarsening, >= 2 cells); exact mode
!> equals build/adiflow with that many levels bit for bit.
!> npj = npk = 0: automatic (smallest interface area). adi_mode = 'exact'
!> reproduces the single-domain solver bit for bit (pipelined sweeps);
!> 'decoupled' sweeps every block alone (interface increments zero).
!> pipeline_chunks = 0 (automatic): 4 on the CPU; 1 on GPUs, where a chunk
!> of lines is too few threads to fill the device and each chunk's sweep
!> costs as much as the whole one (measured, bench/RESULTS.md).
!> The s/iter column counts from the end of the first iteration (which
!> carries the start-up: NCCL connections, first launches); the first
!> iteration's own time is printed once.
!> backend = 'cuda' (or 'auto' where every rank sees a GPU): one rank per
!> GPU, chosen by node-local rank, halos and pipelined sweeps GPU to GPU
!> through NCCL (cuda/multi/block_nccl.cu); the same blocks, the same
!> results as the CPU backend (bit for bit in the strict build), mass_fix
!> included (the device's mass plane sums chained along j as on the CPU).
program adiflow_mpi
  use mpi_f08
  !$ use omp_lib, only: omp_set_num_threads
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use kinds, only: rk, ik8, ng, nvar, nprim
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use grid_generation, only: generate_nodes
  use metrics, only: compute_metrics
  use boundary_conditions, only: apply_boundary_conditions, apply_wall_temperature
  use primitives, only: compute_primitives
  use flow_math, only: rest_pressure
  use solver_cpu, only: residual_of_filled_state
  use lu_adi
  use field_io, only: write_field_dump, read_field_dump
  use output_tecplot, only: write_tecplot
  use output_profiles, only: write_profiles
  use output_vtk, only: snapshot_stem, vtk_series_t, series_start, series_snapshot, series_final
  use driver_loop, only: run_iterations, old_restart_note
  use multigrid_config, only: mg_config_t, read_multigrid_config, validate_multigrid_config, mg_config_text
  use multigrid_levels, only: mg_level_t, plan_levels, coarse_nodes, init_level, level_sizes_text
  use multigrid_transfer
  use multigrid_cycle, only: run_cycle
  use solver_cpu, only: add_forcing
  use residual_norms, only: norms_from_plane_sums
  use mass_constraint, only: mass_scale_factor
  use sys_interface, only: adi_install_signal_handlers, adi_interrupt_requested, &
    adi_guard_output_signals, make_dirs, lock_run_dir, regular_file, remove_old_restart_sets
  use output_file, only: out_file_t, out_open, out_check, out_commit, blocked_output
  use mpi_decomp
  use mpi_settings, only: settings_of, compare_settings
  use parallel_config, only: parallel_config_t, read_parallel_config, validate_parallel_config
  use gpu_settings, only: gpu_settings_t
  use gpu_bridge, only: gpu_settings_problem, adi_gpu_available, adi_gpu_iterate, adi_gpu_residual_plane_sums, &
    adi_gpu_mass_plane_sums, adi_gpu_scale_state, adi_gpu_download_state, gpu_error_text, gpu_device_info, &
    ADI_KERNELS_SPLIT, ADI_KERNELS_MERGED, gpu_grid_t
  use gpu_block_bridge
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_null_ptr
  implicit none

  type(case_t) :: cs
  type(parallel_config_t) :: pc  ! the &parallel group and its command-line flags
  ! multigrid (CPU backend; fortran/multigrid_*.f90): the &multigrid group,
  ! the coarse levels of this rank's block and their decompositions
  type(mg_config_t) :: mg
  type(mg_level_t), allocatable :: levels(:)
  type(decomp_t), allocatable :: dcl(:)
  integer :: nlev = 1
  integer, allocatable :: lev_sizes(:,:), lev_ratios(:,:)
  real(rk), allocatable :: lev_weight(:)
  real(rk) :: work_units = 0.0_rk
  type(layout_t) :: lay, lay_g
  type(solver_params_t) :: sp, sp_g
  type(fields_t) :: f
  type(gpu_grid_t) :: gpu        ! this rank's block on its GPU (GPU backend)
  type(gpu_settings_t) :: gs     ! the &gpu group (the device is the rank's node-local GPU)
  type(decomp_t) :: dc
  real(rk), allocatable :: xn_g(:,:,:,:), xn(:,:,:,:)
  character(len=:), allocatable :: case_path, dir, why
  character(len=400) :: msg
  logical :: ok
  integer(ik8) :: it0
  real(rk) :: res0(5), mass0
  integer :: rank, nranks, lock_fd, okflag
  logical :: use_gpu
  type(vtk_series_t) :: series   ! flow.pvd of the .pvts snapshots (rank 0; output_interval > 0)
  logical :: write_series

  use_gpu = .false.
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call startup_barrier()

  call adi_guard_output_signals()
  case_path = command_argument(1)
  call usage_if_asked()

  ! rank 0 checks its input first, so that a bad case file gives one
  ! message; a rank whose own input is bad says so and tells the others
  ! (input_error), so that every rank stops with exit code 2 and none waits
  ! for it. Then the ranks compare their settings: all must run one case.
  case_error_handler => input_error
  if (rank == 0) call read_all_input()
  call input_agreement(.true.)
  if (rank /= 0) call read_all_input()
  call input_agreement(.true.)
  case_error_handler => null()
  call same_settings_everywhere()
  !$ if (cs%threads > 0) call omp_set_num_threads(cs%threads)

  gs = make_gpu_settings(cs)
  if (cs%backend /= 'cpu') then
    why = gpu_settings_problem(gs)
    if (len(why) > 0) call stop_all(2, why//' (&gpu group)')
  end if
  use_gpu = choose_backend()
  call choose_process_grid(nranks, cs%nj, cs%nk, cs%ni, pc%npj, pc%npk, dc%npj, dc%npk, ok, msg)
  if (.not. ok) call stop_all(2, msg)

  sp_g = make_solver_params(cs)
  lay_g = make_layout(cs%ni, cs%nj, cs%nk)
  sp_g%ldi = lay_g%ldi; sp_g%ldj = lay_g%ldj; sp_g%ldk = lay_g%ldk
  call decomp_setup(dc, MPI_COMM_WORLD, [cs%ni, cs%nj, cs%nk], dc%npj, dc%npk, sp_g%bc)
  dc%exact = pc%adi_mode == 'exact'
  dc%chunks = pc%pipeline_chunks
  if (dc%chunks == 0) dc%chunks = merge(1, 4, use_gpu)
  lay = make_layout(dc%nloc(1), dc%nloc(2), dc%nloc(3))
  sp = sp_g
  sp%nj = lay%nj; sp%nk = lay%nk
  sp%ldi = lay%ldi; sp%ldj = lay%ldj; sp%ldk = lay%ldk
  write_series = cs%write_vtk .and. cs%output_interval > 0

  ! rank 0 makes the run folder (no shell) and locks it against a second run
  okflag = 1
  if (rank == 0) then
    if (make_dirs(dir, why) /= 0) then
      okflag = 0
    else
      lock_fd = lock_run_dir(dir, why)
      if (lock_fd < 0) okflag = 0
      if (okflag == 1) then
        ! (a restart's own index is checked by its reader, which says more)
        why = blocked_output(dir, merge('              ', 'restart.decomp', cs%restart)//' field.dump flow.pvts '// &
          'flow.dat centreline_u.csv centreline_v.csv residual.dat residual.gp residual.png '// &
          merge('flow.pvd', '        ', write_series))
        if (len(why) > 0) okflag = 0
      end if
    end if
  end if
  call MPI_Bcast(okflag, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (okflag == 0) call stop_all(2, why)
  if (rank == 0) then
    write(output_unit, '(a)') 'adiflow_mpi: '//trim(cs%title)//' ('//trim(case_path)//')'
    write(output_unit, '(a,i0,a,i0,a,i0,a,es10.3,a,f6.3)') '  grid ', cs%ni, ' x ', cs%nj, ' x ', &
      cs%nk, ', Re ', cs%reynolds, ', Mach ', cs%mach
    write(output_unit, '(a)') '  convection: Roe, '//trim(scheme_text(cs))
    write(output_unit, '(a)') '  implicit operator (LU-ADI): '//trim(implicit_text(cs))
    write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') '  decomposition: npj x npk = ', dc%npj, ' x ', dc%npk, &
      ' over ', nranks, ' ranks (rank 0 block ', dc%nloc(2), ' x ', dc%nloc(3), ' in j x k)'
    if (dc%exact) then
      write(output_unit, '(a,i0,a)') '  LU-ADI across blocks: exact (pipelined sweeps, ', dc%chunks, ' chunks)'
    else
      write(output_unit, '(a)') '  LU-ADI across blocks: decoupled (interface increments held at zero)'
    end if
    if (use_gpu) then
      write(output_unit, '(a,i0,a)') '  backend: gpu, ', nranks, ' GPUs (one per rank, NCCL halos), '// &
        trim(cs%kernels)//' kernels; rank 0 on '//trim(gpu_device_info(gs))
    else
      write(output_unit, '(a)') '  backend: cpu (Fortran reference, MPI host exchange)'
    end if
  end if
  call MPI_Barrier(MPI_COMM_WORLD)

  ! grid: the global nodes, this block's window of them, metrics over the window
  call allocate_fields(lay, f)
  call generate_nodes(cs, xn_g)
  allocate(xn(3, -ng:lay%ni+ng, -ng:lay%nj+ng, -ng:lay%nk+ng))
  xn = xn_g(:, :, dc%off(2)-ng:dc%off(2)+lay%nj+ng, dc%off(3)-ng:dc%off(3)+lay%nk+ng)
  call compute_metrics(lay, xn, f%sf, f%sc, f%vol, f%xc)
  if (any_rank(dc%comm, any(.not. (f%vol(1:lay%ni, 1:lay%nj, 1:lay%nk) > 0.0_rk)))) call stop_all(2, &
    'the grid has cells with zero or negative volume (folded grid: reduce wavy_amplitude or beta)')
  if (mg%levels > 1) call start_multigrid()

  res0 = 0.0_rk
  it0 = 0
  if (cs%restart) then
    call read_restart()
  else
    f%q(:,:,:,1) = 1.0_rk
    f%q(:,:,:,2:4) = 0.0_rk
    f%q(:,:,:,5) = rest_pressure(sp)/sp%gm1  ! at rest, rho = 1, T = 1
  end if
  call block_boundary_conditions(dc, sp, lay, f%q)
  ! mass_fix: the mass of rho = 1 (from the grid, so a restart keeps it), as build/adiflow
  mass0 = 0.0_rk
  if (cs%mass_fix) mass0 = mpi_total_mass(dc, lay, f%vol)
  if (cs%mass_fix .and. rank == 0) write(output_unit, '(a,es23.16)') '  mass_fix: total mass held at ', mass0
  if (use_gpu) call gpu_block_start()
  if (rank == 0) write(output_unit, '(a)') '  outputs in '//trim(dir)//'/'

  if (write_series .and. rank == 0) call series_start(series, dir, '.pvts', int(cs%max_iter, ik8), it0, &
    cs%output_interval)
  call adi_install_signal_handlers()
  call run_iterations(cs, 'adiflow_mpi', dir, dir//'/restart.decomp + restart.rNNNNN.itN.bin', rank == 0, &
    it0, res0, iterate, residual_norms_now, interrupted, save_restart, write_snapshot, write_outputs, finish, &
    work_done)

contains

  subroutine iterate(cfl)
    real(rk), intent(in) :: cfl
    if (nlev > 1) then
      call run_cycle(mg, nlev, lev_weight, cfl, mg_smooth, mg_down, mg_up, work_units)
      if (cs%mass_fix) call mpi_mass_fix(dc, lay, f%vol, f%q, mass0)
      return
    end if
    work_units = work_units + 1.0_rk
    if (use_gpu) then
      call gpu_ok(adi_gpu_iterate(gpu%ptr, cfl), 'iteration')
      if (cs%mass_fix) call gpu_mass_fix()
    else
      call mpi_iteration(cfl)
    end if
  end subroutine iterate

  !> An interrupt on any rank stops every rank after the same iteration.
  logical function interrupted()
    interrupted = any_rank(dc%comm, adi_interrupt_requested() /= 0)
  end function interrupted

  !> All ranks must reach MPI; a rank that never arrives stops the job after
  !> ADIFLOW_MPI_STARTUP_TIMEOUT seconds (default 120) instead of hanging.
  subroutine startup_barrier()
    type(MPI_Request) :: req
    logical :: done
    real(rk) :: t0, tmax
    character(len=32) :: v
    integer :: st, ln
    tmax = 120.0_rk
    call get_environment_variable('ADIFLOW_MPI_STARTUP_TIMEOUT', v, ln, st)
    if (st == 0 .and. ln > 0) read(v, *, iostat=st) tmax
    call MPI_Ibarrier(MPI_COMM_WORLD, req)
    t0 = MPI_Wtime()
    done = .false.
    do while (.not. done)
      call MPI_Test(req, done, MPI_STATUS_IGNORE)
      if (.not. done .and. MPI_Wtime() - t0 > tmax) then
        write(error_unit, '(a,i0,a,f0.0,a)') 'adiflow_mpi: error: rank ', rank, ' waited ', tmax, &
          ' s for the other ranks to start; stopping the job'
        call MPI_Abort(MPI_COMM_WORLD, 5)
      end if
    end do
  end subroutine startup_barrier

  !> Every rank stops with the same exit code; rank 0 prints the message.
  subroutine stop_all(code, m)
    integer, intent(in) :: code
    character(len=*), intent(in) :: m
    if (rank == 0) write(error_unit, '(a)') 'adiflow_mpi: error: '//trim(m)
    call finish(code)
  end subroutine stop_all

  subroutine finish(code)
    integer, intent(in) :: code
    integer(c_int) :: st
    if (use_gpu) then
      ! (adi_gpu_finalize prints the per-kernel table itself under ADIFLOW_GPU_TIMING)
      if (len_trim(block_timing_report(gpu%ptr)) > 0) write(output_unit, '(a)') trim(block_timing_report(gpu%ptr))
      st = adi_gpu_block_finalize(gpu%ptr)
      gpu%ptr = c_null_ptr
      use_gpu = .false.
    end if
    flush(output_unit); flush(error_unit)
    call MPI_Finalize()
    if (code /= 0) error stop code, quiet=.true.
    stop
  end subroutine finish

  subroutine read_all_input()
    call read_case(case_path, cs)
    call read_parallel_config(case_path, pc)
    call read_multigrid_config(case_path, mg)
    call apply_overrides(cs, mpi_option, '--npj N, --npk N, --adi-mode exact|decoupled, --chunks N, --mg-levels N')
    call validate_case(cs)
    ! checked here, with the other input, so that only rank 0 speaks
    call validate_parallel_config(pc)
    call validate_multigrid_config(mg)
    dir = run_folder(cs, case_path)
  end subroutine read_all_input

  !> --help, -h or no case file on any rank: rank 0 prints the usage and
  !> every rank stops, with 0 only when every rank asked for --help (a rank
  !> left alone in a collective would wait for the others forever).
  subroutine usage_if_asked()
    integer :: mine(2), agreed(2), ierr
    mine = -1
    if (len_trim(case_path) == 0) then
      mine = 2
    else if (case_path == '--help' .or. case_path == '-h') then
      mine = 0
    end if
    ! the largest code, and the smallest as the largest of its negation
    mine(2) = -mine(1)
    call MPI_Allreduce(mine, agreed, 2, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (usage)')
    if (agreed(1) < 0) return
    if (rank == 0) write(output_unit, '(a)') 'usage: mpirun -np P adiflow_mpi CASE.nml [--npj N] [--npk N] '// &
      '[--adi-mode exact|decoupled] [--chunks N] [--max-iter N] [--run-dir DIR] [--restart] [--accept-old-restart] '// &
      '[--backend auto|cpu|gpu] [--kernels split|merged] [--implicit-precision double|single] [--mass-fix] '// &
      '[--mg-levels N]'
    call finish(merge(0, 2, agreed(1) == 0 .and. -agreed(2) == 0))
  end subroutine usage_if_asked

  !> Collective: .false. on any rank stops every rank with exit code 2 (the
  !> rank that failed has printed why).
  subroutine input_agreement(mine_ok)
    logical, intent(in) :: mine_ok
    logical :: all_ok
    integer :: ierr
    call MPI_Allreduce(mine_ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    call mpi_check(ierr, 'MPI_Allreduce (input check)')
    if (.not. all_ok) call finish(2)
  end subroutine input_agreement

  !> case_error's handler while the input is read: this rank's message, then
  !> the agreement the other ranks are waiting in, then exit code 2.
  subroutine input_error(m)
    character(len=*), intent(in) :: m
    character(len=16) :: rs
    case_error_handler => null()
    if (rank == 0) then
      write(error_unit, '(a)') 'adiflow_mpi: error: '//trim(m)
    else
      write(rs, '(i0)') rank
      write(error_unit, '(a)') 'adiflow_mpi: error: rank '//trim(rs)//': '//trim(m)
    end if
    flush(error_unit)
    call input_agreement(.false.)
    call finish(2)
  end subroutine input_error

  !> Every rank must run the same case (fortran/mpi_settings.f90): any key of
  !> any group, after the command-line overrides, that differs from rank 0's
  !> stops every rank with exit code 2, rank 0 naming the key and both values.
  subroutine same_settings_everywhere()
    character(len=:), allocatable :: m
    logical :: same
    call compare_settings(MPI_COMM_WORLD, settings_of(cs, dir, pc, mg), same, m)
    if (.not. same) call stop_all(2, m)
  end subroutine same_settings_everywhere

  !> GPU when asked for (every rank must have one) or, for 'auto', when
  !> every rank sees one; all ranks take the same decision.
  logical function choose_backend() result(gpu)
    logical :: mine, all_have
    mine = adi_gpu_available(gs) /= 0
    call MPI_Allreduce(mine, all_have, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    select case (trim(cs%backend))
    case ('cpu')
      gpu = .false.
    case ('gpu')
      if (.not. all_have) call stop_all(2, 'backend = ''gpu'' but not every rank sees a usable GPU ('// &
        'one rank per GPU; a build without nvcc/NCCL has no GPU backend): '//trim(gpu_error_text()))
      gpu = .true.
    case default
      gpu = all_have
    end select
  end function choose_backend

  !> A failed bridge call stops every rank (MPI_Abort) with its message.
  subroutine gpu_ok(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    character(len=16) :: rs
    if (status == 0) return
    write(rs, '(i0)') rank
    call mpi_fail('rank '//trim(rs)//', GPU backend, '//trim(what)//' failed: '//trim(gpu_error_text()), 4)
  end subroutine gpu_ok

  !> Device of this rank = its node-local rank; NCCL ids from rank 0; the
  !> block's fields, neighbours and mode to the bridge.
  subroutine gpu_block_start()
    type(MPI_Comm) :: node
    integer :: local_rank, st, ln, d
    character(kind=c_char) :: ids(ADI_BLOCK_ID_BYTES)
    character(len=32) :: v
    integer(c_int) :: phys(6), nbr(4), swp(4)
    real(rk) :: tmax
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node)
    call MPI_Comm_rank(node, local_rank)
    call MPI_Comm_free(node)
    ids = achar(0)
    if (rank == 0) call gpu_ok(adi_gpu_block_make_ids(ids), 'making the NCCL ids')
    call MPI_Bcast(ids, ADI_BLOCK_ID_BYTES, MPI_CHARACTER, 0, MPI_COMM_WORLD)
    phys = merge(1, 0, dc%phys)
    do d = 2, 3
      nbr(2*d-3:2*d-2) = merge(-1, dc%nbr(:, d), dc%nbr(:, d) == MPI_PROC_NULL)
      swp(2*d-3:2*d-2) = merge(-1, dc%swp(:, d), dc%swp(:, d) == MPI_PROC_NULL)
    end do
    tmax = 120.0_rk
    call get_environment_variable('ADIFLOW_MPI_STARTUP_TIMEOUT', v, ln, st)
    if (st == 0 .and. ln > 0) read(v, *, iostat=st) tmax
    call gpu_ok(adi_gpu_block_init(gpu%ptr, sp, merge(ADI_KERNELS_MERGED, ADI_KERNELS_SPLIT, trim(cs%kernels) == 'merged'), &
      gs, f%sf, f%sc, f%vol, f%q, phys, dc%off, dc%nglob, nbr, swp, merge(1_c_int, 0_c_int, dc%exact), &
      int(dc%chunks, c_int), int(rank, c_int), int(nranks, c_int), ids, int(local_rank, c_int), real(tmax, c_double)), &
      'initialisation (GPU '//trim(itoa(local_rank))//' of the node)')
  end subroutine gpu_block_start

  function itoa(n) result(t)
    integer, intent(in) :: n
    character(len=16) :: t
    write(t, '(i0)') n
  end function itoa

  !> Residual norms of the last iteration over all blocks, from the backend
  !> in use; the GPU's plane sums chained along j like mpi_residual_norms.
  subroutine residual_norms_now(nrm)
    real(rk), intent(out) :: nrm(5)
    real(rk) :: pl(5, lay%nk), plane(5, dc%nglob(3))
    if (.not. use_gpu) then
      call mpi_residual_norms(dc, lay, f%res, f%vol, nrm)
      return
    end if
    call plane_chain_in(dc, 5*lay%nk, pl, TAG_NORMS)
    call gpu_ok(adi_gpu_residual_plane_sums(gpu%ptr, pl), 'residual norms')
    call plane_chain_out(dc, 5, lay%nk, pl, plane, TAG_NORMS)
    nrm = norms_from_plane_sums(plane, dc%nglob(1), dc%nglob(2), dc%nglob(3))
  end subroutine residual_norms_now

  !> mass_fix on the GPU blocks: mpi_total_mass's chain along the j ranks
  !> with the device's plane sums (adi_gpu_mass_plane_sums, the Fortran
  !> order) in place of add_mass_plane_sums, then the same factor on every
  !> rank, as mpi_mass_fix on the CPU. Synchronises every iteration.
  subroutine gpu_mass_fix()
    real(rk) :: pl(lay%nk)
    call mpi_mass_chain_in(dc, pl)
    call gpu_ok(adi_gpu_mass_plane_sums(gpu%ptr, pl), 'mass sums (mass_fix)')
    call gpu_ok(adi_gpu_scale_state(gpu%ptr, mass_scale_factor(mass0, mpi_mass_chain_out(dc, pl))), &
      'mass rescale (mass_fix)')
  end subroutine gpu_mass_fix

  !> The MPI driver's own flags, on top of build/adiflow's (apply_overrides).
  logical function mpi_option(flag, value)
    character(len=*), intent(in) :: flag, value
    mpi_option = .true.
    select case (trim(flag))
    case ('--adi-mode'); pc%adi_mode = lower(value)
    case ('--npj'); pc%npj = int_option(flag, value)
    case ('--npk'); pc%npk = int_option(flag, value)
    case ('--chunks'); pc%pipeline_chunks = int_option(flag, value)
    case ('--mg-levels'); mg%levels = int_option(flag, value)
    case default
      mpi_option = .false.
    end select
  end function mpi_option

  !> One iteration: fortran/solver_cpu.f90's stages on the block, with the
  !> block boundary fill and the cross-block ADI.
  subroutine mpi_iteration(cfl_now)
    real(rk), intent(in) :: cfl_now
    call block_iteration(dc, sp, lay, f, cfl_now)
    if (cs%mass_fix) call mpi_mass_fix(dc, lay, f%vol, f%q, mass0)
  end subroutine mpi_iteration

  !> One iteration of a block of any multigrid level (dx: that level's
  !> decomposition); forcing: a coarse level's FAS forcing.
  subroutine block_iteration(dx, spx, layx, fx, cfl_now, forcing)
    type(decomp_t), intent(in) :: dx
    type(solver_params_t), intent(in) :: spx
    type(layout_t), intent(in) :: layx
    type(fields_t), intent(inout) :: fx
    real(rk), intent(in) :: cfl_now
    real(rk), intent(in), optional :: forcing(-1:,-1:,-1:,:)
    integer :: d
    logical :: across
    call block_residual(dx, spx, layx, fx, cfl_now)
    if (present(forcing)) call add_forcing(layx, forcing, fx%res)
    do d = 1, 3
      ! exact mode couples the blocks along d only where d is split
      across = dx%exact .and. d >= 2 .and. merge(dx%npj, dx%npk, d == 2) > 1
      call adi_stage1_eigenvalues(spx, layx, d, fx%qp, fx%sc, fx%vol, fx%wk)
      if (across) then
        call halo_exchange(dx, layx, fx%wk, WK_LAMP + 1, WK_LAMN + 3, d, 1, dx%swp(1, d), dx%swp(2, d))
        call adi_stage2_coefficients(spx, layx, d, fx%dtv, fx%wk, dx%off, dx%nglob)
      else
        call adi_stage2_coefficients(spx, layx, d, fx%dtv, fx%wk)
      end if
      call adi_stage3_characteristic_rhs(spx, layx, d, fx%qp, fx%sc, fx%dtv, fx%res, fx%dq, fx%wk)
      if (across) then
        call adi_stage4_pipelined(dx, spx, layx, d, fx%wk)
      else
        call adi_stage4_sweeps(spx, layx, d, fx%wk)
      end if
      call adi_stage5_update(spx, layx, d, fx%qp, fx%sc, fx%wk, fx%dq, fx%q)
    end do
  end subroutine block_iteration

  !> Boundary fill (halos included) and residual of a block of any level.
  subroutine block_residual(dx, spx, layx, fx, cfl_now)
    type(decomp_t), intent(in) :: dx
    type(solver_params_t), intent(in) :: spx
    type(layout_t), intent(in) :: layx
    type(fields_t), intent(inout) :: fx
    real(rk), intent(in) :: cfl_now
    call block_boundary_conditions(dx, spx, layx, fx%q)
    call residual_of_filled_state(spx, layx, cfl_now, fx, dx%phys)
  end subroutine block_residual

  !> The coarse levels of this rank's block: the serial plan (fortran/
  !> multigrid_levels.f90), cut to the levels on which every block still
  !> splits evenly; each level's nodes are the window of its global nodes.
  subroutine start_multigrid()
    character(len=:), allocatable :: note
    real(rk), allocatable :: xg(:,:,:,:), xc(:,:,:,:), xl(:,:,:,:)
    integer :: l, d, cr(3), nfit, nl(3), off(3)
    logical :: fits
    if (use_gpu) then
      if (rank == 0) write(output_unit, '(a,i0,a)') '  multigrid: note: &multigrid levels = ', mg%levels, &
        ' is not available with the GPU backend of adiflow_mpi yet: running single-grid (backend = ''cpu'' has it)'
      return
    end if
    call plan_levels([cs%ni, cs%nj, cs%nk], sp_g%bc([1, 3, 5]) == BC_PERIODIC, mg%levels, nlev, lev_sizes, &
      lev_ratios, note)
    ! a split direction coarsens only while every block holds an even number
    ! of cells (at an even offset) and keeps at least 2 (the halo's depth)
    nfit = nlev
    cr = 1
    do l = 2, nlev
      cr = cr*lev_ratios(:, l)
      fits = .true.
      do d = 2, 3
        if (cr(d) == 1 .or. merge(dc%npj, dc%npk, d == 2) == 1) cycle
        if (mod(dc%nloc(d), cr(d)) /= 0 .or. mod(dc%off(d), cr(d)) /= 0 .or. dc%nloc(d)/cr(d) < 2) fits = .false.
      end do
      if (any_rank(dc%comm, .not. fits)) then
        nfit = l - 1
        exit
      end if
    end do
    if (rank == 0) then
      write(output_unit, '(a,i0,a)') '  multigrid: ', nfit, ' levels ('//level_sizes_text(nfit, lev_sizes)// &
        '), '//mg_config_text(mg, sp_g%roe_low_mach /= ROE_LM_NONE)
      if (nfit < nlev) write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') '  multigrid: the blocks of npj x npk = ', &
        dc%npj, ' x ', dc%npk, ' allow ', nfit, ' of the ', nlev, ' levels the grid has (each coarsening of a '// &
        'split direction needs every block to hold an even number of cells, 2 or more after halving); '// &
        'build/adiflow --mg-levels ', nfit, ' gives the same result'
      if (nfit == nlev .and. nlev < mg%levels) write(output_unit, '(a,i0,a)') '  multigrid: asked for ', &
        mg%levels, ' levels: '//note
    end if
    nlev = nfit
    if (nlev == 1) return
    allocate(levels(nlev), dcl(nlev), lev_weight(nlev))
    lev_weight(1) = 1.0_rk
    xg = xn_g
    cr = 1
    do l = 2, nlev
      cr = cr*lev_ratios(:, l)
      call coarse_nodes(sp_g, xg, lev_sizes(:, l), lev_ratios(:, l), xc)
      dcl(l) = dc
      dcl(l)%nglob = lev_sizes(:, l)
      nl = [lev_sizes(1, l), dc%nloc(2)/cr(2), dc%nloc(3)/cr(3)]
      off = [0, dc%off(2)/cr(2), dc%off(3)/cr(3)]
      dcl(l)%nloc = nl
      dcl(l)%off = off
      xl = xc(:, :, off(2)-ng:off(2)+nl(2)+ng, off(3)-ng:off(3)+nl(3)+ng)
      call init_level(levels(l), sp_g, xl, nl, lev_ratios(:, l), mg%coarse_order, &
        mg%coarse_roe_low_mach == 'none', &
        real(product(int(lev_sizes(:, l), ik8)), rk)/real(product(int(lev_sizes(:, 1), ik8)), rk))
      lev_weight(l) = levels(l)%weight
      call move_alloc(xc, xg)
    end do
  end subroutine start_multigrid

  real(rk) function work_done()
    work_done = work_units
  end function work_done

  !> The cycle's level operations on the blocks: those of
  !> fortran/multigrid_cpu.f90 with the block boundary fill (halos).
  subroutine mg_smooth(l, cfl_now)
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl_now
    if (l == 1) then
      call block_iteration(dc, sp, lay, f, cfl_now)
    else
      call block_iteration(dcl(l), levels(l)%sp, levels(l)%lay, levels(l)%f, cfl_now, levels(l)%forcing)
    end if
  end subroutine mg_smooth

  subroutine mg_down(l, cfl_now)
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl_now
    if (l == 1) then
      call block_residual(dc, sp, lay, f, cfl_now)
      call mg_restrict_to(l, f)
    else
      call block_residual(dcl(l), levels(l)%sp, levels(l)%lay, levels(l)%f, cfl_now)
      call add_forcing(levels(l)%lay, levels(l)%forcing, levels(l)%f%res)
      call mg_restrict_to(l, levels(l)%f)
    end if
    call block_residual(dcl(l + 1), levels(l + 1)%sp, levels(l + 1)%lay, levels(l + 1)%f, cfl_now)
    call subtract_residual(levels(l + 1)%lay, levels(l + 1)%f%res, levels(l + 1)%forcing)
  end subroutine mg_down

  !> Level l's state and residual (in ff) to level l+1, whose state is
  !> boundary-filled and kept as q0.
  subroutine mg_restrict_to(l, ff)
    integer, intent(in) :: l
    type(fields_t), intent(in) :: ff
    associate (c => levels(l + 1))
      call restrict_level(c%lay, c%ratio, ff%vol, ff%q, ff%res, c%f%q, c%forcing)
      call block_boundary_conditions(dcl(l + 1), c%sp, c%lay, c%f%q)
      c%q0 = c%f%q
    end associate
  end subroutine mg_restrict_to

  subroutine mg_up(l)
    integer, intent(in) :: l
    associate (c => levels(l + 1))
      call block_boundary_conditions(dcl(l + 1), c%sp, c%lay, c%f%q)
      call coarse_correction(c%lay, c%f%q, c%q0, c%f%dq)
      if (l == 1) then
        call prolong_correction(lay, c%ratio, c%f%dq, f%q)
      else
        call prolong_correction(levels(l)%lay, c%ratio, c%f%dq, levels(l)%f%q)
      end if
    end associate
  end subroutine mg_up

  !> Where this rank's block lies, recorded in its restart file and checked
  !> on reading, so that a file under another rank's name (swapped,
  !> renamed, copied from another run) is refused: rank, npj, npk, the
  !> global grid, the block's 0-based offsets.
  function block_place() result(p)
    integer :: p(9)
    p = [rank, dc%npj, dc%npk, dc%nglob, dc%off]
  end function block_place

  !> Rank r's restart file of the set of iteration iter (format 2), or of the
  !> one set that format 1 kept (iter < 0).
  function rank_file(r, iter) result(p)
    integer, intent(in) :: r
    integer(ik8), intent(in) :: iter
    character(len=:), allocatable :: p
    character(len=40) :: name
    if (iter < 0) then
      write(name, '(a,i5.5,a)') '/restart.r', r, '.bin'
    else
      write(name, '(a,i5.5,a,i0,a)') '/restart.r', r, '.it', iter, '.bin'
    end if
    p = dir//trim(name)
  end function rank_file

  !> The restart set, crash-safe: every rank writes its file of this
  !> iteration (verified, renamed into place); once all have, rank 0
  !> commits the index restart.decomp naming the iteration (temp + rename);
  !> only then are the files of every other set removed, and the temporaries
  !> a crash left (remove_old_restart_sets). A crash at any point leaves the
  !> index naming a complete set, and the next committed set removes what a
  !> crash kept. Only from a finite state.
  logical function save_restart(iter, ref) result(saved)
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    real(rk) :: nrm(5)
    type(out_file_t) :: idx
    integer :: ios, ierr
    character(len=512) :: msg
    character(len=:), allocatable :: why
    character(len=16) :: rs
    call residual_norms_now(nrm)
    saved = all(abs(nrm) <= huge(1.0_rk))
    if (.not. saved) return
    if (use_gpu) call gpu_ok(adi_gpu_download_state(gpu%ptr, f%q), 'state download')
    call write_field_dump(rank_file(rank, iter), lay, f%q, iter, ref, block_place())
    call MPI_Barrier(dc%comm, ierr)
    call mpi_check(ierr, 'MPI_Barrier (restart set written)')
    if (rank == 0) then
      call out_open(idx, dir//'/restart.decomp')
      write(idx%unit, '(a)', iostat=ios, iomsg=msg) 'ADIFLOW-MPI-RESTART 2'
      call out_check(idx, ios, msg)
      write(idx%unit, '(a,3(1x,i0))', iostat=ios, iomsg=msg) 'grid', cs%ni, cs%nj, cs%nk
      call out_check(idx, ios, msg)
      write(idx%unit, '(a,3(1x,i0))', iostat=ios, iomsg=msg) 'ranks_npj_npk', nranks, dc%npj, dc%npk
      call out_check(idx, ios, msg)
      write(idx%unit, '(a,1x,i0)', iostat=ios, iomsg=msg) 'iteration', iter
      call out_check(idx, ios, msg)
      call out_commit(idx)
    end if
    call MPI_Barrier(dc%comm, ierr)
    call mpi_check(ierr, 'MPI_Barrier (restart index committed)')
    ! each rank its share, so that none removes a file another is writing;
    ! a file left behind wastes space but harms no set: a note, not a stop
    if (remove_old_restart_sets(dir, iter, rank, nranks, why) /= 0) then
      write(rs, '(i0)') rank
      write(error_unit, '(a)') 'adiflow_mpi: note: rank '//trim(rs)//': an older restart file stays: '//why
    end if
  end function save_restart

  subroutine read_restart()
    integer :: u, ios, g(3), h(3), okflag, version, rversion, vmin
    integer(ik8) :: hit, rit
    real(rk) :: rmax(5)
    character(len=64) :: tag, t1, t2, t3
    character(len=600) :: m
    okflag = 1
    m = ''
    hit = 0
    version = 0
    if (rank == 0) then
      ! checked before the open: opening a FIFO in its place would block
      ios = 1
      if (regular_file(dir//'/restart.decomp')) &
        open(newunit=u, file=dir//'/restart.decomp', status='old', action='read', iostat=ios)
      if (ios /= 0) then
        okflag = 0
        m = 'restart index "'//dir//'/restart.decomp" does not exist or is not a regular file (an '// &
          'adiflow_mpi run writes it with restart.rNNNNN.itN.bin at every restart_interval and when it stops)'
      else
        read(u, *, iostat=ios) tag, version
        if (ios == 0) read(u, *, iostat=ios) t1, g
        if (ios == 0) read(u, *, iostat=ios) t2, h
        if (ios == 0) read(u, *, iostat=ios) t3, hit
        close(u)
        if (ios /= 0 .or. tag /= 'ADIFLOW-MPI-RESTART' .or. t1 /= 'grid' .or. t2 /= 'ranks_npj_npk' .or. &
            t3 /= 'iteration') then
          okflag = 0
          m = '"'//dir//'/restart.decomp" is damaged (cannot read its four lines)'
        else if (version /= 1 .and. version /= 2) then
          okflag = 0
          write(m, '(a,i0,a)') '"'//dir//'/restart.decomp": index version ', version, &
            ' is not supported (this build reads 1 and 2)'
        else if (hit < 0) then
          okflag = 0
          write(m, '(a,i0,a)') '"'//dir//'/restart.decomp": iteration ', hit, ' is negative: the index is damaged'
        else if (any(g /= [cs%ni, cs%nj, cs%nk])) then
          okflag = 0
          write(m, '(a,3(i0,1x),a,3(i0,1x))') 'restart grid ', g, 'does not match the case grid ', &
            cs%ni, cs%nj, cs%nk
        else if (any(h /= [nranks, dc%npj, dc%npk])) then
          okflag = 0
          write(m, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'the restart was written on ', h(1), ' ranks as npj x npk = ', &
            h(2), ' x ', h(3), ' but this run has ', nranks, ' ranks as ', dc%npj, ' x ', dc%npk, &
            '; restart on the same decomposition (mpirun -np and npj/npk as before)'
        end if
      end if
    end if
    call MPI_Bcast(okflag, 1, MPI_INTEGER, 0, dc%comm)
    if (okflag == 0) call stop_all(2, m)
    call MPI_Bcast(hit, 1, MPI_INTEGER8, 0, dc%comm)
    call MPI_Bcast(version, 1, MPI_INTEGER, 0, dc%comm)
    ! format 1 kept one file per rank, overwritten in place
    if (version == 1) hit = -1_ik8
    call read_field_dump(rank_file(rank, hit), lay, f%q, rit, res0, cs%accept_old_restart, rversion, block_place())
    if (version == 1) hit = rit
    if (any_rank(dc%comm, rit /= hit)) call stop_all(2, 'the rank restart files are not all from the '// &
      'iteration named in restart.decomp (an interrupted restart write?); use an older copy or start afresh')
    it0 = hit
    ! one version-1 file (unprotected header) and no rank takes its res0;
    ! otherwise every rank's file holds the same global reference
    call MPI_Allreduce(rversion, vmin, 1, MPI_INTEGER, MPI_MIN, dc%comm)
    if (vmin == 1) res0 = 0.0_rk
    call MPI_Allreduce(res0, rmax, 5, MPI_DOUBLE_PRECISION, MPI_MAX, dc%comm)
    if (any_rank(dc%comm, any(res0 /= rmax))) call stop_all(2, 'the rank restart files hold different reference '// &
      'residuals (not one restart set?); use an older copy or start afresh')
    if (rank == 0) write(output_unit, '(a,i0)') '  restarting from '//dir// &
      '/restart.decomp + restart.rNNNNN.itN.bin at iteration ', it0
    if (rank == 0) call old_restart_note(output_unit, 'the rank restart set', vmin, it0)
    if (it0 >= cs%max_iter) then
      if (rank == 0) write(output_unit, '(a,i0,a,i0,a)') 'adiflow_mpi: nothing left to do: the restart is at '// &
        'iteration ', it0, ', max_iter is ', cs%max_iter, '; raise max_iter (or --max-iter) to continue. '// &
        'No file was changed.'
      call finish(0)
    end if
  end subroutine read_restart

  subroutine write_snapshot(iter)
    integer(ik8), intent(in) :: iter
    if (.not. cs%write_vtk) return
    if (use_gpu) call gpu_ok(adi_gpu_download_state(gpu%ptr, f%q), 'state download')
    call block_boundary_conditions(dc, sp, lay, f%q)
    call compute_primitives(sp, lay, f%q, f%qp)
    call apply_wall_temperature(sp, lay, f%qp, dc%phys)
    call write_blocks(snapshot_stem(iter, int(cs%max_iter, ik8)))
    if (write_series .and. rank == 0) call series_snapshot(series, iter)
  end subroutine write_snapshot

  subroutine write_blocks(stem)
    character(len=*), intent(in) :: stem
    character(len=16) :: rn
    write(rn, '(a,i5.5)') '_r', rank
    call write_block_vts(dir//'/'//trim(stem)//trim(rn)//'.vts', dc, lay, sp, xn, f%qp, f%sf, f%vol)
    if (rank == 0) call write_pvts(trim(dir)//'/'//trim(stem)//'.pvts', stem, dc)
  end subroutine write_blocks

  !> Block .vts files + .pvts; the global field.dump, Tecplot file and
  !> centreline profiles from the state gathered on rank 0 (the serial
  !> writers, so they match build/adiflow's files).
  subroutine write_outputs(iter, ref)
    integer(ik8), intent(in) :: iter
    real(rk), intent(in) :: ref(5)
    real(rk), allocatable :: qg(:,:,:,:), qpg(:,:,:,:), sfg(:,:,:,:), scg(:,:,:,:), volg(:,:,:), xcg(:,:,:,:)
    integer :: ih, jh, kh
    if (use_gpu) call gpu_ok(adi_gpu_download_state(gpu%ptr, f%q), 'state download')
    call block_boundary_conditions(dc, sp, lay, f%q)
    call compute_primitives(sp, lay, f%q, f%qp)
    call apply_wall_temperature(sp, lay, f%qp, dc%phys)
    if (cs%write_vtk) call write_blocks('flow')
    if (write_series .and. rank == 0) call series_final(series, iter)
    if (.not. (cs%write_dump .or. cs%write_tecplot .or. cs%write_profiles)) return
    ih = lay_g%ldi - 2; jh = lay_g%nj + 2; kh = lay_g%nk + 2
    if (rank == 0) then
      allocate(qg(-1:ih, -1:jh, -1:kh, nvar))
      qg = 0.0_rk
    else
      allocate(qg(1, 1, 1, 1))
    end if
    call gather_interior(dc, lay, f%q, nvar, qg)
    if (rank /= 0) return
    if (cs%write_dump) call write_field_dump(dir//'/field.dump', lay_g, qg, iter, ref)
    if (.not. (cs%write_tecplot .or. cs%write_profiles)) return
    call apply_boundary_conditions(sp_g, lay_g, qg)
    allocate(qpg(-1:ih, -1:jh, -1:kh, nprim))
    qpg = 0.0_rk
    call compute_primitives(sp_g, lay_g, qg, qpg)
    deallocate(qg)
    call apply_wall_temperature(sp_g, lay_g, qpg)
    ! the whole grid's metrics, as build/adiflow computes them: the vorticity's
    ! face vectors and volumes, the profiles' cell centres
    allocate(sfg(-1:ih, -1:jh, -1:kh, 9), scg(-1:ih, -1:jh, -1:kh, 9), volg(-1:ih, -1:jh, -1:kh), &
      xcg(-1:ih, -1:jh, -1:kh, 3))
    call compute_metrics(lay_g, xn_g, sfg, scg, volg, xcg)
    deallocate(scg)
    if (cs%write_tecplot) call write_tecplot(trim(dir)//'/flow.dat', cs%title, lay_g, sp_g, xn_g, qpg, sfg, volg)
    if (cs%write_profiles) call write_profiles(dir, lay_g, sp_g, cs%lx, cs%ly, cs%lz, xcg, qpg)
  end subroutine write_outputs
end program adiflow_mpi
