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
 * size assumption, nothing beyond sm_70 features; the asynchronous copies of
 * cqa/cqas go through the includer's S3_CP4/S3_CP_COMMIT/S3_CP_WAIT, whose
 * portable form (below) is a copy at issue time. */
#ifndef S3_KERNELS_H
#define S3_KERNELS_H

#include "s3_stencil.h"

#define S3_MIN(a, b) ((a) < (b) ? (a) : (b))

/* u: u^n (read only); pv: wave u^{n-1} (same array as out: updated in place),
 * heat unused; out: u^{n+1}. All are origin pointers of the same S3Grid
 * layout (px, pxy). Blocks along z take zc planes each (naive: one plane). */
/* S3_KARGS_X: the includer's extra kernel parameters (the CUDA host: the
 * tensor maps of cqt), after zc; empty by default */
#ifndef S3_KARGS_X
#define S3_KARGS_X
#endif
#define S3_KARGS const real *S3_RESTRICT u, const real *pv, real *out, real k, \
                 int nx, int ny, int nz, int px, long pxy, int zc S3_KARGS_X

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

/* ------------------------------------------------------------------ 4-wide accesses
 * The cqa / cqas / cqt / cqts kernels give each thread 4 consecutive x cells
 * of BY/TY rows, and every shared and global access is a 4-wide vector
 * (S3_LD4 / S3_ST4: one float4 on the GPU, aligned because tile rows, the
 * interior x = 0 and every 4th cell start on 16 bytes). Index math inside a
 * plane is 32-bit (one 64-bit plane base per plane), which needs pxy < 2^31
 * (checked by the hosts). */
#define S3_ISWAVE_WAVE 1
#define S3_ISWAVE_HEAT 0
#define S3_UPDV_WAVE(c, p, k, lap) s3_wave_update((c), (p), (k), (lap))
#define S3_UPDV_HEAT(c, p, k, lap) ((void)(p), s3_heat_update((c), (k), (lap)))
/* 4 consecutive values at p; the GPU includer maps them to one 128-bit access.
 * The C hosts check the alignment that the GPU access needs (4 * sizeof(real)). */
#ifndef S3_LD4
#include <stdint.h>
#define S3_CHECK_ALIGN4(p) if ((uintptr_t)(p) % (4 * sizeof(real)))                 \
    mod_fail(RC_DEVICE, "s3_kernels.h:%d: 4-wide access at %p is not aligned to %d bytes", __LINE__, (const void *)(p), (int)(4 * sizeof(real)));
#define S3_LD4(d, p) { const real *p4_ = (p); S3_CHECK_ALIGN4(p4_) (d)[0] = p4_[0]; (d)[1] = p4_[1]; (d)[2] = p4_[2]; (d)[3] = p4_[3]; }
#define S3_ST4(p, s) { real *p4_ = (p); S3_CHECK_ALIGN4(p4_) p4_[0] = (s)[0]; p4_[1] = (s)[1]; p4_[2] = (s)[2]; p4_[3] = (s)[3]; }
#endif
#define S3_ZERO4(d) { (d)[0] = (real)0; (d)[1] = (real)0; (d)[2] = (real)0; (d)[3] = (real)0; }
/* this thread's CY vectors of the array A in plane zp (0 outside the interior) */
#define S3_CQA_OWN(t, A, zp, P)                                                      \
    {                                                                                \
        const real *pl_ = (A) + (long)(zp) * pxy;                                    \
        const int gx_ = x0 + 4 * ((t) % kTXN), ty_ = (t) / kTXN;                     \
        S3_UNROLL                                                                    \
        for (int c_ = 0; c_ < kCY; c_++) {                                           \
            const int gy_ = y0 + ty_ * kCY + c_;                                     \
            if (gx_ < nx && gy_ < ny) S3_LD4((P)[c_], pl_ + gy_ * px + gx_)          \
            else S3_ZERO4((P)[c_])                                                   \
        }                                                                            \
    }

/* ------------------------------------------------------------------ cqa / cqas
 * The circular queue filled by asynchronous copies (star; the box versions
 * follow below). Each thread owns 4 consecutive x cells of kCY = BY/TY rows
 * (S3_LD4 / S3_ST4 vectors): the y neighbours of its rows come from one window
 * of kCY+2R vectors of the centre tile, the x neighbours from 2 more vectors
 * per row. A kernel that carries the next tile in registers between its global
 * load and its shared store has as many bytes in flight as its registers
 * allow (8-16 warps per SM at 117-147 registers per thread: too few to cover
 * the memory latency at full bandwidth). Here every tile vector and every
 * u^{n-1} vector goes from global to shared memory by an asynchronous 16-byte
 * copy (S3_CP4: cp.async on sm_80+; no register holds the data) issued
 * kD = S3_CQA_D planes ahead of its use, so each block keeps kD planes of
 * loads in flight whatever its register count, and the latency is hidden by
 * copies, not by warps.
 *   cqa:  the z neighbours in a register queue (2R+1 values per cell, the
 *         new entry one vector read of tile z+R); the tiles of planes z .. z+R
 *         are resident and kD more in flight: R+1+kD slots.
 *   cqas: the seed's queue: tiles z-R .. z+R resident, kD more in flight,
 *         2R+1+kD slots, all 25 points read from shared memory (no register
 *         queue: fewer registers, more shared reads).
 * The slots form a ring without pointer rotation: tile plane p lives in slot
 * (p - zb) % kNS (zb = the first tile plane of the block), u^{n-1} of plane p
 * (the thread's own cells, wave only) in staging slot (p - z0) % (kD+1).
 * Copy group j holds tile z0+R+j and u^{n-1} of z0+j; group 0 also holds the
 * tiles below z0+R. The prologue commits groups 0 .. kD-1; then per plane
 * z = z0+i:
 *   1. wait until at most kD-1 of this thread's groups are pending, i.e.
 *      group i (tile z+R, u^{n-1} of z) has landed;
 *   2. one barrier: every thread's copies of group i become visible to the
 *      block, and every thread has finished plane z-1, whose slots (tile z-1
 *      in cqa, z-R-1 in cqas; u^{n-1} of z-1) are the ones refilled next;
 *   3. issue group i+kD into those slots and commit it (every thread commits
 *      every plane, copies or not, so that the group counts agree);
 *   4. compute plane z from the resident slots.
 * One barrier per plane. Every group issued is waited for before it is read,
 * the last at the last plane, so no copy is pending when the block exits.
 * Vectors beyond the halo band are zero filled by the copy itself.
 * Alignment: the copies are 16-byte vectors: tile rows start at x0-R (R = 4,
 * x0 a multiple of 4), the interior x = 0 of every row is S3_ALIGN-aligned and
 * the row pitch a multiple of S3_ALIGN, so every source vector is aligned; the
 * CUDA host refuses fields that are not, the C hosts check every access. */
