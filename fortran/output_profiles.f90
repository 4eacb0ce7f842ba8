!> Centreline profiles for comparison with Ghia et al. (1982): u along the
!> vertical centreline (x = lx/2, z = lz/2) and v along the horizontal one
!> (y = ly/2, z = lz/2), linearly interpolated between cell centres, with
!> the wall values added at both ends. Assumes a tensor-product grid (the
!> cavity generator's); other grids get the profile of the index lines.
module output_profiles
  use kinds, only: rk
  use grid_layout, only: layout_t
  use solver_params
  use output_file, only: out_file_t, out_open, out_check, out_commit
  implicit none
  private
  public :: write_profiles

contains

  !> a, w such that t = (1-w)*c(a) + w*c(a+1); a = 1, w = 0 when n = 1.
  pure subroutine bracket(c, t, a, w)
    real(rk), intent(in) :: c(:), t
    integer, intent(out) :: a
    real(rk), intent(out) :: w
    integer :: n
    n = size(c)
    a = 1
    w = 0.0_rk
    if (n == 1) return
    do a = 1, n - 2
      if (t <= c(a + 1)) exit
    end do
    w = (t - c(a))/(c(a + 1) - c(a))
  end subroutine bracket

  subroutine write_profiles(dir, lay, sp, lx, ly, lz, xc, qp)
    character(len=*), intent(in) :: dir
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: lx, ly, lz, xc(-1:,-1:,-1:,:), qp(-1:,-1:,-1:,:)
    type(out_file_t) :: of
    integer :: ios, ia, ka, ja, i, j
    real(rk) :: wi, wk, wj, val, lo_val, hi_val
    character(len=512) :: msg

    call bracket(xc(1:lay%ni, 1, 1, 1), 0.5_rk*lx, ia, wi)
    call bracket(xc(1, 1:lay%nj, 1, 2), 0.5_rk*ly, ja, wj)
    call bracket(xc(1, 1, 1:lay%nk, 3), 0.5_rk*lz, ka, wk)

    call out_open(of, trim(dir)//'/centreline_u.csv')
    write(of%unit, '(a)', iostat=ios, iomsg=msg) 'y,u'
    call out_check(of, ios, msg)
    lo_val = merge(sp%lid_u, 0.0_rk, sp%bc(3) == BC_LID)
    hi_val = merge(sp%lid_u, 0.0_rk, sp%bc(4) == BC_LID)
    write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) 0.0_rk, lo_val
    call out_check(of, ios, msg)
    do j = 1, lay%nj
      val = interp2(qp(:, j, :, 2), ia, wi, ka, wk)
      write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) xc(1, j, 1, 2), val
      call out_check(of, ios, msg)
    end do
    write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) ly, hi_val
    call out_check(of, ios, msg)
    call out_commit(of)

    call out_open(of, trim(dir)//'/centreline_v.csv')
    write(of%unit, '(a)', iostat=ios, iomsg=msg) 'x,v'
    call out_check(of, ios, msg)
    lo_val = merge(sp%lid_v, 0.0_rk, sp%bc(1) == BC_LID)
    hi_val = merge(sp%lid_v, 0.0_rk, sp%bc(2) == BC_LID)
    write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) 0.0_rk, lo_val
    call out_check(of, ios, msg)
    do i = 1, lay%ni
      val = interp2(qp(i, :, :, 3), ja, wj, ka, wk)
      write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) xc(i, 1, 1, 1), val
      call out_check(of, ios, msg)
    end do
    write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) lx, hi_val
    call out_check(of, ios, msg)
    call out_commit(of)

  contains

    !> Bilinear interpolation in a plane f(-1:, -1:) of cell values.
    pure function interp2(f, a, wa, b, wb) result(v)
      real(rk), intent(in) :: f(-1:,-1:), wa, wb
      integer, intent(in) :: a, b
      real(rk) :: v
      v = (1.0_rk - wb)*((1.0_rk - wa)*f(a, b) + wa*f(a + 1, b)) &
        + wb*((1.0_rk - wa)*f(a, b + 1) + wa*f(a + 1, b + 1))
    end function interp2
  end subroutine write_profiles
end module output_profiles
