!> Tecplot ASCII: one ordered zone, coordinates at nodes, flow variables
!> cell-centred (BLOCK packing), readable by Tecplot 360 and ParaView.
module output_tecplot
  use kinds, only: rk, ng
  use grid_layout, only: layout_t
  use solver_params
  use output_file, only: out_file_t, out_open, out_check, out_commit
  implicit none
  private
  public :: write_tecplot

contains

  subroutine write_tecplot(path, title, lay, sp, xn, qp)
    character(len=*), intent(in) :: path, title
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:)
    type(out_file_t) :: of
    integer :: ios, i, j, k, c, m, ni, nj, nk
    character(len=512) :: msg
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    call out_open(of, path)
    write(of%unit, '(a)', iostat=ios, iomsg=msg) 'TITLE = "'//quote_free(title)//'"'
    call out_check(of, ios, msg)
    write(of%unit, '(a)', iostat=ios, iomsg=msg) 'VARIABLES = "x" "y" "z" "rho" "u" "v" "w" "p" "T" "Mach"'
    call out_check(of, ios, msg)
    write(of%unit, '(a,i0,a,i0,a,i0,a)', iostat=ios, iomsg=msg) 'ZONE T="flow", I=', ni + 1, ', J=', nj + 1, ', K=', nk + 1, &
      ', DATAPACKING=BLOCK, VARLOCATION=([4-10]=CELLCENTERED)'
    call out_check(of, ios, msg)
    do c = 1, 3
      write(of%unit, '(5es24.15e3)', iostat=ios, iomsg=msg) (((xn(c, i, j, k), i = 0, ni), j = 0, nj), k = 0, nk)
      call out_check(of, ios, msg)
    end do
    do m = 1, 6
      write(of%unit, '(5es24.15e3)', iostat=ios, iomsg=msg) (((qp(i, j, k, m), i = 1, ni), j = 1, nj), k = 1, nk)
      call out_check(of, ios, msg)
    end do
    write(of%unit, '(5es24.15e3)', iostat=ios, iomsg=msg) (((sqrt(qp(i,j,k,2)**2 + qp(i,j,k,3)**2 + qp(i,j,k,4)**2)/ &
      sqrt(sp%gamma*qp(i,j,k,5)/qp(i,j,k,1)), i = 1, ni), j = 1, nj), k = 1, nk)
    call out_check(of, ios, msg)
    call out_commit(of)
  end subroutine write_tecplot

  !> The title with its double quotes turned into single ones: Tecplot's
  !> string ends at the first double quote.
  pure function quote_free(title) result(t)
    character(len=*), intent(in) :: title
    character(len=len_trim(title)) :: t
    integer :: i
    t = title(1:len_trim(title))
    do i = 1, len(t)
      if (t(i:i) == '"' .or. iachar(t(i:i)) < 32) t(i:i) = "'"
    end do
  end function quote_free
end module output_tecplot
