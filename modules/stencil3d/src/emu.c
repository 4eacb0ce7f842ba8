/* emu.c - the GPU kernels of s3_kernels.h executed on the CPU.
 *
 * Each kernel becomes a C function that runs one thread block: S3_PAR
 * regions loop over the block's threads, a barrier is the end of such a loop,
 * per-thread state that crosses a barrier is an array indexed by the thread.
 * Blocks run in parallel (OpenMP). Shared memory starts as NaN, so a cell
 * computed from a tile entry that no thread loaded cannot match the reference.
 * This is a test mode (mode = emu / verify): it checks the tile, queue and
 * index logic of the GPU source without a GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "s3d.h"
#include "s3_kernels.h"

static real *emu_smem(size_t n)
{
    /* aligned as the GPU's shared memory is for 128-bit accesses (S3_LD4) */
    real *s = (real *)aligned_alloc(64, (n * sizeof(real) + 63) / 64 * 64);
    if (!s) mod_fail(RC_MEMORY, "out of host memory for an emulated thread block (%zu bytes)", n * sizeof(real));
    for (size_t i = 0; i < n; i++) s[i] = (real)NAN;
    return s;
}

#define S3_RESTRICT restrict
#define S3_KDECL(NAME, NTH) static void NAME(S3_KARGS, int s3_bix, int s3_biy, int s3_biz)
#define S3_BIX s3_bix
#define S3_BIY s3_biy
#define S3_BIZ s3_biz
#define S3_SMEM(S, n) real *S = emu_smem((size_t)(n))
#define S3_SMEM_FREE(S) free(S)
#define S3_PAR(t) for (int t = 0; t < kNT; t++) {
#define S3_PAR_END }
#define S3_SYNC
#define S3_TDECL(type, name, dims) type name[kNT] dims
#define S3_T(name) name[t]
#define S3_UNROLL

S3_KERNELS(S3_DEFINE_KERNEL)

typedef void (*EmuFn)(S3_KARGS, int, int, int);
typedef struct { S3KInfo info; EmuFn fn; } EmuKernel;
static const EmuKernel table[] = { S3_KERNELS(S3_KERNEL_ENTRY) };

int s3_emu_count(void) { return (int)(sizeof table / sizeof table[0]); }
const S3KInfo *s3_emu_info(int i) { return &table[i].info; }

/* The launch of an emulated kernel: its z chunk (naive: 1 plane; else
 * zchunk, 0 = the whole column) and the grid of blocks; refuses planes that
 * the kernel's 32-bit index arithmetic cannot address. Returns the z chunk. */
int s3_emu_grid(const S3KInfo *ki, const S3Grid *g, int zchunk, int grid[3])
{
    const int zc = !strcmp(ki->kind, "naive") ? 1 : (zchunk > 0 ? zchunk : g->nz);
    if (s3_kind_plane32(ki->kind) && g->pxy > 2147483647L)
        mod_fail(RC_INPUT, "kernel %s indexes a plane with 32-bit integers: a plane of %ld elements is too large (use kernel = cq)", ki->kind, g->pxy);
    grid[0] = (g->nx + ki->bx - 1) / ki->bx;
    grid[1] = (g->ny + ki->by - 1) / ki->by;
    grid[2] = (g->nz + zc - 1) / zc;
    return zc;
}

void s3_emu_step(int i, const S3Grid *g, real k, const real *u, const real *pv, real *out, int zchunk)
{
    const EmuKernel *K = &table[i];
    int grid[3];
    const int zc = s3_emu_grid(&K->info, g, zchunk, grid), gx = grid[0], gy = grid[1], gz = grid[2];
    #pragma omp parallel for collapse(3) schedule(dynamic)
    for (int bz = 0; bz < gz; bz++)
        for (int by = 0; by < gy; by++)
            for (int bx = 0; bx < gx; bx++)
                K->fn(u, pv, out, k, g->nx, g->ny, g->nz, g->px, g->pxy, zc, bx, by, bz);
}
