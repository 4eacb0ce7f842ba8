!> The final state as Plot3D files (case key write_plot3d), for
!> post-processing chains built on Plot3D: flow.xyz, the grid's nodes, and
!> flow.q, the conservative variables on those nodes (fortran/plot3d_write.c
!> says which variant of the format). The node values are the ones flow.vts
!> carries as point data (output_fields' node_primitives), made conservative
!> and scaled to Plot3D's convention: density over the reference density,
!> momenta over density times the reference speed of sound, total energy over
!> density times its square. The reference state here has density 1 and
!> sound speed 1/Mach (pressure 1/(gamma Mach^2)), so the momenta are
!> multiplied by Mach and the energy by Mach^2. Each block's header: Mach,
!> the angle of attack (degrees), the Reynolds number per unit length, time 0.
module plot3d_output
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_char, c_null_char
  use kinds, only: rk, ng, nprim
  use grid_layout, only: layout_t
  use solver_params, only: solver_params_t
  use output_fields, only: node_primitives
  use flow_math, only: prim_to_cons
  use sys_interface, only: c_string, from_c
  use case_config, only: io_error
  implicit none
  private
  public :: write_plot3d_solution, plot3d_node_values, write_plot3d_files, plot3d_max_blocks

  interface
    integer(c_int) function adi_p3d_write_solution(grid_path, q_path, nb, n, xyz, q, head, msg, msglen) &
        bind(c, name='adi_p3d_write_solution')
      import :: c_int, c_int64_t, c_double, c_char
      character(kind=c_char), intent(in) :: grid_path(*), q_path(*)
      integer(c_int), value :: nb
      integer(c_int64_t), intent(in) :: n(*)
      real(c_double), intent(in) :: xyz(*), q(*), head(4)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function adi_p3d_write_solution
    integer(c_int) function adi_p3d_max_blocks() bind(c, name='adi_p3d_max_blocks')
      import :: c_int
    end function adi_p3d_max_blocks
  end interface

  integer, parameter :: msg_len = 1024

contains

  !> dir/flow.xyz and dir/flow.q from the whole grid's nodes xn and
  !> primitives qp (boundary ghosts filled). mach, alpha, reynolds: the case's.
  subroutine write_plot3d_solution(dir, lay, sp, xn, qp, mach, alpha, reynolds)
    character(len=*), intent(in) :: dir
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:), mach, alpha, reynolds
    real(rk), allocatable :: xyz(:), q(:)
    call plot3d_node_values(lay, sp, xn, qp, mach, xyz, q)
    call write_plot3d_files(dir, reshape(int([lay%ni + 1, lay%nj + 1, lay%nk + 1], c_int64_t), [3, 1]), xyz, q, &
      [mach, alpha, reynolds, 0.0_rk])
  end subroutine write_plot3d_solution

  !> The blocks flow.xyz and flow.q can hold (fortran/plot3d_write.h).
  integer function plot3d_max_blocks()
    plot3d_max_blocks = int(adi_p3d_max_blocks())
  end function plot3d_max_blocks

  !> One block's nodes and node values in Plot3D's order (i fastest, then
  !> j, k; coordinate c of node m at xyz(c*N + m), value v at q(v*N + m),
  !> N its nodes), as the module's header says.
  subroutine plot3d_node_values(lay, sp, xn, qp, mach, xyz, q)
    type(layout_t), intent(in) :: lay
    type(solver_params_t), intent(in) :: sp
    real(rk), intent(in) :: xn(:,-ng:,-ng:,-ng:), qp(-1:,-1:,-1:,:), mach
    real(rk), allocatable, intent(out) :: xyz(:), q(:)
    real(rk), allocatable :: pn(:,:,:,:), qn(:,:,:,:), xc(:,:,:,:)
    real(rk) :: qc(5)
    integer :: i, j, k, c
    call node_primitives(lay, qp, pn)
    allocate(qn(0:lay%ni, 0:lay%nj, 0:lay%nk, 5))
    !$omp parallel do private(i, j, qc)
    do k = 0, lay%nk
      do j = 0, lay%nj
        do i = 0, lay%ni
          call prim_to_cons(sp, pn(i, j, k, 1), pn(i, j, k, 2), pn(i, j, k, 3), pn(i, j, k, 4), pn(i, j, k, 5), qc)
          qn(i, j, k, 1) = qc(1)
          qn(i, j, k, 2:4) = qc(2:4)*mach
          qn(i, j, k, 5) = qc(5)*(mach*mach)
        end do
      end do
    end do
    !$omp end parallel do
    deallocate(pn)
    allocate(xc(0:lay%ni, 0:lay%nj, 0:lay%nk, 3))
    do c = 1, 3
      xc(:, :, :, c) = xn(c, 0:lay%ni, 0:lay%nj, 0:lay%nk)
    end do
    xyz = reshape(xc, [size(xc)])
    q = reshape(qn, [size(qn)])
  end subroutine plot3d_node_values

  !> dir/flow.xyz and dir/flow.q of the blocks whose node counts are n(:, b),
  !> their plot3d_node_values one after another in xyz and q; head: each
  !> block's q header (Mach, alpha in degrees, Re per unit length, time).
  subroutine write_plot3d_files(dir, n, xyz, q, head)
    character(len=*), intent(in) :: dir
    integer(c_int64_t), intent(in) :: n(:,:)
    real(rk), intent(in) :: xyz(:), q(:), head(4)
    character(kind=c_char, len=msg_len) :: msg
    msg = c_null_char
    if (adi_p3d_write_solution(c_string(dir//'/flow.xyz'), c_string(dir//'/flow.q'), int(size(n, 2), c_int), n, xyz, &
        q, head, msg, int(msg_len, c_int)) /= 0) call io_error(from_c(msg))
  end subroutine write_plot3d_files
end module plot3d_output
