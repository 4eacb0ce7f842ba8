!> The GPU backend of build/adiflow: every level on the device through the
!> C bridge (fortran/gpu_bridge.f90), the same steps as the CPU reference
!> (fortran/backend_cpu.f90) in the same order. A failed call stops the run
!> with the bridge's message (gpu_check, exit code 4). A grid with boundary
!> patches hands each level its own (f%ps: the fine level's, the coarse
!> levels' coarsened ones), and the device fills every level's ghosts by them.
module backend_gpu
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_null_ptr, c_associated
  use kinds, only: rk
  use backend, only: backend_t
  use boundary_patches, only: patch_set_t, bc_patch_t, joined_face_maps
  use mass_constraint, only: mass_from_plane_sums, mass_scale_factor
  use gpu_settings, only: gpu_settings_t
  use gpu_bridge, only: gpu_grid_t, gpu_check, gpu_finalize, adi_gpu_init, adi_gpu_init_level, adi_gpu_iterate, &
    adi_gpu_residual, adi_gpu_mg_restrict, adi_gpu_mg_forcing, adi_gpu_mg_prolong, adi_gpu_residual_norms, &
    adi_gpu_mass_plane_sums, adi_gpu_scale_state, adi_gpu_download_state, gpu_release_start, gpu_release_done
  implicit none
  private
  public :: gpu_backend_t, patch_lists

  type, extends(backend_t) :: gpu_backend_t
    integer(c_int) :: kernels = 0             !< ADI_KERNELS_SPLIT or _MERGED
    type(gpu_settings_t) :: gs                !< the &gpu group
    type(gpu_grid_t), allocatable :: dev(:)   !< dev(l): level l on the device
    !> the device being released on a thread (gpu_release_early), joined
    !> by finalize; from then on the host holds the final state
    type(c_ptr) :: release = c_null_ptr
    !> the iterations are over and the host holds their final state
    !> (gpu_release_early): no download may follow, one would write the
    !> memory the final restart's thread reads
    logical :: final_on_host = .false.
  contains
    procedure :: start => gpu_start
    procedure :: smooth => gpu_smooth
    procedure :: restrict => gpu_restrict
    procedure :: prolong => gpu_prolong
    procedure :: norms => gpu_norms
    procedure :: fix_mass => gpu_fix_mass
    procedure :: fetch_state => gpu_fetch_state
    procedure, nopass :: host_iterates => host_iterates_no
    procedure :: release_device => gpu_release_early
    procedure :: finalize => gpu_release
  end type gpu_backend_t

contains

  !> Every level to the device, its state as the host holds it now; coarse
  !> levels with their forcing.
  subroutine gpu_start(self)
    class(gpu_backend_t), intent(inout) :: self
    type(bc_patch_t), allocatable :: p(:)
    integer(c_int), allocatable :: maps(:)
    integer :: l
    allocate(self%dev(self%nlev))
    associate (g => self%level(1))
      call patch_lists(g%f%ps, p, maps)
      call gpu_check(adi_gpu_init(self%dev(1)%ptr, g%sp, self%kernels, self%gs, g%f%sf, g%f%sc, g%f%vol, g%f%q, &
        int(size(p), c_int), p, maps), 'initialisation')
    end associate
    do l = 2, self%nlev
      associate (g => self%level(l))
        call patch_lists(g%f%ps, p, maps)
        call gpu_check(adi_gpu_init_level(self%dev(l)%ptr, g%sp, self%kernels, self%gs, g%f%sf, g%f%sc, g%f%vol, &
          g%f%q, int(size(p), c_int), p, maps), 'initialisation of a multigrid level')
      end associate
    end do
  end subroutine gpu_start

  !> A level's boundary patches as the bridge takes them: the patch list and
  !> the six face maps one after another; both empty for the box.
  subroutine patch_lists(ps, p, maps)
    type(patch_set_t), intent(in) :: ps
    type(bc_patch_t), allocatable, intent(out) :: p(:)
    integer(c_int), allocatable, intent(out) :: maps(:)
    if (.not. allocated(ps%p)) then
      allocate(p(0), maps(0))
      return
    end if
    p = ps%p
    maps = joined_face_maps(ps)
  end subroutine patch_lists

  subroutine gpu_smooth(self, l, cfl)
    class(gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    if (self%nlev > 1) then
      call gpu_check(adi_gpu_iterate(self%dev(l)%ptr, cfl), 'multigrid iteration')
    else
      call gpu_check(adi_gpu_iterate(self%dev(l)%ptr, cfl), 'iteration')
    end if
  end subroutine gpu_smooth

  subroutine gpu_restrict(self, l, cfl)
    class(gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    real(rk), intent(in) :: cfl
    associate (fine => self%dev(l)%ptr, coarse => self%dev(l + 1)%ptr)
      call gpu_check(adi_gpu_residual(fine, cfl), 'multigrid residual')
      call gpu_check(adi_gpu_mg_restrict(fine, coarse, self%level(l + 1)%ratio), 'multigrid restriction')
      call gpu_check(adi_gpu_residual(coarse, cfl), 'multigrid coarse residual')
      call gpu_check(adi_gpu_mg_forcing(coarse), 'multigrid forcing')
    end associate
  end subroutine gpu_restrict

  subroutine gpu_prolong(self, l)
    class(gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l
    call gpu_check(adi_gpu_mg_prolong(self%dev(l)%ptr, self%dev(l + 1)%ptr, self%level(l + 1)%ratio), &
      'multigrid prolongation')
  end subroutine gpu_prolong

  subroutine gpu_norms(self, nrm)
    class(gpu_backend_t), intent(inout) :: self
    real(rk), intent(out) :: nrm(5)
    call gpu_check(adi_gpu_residual_norms(self%dev(1)%ptr, nrm), 'residual norms')
  end subroutine gpu_norms

  !> The device's plane sums (the Fortran order of total_mass), the total and
  !> s = M0/M here, the rescale on the device: the steps of the CPU's
  !> rescale_to_mass. Synchronises every iteration.
  subroutine gpu_fix_mass(self)
    class(gpu_backend_t), intent(inout) :: self
    real(rk) :: plane(self%level(1)%lay%nk)
    plane = 0.0_rk
    call gpu_check(adi_gpu_mass_plane_sums(self%dev(1)%ptr, plane), 'mass sums (mass_fix)')
    call gpu_check(adi_gpu_scale_state(self%dev(1)%ptr, mass_scale_factor(self%mass0, mass_from_plane_sums(plane))), &
      'mass rescale (mass_fix)')
  end subroutine gpu_fix_mass

  !> (After gpu_release_early the host holds the final state already.)
  subroutine gpu_fetch_state(self)
    class(gpu_backend_t), intent(inout) :: self
    if (self%final_on_host) return
    call gpu_check(adi_gpu_download_state(self%dev(1)%ptr, self%level(1)%f%q), 'state download')
  end subroutine gpu_fetch_state

  !> The final state to the host (unless it is there), then the levels' grids (coarse ones
  !> first, as gpu_release frees them) and the device's context released on
  !> a thread while the host writes the outputs: the context's teardown
  !> otherwise comes after them, at the process's exit.
  subroutine gpu_release_early(self, state_on_host)
    class(gpu_backend_t), intent(inout) :: self
    logical, intent(in) :: state_on_host
    type(gpu_grid_t), allocatable :: order(:)
    integer :: l
    if (.not. allocated(self%dev) .or. self%final_on_host) return
    if (.not. state_on_host) call self%fetch_state()
    self%final_on_host = .true.
    order = [(self%dev(l), l = self%nlev, 1, -1)]
    call gpu_release_start(order, self%release)
    if (c_associated(self%release)) deallocate(self%dev)
  end subroutine gpu_release_early

  !> The coarse levels' device grids, then the grid's (none before start);
  !> or the wait for gpu_release_early's thread.
  subroutine gpu_release(self)
    class(gpu_backend_t), intent(inout) :: self
    integer :: l
    if (c_associated(self%release)) call gpu_release_done(self%release)
    if (.not. allocated(self%dev)) return
    do l = 2, self%nlev
      call gpu_check(gpu_finalize(self%dev(l)), 'finalisation of a multigrid level')
    end do
    call gpu_check(gpu_finalize(self%dev(1)), 'finalisation')
  end subroutine gpu_release

  !> The device iterates: the host's stage work fields stay untouched.
  logical function host_iterates_no()
    host_iterates_no = .false.
  end function host_iterates_no
end module backend_gpu
