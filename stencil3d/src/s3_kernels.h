/* s3_kernels.h - the GPU kernels of stencil3d, written once for two hosts:
 *   gpu.cu  compiles them as CUDA kernels;
 *   emu.c   compiles them as C functions that execute one thread block on the
 *           CPU, so that CI tests the tile, queue and index logic of the very
 *           same source on machines without a GPU.
 * The includer defines the execution macros:
 *   S3_KDECL(NAME, NTH)  kernel declaration (NTH threads per block)
 *   S3_BIX/S3_BIY/S3_BIZ block index; S3_SMEM(S, n) / S3_SMEM_FREE(S) the
 *   block's shared memory; S3_PAR(t) ... S3_PAR_END a region executed by every
 *   thread t of the block; S3_SYNC a block barrier; S3_TDECL(type, name, dims)
 *   a per-thread variable that lives across barriers, read as S3_T(name);
 *   S3_UNROLL; S3_RESTRICT.
 * Rules that keep both hosts equivalent: code outside S3_PAR regions is
 * uniform (every thread computes the same values, e.g. the plane pointers);
 * per-thread state that crosses a barrier is an S3_TDECL; no early return.
 * All kernels compute cells with s3_stencil.h, so they are bit-identical to
 * the CPU reference (cpu.c) when built without FMA contraction.
 * Portability (HIP builds these sources later): no warp intrinsics, no warp
 * size assumption, nothing beyond sm_70 features. */
#ifndef S3_KERNELS_H
#define S3_KERNELS_H

#include "s3_stencil.h"

#define S3_MIN(a, b) ((a) < (b) ? (a) : (b))

/* u: u^n (read only); pv: wave u^{n-1} (same array as out: updated in place),
 * heat unused; out: u^{n+1}. All are origin pointers of the same S3Grid
 * layout (px, pxy). Blocks along z take zc planes each (naive: one plane). */
#define S3_KARGS const real *S3_RESTRICT u, const real *pv, real *out, real k, \
                 int nx, int ny, int nz, int px, long pxy, int zc

#define S3_UPD_WAVE(c, pv, gi, k, lap) s3_wave_update((c), (pv)[gi], (k), (lap))
#define S3_UPD_HEAT(c, pv, gi, k, lap) ((void)(pv), s3_heat_update((c), (k), (lap)))

/* ------------------------------------------------------------------ naive
 * One thread per cell (a BX x BY tile of cells per block, BY/TY rows per
 * thread), every neighbour read from global memory (caches only). */
#define S3_GLAP_STAR(u, g, px, pxy) s3_star_lap(&(u)[g], (px), \
    (u)[(g) - 4 * (pxy)], (u)[(g) - 3 * (pxy)], (u)[(g) - 2 * (pxy)], (u)[(g) - (pxy)], \
    (u)[(g) + (pxy)], (u)[(g) + 2 * (pxy)], (u)[(g) + 3 * (pxy)], (u)[(g) + 4 * (pxy)])
#define S3_GLAP_BOX(u, g, px, pxy) s3_box_lap(&(u)[(g) - (pxy)], &(u)[g], &(u)[(g) + (pxy)], (px))

#define S3_BODY_naive(NAME, BX, BY, TY, R, ST, EQ)                                  \
S3_KDECL(NAME, (BX) * (TY))                                                         \
{                                                                                   \
    enum { kNT = (BX) * (TY), kCY = (BY) / (TY) };                                   \
    (void)zc; (void)nz;                                                             \
    const int x0 = S3_BIX * (BX), y0 = S3_BIY * (BY), z = S3_BIZ;                   \
    S3_PAR(t)                                                                       \
        const int tx_ = t % (BX), ty_ = t / (BX);                                   \
        S3_UNROLL                                                                   \
        for (int c_ = 0; c_ < kCY; c_++) {                                          \
            const int gx_ = x0 + tx_, gy_ = y0 + ty_ + c_ * (TY);                   \
            if (gx_ < nx && gy_ < ny) {                                             \
                const long g_ = (long)z * pxy + (long)gy_ * px + gx_;               \
                const real lap_ = S3_GLAP_##ST(u, g_, px, pxy);                     \
                out[g_] = S3_UPD_##EQ(u[g_], pv, g_, k, lap_);                      \
            }                                                                       \
        }                                                                           \
    S3_PAR_END                                                                      \
}

