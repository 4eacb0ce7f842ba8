!> VTK XML structured grid (.vts) for ParaView: node coordinates as points,
!> the flow variables of fortran/output_fields.f90 both as point data (node
!> means, walls included) and as cell data (the solver's values), raw
!> appended binary (UInt64 headers): the coordinates Float64, so that the
!> geometry stays exact, the flow variables Float32 (a viewer's file: their
!> bytes to write and sync halved; field.dump keeps the exact state); and the .pvd
!> collection of a run's snapshot series.
module output_vtk
  use, intrinsic :: iso_fortran_env, only: int64, real32
  use kinds, only: rk, ng
  use grid_layout, only: layout_t
  use solver_params
  use output_file, only: out_file_t, out_open, out_check, out_wait, out_writeback, out_commit
  use output_fields, only: out_vars, OV_VORTICITY, cell_vorticity, node_means, node_primitives, vts_values
  use omp_policy, only: team_for
  use first_touch, only: advise_huge
  use sys_interface, only: earlier_snapshots
  implicit none
  private
  public :: write_vts, component_attributes, snapshot_stem, vtk_series_t, series_start, series_snapshot, series_final

  !> The name of the series: the final state SERIES.vts (.pvts), the
  !> snapshots SERIES_NNNNNNN.vts, their collection SERIES.pvd.
  character(len=*), parameter :: series = 'flow'

  !> a Float32 block of flow.vts's appended data (write_vts's two slots)
  type :: f32_block
    real(real32), allocatable :: a(:,:,:,:)
  end type f32_block

  !> A run's snapshot series and its collection file: the iterations of the
  !> snapshots listed so far.
  type :: vtk_series_t
    character(len=:), allocatable :: dir, ext     !< the run folder; '.vts' or '.pvts'
    integer(int64) :: last_iter = 0               !< the run's max_iter (snapshot_stem's width)
    integer(int64), allocatable :: iters(:)
    integer :: n = 0
  end type vtk_series_t

