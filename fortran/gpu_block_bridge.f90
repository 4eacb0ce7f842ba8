!> Fortran interface to the multi-GPU block mode of the bridge
!> (include/adiflow_block.h); only build/adiflow_mpi uses it. The block's
!> grid handle is a type(c_ptr) here (pass gpu%ptr of gpu_bridge's
!> gpu_grid_t): adi_gpu_block_init fills it, the per-grid calls of
!> gpu_bridge take it.
module gpu_block_bridge
  use, intrinsic :: iso_c_binding
  use solver_params, only: solver_params_t
  use gpu_settings, only: gpu_settings_t
  use sys_interface, only: from_c
  implicit none
  private
  public :: adi_gpu_block_make_ids, adi_gpu_device_count, adi_gpu_block_ranks_fit, adi_gpu_block_init, &
    adi_gpu_block_init_level
  public :: adi_gpu_block_finalize, block_timing_report, block_transport_text, ADI_BLOCK_ID_BYTES
  public :: adi_gpu_block_init_whole, adi_gpu_block_share_reserve, adi_gpu_block_share_level, adi_gpu_block_take_level
  public :: adi_set_link_open, adi_set_link_send, adi_set_link_recv, adi_set_link_flush, adi_set_link_close

  !> include/adiflow_block.h's: the transport rank 0 chose, then its ids
  integer, parameter :: ADI_BLOCK_ID_BYTES = 264

  interface
    integer(c_int) function adi_gpu_block_make_ids(ids) bind(c, name='adi_gpu_block_make_ids')
      import :: c_int, c_char
      character(kind=c_char) :: ids(*)
    end function
    integer(c_int) function c_block_transport_name(buf, n) bind(c, name='adi_gpu_block_transport_name')
      import :: c_int, c_char
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end function
    integer(c_int) function adi_gpu_device_count() bind(c, name='adi_gpu_device_count')
      import :: c_int
    end function
    integer(c_int) function adi_gpu_block_ranks_fit(ranks_on_node, may_share) bind(c, name='adi_gpu_block_ranks_fit')
      import :: c_int
      integer(c_int), value :: ranks_on_node, may_share
    end function
    integer(c_int) function adi_gpu_block_init(grid, sp, kernels, settings, sf, sc, vol, q, phys, off, nglob, &
        nbr, swp, exact, chunks, rank, nranks, ids, device, timeout_s) bind(c, name='adi_gpu_block_init')
      import :: c_int, c_double, c_char, c_ptr, solver_params_t, gpu_settings_t
      type(c_ptr), intent(out) :: grid
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: kernels
      type(gpu_settings_t), intent(in) :: settings
      real(c_double), intent(in) :: sf(*), sc(*), vol(*), q(*)
      integer(c_int), intent(in) :: phys(6), off(3), nglob(3), nbr(4), swp(4)
      integer(c_int), value :: exact, chunks, rank, nranks
      character(kind=c_char), intent(in) :: ids(*)
      integer(c_int), value :: device
      real(c_double), value :: timeout_s
    end function
    integer(c_int) function adi_gpu_block_init_level(grid, fine, sp, kernels, settings, sf, sc, vol, q, phys, off, &
        nglob, nbr, swp) bind(c, name='adi_gpu_block_init_level')
      import :: c_int, c_ptr, c_double, solver_params_t, gpu_settings_t
      type(c_ptr), intent(out) :: grid
      type(c_ptr), value :: fine
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: kernels
      type(gpu_settings_t), intent(in) :: settings
      real(c_double), intent(in) :: sf(*), sc(*), vol(*), q(*)
      integer(c_int), intent(in) :: phys(6), off(3), nglob(3), nbr(4), swp(4)
    end function
    integer(c_int) function adi_gpu_block_init_whole(grid, fine, sp, kernels, settings, sf, sc, vol, q) &
        bind(c, name='adi_gpu_block_init_whole')
      import :: c_int, c_ptr, c_double, solver_params_t, gpu_settings_t
      type(c_ptr), intent(out) :: grid
      type(c_ptr), value :: fine
      type(solver_params_t), intent(in) :: sp
      integer(c_int), value :: kernels
      type(gpu_settings_t), intent(in) :: settings
      real(c_double), intent(in) :: sf(*), sc(*), vol(*), q(*)
    end function
    integer(c_int) function adi_gpu_block_share_reserve(fine, ni, ext, nranks) bind(c, name='adi_gpu_block_share_reserve')
      import :: c_int, c_ptr
      type(c_ptr), value :: fine
      integer(c_int), value :: ni
      integer(c_int), intent(in) :: ext(*)
      integer(c_int), value :: nranks
    end function
    integer(c_int) function adi_gpu_block_share_level(fine, blk, whole, ext, nranks) &
        bind(c, name='adi_gpu_block_share_level')
      import :: c_int, c_ptr
      type(c_ptr), value :: fine, blk, whole
      integer(c_int), intent(in) :: ext(*)
      integer(c_int), value :: nranks
    end function
    integer(c_int) function adi_gpu_block_take_level(blk, whole, joff, koff) bind(c, name='adi_gpu_block_take_level')
      import :: c_int, c_ptr
      type(c_ptr), value :: blk, whole
      integer(c_int), value :: joff, koff
    end function
    integer(c_int) function c_block_timing_report(grid, buf, n) bind(c, name='adi_gpu_block_timing_report')
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: grid
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end function
    integer(c_int) function adi_gpu_block_finalize(grid) bind(c, name='adi_gpu_block_finalize')
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
    end function
    ! a block set's GPU-to-GPU halos between the ranks (cuda/multi/set_link.cu)
    integer(c_int) function adi_set_link_open(link, ids, rank, nranks, device, timeout_s) &
        bind(c, name='adi_set_link_open')
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), intent(out) :: link
      character(kind=c_char), intent(in) :: ids(*)
      integer(c_int), value :: rank, nranks, device
      real(c_double), value :: timeout_s
    end function
    integer(c_int) function adi_set_link_send(link, src, lo, hi, from_beg, to_beg, t, peer) &
        bind(c, name='adi_set_link_send')
      import :: c_int, c_ptr
      type(c_ptr), value :: link, src
      integer(c_int), intent(in) :: lo(3), hi(3), from_beg(3), to_beg(3), t(3)
      integer(c_int), value :: peer
    end function
    integer(c_int) function adi_set_link_recv(link, dst, lo, hi, peer) bind(c, name='adi_set_link_recv')
      import :: c_int, c_ptr
      type(c_ptr), value :: link, dst
      integer(c_int), intent(in) :: lo(3), hi(3)
      integer(c_int), value :: peer
    end function
    integer(c_int) function adi_set_link_flush(link) bind(c, name='adi_set_link_flush')
      import :: c_int, c_ptr
      type(c_ptr), value :: link
    end function
    integer(c_int) function adi_set_link_close(link) bind(c, name='adi_set_link_close')
      import :: c_int, c_ptr
      type(c_ptr), value :: link
    end function
  end interface

contains

  function block_timing_report(grid) result(s)
    type(c_ptr), intent(in) :: grid
    character(len=4096) :: s
    character(kind=c_char, len=4096) :: buf
    integer(c_int) :: st
    buf = c_null_char
    st = c_block_timing_report(grid, buf, int(len(buf), c_int))
    s = from_c(buf)
  end function block_timing_report

  !> What carries the GPU blocks' halos in this run ("NCCL", "RCCL", "MPI
  !> host-staged"; ADIFLOW_BLOCK_TRANSPORT picks one where the build has
  !> both), for the run's header; "?" for a value the build does not have
  !> (adi_gpu_block_make_ids then stops the run with the reason).
  function block_transport_text() result(s)
    character(len=64) :: s
    character(kind=c_char, len=64) :: buf
    integer(c_int) :: st
    buf = c_null_char
    st = c_block_transport_name(buf, int(len(buf), c_int))
    s = from_c(buf)
  end function block_transport_text
end module gpu_block_bridge