#ifndef S3_CQA_D
#define S3_CQA_D 3                        /* planes of copies in flight (cqa, cqas, cqt, cqts) */
#endif
/* The portable asynchronous copy, for the C emulations (and any GPU host that
 * does not define its own): the 4 values are copied (or zeroed, ok == 0) at
 * issue time, and commit/wait do nothing. Copying at once is one legal
 * schedule of an asynchronous copy - the hardware may complete it at any time
 * between issue and wait, and this is the earliest - so the emulated results
 * are those of a GPU whose copies land immediately. It is the schedule that
 * exposes overwrite races: a copy issued into a slot that another thread has
 * still to read (a barrier missing before the issue) changes that thread's
 * operands in the fiber emulation, where the issuing thread runs on to its
 * next barrier before the others run; a copy read by another thread without a
 * barrier in between reads NaN there, as shared memory starts as NaN. What it
 * cannot expose is a wait that is too shallow (a copy read before it lands):
 * only the GPU shows that (verify). */
#ifndef S3_CP4
#define S3_CP4(dst, src, ok)                                                         \
    {                                                                                \
        real c4_[4];                                                                 \
        if (ok) S3_LD4(c4_, src) else S3_ZERO4(c4_)                                  \
        S3_ST4(dst, c4_)                                                             \
    }
#define S3_CP_COMMIT
#define S3_CP_WAIT(n)
#endif
/* issue the copies of this thread's vectors of tile plane zp into the tile at
 * element offset so (vector i of a tile is element 4i: rows are kTW/4 vectors) */
#define S3_CQA_TILE(t, zp, so)                                                       \
    {                                                                                \
        const real *pl_ = u + (long)(zp) * pxy;                                      \
        S3_UNROLL                                                                    \
        for (int w_ = 0; w_ < kW; w_++) {                                            \
            const int i_ = (t) + w_ * kNT, row_ = i_ / kV4W;                         \
            const int gx_ = x0 - R_ + 4 * (i_ % kV4W), gy_ = y0 - R_ + row_;         \
            const int ok_ = gx_ < nx + R_ && gy_ < ny + R_;                          \
            if (i_ < kV4) S3_CP4(&S[(so) + 4 * i_], ok_ ? pl_ + gy_ * px + gx_ : pl_, ok_) \
        }                                                                            \
    }
/* staging vector of row c of thread t in u^{n-1} slot ps: [slot][row][thread]
 * vectors, so that consecutive threads touch consecutive 16 bytes */
#define S3_CQA_PVI(ps, c, t) (kPV0 + ((((ps) * kCY + (c)) * kNT) + (t)) * 4)
/* issue the copies of u^{n-1} of this thread's cells of plane zp into slot ps
 * (zero outside the interior, as S3_CQA_OWN) */
#define S3_CQA_PV(t, zp, ps)                                                         \
    {                                                                                \
        const real *pl_ = pv + (long)(zp) * pxy;                                     \
        const int gx_ = x0 + 4 * ((t) % kTXN), ty_ = (t) / kTXN;                     \
        S3_UNROLL                                                                    \
        for (int c_ = 0; c_ < kCY; c_++) {                                           \
            const int gy_ = y0 + ty_ * kCY + c_, ok_ = gx_ < nx && gy_ < ny;         \
            S3_CP4(&S[S3_CQA_PVI(ps, c_, t)], ok_ ? pl_ + gy_ * px + gx_ : pl_, ok_) \
        }                                                                            \
    }
/* the parts of cqa (REG: z queue in registers) and cqas (SH: z from shared):
 * tile slots, first tile plane - z0, the queue and its prologue */
#define S3_CQA_NS_REG(R, D) ((R) + 1 + (D))
#define S3_CQA_NS_SH(R, D) (2 * (R) + 1 + (D))
#define S3_CQA_ZB_REG 0
#define S3_CQA_ZB_SH (-R_)
#define S3_CQA_QDECL_REG S3_TDECL(real, q, [kCY][4][kQL]);   /* the register queue */
#define S3_CQA_QDECL_SH
/* prologue: own cells of planes z0-R .. z0+R-1 straight into the queue */
#define S3_CQA_QFILL_REG                                                             \
    S3_PAR(t)                                                                        \
        S3_UNROLL                                                                    \
        for (int d_ = 0; d_ < (2 * R_); d_++) {                                      \
            real o_[kCY][4];                                                         \
            S3_CQA_OWN(t, u, z0 - R_ + d_, o_)                                       \
            S3_UNROLL                                                                \
            for (int c_ = 0; c_ < kCY; c_++) {                                       \
                S3_UNROLL                                                            \
                for (int e_ = 0; e_ < 4; e_++) S3_T(q)[c_][e_][d_] = o_[c_][e_];     \
            }                                                                        \
        }                                                                            \
    S3_PAR_END
#define S3_CQA_QFILL_SH
/* the 4 Laplacians of row c_ (xr_: x neighbours and centre, yw_: y window),
 * into lap_[4]; REG also advances the queue. The operands and their order are
 * those of s3_star_lap (s3_star_sum / s3_star_pair), so the same bits. */
#define S3_CQA_LAP_REG                                                               \
    {                                                                                \
        real zn_[4];                                                                 \
        S3_LD4(zn_, &S[sR_ + o_])                                                    \
        S3_UNROLL                                                                    \
        for (int e_ = 0; e_ < 4; e_++) {                                             \
            real *qq_ = S3_T(q)[c_][e_];                                             \
            qq_[2 * R_] = zn_[e_];                                                   \
            lap_[e_] = s3_star_sum(yw_[c_ + R_][e_],                                 \
                s3_star_pair(xr_[3 + e_], xr_[5 + e_], yw_[c_ + R_ - 1][e_], yw_[c_ + R_ + 1][e_], qq_[R_ - 1], qq_[R_ + 1]), \
                s3_star_pair(xr_[2 + e_], xr_[6 + e_], yw_[c_ + R_ - 2][e_], yw_[c_ + R_ + 2][e_], qq_[R_ - 2], qq_[R_ + 2]), \
                s3_star_pair(xr_[1 + e_], xr_[7 + e_], yw_[c_ + R_ - 3][e_], yw_[c_ + R_ + 3][e_], qq_[R_ - 3], qq_[R_ + 3]), \
                s3_star_pair(xr_[0 + e_], xr_[8 + e_], yw_[c_ + R_ - 4][e_], yw_[c_ + R_ + 4][e_], qq_[R_ - 4], qq_[R_ + 4])); \
            S3_UNROLL                                                                \
            for (int d_ = 0; d_ < 2 * R_; d_++) qq_[d_] = qq_[d_ + 1];               \
        }                                                                            \
    }
