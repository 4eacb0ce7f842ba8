!> The halos across a block interface (fortran/block_halos.f90): a wavy grid
!> split into two blocks along i, the second stored as it is, turned round
!> (i and j reversed) or with its index directions cycled (its i, j, k the
!> grid's j, k, i: a transform that is not its own inverse); each keeps the
!> block right-handed. The interface is found from
!> the coordinates (fortran/block_interfaces.c). Each block's ghost cells and
!> ghost nodes beyond the interface must equal the whole grid's cells and
!> nodes there, bit for bit; the ghost cells' volumes equal the whole grid's
!> (bit for bit on the block stored as the grid is, to round-off on the
!> turned one); nothing beyond the block's other faces is touched.
program test_block_halos
  use kinds, only: rk, ng
  use case_config, only: case_t
  use grid_generation, only: generate_nodes
  use grid_blocks, only: grid_block_set_t, block_interface_t, find_set_interfaces, GRID_BLOCKS_OK
  use block_halos, only: fill_interface_cells, fill_interface_nodes
  use metrics, only: cell_volume
  use case_setup, only: split_in_two, whole_of_block2
  use test_util
  implicit none
  integer, parameter :: ni = 8, nj = 6, nk = 5, icut = 3   ! block 1: cells 1..icut, block 2: icut+1..ni
  real(rk), parameter :: unset = -999.0_rk
  type(case_t) :: cs
  real(rk), allocatable :: xw(:,:,:,:), qw(:,:,:,:)
  integer :: i, j, k, m, mode

  cs%ni = ni; cs%nj = nj; cs%nk = nk
  cs%grid_type = 'wavy'; cs%wavy_amplitude = 0.04_rk
  cs%beta_x = 1.1_rk; cs%beta_y = 1.2_rk; cs%beta_z = 1.0_rk
  call generate_nodes(cs, xw)
  allocate(qw(-1:ni+2, -1:nj+2, -1:nk+2, 5))
  do m = 1, 5
    do k = -1, nk + 2
      do j = -1, nj + 2
        do i = -1, ni + 2
          qw(i, j, k, m) = 1000.0_rk*m + 100.0_rk*i + 10.0_rk*j + k + 0.125_rk
        end do
      end do
    end do
  end do
  do mode = 0, 2
    call one_split(mode)
  end do
  call test_summary()

contains

  pure function cell_of_2(mode, p) result(w)
    integer, intent(in) :: mode, p(3)
    integer :: w(3)
    w = whole_of_block2(mode, [ni, nj, nk], icut, p, .true.)
  end function cell_of_2

  pure function node_of_2(mode, p) result(w)
    integer, intent(in) :: mode, p(3)
    integer :: w(3)
    w = whole_of_block2(mode, [ni, nj, nk], icut, p, .false.)
  end function node_of_2

  subroutine one_split(mode)
    integer, intent(in) :: mode
    character(len=*), parameter :: how(0:2) = ['as stored', 'turned   ', 'cycled   ']
    character(len=:), allocatable :: tag, msg
    real(rk), allocatable :: x1(:,:,:,:), x2(:,:,:,:), q1(:,:,:,:), q2(:,:,:,:)
    type(grid_block_set_t) :: set
    type(block_interface_t) :: itf
    integer :: n1(3), n2(3), st, w(3), clo(3), chi(3), nlo(3), nhi(3), d
    logical :: ok, a_is_1
    real(rk) :: worst

    tag = 'block 2 '//trim(how(mode))//': '
    call split_in_two(xw, [ni, nj, nk], icut, mode, set)
    n1 = set%blocks(1)%n
    n2 = set%blocks(2)%n
    allocate(x1(3, -ng:icut+ng, -ng:nj+ng, -ng:nk+ng), x2(3, -ng:n2(1)-1+ng, -ng:n2(2)-1+ng, -ng:n2(3)-1+ng))
    allocate(q1(-1:icut+2, -1:nj+2, -1:nk+2, 5), q2(-1:n2(1)+1, -1:n2(2)+1, -1:n2(3)+1, 5))
    x1 = unset; x2 = unset; q1 = unset; q2 = unset
    x1(:, 0:icut, 0:nj, 0:nk) = set%blocks(1)%xyz
    x2(:, 0:n2(1)-1, 0:n2(2)-1, 0:n2(3)-1) = set%blocks(2)%xyz
    q1(1:icut, 1:nj, 1:nk, :) = qw(1:icut, 1:nj, 1:nk, :)
    do k = 1, n2(3) - 1
      do j = 1, n2(2) - 1
        do i = 1, n2(1) - 1
          w = cell_of_2(mode, [i, j, k])
          q2(i, j, k, :) = qw(w(1), w(2), w(3), :)
        end do
      end do
    end do

    ! the interface as the finder gives it
    call find_set_interfaces(set, st, msg)
    call check(st == GRID_BLOCKS_OK .and. size(set%interfaces) == 1, tag//'the finder gives one interface')
    if (st /= GRID_BLOCKS_OK .or. size(set%interfaces) /= 1) return
    itf = set%interfaces(1)
    a_is_1 = itf%a%block == 1

    call fill_interface_nodes(itf, a_is_1, n1, x1, x2)
    call fill_interface_nodes(itf, .not. a_is_1, n2, x2, x1)
    call fill_interface_cells(itf, a_is_1, n1, q1, q2)
    call fill_interface_cells(itf, .not. a_is_1, n2, q2, q1)

    ! block 1: beyond its i = max face
    call check(all(x1(:, icut+1:icut+2, 0:nj, 0:nk) == xw(:, icut+1:icut+2, 0:nj, 0:nk)), &
      tag//'block 1''s two ghost node layers beyond the interface = the whole grid''s nodes, bit for bit')
    call check(all(q1(icut+1:icut+2, 1:nj, 1:nk, :) == qw(icut+1:icut+2, 1:nj, 1:nk, :)), &
      tag//'block 1''s two ghost cell layers beyond the interface = the whole grid''s cells, bit for bit')
    ok = .true.
    do k = 1, nk
      do j = 1, nj
        do i = icut + 1, icut + 2
          ok = ok .and. cell_volume(x1, i, j, k) == cell_volume(xw, i, j, k)
        end do
      end do
    end do
    call check(ok, tag//'block 1''s ghost cells'' volumes (from the ghost nodes) = the whole grid''s, bit for bit')
    call check(all(q1(-1:0, :, :, :) == unset) .and. all(q1(:, -1:0, :, :) == unset) .and. &
      all(x1(:, -ng:-1, :, :) == unset), tag//'block 1''s other faces'' ghosts untouched')

    ! block 2: beyond the face that meets block 1 (as stored: i = 1; turned: i = max; cycled: k = 1)
    d = merge(3, 1, mode == 2)
    clo = 1; chi = n2 - 1; nlo = 0; nhi = n2 - 1
    if (mode == 1) then
      clo(d) = n2(d); chi(d) = n2(d) + 1; nlo(d) = n2(d); nhi(d) = n2(d) + 1
    else
      clo(d) = -1; chi(d) = 0; nlo(d) = -2; nhi(d) = -1
    end if
    ok = .true.
    do k = clo(3), chi(3)
      do j = clo(2), chi(2)
        do i = clo(1), chi(1)
          w = cell_of_2(mode, [i, j, k])
          ok = ok .and. all(q2(i, j, k, :) == qw(w(1), w(2), w(3), :))
        end do
      end do
    end do
    call check(ok, tag//'block 2''s two ghost cell layers beyond the interface = the whole grid''s cells, bit for bit')
    ok = .true.
    do k = nlo(3), nhi(3)
      do j = nlo(2), nhi(2)
        do i = nlo(1), nhi(1)
          w = node_of_2(mode, [i, j, k])
          ok = ok .and. all(x2(:, i, j, k) == xw(:, w(1), w(2), w(3)))
        end do
      end do
    end do
    call check(ok, tag//'block 2''s two ghost node layers beyond the interface = the whole grid''s nodes, bit for bit')
    worst = 0.0_rk
    do k = clo(3), chi(3)
      do j = clo(2), chi(2)
        do i = clo(1), chi(1)
          w = cell_of_2(mode, [i, j, k])
          worst = max(worst, abs(cell_volume(x2, i, j, k) - cell_volume(xw, w(1), w(2), w(3)))/cell_volume(xw, w(1), w(2), w(3)))
        end do
      end do
    end do
    call check(worst <= 1.0e-13_rk, tag//'block 2''s ghost cells'' volumes = the whole grid''s to round-off (1e-13)')
  end subroutine one_split
end program test_block_halos
