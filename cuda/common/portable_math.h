/* log, exp and pow built from + - * / and exact scalings only, so that the
 * host C code, the CUDA and HIP kernels and the Fortran reference return the
 * same bits (the libraries' pow differ by an ulp here and there between glibc,
 * CUDA and HIP). Used by the characteristic boundary states.
 *
 * Mirror of fortran/portable_math.f90 (the method and its accuracy are
 * described there): the same names and the same order of operations, so with
 * FMA contraction off (gcc -ffp-contract=off, nvcc --fmad=false) every function
 * returns the very same bits as its Fortran twin. frexp/ldexp are Fortran's
 * fraction/exponent and scale; round() is anint (halves away from zero).
 * tests/c_vs_fortran/test_boundary_states.f90 checks both. Change one, change the other.
 */
#ifndef ADIFLOW_PORTABLE_MATH_H
#define ADIFLOW_PORTABLE_MATH_H

#include <math.h>

#include "adiflow_math.h"   /* ADI_HD */

#define ADI_LN2_HI 6.93147180369123816490e-01
#define ADI_LN2_LO 1.90821492927058770002e-10
#define ADI_SQRT_HALF 0.70710678118654752440

/* Natural logarithm of x > 0 (normal numbers). */
ADI_HD static inline double portable_log(double x)
{
  int ie;
  double m = frexp(x, &ie);   /* [0.5, 1) */
  double s, s2, t, e;
  if (m < ADI_SQRT_HALF) {
    m = 2.0*m;
    ie = ie - 1;
  }
  s = (m - 1.0)/(m + 1.0);
  s2 = s*s;
  t = 1.0/23.0;
  t = t*s2 + 1.0/21.0;
  t = t*s2 + 1.0/19.0;
  t = t*s2 + 1.0/17.0;
  t = t*s2 + 1.0/15.0;
  t = t*s2 + 1.0/13.0;
  t = t*s2 + 1.0/11.0;
  t = t*s2 + 1.0/9.0;
  t = t*s2 + 1.0/7.0;
  t = t*s2 + 1.0/5.0;
  t = t*s2 + 1.0/3.0;
  t = t*s2 + 1.0;
  e = (double)ie;
  return e*ADI_LN2_HI + (e*ADI_LN2_LO + 2.0*s*t);
}

/* e**y for |y| < 700. */
ADI_HD static inline double portable_exp(double y)
{
  double kr = round(y/(ADI_LN2_HI + ADI_LN2_LO));
  int k = (int)kr;
  double x = (y - kr*ADI_LN2_HI) - kr*ADI_LN2_LO;
  double p = 1.0;
  for (int n = 17; n >= 1; n--)
    p = 1.0 + (x/(double)n)*p;
  return ldexp(p, k);
}

/* x**y for x > 0, as exp(y log x). */
ADI_HD static inline double portable_pow(double x, double y)
{
  return portable_exp(y*portable_log(x));
}

#endif
