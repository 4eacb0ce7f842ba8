!> Fortran interface to the C bridge (include/adiflow_bridge.h), plus a
!> check that turns a failed call into a clear error message.
!>
!> A grid on the device is a handle (type(gpu_grid_t)): adi_gpu_init fills
!> gpu%ptr, every per-grid call takes gpu%ptr, gpu_finalize frees the grid
!> and nulls the handle. Several grids (of different sizes) may live at once.
module gpu_bridge
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: output_unit
  use solver_params, only: solver_params_t
  use gpu_settings, only: gpu_settings_t
  use boundary_patches, only: bc_patch_t
  use sys_interface, only: from_c
  implicit none
  private
  public :: gpu_grid_t, gpu_finalize
  public :: adi_gpu_available, adi_gpu_init, adi_gpu_iterate, adi_gpu_residual_norms
  public :: adi_gpu_download_state, adi_gpu_upload_state, adi_gpu_finalize
  public :: adi_gpu_download_residual, adi_gpu_download_forcing
  public :: gpu_warm_up, gpu_warm_done, gpu_release_start, gpu_release_done, adi_gpu_narrow_visible
  public :: adi_gpu_set_timing, gpu_check, gpu_device_info, gpu_timing_report, gpu_settings_problem
  public :: adi_gpu_residual_plane_sums, gpu_error_text
  public :: adi_gpu_mass_plane_sums, adi_gpu_scale_state
  public :: adi_gpu_init_level, adi_gpu_residual, adi_gpu_mg_restrict, adi_gpu_mg_forcing, adi_gpu_mg_prolong
  public :: adi_gpu_init_member, adi_gpu_fill_faces, adi_gpu_copy_halo, adi_gpu_mg_keep_q0
  public :: adi_gpu_pack_halo, adi_gpu_unpack_halo
  public :: gpu_chosen, gpu_settings_error

  !> ADI_KERNELS_SPLIT, ADI_KERNELS_MERGED (include/adiflow_kernel_families.def)
