!> build/adiflow on a grid file of several blocks (Plot3D blocks or CGNS
!> zones): the file read and checked as build/grid_check reads it (its
!> 1-to-1 interfaces found from the coordinates), the blocks solved
!> together on the CPU (fortran/backend_blocks.f90: one iteration or one
!> FAS cycle over all blocks) or on one GPU (fortran/backend_blocks_gpu.f90,
!> backend = 'gpu', or 'auto' where a GPU is usable), the iteration loop the one-grid run has
!> (fortran/driver_loop.f90), the restart set and flow.vtm
!> (fortran/run_files_blocks.f90).
!>
!> Each block's faces that no interface joins take its patches (a patch
!> file in sections, one per block, or a CGNS file's BCs:
!> fortran/block_patch_file.f90), or without either the case's bc_* keys by
!> the block's own index directions. A 2D file's blocks are made one cell
!> (grid_span) thick, as a one-block 2D file is. A block whose face an
!> interface covers in part is cut at the part's ends first
!> (fortran/block_split.f90), its patches going to the pieces; a one-block
!> grid joined to itself in part (a C-grid) comes here from the one-grid
!> drivers for that. What it refuses, before anything large is allocated,
!> each with its reason: a block one plane of nodes thick in a 3D file,
!> grid_flip. Snapshots (output_interval) are flow_NNNNNNN.vtm with their
!> pieces, listed in flow.pvd. Over MPI ranks (build/adiflow_mpi) every
!> rank runs it, rank 0 speaking and writing.
module blocks_driver
  use, intrinsic :: iso_fortran_env, only: output_unit
  use kinds, only: rk, ik8, nvar
  use text_util, only: int_text
  use case_config, only: case_t, case_error, validate_case, make_solver_params, scheme_text, implicit_text, &
    run_folder, make_gpu_settings
  use solver_params, only: solver_params_t, ROE_LM_NONE
  use grid_layout, only: layout_t, make_layout, field_bytes
  use flow_fields, only: host_field_count
  use grid_blocks, only: grid_block_set_t, GRID_BLOCKS_OK, face_range_t, covers_whole_face
  use cgns_blocks, only: read_block_file
  use multigrid_config, only: mg_config_t, mg_config_text
  use backend_blocks, only: blocks_backend_t, set_problem, flat_block_problem
  use block_split, only: piece_t, cut_at_face_parts, cut_to_count, split_patches, piece_text
  use backend_blocks_gpu, only: blocks_gpu_backend_t
  use gpu_settings, only: gpu_settings_t
  use gpu_bridge, only: gpu_chosen, gpu_device_info, gpu_settings_error, ADI_KERNELS_SPLIT, ADI_KERNELS_MERGED
  use run_files_blocks, only: block_set_files_t, block_vts_name
  use driver_loop, only: run_iterations
  use patch_file, only: units_text, has_open_patches
  use boundary_patches, only: patch_set_t
  use block_patch_file, only: block_patch_sets
  use grid_source, only: beside_case
  use output_wall_loads, only: wall_load_names
  use plot3d_output, only: plot3d_max_blocks
  use cgns_grid, only: cgns_available
  use output_file, only: blocked_output
  use omp_policy, only: cells_per_thread
  use sys_interface, only: adi_install_signal_handlers, adi_host_memory_available, make_dirs, lock_run_dir
  !$ use omp_lib, only: omp_get_max_threads, omp_set_num_threads
  implicit none
  private
  public :: run_block_grid, make_one_cell_thick

