!> Builds a solver set-up in memory (layout, parameters, fields, grid,
!> metrics) for the unit tests, the way the driver does.
module case_setup
  use kinds, only: rk
  use grid_layout
  use solver_params
  use case_config
  use flow_fields
  use grid_generation, only: generate_nodes
  use metrics, only: compute_metrics
  implicit none
  private
  public :: setup_case

contains

  subroutine setup_case(cs, lay, sp, f)
    type(case_t), intent(in) :: cs
    type(layout_t), intent(out) :: lay
    type(solver_params_t), intent(out) :: sp
    type(fields_t), intent(out) :: f
    real(rk), allocatable :: xn(:,:,:,:)
    call validate_case(cs)
    sp = make_solver_params(cs)
    lay = make_layout(cs%ni, cs%nj, cs%nk)
    sp%ldi = lay%ldi; sp%ldj = lay%ldj; sp%ldk = lay%ldk
    call allocate_fields(lay, f)
    call generate_nodes(cs, xn)
    call compute_metrics(lay, xn, f%sf, f%sc, f%vol, f%xc)
  end subroutine setup_case
end module case_setup