#define ADI_KERNEL_FAMILY(name, value) integer(c_int), parameter, public :: ADI_KERNELS_/**/name = value
#include "adiflow_kernel_families.def"
#undef ADI_KERNEL_FAMILY

  !> One grid on the device (the C side's adi_gpu_grid *); null: none.
  type :: gpu_grid_t
    type(c_ptr) :: ptr = c_null_ptr
  end type gpu_grid_t

  interface
    integer(c_int) function adi_gpu_available(settings) bind(c, name='adi_gpu_available')
      import :: c_int, gpu_settings_t
      type(gpu_settings_t), intent(in) :: settings
    end function
    subroutine adi_gpu_narrow_visible(settings) bind(c, name='adi_gpu_narrow_visible')
      import :: gpu_settings_t
      type(gpu_settings_t), intent(in) :: settings
    end subroutine
    integer(c_int) function c_warm_start(settings, warm) bind(c, name='adi_gpu_warm_start')
      import :: c_int, c_ptr, gpu_settings_t
      type(gpu_settings_t), intent(in) :: settings
      type(c_ptr), intent(out) :: warm
    end function
    integer(c_int) function c_warm_usable(warm, settings) bind(c, name='adi_gpu_warm_usable')
      import :: c_int, c_ptr, gpu_settings_t
      type(c_ptr), value :: warm
      type(gpu_settings_t), intent(in) :: settings
    end function
    integer(c_int) function c_warm_finish(warm) bind(c, name='adi_gpu_warm_finish')
      import :: c_int, c_ptr
      type(c_ptr), value :: warm
    end function
    integer(c_int) function c_release_start(grids, n, release) bind(c, name='adi_gpu_release_start')
      import :: c_int, c_ptr
      type(c_ptr), intent(in) :: grids(*)
      integer(c_int), value :: n
      type(c_ptr), intent(out) :: release
    end function
    integer(c_int) function c_release_finish(release) bind(c, name='adi_gpu_release_finish')
      import :: c_int, c_ptr
      type(c_ptr), value :: release
    end function
    integer(c_int) function c_device_info(settings, buf, n) bind(c, name='adi_gpu_device_info')
      import :: c_int, c_char, gpu_settings_t
      type(gpu_settings_t), intent(in) :: settings
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end function
    integer(c_int) function c_check_settings(settings, buf, n) bind(c, name='adi_gpu_check_settings')
      import :: c_int, c_char, gpu_settings_t
      type(gpu_settings_t), intent(in) :: settings
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end function
    !> npatch, patches, face_maps: the grid's boundary patches and its six
    !> face maps one after another (include/adiflow_bridge.h); npatch = 0
    !> for the box's one type per face
    integer(c_int) function adi_gpu_init(grid, sp, kernels, settings, sf, sc, vol, q, npatch, patches, face_maps) &
        bind(c, name='adi_gpu_init')
      import :: c_int, c_double, c_ptr, solver_params_t, gpu_settings_t, bc_patch_t
      type(c_ptr), intent(out) :: grid
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: kernels
      type(gpu_settings_t), intent(in) :: settings
      real(c_double), intent(in) :: sf(*), sc(*), vol(*), q(*)
      integer(c_int), value :: npatch
      type(bc_patch_t), intent(in) :: patches(*)
      integer(c_int), intent(in) :: face_maps(*)
    end function
    integer(c_int) function adi_gpu_init_level(grid, sp, kernels, settings, sf, sc, vol, q, npatch, patches, &
        face_maps) bind(c, name='adi_gpu_init_level')
      import :: c_int, c_double, c_ptr, solver_params_t, gpu_settings_t, bc_patch_t
      type(c_ptr), intent(out) :: grid
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: kernels
      type(gpu_settings_t), intent(in) :: settings
      real(c_double), intent(in) :: sf(*), sc(*), vol(*), q(*)
      integer(c_int), value :: npatch
      type(bc_patch_t), intent(in) :: patches(*)
      integer(c_int), intent(in) :: face_maps(*)
    end function
    !> a block of a multi-block set (include/adiflow_bridge.h): phys(f) 1
    !> where face f takes the block's own rules, 0 where an interface joins
    !> it; coarse_level 1 for a coarse multigrid level
    integer(c_int) function adi_gpu_init_member(grid, sp, kernels, settings, sf, sc, vol, q, npatch, patches, &
        face_maps, phys, coarse_level) bind(c, name='adi_gpu_init_member')
      import :: c_int, c_double, c_ptr, solver_params_t, gpu_settings_t, bc_patch_t
      type(c_ptr), intent(out) :: grid
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: kernels
      type(gpu_settings_t), intent(in) :: settings
      real(c_double), intent(in) :: sf(*), sc(*), vol(*), q(*)
      integer(c_int), value :: npatch
      type(bc_patch_t), intent(in) :: patches(*)
      integer(c_int), intent(in) :: face_maps(*), phys(6)
      integer(c_int), value :: coarse_level
    end function
    integer(c_int) function adi_gpu_fill_faces(grid, d) bind(c, name='adi_gpu_fill_faces')
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), value :: d
    end function
    integer(c_int) function adi_gpu_copy_halo(dst, src, lo, hi, from_beg, to_beg, t) bind(c, name='adi_gpu_copy_halo')
      import :: c_int, c_ptr
      type(c_ptr), value :: dst, src
      integer(c_int), intent(in) :: lo(3), hi(3), from_beg(3), to_beg(3), t(3)
    end function
    integer(c_int) function adi_gpu_pack_halo(src, lo, hi, from_beg, to_beg, t, buf) bind(c, name='adi_gpu_pack_halo')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: src
      integer(c_int), intent(in) :: lo(3), hi(3), from_beg(3), to_beg(3), t(3)
      real(c_double), intent(inout) :: buf(*)
    end function
    integer(c_int) function adi_gpu_unpack_halo(dst, lo, hi, buf) bind(c, name='adi_gpu_unpack_halo')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: dst
      integer(c_int), intent(in) :: lo(3), hi(3)
      real(c_double), intent(in) :: buf(*)
    end function
    integer(c_int) function adi_gpu_mg_keep_q0(coarse) bind(c, name='adi_gpu_mg_keep_q0')
      import :: c_int, c_ptr
      type(c_ptr), value :: coarse
    end function
    integer(c_int) function adi_gpu_residual(grid, cfl) bind(c, name='adi_gpu_residual')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), value :: cfl
    end function
    integer(c_int) function adi_gpu_mg_restrict(fine, coarse, ratio) bind(c, name='adi_gpu_mg_restrict')
      import :: c_int, c_ptr
      type(c_ptr), value :: fine, coarse
      integer(c_int), intent(in) :: ratio(3)
    end function
    integer(c_int) function adi_gpu_mg_forcing(coarse) bind(c, name='adi_gpu_mg_forcing')
      import :: c_int, c_ptr
      type(c_ptr), value :: coarse
    end function
    integer(c_int) function adi_gpu_mg_prolong(fine, coarse, ratio) bind(c, name='adi_gpu_mg_prolong')
      import :: c_int, c_ptr
      type(c_ptr), value :: fine, coarse
      integer(c_int), intent(in) :: ratio(3)
    end function
    integer(c_int) function adi_gpu_iterate(grid, cfl) bind(c, name='adi_gpu_iterate')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), value :: cfl
    end function
    integer(c_int) function adi_gpu_residual_norms(grid, norms) bind(c, name='adi_gpu_residual_norms')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), intent(out) :: norms(5)
    end function
    integer(c_int) function adi_gpu_residual_plane_sums(grid, plane) bind(c, name='adi_gpu_residual_plane_sums')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), intent(inout) :: plane(*)
    end function
    integer(c_int) function adi_gpu_mass_plane_sums(grid, plane) bind(c, name='adi_gpu_mass_plane_sums')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), intent(inout) :: plane(*)
    end function
    integer(c_int) function adi_gpu_scale_state(grid, s) bind(c, name='adi_gpu_scale_state')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), value :: s
    end function
    integer(c_int) function adi_gpu_download_state(grid, q) bind(c, name='adi_gpu_download_state')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), intent(inout) :: q(*)
    end function
    integer(c_int) function adi_gpu_download_residual(grid, res) bind(c, name='adi_gpu_download_residual')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), intent(inout) :: res(*)
    end function
    integer(c_int) function adi_gpu_download_forcing(grid, forcing) bind(c, name='adi_gpu_download_forcing')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), intent(inout) :: forcing(*)
    end function
    integer(c_int) function adi_gpu_upload_state(grid, q) bind(c, name='adi_gpu_upload_state')
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: grid
      real(c_double), intent(in) :: q(*)
    end function
    integer(c_int) function adi_gpu_set_timing(grid, enabled) bind(c, name='adi_gpu_set_timing')
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), value :: enabled
    end function
    integer(c_int) function c_timing_report(grid, buf, n) bind(c, name='adi_gpu_timing_report')
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: grid
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end function
    integer(c_int) function adi_gpu_finalize(grid) bind(c, name='adi_gpu_finalize')
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
    end function
    subroutine c_error_message(buf, n) bind(c, name='adi_gpu_error_message')
      import :: c_int, c_char
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end subroutine
  end interface