/* ------------------------------------------------------------------ regq
 * The classic 2.5D method (star stencils only): one thread per (x, y) column
 * walks z; the 2R+1 values of its column live in a register queue q[], the
 * current plane goes to a shared (BX+2R) x (BY+2R) tile for the x and y
 * neighbours. The tile's centre is written by every thread, its halo by the
 * edge threads (R-wide pieces of rows: the x halo is not coalesced), and it
 * is double-buffered so that one barrier per plane suffices. The tile corners
 * are never loaded, which is why box stencils do not fit this scheme. */
#define S3_BODY_regq(NAME, BX, BY, TY, R, ST, EQ)                                   \
S3_KDECL(NAME, (BX) * (BY))                                                         \
{                                                                                   \
    enum { kNT = (BX) * (BY), kTW = (BX) + 2 * (R), kTH = (BY) + 2 * (R),           \
           kTILE = kTW * kTH, kQL = 2 * (R) + 1 };                                  \
    S3_SMEM(S, 2 * kTILE);                                                          \
    const int x0 = S3_BIX * (BX), y0 = S3_BIY * (BY);                               \
    const int z0 = S3_BIZ * zc, z1 = S3_MIN(z0 + zc, nz);                           \
    S3_TDECL(real, q, [kQL]);                                                       \
    S3_PAR(t)                                                                       \
        const int gx_ = x0 + t % (BX), gy_ = y0 + t / (BX);                         \
        const int in_ = gx_ < nx + (R) && gy_ < ny + (R);                           \
        S3_UNROLL                                                                   \
        for (int d_ = 0; d_ < 2 * (R); d_++)                                        \
            S3_T(q)[d_] = in_ ? u[(long)(z0 - (R) + d_) * pxy + (long)gy_ * px + gx_] : (real)0; \
    S3_PAR_END                                                                      \
    int b = 0;                                                                      \
    for (int z = z0; z < z1; z++) {                                                 \
        real *T = S + b * kTILE;                                                    \
        S3_PAR(t)                                                                   \
            const int tx_ = t % (BX), ty_ = t / (BX);                               \
            const int gx_ = x0 + tx_, gy_ = y0 + ty_;                               \
            const int in_ = gx_ < nx + (R) && gy_ < ny + (R);                       \
            const long g_ = (long)z * pxy + (long)gy_ * px + gx_;                   \
            S3_T(q)[2 * (R)] = in_ ? u[g_ + (long)(R) * pxy] : (real)0;             \
            T[(ty_ + (R)) * kTW + tx_ + (R)] = S3_T(q)[R];                          \
            if (tx_ < (R))                                                          \
                T[(ty_ + (R)) * kTW + tx_] = gy_ < ny + (R) ? u[g_ - (R)] : (real)0; \
            if (tx_ >= (BX) - (R))                                                  \
                T[(ty_ + (R)) * kTW + tx_ + 2 * (R)] = gx_ < nx && gy_ < ny + (R) ? u[g_ + (R)] : (real)0; \
            if (ty_ < (R))                                                          \
                T[ty_ * kTW + tx_ + (R)] = gx_ < nx + (R) ? u[g_ - (long)(R) * px] : (real)0; \
            if (ty_ >= (BY) - (R))                                                  \
                T[(ty_ + 2 * (R)) * kTW + tx_ + (R)] = gx_ < nx + (R) && gy_ < ny ? u[g_ + (long)(R) * px] : (real)0; \
        S3_PAR_END                                                                  \
        S3_SYNC                                                                     \
        S3_PAR(t)                                                                   \
            const int tx_ = t % (BX), ty_ = t / (BX);                               \
            const int gx_ = x0 + tx_, gy_ = y0 + ty_;                               \
            if (gx_ < nx && gy_ < ny) {                                             \
                const long g_ = (long)z * pxy + (long)gy_ * px + gx_;               \
                const real lap_ = s3_star_lap(&T[(ty_ + (R)) * kTW + tx_ + (R)], kTW, \
                    S3_T(q)[0], S3_T(q)[1], S3_T(q)[2], S3_T(q)[3],                 \
                    S3_T(q)[5], S3_T(q)[6], S3_T(q)[7], S3_T(q)[8]);                \
                out[g_] = S3_UPD_##EQ(S3_T(q)[R], pv, g_, k, lap_);                 \
            }                                                                       \
            S3_UNROLL                                                               \
            for (int d_ = 0; d_ < 2 * (R); d_++) S3_T(q)[d_] = S3_T(q)[d_ + 1];     \
        S3_PAR_END                                                                  \
        b ^= 1;                                                                     \
    }                                                                               \
    S3_SMEM_FREE(S);                                                                \
}