contains

  !> "flow_NNNNNNN" for the snapshot of iteration iter: at least 7 digits,
  !> and as many as the run's last iteration needs, so that the names of one
  !> run never overflow into "*******" and sort in iteration order.
  function snapshot_stem(iter, last_iter) result(stem)
    integer(int64), intent(in) :: iter, last_iter
    character(len=:), allocatable :: stem
    character(len=32) :: digits, fmt
    write(fmt, '(a,i0,a,i0,a)') '(a,i', stem_width(last_iter), '.', stem_width(last_iter), ')'
    write(digits, fmt) series//'_', iter
    stem = trim(digits)
  end function snapshot_stem

  pure integer function stem_width(last_iter)
    integer(int64), intent(in) :: last_iter
    character(len=32) :: digits
    write(digits, '(i0)') last_iter
    stem_width = max(7, len_trim(digits))
  end function stem_width

  !> The series of a run writing snapshots (output_interval > 0) up to
  !> last_iter into dir, ext '.vts' (build/adiflow) or '.pvts' (adiflow_mpi's
  !> index files). A restarted run (it0 > 0) lists first the snapshots the run
  !> folder holds at multiples of interval up to it0, an earlier leg's.
  subroutine series_start(s, dir, ext, last_iter, it0, interval)
    type(vtk_series_t), intent(out) :: s
    character(len=*), intent(in) :: dir, ext
    integer(int64), intent(in) :: last_iter, it0
    integer, intent(in) :: interval
    s%dir = dir
    s%ext = ext
    s%last_iter = last_iter
    if (it0 > 0) then
      s%iters = earlier_snapshots(dir, series//'_', ext, stem_width(last_iter), int(interval, int64), it0)
    else
      allocate(s%iters(0))
    end if
    s%n = size(s%iters)
  end subroutine series_start

  !> A snapshot of iteration iter was written: the collection is rewritten
  !> with it, so that a run killed later leaves a collection of what exists.
  subroutine series_snapshot(s, iter)
    type(vtk_series_t), intent(inout) :: s
    integer(int64), intent(in) :: iter
    integer(int64), allocatable :: grown(:)
    if (s%n == size(s%iters)) then
      allocate(grown(max(16, 2*s%n)))
      grown(1:s%n) = s%iters(1:s%n)
      call move_alloc(grown, s%iters)
    end if
    s%n = s%n + 1
    s%iters(s%n) = iter
    call write_pvd(s, -1_int64)
  end subroutine series_snapshot

  !> The final state (flow.vts or flow.pvts) of iteration iter was written:
  !> the collection ends with it. A snapshot of that same iteration (an
  !> interrupt at a snapshot iteration) is left out: ParaView would show two
  !> data sets of one time.
  subroutine series_final(s, iter)
    type(vtk_series_t), intent(inout) :: s
    integer(int64), intent(in) :: iter
    do while (s%n > 0)
      if (s%iters(s%n) < iter) exit
      s%n = s%n - 1
    end do
    call write_pvd(s, iter)
  end subroutine series_final

  !> dir/flow.pvd: every listed snapshot, then the final state if
  !> final_iter >= 0, each with its iteration as the time step.
  subroutine write_pvd(s, final_iter)
    type(vtk_series_t), intent(in) :: s
    integer(int64), intent(in) :: final_iter
    type(out_file_t) :: pf
    integer :: ios, m
    character(len=512) :: msg
    call out_open(pf, s%dir//'/'//series//'.pvd')
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<?xml version="1.0"?>'
    call out_check(pf, ios, msg)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">'
    call out_check(pf, ios, msg)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '<Collection>'
    call out_check(pf, ios, msg)
    do m = 1, s%n
      call entry(s%iters(m), snapshot_stem(s%iters(m), s%last_iter))
    end do
    if (final_iter >= 0) call entry(final_iter, series)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '</Collection>'
    call out_check(pf, ios, msg)
    write(pf%unit, '(a)', iostat=ios, iomsg=msg) '</VTKFile>'
    call out_check(pf, ios, msg)
    call out_commit(pf)

  contains

    subroutine entry(iter, stem)
      integer(int64), intent(in) :: iter
      character(len=*), intent(in) :: stem
      write(pf%unit, '(a,i0,a)', iostat=ios, iomsg=msg) '<DataSet timestep="', iter, '" group="" part="0" file="'// &
        stem//s%ext//'"/>'
      call out_check(pf, ios, msg)
    end subroutine entry
  end subroutine write_pvd

  !> ' ComponentName0="u" ComponentName1="v" ...' of output variable v's
  !> DataArray (a vector's component names, as flow.dat names its columns);
  !> '' for a scalar.
  function component_attributes(v) result(attrs)
    integer, intent(in) :: v
    character(len=:), allocatable :: attrs
    character(len=32) :: num
    integer :: m
    attrs = ''
    if (out_vars(v)%ncomp == 1) return
    do m = 1, out_vars(v)%ncomp
      write(num, '(i0)') m - 1
      attrs = attrs//' ComponentName'//trim(num)//'="'//trim(out_vars(v)%comp(m))//'"'
    end do
  end function component_attributes

  !> offset: where this block starts in a decomposed grid (its piece of the
  !> .pvts index); absent for a whole grid. qp: the primitives after the
  !> boundary fill (the wall temperature's included), on two ghost layers;
  !> sf, vol: fortran/metrics.f90's face vectors and volumes (for the
  !> vorticity).
  subroutine write_vts(path, lay, sp, xn, qp, sf, vol, offset)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:), sf(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    integer, intent(in), optional :: offset(3)
    integer :: of(3)
    type(out_file_t) :: vf
    integer :: ios, i, j, k, v, ni, nj, nk
    integer(int64) :: npt, ncell, off, cell_off(size(out_vars)), point_off(size(out_vars))
    integer(int64) :: wrote   ! the file's bytes once the writes so far are done
    real(rk), allocatable :: pn(:,:,:,:), om(:,:,:,:), nodes(:,:,:,:)
    real(rk), allocatable, asynchronous :: coords(:,:,:,:)
    ! two Float32 blocks: one written in the background (asynchronous
    ! write) while the threads make the other
    type(f32_block), asynchronous :: slot(2)
    integer :: cur
    character(len=1), parameter :: nl = achar(10)
    character(len=64) :: ext
    character(len=512) :: msg

    ni = lay%ni; nj = lay%nj; nk = lay%nk
    npt = int(ni + 1, int64)*(nj + 1)*(nk + 1)
    ncell = int(ni, int64)*nj*nk
    of = 0
    if (present(offset)) of = offset
    write(ext, '(6(i0,1x))') of(1), of(1) + ni, of(2), of(2) + nj, of(3), of(3) + nk
    ! appended data: the coordinates (3 Float64 a node), then each variable's
    ! cell block and point block (Float32), each behind its 8-byte count
    off = 8 + 24*npt
    do v = 1, size(out_vars)
      cell_off(v) = off
      off = off + 8 + 4*out_vars(v)%ncomp*ncell
      point_off(v) = off
      off = off + 8 + 4*out_vars(v)%ncomp*npt
    end do
    call out_open(vf, path, stream=.true.)
    write(vf%unit, iostat=ios, iomsg=msg) '<?xml version="1.0"?>'//nl// &
      '<VTKFile type="StructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">'//nl// &
      '<StructuredGrid WholeExtent="'//trim(ext)//'">'//nl// &
      '<Piece Extent="'//trim(ext)//'">'//nl//'<Points>'//nl
    call out_check(vf, ios, msg)
    call data_array('coordinates', 'Float64', 3, 0_int64, '')
    write(vf%unit, iostat=ios, iomsg=msg) '</Points>'//nl//'<PointData Scalars="density" Vectors="velocity">'//nl
    call out_check(vf, ios, msg)
    do v = 1, size(out_vars)
      call var_array(v, point_off(v))
    end do
    write(vf%unit, iostat=ios, iomsg=msg) '</PointData>'//nl//'<CellData Scalars="density" Vectors="velocity">'//nl
    call out_check(vf, ios, msg)
    do v = 1, size(out_vars)
      call var_array(v, cell_off(v))
    end do
    write(vf%unit, iostat=ios, iomsg=msg) '</CellData>'//nl//'</Piece>'//nl//'</StructuredGrid>'//nl// &
      '<AppendedData encoding="raw">'//nl//'_'
    call out_check(vf, ios, msg)
    inquire(unit=vf%unit, pos=wrote)
    wrote = wrote - 1 + 8 + 24*npt
    write(vf%unit, iostat=ios, iomsg=msg) 24*npt
    call out_check(vf, ios, msg)
    cur = 1
    allocate(coords(3, 0:ni, 0:nj, 0:nk))
    call advise_huge(coords)
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i)
    do k = 0, nk
      do j = 0, nj
        do i = 0, ni
          coords(:, i, j, k) = xn(:, i, j, k)
        end do
      end do
    end do
    !$omp end parallel do
    call write_run64(vf%unit, coords, size(coords, kind=int64), ios, msg)
    call out_check(vf, ios, msg)

    ! every block made by threads into a Float32 buffer, written as one run
    ! in the background while the next is made
    call node_primitives(lay, qp, pn)
    call cell_vorticity(lay, qp, sf, vol, om)
    do v = 1, size(out_vars)
      if (v == OV_VORTICITY) then
        call field_block(om(1:ni, 1:nj, 1:nk, :))
        allocate(nodes(0:ni, 0:nj, 0:nk, 3))
        call advise_huge(nodes)
        call node_means(om, nodes, team_for(lay))
        call field_block(nodes)
        deallocate(nodes)
      else
        call vts_values(lay, v, sp, qp, pn, .false., slot(cur)%a)
        call put_block()
        call vts_values(lay, v, sp, qp, pn, .true., slot(cur)%a)
        call put_block()
      end if
    end do
    call finish_write()
    write(vf%unit, iostat=ios, iomsg=msg) nl//'</AppendedData>'//nl//'</VTKFile>'//nl
    call out_check(vf, ios, msg)
    call out_commit(vf)

  contains

    !> The write in the background finished (its error kept, its part sent
    !> on to the disk); the coordinates' buffer is free from then on.
    subroutine finish_write()
      call out_wait(vf, wrote)
      call out_writeback(vf)
      if (allocated(coords)) deallocate(coords)
    end subroutine finish_write

    !> One array of the appended data, slot(cur): its byte count, then its
    !> values (Float32, components innermost: VTK's tuple order) in one
    !> write, started in the background once the one before has finished;
    !> the next block goes to the other slot, whose write has finished.
    subroutine put_block()
      call finish_write()
      wrote = wrote + 8 + 4*size(slot(cur)%a, kind=int64)
      write(vf%unit, iostat=ios, iomsg=msg) 4*size(slot(cur)%a, kind=int64)
      call out_check(vf, ios, msg)
      call write_run32(vf%unit, slot(cur)%a, size(slot(cur)%a, kind=int64), ios, msg)
      call out_check(vf, ios, msg)
      cur = 3 - cur
    end subroutine put_block

    !> put_block of a field f(:,:,:,component), converted by threads. The
    !> output variables are O(1) (well inside the float range); NaN stays NaN.
    subroutine field_block(f)
      real(rk), intent(in) :: f(:,:,:,:)
      integer :: a, b, e
      if (allocated(slot(cur)%a)) deallocate(slot(cur)%a)
      allocate(slot(cur)%a(size(f, 4), size(f, 1), size(f, 2), size(f, 3)))
      call advise_huge(slot(cur)%a)
      associate (fb => slot(cur)%a)
        !$omp parallel do num_threads(team_for(lay)) collapse(2) private(a)
        do e = 1, size(f, 3)
          do b = 1, size(f, 2)
            do a = 1, size(f, 1)
              fb(:, a, b, e) = real(f(a, b, e, :), real32)
            end do
          end do
        end do
        !$omp end parallel do
      end associate
      call put_block()
    end subroutine field_block

    !> The DataArray of output variable v, its components named.
    subroutine var_array(v, offset)
      integer, intent(in) :: v
      integer(int64), intent(in) :: offset
      call data_array(trim(out_vars(v)%name), 'Float32', out_vars(v)%ncomp, offset, component_attributes(v))
    end subroutine var_array

    !> vtype: 'Float64' or 'Float32'; extra: more attributes
    !> (' ComponentName0="u"' ...), or ''.
    subroutine data_array(name, vtype, ncomp, offset, extra)
      character(len=*), intent(in) :: name, vtype, extra
      integer, intent(in) :: ncomp
      integer(int64), intent(in) :: offset
      character(len=32) :: c1, c2
      write(c1, '(i0)') ncomp
      write(c2, '(i0)') offset
      write(vf%unit, iostat=ios, iomsg=msg) '<DataArray type="'//vtype//'" Name="'//name//'" NumberOfComponents="'// &
        trim(c1)//'"'//extra//' format="appended" offset="'//trim(c2)//'"/>'//nl
      call out_check(vf, ios, msg)
    end subroutine data_array
  end subroutine write_vts

  !> The n values of b written as one run. gfortran's unformatted write
  !> moves an array in runs of its first dimension's extent, so a block
  !> shaped (components, ni, nj, nk) went out in millions of runs of 4 to 24
  !> bytes (most of flow.vts's time, whatever the disk); through this
  !> one-dimensional dummy it is one run.
  !> The write is asynchronous: it goes on after the return, so b must stay
  !> as it is until a wait on the unit (write_vts's finish_write).
  subroutine write_run32(unit, b, n, ios, msg)
    integer, intent(in) :: unit
    integer(int64), intent(in) :: n
    real(real32), intent(in), asynchronous :: b(n)
    integer, intent(out) :: ios
    character(len=*), intent(inout) :: msg
    write(unit, iostat=ios, iomsg=msg, asynchronous='yes') b
  end subroutine write_run32

  !> write_run32 for the Float64 coordinates
  subroutine write_run64(unit, b, n, ios, msg)
    integer, intent(in) :: unit
    integer(int64), intent(in) :: n
    real(rk), intent(in), asynchronous :: b(n)
    integer, intent(out) :: ios
    character(len=*), intent(inout) :: msg
    write(unit, iostat=ios, iomsg=msg, asynchronous='yes') b
  end subroutine write_run64
end module output_vtk