contains

  !> Stop with the bridge's message when a call failed (exit code 4).
  subroutine gpu_check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    character(kind=c_char, len=2048) :: buf
    if (status == 0) return
    call c_error_message(buf, int(len(buf), c_int))
    write(0, '(a)') 'adiflow: error: GPU backend, '//trim(what)//' failed: '//trim(from_c(buf))
    error stop 4, quiet=.true.
  end subroutine gpu_check

  !> The bridge's text of the last failure (for drivers that stop otherwise).
  function gpu_error_text() result(s)
    character(len=2048) :: s
    character(kind=c_char, len=2048) :: buf
    call c_error_message(buf, int(len(buf), c_int))
    s = from_c(buf)
  end function gpu_error_text

  function gpu_device_info(settings) result(s)
    type(gpu_settings_t), intent(in) :: settings
    character(len=512) :: s
    character(kind=c_char, len=512) :: buf
    integer(c_int) :: st
    st = c_device_info(settings, buf, int(len(buf), c_int))
    s = from_c(buf)
  end function gpu_device_info

  !> Whether a run with case key backend = req runs on the GPU: 'cpu' never;
  !> 'gpu' always, or the run stops with the bridge's reason (exit code 4);
  !> 'auto' where a GPU is usable, else on the CPU, saying so. warm: a
  !> warm-up started before (gpu_warm_up), whose thread looks for the GPU.
  logical function gpu_chosen(req, settings, warm) result(gpu)
    character(len=*), intent(in) :: req
    type(gpu_settings_t), intent(in) :: settings
    type(c_ptr), intent(in), optional :: warm
    select case (trim(req))
    case ('cpu')
      gpu = .false.
    case ('gpu')
      if (.not. usable()) call gpu_check(int(1, c_int), 'backend = ''gpu''')
      gpu = .true.
    case default
      gpu = usable()
      if (.not. gpu) write(output_unit, '(a)') &
        'adiflow: backend = auto: no usable GPU found, running on the CPU backend'
    end select
  contains
    logical function usable()
      if (present(warm)) then
        usable = c_warm_usable(warm, settings) /= 0
      else
        usable = adi_gpu_available(settings) /= 0
      end if
    end function usable
  end function gpu_chosen

  !> The GPU looked for and its context made on a thread of their own while
  !> the host sets up the run (include/adiflow_bridge.h, adi_gpu_warm_start);
  !> warm: its handle for gpu_chosen and gpu_warm_done.
  subroutine gpu_warm_up(settings, warm)
    type(gpu_settings_t), intent(in) :: settings
    type(c_ptr), intent(out) :: warm
    call gpu_check(c_warm_start(settings, warm), 'starting the GPU''s context')
  end subroutine gpu_warm_up

  !> Waits for gpu_warm_up's thread (before the first GPU call of the run,
  !> or once the run chose the CPU); the context's error stops the run as
  !> any GPU error does.
  subroutine gpu_warm_done(warm)
    type(c_ptr), intent(inout) :: warm
    call gpu_check(c_warm_finish(warm), 'making the GPU''s context')
    warm = c_null_ptr
  end subroutine gpu_warm_done

  !> The grids, freed in the order given, and then the device's context
  !> released on a thread while the host writes the outputs
  !> (include/adiflow_bridge.h, adi_gpu_release_start). release: its handle
  !> for gpu_release_done, the grids nulled (they are the thread's now); or a
  !> null handle and the grids as they were, where nothing was started.
  subroutine gpu_release_start(grids, release)
    type(gpu_grid_t), intent(inout) :: grids(:)
    type(c_ptr), intent(out) :: release
    type(c_ptr) :: ptrs(size(grids))
    integer :: l
    ptrs = [(grids(l)%ptr, l = 1, size(grids))]
    call gpu_check(c_release_start(ptrs, int(size(ptrs), c_int), release), 'releasing the GPU')
    if (.not. c_associated(release)) return
    do l = 1, size(grids)
      grids(l)%ptr = c_null_ptr
    end do
  end subroutine gpu_release_start

  !> Waits for gpu_release_start's thread; its error stops the run as any
  !> GPU error does.
  subroutine gpu_release_done(release)
    type(c_ptr), intent(inout) :: release
    call gpu_check(c_release_finish(release), 'releasing the GPU')
    release = c_null_ptr
  end subroutine gpu_release_done

  !> What stops a run with case key backend = req from starting: the &gpu
  !> group's problem (gpu_settings_problem) wherever the GPU may run, named
  !> as the group's; '' when nothing does. Checked before any allocation.
  function gpu_settings_error(req, settings) result(s)
    character(len=*), intent(in) :: req
    type(gpu_settings_t), intent(in) :: settings
    character(len=:), allocatable :: s
    s = ''
    if (trim(req) == 'cpu') return
    s = gpu_settings_problem(settings)
    if (len(s) > 0) s = s//' (&gpu group)'
  end function gpu_settings_error

  !> What is wrong with the &gpu settings (an unknown merged step, a
  !> tuning table that cannot be read), or '' when nothing is.
  function gpu_settings_problem(settings) result(s)
    type(gpu_settings_t), intent(in) :: settings
    character(len=:), allocatable :: s
    character(kind=c_char, len=1024) :: buf
    buf = c_null_char
    if (c_check_settings(settings, buf, int(len(buf), c_int)) == 0) then
      s = ''
    else
      s = trim(from_c(buf))
    end if
  end function gpu_settings_problem

  function gpu_timing_report(gpu) result(s)
    type(gpu_grid_t), intent(in) :: gpu
    character(len=8192) :: s
    character(kind=c_char, len=8192) :: buf
    integer(c_int) :: st
    buf = c_null_char
    st = c_timing_report(gpu%ptr, buf, int(len(buf), c_int))
    s = from_c(buf)
  end function gpu_timing_report

  !> adi_gpu_finalize of the grid, which then holds no handle (a second
  !> call finds none: ADI_OK). The bridge's status.
  integer(c_int) function gpu_finalize(gpu) result(st)
    type(gpu_grid_t), intent(inout) :: gpu
    st = adi_gpu_finalize(gpu%ptr)
    gpu%ptr = c_null_ptr
  end function gpu_finalize
end module gpu_bridge
