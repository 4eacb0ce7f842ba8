!> The solver over several blocks (fortran/backend_blocks.f90, the CPU
!> reference) on the GPU: every level of each of this process's blocks a
!> grid on its device (adi_gpu_init_member, include/adiflow_bridge.h),
!> whose own iterations, residuals and multigrid transfers fill none of its
!> ghosts. The set's fill runs on the device in the reference's order and
!> at the points where the reference fills (fill_set with device = .true.):
!> direction by direction, the interfaces' halos copied block to block
!> (adi_gpu_copy_halo over block_halos' boxes), each block's own faces by
!> its rules (adi_gpu_fill_faces), then the edges. Each step between two
!> fills is then the single-grid GPU backend's (fortran/backend_gpu.f90)
!> on each block, which equals the CPU's step on the same filled state, so
!> the strict build reproduces the CPU over the blocks bit for bit.
!>
!> Over MPI ranks (build/adiflow_mpi, one GPU a rank) an interface between
!> two ranks' blocks goes as a message: here through host memory (the
!> sender packs the box on its device, adi_gpu_pack_halo, the receiver
!> unpacks it, adi_gpu_unpack_halo), in the extension adiflow_mpi runs
!> (backend_blocks_ranks_gpu.f90) GPU to GPU.
!>
!> The residual norms and the mass are summed on the host from the
!> device's plane sums in the reference's order (block by block). The
!> host's levels keep the grid, metrics and patches; the state comes down
!> for the outputs and restarts (fetch_state).
module backend_blocks_gpu
  use, intrinsic :: iso_c_binding, only: c_int
  use kinds, only: rk
  use text_util, only: int_text
  use backend_blocks, only: blocks_backend_t
  use backend_gpu, only: patch_lists
  use grid_blocks, only: face_range_t
  use block_halos, only: MAX_HALO_BOXES
  use boundary_patches, only: bc_patch_t
  use mass_constraint, only: mass_from_plane_sums
  use gpu_settings, only: gpu_settings_t
  use gpu_bridge, only: gpu_grid_t, gpu_check, gpu_finalize, adi_gpu_init_member, adi_gpu_iterate, &
    adi_gpu_residual, adi_gpu_mg_restrict, adi_gpu_mg_forcing, adi_gpu_mg_prolong, adi_gpu_mg_keep_q0, &
    adi_gpu_residual_plane_sums, adi_gpu_mass_plane_sums, adi_gpu_scale_state, adi_gpu_download_state, &
    adi_gpu_fill_faces, adi_gpu_copy_halo, adi_gpu_pack_halo, adi_gpu_unpack_halo
  implicit none
  private
  public :: blocks_gpu_backend_t

  type, extends(blocks_backend_t) :: blocks_gpu_backend_t
    integer(c_int) :: kernels = 0              !< ADI_KERNELS_SPLIT or _MERGED
    type(gpu_settings_t) :: gs                 !< the &gpu group (its device: this process's GPU)
    type(gpu_grid_t), allocatable :: dev(:,:)  !< dev(l, b): level l of block b on the device (this process's blocks)
  contains
    procedure :: start => blocks_gpu_start
    procedure :: smooth => blocks_gpu_smooth
    procedure :: restrict => blocks_gpu_restrict
    procedure :: prolong => blocks_gpu_prolong
    procedure :: residual_sums => gpu_residual_sums
    procedure :: block_mass => gpu_block_mass
    procedure :: scale_block => gpu_scale_block
    procedure :: download_mine => gpu_download_mine
    procedure :: finalize => blocks_gpu_release
    procedure :: copy_halo => gpu_copy_halo
    procedure :: pack_halo => gpu_pack_halo
    procedure :: unpack_halo => gpu_unpack_halo
    procedure :: own_faces => gpu_own_faces
  end type blocks_gpu_backend_t

contains

  !> Every level of each of this process's blocks to the device, its state
  !> as the host holds it now, with its patches and which faces are its own.
  subroutine blocks_gpu_start(self)
    class(blocks_gpu_backend_t), intent(inout) :: self
    type(bc_patch_t), allocatable :: p(:)
    integer(c_int), allocatable :: maps(:)
    integer(c_int) :: phys(6)
    integer :: b, l
    allocate(self%dev(self%nlev, size(self%b)))
    do b = 1, size(self%b)
      if (.not. self%mine(b)) cycle
      phys = merge(1_c_int, 0_c_int, self%b(b)%phys)
      do l = 1, self%nlev
        associate (g => self%b(b)%level(l))
          call patch_lists(g%f%ps, p, maps)
          call gpu_check(adi_gpu_init_member(self%dev(l, b)%ptr, g%sp, self%kernels, self%gs, g%f%sf, g%f%sc, &
            g%f%vol, g%f%q, int(size(p), c_int), p, maps, phys, merge(1_c_int, 0_c_int, l > 1)), &
            'initialisation of '//trim(self%label(b))//level_text(l))
        end associate
      end do
    end do
  end subroutine blocks_gpu_start

  !> ', multigrid level l' for a coarse level, '' for the grid
  function level_text(l) result(s)
    integer, intent(in) :: l
    character(len=:), allocatable :: s
    s = ''
    if (l > 1) s = ', multigrid level '//int_text(l)
  end function level_text

  !> The reference's copy_halo on the device (device), or on the host.
  subroutine gpu_copy_halo(self, l, q, into_a, d, device)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l, q, d
    logical, intent(in) :: into_a, device
    type(face_range_t) :: r, s
    integer :: nbox, lo(3, MAX_HALO_BOXES), hi(3, MAX_HALO_BOXES), t(3), m, rb, sb
    if (.not. device) then
      call self%blocks_backend_t%copy_halo(l, q, into_a, d, device)
      return
    end if
    call self%halo_boxes(l, q, into_a, d, rb, sb, nbox, lo, hi, r, s, t)
    do m = 1, nbox
      call gpu_check(adi_gpu_copy_halo(self%dev(l, rb)%ptr, self%dev(l, sb)%ptr, lo(:, m), hi(:, m), r%beg, s%beg, t), &
        'halo copy into '//trim(self%label(rb))//' from '//trim(self%label(sb)))
    end do
  end subroutine gpu_copy_halo

  !> The reference's pack_halo from the device's state (device), or the host's.
  subroutine gpu_pack_halo(self, l, sb, lo, hi, r, s, t, device, buf)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l, sb, lo(3), hi(3), t(3)
    type(face_range_t), intent(in) :: r, s
    logical, intent(in) :: device
    real(rk), intent(inout) :: buf(:)
    if (.not. device) then
      call self%blocks_backend_t%pack_halo(l, sb, lo, hi, r, s, t, device, buf)
      return
    end if
    call gpu_check(adi_gpu_pack_halo(self%dev(l, sb)%ptr, lo, hi, r%beg, s%beg, t, buf), &
      'halo pack from '//trim(self%label(sb)))
  end subroutine gpu_pack_halo

  !> The reference's unpack_halo into the device's state (device), or the host's.
  subroutine gpu_unpack_halo(self, l, rb, lo, hi, device, buf)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l, rb, lo(3), hi(3)
    logical, intent(in) :: device
    real(rk), intent(in) :: buf(:)
    if (.not. device) then
      call self%blocks_backend_t%unpack_halo(l, rb, lo, hi, device, buf)
      return
    end if
    call gpu_check(adi_gpu_unpack_halo(self%dev(l, rb)%ptr, lo, hi, buf), 'halo unpack into '//trim(self%label(rb)))
  end subroutine gpu_unpack_halo

  !> The reference's own_faces on the device (device), or on the host.
  subroutine gpu_own_faces(self, l, b, d, device)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l, b, d
    logical, intent(in) :: device
    if (.not. device) then
      call self%blocks_backend_t%own_faces(l, b, d, device)
      return
    end if
    call gpu_check(adi_gpu_fill_faces(self%dev(l, b)%ptr, int(d, c_int)), 'boundary fill of '//trim(self%label(b)))
  end subroutine gpu_own_faces

  !> One iteration of level l over the set: the set's fill, then each
  !> block's iteration (residual, its forcing on a coarse level, LU-ADI).
  subroutine blocks_gpu_smooth(self, l, cfl)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    integer :: b
    call self%state_changes()
    call self%fill_set(l, device=.true.)
    do b = 1, size(self%b)
      if (.not. self%mine(b)) cycle
      call gpu_check(adi_gpu_iterate(self%dev(l, b)%ptr, cfl), 'iteration of '//trim(self%label(b)))
    end do
  end subroutine blocks_gpu_smooth

  !> The reference's blocks_restrict: level l's residual from the set's
  !> fill, the restriction block by block, the set's fill of level l+1 kept
  !> as q0, then level l+1's residual from its fill and the forcing.
  subroutine blocks_gpu_restrict(self, l, cfl)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    integer :: b
    call self%state_changes()
    call self%fill_set(l, device=.true.)
    do b = 1, size(self%b)
      if (.not. self%mine(b)) cycle
      call gpu_check(adi_gpu_residual(self%dev(l, b)%ptr, cfl), 'multigrid residual')
      call gpu_check(adi_gpu_mg_restrict(self%dev(l, b)%ptr, self%dev(l + 1, b)%ptr, self%b(b)%level(l + 1)%ratio), &
        'multigrid restriction')
    end do
    call self%fill_set(l + 1, device=.true.)
    do b = 1, size(self%b)
      if (self%mine(b)) call gpu_check(adi_gpu_mg_keep_q0(self%dev(l + 1, b)%ptr), 'multigrid restriction (q0)')
    end do
    call self%fill_set(l + 1, device=.true.)
    do b = 1, size(self%b)
      if (.not. self%mine(b)) cycle
      call gpu_check(adi_gpu_residual(self%dev(l + 1, b)%ptr, cfl), 'multigrid coarse residual')
      call gpu_check(adi_gpu_mg_forcing(self%dev(l + 1, b)%ptr), 'multigrid forcing')
    end do
  end subroutine blocks_gpu_restrict

  !> The reference's blocks_prolong: level l+1's fill, then the correction
  !> block by block.
  subroutine blocks_gpu_prolong(self, l)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    integer :: b
    call self%state_changes()
    call self%fill_set(l + 1, device=.true.)
    do b = 1, size(self%b)
      if (.not. self%mine(b)) cycle
      call gpu_check(adi_gpu_mg_prolong(self%dev(l, b)%ptr, self%dev(l + 1, b)%ptr, self%b(b)%level(l + 1)%ratio), &
        'multigrid prolongation')
    end do
  end subroutine blocks_gpu_prolong

  !> The reference's host_residual_sums from the device's plane sums.
  function gpu_residual_sums(self, b) result(v)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: b
    real(rk) :: v(5)
    real(rk) :: plane(5, self%b(b)%level(1)%lay%nk)
    plane = 0.0_rk
    call gpu_check(adi_gpu_residual_plane_sums(self%dev(1, b)%ptr, plane), 'residual norms')
    v = sum(plane, dim=2)
  end function gpu_residual_sums

  !> The reference's host_block_mass from the device's plane sums (unit:
  !> the grid's, on the host).
  real(rk) function gpu_block_mass(self, b, unit)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: b
    logical, intent(in) :: unit
    real(rk) :: plane(self%b(b)%level(1)%lay%nk)
    if (unit .or. .not. allocated(self%dev)) then
      gpu_block_mass = self%blocks_backend_t%block_mass(b, unit)
      return
    end if
    plane = 0.0_rk
    call gpu_check(adi_gpu_mass_plane_sums(self%dev(1, b)%ptr, plane), 'mass sums (mass_fix)')
    gpu_block_mass = mass_from_plane_sums(plane)
  end function gpu_block_mass

  subroutine gpu_scale_block(self, b, s)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: b
    real(rk), intent(in) :: s
    call gpu_check(adi_gpu_scale_state(self%dev(1, b)%ptr, s), 'mass rescale (mass_fix)')
  end subroutine gpu_scale_block

  !> This process's blocks' level-1 state from the device (none before start).
  subroutine gpu_download_mine(self)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer :: b
    if (.not. allocated(self%dev)) return
    do b = 1, size(self%b)
      if (self%mine(b)) call gpu_check(adi_gpu_download_state(self%dev(1, b)%ptr, self%b(b)%level(1)%f%q), &
        'state download')
    end do
  end subroutine gpu_download_mine

  !> Every block's device grids, coarse levels first (none before start).
  subroutine blocks_gpu_release(self)
    class(blocks_gpu_backend_t), intent(inout) :: self
    integer :: b, l
    if (.not. allocated(self%dev)) return
    do b = 1, size(self%b)
      do l = self%nlev, 1, -1
        call gpu_check(gpu_finalize(self%dev(l, b)), 'finalisation of '//trim(self%label(b)))
      end do
    end do
  end subroutine blocks_gpu_release
end module backend_blocks_gpu
