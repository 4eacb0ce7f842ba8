!> A block of a decomposed grid on this rank's GPU (one rank per GPU,
!> chosen by node-local rank): the block mode of the bridge
!> (fortran/gpu_block_bridge.f90, cuda/multi/block_driver.cu: halos and
!> pipelined sweeps GPU to GPU through NCCL, or through host memory with
!> MPI; include/adiflow_block.h). The host side (boundary fill
!> for the outputs, the decomposition) is the CPU block's
!> (fortran/backend_mpi_block.f90); residual and mass sums chain the
!> device's plane sums along j like the CPU's. Only build/adiflow_mpi uses
!> it.
!>
!> Multigrid: every level the blocks carry on the device (dev(l), l < G),
!> each a block of that level's decomposition (dcl(l), as the CPU block's)
!> sharing the fine block's transport; restrict and prolong are the serial
!> GPU backend's calls (fortran/backend_gpu.f90), whose coarse boundary
!> fill brings the level's halo rows (cuda/api/multigrid.cu). The levels
!> G..nlev gathered onto rank 0 run on its CPU, as the CPU block's
!> (fortran/backend_mpi_block.f90): level G-1's state, residual and forcing
!> come down from the device for the gather, the corrected state goes back
!> up after the scatter. The levels W..nlev that run whole on every rank
!> (fortran/multigrid_whole.f90) run on each rank's GPU as build/adiflow's
!> GPU levels (wdev), level W shared from the blocks and taken back on the
!> device (adi_gpu_block_share_level, adi_gpu_block_take_level: the fine
!> block's transport, no host copy). A failed bridge call stops every rank
!> (MPI_Abort, exit code 4).
module backend_mpi_gpu
  use, intrinsic :: iso_fortran_env, only: output_unit
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_null_ptr, c_ptr
  use mpi_f08
  use text_util, only: int_text
  use kinds, only: rk
  use residual_norms, only: norms_from_plane_sums
  use mass_constraint, only: mass_scale_factor
  use gpu_settings, only: gpu_settings_t
  use gpu_bridge, only: gpu_grid_t, gpu_error_text, adi_gpu_iterate, adi_gpu_residual_plane_sums, &
    adi_gpu_mass_plane_sums, adi_gpu_scale_state, adi_gpu_download_state, adi_gpu_residual, adi_gpu_mg_restrict, &
    adi_gpu_mg_forcing, adi_gpu_mg_prolong, gpu_finalize, adi_gpu_download_residual, adi_gpu_download_forcing, &
    adi_gpu_upload_state
  use solver_cpu, only: add_forcing
  use gpu_block_bridge
  use mpi_decomp, only: decomp_t, mpi_fail, plane_chain_in, plane_chain_out, TAG_NORMS, mpi_mass_chain_in, mpi_mass_chain_out, &
    node_place
  use backend_mpi_block, only: block_backend_t
  implicit none
  private
  public :: block_gpu_backend_t

  type, extends(block_backend_t) :: block_gpu_backend_t
    integer(c_int) :: kernels = 0   !< ADI_KERNELS_SPLIT or _MERGED
    type(gpu_settings_t) :: gs      !< the &gpu group (the device is the rank's node-local GPU)
    integer :: chunks = 1           !< pipeline chunks of lines in exact mode
    type(gpu_grid_t), allocatable :: dev(:)   !< dev(l): level l of this rank's block on its GPU
    type(gpu_grid_t), allocatable :: wdev(:)  !< wdev(n): whole level W+n-1 on this rank's GPU
  contains
    procedure :: start => block_gpu_start
    procedure :: smooth => block_gpu_smooth
    procedure :: restrict => block_gpu_restrict
    procedure :: prolong => block_gpu_prolong
    procedure :: gathered_residual => block_gpu_gathered_residual
    procedure :: scattered_state => block_gpu_scattered_state
    procedure :: share_whole => block_gpu_share_whole
    procedure :: take_whole => block_gpu_take_whole
    procedure :: norms => block_gpu_norms
    procedure :: fix_mass => block_gpu_fix_mass
    procedure :: fetch_state => block_gpu_fetch_state
    procedure, nopass :: host_iterates => host_iterates_no
    procedure :: finalize => block_gpu_release
    procedure, private :: gpu_ok
  end type block_gpu_backend_t

contains

  !> A failed bridge call stops every rank (MPI_Abort) with its message.
  subroutine gpu_ok(self, status, what)
    class(block_gpu_backend_t), intent(in) :: self
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    character(len=16) :: rs
    if (status == 0) return
    write(rs, '(i0)') self%dcl(1)%rank
    call mpi_fail('rank '//trim(rs)//', GPU backend, '//trim(what)//' failed: '//trim(gpu_error_text()), 4)
  end subroutine gpu_ok

  !> Device of this rank = its node-local rank; the transport and its ids
  !> from rank 0; the block's fields, neighbours and mode to the bridge;
  !> then the coarse levels with their decompositions.
  subroutine block_gpu_start(self)
    class(block_gpu_backend_t), intent(inout) :: self
    integer :: rank, nranks, local_rank, on_node, st, ln, l
    character(kind=c_char) :: ids(ADI_BLOCK_ID_BYTES)
    character(len=32) :: v
    integer(c_int) :: phys(6), nbr(4), swp(4)
    real(rk) :: tmax
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    call node_place(local_rank, on_node)
    ids = achar(0)
    if (rank == 0) call self%gpu_ok(adi_gpu_block_make_ids(ids), 'making the block transport''s ids')
    call MPI_Bcast(ids, ADI_BLOCK_ID_BYTES, MPI_CHARACTER, 0, MPI_COMM_WORLD)
    allocate(self%dev(self%nlev))
    associate (dc => self%dcl(1), g => self%level(1))
      call neighbours(dc, phys, nbr, swp)
      tmax = 120.0_rk
      call get_environment_variable('ADIFLOW_MPI_STARTUP_TIMEOUT', v, ln, st)
      if (st == 0 .and. ln > 0) read(v, *, iostat=st) tmax
      call self%gpu_ok(adi_gpu_block_init(self%dev(1)%ptr, g%sp, self%kernels, self%gs, g%f%sf, g%f%sc, g%f%vol, &
        g%f%q, phys, dc%off, dc%nglob, nbr, swp, merge(1_c_int, 0_c_int, dc%exact), int(self%chunks, c_int), &
        int(rank, c_int), int(nranks, c_int), ids, int(local_rank, c_int), real(tmax, c_double)), &
        'initialisation (GPU '//trim(int_text(local_rank))//' of the node)')
    end associate
    do l = 2, self%decomposed_levels()
      associate (dc => self%dcl(l), g => self%level(l))
        call neighbours(dc, phys, nbr, swp)
        call self%gpu_ok(adi_gpu_block_init_level(self%dev(l)%ptr, self%dev(1)%ptr, g%sp, self%kernels, self%gs, &
          g%f%sf, g%f%sc, g%f%vol, g%f%q, phys, dc%off, dc%nglob, nbr, swp), &
          'initialisation of multigrid level '//trim(int_text(l)))
      end associate
    end do
    if (self%whole%first > 0) then
      associate (w => self%whole)
        allocate(self%wdev(w%serial%nlev))
        do l = 1, w%serial%nlev
          associate (g => w%serial%level(l))
            call self%gpu_ok(adi_gpu_block_init_whole(self%wdev(l)%ptr, self%dev(1)%ptr, g%sp, self%kernels, self%gs, &
              g%f%sf, g%f%sc, g%f%vol, g%f%q), 'initialisation of whole multigrid level '//trim(int_text(w%first + l - 1)))
          end associate
        end do
        call self%gpu_ok(adi_gpu_block_share_reserve(self%dev(1)%ptr, int(w%serial%level(1)%lay%ni, c_int), &
          int(w%ext, c_int), int(size(w%ext, 2), c_int)), 'buffers of the whole multigrid levels')
      end associate
    end if
  end subroutine block_gpu_start

  !> A decomposition's physical faces and neighbours as the bridge takes
  !> them (-1: none).
  subroutine neighbours(dc, phys, nbr, swp)
    type(decomp_t), intent(in) :: dc
    integer(c_int), intent(out) :: phys(6), nbr(4), swp(4)
    integer :: d
    phys = merge(1, 0, dc%phys)
    do d = 2, 3
      nbr(2*d-3:2*d-2) = merge(-1, dc%nbr(:, d), dc%nbr(:, d) == MPI_PROC_NULL)
      swp(2*d-3:2*d-2) = merge(-1, dc%swp(:, d), dc%swp(:, d) == MPI_PROC_NULL)
    end do
  end subroutine neighbours

  !> One iteration of level l's block (its forcing included on l > 1).
  subroutine block_gpu_smooth(self, l, cfl)
    class(block_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (self%is_whole(l)) then
      call self%gpu_ok(adi_gpu_iterate(self%wdev(self%whole%index_of(l))%ptr, cfl), 'iteration (whole level)')
      return
    end if
    if (self%is_gathered(l)) then
      call self%smooth_gathered(l, cfl)
      return
    end if
    call self%gpu_ok(adi_gpu_iterate(self%dev(l)%ptr, cfl), 'iteration')
  end subroutine block_gpu_smooth

  !> fortran/backend_gpu.f90's restriction, block by block.
  subroutine block_gpu_restrict(self, l, cfl)
    class(block_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (self%is_whole(l)) then
      associate (n => self%whole%index_of(l))
        call gpu_restrict_pair(self%wdev(n)%ptr, self%wdev(n + 1)%ptr)
      end associate
      return
    end if
    if (self%is_gathered(l + 1)) then
      call self%restrict_gathered(l, cfl)
      return
    end if
    call gpu_restrict_pair(self%dev(l)%ptr, self%dev(l + 1)%ptr)
    if (self%is_whole(l + 1)) call self%share_whole(l + 1)
  contains
    !> fortran/backend_gpu.f90's four calls
    subroutine gpu_restrict_pair(fine, coarse)
      type(c_ptr), intent(in) :: fine, coarse
      call self%gpu_ok(adi_gpu_residual(fine, cfl), 'multigrid residual')
      call self%gpu_ok(adi_gpu_mg_restrict(fine, coarse, self%level(l + 1)%ratio), 'multigrid restriction')
      call self%gpu_ok(adi_gpu_residual(coarse, cfl), 'multigrid coarse residual')
      call self%gpu_ok(adi_gpu_mg_forcing(coarse), 'multigrid forcing')
    end subroutine gpu_restrict_pair
  end subroutine block_gpu_restrict

  subroutine block_gpu_prolong(self, l)
    class(block_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    if (self%is_whole(l)) then
      associate (n => self%whole%index_of(l))
        call self%gpu_ok(adi_gpu_mg_prolong(self%wdev(n)%ptr, self%wdev(n + 1)%ptr, self%level(l + 1)%ratio), &
          'multigrid prolongation (whole levels)')
      end associate
      return
    end if
    if (self%is_gathered(l + 1)) then
      call self%prolong_gathered(l)
      return
    end if
    if (self%is_whole(l + 1)) call self%take_whole(l + 1)
    call self%gpu_ok(adi_gpu_mg_prolong(self%dev(l)%ptr, self%dev(l + 1)%ptr, self%level(l + 1)%ratio), &
      'multigrid prolongation')
  end subroutine block_gpu_prolong

  !> After the blocks restricted onto level l (= W): every block's state
  !> and forcing into each rank's whole level on its GPU.
  subroutine block_gpu_share_whole(self, l)
    class(block_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    call self%gpu_ok(adi_gpu_block_share_level(self%dev(1)%ptr, self%dev(l)%ptr, self%wdev(1)%ptr, &
      int(self%whole%ext, c_int), int(size(self%whole%ext, 2), c_int)), 'sharing multigrid level '// &
      trim(int_text(l))//' with every rank')
  end subroutine block_gpu_share_whole

  !> Before the blocks prolong level l (= W): this rank's part of its whole
  !> level's state into its block, on the device.
  subroutine block_gpu_take_whole(self, l)
    class(block_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    associate (e => self%whole%ext(:, self%whole%rank + 1))
      call self%gpu_ok(adi_gpu_block_take_level(self%dev(l)%ptr, self%wdev(1)%ptr, int(e(1), c_int), &
        int(e(2), c_int)), 'multigrid level '//trim(int_text(l))//' from the whole level')
    end associate
  end subroutine block_gpu_take_whole

  !> Before level l (= G-1) is gathered: its residual on the device, then
  !> state, residual and (l > 1) forcing down to the host, where the forcing
  !> is added as the CPU block adds it.
  subroutine block_gpu_gathered_residual(self, l, cfl)
    class(block_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    associate (g => self%level(l), dev => self%dev(l)%ptr)
      call self%gpu_ok(adi_gpu_residual(dev, cfl), 'multigrid residual')
      call self%gpu_ok(adi_gpu_download_state(dev, g%f%q), 'state download (gathered levels)')
      call self%gpu_ok(adi_gpu_download_residual(dev, g%f%res), 'residual download (gathered levels)')
      if (l > 1) then
        call self%gpu_ok(adi_gpu_download_forcing(dev, g%forcing), 'forcing download (gathered levels)')
        call add_forcing(g%lay, g%forcing, g%f%res)
      end if
    end associate
  end subroutine block_gpu_gathered_residual

  !> After the gathered levels' correction came back to level l (= G-1) on
  !> the host: up to the device (its ghosts as they were; the next
  !> iteration fills them).
  subroutine block_gpu_scattered_state(self, l)
    class(block_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    call self%gpu_ok(adi_gpu_upload_state(self%dev(l)%ptr, self%level(l)%f%q), 'state upload (gathered levels)')
  end subroutine block_gpu_scattered_state

  !> Residual norms of the last iteration over all blocks: the device's
  !> plane sums chained along j like mpi_residual_norms.
  subroutine block_gpu_norms(self, nrm)
    class(block_gpu_backend_t), intent(inout) :: self
    real(rk), intent(out) :: nrm(5)
    real(rk) :: pl(5, self%level(1)%lay%nk), plane(5, self%dcl(1)%nglob(3))
    associate (dc => self%dcl(1))
      call plane_chain_in(dc, 5*self%level(1)%lay%nk, pl, TAG_NORMS)
      call self%gpu_ok(adi_gpu_residual_plane_sums(self%dev(1)%ptr, pl), 'residual norms')
      call plane_chain_out(dc, 5, self%level(1)%lay%nk, pl, plane, TAG_NORMS)
      nrm = norms_from_plane_sums(plane, dc%nglob(1), dc%nglob(2), dc%nglob(3))
    end associate
  end subroutine block_gpu_norms

  !> mpi_total_mass's chain along the j ranks with the device's plane sums
  !> (adi_gpu_mass_plane_sums, the Fortran order) in place of
  !> add_mass_plane_sums, then the same factor on every rank, as
  !> mpi_mass_fix on the CPU. Synchronises every iteration.
  subroutine block_gpu_fix_mass(self)
    class(block_gpu_backend_t), intent(inout) :: self
    real(rk) :: pl(self%level(1)%lay%nk)
    call mpi_mass_chain_in(self%dcl(1), pl)
    call self%gpu_ok(adi_gpu_mass_plane_sums(self%dev(1)%ptr, pl), 'mass sums (mass_fix)')
    call self%gpu_ok(adi_gpu_scale_state(self%dev(1)%ptr, mass_scale_factor(self%mass0, &
      mpi_mass_chain_out(self%dcl(1), pl))), 'mass rescale (mass_fix)')
  end subroutine block_gpu_fix_mass

  subroutine block_gpu_fetch_state(self)
    class(block_gpu_backend_t), intent(inout) :: self
    call self%gpu_ok(adi_gpu_download_state(self%dev(1)%ptr, self%level(1)%f%q), 'state download')
  end subroutine block_gpu_fetch_state

  !> The block timing table (ADIFLOW_GPU_TIMING; adi_gpu_finalize prints the
  !> per-kernel one itself), then the coarse levels' device grids and the
  !> fine one with its transport (none before start).
  subroutine block_gpu_release(self)
    class(block_gpu_backend_t), intent(inout) :: self
    integer(c_int) :: st
    integer :: l
    if (.not. allocated(self%dev)) return
    if (len_trim(block_timing_report(self%dev(1)%ptr)) > 0) write(output_unit, '(a)') &
      trim(block_timing_report(self%dev(1)%ptr))
    if (allocated(self%wdev)) then
      do l = size(self%wdev), 1, -1
        st = gpu_finalize(self%wdev(l))
      end do
    end if
    do l = self%decomposed_levels(), 2, -1
      st = gpu_finalize(self%dev(l))
    end do
    st = adi_gpu_block_finalize(self%dev(1)%ptr)
    self%dev(1)%ptr = c_null_ptr
  end subroutine block_gpu_release

  !> The device iterates: the host's stage work fields stay untouched.
  logical function host_iterates_no()
    host_iterates_no = .false.
  end function host_iterates_no
end module backend_mpi_gpu