/* ------------------------------------------------------------------ cq
 * The circular queue (seed 003): shared memory holds Q = 2R+2 plane tiles of
 * (BX+2R) x (BY+2R) cells; so[0..2R] point at planes z-R .. z+R, so[2R+1] at
 * the free slot. Per output plane z:
 *   1. every thread fetches its part of tile z+R+1 into registers,
 *   2. computes its BY/TY cells of plane z from the 2R+1 resident tiles (any
 *      stencil inside the (2R+1)^3 box: star and box alike),
 *   3. stores the fetched values into the free slot,
 *   4. the plane pointers rotate (so[q] <- so[q+1], the oldest becomes free),
 *      and one barrier ends the plane.
 * The fetch of step 1 overlaps the compute of step 2. Tile loads are fully
 * coalesced (the seed's claim 2): the block of NT threads is reshaped into
 * rows of TW = BX+2R threads, RY = NT/TW rows per pass, W passes, so that
 * consecutive threads read consecutive addresses of whole tile rows, halo
 * included. */
#define S3_CQLAP_STAR(S, so, o, tw) s3_star_lap(&(S)[so[4] + (o)], (tw),         \
    (S)[so[0] + (o)], (S)[so[1] + (o)], (S)[so[2] + (o)], (S)[so[3] + (o)],       \
    (S)[so[5] + (o)], (S)[so[6] + (o)], (S)[so[7] + (o)], (S)[so[8] + (o)])
#define S3_CQLAP_BOX(S, so, o, tw) s3_box_lap(&(S)[so[0] + (o)], &(S)[so[1] + (o)], &(S)[so[2] + (o)], (tw))

/* fetch this thread's W values of tile plane zp (0 outside the halo band) */
#define S3_CQ_FETCH(t, zp, v)                                                       \
    {                                                                               \
        const real *pl_ = u + (long)(zp) * pxy;                                     \
        const int lx_ = (t) % kTW, ly_ = (t) / kTW, gx_ = x0 - R_ + lx_;            \
        S3_UNROLL                                                                   \
        for (int w_ = 0; w_ < kW; w_++) {                                           \
            const int row_ = ly_ + w_ * kRY, gy_ = y0 - R_ + row_;                  \
            (v)[w_] = ly_ < kRY && row_ < kTH && gx_ < nx + R_ && gy_ < ny + R_     \
                    ? pl_[(long)gy_ * px + gx_] : (real)0;                          \
        }                                                                           \
    }
#define S3_CQ_STORE(t, slot, v)                                                     \
    {                                                                               \
        const int lx_ = (t) % kTW, ly_ = (t) / kTW;                                 \
        S3_UNROLL                                                                   \
        for (int w_ = 0; w_ < kW; w_++) {                                           \
            const int row_ = ly_ + w_ * kRY;                                        \
            if (ly_ < kRY && row_ < kTH) S[(slot) + row_ * kTW + lx_] = (v)[w_];    \
        }                                                                           \
    }

