!> Mass-level constraint (case key mass_fix): after each update the interior
!> state is scaled so that the total mass stays at its reference value M0.
!>
!> Why: a closed cavity's steady equations leave the total mass free, and
!> the LU-ADI path with local time stepping does not conserve it, so every
!> convergence path (single domain, decoupled blocks, ...) ends at its own
!> mass level. Scaling rho, rho*u, rho*v, rho*w and E by one factor s keeps
!> u, v, w and T and moves only that level.
!>
!> The total is summed in one fixed order, shared with the GPU backend's
!> mass kernels (cuda/common/adiflow_stages.h: mass_row_sum, mass_plane_sum_from,
!> cuda/api/mass.cu): first each (j,k) row from 0 over i in order
!> (mass_row_sum), then per k-plane the rows added in j order onto the
!> plane's running sum, then the planes in k order (mass_from_plane_sums).
!> Row sums first because they parallelise: the GPU gives one thread to a
!> row (ni terms) and one to a plane (nj terms) instead of ni*nj terms to a
!> thread per plane. The result does not depend on the OpenMP thread count,
!> and a j/k block decomposition reproduces it bit for bit: i is never split,
!> so the rows are whole on every rank, and the plane sums run on along the
!> j ranks (fortran/mpi_decomp.f90, mpi_total_mass).
!>
!> M0 is the mass of rho = 1 in every cell (the initial state of both
!> drivers), i.e. the volume sum in the same order. It is recomputed from the
!> grid, never stored, so a restart continues with the very same M0.
module mass_constraint
  use kinds, only: rk
  use grid_layout, only: layout_t
  use omp_policy, only: team_for
  implicit none
  private
  public :: mass_row_sum, add_mass_plane_sums, mass_from_plane_sums, total_mass
  public :: mass_scale_factor, scale_state, rescale_to_mass

contains

  !> Sum of vol*rho over the row (j, k), i in order from 0 (q absent: rho = 1,
  !> the volume). Mirror: mass_row_sum in cuda/common/adiflow_stages.h.
  pure function mass_row_sum(lay, vol, j, k, q) result(r)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: vol(-1:,-1:,-1:)
    integer, intent(in) :: j, k
    real(rk), intent(in), optional :: q(-1:,-1:,-1:,:)
    real(rk) :: r
    integer :: i
    r = 0.0_rk
    if (present(q)) then
      do i = 1, lay%ni
        r = r + vol(i,j,k)*q(i,j,k,1)
      end do
    else
      do i = 1, lay%ni
        r = r + vol(i,j,k)
      end do
    end if
  end function mass_row_sum

  !> plane(k) += the row sums of plane k, added in j order (a block of a
  !> decomposed grid starts from the sums of the blocks below it in j).
  !> Without q, rho = 1: the plane sums of the reference mass M0.
  !> Mirror of the j loop: mass_plane_sum_from in cuda/common/adiflow_stages.h.
  subroutine add_mass_plane_sums(lay, vol, plane, q)
    type(layout_t), intent(in) :: lay
    real(rk), intent(in) :: vol(-1:,-1:,-1:)
    real(rk), intent(inout) :: plane(:)
    real(rk), intent(in), optional :: q(-1:,-1:,-1:,:)
    integer :: j, k
    ! one thread per plane: the order inside a plane never changes
    !$omp parallel do num_threads(team_for(lay)) private(j)
    do k = 1, lay%nk
      do j = 1, lay%nj
        plane(k) = plane(k) + mass_row_sum(lay, vol, j, k, q)
      end do
    end do
    !$omp end parallel do
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

  !> The factor that brings the total mass m back to m0 (one place, so the
  !> CPU and GPU paths divide alike).
  pure function mass_scale_factor(m0, m) result(s)
    real(rk), intent(in) :: m0, m
    real(rk) :: s
    s = m0/m
  end function mass_scale_factor

  !> Scale the five conservative variables of every interior cell by s. The
  !> ghosts are left alone: the next boundary fill recomputes them from the
  !> interior. Mirror: scale_state_point in cuda/common/adiflow_stages.h.
  subroutine scale_state(lay, q, s)
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), intent(in) :: s
    integer :: i, j, k, v
    !$omp parallel do num_threads(team_for(lay)) collapse(2) private(i, v)
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
  end subroutine scale_state

  !> Scale the interior state by s = m0/m (m: the current total mass).
  subroutine rescale_to_mass(lay, q, m0, m)
    type(layout_t), intent(in) :: lay
    real(rk), intent(inout) :: q(-1:,-1:,-1:,:)
    real(rk), intent(in) :: m0, m
    call scale_state(lay, q, mass_scale_factor(m0, m))
  end subroutine rescale_to_mass
end module mass_constraint
