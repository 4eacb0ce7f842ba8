/* Wrappers that make the static inline functions of cuda/common/portable_math.h
 * and cuda/common/boundary_states.h callable from Fortran
 * (tests/c_vs_fortran/test_boundary_states.f90), compiled by gcc with -ffp-contract=off like
 * the rest of the C code. */
#include "boundary_states.h"

double c_portable_log(double x) { return portable_log(x); }
double c_portable_exp(double y) { return portable_exp(y); }
double c_portable_pow(double x, double y) { return portable_pow(x, y); }

/* n = nx, ny, nz */
void c_slip_ghost_state(const double n[3], const double qm[5], double qg[5])
{
  slip_ghost_state(n[0], n[1], n[2], qm, qg);
}

/* fs = rinf, uinf, vinf, winf, pinf */
void c_farfield_ghost_state(const adi_solver_params *sp, const double fs[5], const double n[3],
                            const double qm[5], double qg[5])
{
  farfield_ghost_state(sp, fs[0], fs[1], fs[2], fs[3], fs[4], n[0], n[1], n[2], qm, qg);
}

/* in = p0, t0, dx, dy, dz; n = nx, ny, nz */
void c_subsonic_inflow_ghost_state(const adi_solver_params *sp, const double in[5], const double n[3],
                                   const double qm[5], double qg[5])
{
  subsonic_inflow_ghost_state(sp, in[0], in[1], in[2], in[3], in[4], n[0], n[1], n[2], qm, qg);
}

void c_subsonic_outflow_ghost_state(const adi_solver_params *sp, double p_out, const double qm[5],
                                    double qg[5])
{
  subsonic_outflow_ghost_state(sp, p_out, qm, qg);
}