#define S3_CQA_LAP_SH                                                                \
    {                                                                                \
        real zm_[R_][4], zp_[R_][4];     /* planes z-1-d and z+1+d */                \
        S3_UNROLL                                                                    \
        for (int d_ = 0; d_ < R_; d_++) {                                            \
            S3_LD4(zm_[d_], &S[sd_[R_ - 1 - d_] + o_])                               \
            S3_LD4(zp_[d_], &S[sd_[R_ + 1 + d_] + o_])                               \
        }                                                                            \
        S3_UNROLL                                                                    \
        for (int e_ = 0; e_ < 4; e_++)                                               \
            lap_[e_] = s3_star_sum(yw_[c_ + R_][e_],                                 \
                s3_star_pair(xr_[3 + e_], xr_[5 + e_], yw_[c_ + R_ - 1][e_], yw_[c_ + R_ + 1][e_], zm_[0][e_], zp_[0][e_]), \
                s3_star_pair(xr_[2 + e_], xr_[6 + e_], yw_[c_ + R_ - 2][e_], yw_[c_ + R_ + 2][e_], zm_[1][e_], zp_[1][e_]), \
                s3_star_pair(xr_[1 + e_], xr_[7 + e_], yw_[c_ + R_ - 3][e_], yw_[c_ + R_ + 3][e_], zm_[2][e_], zp_[2][e_]), \
                s3_star_pair(xr_[0 + e_], xr_[8 + e_], yw_[c_ + R_ - 4][e_], yw_[c_ + R_ + 4][e_], zm_[3][e_], zp_[3][e_])); \
    }
/* the tile offsets of plane z: sd_[d] of planes z-R+d (cqa: z .. z+R used),
 * sC_ the centre plane, sR_ plane z+R */
#define S3_CQA_SD                                                                    \
        int sd_[2 * R_ + 1];   /* tile offsets of planes z-R .. z+R (cqa: z .. z+R) */ \
        S3_UNROLL                                                                    \
        for (int d_ = 0; d_ <= 2 * R_; d_++)   /* (+kNS: cqa's unused planes < zb) */ \
            sd_[d_] = (z - R_ + d_ - zb + kNS) % kNS * kTILE;                        \
        const int sC_ = sd_[R_], sR_ = sd_[2 * R_];                                  \
        (void)sR_;
/* the compute of plane z (i = z - z0) by thread t, inside an S3_PAR region:
 * the 4-wide cells of its kCY rows from the slots sd_ / sC_ / sR_ and the
 * u^{n-1} staging slot i % kNP (PVI: its layout) */
