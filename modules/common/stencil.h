/* stencil.h - what the modules share of their numerics (header only): the
 * precision `real`, the MOD_HD qualifier, the 8th-order coefficients of
 * d2/dx2 and the one place where the 2D wave-equation update is written
 * (wave2d, and ooc2d's eq = wave; stencil3d builds its 3D star on the same
 * coefficients).
 *
 * Included from C (CPU reference, MPI ranks) and from CUDA (all GPU kernels),
 * so every mode performs exactly the same IEEE operations in the same order.
 * Bit-identity additionally needs contraction off: gcc -ffp-contract=off,
 * nvcc --fmad=false (the module make fragments set both).
 */
#ifndef MOD_STENCIL_H
#define MOD_STENCIL_H

/* "__host__ __device__ __forceinline__" under nvcc and hipcc (make hip's
 * wave2d), "static inline" in C */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define MOD_HD __host__ __device__ __forceinline__
#else
#define MOD_HD static inline
#endif

/* float, or double with -DMOD_DOUBLE (a module build's choice; the common
 * library itself does not depend on it) */
#ifdef MOD_DOUBLE
typedef double real;
#define MOD_REAL_NAME "double"
#define MOD_REAL_IS_DOUBLE 1
#else
typedef float real;
#define MOD_REAL_NAME "float"
#define MOD_REAL_IS_DOUBLE 0
#endif

/* Halo width = stencil radius. */
#define WAVE_R 4

/* Standard 8th-order central coefficients of d2/dx2 (times h^2). */
#define WAVE_C0 (-205.0 / 72.0)
#define WAVE_C1 (8.0 / 5.0)
#define WAVE_C2 (-1.0 / 5.0)
#define WAVE_C3 (8.0 / 315.0)
#define WAVE_C4 (-1.0 / 560.0)

/* One leapfrog update of the damped acoustic wave equation at one cell.
 *   c      u^n at the cell              prev  u^{n-1} at the cell
 *   k      (v dt / h)^2 at the cell     gx,gy sponge factors (1 = no damping)
 *   xmD/xpD, ymD/ypD  u^n at distance D in -x/+x/-y/+y
 * Returns u^{n+1} = g * ((2u - g u^{n-1}) + k * L u),  g = gx*gy,
 * L u = 2 C0 u + sum_D C_D ((x-D + x+D) + (y-D + y+D)).
 * With g == 1 this is the plain second-order leapfrog scheme. */
MOD_HD real wave_update(real c, real prev, real k, real gx, real gy,
                         real xm4, real xm3, real xm2, real xm1,
                         real xp1, real xp2, real xp3, real xp4,
                         real ym4, real ym3, real ym2, real ym1,
                         real yp1, real yp2, real yp3, real yp4)
{
    const real c0 = (real)(2.0 * WAVE_C0);
    const real c1 = (real)WAVE_C1, c2 = (real)WAVE_C2;
    const real c3 = (real)WAVE_C3, c4 = (real)WAVE_C4;
    real g = gx * gy;
    real s = c0 * c;
    s = s + c1 * ((xm1 + xp1) + (ym1 + yp1));
    s = s + c2 * ((xm2 + xp2) + (ym2 + yp2));
    s = s + c3 * ((xm3 + xp3) + (ym3 + yp3));
    s = s + c4 * ((xm4 + xp4) + (ym4 + yp4));
    real t = c + c;
    t = t - g * prev;
    t = t + k * s;
    return g * t;
}

#endif
