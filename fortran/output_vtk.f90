!> VTK XML structured grid (.vts) for ParaView: node coordinates as points,
!> flow variables as cell data, raw appended binary (Float64, UInt64 headers).
module output_vtk
  use, intrinsic :: iso_fortran_env, only: int64
  use kinds, only: rk, ng
  use grid_layout, only: layout_t
  use solver_params
  use output_file, only: out_file_t, out_open, out_check, out_commit
  implicit none
  private
  public :: write_vts, snapshot_stem

contains

  !> "flow_NNNNNNN" for the snapshot of iteration iter: at least 7 digits,
  !> and as many as the run's last iteration needs, so that the names of one
  !> run never overflow into "*******" and sort in iteration order.
  function snapshot_stem(iter, last_iter) result(stem)
    integer(int64), intent(in) :: iter, last_iter
    character(len=:), allocatable :: stem
    character(len=32) :: digits, fmt
    integer :: width
    write(digits, '(i0)') max(iter, last_iter)
    width = max(7, len_trim(digits))
    write(fmt, '(a,i0,a,i0,a)') '(a,i', width, '.', width, ')'
    write(digits, fmt) 'flow_', iter
    stem = trim(digits)
  end function snapshot_stem

  !> offset: where this block starts in a decomposed grid (its piece of the
  !> .pvts index); absent for a whole grid.
  subroutine write_vts(path, lay, sp, xn, qp, offset)
    character(len=*), intent(in) :: path
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:)
    integer, intent(in), optional :: offset(3)
    integer :: of(3)
    type(out_file_t) :: vf
    integer :: ios, i, j, k, ni, nj, nk
    integer(int64) :: npt, ncell, off
    character(len=1), parameter :: nl = achar(10)
    character(len=64) :: ext
    character(len=512) :: msg
    character(len=64), parameter :: names(4) = [character(len=64) :: 'density', 'pressure', &
      'temperature', 'mach']

    ni = lay%ni; nj = lay%nj; nk = lay%nk
    npt = int(ni + 1, int64)*(nj + 1)*(nk + 1)
    ncell = int(ni, int64)*nj*nk
    of = 0
    if (present(offset)) of = offset
    write(ext, '(6(i0,1x))') of(1), of(1) + ni, of(2), of(2) + nj, of(3), of(3) + nk
    call out_open(vf, path, stream=.true.)
    write(vf%unit, iostat=ios, iomsg=msg) '<?xml version="1.0"?>'//nl// &
      '<VTKFile type="StructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">'//nl// &
      '<StructuredGrid WholeExtent="'//trim(ext)//'">'//nl// &
      '<Piece Extent="'//trim(ext)//'">'//nl//'<Points>'//nl
    call out_check(vf, ios, msg)
    off = 0
    call data_array('coordinates', 3, off)
    off = off + 8 + 24*npt
    write(vf%unit, iostat=ios, iomsg=msg) '</Points>'//nl//'<CellData Scalars="density" Vectors="velocity">'//nl
    call out_check(vf, ios, msg)
    do i = 1, 4
      call data_array(trim(names(i)), 1, off)
      off = off + 8 + 8*ncell
    end do
    call data_array('velocity', 3, off)
    write(vf%unit, iostat=ios, iomsg=msg) '</CellData>'//nl//'</Piece>'//nl//'</StructuredGrid>'//nl// &
      '<AppendedData encoding="raw">'//nl//'_'
    call out_check(vf, ios, msg)
    write(vf%unit, iostat=ios, iomsg=msg) 24*npt
    call out_check(vf, ios, msg)
    write(vf%unit, iostat=ios, iomsg=msg) (((xn(:, i, j, k), i = 0, ni), j = 0, nj), k = 0, nk)
    call out_check(vf, ios, msg)
    call cell_block(qp(1:ni, 1:nj, 1:nk, 1))
    call cell_block(qp(1:ni, 1:nj, 1:nk, 5))
    call cell_block(qp(1:ni, 1:nj, 1:nk, 6))
    call cell_block(sqrt(qp(1:ni,1:nj,1:nk,2)**2 + qp(1:ni,1:nj,1:nk,3)**2 + qp(1:ni,1:nj,1:nk,4)**2)/ &
      sqrt(sp%gamma*qp(1:ni,1:nj,1:nk,5)/qp(1:ni,1:nj,1:nk,1)))
    write(vf%unit, iostat=ios, iomsg=msg) 24*ncell
    call out_check(vf, ios, msg)
    write(vf%unit, iostat=ios, iomsg=msg) (((qp(i,j,k,2:4), i = 1, ni), j = 1, nj), k = 1, nk)
    call out_check(vf, ios, msg)
    write(vf%unit, iostat=ios, iomsg=msg) nl//'</AppendedData>'//nl//'</VTKFile>'//nl
    call out_check(vf, ios, msg)
    call out_commit(vf)

  contains

    !> One scalar cell array of the appended data: its byte count, then the values.
    subroutine cell_block(values)
      real(rk), intent(in) :: values(:,:,:)
      write(vf%unit, iostat=ios, iomsg=msg) 8*ncell
      call out_check(vf, ios, msg)
      write(vf%unit, iostat=ios, iomsg=msg) values
      call out_check(vf, ios, msg)
    end subroutine cell_block

    subroutine data_array(name, ncomp, offset)
      character(len=*), intent(in) :: name
      integer, intent(in) :: ncomp
      integer(int64), intent(in) :: offset
      character(len=32) :: c1, c2
      write(c1, '(i0)') ncomp
      write(c2, '(i0)') offset
      write(vf%unit, iostat=ios, iomsg=msg) '<DataArray type="Float64" Name="'//name//'" NumberOfComponents="'// &
        trim(c1)//'" format="appended" offset="'//trim(c2)//'"/>'//nl
      call out_check(vf, ios, msg)
    end subroutine data_array
  end subroutine write_vts
end module output_vtk
