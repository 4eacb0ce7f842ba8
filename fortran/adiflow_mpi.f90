!> adiflow_mpi: the solver over a block decomposition of the grid in j and
!> k (MPI; i stays whole), on CPUs or one GPU per rank. Same case files as build/adiflow;
!> the decomposition comes from an optional second namelist group in the
!> case file (ignored by build/adiflow)
!>     &parallel  npj = 2, npk = 1, adi_mode = 'exact', pipeline_chunks = 0, whole_cells = -1 /
!> or from the command line:
!>   mpirun -np P adiflow_mpi CASE.nml [--npj N] [--npk N] [--adi-mode exact|decoupled]
!>          [--chunks N] [--whole-cells N] [--max-iter N] [--run-dir DIR] [--restart] [--accept-old-restart] [--backend auto|cpu|cuda]
!>          [--kernels split|merged] [--implicit-precision double|single] [--mass-fix] [--mg-levels N]
!> &multigrid (CPU and GPU backends): the levels the grid allows, as
!> build/adiflow plans them, in the same FAS cycle. Each coarse level is
!> decomposed like the fine one while every block halves evenly (each split
!> direction that coarsens even at an even offset, >= 2 cells after
!> halving); the levels below are gathered onto rank 0, which runs them
!> whole on its CPU while the other ranks wait (fortran/multigrid_gather.f90),
!> and rank 0 says from which level on. Exact mode equals build/adiflow with
!> the same levels bit for bit. whole_cells: the levels of at most that
!> many cells run whole on every rank, without messages
!> (fortran/multigrid_whole.f90; -1, automatic: 131072 on GPUs, where a
!> coarse block's iteration costs the latency of its messages, none on
!> CPUs), unless a gathered level comes first.
!> grid_file: every rank reads the whole grid (its ghost nodes, periodic
!> images included, as build/adiflow makes them) and takes its block's
!> window of it, so a block's ghost nodes across a block boundary are its
!> neighbour's nodes. patch_file (CPU backend): each block fills the part
!> of the grid's patches on its faces (fortran/block_patches.f90), every
!> multigrid level too; a run with patches ends with the same wall loads
!> as build/adiflow, from the state gathered on rank 0, and writes the force
!> history from the blocks' sums (fortran/run_files_mpi.f90).
!> npj = npk = 0: automatic (smallest interface area). adi_mode = 'exact'
!> reproduces the single-domain solver bit for bit (pipelined sweeps);
!> 'decoupled' sweeps every block alone (interface increments zero).
!> pipeline_chunks = 0 (automatic): 4 on the CPU; 8 on GPUs, where a sweep
!> takes at most one chunk per 4096 lines across it (fewer lines no longer
!> fill the device), so a multigrid cycle's coarse levels, where a chunk
!> would add its message's latency and save nothing, sweep whole
!> (cuda/multi/block_driver.cu; 8 against 1, 4 and 16 on 2 GPUs:
!> bench/log/2026-11-29-exact-pipeline.md).
!> The s/iter column counts from the end of the first iteration (which
!> carries the start-up: transport connections, first launches); the first
!> iteration's own time is printed once.
!> backend = 'cuda' (or 'auto' where every rank sees a GPU): one rank per
!> GPU, chosen by node-local rank, halos and pipelined sweeps GPU to GPU
!> through NCCL, or through host memory with MPI where the build has no NCCL
!> or ADIFLOW_BLOCK_TRANSPORT=mpi (cuda/multi/block_driver.cu); the same blocks, the same
!> results as the CPU backend (bit for bit in the strict build), mass_fix
!> included (the device's mass plane sums chained along j as on the CPU).
program adiflow_mpi
  use mpi_f08
  !$ use omp_lib, only: omp_set_num_threads
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit
  use, intrinsic :: iso_c_binding, only: c_int
  use kinds, only: rk, ik8, ng
  use grid_layout
  use solver_params
  use case_config
  use grid_source, only: take_grid_sizes, make_grid_nodes, join_cuts, grid_origin_text, beside_case
  use boundary_patches, only: patch_set_t, coarse_patch_sets
  use block_patches, only: window_patches
  use patch_file, only: read_patch_file, has_open_patches, units_text
  use cgns_case, only: take_cgns_patches
  use cgns_grid, only: is_cgns_name
  use output_wall_loads, only: wall_load_names
  use driver_loop, only: run_iterations
  use multigrid_config, only: mg_config_t, read_multigrid_config, validate_multigrid_config, mg_config_text, &
    settle_coarse_dissipation
  use multigrid_levels, only: plan_levels, coarse_nodes, init_level, level_sizes_text
  use multigrid_gather, only: first_gathered_level, gathered_text
  use multigrid_whole, only: first_whole_level, whole_text
  use text_util, only: int_text
  use sys_interface, only: adi_install_signal_handlers, adi_guard_output_signals, make_dirs, lock_run_dir
  use output_file, only: blocked_output
  use mpi_decomp
  use mpi_settings, only: settings_of, compare_settings
  use mpi_input_errors, only: input_agreement, input_error, block_input_error
  use parallel_config, only: parallel_config_t, read_parallel_config, validate_parallel_config
  use gpu_settings, only: gpu_settings_t
  use gpu_block_bridge, only: block_transport_text, adi_gpu_block_ranks_fit, adi_gpu_device_count
  use gpu_bridge, only: gpu_settings_error, adi_gpu_available, gpu_error_text, gpu_device_info, &
    ADI_KERNELS_SPLIT, ADI_KERNELS_MERGED
  use backend_mpi_block, only: block_backend_t
  use backend_mpi_gpu, only: block_gpu_backend_t
  use run_files_mpi, only: block_files_t
  use backend_blocks, only: blocks_backend_t
  use backend_blocks_ranks_gpu, only: blocks_ranks_gpu_backend_t
  use block_ranks_mpi, only: mpi_block_ranks_t
  use run_files_blocks, only: block_set_files_t
  use run_files_blocks_mpi, only: block_set_files_mpi_t
  use blocks_driver, only: run_block_grid
  implicit none

  type(case_t) :: cs
  type(parallel_config_t) :: pc              ! the &parallel group and its command-line flags
  type(mg_config_t) :: mg                    ! the &multigrid group
  class(block_backend_t), allocatable :: be  ! this rank's block on its CPU or GPU, with its levels
  type(block_files_t) :: files               ! the restart set and the outputs
  type(layout_t) :: lay, lay_g               ! this rank's block, the whole grid
  type(solver_params_t) :: sp_g
  type(gpu_settings_t) :: gs                 ! the &gpu group (the device is the rank's node-local GPU)
  type(decomp_t) :: dc
  type(patch_set_t) :: ps_g                  ! the grid's boundary patches (patch_file), none without one
  type(patch_set_t), allocatable :: ps_lev(:) ! and those of its multigrid levels
  real(rk), allocatable :: xn_g(:,:,:,:), xn(:,:,:,:)
  character(len=:), allocatable :: case_path, dir, why, mg_note, gather_why
  character(len=400) :: msg
  logical :: ok, use_gpu
  logical :: shared_gpus = .false.           ! ranks taking turns on a node's GPUs (ADIFLOW_BLOCK_SHARE_GPU)
  integer(ik8) :: it0, started
  real(rk) :: res0(5)
  integer :: rank, nranks, lock_fd, okflag, code
  integer :: nblocks = 1                     ! the grid file's blocks (several: run_blocks_over_ranks)
  logical :: in_part = .false.               ! a one-block grid joined to itself in part (run_blocks_over_ranks)
  ! multigrid: the levels the grid allows (nlev), the first gathered onto rank 0 (0: none)
  integer :: nlev = 1, gather_from = 0
  ! and the first that runs whole on every rank (0: none), below whole_cells cells
  integer :: whole_from = 0
  integer(ik8) :: whole_cells = 0
  integer, allocatable :: lev_sizes(:,:), lev_ratios(:,:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call startup_barrier()
  call system_clock(started)

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
  if (nblocks > 1 .or. in_part .or. cs%min_blocks > 1) call run_blocks_over_ranks()

  gs = make_gpu_settings(cs)
  why = gpu_settings_error(cs%backend, gs)
  if (len(why) > 0) call stop_all(2, why)
  use_gpu = choose_backend(.true.)
  call choose_process_grid(nranks, cs%nj, cs%nk, cs%ni, pc%npj, pc%npk, dc%npj, dc%npk, ok, msg)
  if (.not. ok) call stop_all(2, msg)

  lay_g = make_layout(cs%ni, cs%nj, cs%nk)
  sp_g = make_solver_params(cs, lay_g)
  call decomp_setup(dc, MPI_COMM_WORLD, [cs%ni, cs%nj, cs%nk], dc%npj, dc%npk, sp_g%bc)
  dc%exact = pc%adi_mode == 'exact'
  dc%chunks = pc%pipeline_chunks
  if (dc%chunks == 0) dc%chunks = merge(8, 4, use_gpu)
  lay = make_layout(dc%nloc(1), dc%nloc(2), dc%nloc(3))
  call files%init(cs, 'adiflow_mpi', dir, dir//'/restart.decomp + restart.rNNNNN.itN.bin', rank == 0, started)
  files%vts_ext = '.pvts'

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
          'flow.dat flow.xyz flow.q centreline_u.csv centreline_v.csv residual.dat residual.gp residual.png '// &
          merge('flow.pvd', '        ', files%write_series)//wall_load_names(ps_g))
        if (len(why) > 0) okflag = 0
      end if
    end if
  end if
  call MPI_Bcast(okflag, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (okflag == 0) call stop_all(2, why)
  if (rank == 0) then
    write(output_unit, '(a)') 'adiflow_mpi: '//trim(cs%title)//' ('//trim(case_path)//')'
    write(output_unit, '(a,i0,a,i0,a,i0,a,es10.3,a,f6.3)') '  grid ', cs%ni, ' x ', cs%nj, ' x ', &
      cs%nk, grid_origin_text(cs)//', Re ', cs%reynolds, ', Mach ', cs%mach
    write(output_unit, '(a)') '  convection: Roe, '//trim(scheme_text(cs))
    write(output_unit, '(a)') '  implicit operator (LU-ADI): '//trim(implicit_text(cs))
    write(output_unit, '(a)') '  '//units_text(sp_g, has_open_patches(ps_g), cs%freestream_alpha, cs%freestream_beta)
    write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') '  decomposition: npj x npk = ', dc%npj, ' x ', dc%npk, &
      ' over ', nranks, ' ranks (rank 0 block ', dc%nloc(2), ' x ', dc%nloc(3), ' in j x k)'
    if (dc%exact) then
      if (use_gpu .and. dc%chunks > 1) then
        write(output_unit, '(a,i0,a)') '  LU-ADI across blocks: exact (pipelined sweeps, ', dc%chunks, &
          ' chunks, fewer where a sweep crosses few lines)'
      else
        write(output_unit, '(a,i0,a)') '  LU-ADI across blocks: exact (pipelined sweeps, ', dc%chunks, ' chunks)'
      end if
    else
      write(output_unit, '(a)') '  LU-ADI across blocks: decoupled (interface increments held at zero)'
    end if
    if (use_gpu .and. shared_gpus) then
      write(output_unit, '(a,i0,a)') '  backend: gpu, ', nranks, ' ranks taking turns on fewer GPUs (ADIFLOW_BLOCK_SHARE_GPU: '// &
        'results only, no speed; '//trim(block_transport_text())//' halos), '//trim(cs%kernels)//' kernels; rank 0 on '// &
        trim(gpu_device_info(gs))
    else if (use_gpu) then
      write(output_unit, '(a,i0,a)') '  backend: gpu, ', nranks, ' GPUs (one per rank, '//trim(block_transport_text())//' halos), '// &
        trim(cs%kernels)//' kernels; rank 0 on '//trim(gpu_device_info(gs))
    else
      write(output_unit, '(a)') '  backend: cpu (Fortran reference, MPI host exchange)'
    end if
  end if
  call MPI_Barrier(MPI_COMM_WORLD)

  ! grid: the global nodes, this block's window of them, metrics over the window
  if (mg%levels > 1) call plan_block_levels()
  if (use_gpu) then
    be = block_gpu_backend_t(kernels=merge(ADI_KERNELS_MERGED, ADI_KERNELS_SPLIT, trim(cs%kernels) == 'merged'), &
      gs=gs, chunks=dc%chunks)
  else
    be = block_backend_t()
  end if
  be%mg = mg
  allocate(xn(3, -ng:lay%ni+ng, -ng:lay%nj+ng, -ng:lay%nk+ng))
  xn = xn_g(:, :, dc%off(2)-ng:dc%off(2)+lay%nj+ng, dc%off(3)-ng:dc%off(3)+lay%nk+ng)
  call be%set_grid(make_solver_params(cs, lay), lay, xn, nlev)
  be%phys = dc%phys
  if (allocated(ps_g%p)) call window_patches(ps_g, dc%off, dc%nloc, dc%phys, be%level(1)%f%ps)
  allocate(be%dcl(nlev))
  be%dcl(1) = dc
  associate (vol => be%level(1)%f%vol)
    if (any_rank(dc%comm, any(.not. (vol(1:lay%ni, 1:lay%nj, 1:lay%nk) > 0.0_rk)))) call stop_all(2, &
      'the grid has cells with zero or negative volume (folded grid: reduce wavy_amplitude or beta)')
  end associate
  if (mg%levels > 1) call start_multigrid()

  files%dc = dc
  files%lay_g = lay_g
  files%sp_g = sp_g
  files%ps_g = ps_g
  res0 = 0.0_rk
  it0 = 0
  if (cs%restart) then
    call files%read_restart(be, it0, res0, why)
    if (len(why) > 0) call stop_all(2, why)
    if (files%nothing_left(it0)) call finish(0)
  else
    call be%start_at_rest()
    if (has_open_patches(ps_g)) call be%start_in_free_stream(cs%freestream_alpha, cs%freestream_beta)
  end if
  call be%fill_boundary(1)
  ! mass_fix: the mass of rho = 1 (from the grid, so a restart keeps it), as build/adiflow
  be%mass_fix = cs%mass_fix
  if (cs%mass_fix) be%mass0 = mpi_total_mass(dc, lay, be%level(1)%f%vol)
  if (cs%mass_fix .and. rank == 0) write(output_unit, '(a,es23.16)') '  mass_fix: total mass held at ', be%mass0
  call be%start()
  if (rank == 0) write(output_unit, '(a)') '  outputs in '//trim(dir)//'/'

  call move_alloc(xn_g, files%xn_g)
  call files%start_series(it0)
  call adi_install_signal_handlers()
  call run_iterations(cs, it0, res0, be, files, code)
  call finish(code)

contains

  !> A grid file of several blocks: the blocks spread over the ranks, each
  !> rank iterating its own (fortran/backend_blocks.f90 with the ranks of
  !> fortran/block_ranks_mpi.f90), the run set
  !> up, iterated and written as build/adiflow's (fortran/blocks_driver.f90),
  !> rank 0 speaking and writing; the state of every block equals the
  !> one-process run's bit for bit; on the GPU one a rank (the node-local
  !> rank's). Refused by name: a --npj/--npk decomposition (blocks are not
  !> split), more ranks than blocks.
  subroutine run_blocks_over_ranks()
    class(blocks_backend_t), allocatable :: bb
    class(block_set_files_t), allocatable :: bf
    type(mpi_block_ranks_t) :: tr
    character(len=:), allocatable :: g
    integer :: local_rank, on_node
    g = 'grid file "'//trim(cs%grid_file)//'" holds '//int_text(nblocks)//' blocks: '
    if (pc%npj > 1 .or. pc%npk > 1) call stop_all(2, g//'the ranks take whole blocks, npj and npk do not '// &
      'apply: leave them out (or 0)')
    gs = make_gpu_settings(cs)
    why = gpu_settings_error(cs%backend, gs)
    if (len(why) > 0) call stop_all(2, why)
    if (choose_backend(.false.)) then
      ! one GPU a rank: the node-local rank's
      call node_place(local_rank, on_node)
      gs%device = local_rank
      bb = blocks_ranks_gpu_backend_t(kernels=merge(ADI_KERNELS_MERGED, ADI_KERNELS_SPLIT, trim(cs%kernels) == &
        'merged'), gs=gs)
    else
      allocate(blocks_backend_t :: bb)
    end if
    call tr%init()
    allocate(bb%ranks, source=tr)
    allocate(block_set_files_mpi_t :: bf)
    case_error_handler => block_input_error
    call run_block_grid(cs, mg, case_path, started, code, bb, bf)
    call finish(code)
  end subroutine run_blocks_over_ranks

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

  !> Release the backend (if there is one yet), leave MPI, stop with code.
  subroutine finish(code)
    integer, intent(in) :: code
    if (allocated(be)) call be%finalize()
    flush(output_unit); flush(error_unit)
    call MPI_Finalize()
    if (code /= 0) error stop code, quiet=.true.
    stop
  end subroutine finish
  subroutine read_all_input()
    logical :: cuts(3)   ! faces of the grid file that close on themselves
    call read_case(case_path, cs)
    call read_parallel_config(case_path, pc)
    call read_multigrid_config(case_path, mg)
    call apply_overrides(cs, mpi_option, '--npj N, --npk N, --adi-mode exact|decoupled, --chunks N, --whole-cells N, '// &
      '--mg-levels N')
    call take_grid_sizes(cs, case_path, nblocks)
    ! checked here, with the other input, so that only rank 0 speaks
    call validate_parallel_config(pc)
    call validate_multigrid_config(mg)
    call settle_coarse_dissipation(mg, cs%precondition == 'turkel')
    if (nblocks > 1 .or. cs%min_blocks > 1) then
      ! a grid file of several blocks (or cut into them): its own reading and checks (run_block_grid)
      dir = run_folder(cs, case_path)
      return
    end if
    call validate_case(cs)
    ! the whole grid's nodes, ghost nodes included (a grid file read and
    ! checked here too: a bad one stops the run before its folder is made);
    ! a grid closed on itself joins its cut before the boundaries are set up
    call make_grid_nodes(cs, xn_g, cuts, in_part)
    if (in_part) then
      ! a one-block grid joined to itself over part of a face (a C-grid): over blocks, cut at the part's ends
      dir = run_folder(cs, case_path)
      return
    end if
    call join_cuts(cs, cuts, trim(merge('adiflow_mpi', '           ', rank == 0)))
    ! (write_cgns: a build without CGNS refuses it there, before the run)
    if (len_trim(cs%patch_file) > 0 .or. is_cgns_name(cs%grid_file) .or. cs%write_cgns) call read_patches()
    dir = run_folder(cs, case_path)
  end subroutine read_all_input

  !> The grid's boundary patches (the patch file, beside the case file),
  !> checked with the other input. The patch fill runs on the host: a run
  !> with patches takes the CPU backend.
  subroutine read_patches()
    type(solver_params_t) :: sp
    logical :: ok, have
    sp = make_solver_params(cs, make_layout(cs%ni, cs%nj, cs%nk))
    ! a CGNS grid's boundary conditions are the patches (a patch_file beside them is refused)
    call take_cgns_patches(cs, sp, ps_g, have, trim(merge('adiflow_mpi', '           ', rank == 0)))
    if (.not. have) then
      if (len_trim(cs%patch_file) == 0) return
      call read_patch_file(beside_case(cs%patch_file, case_path), sp, sp%bc == BC_PERIODIC, &
        [cs%lid_u, cs%lid_v, cs%lid_w], cs%freestream_alpha, cs%freestream_beta, cs%ni, cs%nj, cs%nk, ps_g, ok, why)
      if (.not. ok) call case_error(why)
    end if
    if (trim(cs%backend) == 'gpu') call case_error('patch_file: boundary patches run on the CPU backend of '// &
      'adiflow_mpi so far (its GPU blocks have no patch fill): use --backend cpu')
    if (trim(cs%backend) /= 'cpu' .and. rank == 0) write(output_unit, '(a)') &
      'adiflow_mpi: patch_file: boundary patches run on the CPU backend of adiflow_mpi so far, so this run takes it'
    cs%backend = 'cpu'
  end subroutine read_patches

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
      '[--adi-mode exact|decoupled] [--chunks N] [--whole-cells N] [--max-iter N] [--run-dir DIR] [--restart] [--accept-old-restart] '// &
      '[--backend auto|cpu|gpu] [--kernels split|merged] [--implicit-precision double|single] [--mass-fix] '// &
      '[--mg-levels N]'
    call finish(merge(0, 2, agreed(1) == 0 .and. -agreed(2) == 0))
  end subroutine usage_if_asked


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
  logical function choose_backend(may_share) result(gpu)
    logical, intent(in) :: may_share   ! ADIFLOW_BLOCK_SHARE_GPU applies (the decomposed grid's blocks)
    logical :: mine, all_have, fit, all_fit
    integer :: local_rank, on_node, most_on_node
    mine = adi_gpu_available(gs) /= 0
    call MPI_Allreduce(mine, all_have, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    ! one rank per GPU: a node with more ranks than GPUs cannot give each its own
    call node_place(local_rank, on_node)
    fit = .not. mine .or. adi_gpu_block_ranks_fit(int(on_node, c_int), merge(1_c_int, 0_c_int, may_share)) /= 0
    call MPI_Allreduce(fit, all_fit, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    call MPI_Allreduce(on_node, most_on_node, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    shared_gpus = mine .and. on_node > adi_gpu_device_count()
    select case (trim(cs%backend))
    case ('cpu')
      gpu = .false.
    case ('gpu')
      if (.not. all_have) call stop_all(2, 'backend = ''gpu'' but not every rank sees a usable GPU ('// &
        'one rank per GPU; a build made without nvcc or hipcc has no GPU backend): '//trim(gpu_error_text()))
      if (.not. all_fit) call stop_all(2, 'backend = ''gpu'' but '//int_text(most_on_node)//' ranks share a '// &
        'node with fewer GPUs: one rank per GPU, so start at most as many ranks per node as it has GPUs '// &
        trim(merge('(to check results only, ADIFLOW_BLOCK_SHARE_GPU=1 lets ranks share them)', &
                   '(the ranks of a multi-block grid cannot share one)                      ', may_share)))
      gpu = .true.
    case default
      gpu = all_have .and. all_fit
      if (all_have .and. .not. all_fit .and. rank == 0) write(output_unit, '(a)') '  note: backend = ''auto'' '// &
        'runs on the CPU: '//int_text(most_on_node)//' ranks share a node with fewer GPUs (one rank per GPU)'
    end select
  end function choose_backend

  !> The MPI driver's own flags, on top of build/adiflow's (apply_overrides).
  logical function mpi_option(flag, value)
    character(len=*), intent(in) :: flag, value
    mpi_option = .true.
    select case (trim(flag))
    case ('--adi-mode'); pc%adi_mode = lower(value)
    case ('--npj'); pc%npj = int_option(flag, value)
    case ('--npk'); pc%npk = int_option(flag, value)
    case ('--chunks'); pc%pipeline_chunks = int_option(flag, value)
    case ('--whole-cells'); pc%whole_cells = int_option(flag, value)
    case ('--mg-levels'); mg%levels = int_option(flag, value)
    case default
      mpi_option = .false.
    end select
  end function mpi_option

  !> The levels: the serial plan (fortran/multigrid_levels.f90; with
  !> patches, cut where they stop coarsening, as build/adiflow cuts it),
  !> and the first level the blocks cannot carry, gathered onto rank 0 with
  !> those below it. Every rank finds the same; says nothing yet
  !> (start_multigrid does).
  subroutine plan_block_levels()
    call plan_levels([cs%ni, cs%nj, cs%nk], sp_g%bc([1, 3, 5]) == BC_PERIODIC, mg%levels, nlev, lev_sizes, &
      lev_ratios, mg_note)
    ! the patches of every level, as build/adiflow's: the grid's hierarchy
    ! stops where a patch edge would fall inside a coarse cell
    if (allocated(ps_g%p)) call coarse_patch_sets(ps_g, lev_sizes, lev_ratios, nlev, mg_note, ps_lev)
    call first_gathered_level(dc, nlev, lev_ratios, gather_from, gather_why)
    ! (GPU levels whole on a rank keep the serial GPU's ADI storage, which
    ! differs from a block's with implicit_precision = 'single')
    whole_cells = int(pc%whole_cells, ik8)
    if (pc%whole_cells < 0) whole_cells = merge(131072_ik8, 0_ik8, use_gpu)
    if (use_gpu .and. cs%implicit_precision == 'single') whole_cells = 0
    whole_from = first_whole_level(nlev, lev_sizes, whole_cells, nranks, gather_from)
    if (whole_from > 0) gather_from = 0
  end subroutine plan_block_levels

  !> The coarse levels (plan_block_levels): those the blocks carry
  !> decomposed like the fine one, each level's nodes the window of its
  !> global nodes; those below gathered onto rank 0. Says what the
  !> hierarchy is.
  subroutine start_multigrid()
    real(rk), allocatable :: xg(:,:,:,:), xc(:,:,:,:), xl(:,:,:,:)
    integer :: l, cr(3), nl(3), off(3)
    if (rank == 0) then
      write(output_unit, '(a,i0,a)') '  multigrid: ', nlev, ' levels ('//level_sizes_text(nlev, lev_sizes)// &
        '), '//mg_config_text(mg, sp_g%roe_low_mach /= ROE_LM_NONE)
      ! the plan's notes as build/adiflow prints them
      if (nlev < mg%levels) write(output_unit, '(a,i0,a,i0,a)') '  multigrid: asked for ', mg%levels, &
        ' levels, using ', nlev, ': '//mg_note
      if (nlev == mg%levels .and. len(mg_note) > 0) write(output_unit, '(a)') '  multigrid: '//mg_note
      if (gather_from > 0) write(output_unit, '(a)') '  multigrid: '//gathered_text(gather_from, nlev, gather_why)
      if (whole_from > 0) write(output_unit, '(a)') '  multigrid: '//whole_text(whole_from, nlev, whole_cells)
    end if
    if (nlev == 1) return
    cr = 1
    do l = 2, merge(whole_from, merge(gather_from - 1, nlev, gather_from > 0), whole_from > 0)
      cr = cr*lev_ratios(:, l)
      ! level 2 from the fine nodes themselves (a copy of them is 3.3 GB at 512^3)
      if (l == 2) then
        call coarse_nodes(sp_g, xn_g, lev_sizes(:, l), lev_ratios(:, l), xc)
      else
        call coarse_nodes(sp_g, xg, lev_sizes(:, l), lev_ratios(:, l), xc)
      end if
      nl = [lev_sizes(1, l), dc%nloc(2)/cr(2), dc%nloc(3)/cr(3)]
      off = [0, dc%off(2)/cr(2), dc%off(3)/cr(3)]
      be%dcl(l) = dc
      be%dcl(l)%nglob = lev_sizes(:, l)
      be%dcl(l)%nloc = nl
      be%dcl(l)%off = off
      xl = xc(:, :, off(2)-ng:off(2)+nl(2)+ng, off(3)-ng:off(3)+nl(3)+ng)
      call init_level(be%level(l), cs, xl, nl, lev_ratios(:, l), mg%coarse_order, mg%coarse_roe_low_mach == 'none', &
        real(product(int(lev_sizes(:, l), ik8)), rk)/real(product(int(lev_sizes(:, 1), ik8)), rk), be%host_iterates())
      if (allocated(ps_g%p)) call window_patches(ps_lev(l), off, nl, dc%phys, be%level(l)%f%ps)
      call move_alloc(xc, xg)
    end do
    if (gather_from > 0) call be%start_gathering(cs, sp_g, xn_g, gather_from, lev_sizes, lev_ratios, &
      mg%coarse_order, mg%coarse_roe_low_mach == 'none', ps_lev)
    if (whole_from > 0) call be%start_whole(cs, sp_g, xn_g, whole_from, lev_sizes, lev_ratios, &
      mg%coarse_order, mg%coarse_roe_low_mach == 'none', ps_lev)
    be%weight = be%level%weight
    ! as build/adiflow checks each level (a coarse level of a curved grid may fold)
    do l = 2, nlev
      if (any_rank(dc%comm, be%folded_cells(l))) call stop_all(2, 'multigrid level '//int_text(l)// &
        ': the grid has cells with zero or negative volume (folded grid: reduce wavy_amplitude or beta)')
    end do
  end subroutine start_multigrid
end program adiflow_mpi
