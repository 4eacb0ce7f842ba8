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
  public :: write_profiles, centreline_brackets, centreline_value, write_centrelines

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

  !> Where the centrelines lie: the cells below the mid-planes and the
  !> weights, from the cell centres along the three index lines through cell
  !> (1, 1, 1) (xline: x of cells (i, 1, 1); yline: y of (1, j, 1); zline: z
  !> of (1, 1, k)).
  pure subroutine centreline_brackets(xline, yline, zline, lx, ly, lz, ia, wi, ja, wj, ka, wk)
    real(rk), intent(in) :: xline(:), yline(:), zline(:), lx, ly, lz
    integer, intent(out) :: ia, ja, ka
    real(rk), intent(out) :: wi, wj, wk
    call bracket(xline, 0.5_rk*lx, ia, wi)
    call bracket(yline, 0.5_rk*ly, ja, wj)
    call bracket(zline, 0.5_rk*lz, ka, wk)
  end subroutine centreline_brackets

  !> Bilinear interpolation between four cell values: f00 at (a, b), f10 at
  !> (a+1, b), f01 at (a, b+1), f11 at (a+1, b+1).
  pure function centreline_value(f00, f10, f01, f11, wa, wb) result(v)
    real(rk), intent(in) :: f00, f10, f01, f11, wa, wb
    real(rk) :: v
    v = (1.0_rk - wb)*((1.0_rk - wa)*f00 + wa*f10) + wb*((1.0_rk - wa)*f01 + wa*f11)
  end function centreline_value

  !> centreline_u.csv and centreline_v.csv from the whole grid's cell centres
  !> xc and primitives qp.
  subroutine write_profiles(dir, lay, sp, lx, ly, lz, xc, qp)
    character(len=*), intent(in) :: dir
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: lx, ly, lz, xc(-1:,-1:,-1:,:), qp(-1:,-1:,-1:,:)
    integer :: ia, ka, ja, i, j
    real(rk) :: wi, wk, wj, u(lay%nj), v(lay%ni)
    call centreline_brackets(xc(1:lay%ni, 1, 1, 1), xc(1, 1:lay%nj, 1, 2), xc(1, 1, 1:lay%nk, 3), lx, ly, lz, &
      ia, wi, ja, wj, ka, wk)
    do j = 1, lay%nj
      u(j) = centreline_value(qp(ia, j, ka, 2), qp(ia+1, j, ka, 2), qp(ia, j, ka+1, 2), qp(ia+1, j, ka+1, 2), wi, wk)
    end do
    do i = 1, lay%ni
      v(i) = centreline_value(qp(i, ja, ka, 3), qp(i, ja+1, ka, 3), qp(i, ja, ka+1, 3), qp(i, ja+1, ka+1, 3), wj, wk)
    end do
    call write_centrelines(dir, sp, lx, ly, xc(1, 1:lay%nj, 1, 2), u, xc(1:lay%ni, 1, 1, 1), v)
  end subroutine write_profiles

  !> The two files: u(j) at heights y(j), v(i) at x(i), with the wall values
  !> added at both ends.
  subroutine write_centrelines(dir, sp, lx, ly, y, u, x, v)
    character(len=*), intent(in) :: dir
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: lx, ly, y(:), u(:), x(:), v(:)
    call write_line(trim(dir)//'/centreline_u.csv', 'y,u', y, u, ly, merge(sp%lid_u, 0.0_rk, sp%bc(3) == BC_LID), &
      merge(sp%lid_u, 0.0_rk, sp%bc(4) == BC_LID))
    call write_line(trim(dir)//'/centreline_v.csv', 'x,v', x, v, lx, merge(sp%lid_v, 0.0_rk, sp%bc(1) == BC_LID), &
      merge(sp%lid_v, 0.0_rk, sp%bc(2) == BC_LID))
  end subroutine write_centrelines

  subroutine write_line(path, head, c, f, length, lo_val, hi_val)
    character(len=*), intent(in) :: path, head
    real(rk), intent(in) :: c(:), f(:), length, lo_val, hi_val
    type(out_file_t) :: of
    integer :: ios, n
    character(len=512) :: msg
    call out_open(of, path)
    write(of%unit, '(a)', iostat=ios, iomsg=msg) head
    call out_check(of, ios, msg)
    write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) 0.0_rk, lo_val
    call out_check(of, ios, msg)
    do n = 1, size(c)
      write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) c(n), f(n)
      call out_check(of, ios, msg)
    end do
    write(of%unit, '(es22.14e3,",",es22.14e3)', iostat=ios, iomsg=msg) length, hi_val
    call out_check(of, ios, msg)
    call out_commit(of)
  end subroutine write_line
end module output_profiles
