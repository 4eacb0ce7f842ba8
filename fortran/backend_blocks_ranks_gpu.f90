!> The GPU over blocks (fortran/backend_blocks_gpu.f90) with its blocks
!> spread over the MPI ranks of build/adiflow_mpi, one GPU a rank: an
!> interface between two ranks' blocks goes GPU to GPU. The halo steps of
!> a group queue their boxes on a link (cuda/multi/set_link.cu: packed on
!> the sending GPU, carried by the multi-GPU block mode's transport, NCCL
!> where the build has it, unpacked on the receiving GPU), and the group's
!> end flushes it; the host does not wait. The boxes, their order and their
!> bytes are those of the host-staged messages (backend_blocks' send_halo,
!> recv_halo), so the states are the same bit for bit; fills of the host's
!> state (before the start, and rank 0's outputs) keep the host path.
module backend_blocks_ranks_gpu
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_ptr, c_null_ptr, c_associated
  use mpi_f08
  use kinds, only: rk
  use text_util, only: int_text
  use backend_blocks_gpu, only: blocks_gpu_backend_t
  use grid_blocks, only: face_range_t
  use gpu_bridge, only: gpu_error_text
  use gpu_block_bridge, only: adi_gpu_block_make_ids, ADI_BLOCK_ID_BYTES, block_transport_text, adi_set_link_open, &
    adi_set_link_send, adi_set_link_recv, adi_set_link_flush, adi_set_link_close
  use mpi_decomp, only: mpi_fail
  implicit none
  private
  public :: blocks_ranks_gpu_backend_t

  type, extends(blocks_gpu_backend_t) :: blocks_ranks_gpu_backend_t
    type(c_ptr) :: link = c_null_ptr   !< the GPU-to-GPU halos (null before start)
  contains
    procedure :: start => ranks_gpu_start
    procedure :: send_halo => link_send
    procedure :: recv_halo => link_recv
    procedure :: end_halos => link_end
    procedure :: where_text => ranks_gpu_where
    procedure :: finalize => ranks_gpu_release
  end type blocks_ranks_gpu_backend_t

contains

  !> A failed link call stops every rank (MPI_Abort, exit code 4) with its message.
  subroutine link_ok(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    integer :: rank
    if (status == 0) return
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call mpi_fail('rank '//int_text(rank)//', GPU halos between the ranks, '//what//' failed: '// &
      trim(gpu_error_text()), 4)
  end subroutine link_ok

  !> The blocks to their devices (the parent's start), then the link: rank
  !> 0's transport ids to every rank, opened by all together.
  subroutine ranks_gpu_start(self)
    class(blocks_ranks_gpu_backend_t), intent(inout) :: self
    character(kind=c_char) :: ids(ADI_BLOCK_ID_BYTES)
    character(len=32) :: v
    real(rk) :: tmax
    integer :: st, ln
    call self%blocks_gpu_backend_t%start()
    ids = achar(0)
    if (self%ranks%rank == 0) call link_ok(adi_gpu_block_make_ids(ids), 'making the transport''s ids')
    call MPI_Bcast(ids, ADI_BLOCK_ID_BYTES, MPI_CHARACTER, 0, MPI_COMM_WORLD)
    tmax = 120.0_rk
    call get_environment_variable('ADIFLOW_MPI_STARTUP_TIMEOUT', v, ln, st)
    if (st == 0 .and. ln > 0) read(v, *, iostat=st) tmax
    call link_ok(adi_set_link_open(self%link, ids, int(self%ranks%rank, c_int), int(self%ranks%nranks, c_int), &
      int(self%gs%device, c_int), real(tmax, c_double)), 'opening the link (GPU '//int_text(self%gs%device)//')')
  end subroutine ranks_gpu_start

  !> A box for rank peer from block sb's device cells (device), else the host path.
  subroutine link_send(self, l, sb, lo, hi, r, s, t, device, peer)
    class(blocks_ranks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l, sb, lo(3), hi(3), t(3), peer
    type(face_range_t), intent(in) :: r, s
    logical, intent(in) :: device
    if (.not. (device .and. c_associated(self%link))) then
      call self%blocks_gpu_backend_t%send_halo(l, sb, lo, hi, r, s, t, device, peer)
      return
    end if
    call link_ok(adi_set_link_send(self%link, self%dev(l, sb)%ptr, int(lo, c_int), int(hi, c_int), int(r%beg, c_int), &
      int(s%beg, c_int), int(t, c_int), int(peer, c_int)), 'a send from '//trim(self%label(sb)))
  end subroutine link_send

  !> A box of block rb's device cells from rank peer (device), else the host path.
  subroutine link_recv(self, l, rb, lo, hi, device, peer)
    class(blocks_ranks_gpu_backend_t), intent(inout) :: self
    integer, intent(in) :: l, rb, lo(3), hi(3), peer
    logical, intent(in) :: device
    if (.not. (device .and. c_associated(self%link))) then
      call self%blocks_gpu_backend_t%recv_halo(l, rb, lo, hi, device, peer)
      return
    end if
    call link_ok(adi_set_link_recv(self%link, self%dev(l, rb)%ptr, int(lo, c_int), int(hi, c_int), int(peer, c_int)), &
      'a receive into '//trim(self%label(rb)))
  end subroutine link_recv

  !> The group's end: the host path's messages, then the link's.
  subroutine link_end(self, device)
    class(blocks_ranks_gpu_backend_t), intent(inout) :: self
    logical, intent(in) :: device
    call self%blocks_gpu_backend_t%end_halos(device)
    if (device .and. c_associated(self%link)) call link_ok(adi_set_link_flush(self%link), 'a group of halos')
  end subroutine link_end

  !> The parent's list of the ranks' blocks, and what carries the halos.
  function ranks_gpu_where(self) result(s)
    class(blocks_ranks_gpu_backend_t), intent(in) :: self
    character(len=:), allocatable :: s
    s = self%blocks_gpu_backend_t%where_text()
    if (len(s) > 0) s = s//'; halos between the ranks GPU to GPU ('//trim(block_transport_text())//')'
  end function ranks_gpu_where

  !> The link, then the blocks' device grids.
  subroutine ranks_gpu_release(self)
    class(blocks_ranks_gpu_backend_t), intent(inout) :: self
    if (c_associated(self%link)) call link_ok(adi_set_link_close(self%link), 'closing the link')
    self%link = c_null_ptr
    call self%blocks_gpu_backend_t%finalize()
  end subroutine ranks_gpu_release
end module backend_blocks_ranks_gpu