#define S3_BODY_cq(NAME, BX, BY, TY, R, ST, EQ)                                     \
S3_KDECL(NAME, (BX) * (TY))                                                         \
{                                                                                   \
    enum { R_ = (R), kNT = (BX) * (TY), kCY = (BY) / (TY), kTW = (BX) + 2 * (R),    \
           kTH = (BY) + 2 * (R), kTILE = kTW * kTH, kQ = 2 * (R) + 2,               \
           kRY = kNT / kTW, kW = (kTH + kRY - 1) / kRY };                           \
    S3_SMEM(S, kQ * kTILE);                                                         \
    const int x0 = S3_BIX * (BX), y0 = S3_BIY * (BY);                               \
    const int z0 = S3_BIZ * zc, z1 = S3_MIN(z0 + zc, nz);                           \
    int so[kQ];                                                                     \
    S3_UNROLL                                                                       \
    for (int q_ = 0; q_ < kQ; q_++) so[q_] = q_ * kTILE;                            \
    S3_TDECL(real, v, [kW]);                                                        \
    for (int d = 0; d <= 2 * (R); d++) {                                            \
        S3_PAR(t)                                                                   \
            S3_CQ_FETCH(t, z0 - (R) + d, S3_T(v))                                   \
            S3_CQ_STORE(t, so[d], S3_T(v))                                          \
        S3_PAR_END                                                                  \
    }                                                                               \
    S3_SYNC                                                                         \
    for (int z = z0; z < z1; z++) {                                                 \
        const int more = z + 1 < z1;                                                \
        if (more) {                                                                 \
            S3_PAR(t) S3_CQ_FETCH(t, z + (R) + 1, S3_T(v)) S3_PAR_END               \
        }                                                                           \
        S3_PAR(t)                                                                   \
            const int tx_ = t % (BX), ty_ = t / (BX);                               \
            S3_UNROLL                                                               \
            for (int c_ = 0; c_ < kCY; c_++) {                                      \
                const int ly_ = ty_ + c_ * (TY), gx_ = x0 + tx_, gy_ = y0 + ly_;    \
                if (gx_ < nx && gy_ < ny) {                                         \
                    const int o_ = (ly_ + (R)) * kTW + tx_ + (R);                   \
                    const long g_ = (long)z * pxy + (long)gy_ * px + gx_;           \
                    const real lap_ = S3_CQLAP_##ST(S, so, o_, kTW);                \
                    out[g_] = S3_UPD_##EQ(S[so[R] + o_], pv, g_, k, lap_);          \
                }                                                                   \
            }                                                                       \
        S3_PAR_END                                                                  \
        if (more) {                                                                 \
            S3_PAR(t) S3_CQ_STORE(t, so[kQ - 1], S3_T(v)) S3_PAR_END                \
        }                                                                           \
        {                                                                           \
            const int f_ = so[0];                                                   \
            S3_UNROLL                                                               \
            for (int q_ = 0; q_ < kQ - 1; q_++) so[q_] = so[q_ + 1];                \
            so[kQ - 1] = f_;                                                        \
        }                                                                           \
        S3_SYNC                                                                     \
    }                                                                               \
    S3_SMEM_FREE(S);                                                                \
}

/* ------------------------------------------------------------------ cqr
 * Circular queue with the z neighbours in registers (star stencils only; the
 * hybrid of the seed's queue and the 2.5D register queue). Shared memory
 * holds Q = R+2 tiles: so[0] plane z (the x and y neighbours), so[1..R] the
 * planes z+1 .. z+R, so[R+1] the free slot. Each thread owns CY = BY/TY
 * consecutive rows of one column and keeps, per cell, the 2R+1 values of its
 * z column in a register queue q[]; the new entry (plane z+R) is one shared
 * read per cell instead of 2R. The y neighbours of the CY cells come from one
 * window of CY+2R tile values (each read once), so a cell costs about
 * 2R + 1 + (CY+2R)/CY shared reads (cq: 6R+1). Tile loads are the cq ones
 * (coalesced, whole rows, halo included), and one barrier per plane suffices
 * for the same reason as in cq: the slot written during plane z (the free one)
 * is read by no thread during plane z. */
