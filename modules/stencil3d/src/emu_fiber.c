/* emu_fiber.c - the GPU kernels of s3_kernels.h executed on the CPU with one
 * coroutine (ucontext fiber) per GPU thread.
 *
 * Unlike emu.c, which runs each S3_PAR region for all threads before the next
 * one (as if there were a barrier after every region), here every thread runs
 * the kernel body straight through until it reaches a barrier (S3_SYNC), and
 * only then does the next thread run: the order of a GPU block in which one
 * thread gets far ahead of another. A missing barrier (a thread overwriting a
 * shared tile that another thread has still to read) then changes the result.
 * The thread order of each barrier round is forward, or a shuffle (seed > 0).
 * Threads that leave the kernel while others wait at a barrier are reported
 * as barrier divergence. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include "s3d.h"
#include "s3_kernels.h"

#define FIBER_STACK (64 * 1024)

#define S3_RESTRICT restrict
typedef void (*EmuFn)(S3_KARGS, int, int, int);
typedef struct {
    ucontext_t sched, *ctx;
    char *stacks;
    int cap, nt, cur;
    int *done, *syncs;
    real *smem;
    /* arguments of the current block */
    EmuFn kfn; const real *u; const real *pv; real *out; real k;
    const S3Grid *g; int zc, bx, by, bz;
} Block;

static _Thread_local Block B_;

static void fiber_sync(void)
{
    Block *b = &B_;
    b->syncs[b->cur]++;
    swapcontext(&b->ctx[b->cur], &b->sched);
}

static real *fiber_smem(size_t n)
{
    Block *b = &B_;
    if (!b->smem) {   /* first thread of the block allocates, the others share it */
        b->smem = (real *)aligned_alloc(64, (n * sizeof(real) + 63) / 64 * 64);   /* for S3_LD4 */
        if (!b->smem) mod_fail(RC_MEMORY, "out of host memory for an emulated thread block");
        for (size_t i = 0; i < n; i++) b->smem[i] = (real)NAN;
    }
    return b->smem;
}

#define S3_KDECL(NAME, NTH) static void NAME(S3_KARGS, int s3_bix, int s3_biy, int s3_biz)
#define S3_BIX s3_bix
#define S3_BIY s3_biy
#define S3_BIZ s3_biz
#define S3_SMEM(S, n) real *S = fiber_smem((size_t)(n))
#define S3_SMEM_FREE(S) (void)(S)
#define S3_PAR(t) { const int t = B_.cur;
#define S3_PAR_END }
#define S3_SYNC fiber_sync();
#define S3_TDECL(type, name, dims) type name dims
#define S3_T(name) name
#define S3_UNROLL

S3_KERNELS(S3_DEFINE_KERNEL)

typedef struct { S3KInfo info; EmuFn fn; } EmuKernel;
static const EmuKernel table[] = { S3_KERNELS(S3_KERNEL_ENTRY) };

static void fiber_entry(void)
{
    Block *b = &B_;
    b->kfn(b->u, b->pv, b->out, b->k, b->g->nx, b->g->ny, b->g->nz, b->g->px, b->g->pxy, b->zc, b->bx, b->by, b->bz);
    b->done[b->cur] = 1;
    /* returning resumes uc_link = the scheduler */
}

static uint64_t rng(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

/* run one block; returns 0, or -1 on barrier divergence */
static int run_block(const EmuKernel *K, int bx, int by, int bz, uint64_t *seed)
{
    Block *b = &B_;
    const int nt = K->info.nthreads;
    if (b->cap < nt) {
        free(b->ctx); free(b->stacks); free(b->done); free(b->syncs);
        b->ctx = calloc(nt, sizeof(ucontext_t));
        b->stacks = malloc((size_t)nt * FIBER_STACK);
        b->done = calloc(nt, sizeof(int)); b->syncs = calloc(nt, sizeof(int));
        if (!b->ctx || !b->stacks || !b->done || !b->syncs) mod_fail(RC_MEMORY, "out of host memory for %d emulated GPU threads", nt);
        b->cap = nt;
    }
    b->nt = nt; b->bx = bx; b->by = by; b->bz = bz; b->smem = NULL;
    for (int t = 0; t < nt; t++) {
        b->done[t] = 0; b->syncs[t] = 0;
        getcontext(&b->ctx[t]);
        b->ctx[t].uc_stack.ss_sp = b->stacks + (size_t)t * FIBER_STACK;
        b->ctx[t].uc_stack.ss_size = FIBER_STACK;
        b->ctx[t].uc_link = &b->sched;
        makecontext(&b->ctx[t], fiber_entry, 0);
    }
    int *order = malloc(sizeof(int) * nt), rc = 0;
    if (!order) mod_fail(RC_MEMORY, "out of host memory");
    for (int t = 0; t < nt; t++) order[t] = t;
    for (int round = 0;; round++) {
        if (*seed)
            for (int i = nt - 1; i > 0; i--) { int j = (int)(rng(seed) % (uint64_t)(i + 1)); int x = order[i]; order[i] = order[j]; order[j] = x; }
        for (int i = 0; i < nt; i++) {
            b->cur = order[i];
            if (!b->done[b->cur]) swapcontext(&b->sched, &b->ctx[b->cur]);
        }
        int ndone = 0;
        for (int t = 0; t < nt; t++) ndone += b->done[t];
        if (ndone == nt) break;
        if (ndone) { rc = -1; break; }                     /* some left, some wait at a barrier */
        for (int t = 1; t < nt; t++) if (b->syncs[t] != b->syncs[0]) { rc = -1; break; }
        if (rc) break;
    }
    free(order);
    free(b->smem); b->smem = NULL;
    return rc;
}

void s3_emu_fiber_step(int i, const S3Grid *g, real k, const real *u, const real *pv, real *out, int zchunk, unsigned seed)
{
    const EmuKernel *K = &table[i];
    int grid[3];
    const int zc = s3_emu_grid(&K->info, g, zchunk, grid), gx = grid[0], gy = grid[1], gz = grid[2];
    int diverged = 0;
    #pragma omp parallel for collapse(3) schedule(dynamic) reduction(|:diverged)
    for (int bz = 0; bz < gz; bz++)
        for (int by = 0; by < gy; by++)
            for (int bx = 0; bx < gx; bx++) {
                Block *b = &B_;
                b->kfn = K->fn; b->u = u; b->pv = pv; b->out = out; b->k = k; b->g = g; b->zc = zc;
                uint64_t s = seed ? (uint64_t)seed * 0x9e3779b97f4a7c15ULL + (uint64_t)((bz * gy + by) * gx + bx) + 1 : 0;
                if (run_block(K, bx, by, bz, &s)) diverged = 1;
            }
    if (diverged) mod_fail(RC_DEVICE, "kernel %s %s: barrier divergence (threads of a block reached different numbers of barriers)", K->info.kind, K->info.tile);
}
