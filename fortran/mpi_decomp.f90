!> Block decomposition of the grid over MPI ranks in j and k (i stays whole),
!> host halo exchange, the boundary fill of a block, the cross-block LU-ADI
!> (exact: pipelined sweeps, bit-identical to the single-domain solver;
!> decoupled: every block sweeps alone), residual norms, gathers and the
!> per-rank outputs (block .vts + .pvts index, per-rank restart + header).
!>
!> Only build/adiflow_mpi uses this module; the serial modules are called
!> unchanged on the local block layout (ni, njl, nkl) with the usual two
!> ghost layers. Rank numbering: rank = pj + npj*pk.
!>
!> Why the exact mode is bit-identical: after block_boundary_conditions every
!> local array equals the single-domain array over the block's window,
!> ghosts (edges, corners) included, because the fill runs in the serial
!> order i, j, k and each direction's internal faces receive the neighbour's
!> rows after the neighbour's fill of the earlier directions. Metrics are
!> computed from the global nodes over the window (pointwise, so identical).
!> Boundary patches: a block's face maps reach into its halo rows
!> (fortran/block_patches.f90), so its ghosts take the kinds and normals of
!> the whole grid's fill.
!> Every stage is pointwise on those inputs, except ADI stage 2 (reads
!> lam+- of the cell across the face: exchanged) and stage 4 (the sweeps:
!> pipelined across ranks with the very same operations in the same order).
module mpi_decomp
  use mpi_f08
  use, intrinsic :: iso_fortran_env, only: output_unit, error_unit, int64
  use kinds, only: rk, ik8, ng, nvar
  use grid_layout, only: layout_t, make_layout
  use solver_params
  use flow_fields, only: fields_t
  use ghost_fill, only: fill_ghosts_direction
  use output_vtk, only: write_vts, component_attributes
  use output_fields, only: out_vars
  use output_file, only: out_file_t, out_open, out_check, out_commit
  use residual_norms, only: add_residual_plane_sums, norms_from_plane_sums
  use mass_constraint, only: add_mass_plane_sums, mass_from_plane_sums, rescale_to_mass
  use lu_adi, only: WK_LAMP, WK_LAMN, WK_LAMV, WK_FLMP, WK_FLMN, WK_RDIAG, WK_WCH, adi4x_fwd_first, adi4x_fwd, adi4x_bwd
  use omp_policy, only: team_for
  implicit none
  private
  public :: decomp_t, choose_process_grid, decomp_setup, block_range
  public :: halo_exchange, block_boundary_conditions
  public :: adi_stage4_pipelined, mpi_residual_norms, mpi_total_mass, mpi_mass_fix
  public :: mpi_mass_chain_in, mpi_mass_chain_out, plane_chain_in, plane_chain_out, TAG_NORMS
  public :: gather_interior, gather_k_planes, write_block_vts, write_pvts, mpi_fail, mpi_check, any_rank
  public :: node_place

  integer, parameter :: eig_of_char(5) = [1, 1, 1, 2, 3]
  integer, parameter :: TAG_NORMS = 3000, TAG_MASS = 3001   !< the plane-sum chains along j

  type :: decomp_t
    type(MPI_Comm) :: comm
    integer :: rank = 0, nranks = 1, npj = 1, npk = 1, pj = 0, pk = 0
    integer :: nglob(3) = 0, nloc(3) = 0, off(3) = 0   !< global index = local + off
    integer :: nbr(2, 3)                 !< halo neighbours (periodic wrap included)
    integer :: swp(2, 3)                 !< sweep neighbours (no wrap: the ADI never wraps)
    logical :: phys(6) = .true.          !< face gets the physical boundary fill
    logical :: exact = .true.
    integer :: chunks = 4                !< pipeline chunks of lines in exact mode
  end type decomp_t