contains

  !> The run of case cs (its grid_file of several blocks, the path beside
  !> the case already taken) with the &multigrid group mg; started: the
  !> program's start (system_clock). exit_code as run_iterations gives it.
  !> build/adiflow_mpi passes its backend, its ranks set (fortran/block_ranks_mpi.f90),
  !> and its files (fortran/run_files_blocks_mpi.f90): every rank runs this,
  !> rank 0 alone speaks, makes the run folder and writes the files.
  subroutine run_block_grid(cs, mg, case_path, started, exit_code, ranks_backend, ranks_files)
    type(case_t), intent(inout) :: cs
    type(mg_config_t), intent(in) :: mg
    character(len=*), intent(in) :: case_path
    integer(ik8), intent(in) :: started
    integer, intent(out) :: exit_code
    class(blocks_backend_t), allocatable, intent(inout), optional :: ranks_backend
    class(block_set_files_t), allocatable, intent(inout), optional :: ranks_files
    type(grid_block_set_t) :: set, file_set
    type(piece_t), allocatable :: pieces(:)
    integer, allocatable :: file_n(:,:)
    type(case_t), allocatable :: cb(:)
    class(blocks_backend_t), allocatable :: be
    type(gpu_settings_t) :: gs
    class(block_set_files_t), allocatable :: files
    type(solver_params_t) :: sp
    type(solver_params_t), allocatable :: sps(:)
    type(patch_set_t), allocatable :: ps(:)
    logical, allocatable :: joined(:,:)
    logical :: have_patches, open_flow, use_gpu, root
    character(len=:), allocatable :: msg, why, note, dir, names, patch_path
    integer :: status, b, q, nref(3), lock_fd, nthreads, nparts, nwant
    integer(ik8) :: it0
    real(rk) :: res0(5)

    if (len_trim(cs%grid_file) == 0) call case_error('min_blocks = '//int_text(cs%min_blocks)//' cuts a grid '// &
      'file''s blocks; the generated box has none (leave min_blocks out; adiflow_mpi decomposes the box by npj, npk)')
    call refuse_what_blocks_lack(cs)
    call read_block_file(trim(cs%grid_file), set, status, msg)
    if (status /= GRID_BLOCKS_OK) call case_error(msg)
    if (set%dims == 2) call make_one_cell_thick(set, cs%grid_span)
    why = flat_block_problem(set)
    if (len(why) > 0) call case_error(set%what//': '//why)
    ! a face an interface covers in part: its block cut at the part's ends (the file's set kept for its patches)
    file_set = set
    call cut_at_face_parts(set, pieces)
    why = set_problem(set)
    if (len(why) > 0) call case_error(set%what//': '//why)
    ! more blocks than that: min_blocks, or adiflow_mpi's ranks where they are more than the blocks
    nparts = set%nblocks
    nwant = cs%min_blocks
    if (present(ranks_backend)) then
      if (allocated(ranks_backend%ranks)) nwant = max(nwant, ranks_backend%ranks%nranks)
    end if
    if (nwant > set%nblocks) then
      call cut_to_count(set, pieces, nwant, mg%levels, [cs%bc_imin == 'periodic', cs%bc_jmin == 'periodic', &
        cs%bc_kmin == 'periodic'])
      if (set%nblocks < nwant) then
        if (nwant == cs%min_blocks) then
          msg = 'min_blocks = '//int_text(nwant)//' asks for '//int_text(nwant)//' blocks'
        else
          msg = int_text(nwant)//' ranks need '//int_text(nwant)//' blocks'
        end if
        call case_error(set%what//': '//msg//', but halving the largest gives at most '//int_text(set%nblocks)// &
          ' (a block is halved across a direction of at least '//int_text(2**(max(mg%levels, 1) + 1))//' cells '// &
          'that is not periodic, so that both halves keep the '//int_text(mg%levels)//' multigrid levels): ask for '// &
          'at most '//int_text(set%nblocks)//', or fewer levels')
      end if
    end if
    if (cs%write_plot3d .and. set%nblocks > plot3d_max_blocks()) call case_error(set%what//': write_plot3d writes '// &
      'at most '//int_text(plot3d_max_blocks())//' blocks into flow.xyz and flow.q; leave it out (flow.vtm holds '// &
      'every block)')

    ! each block's case: its own cells for the checks, then one reference
    ! size for all (the limiter's threshold comes from it, and must not
    ! differ from block to block)
    allocate(cb(set%nblocks))
    nref = 0
    do b = 1, set%nblocks
      cb(b) = cs
      cb(b)%ni = set%blocks(b)%n(1) - 1
      cb(b)%nj = set%blocks(b)%n(2) - 1
      cb(b)%nk = set%blocks(b)%n(3) - 1
      call validate_case(cb(b))
      nref = max(nref, [cb(b)%ni, cb(b)%nj, cb(b)%nk])
    end do
    do b = 1, set%nblocks
      cb(b)%ni = nref(1)
      cb(b)%nj = nref(2)
      cb(b)%nk = nref(3)
    end do
    cs%ni = nref(1)
    cs%nj = nref(2)
    cs%nk = nref(3)
    call check_host_memory(set)
    gs = make_gpu_settings(cs)
    why = gpu_settings_error(cs%backend, gs)
    if (len(why) > 0) call case_error(why)
    if (present(ranks_backend)) then
      call move_alloc(ranks_backend, be)
      select type (be)
      class is (blocks_gpu_backend_t)
        use_gpu = .true.
        gs = be%gs
      class default
        use_gpu = .false.
      end select
      call move_alloc(ranks_files, files)
    else
      use_gpu = gpu_chosen(cs%backend, gs)
      if (use_gpu) then
        be = blocks_gpu_backend_t(kernels=merge(ADI_KERNELS_MERGED, ADI_KERNELS_SPLIT, trim(cs%kernels) == 'merged'), &
          gs=gs)
      else
        allocate(blocks_backend_t :: be)
      end if
      allocate(block_set_files_t :: files)
    end if
    root = be%is_root()
    ! the blocks' boundary patches (patch_file sections or the file's BCs), checked before anything large
    allocate(sps(set%nblocks), ps(set%nblocks), joined(6, set%nblocks))
    joined = .false.
    do q = 1, size(set%interfaces)
      joined(set%interfaces(q)%a%face + 1, set%interfaces(q)%a%block) = .true.
      joined(set%interfaces(q)%b%face + 1, set%interfaces(q)%b%block) = .true.
    end do
    do b = 1, set%nblocks
      associate (n => set%blocks(b)%n)
        sps(b) = make_solver_params(cb(b), make_layout(n(1) - 1, n(2) - 1, n(3) - 1))
      end associate
    end do
    patch_path = ''
    if (len_trim(cs%patch_file) > 0) patch_path = beside_case(cs%patch_file, case_path)
    if (set%nblocks == file_set%nblocks) then
      call block_patch_sets(cs, patch_path, set, sps, joined, ps, have_patches)
    else
      call patches_of_pieces()
    end if
    open_flow = .false.
    if (have_patches) open_flow = any([(has_open_patches(ps(b)), b = 1, set%nblocks)])

    ! the run folder, made and locked by the one process that writes it
    dir = run_folder(cs, case_path)
    why = ''
    if (root) call make_run_folder()
    if (be%any_process(len(why) > 0)) call case_error(why)
    call files%init(cs, trim(merge('adiflow    ', 'adiflow_mpi', .not. present(ranks_files))), dir, &
      dir//'/restart.blocks', root, started)
    files%vts_ext = '.vtm'   ! flow.pvd lists the snapshots' multi-block files
    files%nblocks = set%nblocks
    if (allocated(set%names)) files%zone_names = set%names

    nthreads = 1
    !$ if (cs%threads > 0) call omp_set_num_threads(cs%threads)
    !$ nthreads = omp_get_max_threads()
    be%mg = mg
    if (have_patches) then
      call be%init(set, cb, mg%levels, mg%coarse_order, mg%coarse_roe_low_mach == 'none', why, note, ps)
    else
      call be%init(set, cb, mg%levels, mg%coarse_order, mg%coarse_roe_low_mach == 'none', why, note)
    end if
    if (len(why) > 0) call case_error(set%what//': '//why)
    call be%distribute()
    if (set%nblocks > file_set%nblocks) then
      ! a piece of a cut block named by where it lies in the file's block
      allocate(file_n(3, file_set%nblocks))
      do b = 1, file_set%nblocks
        file_n(:, b) = file_set%blocks(b)%n
      end do
      do b = 1, set%nblocks
        if (len(piece_text(set, pieces, b, file_n)) > 0) be%label(b) = trim(be%label(b))//' ('// &
          piece_text(set, pieces, b, file_n)//')'
      end do
    end if
    sp = be%b(1)%level(1)%sp

    if (root) write(output_unit, '(a)') files%prog//': '//trim(cs%title)//' ('//trim(case_path)//')'
    if (root .and. nparts > file_set%nblocks) write(output_unit, '(a)') '  grid: the file''s '// &
      int_text(file_set%nblocks)//' block(s) cut where an interface covers part of a face (a C-grid''s wake cut): '// &
      int_text(nparts)//' blocks, each face joined whole'
    if (root .and. set%nblocks > nparts) write(output_unit, '(a)') '  grid: the largest blocks halved until there '// &
      'are '//int_text(set%nblocks)//trim(merge(' (min_blocks) ', ' (a rank each)', nwant == cs%min_blocks))// &
      '; the implicit sweeps stop at the cuts, so the iterates differ from the uncut grid''s, the steady state not '// &
      '(to the tolerance it is converged to)'
    if (root) write(output_unit, '(a,es10.3,a,es10.3)') '  grid: '//int_text(set%nblocks)//' blocks from '// &
      trim(cs%grid_file)//' ('//set%format//'), '//int_text(size(set%interfaces))//' 1-to-1 interface(s), '// &
      int_text(nint(be%cells(1)))//' cells; Re ', cs%reynolds, ', Mach ', cs%mach
    do b = 1, min(set%nblocks, 12)
      associate (lay => be%b(b)%level(1)%lay)
        if (root) write(output_unit, '(a)') '    '//trim(be%label(b))//': '//int_text(lay%ni)//' x '//int_text(lay%nj)// &
          ' x '//int_text(lay%nk)//' cells'
      end associate
    end do
    if (root .and. (set%nblocks > 12)) write(output_unit, '(a)') '    ... ('//int_text(set%nblocks - 12)//' more: '// &
      'build/grid_check lists them all)'
    if (root) write(output_unit, '(a)') '  convection: Roe, '//trim(scheme_text(cs))
    if (root) write(output_unit, '(a)') '  implicit operator (LU-ADI): '//trim(implicit_text(cs))//'; across the '// &
      'interfaces the increments are held at zero (each block sweeps its own lines)'
    if (root) write(output_unit, '(a)') '  '//units_text(sp, open_flow, cs%freestream_alpha, cs%freestream_beta)
    if (have_patches) then
      msg = 'grid file''s boundary conditions'
      if (len(patch_path) > 0) msg = 'patch file "'//patch_path//'"'
      if (root) write(output_unit, '(a)') '  boundaries: '//int_text(sum([(size(ps(b)%p), b = 1, set%nblocks)]))// &
        ' patches over the blocks'' faces that no interface joins, from the '//msg
    end if
    if (mg%levels > 1) then
      if (root) write(output_unit, '(a)') '  multigrid over the blocks: '//int_text(be%nlev)//' levels, '// &
        mg_config_text(mg, sp%roe_low_mach /= ROE_LM_NONE)
      if (root .and. (len(note) > 0)) write(output_unit, '(a)') '  multigrid: asked for '//int_text(mg%levels)// &
        ' levels, using '//int_text(be%nlev)//': '//note
    end if

    res0 = 0.0_rk
    it0 = 0
    if (cs%restart) then
      call files%read_restart(be, it0, res0, why)
      if (len(why) > 0) call case_error(why)
      if (files%nothing_left(it0)) then
        exit_code = 0
        return
      end if
    else
      call be%start_at_rest()
      if (open_flow) call be%start_in_free_stream(cs%freestream_alpha, cs%freestream_beta)
    end if
    call be%fill_boundary(1)
    be%mass_fix = cs%mass_fix
    if (cs%mass_fix) then
      be%mass0 = be%set_mass(unit=.true.)
      if (root) write(output_unit, '(a,es23.16)') '  mass_fix: total mass held at ', be%mass0
    end if
    if (use_gpu) then
      if (root) write(output_unit, '(a)') '  backend: gpu ('//trim(cs%kernels)//' kernels) on '//trim(gpu_device_info(gs))// &
        trim(merge(', every block on it    ', ', one GPU a rank       ', len(be%where_text()) == 0))
    else
      if (root) write(output_unit, '(a,i0,a,i0,a)') '  backend: cpu (Fortran reference, up to ', nthreads, &
        ' OpenMP threads: one per ', cells_per_thread(), ' cells of a loop)'
    end if
    if (root .and. len(be%where_text()) > 0) write(output_unit, '(a)') '  '//be%where_text()
    call be%start()
    if (root) write(output_unit, '(a)') '  outputs in '//trim(dir)//'/'
    call files%start_series(it0)
    call adi_install_signal_handlers()
    call run_iterations(cs, it0, res0, be, files, exit_code)
    call be%finalize()
  contains
    !> The pieces' patches: the file's blocks' (their faces joined in part
    !> may leave the joined cells uncovered), clipped to each piece
    !> (block_split's split_patches).
    subroutine patches_of_pieces()
      type(patch_set_t), allocatable :: fps(:)
      type(solver_params_t), allocatable :: fsp(:)
      logical, allocatable :: fjoined(:,:), fpartly(:,:)
      integer, allocatable :: ncell(:,:)
      integer :: bb, qq, ss
      logical :: ok
      type(face_range_t) :: r
      allocate(fps(file_set%nblocks), fsp(file_set%nblocks), fjoined(6, file_set%nblocks), &
        fpartly(6, file_set%nblocks), ncell(3, set%nblocks))
      fjoined = .false.
      fpartly = .false.
      do qq = 1, size(file_set%interfaces)
        do ss = 1, 2
          r = merge(file_set%interfaces(qq)%a, file_set%interfaces(qq)%b, ss == 1)
          if (covers_whole_face(r, file_set%blocks(r%block)%n)) then
            fjoined(r%face + 1, r%block) = .true.
          else
            fpartly(r%face + 1, r%block) = .true.
          end if
        end do
      end do
      do bb = 1, file_set%nblocks
        associate (n => file_set%blocks(bb)%n)
          fsp(bb) = make_solver_params(cb(1), make_layout(n(1) - 1, n(2) - 1, n(3) - 1))
        end associate
      end do
      call block_patch_sets(cs, patch_path, file_set, fsp, fjoined, fps, have_patches, fpartly)
      if (.not. have_patches) then
        if (any(fpartly)) call case_error(set%what//': an interface covers part of a face, so the blocks '// &
          'need boundary patches (patch_file, or the CGNS file''s BCs) for the rest of it')
        return   ! the pieces' faces take the bc_* keys by their own directions, as their blocks' did
      end if
      do bb = 1, set%nblocks
        ncell(:, bb) = set%blocks(bb)%n - 1
      end do
      call split_patches(fps, pieces, ncell, joined, ps, ok, msg)
      if (.not. ok) call case_error(set%what//': '//msg)
    end subroutine patches_of_pieces

    !> The run folder made and locked, no output in it a link; why: '' or
    !> what is wrong.
    subroutine make_run_folder()
      integer :: bb
      if (make_dirs(dir, why) /= 0) return
      lock_fd = lock_run_dir(dir, why)
      if (lock_fd < 0) return
      names = 'restart.blocks flow.vtm flow.dat flow.xyz flow.q flow.cgns residual.dat residual.gp residual.png'// &
        wall_names()
      if (cs%write_vtk .and. cs%output_interval > 0) names = names//' flow.pvd'
      do bb = 1, set%nblocks
        names = names//' '//block_vts_name(bb)
      end do
      why = blocked_output(dir, names)
    end subroutine make_run_folder

    !> The wall load files of the blocks' wall patches (numbered over all blocks).
    function wall_names() result(s)
      character(len=:), allocatable :: s
      integer :: bb, first
      s = ''
      if (.not. have_patches) return
      first = 0
      do bb = 1, set%nblocks
        s = s//wall_load_names(ps(bb), first)
        first = first + size(ps(bb)%p)
      end do
      if (len(s) > 0) s = s//' forces.csv forces.dat'
    end function wall_names
  end subroutine run_block_grid

  !> What a multi-block run cannot do yet, refused by name before the file
  !> is read whole.
  subroutine refuse_what_blocks_lack(cs)
    type(case_t), intent(in) :: cs
    character(len=:), allocatable :: g
    g = 'grid file "'//trim(cs%grid_file)//'" holds several blocks: '
    if (trim(cs%grid_flip) /= 'none') call case_error(g//'grid_flip = '''//trim(cs%grid_flip)//''' applies to '// &
      'one block; turn the blocks in the file instead')
    if (cs%write_cgns .and. .not. cgns_available()) call case_error('write_cgns = .true., but this build has no '// &
      'CGNS support (libcgns-dev was missing when it was built): rebuild after installing libcgns-dev, or leave '// &
      'write_cgns out')
  end subroutine refuse_what_blocks_lack

  !> A 2D file's blocks (one plane of nodes, z = 0) made one cell thick:
  !> a second plane at z = span, as a one-block 2D file is made (the
  !> interfaces already run over k = 1..2).
  subroutine make_one_cell_thick(set, span)
    type(grid_block_set_t), intent(inout) :: set
    real(rk), intent(in) :: span
    real(rk), allocatable :: x(:,:,:,:)
    integer :: b
    do b = 1, set%nblocks
      associate (blk => set%blocks(b))
        allocate(x(3, blk%n(1), blk%n(2), 2))
        x(:, :, :, 1) = blk%xyz(:, :, :, 1)
        x(:, :, :, 2) = blk%xyz(:, :, :, 1)
        x(3, :, :, 1) = 0.0_rk
        x(3, :, :, 2) = span
        call move_alloc(x, blk%xyz)
        blk%n(3) = 2
      end associate
    end do
  end subroutine make_one_cell_thick

  !> The blocks' fields and coarse levels (about a seventh more) against
  !> the host's free memory, before any is allocated.
  subroutine check_host_memory(set)
    type(grid_block_set_t), intent(in) :: set
    integer(ik8) :: need, avail
    integer :: b
    character(len=300) :: m
    need = 0
    do b = 1, set%nblocks
      associate (n => set%blocks(b)%n)
        need = need + field_bytes(make_layout(n(1) - 1, n(2) - 1, n(3) - 1), host_field_count() + 2*nvar)
      end associate
    end do
    need = need + need/7
    avail = adi_host_memory_available()
    if (avail > 0 .and. need > avail) then
      write(m, '(a,f0.1,a,f0.1,a)') 'the blocks need ', real(need, rk)/2.0_rk**30, &
        ' GiB of host memory but only ', real(avail, rk)/2.0_rk**30, ' GiB are available; use a smaller grid'
      call case_error(m)
    end if
  end subroutine check_host_memory
end module blocks_driver