#define S3_BODY_cqr(NAME, BX, BY, TY, R, ST, EQ)                                     \
S3_KDECL(NAME, (BX) * (TY))                                                          \
{                                                                                    \
    enum { R_ = (R), kNT = (BX) * (TY), kCY = (BY) / (TY), kTW = (BX) + 2 * (R),     \
           kTH = (BY) + 2 * (R), kTILE = kTW * kTH, kQ = (R) + 2, kQL = 2 * (R) + 1, \
           kRY = kNT / kTW, kW = (kTH + kRY - 1) / kRY, kYW = kCY + 2 * (R) };       \
    S3_SMEM(S, kQ * kTILE);                                                          \
    const int x0 = S3_BIX * (BX), y0 = S3_BIY * (BY);                                \
    const int z0 = S3_BIZ * zc, z1 = S3_MIN(z0 + zc, nz);                            \
    int so[kQ];                                                                      \
    S3_UNROLL                                                                        \
    for (int q_ = 0; q_ < kQ; q_++) so[q_] = q_ * kTILE;                             \
    S3_TDECL(real, v, [kW]);                                                         \
    S3_TDECL(real, q, [kCY][kQL]);                                                   \
    /* planes z0-R .. z0-1: own cells straight into the queue */                     \
    S3_PAR(t)                                                                        \
        const int tx_ = t % (BX), ty_ = t / (BX), gx_ = x0 + tx_;                    \
        S3_UNROLL                                                                    \
        for (int c_ = 0; c_ < kCY; c_++) {                                           \
            const int gy_ = y0 + ty_ * kCY + c_;                                     \
            const int in_ = gx_ < nx && gy_ < ny;                                    \
            S3_UNROLL                                                                \
            for (int d_ = 0; d_ < R_; d_++)                                          \
                S3_T(q)[c_][d_] = in_ ? u[(long)(z0 - R_ + d_) * pxy + (long)gy_ * px + gx_] : (real)0; \
        }                                                                            \
    S3_PAR_END                                                                       \
    /* planes z0 .. z0+R: tiles */                                                   \
    for (int d = 0; d <= R_; d++) {                                                  \
        S3_PAR(t)                                                                    \
            S3_CQ_FETCH(t, z0 + d, S3_T(v))                                          \
            S3_CQ_STORE(t, so[d], S3_T(v))                                           \
        S3_PAR_END                                                                   \
    }                                                                                \
    S3_SYNC                                                                          \
    S3_PAR(t)                                                                        \
        const int tx_ = t % (BX), ty_ = t / (BX);                                    \
        S3_UNROLL                                                                    \
        for (int c_ = 0; c_ < kCY; c_++) {                                           \
            const int o_ = (ty_ * kCY + c_ + R_) * kTW + tx_ + R_;                   \
            S3_UNROLL                                                                \
            for (int d_ = 0; d_ < R_; d_++) S3_T(q)[c_][R_ + d_] = S[so[d_] + o_];   \
        }                                                                            \
    S3_PAR_END                                                                       \
    for (int z = z0; z < z1; z++) {                                                  \
        const int more = z + 1 < z1;                                                 \
        if (more) {                                                                  \
            S3_PAR(t) S3_CQ_FETCH(t, z + R_ + 1, S3_T(v)) S3_PAR_END                 \
        }                                                                            \
        S3_PAR(t)                                                                    \
            const int tx_ = t % (BX), ty_ = t / (BX), gx_ = x0 + tx_;                \
            const int ob_ = ty_ * kCY * kTW + tx_ + R_;  /* window row 0 */          \
            real yw_[kYW];                                                           \
            S3_UNROLL                                                                \
            for (int j_ = 0; j_ < kYW; j_++) yw_[j_] = S[so[0] + ob_ + j_ * kTW];    \
            S3_UNROLL                                                                \
            for (int c_ = 0; c_ < kCY; c_++) {                                       \
                const int gy_ = y0 + ty_ * kCY + c_;                                 \
                const int o_ = ob_ + (c_ + R_) * kTW;                                \
                S3_T(q)[c_][2 * R_] = S[so[R_] + o_];                                \
                if (gx_ < nx && gy_ < ny) {                                          \
                    const real *cc_ = &S[so[0] + o_];                                \
                    const long g_ = (long)z * pxy + (long)gy_ * px + gx_;            \
                    const real lap_ = s3_star_sum(S3_T(q)[c_][R_],                   \
                        s3_star_pair(cc_[-1], cc_[1], yw_[c_ + R_ - 1], yw_[c_ + R_ + 1], S3_T(q)[c_][R_ - 1], S3_T(q)[c_][R_ + 1]), \
                        s3_star_pair(cc_[-2], cc_[2], yw_[c_ + R_ - 2], yw_[c_ + R_ + 2], S3_T(q)[c_][R_ - 2], S3_T(q)[c_][R_ + 2]), \
                        s3_star_pair(cc_[-3], cc_[3], yw_[c_ + R_ - 3], yw_[c_ + R_ + 3], S3_T(q)[c_][R_ - 3], S3_T(q)[c_][R_ + 3]), \
                        s3_star_pair(cc_[-4], cc_[4], yw_[c_ + R_ - 4], yw_[c_ + R_ + 4], S3_T(q)[c_][R_ - 4], S3_T(q)[c_][R_ + 4])); \
                    out[g_] = S3_UPD_##EQ(S3_T(q)[c_][R_], pv, g_, k, lap_);         \
                }                                                                    \
                S3_UNROLL                                                            \
                for (int d_ = 0; d_ < 2 * R_; d_++) S3_T(q)[c_][d_] = S3_T(q)[c_][d_ + 1]; \
            }                                                                        \
        S3_PAR_END                                                                   \
        if (more) {                                                                  \
            S3_PAR(t) S3_CQ_STORE(t, so[kQ - 1], S3_T(v)) S3_PAR_END                 \
        }                                                                            \
        {                                                                            \
            const int f_ = so[0];                                                    \
            S3_UNROLL                                                                \
            for (int q_ = 0; q_ < kQ - 1; q_++) so[q_] = so[q_ + 1];                 \
            so[kQ - 1] = f_;                                                         \
        }                                                                            \
        S3_SYNC                                                                      \
    }                                                                                \
    S3_SMEM_FREE(S);                                                                 \
}