contains

  !> Stop every rank: the message once (from the caller), then MPI_Abort.
  subroutine mpi_fail(msg, code)
    character(len=*), intent(in) :: msg
    integer, intent(in) :: code
    write(error_unit, '(a)') 'adiflow_mpi: error: '//trim(msg)
    flush(error_unit)
    call MPI_Abort(MPI_COMM_WORLD, code)
  end subroutine mpi_fail

  !> ierror of an MPI call: anything but MPI_SUCCESS stops the job naming
  !> the call (what) and MPI's reason, with exit code 1 (no documented code
  !> fits a failing MPI library; with MPI's default error handler the call
  !> itself aborts the job first).
  subroutine mpi_check(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    character(len=MPI_MAX_ERROR_STRING) :: es
    integer :: n, e
    if (ierr == MPI_SUCCESS) return
    es = ''
    call MPI_Error_string(ierr, es, n, e)
    call mpi_fail(what//' failed: '//trim(es), 1)
  end subroutine mpi_check

  !> This rank's place on its node: its node-local rank (one GPU a rank:
  !> the GPU it takes) and the number of ranks on the node.
  subroutine node_place(local_rank, on_node)
    integer, intent(out) :: local_rank, on_node
    type(MPI_Comm) :: node
    integer :: rank
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node)
    call MPI_Comm_rank(node, local_rank)
    call MPI_Comm_size(node, on_node)
    call MPI_Comm_free(node)
  end subroutine node_place

  !> .true. on every rank when flag is .true. on any rank.
  logical function any_rank(comm, flag)
    type(MPI_Comm), intent(in) :: comm
    logical, intent(in) :: flag
    call MPI_Allreduce(flag, any_rank, 1, MPI_LOGICAL, MPI_LOR, comm)
  end function any_rank

  !> n cells over np parts: size and offset of part p (0-based).
  pure subroutine split_range(n, np, p, cnt, off)
    integer, intent(in) :: n, np, p
    integer, intent(out) :: cnt, off
    cnt = n/np + merge(1, 0, p < mod(n, np))
    off = p*(n/np) + min(p, mod(n, np))
  end subroutine split_range

  !> Local sizes and offsets of rank r's block.
  pure subroutine block_range(dc, r, nl, of)
    type(decomp_t), intent(in) :: dc
    integer, intent(in) :: r
    integer, intent(out) :: nl(3), of(3)
    nl(1) = dc%nglob(1); of(1) = 0
    call split_range(dc%nglob(2), dc%npj, mod(r, dc%npj), nl(2), of(2))
    call split_range(dc%nglob(3), dc%npk, r/dc%npj, nl(3), of(3))
  end subroutine block_range

  !> npj x npk for nranks: the requested one (0 = automatic) or the one
  !> with the smallest total interface area that keeps >= 2 cells per block.
  !> ok = .false. with msg when none fits.
  subroutine choose_process_grid(nranks, nj, nk, ni, req_j, req_k, npj, npk, ok, msg)
    integer, intent(in) :: nranks, nj, nk, ni, req_j, req_k
    integer, intent(out) :: npj, npk
    logical, intent(out) :: ok
    character(len=*), intent(out) :: msg
    integer :: a, b
    real(rk) :: cost, best
    ok = .false.; msg = ''
    npj = 0; npk = 0
    best = huge(1.0_rk)
    do a = 1, nranks
      if (mod(nranks, a) /= 0) cycle
      b = nranks/a
      if (req_j > 0 .and. a /= req_j) cycle
      if (req_k > 0 .and. b /= req_k) cycle
      ! a split direction's blocks hold the halo's depth; a whole one is the
      ! grid's (a quasi-2D grid's one cell in k included)
      if ((a > 1 .and. nj/a < ng) .or. (b > 1 .and. nk/b < ng)) cycle
      cost = real(a - 1, rk)*real(nk, rk)*real(ni, rk) + real(b - 1, rk)*real(nj, rk)*real(ni, rk)
      if (cost < best) then
        best = cost; npj = a; npk = b
      end if
    end do
    if (npj > 0) then
      ok = .true.
    else
      write(msg, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'no process grid npj x npk fits ', nranks, &
        ' ranks (requested npj = ', req_j, ', npk = ', req_k, ', 0 = automatic) on nj = ', nj, &
        ', nk = ', nk, ': npj*npk must equal the number of ranks and every block needs >= 2 cells in each direction '// &
        'that is split'
    end if
  end subroutine choose_process_grid

  subroutine decomp_setup(dc, comm, nglob, npj, npk, bc)
    type(decomp_t), intent(inout) :: dc
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: nglob(3), npj, npk, bc(6)
    integer :: d, p(3), np(3), q
    dc%comm = comm
    call MPI_Comm_rank(comm, dc%rank)
    call MPI_Comm_size(comm, dc%nranks)
    dc%npj = npj; dc%npk = npk
    dc%pj = mod(dc%rank, npj); dc%pk = dc%rank/npj
    dc%nglob = nglob
    call block_range(dc, dc%rank, dc%nloc, dc%off)
    p = [0, dc%pj, dc%pk]
    np = [1, npj, npk]
    do d = 1, 3
      dc%nbr(:, d) = MPI_PROC_NULL
      dc%swp(:, d) = MPI_PROC_NULL
      dc%phys(2*d-1:2*d) = .true.
      if (d == 1) cycle
      if (p(d) > 0) then
        dc%swp(1, d) = rank_of(d, p(d) - 1)
      end if
      if (p(d) < np(d) - 1) then
        dc%swp(2, d) = rank_of(d, p(d) + 1)
      end if
      dc%nbr(:, d) = dc%swp(:, d)
      ! the wrap goes through the exchange too (to self when np(d) = 1); a
      ! whole direction of fewer cells than the halo's depth (a quasi-2D
      ! grid's one cell in k) cannot send ng rows, and its own periodic fill
      ! (the serial one) does it
      if (bc(2*d) == BC_PERIODIC .and. (np(d) > 1 .or. nglob(d) >= ng)) then
        if (p(d) == 0) dc%nbr(1, d) = rank_of(d, np(d) - 1)
        if (p(d) == np(d) - 1) dc%nbr(2, d) = rank_of(d, 0)
      end if
      do q = 1, 2
        dc%phys(2*d-2+q) = dc%nbr(q, d) == MPI_PROC_NULL
      end do
    end do
  contains
    integer function rank_of(dd, pp)
      integer, intent(in) :: dd, pp
      if (dd == 2) then
        rank_of = pp + npj*dc%pk
      else
        rank_of = dc%pj + npj*pp
      end if
    end function rank_of
  end subroutine decomp_setup

  !> Exchange nl layers of fields m1..m2 of a across the faces of direction d
  !> (2 or 3) with the neighbours lo/hi (MPI_PROC_NULL: none). The whole
  !> cross-section is sent, ghosts and padding included.
  subroutine halo_exchange(dc, lay, a, m1, m2, d, nl, lo, hi)
    type(decomp_t), intent(in) :: dc
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: a(-1:,-1:,-1:,:)
    integer, intent(in) :: m1, m2, d, nl, lo, hi
    real(rk), allocatable :: sl(:), sh(:), rl(:), rh(:)
    type(MPI_Request) :: req(4)
    integer :: n, cnt
    n = merge(lay%nj, lay%nk, d == 2)
    if (d == 2) then
      cnt = size(a, 1)*nl*size(a, 3)*(m2 - m1 + 1)
    else
      cnt = size(a, 1)*size(a, 2)*nl*(m2 - m1 + 1)
    end if
    allocate(sl(cnt), sh(cnt), rl(cnt), rh(cnt))
    call MPI_Irecv(rl, cnt, MPI_DOUBLE_PRECISION, lo, 1, dc%comm, req(1))
    call MPI_Irecv(rh, cnt, MPI_DOUBLE_PRECISION, hi, 2, dc%comm, req(2))
    if (d == 2) then
      sl = reshape(a(:, 1:nl, :, m1:m2), [cnt])
      sh = reshape(a(:, n-nl+1:n, :, m1:m2), [cnt])
    else
      sl = reshape(a(:, :, 1:nl, m1:m2), [cnt])
      sh = reshape(a(:, :, n-nl+1:n, m1:m2), [cnt])
    end if
    ! tag 1: travels upwards (lands in the receiver's low ghosts); 2: downwards
    call MPI_Isend(sh, cnt, MPI_DOUBLE_PRECISION, hi, 1, dc%comm, req(3))
    call MPI_Isend(sl, cnt, MPI_DOUBLE_PRECISION, lo, 2, dc%comm, req(4))
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE)
    if (d == 2) then
      if (lo /= MPI_PROC_NULL) a(:, 1-nl:0, :, m1:m2) = &
        reshape(rl, [size(a, 1), nl, size(a, 3), m2 - m1 + 1])
      if (hi /= MPI_PROC_NULL) a(:, n+1:n+nl, :, m1:m2) = &
        reshape(rh, [size(a, 1), nl, size(a, 3), m2 - m1 + 1])
    else
      if (lo /= MPI_PROC_NULL) a(:, :, 1-nl:0, m1:m2) = &
        reshape(rl, [size(a, 1), size(a, 2), nl, m2 - m1 + 1])
      if (hi /= MPI_PROC_NULL) a(:, :, n+1:n+nl, m1:m2) = &
        reshape(rh, [size(a, 1), size(a, 2), nl, m2 - m1 + 1])
    end if
  end subroutine halo_exchange

  !> The boundary fill of a block's state f%q, in the serial order i, j, k:
  !> physical faces get the serial fill (same arithmetic, the box's types
  !> or the block's patches f%ps: fortran/ghost_fill.f90), internal and
  !> periodic faces the neighbour's rows (after its fill of the earlier
  !> directions, so edge and corner ghosts match the serial ones).
  subroutine block_boundary_conditions(dc, sp, lay, f)
    type(decomp_t), intent(in) :: dc
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    type(fields_t), intent(inout) :: f
    integer :: d
    do d = 1, 3
      if (d >= 2) call halo_exchange(dc, lay, f%q, 1, nvar, d, ng, dc%nbr(1, d), dc%nbr(2, d))
      call fill_ghosts_direction(sp, lay, d, f, dc%phys)
    end do
  end subroutine block_boundary_conditions

  !> ADI stage 4 for d = 2 or 3 across ranks (NAS LU-style wavefront): the
  !> lines are cut into chunks across the sweep direction; for each chunk a
  !> rank waits for the last forward row of the rank below, sweeps, passes
  !> its last row up; then the backward sweep runs downwards the same way.
  !> The operations are the serial ones, in the same order along each line
  !> (lu_adi's adi4x_* recurrences, in either implicit precision; in single
  !> mode the rows passed on hold real(sk) values promoted).
  subroutine adi_stage4_pipelined(dc, sp, lay, d, wk)
    type(decomp_t), intent(in) :: dc
    type(solver_params_t), intent(in) :: sp
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: d
    real(rk), intent(inout) :: wk(-1:,-1:,-1:,:)
    integer :: lo, hi, nl, ncr, nch, c, xa, xb, cnt, maxcnt, i, x, a, m, r, s, a0, ni, pos
    real(rk), allocatable :: sbuf(:,:), rbuf(:)
    type(MPI_Request), allocatable :: req(:)
    integer :: nreq
    logical :: single
    single = sp%implicit_single == IMPLICIT_SINGLE
    ni = lay%ni
    lo = dc%swp(1, d); hi = dc%swp(2, d)
    nl = merge(lay%nj, lay%nk, d == 2)
    ncr = merge(lay%nk, lay%nj, d == 2)
    nch = max(1, min(dc%chunks, ncr))
    maxcnt = ni*5*(ncr/nch + 1)
    allocate(sbuf(maxcnt, 2*nch), rbuf(maxcnt), req(2*nch))
    nreq = 0

    ! forward
    do c = 1, nch
      call chunk(c, xa, xb)
      cnt = ni*5*(xb - xa + 1)
      if (lo /= MPI_PROC_NULL) then
        call MPI_Recv(rbuf, cnt, MPI_DOUBLE_PRECISION, lo, 1000 + c, dc%comm, MPI_STATUS_IGNORE)
        pos = 0
        do x = xa, xb
          do m = 1, 5
            r = WK_WCH + m
            if (d == 2) then
              wk(1:ni, 0, x, r) = rbuf(pos+1:pos+ni)
            else
              wk(1:ni, x, 0, r) = rbuf(pos+1:pos+ni)
            end if
            pos = pos + ni
          end do
        end do
      end if
      !$omp parallel do num_threads(team_for(lay)) private(m, r, s, a, i, a0)
      do x = xa, xb
        do m = 1, 5
          r = WK_WCH + m; s = eig_of_char(m)
          a0 = 2
          if (lo /= MPI_PROC_NULL) a0 = 1
          if (lo == MPI_PROC_NULL) then
            if (d == 2) then
              do i = 1, ni
                wk(i,1,x,r) = adi4x_fwd_first(single, wk(i,1,x,r), wk(i,1,x,WK_RDIAG+s))
              end do
            else
              do i = 1, ni
                wk(i,x,1,r) = adi4x_fwd_first(single, wk(i,x,1,r), wk(i,x,1,WK_RDIAG+s))
              end do
            end if
          end if
          if (d == 2) then
            do a = a0, nl
              do i = 1, ni
                wk(i,a,x,r) = adi4x_fwd(single, wk(i,a,x,r), wk(i,a,x,WK_FLMP+s), wk(i,a,x,WK_RDIAG+s), wk(i,a-1,x,r))
              end do
            end do
          else
            do a = a0, nl
              do i = 1, ni
                wk(i,x,a,r) = adi4x_fwd(single, wk(i,x,a,r), wk(i,x,a,WK_FLMP+s), wk(i,x,a,WK_RDIAG+s), wk(i,x,a-1,r))
              end do
            end do
          end if
        end do
      end do
      !$omp end parallel do
      if (hi /= MPI_PROC_NULL) then
        call pack_row(nl, sbuf(:, c))
        nreq = nreq + 1
        call MPI_Isend(sbuf(1:cnt, c), cnt, MPI_DOUBLE_PRECISION, hi, 1000 + c, dc%comm, req(nreq))
      end if
    end do

    ! backward
    do c = 1, nch
      call chunk(c, xa, xb)
      cnt = ni*5*(xb - xa + 1)
      if (hi /= MPI_PROC_NULL) then
        call MPI_Recv(rbuf, cnt, MPI_DOUBLE_PRECISION, hi, 2000 + c, dc%comm, MPI_STATUS_IGNORE)
        pos = 0
        do x = xa, xb
          do m = 1, 5
            r = WK_WCH + m
            if (d == 2) then
              wk(1:ni, nl+1, x, r) = rbuf(pos+1:pos+ni)
            else
              wk(1:ni, x, nl+1, r) = rbuf(pos+1:pos+ni)
            end if
            pos = pos + ni
          end do
        end do
        a0 = nl
      else
        a0 = nl - 1
      end if
      !$omp parallel do num_threads(team_for(lay)) private(m, r, s, a, i)
      do x = xa, xb
        do m = 1, 5
          r = WK_WCH + m; s = eig_of_char(m)
          if (d == 2) then
            do a = a0, 1, -1
              do i = 1, ni
                wk(i,a,x,r) = adi4x_bwd(single, wk(i,a,x,r), wk(i,a,x,WK_FLMN+s), wk(i,a+1,x,r))
              end do
            end do
          else
            do a = a0, 1, -1
              do i = 1, ni
                wk(i,x,a,r) = adi4x_bwd(single, wk(i,x,a,r), wk(i,x,a,WK_FLMN+s), wk(i,x,a+1,r))
              end do
            end do
          end if
        end do
      end do
      !$omp end parallel do
      if (lo /= MPI_PROC_NULL) then
        call pack_row(1, sbuf(:, nch + c))
        nreq = nreq + 1
        call MPI_Isend(sbuf(1:cnt, nch + c), cnt, MPI_DOUBLE_PRECISION, lo, 2000 + c, dc%comm, req(nreq))
      end if
    end do
    if (nreq > 0) call MPI_Waitall(nreq, req(1:nreq), MPI_STATUSES_IGNORE)

  contains

    subroutine chunk(cc, ya, yb)
      integer, intent(in) :: cc
      integer, intent(out) :: ya, yb
      integer :: cn, co
      call split_range(ncr, nch, cc - 1, cn, co)
      ya = co + 1; yb = co + cn
    end subroutine chunk

    subroutine pack_row(arow, buf)
      integer, intent(in) :: arow
      real(rk), intent(out) :: buf(:)
      integer :: p, xx, mm
      p = 0
      do xx = xa, xb
        do mm = 1, 5
          if (d == 2) then
            buf(p+1:p+ni) = wk(1:ni, arow, xx, WK_WCH + mm)
          else
            buf(p+1:p+ni) = wk(1:ni, xx, arow, WK_WCH + mm)
          end if
          p = p + ni
        end do
      end do
    end subroutine pack_row
  end subroutine adi_stage4_pipelined

  !> fortran/residual_norms.f90 over the blocks, bit for bit: each k-plane's
  !> running sum is passed along the j ranks in j order (as the serial loop
  !> accumulates it), the finished planes are combined (each has one owner,
  !> the others add exact zeros) and summed in k order on every rank.
  subroutine mpi_residual_norms(dc, lay, res, vol, norms)
    type(decomp_t), intent(in) :: dc
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: res(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    real(rk), intent(out) :: norms(5)
    real(rk) :: pl(5, lay%nk), plane(5, dc%nglob(3))
    call plane_chain_in(dc, 5*lay%nk, pl, TAG_NORMS)
    call add_residual_plane_sums(lay, res, vol, pl)
    call plane_chain_out(dc, 5, lay%nk, pl, plane, TAG_NORMS)
    norms = norms_from_plane_sums(plane, dc%nglob(1), dc%nglob(2), dc%nglob(3))
  end subroutine mpi_residual_norms

  !> Running k-plane sums passed along the j ranks (the norms, the mass):
  !> first half, this block's n values start from the running sums of the j
  !> rank below (zeros on the lowest). The block adds its own sums (on the
  !> CPU, or the device's in build/adiflow_mpi's GPU path) before the second
  !> half. Sequence association lets a (ncomp, nk) array pass as pl(n).
  subroutine plane_chain_in(dc, n, pl, tag)
    type(decomp_t), intent(in) :: dc
    integer, intent(in) :: n, tag
    real(rk), intent(out) :: pl(n)
    pl = 0.0_rk
    if (dc%swp(1, 2) /= MPI_PROC_NULL) &
      call MPI_Recv(pl, n, MPI_DOUBLE_PRECISION, dc%swp(1, 2), tag, dc%comm, MPI_STATUS_IGNORE)
  end subroutine plane_chain_in

  !> Second half: pass the running sums (ncomp per plane, nkl planes) to the j
  !> rank above or, on the top j rank, publish the finished planes; every
  !> rank gets all ncomp x nglob(3) plane sums. Each plane is non-zero on one
  !> rank only, so the reduction adds exact zeros.
  subroutine plane_chain_out(dc, ncomp, nkl, pl, plane, tag)
    type(decomp_t), intent(in) :: dc
    integer, intent(in) :: ncomp, nkl, tag
    real(rk), intent(in) :: pl(ncomp*nkl)
    real(rk), intent(out) :: plane(ncomp*dc%nglob(3))
    plane = 0.0_rk
    if (dc%swp(2, 2) /= MPI_PROC_NULL) then
      call MPI_Send(pl, ncomp*nkl, MPI_DOUBLE_PRECISION, dc%swp(2, 2), tag, dc%comm)
    else
      plane(ncomp*dc%off(3)+1:ncomp*(dc%off(3)+nkl)) = pl
    end if
    call MPI_Allreduce(MPI_IN_PLACE, plane, size(plane), MPI_DOUBLE_PRECISION, MPI_SUM, dc%comm)
  end subroutine plane_chain_out

  !> Total mass of the global interior (q absent: rho = 1, the reference
  !> mass M0), bit-identical to mass_constraint's total_mass on one domain:
  !> the per-k-plane sums run on along the j ranks as in mpi_residual_norms,
  !> the last j rank of each k range holds the full plane sums, and the k
  !> order of the final sum is the serial one. Every rank gets the same total.
  function mpi_total_mass(dc, lay, vol, q) result(m)
    type(decomp_t), intent(in) :: dc
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: vol(-1:,-1:,-1:)
    real(rk), intent(in), optional :: q(-1:,-1:,-1:,:)
    real(rk) :: m
    real(rk) :: pl(lay%nk)
    call mpi_mass_chain_in(dc, pl)
    call add_mass_plane_sums(lay, vol, pl, q)
    m = mpi_mass_chain_out(dc, pl)
  end function mpi_total_mass

  !> The chain of mpi_total_mass, first half: this block's plane sums start
  !> from the running sums of the j rank below (zeros on the lowest). The GPU
  !> path of build/adiflow_mpi adds its device plane sums in between.
  subroutine mpi_mass_chain_in(dc, pl)
    type(decomp_t), intent(in) :: dc
    real(rk), intent(out) :: pl(:)
    call plane_chain_in(dc, size(pl), pl, TAG_MASS)
  end subroutine mpi_mass_chain_in

  !> Second half: the finished planes on every rank, summed in k order.
  function mpi_mass_chain_out(dc, pl) result(m)
    type(decomp_t), intent(in) :: dc
    real(rk), intent(in) :: pl(:)
    real(rk) :: m
    real(rk) :: plane(dc%nglob(3))
    call plane_chain_out(dc, 1, size(pl), pl, plane, TAG_MASS)
    m = mass_from_plane_sums(plane)
  end function mpi_mass_chain_out

  !> mass_fix on a block: scale its interior by m0 / (global total mass), the
  !> same factor on every rank, and the same as the single-domain one.
  subroutine mpi_mass_fix(dc, lay, vol, q, m0)
    type(decomp_t), intent(in) :: dc
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), intent(in) :: m0
    call rescale_to_mass(lay, q, m0, mpi_total_mass(dc, lay, vol, q))
  end subroutine mpi_mass_fix

  !> Interior cells of a (nf fields) from every rank into g on rank 0
  !> (g: the global layout, allocated by the caller on rank 0 only).
  subroutine gather_interior(dc, lay, a, nf, g)
    type(decomp_t), intent(in) :: dc
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: a(-1:,-1:,-1:,:)
    integer, intent(in) :: nf
    real(rk), intent(inout) :: g(-1:,-1:,-1:,:)
    real(rk), allocatable :: buf(:)
    integer :: r, nl(3), of(3), cnt
    if (dc%rank /= 0) then
      cnt = lay%ni*lay%nj*lay%nk*nf
      buf = reshape(a(1:lay%ni, 1:lay%nj, 1:lay%nk, 1:nf), [cnt])
      call MPI_Send(buf, cnt, MPI_DOUBLE_PRECISION, 0, 4000, dc%comm)
      return
    end if
    do r = 0, dc%nranks - 1
      call block_range(dc, r, nl, of)
      if (r == 0) then
        g(1:nl(1), of(2)+1:of(2)+nl(2), of(3)+1:of(3)+nl(3), 1:nf) = a(1:nl(1), 1:nl(2), 1:nl(3), 1:nf)
      else
        cnt = nl(1)*nl(2)*nl(3)*nf
        if (allocated(buf)) deallocate(buf)
        allocate(buf(cnt))
        call MPI_Recv(buf, cnt, MPI_DOUBLE_PRECISION, r, 4000, dc%comm, MPI_STATUS_IGNORE)
        g(1:nl(1), of(2)+1:of(2)+nl(2), of(3)+1:of(3)+nl(3), 1:nf) = &
          reshape(buf, [nl(1), nl(2), nl(3), nf])
      end if
    end do
  end subroutine gather_interior

  !> Global k planes k0 .. k0+nkp-1 of the interior of a (nf fields) from
  !> the ranks that hold them into g(1:ni, 1:nj, 1:nkp, 1:nf) on rank 0 (the
  !> whole grid's i and j; allocated by the caller on rank 0 only).
  subroutine gather_k_planes(dc, lay, a, k0, nkp, nf, g)
    type(decomp_t), intent(in) :: dc
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: a(-1:,-1:,-1:,:)
    integer, intent(in) :: k0, nkp, nf
    real(rk), intent(inout) :: g(:,:,:,:)
    real(rk), allocatable :: buf(:)
    integer :: r, nl(3), of(3), klo, khi, cnt
    do r = 0, dc%nranks - 1
      if (dc%rank /= 0 .and. r /= dc%rank) cycle
      call block_range(dc, r, nl, of)
      klo = max(k0, of(3) + 1); khi = min(k0 + nkp - 1, of(3) + nl(3))
      if (khi < klo) cycle
      cnt = nl(1)*nl(2)*(khi - klo + 1)*nf
      if (r == 0) then
        g(1:nl(1), of(2)+1:of(2)+nl(2), klo-k0+1:khi-k0+1, 1:nf) = a(1:nl(1), 1:nl(2), klo-of(3):khi-of(3), 1:nf)
      else if (dc%rank /= 0) then
        buf = reshape(a(1:lay%ni, 1:lay%nj, klo-of(3):khi-of(3), 1:nf), [cnt])
        call MPI_Send(buf, cnt, MPI_DOUBLE_PRECISION, 0, 4001, dc%comm)
      else
        allocate(buf(cnt))
        call MPI_Recv(buf, cnt, MPI_DOUBLE_PRECISION, r, 4001, dc%comm, MPI_STATUS_IGNORE)
        g(1:nl(1), of(2)+1:of(2)+nl(2), klo-k0+1:khi-k0+1, 1:nf) = reshape(buf, [nl(1), nl(2), khi - klo + 1, nf])
        deallocate(buf)
      end if
    end do
  end subroutine gather_k_planes

  function extent_string(nl, of) result(ext)
    integer, intent(in) :: nl(3), of(3)
    character(len=96) :: ext
    write(ext, '(6(i0,1x))') of(1), of(1) + nl(1), of(2), of(2) + nl(2), of(3), of(3) + nl(3)
  end function extent_string

  !> This rank's block as a .vts piece (output_vtk.f90's format, with the
  !> block's extent in global node indices). xn, sf, vol: the block's nodes
  !> and metrics; qp after the block's boundary fill and halo exchange, so
  !> that the nodes a block shares with its neighbour get the same means.
  subroutine write_block_vts(path, dc, lay, sp, xn, qp, sf, vol)
    character(len=*), intent(in) :: path
    type(decomp_t), intent(in) :: dc
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:), sf(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    call write_vts(path, lay, sp, xn, qp, sf, vol, dc%off)
  end subroutine write_block_vts

  !> The ParaView index of the block files: piece r is stem_rNNNNN.vts; the
  !> arrays those files hold (point and cell data: fortran/output_fields.f90's list),
  !> with the types write_vts gives them: coordinates Float64, flow variables Float32.
  subroutine write_pvts(path, stem, dc)
    character(len=*), intent(in) :: path, stem
    type(decomp_t), intent(in) :: dc
    type(out_file_t) :: pf
    integer :: ios, r, nl(3), of(3)
    character(len=512) :: msg
    character(len=16) :: rn
    call out_open(pf, path)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<?xml version="1.0"?>'
    call out_check(pf, ios, msg)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<VTKFile type="PStructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">'
    call out_check(pf, ios, msg)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<PStructuredGrid WholeExtent="'//trim(extent_string(dc%nglob, [0, 0, 0]))//'" GhostLevel="0">'
    call out_check(pf, ios, msg)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<PPoints><PDataArray type="Float64" Name="coordinates" NumberOfComponents="3"/></PPoints>'
    call out_check(pf, ios, msg)
    call arrays('PPointData')
    call arrays('PCellData')
    do r = 0, dc%nranks - 1
      call block_range(dc, r, nl, of)
      write(rn, '(a,i5.5)') '_r', r
      write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<Piece Extent="'//trim(extent_string(nl, of))//'" Source="'//trim(stem)//trim(rn)//'.vts"/>'
      call out_check(pf, ios, msg)
    end do
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '</PStructuredGrid>'
    call out_check(pf, ios, msg)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '</VTKFile>'
    call out_check(pf, ios, msg)
    call out_commit(pf)

  contains

    subroutine arrays(tag)
      character(len=*), intent(in) :: tag
      integer :: v
      write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<'//tag//' Scalars="density" Vectors="velocity">'
      call out_check(pf, ios, msg)
      do v = 1, size(out_vars)
        write(pf%unit, '(a,i0,a)', iostat=ios, iomsg=msg) '<PDataArray type="Float32" Name="'//trim(out_vars(v)%name)// &
          '" NumberOfComponents="', out_vars(v)%ncomp, '"'//component_attributes(v)//'/>'
        call out_check(pf, ios, msg)
      end do
      write(pf%unit, '(a)', iostat=ios, iomsg=msg) '</'//tag//'>'
      call out_check(pf, ios, msg)
    end subroutine arrays
  end subroutine write_pvts
end module mpi_decomp
