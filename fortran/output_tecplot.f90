!> Tecplot ASCII: one ordered zone, coordinates at nodes, flow variables
!> cell-centred (BLOCK packing), readable by Tecplot 360 and ParaView.
module output_tecplot
  use kinds, only: rk, ng
  use grid_layout, only: layout_t
  use solver_params
  use case_config, only: case_error
  implicit none
  private
  public :: write_tecplot

contains

  subroutine write_tecplot(path, title, lay, sp, xn, qp)
    character(len=*), intent(in) :: path, title
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:)
    integer :: u, ios, i, j, k, c, m, ni, nj, nk
    character(len=512) :: msg
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    open(newunit=u, file=path, status='replace', action='write', iostat=ios, iomsg=msg)
    if (ios /= 0) call case_error('cannot write "'//trim(path)//'": '//trim(msg))
    write(u, '(a)') 'TITLE = "'//trim(title)//'"'
    write(u, '(a)') 'VARIABLES = "x" "y" "z" "rho" "u" "v" "w" "p" "T" "Mach"'
    write(u, '(a,i0,a,i0,a,i0,a)') 'ZONE T="flow", I=', ni + 1, ', J=', nj + 1, ', K=', nk + 1, &
      ', DATAPACKING=BLOCK, VARLOCATION=([4-10]=CELLCENTERED)'
    do c = 1, 3
      write(u, '(5es24.15e3)') (((xn(c, i, j, k), i = 0, ni), j = 0, nj), k = 0, nk)
    end do
    do m = 1, 6
      write(u, '(5es24.15e3)') (((qp(i, j, k, m), i = 1, ni), j = 1, nj), k = 1, nk)
    end do
    write(u, '(5es24.15e3)') (((sqrt(qp(i,j,k,2)**2 + qp(i,j,k,3)**2 + qp(i,j,k,4)**2)/ &
      sqrt(sp%gamma*qp(i,j,k,5)/qp(i,j,k,1)), i = 1, ni), j = 1, nj), k = 1, nk)
    close(u)
  end subroutine write_tecplot
end module output_tecplot
