!> Node coordinates of the structured grid, ghost nodes included.
!>
!> Nodes are numbered 0..n (cell i lies between node planes i-1 and i) and
!> extended by two ghost planes on each side, so ghost cells get proper
!> metrics from the same formulas: by linear extrapolation of the end spacing
!> at walls, and as the shifted periodic images in periodic directions (so a
!> ghost cell's metrics equal its partner's and fluxes telescope exactly).
module grid_generation
  use kinds, only: rk, ng
  use case_config, only: case_t
  implicit none
  private
  public :: fill_ghost_nodes_direction, generate_nodes, stretch_1d, fill_ghost_nodes

  real(rk), parameter :: pi = 3.14159265358979323846_rk

contains

  !> Two-sided tanh clustering of n intervals on [0, L]; beta = 0 is uniform.
  pure function stretch_1d(n, length, beta) result(x)
    integer, intent(in) :: n
    real(rk), intent(in) :: length, beta
    real(rk) :: x(0:n), s
    integer :: i
    do i = 0, n
      s = real(i, rk)/real(n, rk)
      if (beta > 0.0_rk) then
        x(i) = length*0.5_rk*(1.0_rk + tanh(beta*(2.0_rk*s - 1.0_rk))/tanh(beta))
      else
        x(i) = length*s
      end if
    end do
    x(0) = 0.0_rk
    x(n) = length
  end function stretch_1d

  !> xn(1:3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng)
  subroutine generate_nodes(cs, xn)
    type(case_t), intent(in) :: cs
    real(rk), allocatable, intent(out) :: xn(:,:,:,:)
    real(rk), allocatable :: x1(:), y1(:), z1(:)
    real(rk) :: sx, sy, sz, bump
    integer :: i, j, k, ni, nj, nk

    ni = cs%ni; nj = cs%nj; nk = cs%nk
    allocate(xn(3, -ng:ni+ng, -ng:nj+ng, -ng:nk+ng))
    allocate(x1(0:ni), y1(0:nj), z1(0:nk))
    x1 = stretch_1d(ni, cs%lx, cs%beta_x)
    y1 = stretch_1d(nj, cs%ly, cs%beta_y)
    z1 = stretch_1d(nk, cs%lz, cs%beta_z)
    ! k planes in parallel: a 512^3 grid's nodes are 3.3 GB, and each value
    ! depends on its own indices only
    !$omp parallel do private(i, j, sx, sy, sz, bump)
    do k = -ng, nk + ng
      xn(:, :, :, k) = 0.0_rk
      if (k < 0 .or. k > nk) cycle
      do j = 0, nj
        do i = 0, ni
          xn(1, i, j, k) = x1(i)
          xn(2, i, j, k) = y1(j)
          xn(3, i, j, k) = z1(k)
          if (cs%grid_type == 'wavy') then
            ! smooth interior distortion that vanishes on the boundary planes:
            ! a genuinely curvilinear grid for free-stream tests
            sx = real(i, rk)/real(ni, rk)
            sy = real(j, rk)/real(nj, rk)
            sz = real(k, rk)/real(nk, rk)
            bump = cs%wavy_amplitude*sin(2.0_rk*pi*sx)*sin(2.0_rk*pi*sy)*sin(2.0_rk*pi*sz)
            xn(1, i, j, k) = xn(1, i, j, k) + cs%lx*bump
            xn(2, i, j, k) = xn(2, i, j, k) + cs%ly*bump*cos(pi*sx)
            xn(3, i, j, k) = xn(3, i, j, k) - cs%lz*bump*cos(pi*sy)
          end if
        end do
      end do
    end do
    !$omp end parallel do
    call fill_ghost_nodes(xn, ni, nj, nk, [cs%bc_imin == 'periodic', cs%bc_jmin == 'periodic', &
      cs%bc_kmin == 'periodic'])
  end subroutine generate_nodes

  !> The two ghost node planes on every side of nodes 0..n (a grid of any
  !> level: fortran/multigrid_levels.f90 calls it for the coarse grids):
  !> linear extrapolation of the end spacing at walls, the shifted periodic
  !> images in periodic directions; i first (physical j, k), then j (all i),
  !> then k (all i, j).
  subroutine fill_ghost_nodes(xn, ni, nj, nk, periodic)
    real(rk), intent(inout) :: xn(:, -ng:, -ng:, -ng:)
    integer, intent(in) :: ni, nj, nk
    logical, intent(in) :: periodic(3)
    integer :: d
    do d = 1, 3
      call fill_ghost_nodes_direction(xn, ni, nj, nk, periodic(d), d)
    end do
  end subroutine fill_ghost_nodes

  !> The ghost node planes of direction d alone, as fill_ghost_nodes fills
  !> them (a block of several: its interface ghosts come in between,
  !> fortran/block_halos.f90).
  subroutine fill_ghost_nodes_direction(xn, ni, nj, nk, periodic, d)
    real(rk), intent(inout) :: xn(:, -ng:, -ng:, -ng:)
    integer, intent(in) :: ni, nj, nk, d
    logical, intent(in) :: periodic
    integer :: m
    select case (d)
    case (1)
      do m = 1, ng
        if (periodic) then
          xn(:, -m, 0:nj, 0:nk) = xn(:, ni-m, 0:nj, 0:nk) - (xn(:, ni, 0:nj, 0:nk) - xn(:, 0, 0:nj, 0:nk))
          xn(:, ni+m, 0:nj, 0:nk) = xn(:, m, 0:nj, 0:nk) + (xn(:, ni, 0:nj, 0:nk) - xn(:, 0, 0:nj, 0:nk))
        else
          xn(:, -m, 0:nj, 0:nk) = xn(:, 0, 0:nj, 0:nk) + real(m, rk)*(xn(:, 0, 0:nj, 0:nk) - xn(:, 1, 0:nj, 0:nk))
          xn(:, ni+m, 0:nj, 0:nk) = xn(:, ni, 0:nj, 0:nk) + real(m, rk)*(xn(:, ni, 0:nj, 0:nk) - xn(:, ni-1, 0:nj, 0:nk))
        end if
      end do
    case (2)
      do m = 1, ng
        if (periodic) then
          xn(:, :, -m, 0:nk) = xn(:, :, nj-m, 0:nk) - (xn(:, :, nj, 0:nk) - xn(:, :, 0, 0:nk))
          xn(:, :, nj+m, 0:nk) = xn(:, :, m, 0:nk) + (xn(:, :, nj, 0:nk) - xn(:, :, 0, 0:nk))
        else
          xn(:, :, -m, 0:nk) = xn(:, :, 0, 0:nk) + real(m, rk)*(xn(:, :, 0, 0:nk) - xn(:, :, 1, 0:nk))
          xn(:, :, nj+m, 0:nk) = xn(:, :, nj, 0:nk) + real(m, rk)*(xn(:, :, nj, 0:nk) - xn(:, :, nj-1, 0:nk))
        end if
      end do
    case (3)
      do m = 1, ng
        if (periodic) then
          xn(:, :, :, -m) = xn(:, :, :, nk-m) - (xn(:, :, :, nk) - xn(:, :, :, 0))
          xn(:, :, :, nk+m) = xn(:, :, :, m) + (xn(:, :, :, nk) - xn(:, :, :, 0))
        else
          xn(:, :, :, -m) = xn(:, :, :, 0) + real(m, rk)*(xn(:, :, :, 0) - xn(:, :, :, 1))
          xn(:, :, :, nk+m) = xn(:, :, :, nk) + real(m, rk)*(xn(:, :, :, nk) - xn(:, :, :, nk-1))
        end if
      end do
    end select
  end subroutine fill_ghost_nodes_direction
end module grid_generation
