/* ooc_stencil.h - the cell update of the out-of-core solver, shared by the
 * CPU (reference, CPU stand-in device) and the CUDA kernels.
 *
 * 2D heat: the explicit scheme of the seed paper (004, eq. 3),
 *     U+ = r (U(i+1) + U(i-1) + U(j-1) + U(j+1) - 4U) + U,   r = alpha dt / h^2,
 * 2D wave: the 8th-order leapfrog update of the wave module (wave_update
 * with no sponge), constant k = (v dt / h)^2; two time levels.
 * The outermost R rows and columns (R = 1 heat, 4 wave) are a fixed frame
 * (Dirichlet): the update copies them, so a computed row range may include
 * frame rows. Bit-identity needs gcc -ffp-contract=off / nvcc --fmad=false. */
#ifndef OOC_STENCIL_H
#define OOC_STENCIL_H

#include "stencil.h"   /* modules/common: real, MOD_HD, wave_update */

enum { OOC_HEAT = 0, OOC_WAVE = 1 };
#define OOC_RAD(eq) ((eq) == OOC_HEAT ? 1 : WAVE_R)

MOD_HD real ooc_heat_update(real c, real r, real xm, real xp, real ym, real yp)
{
    real s = (xp + xm) + (ym + yp);
    s = s - (real)4 * c;
    return r * s + c;
}

/* New value of cell (x, y) (global row y) at buffer offset o: a holds the
 * current level; b holds the previous level (wave) and receives the new one. */
MOD_HD void ooc_cell(int eq, int nx, int ny, int x, int y, long o, real coef, const real *a, real *b)
{
    const int R = OOC_RAD(eq);
    if (x < R || x >= nx - R || y < R || y >= ny - R) { b[o] = a[o]; return; }
    if (eq == OOC_HEAT) {
        b[o] = ooc_heat_update(a[o], coef, a[o - 1], a[o + 1], a[o - nx], a[o + nx]);
    } else {
        const long n = nx;
        b[o] = wave_update(a[o], b[o], coef, (real)1, (real)1,
                           a[o - 4], a[o - 3], a[o - 2], a[o - 1], a[o + 1], a[o + 2], a[o + 3], a[o + 4],
                           a[o - 4 * n], a[o - 3 * n], a[o - 2 * n], a[o - n],
                           a[o + n], a[o + 2 * n], a[o + 3 * n], a[o + 4 * n]);
    }
}

#endif