#define S3_CQA_CALC(ZQ, EQ, PVI)                                                     \
            const int tx_ = t % kTXN, ty_ = t / kTXN, gx_ = x0 + 4 * tx_;            \
            const int ob_ = ty_ * kCY * kTW + R_ + 4 * tx_;  /* window row 0 */      \
            real *const op_ = out + (long)z * pxy;                                   \
            real yw_[kYW][4];                                                        \
            S3_UNROLL                                                                \
            for (int j_ = 0; j_ < kYW; j_++) S3_LD4(yw_[j_], &S[sC_ + ob_ + j_ * kTW]) \
            S3_UNROLL                                                                \
            for (int c_ = 0; c_ < kCY; c_++) {                                       \
                const int gy_ = y0 + ty_ * kCY + c_;                                 \
                const int o_ = ob_ + (c_ + R_) * kTW;                                \
                real xr_[12], pc_[4], lap_[4], r_[4];                                \
                S3_LD4(xr_, &S[sC_ + o_ - 4])                                        \
                S3_LD4(xr_ + 8, &S[sC_ + o_ + 4])                                    \
                S3_UNROLL                                                            \
                for (int e_ = 0; e_ < 4; e_++) xr_[4 + e_] = yw_[c_ + R_][e_];       \
                if (S3_ISWAVE_##EQ) S3_LD4(pc_, &S[PVI(i % kNP, c_, t)])             \
                else S3_ZERO4(pc_)                                                   \
                S3_CQA_LAP_##ZQ                                                      \
                S3_UNROLL                                                            \
                for (int e_ = 0; e_ < 4; e_++)                                       \
                    r_[e_] = S3_UPDV_##EQ(yw_[c_ + R_][e_], pc_[e_], k, lap_[e_]);   \
                if (gy_ < ny) {                                                      \
                    if (gx_ + 3 < nx) S3_ST4(op_ + gy_ * px + gx_, r_)               \
                    else {                                                           \
                        S3_UNROLL                                                    \
                        for (int e_ = 0; e_ < 4; e_++)                               \
                            if (gx_ + e_ < nx) op_[gy_ * px + gx_ + e_] = r_[e_];    \
                    }                                                                \
                }                                                                    \
            }
/* one plane zz (wait, barrier, issue group zz-z0+kD, compute) */
#define S3_CQA_PLANE(zz, ZQ, EQ)                                                     \
    {                                                                                \
        const int z = (zz), i = z - z0;                                              \
        S3_CQA_SD                                                                    \
        const int sN_ = (z + R_ + kD - zb) % kNS * kTILE;  /* slot of tile z+R+kD */ \
        S3_PAR(t) (void)t; S3_CP_WAIT(kD - 1) S3_PAR_END                             \
        S3_SYNC                                                                      \
        S3_PAR(t)                                                                    \
            if (z + kD < z1) {                                                       \
                S3_CQA_TILE(t, z + R_ + kD, sN_)                                     \
                if (S3_ISWAVE_##EQ) S3_CQA_PV(t, z + kD, (i + kD) % kNP)             \
            }                                                                        \
            S3_CP_COMMIT                                                             \
            S3_CQA_CALC(ZQ, EQ, S3_CQA_PVI)                                          \
        S3_PAR_END                                                                   \
    }

/* ZQ: REG (cqa) | SH (cqas); D: planes of copies in flight */
#define S3_BODY_cqa_G(NAME, BX, BY, TY, R, ST, EQ, ZQ, D)                            \
S3_KDECL(NAME, ((BX) / 4) * (TY))                                                    \
{                                                                                    \
    enum { R_ = (R), kD = (D), kTXN = (BX) / 4, kNT = kTXN * (TY),                   \
           kCY = (BY) / (TY), kTW = (BX) + 2 * (R), kTH = (BY) + 2 * (R),            \
           kTILE = kTW * kTH, kNS = S3_CQA_NS_##ZQ(R, D), kNP = (D) + 1,             \
           kQL = 2 * (R) + 1, kV4W = kTW / 4, kV4 = kV4W * kTH,                      \
           kW = (kV4 + kNT - 1) / kNT, kYW = kCY + 2 * (R), kPV0 = kNS * kTILE };    \
    /* whole 16-byte vectors: tile rows, the tile origin x0-R and the x cells */     \
    (void)sizeof(char[(R_ == 4 && (BX) % 4 == 0 && S3_ALIGN % 4 == 0 && kD >= 1) ? 1 : -1]); \
    (void)kQL;                                                                       \
    S3_SMEM(S, kPV0 + kNP * kCY * kNT * 4);                                          \
    const int x0 = S3_BIX * (BX), y0 = S3_BIY * (BY);                                \
    const int z0 = S3_BIZ * zc, z1 = S3_MIN(z0 + zc, nz);                            \
    const int zb = z0 + S3_CQA_ZB_##ZQ;   /* tile plane p in slot (p - zb) % kNS */  \
    S3_CQA_QDECL_##ZQ                                                                \
    S3_CQA_QFILL_##ZQ                                                                \
    /* groups 0 .. kD-1: the tiles zb .. z0+R+kD-1, u^{n-1} of z0 .. z0+kD-1 */      \
    S3_PAR(t)                                                                        \
        for (int p_ = zb; p_ < z0 + R_; p_++) S3_CQA_TILE(t, p_, (p_ - zb) * kTILE)  \
        S3_UNROLL                                                                    \
        for (int j_ = 0; j_ < kD; j_++) {                                            \
            if (z0 + j_ < z1) {                                                      \
                S3_CQA_TILE(t, z0 + R_ + j_, (z0 + R_ + j_ - zb) * kTILE)            \
                if (S3_ISWAVE_##EQ) S3_CQA_PV(t, z0 + j_, j_)                        \
            }                                                                        \
            S3_CP_COMMIT                                                             \
        }                                                                            \
    S3_PAR_END                                                                       \
    for (int zl_ = z0; zl_ < z1; zl_++) S3_CQA_PLANE(zl_, ZQ, EQ)                    \
    S3_SMEM_FREE(S);                                                                 \
}
/* the kinds by stencil: star here (cqa: REG, cqas: SH), box below (cqx) */
#define S3_BODY_cqa(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqa_##ST(NAME, BX, BY, TY, R, ST, EQ)
#define S3_BODY_cqas(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqas_##ST(NAME, BX, BY, TY, R, ST, EQ)
#define S3_BODY_cqa_STAR(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqa_G(NAME, BX, BY, TY, R, ST, EQ, REG, S3_CQA_D)
#define S3_BODY_cqas_STAR(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqa_G(NAME, BX, BY, TY, R, ST, EQ, SH, S3_CQA_D)

/* ------------------------------------------------------------------ cqt
 * cqa with the copies done by the Tensor Memory Accelerator (star only). In
 * cqa every thread issues 16-byte cp.async copies of its share of each tile
 * and of u^{n-1}, with their address arithmetic and bounds tests: about a
 * sixth of the instructions of the z loop, in a kernel whose issue slots are
 * 70 % busy. Here one thread issues one bulk tensor copy per tile (the
 * (BX+2R) x (BY+2R) box at (x0-R, y0-R) of a plane of u) and one per plane of
 * u^{n-1} (the BX x BY box of the block's cells); the copy engine computes the
 * addresses and zero-fills what lies outside the tensor, which is defined as
 * the interior plus the R-wide halo band for u and the interior for u^{n-1}:
 * the same zeros as cqa's bounds tests. The other threads only wait.
 * Completion is counted by kD transaction barriers (mbarriers in shared
 * memory): copy group j (tile z0+R+j and u^{n-1} of z0+j; group 0 also the
 * tiles z0 .. z0+R-1) arms barrier j % kD with its byte count, and a thread
 * waits for phase j / kD of that barrier before it reads the group. Per
 * plane z = z0+i:
 *   1. wait for group i (tile z+R and u^{n-1} of z have landed);
 *   2. one barrier: every thread has finished plane z-1, so the slots of tile
 *      z-1 and of u^{n-1} of z-1 are free, and every thread has passed its
 *      wait of barrier i % kD, which may be armed again;
 *   3. thread 0 arms barrier i % kD for group i+kD and issues its copies;
 *   4. compute plane z from the resident tiles (cqa's register queue and
 *      arithmetic, the same operands in the same order: the same bits).
 * cqts is the same with cqas's queue (tiles z-R .. z+R resident, no register
 * queue; group 0 holds the tiles z0-R .. z0+R).
 * The tile ring (R+1+kD slots, cqts 2R+1+kD) and the u^{n-1} staging ring (kD+1 planes,
 * BX x BY row-major, the layout the copy engine writes) are cqa's. Slots start
 * on 128 bytes, as bulk tensor copies require.
 * The C hosts (portable forms below) copy the box at issue time, with the
 * same zero fill, and their waits do nothing: the earliest completion, under
 * which a copy issued into a slot that another thread still reads changes
 * that thread's operands in the fiber emulation (as for cqa). */
#ifndef S3_TMA_TILE
/* the W x H box of array A at (X0, Y0) of plane zp into dst (row-major),
 * zero where x >= XL or y >= YL: the copy engine's zero fill outside the
 * tensor (the boxes never start below the tensor) */
#define S3_TMA_BOX(dst, A, zp, X0, Y0, W, H, XL, YL)                                 \
    {                                                                                \
        const real *pl_ = (A) + (long)(zp) * pxy;                                    \
        for (int r_ = 0; r_ < (H); r_++)                                             \
            for (int c_ = 0; c_ < (W); c_++) {                                       \
                const int gx_ = (X0) + c_, gy_ = (Y0) + r_;                          \
                (dst)[r_ * (W) + c_] = gx_ < (XL) && gy_ < (YL) ? pl_[gy_ * px + gx_] : (real)0; \
            }                                                                        \
    }
/* tile of plane zp: u's kTW x kTH box at (x0-R, y0-R), zero beyond the halo band */
#define S3_TMA_TILE(dst, zp, mb) S3_TMA_BOX(dst, u, zp, x0 - R_, y0 - R_, kTW, kTH, nx + R_, ny + R_)
/* u^{n-1} of plane zp: the BX x BY box at (x0, y0), zero beyond the interior */
#define S3_TMA_PV(dst, zp, mb) S3_TMA_BOX(dst, pv, zp, x0, y0, kBX, kBY, nx, ny)
#define S3_TMA_INIT(mb)                  /* a transaction barrier expecting 1 arrival */
#define S3_TMA_INIT_FENCE                /* the inits visible to the copy engine */
#define S3_TMA_EXPECT(mb, bytes)         /* arrive, and expect this many bytes */
#define S3_TMA_WAIT(mb, parity)          /* wait for the phase of this parity */
#define S3_TMA_PROXY_FENCE               /* earlier shared reads before the copies' writes */
#endif
/* transaction barrier j (8 bytes each, after the staging ring) */
#define S3_CQT_MB(j) ((void *)&S[kMB0 + 2 * (j)])
/* staging element of row c of thread t in u^{n-1} slot ps (row-major BX x BY) */
#define S3_CQT_PVI(ps, c, t) (kPV0 + (ps) * kPVS + ((t) / kTXN * kCY + (c)) * kBX + 4 * ((t) % kTXN))
/* thread 0: arm barrier j % kD for group j and issue its copies (tile z0+R+j,
 * u^{n-1} of z0+j; NT0 more tiles below, z0+R+j-NT0 ..) */
#define S3_CQT_GROUP(j, NT0, EQ)                                                     \
    {                                                                                \
        const int zt_ = z0 + R_ + (j);                                               \
        S3_TMA_EXPECT(S3_CQT_MB((j) % kD), ((NT0) + 1) * kTB + (S3_ISWAVE_##EQ ? kPB : 0)) \
        for (int p_ = zt_ - (NT0); p_ <= zt_; p_++)                                  \
            S3_TMA_TILE(&S[(p_ - zb) % kNS * kTILE], p_, S3_CQT_MB((j) % kD))        \
        if (S3_ISWAVE_##EQ) S3_TMA_PV(&S[kPV0 + ((j) % kNP) * kPVS], z0 + (j), S3_CQT_MB((j) % kD)) \
    }
#define S3_CQT_PLANE(zz, ZQ, EQ)                                                     \
    {                                                                                \
        const int z = (zz), i = z - z0;                                              \
        S3_CQA_SD                                                                    \
        S3_PAR(t) (void)t; S3_TMA_WAIT(S3_CQT_MB(i % kD), (i / kD) & 1) S3_PAR_END   \
        S3_SYNC                                                                      \
        S3_PAR(t)                                                                    \
            if (t == 0 && z + kD < z1) {                                             \
                S3_TMA_PROXY_FENCE                                                   \
                S3_CQT_GROUP(i + kD, 0, EQ)                                          \
            }                                                                        \
            S3_CQA_CALC(ZQ, EQ, S3_CQT_PVI)                                          \
        S3_PAR_END                                                                   \
    }
#define S3_BODY_cqt_G(NAME, BX, BY, TY, R, ST, EQ, ZQ, D)                            \
S3_KDECL(NAME, ((BX) / 4) * (TY))                                                    \
{                                                                                    \
    enum { R_ = (R), kD = (D), kBX = (BX), kBY = (BY), kTXN = (BX) / 4,              \
           kNT = kTXN * (TY), kCY = (BY) / (TY), kTW = (BX) + 2 * (R),               \
           kTH = (BY) + 2 * (R), kTILE = kTW * kTH, kNS = S3_CQA_NS_##ZQ(R, D),      \
           kNP = (D) + 1, kQL = 2 * (R) + 1, kYW = kCY + 2 * (R), kPVS = (BX) * (BY), \
           kPV0 = kNS * kTILE, kMB0 = kPV0 + kNP * kPVS,                             \
           kTB = kTILE * (int)sizeof(real), kPB = kPVS * (int)sizeof(real) };        \
    /* 16-byte x cells, 128-byte slots (as 4-byte values), boxes of <= 256 per side */ \
    (void)sizeof(char[(R_ == 4 && (BX) % 4 == 0 && kD >= 1 && kTILE * 4 % 128 == 0   \
                       && kPVS * 4 % 128 == 0 && kTW <= 256 && kTH <= 256) ? 1 : -1]); \
    (void)kQL; (void)kTB; (void)kPB; (void)kBY;                                      \
    S3_SMEM(S, kMB0 + 2 * kD);                                                       \
    const int x0 = S3_BIX * (BX), y0 = S3_BIY * (BY);                                \
    const int z0 = S3_BIZ * zc, z1 = S3_MIN(z0 + zc, nz);                            \
    const int zb = z0 + S3_CQA_ZB_##ZQ;  /* tile plane p in slot (p - zb) % kNS */   \
    S3_CQA_QDECL_##ZQ                                                                \
    S3_CQA_QFILL_##ZQ                                                                \
    /* groups 0 .. kD-1 (group 0 with the tiles zb .. z0+R-1) */                     \
    S3_PAR(t)                                                                        \
        if (t == 0) {                                                                \
            for (int j_ = 0; j_ < kD; j_++) S3_TMA_INIT(S3_CQT_MB(j_))               \
            S3_TMA_INIT_FENCE                                                        \
            for (int j_ = 0; j_ < kD && z0 + j_ < z1; j_++)                          \
                S3_CQT_GROUP(j_, j_ == 0 ? z0 + R_ - zb : 0, EQ)                     \
        }                                                                            \
    S3_PAR_END                                                                       \
    S3_SYNC                    /* the barriers are initialised before anyone waits */ \
    for (int zl_ = z0; zl_ < z1; zl_++) S3_CQT_PLANE(zl_, ZQ, EQ)                    \
    S3_SMEM_FREE(S);                                                                 \
}
#define S3_BODY_cqt(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqt_G(NAME, BX, BY, TY, R, ST, EQ, REG, S3_CQA_D)
/* cqts: the seed's queue (cqas: tiles z-R .. z+R resident, all 25 points from
 * shared memory, no register queue) filled the same way */
#define S3_BODY_cqts(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqt_G(NAME, BX, BY, TY, R, ST, EQ, SH, S3_CQA_D)

/* ------------------------------------------------------------------ cqa / cqas, box
 * The cqa method for the box stencil (27 points, R = 1): tiles and u^{n-1}
 * go to shared memory by 16-byte asynchronous copies kD = S3_CQA_D planes
 * ahead, 4 x cells per thread (kCY rows each), 128-bit shared reads and global
 * stores, one barrier per plane; same ring, groups, wait and barrier protocol
 * as the star cqa (see above). A tile covers x0-4 .. x0+BX+3 (kTW = BX+8, so
 * that every row starts on a 16-byte vector; only x0-1 and x0+BX of the x halo
 * are read) and y0-1 .. y0+BY (kTH = BY+2).
 *   cqa  (ZQ = BREG): the z direction in registers as in-plane partial sums.
 *        Per cell and plane: A (centre), B (4 faces), C (4 corners), see
 *        s3_box_comb; plane z needs A, B, C of the planes z-1, z, z+1, of
 *        which those of z-1 and z are carried in registers, so each tile is
 *        read once: only tile z+1 is resident while plane z is computed, and
 *        kD more are in flight: 1+kD slots (1 tile + kD prefetch slots).
 *        The tiles z0-1 and z0 are copied and reduced to sums first (one extra
 *        wait and 2 barriers per block).
 *   cqas (ZQ = BSH): the seed's queue: tiles z-1, z, z+1 resident (2R+1 = 3)
 *        and kD more in flight: 3+kD slots; the sums of all three planes are
 *        formed from the tiles at every plane (3 x the shared reads of cqa).
 * Per row of 4 cells and plane: one vector read of the row and 2 scalar reads
 * (x-1, x+4) for each of the kCY+2 rows of the y window.
 * Tile plane p lives in slot (p - zb) % kNS, zb = z0-1; copy group j holds
 * tile z0+1+j and u^{n-1} of z0+j (cqas: group 0 also the tiles z0-1, z0).
 * At plane z (i = z - z0): wait for group i, barrier (every thread has
 * finished plane z-1: cqa read tile z, cqas tile z-2 last then), issue group
 * i+kD into that slot (cqa: (i+1) % (1+kD), cqas: (i-1) % (3+kD)), compute. */
#define S3_CQX_NS_BREG(D) (1 + (D))
#define S3_CQX_NS_BSH(D) (3 + (D))
#define S3_CQX_ISREG_BREG 1
#define S3_CQX_ISREG_BSH 0
/* copies of this thread's vectors of tile plane zp into the tile at element
 * offset so (zero fill beyond the halo band) */
#define S3_CQX_TILE(t, zp, so)                                                       \
    {                                                                                \
        const real *pl_ = u + (long)(zp) * pxy;                                      \
        S3_UNROLL                                                                    \
        for (int w_ = 0; w_ < kW; w_++) {                                            \
            const int i_ = (t) + w_ * kNT, row_ = i_ / kV4W;                         \
            const int gx_ = x0 - 4 + 4 * (i_ % kV4W), gy_ = y0 - 1 + row_;           \
            const int ok_ = gx_ < nx + 1 && gy_ < ny + 1;                            \
            if (i_ < kV4) S3_CP4(&S[(so) + 4 * i_], ok_ ? pl_ + gy_ * px + gx_ : pl_, ok_) \
        }                                                                            \
    }
/* the partial sums A, B, C ([kCY][4] each) of this thread's cells in the tile
 * at offset so: w_[j] = x-1 .. x+4 of window row j (tile row ty*kCY + j) */
#define S3_CQX_SUMS(so, A, B, C)                                                     \
    {                                                                                \
        real w_[kCY + 2][6];                                                         \
        S3_UNROLL                                                                    \
        for (int j_ = 0; j_ < kCY + 2; j_++) {                                       \
            const int o_ = (so) + ob_ + j_ * kTW;                                    \
            w_[j_][0] = S[o_ + 3];                                                   \
            S3_LD4(w_[j_] + 1, &S[o_ + 4])                                           \
            w_[j_][5] = S[o_ + 8];                                                   \
        }                                                                            \
        S3_UNROLL                                                                    \
        for (int c_ = 0; c_ < kCY; c_++) {                                           \
            S3_UNROLL                                                                \
            for (int e_ = 0; e_ < 4; e_++) {                                         \
                (A)[c_][e_] = w_[c_ + 1][e_ + 1];                                    \
                (B)[c_][e_] = s3_box_sum4(w_[c_ + 1][e_], w_[c_ + 1][e_ + 2], w_[c_][e_ + 1], w_[c_ + 2][e_ + 1]); \
                (C)[c_][e_] = s3_box_sum4(w_[c_][e_], w_[c_][e_ + 2], w_[c_ + 2][e_], w_[c_ + 2][e_ + 2]); \
            }                                                                        \
        }                                                                            \
    }
#define S3_CQX_SLOT(p) (((p) - zb) % kNS * kTILE)
#define S3_BODY_cqx_G(NAME, BX, BY, TY, R, ST, EQ, ZQ, D)                            \
S3_KDECL(NAME, ((BX) / 4) * (TY))                                                    \
{                                                                                    \
    enum { R_ = (R), kD = (D), kTXN = (BX) / 4, kNT = kTXN * (TY),                   \
           kCY = (BY) / (TY), kTW = (BX) + 8, kTH = (BY) + 2,                        \
           kTILE = kTW * kTH, kNS = S3_CQX_NS_##ZQ(D), kNP = kD + 1,                 \
           kV4W = kTW / 4, kV4 = kV4W * kTH, kW = (kV4 + kNT - 1) / kNT,             \
           kPV0 = kNS * kTILE, kREG = S3_CQX_ISREG_##ZQ };                           \
    (void)sizeof(char[(R_ == 1 && (BX) % 4 == 0 && S3_ALIGN % 4 == 0 && kD >= 1) ? 1 : -1]); \
    S3_SMEM(S, kPV0 + kNP * kCY * kNT * 4);                                          \
    const int x0 = S3_BIX * (BX), y0 = S3_BIY * (BY);                                \
    const int z0 = S3_BIZ * zc, z1 = S3_MIN(z0 + zc, nz);                            \
    const int zb = z0 - 1;                /* tile plane p in slot (p - zb) % kNS */  \
    /* the sums of planes z-1 (index 0) and z (1); cqa only */                       \
    S3_TDECL(real, qa, [2][kCY][4]);                                                 \
    S3_TDECL(real, qb, [2][kCY][4]);                                                 \
    S3_TDECL(real, qc, [2][kCY][4]);                                                 \
    if (kREG) {   /* cqa: tiles z0-1, z0 -> sums of the planes z0-1, z0 */           \
        S3_PAR(t)                                                                    \
            S3_CQX_TILE(t, z0 - 1, 0)                                                \
            S3_CQX_TILE(t, z0, kTILE)                                                \
            S3_CP_COMMIT                                                             \
            S3_CP_WAIT(0)                                                            \
        S3_PAR_END                                                                   \
        S3_SYNC                                                                      \
        S3_PAR(t)                                                                    \
            const int ob_ = t / kTXN * kCY * kTW + 4 * (t % kTXN);                   \
            S3_CQX_SUMS(0, S3_T(qa)[0], S3_T(qb)[0], S3_T(qc)[0])                    \
            S3_CQX_SUMS(kTILE, S3_T(qa)[1], S3_T(qb)[1], S3_T(qc)[1])                \
        S3_PAR_END                                                                   \
        S3_SYNC                                                                      \
    }                                                                                \
    /* groups 0 .. kD-1: tile z0+1+j, u^{n-1} of z0+j (cqas: tiles z0-1, z0 too) */ \
    S3_PAR(t)                                                                        \
        if (!kREG) {                                                                 \
            S3_CQX_TILE(t, z0 - 1, 0)                                                \
            S3_CQX_TILE(t, z0, kTILE)                                                \
        }                                                                            \
        S3_UNROLL                                                                    \
        for (int j_ = 0; j_ < kD; j_++) {                                            \
            if (z0 + j_ < z1) {                                                      \
                S3_CQX_TILE(t, z0 + 1 + j_, S3_CQX_SLOT(z0 + 1 + j_))                \
                if (S3_ISWAVE_##EQ) S3_CQA_PV(t, z0 + j_, j_)                        \
            }                                                                        \
            S3_CP_COMMIT                                                             \
        }                                                                            \
    S3_PAR_END                                                                       \
    for (int z = z0; z < z1; z++) {                                                  \
        const int i = z - z0;                                                        \
        S3_PAR(t) (void)t; S3_CP_WAIT(kD - 1) S3_PAR_END                             \
        S3_SYNC                                                                      \
        S3_PAR(t)                                                                    \
            if (z + kD < z1) {                                                       \
                S3_CQX_TILE(t, z + 1 + kD, S3_CQX_SLOT(z + 1 + kD))                  \
                if (S3_ISWAVE_##EQ) S3_CQA_PV(t, z + kD, (i + kD) % kNP)             \
            }                                                                        \
            S3_CP_COMMIT                                                             \
            const int tx_ = t % kTXN, ty_ = t / kTXN, gx_ = x0 + 4 * tx_;            \
            const int ob_ = ty_ * kCY * kTW + 4 * tx_;   /* window row 0 */          \
            real *const op_ = out + (long)z * pxy;                                   \
            real sa_[3][kCY][4], sb_[3][kCY][4], sc_[3][kCY][4];  /* z-1, z, z+1 */  \
            if (kREG) {                                                              \
                S3_UNROLL                                                            \
                for (int h_ = 0; h_ < 2; h_++) {                                     \
                    S3_UNROLL                                                        \
                    for (int c_ = 0; c_ < kCY; c_++) {                               \
                        S3_UNROLL                                                    \
                        for (int e_ = 0; e_ < 4; e_++) {                             \
                            sa_[h_][c_][e_] = S3_T(qa)[h_][c_][e_];                  \
                            sb_[h_][c_][e_] = S3_T(qb)[h_][c_][e_];                  \
                            sc_[h_][c_][e_] = S3_T(qc)[h_][c_][e_];                  \
                        }                                                            \
                    }                                                                \
                }                                                                    \
            } else {                                                                 \
                S3_CQX_SUMS(S3_CQX_SLOT(z - 1), sa_[0], sb_[0], sc_[0])              \
                S3_CQX_SUMS(S3_CQX_SLOT(z), sa_[1], sb_[1], sc_[1])                  \
            }                                                                        \
            S3_CQX_SUMS(S3_CQX_SLOT(z + 1), sa_[2], sb_[2], sc_[2])                  \
            S3_UNROLL                                                                \
            for (int c_ = 0; c_ < kCY; c_++) {                                       \
                const int gy_ = y0 + ty_ * kCY + c_;                                 \
                real pc_[4], r_[4];                                                  \
                if (S3_ISWAVE_##EQ) S3_LD4(pc_, &S[S3_CQA_PVI(i % kNP, c_, t)])      \
                else S3_ZERO4(pc_)                                                   \
                S3_UNROLL                                                            \
                for (int e_ = 0; e_ < 4; e_++) {                                     \
                    const real lap_ = s3_box_comb(sa_[0][c_][e_], sb_[0][c_][e_], sc_[0][c_][e_], \
                                                  sa_[1][c_][e_], sb_[1][c_][e_], sc_[1][c_][e_], \
                                                  sa_[2][c_][e_], sb_[2][c_][e_], sc_[2][c_][e_]); \
                    r_[e_] = S3_UPDV_##EQ(sa_[1][c_][e_], pc_[e_], k, lap_);         \
                }                                                                    \
                if (gy_ < ny) {                                                      \
                    if (gx_ + 3 < nx) S3_ST4(op_ + gy_ * px + gx_, r_)               \
                    else {                                                           \
                        S3_UNROLL                                                    \
                        for (int e_ = 0; e_ < 4; e_++)                               \
                            if (gx_ + e_ < nx) op_[gy_ * px + gx_ + e_] = r_[e_];    \
                    }                                                                \
                }                                                                    \
            }                                                                        \
            if (kREG) {   /* plane z+1 becomes plane z, plane z plane z-1 */         \
                S3_UNROLL                                                            \
                for (int h_ = 0; h_ < 2; h_++) {                                     \
                    S3_UNROLL                                                        \
                    for (int c_ = 0; c_ < kCY; c_++) {                               \
                        S3_UNROLL                                                    \
                        for (int e_ = 0; e_ < 4; e_++) {                             \
                            S3_T(qa)[h_][c_][e_] = sa_[h_ + 1][c_][e_];              \
                            S3_T(qb)[h_][c_][e_] = sb_[h_ + 1][c_][e_];              \
                            S3_T(qc)[h_][c_][e_] = sc_[h_ + 1][c_][e_];              \
                        }                                                            \
                    }                                                                \
                }                                                                    \
            }                                                                        \
        S3_PAR_END                                                                   \
    }                                                                                \
    S3_SMEM_FREE(S);                                                                 \
}
/* the kinds by stencil: cqa / cqas star as above, box as cqx */
#define S3_BODY_cqa_BOX(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqx_G(NAME, BX, BY, TY, R, ST, EQ, BREG, S3_CQA_D)
#define S3_BODY_cqas_BOX(NAME, BX, BY, TY, R, ST, EQ) S3_BODY_cqx_G(NAME, BX, BY, TY, R, ST, EQ, BSH, S3_CQA_D)
#define S3_SMEM_CQX(BX, BY, ZQ, D) ((S3_CQX_NS_##ZQ(D) * ((BX) + 8) * ((BY) + 2) + ((D) + 1) * (BX) * (BY)) * sizeof(real))

/* Shared-memory bytes per block of each kind */
#define S3_SMEM_naive(BX, BY, R) 0
#define S3_SMEM_regq(BX, BY, R) (2 * ((BX) + 2 * (R)) * ((BY) + 2 * (R)) * sizeof(real))
#define S3_SMEM_cq(BX, BY, R) ((2 * (R) + 2) * ((BX) + 2 * (R)) * ((BY) + 2 * (R)) * sizeof(real))
/* cqa/cqas: the tile ring plus kD+1 planes of u^{n-1} staging (BX x BY each) */
#define S3_SMEM_CQA(BX, BY, R, ZQ, D) ((S3_CQA_NS_##ZQ(R, D) * ((BX) + 2 * (R)) * ((BY) + 2 * (R)) + ((D) + 1) * (BX) * (BY)) * sizeof(real))
/* (R = 1: the box kernels, S3_BODY_cqx_G) */
#define S3_SMEM_cqa(BX, BY, R) ((R) == 1 ? S3_SMEM_CQX(BX, BY, BREG, S3_CQA_D) : S3_SMEM_CQA(BX, BY, R, REG, S3_CQA_D))
#define S3_SMEM_cqas(BX, BY, R) ((R) == 1 ? S3_SMEM_CQX(BX, BY, BSH, S3_CQA_D) : S3_SMEM_CQA(BX, BY, R, SH, S3_CQA_D))
/* cqt: cqa's rings plus kD transaction barriers of 8 bytes */
#define S3_SMEM_cqt(BX, BY, R) (S3_SMEM_CQA(BX, BY, R, REG, S3_CQA_D) + 8 * S3_CQA_D)
#define S3_SMEM_cqts(BX, BY, R) (S3_SMEM_CQA(BX, BY, R, SH, S3_CQA_D) + 8 * S3_CQA_D)
/* threads per block: BX x TY (regq has one thread per column, TY = BY);
 * cqa / cqas / cqt / cqts: BX/4 x TY (4 x cells per thread) */
#define S3_NTH_naive(BX, TY) ((BX) * (TY))
#define S3_NTH_regq(BX, TY) ((BX) * (TY))
#define S3_NTH_cq(BX, TY) ((BX) * (TY))
#define S3_NTH_cqa(BX, TY) ((BX) / 4 * (TY))
#define S3_NTH_cqas(BX, TY) ((BX) / 4 * (TY))
#define S3_NTH_cqt(BX, TY) ((BX) / 4 * (TY))
#define S3_NTH_cqts(BX, TY) ((BX) / 4 * (TY))

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
    X(cqa,  s3k_cqa_star_wave_32x16,     32, 16, 16, 4, STAR, WAVE)                 \
    X(cqa,  s3k_cqa_star_wave_64x8,      64,  8,  8, 4, STAR, WAVE)                 \
    X(cqa,  s3k_cqa_star_wave_64x16,     64, 16, 16, 4, STAR, WAVE)                 \
    X(cqa,  s3k_cqa_star_wave_32x32,     32, 32, 16, 4, STAR, WAVE)                 \
    X(cqas, s3k_cqas_star_wave_32x16,    32, 16, 16, 4, STAR, WAVE)                 \
    X(cqas, s3k_cqas_star_wave_64x8,     64,  8,  8, 4, STAR, WAVE)                 \
    X(cqas, s3k_cqas_star_wave_64x16,    64, 16, 16, 4, STAR, WAVE)                 \
    X(cqas, s3k_cqas_star_wave_32x32,    32, 32, 16, 4, STAR, WAVE)                 \
    X(cqa, s3k_cqa_star_wave_128x16,     128, 16, 16, 4, STAR, WAVE)                \
    X(cqa, s3k_cqa_star_wave_64x32,       64, 32, 32, 4, STAR, WAVE)                \
    X(cqt,  s3k_cqt_star_wave_64x16,      64, 16, 16, 4, STAR, WAVE)                \
    X(cqt,  s3k_cqt_star_wave_32x16,      32, 16, 16, 4, STAR, WAVE)                \
    X(cqt,  s3k_cqt_star_wave_128x16,    128, 16, 16, 4, STAR, WAVE)                \
    X(cqt,  s3k_cqt_star_wave_64x32,      64, 32, 32, 4, STAR, WAVE)                \
    X(cqts, s3k_cqts_star_wave_64x16,     64, 16, 16, 4, STAR, WAVE)                \
    X(cqts, s3k_cqts_star_wave_64x32,     64, 32, 32, 4, STAR, WAVE)                \
    X(cqts, s3k_cqts_star_wave_128x16,   128, 16, 16, 4, STAR, WAVE)                \
    X(cqa,  s3k_cqa_box_wave_64x16,       64, 16, 16, 1, BOX,  WAVE)                \
    X(cqa,  s3k_cqa_box_wave_32x16,       32, 16, 16, 1, BOX,  WAVE)                \
    X(cqa,  s3k_cqa_box_wave_64x8,        64,  8,  8, 1, BOX,  WAVE)                \
    X(cqa,  s3k_cqa_box_wave_32x32,       32, 32, 16, 1, BOX,  WAVE)                \
    X(cqa,  s3k_cqa_box_wave_128x16,     128, 16, 16, 1, BOX,  WAVE)                \
    X(cqa,  s3k_cqa_box_wave_64x32,       64, 32, 16, 1, BOX,  WAVE)                \
    X(cqas, s3k_cqas_box_wave_64x16,      64, 16, 16, 1, BOX,  WAVE)                \
    X(cqas, s3k_cqas_box_wave_32x32,      32, 32, 16, 1, BOX,  WAVE)                \
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
    X(cqa,  s3k_cqa_star_heat_32x16,     32, 16, 16, 4, STAR, HEAT)                 \
    X(cqa,  s3k_cqa_star_heat_64x8,      64,  8,  8, 4, STAR, HEAT)                 \
    X(cqa,  s3k_cqa_star_heat_64x16,     64, 16, 16, 4, STAR, HEAT)                 \
    X(cqa,  s3k_cqa_star_heat_32x32,     32, 32, 16, 4, STAR, HEAT)                 \
    X(cqas, s3k_cqas_star_heat_32x16,    32, 16, 16, 4, STAR, HEAT)                 \
    X(cqas, s3k_cqas_star_heat_64x8,     64,  8,  8, 4, STAR, HEAT)                 \
    X(cqas, s3k_cqas_star_heat_64x16,    64, 16, 16, 4, STAR, HEAT)                 \
    X(cqas, s3k_cqas_star_heat_32x32,    32, 32, 16, 4, STAR, HEAT)                 \
    X(cqa, s3k_cqa_star_heat_128x16,     128, 16, 16, 4, STAR, HEAT)                \
    X(cqa, s3k_cqa_star_heat_64x32,       64, 32, 32, 4, STAR, HEAT)                \
    X(cqt,  s3k_cqt_star_heat_64x16,      64, 16, 16, 4, STAR, HEAT)                \
    X(cqt,  s3k_cqt_star_heat_64x32,      64, 32, 32, 4, STAR, HEAT)                \
    X(cqa,  s3k_cqa_box_heat_64x16,       64, 16, 16, 1, BOX,  HEAT)                \
    X(cqa,  s3k_cqa_box_heat_32x16,       32, 16, 16, 1, BOX,  HEAT)                \
    X(cqa,  s3k_cqa_box_heat_64x8,        64,  8,  8, 1, BOX,  HEAT)                \
    X(cqa,  s3k_cqa_box_heat_32x32,       32, 32, 16, 1, BOX,  HEAT)                \
    X(cqa,  s3k_cqa_box_heat_128x16,     128, 16, 16, 1, BOX,  HEAT)                \
    X(cqa,  s3k_cqa_box_heat_64x32,       64, 32, 16, 1, BOX,  HEAT)                \
    X(cqas, s3k_cqas_box_heat_64x16,      64, 16, 16, 1, BOX,  HEAT)                \
    X(cq,    s3k_cq_box_heat_32x16,      32, 16, 16, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_32x8,       32,  8,  8, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_64x8,       64,  8,  8, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_32x32,      32, 32, 16, 1, BOX,  HEAT)                 \
    X(cq,    s3k_cq_box_heat_64x16,      64, 16,  8, 1, BOX,  HEAT)

#define S3_DEFINE_KERNEL(kind, NAME, BX, BY, TY, R, ST, EQ) S3_BODY_##kind(NAME, BX, BY, TY, R, ST, EQ)
/* table entry: { S3KInfo, function } */
#define S3_KERNEL_ENTRY(kind, NAME, BX, BY, TY, R, ST, EQ)                          \
    { { #kind, #BX "x" #BY, S3_##ST, S3_##EQ, BX, BY, S3_NTH_##kind(BX, TY), R,       \
        S3_SMEM_##kind(BX, BY, R) }, NAME },

#endif