/* Shared-memory bytes per block of each kind */
#define S3_SMEM_naive(BX, BY, R) 0
#define S3_SMEM_regq(BX, BY, R) (2 * ((BX) + 2 * (R)) * ((BY) + 2 * (R)) * sizeof(real))
#define S3_SMEM_cq(BX, BY, R) ((2 * (R) + 2) * ((BX) + 2 * (R)) * ((BY) + 2 * (R)) * sizeof(real))
#define S3_SMEM_cqr(BX, BY, R) (((R) + 2) * ((BX) + 2 * (R)) * ((BY) + 2 * (R)) * sizeof(real))
/* threads per block: regq has one thread per column (TY = BY) */
#define S3_NTH(BX, TY) ((BX) * (TY))

/* The kernel variants: X(kind, NAME, BX, BY, TY, R, STENCIL, EQ).
 * BX x BY cells per block and plane, BX x TY threads (BY/TY rows each). */
#define S3_KERNELS(X)                                                               \
    X(naive, s3k_naive_star_wave_32x8,   32,  8,  8, 4, STAR, WAVE)                 \
    X(naive, s3k_naive_box_wave_32x8,    32,  8,  8, 1, BOX,  WAVE)                 \
    X(naive, s3k_naive_star_heat_32x8,   32,  8,  8, 4, STAR, HEAT)                 \
    X(naive, s3k_naive_box_heat_32x8,    32,  8,  8, 1, BOX,  HEAT)                 \
    X(regq,  s3k_regq_star_wave_32x16,   32, 16, 16, 4, STAR, WAVE)                 \
    X(regq,  s3k_regq_star_wave_32x8,    32,  8,  8, 4, STAR, WAVE)                 \
    X(regq,  s3k_regq_star_heat_32x16,   32, 16, 16, 4, STAR, HEAT)                 \
    X(regq,  s3k_regq_star_heat_32x8,    32,  8,  8, 4, STAR, HEAT)                 \
    X(cq,    s3k_cq_star_wave_32x16,     32, 16, 16, 4, STAR, WAVE)                 \
    X(cq,    s3k_cq_star_wave_32x8,      32,  8,  8, 4, STAR, WAVE)                 \
    X(cq,    s3k_cq_star_wave_64x8,      64,  8,  8, 4, STAR, WAVE)                 \
    X(cq,    s3k_cq_star_wave_32x32,     32, 32, 16, 4, STAR, WAVE)                 \
    X(cq,    s3k_cq_star_wave_64x16,     64, 16,  8, 4, STAR, WAVE)                 \
    X(cqr,   s3k_cqr_star_wave_32x8,     32,  8,  4, 4, STAR, WAVE)                 \
    X(cqr,   s3k_cqr_star_wave_32x16,    32, 16,  8, 4, STAR, WAVE)                 \
    X(cqr,   s3k_cqr_star_wave_64x8,     64,  8,  4, 4, STAR, WAVE)                 \
    X(cqr,   s3k_cqr_star_wave_64x16,    64, 16,  8, 4, STAR, WAVE)                 \
    X(cq,    s3k_cq_box_wave_32x16,      32, 16, 16, 1, BOX,  WAVE)                 \
    X(cq,    s3k_cq_box_wave_32x8,       32,  8,  8, 1, BOX,  WAVE)                 \
    X(cq,    s3k_cq_box_wave_64x8,       64,  8,  8, 1, BOX,  WAVE)                 \
    X(cq,    s3k_cq_box_wave_32x32,      32, 32, 16, 1, BOX,  WAVE)                 \
    X(cq,    s3k_cq_box_wave_64x16,      64, 16,  8, 1, BOX,  WAVE)                 \
    X(cq,    s3k_cq_star_heat_32x16,     32, 16, 16, 4, STAR, HEAT)                 \
    X(cq,    s3k_cq_star_heat_32x8,      32,  8,  8, 4, STAR, HEAT)                 \
    X(cq,    s3k_cq_star_heat_64x8,      64,  8,  8, 4, STAR, HEAT)                 \
    X(cq,    s3k_cq_star_heat_32x32,     32, 32, 16, 4, STAR, HEAT)                 \
    X(cq,    s3k_cq_star_heat_64x16,     64, 16,  8, 4, STAR, HEAT)                 \
    X(cqr,   s3k_cqr_star_heat_32x8,     32,  8,  4, 4, STAR, HEAT)                 \
    X(cqr,   s3k_cqr_star_heat_32x16,    32, 16,  8, 4, STAR, HEAT)                 \
    X(cqr,   s3k_cqr_star_heat_64x8,     64,  8,  4, 4, STAR, HEAT)                 \
    X(cqr,   s3k_cqr_star_heat_64x16,    64, 16,  8, 4, STAR, HEAT)                 \
    X(cq,    s3k_cq_box_heat_32x16,      32, 16, 16, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_32x8,       32,  8,  8, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_64x8,       64,  8,  8, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_32x32,      32, 32, 16, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_64x16,      64, 16,  8, 1, BOX,  HEAT)

#define S3_DEFINE_KERNEL(kind, NAME, BX, BY, TY, R, ST, EQ) S3_BODY_##kind(NAME, BX, BY, TY, R, ST, EQ)
/* table entry: { S3KInfo, function } */
#define S3_KERNEL_ENTRY(kind, NAME, BX, BY, TY, R, ST, EQ)                          \
    { { #kind, #BX "x" #BY, S3_##ST, S3_##EQ, BX, BY, S3_NTH(BX, TY), R,             \
        S3_SMEM_##kind(BX, BY, R) }, NAME },

#endif
