/* s3_stencil.h - the one place where the 3D stencil updates are written.
 *
 * Included from C (CPU reference, CPU emulation of the GPU kernels) and from
 * CUDA (all GPU kernels). It builds on modules/common/stencil.h, which gives
 *   real      float, or double with -DMOD_DOUBLE
 *   MOD_HD    "__host__ __device__ __forceinline__" under nvcc, "static inline" in C
 *   WAVE_C0..WAVE_C4  the 8th-order central coefficients of d2/dx2 (times h^2)
 * Every function has a fixed order of IEEE operations, so the results are
 * bit-identical wherever they run, provided that no multiply-add is fused:
 * gcc -ffp-contract=off, nvcc --fmad=false (the make fragment sets both). */
#ifndef S3_STENCIL_H
#define S3_STENCIL_H

#include "stencil.h"

/* Array layout shared by every back end (see s3d.h, S3Grid): a halo of S3_H
 * cells on every side (the largest stencil radius), and rows padded so that
 * interior cell x = 0 of every row starts on an S3_ALIGN-element boundary
 * (128 bytes in FP32): the output writes of a warp are aligned. */
#define S3_H 4
#define S3_ALIGN 32

enum { S3_STAR = 0, S3_BOX = 1 };      /* stencil */
enum { S3_WAVE = 0, S3_HEAT = 1 };     /* equation */
#define S3_RAD_STAR 4
#define S3_RAD_BOX 1

/* The same operations in the same order as s3_star_lap, from values: pD is
 * the neighbour sum at distance D, s3_star_pair(x-D, x+D, y-D, y+D, z-D, z+D).
 * For kernels that keep neighbours in registers (cqa, cqt). s3_star_lap is kept in
 * its pointer form because the cq kernels compile to fewer registers with it;
 * the emulated-kernel tests check that both forms give the same bits. */
MOD_HD real s3_star_pair(real xm, real xp, real ym, real yp, real zm, real zp)
{
    return ((xm + xp) + (ym + yp)) + (zm + zp);
}
MOD_HD real s3_star_sum(real c, real p1, real p2, real p3, real p4)
{
    const real c0 = (real)(3.0 * WAVE_C0);
    const real c1 = (real)WAVE_C1, c2 = (real)WAVE_C2;
    const real c3 = (real)WAVE_C3, c4 = (real)WAVE_C4;
    real s = c0 * c;
    s = s + c1 * p1;
    s = s + c2 * p2;
    s = s + c3 * p3;
    s = s + c4 * p4;
    return s;
}
/* Star stencil: the 8th-order Laplacian times h^2, 25 points (the centre and
 * 4 neighbours on each side along x, y and z). c points at the centre cell of
 * its xy plane: the x neighbours are c[+-d], the y neighbours c[+-d*sy]. The
 * z neighbours come by value, because every back end keeps them elsewhere (the
 * other planes of the circular queue, a register queue, or the full array). */
MOD_HD real s3_star_lap(const real *c, int sy,
                         real zm4, real zm3, real zm2, real zm1,
                         real zp1, real zp2, real zp3, real zp4)
{
    const real c0 = (real)(3.0 * WAVE_C0);
    const real c1 = (real)WAVE_C1, c2 = (real)WAVE_C2;
    const real c3 = (real)WAVE_C3, c4 = (real)WAVE_C4;
    const int s2 = 2 * sy, s3 = 3 * sy, s4 = 4 * sy;
    real s = c0 * c[0];
    s = s + c1 * (((c[-1] + c[1]) + (c[-sy] + c[sy])) + (zm1 + zp1));
    s = s + c2 * (((c[-2] + c[2]) + (c[-s2] + c[s2])) + (zm2 + zp2));
    s = s + c3 * (((c[-3] + c[3]) + (c[-s3] + c[s3])) + (zm3 + zp3));
    s = s + c4 * (((c[-4] + c[4]) + (c[-s4] + c[s4])) + (zm4 + zp4));
    return s;
}

/* Box stencil: the isotropic 27-point Laplacian times h^2 (second order),
 *   L u = (-128 u + 14 (6 faces) + 3 (12 edges) + (8 corners)) / 30,
 * which reads every cell of the 3x3x3 box, the corners included: the classic
 * 2.5D register queue (one z column per thread) cannot provide the
 * (x+-1, y+-1) neighbours of the planes above and below. m, c, p point at the
 * cell's column in planes z-1, z, z+1; sy is the row stride of all three.
 * Integer weights first and one scaling last keep the sum exact for a
 * constant field. */
MOD_HD real s3_box_lap(const real *m, const real *c, const real *p, int sy)
{
    const real w30 = (real)(1.0 / 30.0);
    real f = ((c[-1] + c[1]) + (c[-sy] + c[sy])) + (m[0] + p[0]);
    real e = ((c[-sy - 1] + c[-sy + 1]) + (c[sy - 1] + c[sy + 1]))
           + (((m[-1] + m[1]) + (m[-sy] + m[sy])) + ((p[-1] + p[1]) + (p[-sy] + p[sy])));
    real k = ((m[-sy - 1] + m[-sy + 1]) + (m[sy - 1] + m[sy + 1]))
           + ((p[-sy - 1] + p[-sy + 1]) + (p[sy - 1] + p[sy + 1]));
    real s = (real)(-128.0) * c[0];
    s = s + (real)14.0 * f;
    s = s + (real)3.0 * e;
    s = s + k;
    return s * w30;
}

/* The box stencil from in-plane partial sums, for kernels that keep the sums
 * of the planes z-1 and z in registers and read each tile once (cqa box).
 * Per cell and plane: A = the centre, B = s3_box_sum4(x-1, x+1, y-1, y+1)
 * (the 4 in-plane faces), C = s3_box_sum4 of the 4 in-plane corners in the
 * order (y-1: x-1, x+1), (y+1: x-1, x+1). s3_box_comb is then s3_box_lap:
 * f = B_z + (A_{z-1} + A_{z+1}), e = C_z + (B_{z-1} + B_{z+1}),
 * k = C_{z-1} + C_{z+1}: the same operands in the same order, so the same
 * bits (the emulated-kernel tests check it). */
MOD_HD real s3_box_sum4(real a, real b, real c, real d)
{
    return (a + b) + (c + d);
}
MOD_HD real s3_box_comb(real am, real bm, real cm, real ac, real bc, real cc, real ap, real bp, real cp)
{
    const real w30 = (real)(1.0 / 30.0);
    real f = bc + (am + ap);
    real e = cc + (bm + bp);
    real k = cm + cp;
    real s = (real)(-128.0) * ac;
    s = s + (real)14.0 * f;
    s = s + (real)3.0 * e;
    s = s + k;
    return s * w30;
}

/* Wave equation, second-order leapfrog: u+ = 2u - u- + k L u, k = (v dt/h)^2. */
MOD_HD real s3_wave_update(real c, real prev, real k, real lap)
{
    real t = c + c;
    t = t - prev;
    return t + k * lap;
}

/* Heat equation, explicit Euler: u+ = u + k L u, k = alpha dt / h^2. */
MOD_HD real s3_heat_update(real c, real k, real lap)
{
    return c + k * lap;
}

#endif
