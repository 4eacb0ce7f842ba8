/* Mirror of the bind(c) type solver_params_t in fortran/solver_params.f90:
 * same members, same order. Keep the two in step. */
#ifndef ADIFLOW_PARAMS_H
#define ADIFLOW_PARAMS_H

enum { ADI_BC_WALL = 0, ADI_BC_LID = 1, ADI_BC_PERIODIC = 2 };
enum { ADI_VISC_CONSTANT = 0, ADI_VISC_SUTHERLAND = 1 };
enum { ADI_LIM_VANALBADA = 0, ADI_LIM_MINMOD = 1, ADI_LIM_VANLEER = 2, ADI_LIM_VENKAT = 3 };
enum { ADI_WALL_ADIABATIC = 0, ADI_WALL_ISOTHERMAL = 1 };
/* roe_low_mach: Roe's dissipation as it is, or Rieper's (2011) low-Mach fix */
enum { ADI_ROE_LM_NONE = 0, ADI_ROE_LM_RIEPER = 1 };
/* implicit_precision: the LU-ADI operator in double or in single precision
 * (fortran/lu_adi.f90's header); the state and the residual stay double */
enum { ADI_IMPLICIT_DOUBLE = 0, ADI_IMPLICIT_SINGLE = 1 };

typedef struct adi_solver_params {
  double gamma;
  double gm1;          /* gamma - 1 */
  double ggm1;         /* gamma / (gamma - 1) */
  double gm2;          /* gamma * Mach^2: T = gm2 * p / rho */
  double re_inv;       /* 1 / Re */
  double cond_coef;    /* 1 / (Re Pr (gamma-1) Mach^2) */
  double sutherland_s;
  double efix;         /* Harten entropy-fix width, fraction of c */
  double vis_fac;      /* viscous spectral-radius factor */
  double t_wall;
  double lid_u, lid_v, lid_w;
  int visc_law;
  int order;
  int limiter;
  int wall_thermal;
  int bc[6];           /* imin, imax, jmin, jmax, kmin, kmax */
  int ni, nj, nk;
  int ldi, ldj, ldk;
  int roe_low_mach;    /* ADI_ROE_LM_NONE or ADI_ROE_LM_RIEPER (appended: older members keep their offsets) */
  int implicit_single; /* ADI_IMPLICIT_DOUBLE or ADI_IMPLICIT_SINGLE (appended, as roe_low_mach) */
  double lim_eps2;     /* ADI_LIM_VENKAT's eps^2 = (limiter_k / N)^3, N the largest cell count (appended) */
} adi_solver_params;

#endif
