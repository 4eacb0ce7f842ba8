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
  public :: write_plot3d_solution

  interface
    integer(c_int) function adi_p3d_write_solution(grid_path, q_path, n, xyz, q, head, msg, msglen) &
        bind(c, name='adi_p3d_write_solution')
      import :: c_int, c_int64_t, c_double, c_char
      character(kind=c_char), intent(in) :: grid_path(*), q_path(*)
      integer(c_int64_t), intent(in) :: n(3)
      real(c_double), intent(in) :: xyz(*), q(*), head(4)
      character(kind=c_char), intent(out) :: msg(*)
      integer(c_int), value :: msglen
    end function adi_p3d_write_solution
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
    real(rk), allocatable :: pn(:,:,:,:), q(:,:,:,:), xyz(:,:,:,:)
    real(rk) :: qc(5)
    integer :: i, j, k, c
    character(kind=c_char, len=msg_len) :: msg
    call node_primitives(lay, qp, pn)
    allocate(q(0:lay%ni, 0:lay%nj, 0:lay%nk, 5))
    !$omp parallel do private(i, j, qc)
    do k = 0, lay%nk
      do j = 0, lay%nj
        do i = 0, lay%ni
          call prim_to_cons(sp, pn(i, j, k, 1), pn(i, j, k, 2), pn(i, j, k, 3), pn(i, j, k, 4), pn(i, j, k, 5), qc)
          q(i, j, k, 1) = qc(1)
          q(i, j, k, 2:4) = qc(2:4)*mach
          q(i, j, k, 5) = qc(5)*(mach*mach)
        end do
      end do
    end do
    !$omp end parallel do
    deallocate(pn)
    allocate(xyz(0:lay%ni, 0:lay%nj, 0:lay%nk, 3))
    do c = 1, 3
      xyz(:, :, :, c) = xn(c, 0:lay%ni, 0:lay%nj, 0:lay%nk)
    end do
    msg = c_null_char
    if (adi_p3d_write_solution(c_string(dir//'/flow.xyz'), c_string(dir//'/flow.q'), &
        int([lay%ni + 1, lay%nj + 1, lay%nk + 1], c_int64_t), xyz, q, [mach, alpha, reynolds, 0.0_rk], msg, &
        int(msg_len, c_int)) /= 0) call io_error(from_c(msg))
  end subroutine write_plot3d_solution
end module plot3d_output
