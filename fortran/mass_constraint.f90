!> Mass-level constraint (case key mass_fix): after each update the interior
!> state is scaled so that the total mass stays at its reference value M0.
!>
!> Why: a closed cavity's steady equations leave the total mass free, and
!> the LU-ADI path with local time stepping does not conserve it, so every
!> convergence path (single domain, decoupled blocks, ...) ends at its own
!> mass level. Scaling rho, rho*u, rho*v, rho*w and E by one factor s keeps
!> u, v, w and T and moves only that level.
!>
!> The total is summed in a fixed order: per k-plane in j-then-i order, then
!> the planes in k order (the pattern of residual_norms.f90). So the result
!> does not depend on the OpenMP thread count, and a j/k block decomposition
!> reproduces it bit for bit by chaining the plane sums along the j ranks
!> (fortran/mpi_decomp.f90, mpi_total_mass).
!>
!> M0 is the mass of rho = 1 in every cell (the initial state of both
!> drivers), i.e. the volume sum in the same order. It is recomputed from the
!> grid, never stored, so a restart continues with the very same M0.
module mass_constraint
  use kinds, only: rk
  use grid_layout, only: layout_t
  implicit none
  private
  public :: add_mass_plane_sums, mass_from_plane_sums, total_mass, rescale_to_mass

contains

  !> plane(k) += sum over the plane k of vol*rho, j then i in order (a block
  !> of a decomposed grid starts from the sums of the blocks below it in j).
  !> Without q, rho = 1: the plane sums of the reference mass M0.
  subroutine add_mass_plane_sums(lay, vol, plane, q)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: plane(:)
    real(rk), intent(in), optional :: q(-1:,-1:,-1:,:)
    integer :: i, j, k
    ! one thread per plane: the order inside a plane never changes
    if (present(q)) then
      !$omp parallel do private(i, j)
      do k = 1, lay%nk
        do j = 1, lay%nj
          do i = 1, lay%ni
            plane(k) = plane(k) + vol(i,j,k)*q(i,j,k,1)
          end do
        end do
      end do
      !$omp end parallel do
    else
      !$omp parallel do private(i, j)
      do k = 1, lay%nk
        do j = 1, lay%nj
          do i = 1, lay%ni
            plane(k) = plane(k) + vol(i,j,k)
          end do
        end do
      end do
      !$omp end parallel do
    end if
  end subroutine add_mass_plane_sums

  !> The total from the plane sums of the whole grid, added in k order.
  pure function mass_from_plane_sums(plane) result(m)
    real(rk), intent(in) :: plane(:)
    real(rk) :: m
    integer :: k
    m = 0.0_rk
    do k = 1, size(plane)
      m = m + plane(k)
    end do
  end function mass_from_plane_sums

  !> Total mass of the interior of a single domain (q absent: rho = 1, M0).
  function total_mass(lay, vol, q) result(m)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: vol(-1:,-1:,-1:)
    real(rk), intent(in), optional :: q(-1:,-1:,-1:,:)
    real(rk) :: m
    real(rk), allocatable :: plane(:)
    allocate(plane(lay%nk))
    plane = 0.0_rk
    call add_mass_plane_sums(lay, vol, plane, q)
    m = mass_from_plane_sums(plane)
  end function total_mass

  !> Scale the five conservative variables of every interior cell by
  !> s = m0/m (m: the current total mass). The ghosts are left alone: the
  !> next boundary fill recomputes them from the interior.
  subroutine rescale_to_mass(lay, q, m0, m)
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), intent(in) :: m0, m
    real(rk) :: s
    integer :: i, j, k, v
    s = m0/m
    !$omp parallel do collapse(2) private(i, v)
    do k = 1, lay%nk
      do j = 1, lay%nj
        do v = 1, 5
          do i = 1, lay%ni
            q(i,j,k,v) = s*q(i,j,k,v)
          end do
        end do
      end do
    end do
    !$omp end parallel do
  end subroutine rescale_to_mass
end module mass_constraint
