/* dev_cpu.c - the CPU stand-in for the device: "device memory" is host memory,
 * copies are memcpy, steps run the CPU loop (OpenMP) over the same ooc_cell.
 *
 * Streams and events are simulated: operations queue per stream and run at
 * sync(). With seed 0 they run in issue order; with a seed, each time the
 * scheduler picks at random one of the streams whose next operation may start
 * (stream order kept, event waits honoured: a wait is satisfied by the last
 * record of that event issued before the wait, as in CUDA). Any legal
 * interleaving can therefore occur, so a missing wait in the driver shows up
 * as a wrong result in the bit-identity tests. With poison on, device buffers
 * are filled with NaN before each slab, so a value read outside the rows the
 * driver has uploaded or computed poisons the result. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ooc.h"

enum { OP_COPY, OP_STEP, OP_RECORD, OP_WAIT, OP_POISON };
typedef struct {
    int kind, ev;
    long ver, seq;
    void *dst; const void *src; size_t bytes;
    OocStep step;
} Op;
typedef struct { Op *ops; int n, cap, head; } Queue;
typedef struct {
    Queue q[OOC_NSTREAMS];
    long issued[OOC_NEVENTS], done[OOC_NEVENTS], seq;
    uint64_t rng;
    int seed;
} Cpu;

static void cpu_rows(const OocStep *s)
{
    #pragma omp parallel for schedule(static)
    for (int y = s->ya; y < s->yb; y++) {
        const long o0 = (long)(y - s->lo) * s->nx;
        for (int x = 0; x < s->nx; x++) ooc_cell(s->eq, s->nx, s->ny, x, y, o0 + x, s->coef, s->a, s->b);
    }
}

static void exec(Cpu *c, Op *o)
{
    switch (o->kind) {
    case OP_COPY: memcpy(o->dst, o->src, o->bytes); break;
    case OP_STEP: cpu_rows(&o->step); break;
    case OP_RECORD: if (o->ver > c->done[o->ev]) c->done[o->ev] = o->ver; break;
    case OP_WAIT: break;
    case OP_POISON: { real *p = (real *)o->dst; for (size_t i = 0; i < o->bytes / sizeof(real); i++) p[i] = (real)NAN; } break;
    }
}

static void push(Cpu *c, int s, Op o)
{
    Queue *q = &c->q[s];
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 64;
        q->ops = (Op *)realloc(q->ops, sizeof(Op) * q->cap);
        if (!q->ops) mod_fail(RC_MEMORY, "out of host memory for the simulated device queue");
    }
    o.seq = c->seq++;
    q->ops[q->n++] = o;
}

static void *c_alloc(void *st, size_t bytes)
{
    (void)st;
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) mod_fail(RC_MEMORY, "out of host memory for a stand-in device buffer (%.1f MB)", bytes / 1e6);
    return p;
}
static void c_release(void *st, void *p) { (void)st; free(p); }
static void c_copy(void *st, int s, void *dst, const void *src, size_t bytes, int to_device)
{
    (void)to_device;
    Op o; memset(&o, 0, sizeof o); o.kind = OP_COPY; o.dst = dst; o.src = src; o.bytes = bytes;
    push((Cpu *)st, s, o);
}
static void c_step(void *st, int s, const OocStep *step)
{
    Op o; memset(&o, 0, sizeof o); o.kind = OP_STEP; o.step = *step;
    push((Cpu *)st, s, o);
}
static void c_record(void *st, int s, int ev)
{
    Cpu *c = (Cpu *)st;
    Op o; memset(&o, 0, sizeof o); o.kind = OP_RECORD; o.ev = ev; o.ver = ++c->issued[ev];
    push(c, s, o);
}
static void c_wait(void *st, int s, int ev)
{
    Cpu *c = (Cpu *)st;
    Op o; memset(&o, 0, sizeof o); o.kind = OP_WAIT; o.ev = ev; o.ver = c->issued[ev];
    push(c, s, o);
}
static void c_poison(void *st, int s, void *p, size_t bytes)
{
    Op o; memset(&o, 0, sizeof o); o.kind = OP_POISON; o.dst = p; o.bytes = bytes;
    push((Cpu *)st, s, o);
}

static uint64_t rnd(Cpu *c) { c->rng ^= c->rng << 13; c->rng ^= c->rng >> 7; c->rng ^= c->rng << 17; return c->rng; }

static void c_sync(void *st)
{
    Cpu *c = (Cpu *)st;
    for (;;) {
        int ready[OOC_NSTREAMS], nr = 0, left = 0;
        for (int s = 0; s < OOC_NSTREAMS; s++) {
            Queue *q = &c->q[s];
            if (q->head == q->n) continue;
            left = 1;
            Op *o = &q->ops[q->head];
            if (o->kind != OP_WAIT || c->done[o->ev] >= o->ver) ready[nr++] = s;
        }
        if (!left) break;
        if (!nr) mod_fail(RC_DEVICE, "internal: the simulated device streams wait on each other forever (deadlock in the driver)");
        int pick = 0;
        if (c->seed) pick = (int)(rnd(c) % (uint64_t)nr);
        else for (int k = 1; k < nr; k++)           /* issue order */
            if (c->q[ready[k]].ops[c->q[ready[k]].head].seq < c->q[ready[pick]].ops[c->q[ready[pick]].head].seq) pick = k;
        Queue *q = &c->q[ready[pick]];
        exec(c, &q->ops[q->head++]);
    }
    for (int s = 0; s < OOC_NSTREAMS; s++) c->q[s].n = c->q[s].head = 0;
}

static void c_destroy(void *st)
{
    Cpu *c = (Cpu *)st;
    for (int s = 0; s < OOC_NSTREAMS; s++) free(c->q[s].ops);
    free(c);
}

int ooc_cpu_device(OocDev *d, unsigned sched_seed, int poison, char *err, size_t n)
{
    (void)err; (void)n;
    Cpu *c = (Cpu *)calloc(1, sizeof(Cpu));
    if (!c) mod_fail(RC_MEMORY, "out of host memory");
    c->seed = (int)sched_seed;
    c->rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)sched_seed * 0xbf58476d1ce4e5b9ULL);
    if (!c->rng) c->rng = 1;
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "cpu stand-in%s%s", sched_seed ? ", random stream order" : "", poison ? ", NaN poison" : "");
    d->st = c;
    d->alloc = c_alloc; d->release = c_release;
    d->host_alloc = c_alloc; d->host_release = c_release;
    d->copy = c_copy; d->step = c_step; d->record = c_record; d->wait = c_wait;
    d->poison = poison ? c_poison : NULL;
    d->sync = c_sync; d->destroy = c_destroy;
    d->free_mem = (size_t)-1;
    return 0;
}
