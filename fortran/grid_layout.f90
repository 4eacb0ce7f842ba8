!> Index space shared by the Fortran reference and the C/CUDA side.
!>
!> Cells are numbered 1..n in each direction with ng=2 ghost layers, so a
!> field is declared a(-1:ldi-2, -1:nj+2, -1:nk+2). The leading dimension
!> ldi is ni+4 rounded up to a multiple of 16 doubles (128 bytes) so that
!> the same cell of every i-line has the same alignment (the device fields
!> put cell i = 1 on a 128-byte boundary, cuda/api/grid.cu); it comes
!> from the bridge's one formula (adi_layout_ldi, include/adiflow_bridge.h,
!> through fortran/grid_layout_c.c). The C side addresses cell (i,j,k) as
!> (i+1) + ldi*((j+1) + ldj*(k+1)) (0-based).
module grid_layout
  use, intrinsic :: iso_c_binding, only: c_int
  use kinds, only: rk, ik8, ng
  implicit none
  private
  public :: layout_t, make_layout, field_bytes

  interface
    pure integer(c_int) function adi_layout_leading_dim(ni) bind(c, name='adi_layout_leading_dim')
      import :: c_int
      integer(c_int), value :: ni
    end function
  end interface

  type :: layout_t
    integer :: ni = 0, nj = 0, nk = 0   !< interior cells
    integer :: ldi = 0                  !< padded leading dimension
    integer :: ldj = 0, ldk = 0         !< nj+4, nk+4
    integer(ik8) :: npts = 0            !< ldi*ldj*ldk: points in one field
  end type layout_t

contains

  pure function make_layout(ni, nj, nk) result(lay)
    integer, intent(in) :: ni, nj, nk
    type(layout_t) :: lay
    lay%ni = ni
    lay%nj = nj
    lay%nk = nk
    lay%ldi = int(adi_layout_leading_dim(int(ni, c_int)))
    lay%ldj = nj + 2*ng
    lay%ldk = nk + 2*ng
    lay%npts = int(lay%ldi, ik8)*int(lay%ldj, ik8)*int(lay%ldk, ik8)
  end function make_layout

  !> Bytes of nfields double-precision fields of this layout.
  pure function field_bytes(lay, nfields) result(b)
    type(layout_t), intent(in) :: lay
    integer, intent(in) :: nfields
    integer(ik8) :: b
    b = lay%npts*8_ik8*int(nfields, ik8)
  end function field_bytes
end module grid_layout
