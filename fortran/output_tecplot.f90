!> Tecplot ASCII: one ordered zone (a zone per block of a multi-block
!> run), coordinates at nodes, the flow
!> variables of fortran/output_fields.f90 cell-centred (BLOCK packing; the
!> solver's cell values, as flow.vts's cell data), a vector's components as
!> separate variables under their component names (velocity: u v w).
!> Readable by Tecplot 360 and ParaView.
module output_tecplot
  use kinds, only: rk, ng
  use grid_layout, only: layout_t
  use solver_params
  use output_file, only: out_file_t, out_open, out_check, out_commit
  use output_fields, only: out_vars, OV_VORTICITY, out_column_count, primitive_values, cell_vorticity
  implicit none
  private
  public :: write_tecplot, tecplot_open, tecplot_zone

contains

  !> qp: the primitives after the boundary fill; sf, vol: the metrics (the
  !> vorticity's Green-Gauss sums), as write_vts takes them.
  subroutine write_tecplot(path, title, lay, sp, xn, qp, sf, vol)
    character(len=*), intent(in) :: path, title
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:), sf(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    type(out_file_t) :: of
    call tecplot_open(of, path, title)
    call tecplot_zone(of, 'flow', lay, sp, xn, qp, sf, vol)
    call out_commit(of)
  end subroutine write_tecplot

  !> A Tecplot file's header (title, variables); its zones follow
  !> (tecplot_zone), then out_commit. A multi-block run writes a zone per
  !> block (fortran/run_files_blocks.f90).
  subroutine tecplot_open(of, path, title)
    type(out_file_t), intent(inout) :: of
    character(len=*), intent(in) :: path, title
    integer :: ios, c, v
    character(len=:), allocatable :: names
    character(len=512) :: msg
    names = '"x" "y" "z"'
    do v = 1, size(out_vars)
      do c = 1, out_vars(v)%ncomp
        names = names//' "'//trim(out_vars(v)%comp(c))//'"'
      end do
    end do
    call out_open(of, path)
    write(of%unit, '(a)', iostat=ios, iomsg=msg) 'TITLE = "'//quote_free(title)//'"'
    call out_check(of, ios, msg)
    write(of%unit, '(a)', iostat=ios, iomsg=msg) 'VARIABLES = '//names
    call out_check(of, ios, msg)
  end subroutine tecplot_open

  !> One ordered zone named name: the grid's nodes, the variables cell-centred.
  subroutine tecplot_zone(of, name, lay, sp, xn, qp, sf, vol)
    type(out_file_t), intent(inout) :: of
    character(len=*), intent(in) :: name
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:), sf(-1:,-1:,-1:,:), vol(-1:,-1:,-1:)
    integer :: ios, i, j, k, c, v, ni, nj, nk
    real(rk), allocatable :: om(:,:,:,:), vals(:,:,:,:)
    character(len=512) :: msg
    ni = lay%ni; nj = lay%nj; nk = lay%nk
    write(of%unit, '(a,i0,a,i0,a,i0,a,i0,a)', iostat=ios, iomsg=msg) 'ZONE T="'//quote_free(name)//'", I=', ni + 1, &
      ', J=', nj + 1, ', K=', nk + 1, ', DATAPACKING=BLOCK, VARLOCATION=([4-', 3 + out_column_count(), ']=CELLCENTERED)'
    call out_check(of, ios, msg)
    do c = 1, 3
      write(of%unit, '(5es24.15e3)', iostat=ios, iomsg=msg) (((xn(c, i, j, k), i = 0, ni), j = 0, nj), k = 0, nk)
      call out_check(of, ios, msg)
    end do
    call cell_vorticity(lay, qp, sf, vol, om)
    do v = 1, size(out_vars)
      if (v == OV_VORTICITY) then
        vals = om(1:ni, 1:nj, 1:nk, :)
      else
        vals = primitive_values(v, sp, qp(1:ni, 1:nj, 1:nk, :))
      end if
      do c = 1, out_vars(v)%ncomp
        write(of%unit, '(5es24.15e3)', iostat=ios, iomsg=msg) vals(:,:,:,c)
        call out_check(of, ios, msg)
      end do
    end do
  end subroutine tecplot_zone

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
