/* See block_interfaces.h: the rule, the cost, the results.
 *
 * Why C: the matching is sorting, bucketing and integer bookkeeping over
 * arrays of small structs, which qsort and plain structs say directly.
 *
 * Steps:
 *   1. every node of every block face gets its position and tolerance h
 *      (shortest adjacent edge in its block);
 *   2. the face nodes are keyed by (octave of 1e-3 h, bucket of that size
 *      and twice the search radius) and sorted; each node looks in the 8
 *      buckets around it in every octave present: the pairs that coincide
 *      (both ways), or the first pair that almost coincides (an error);
 *   3. each face cell whose 4 corners coincide with a cell of a face in one
 *      orientation is matched to it (a second, different match: an error);
 *   4. the matched cells of a face, grouped by (face met, orientation,
 *      offset) and connectivity, must be rectangles: one interface each,
 *      kept from the side that comes first (the other side finds it too);
 *   5. the unmatched cells of each face, in strips of rows merged while
 *      their extent is the same, are the parts left for patches. */
#define _POSIX_C_SOURCE 200809L
#include "block_interfaces.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double TOL_MATCH = 1e-6, TOL_NEAR = 1e-3;
enum { BAD = 2 };

typedef struct blk {
  int64_t n[3];      /* nodes as matched (n[2] = 2 for a planar block) */
  int64_t nf[3];     /* nodes in the file */
  int64_t off;       /* start of its coordinates in xyz */
  int planar;
} blk;

typedef struct face {
  int32_t block, f, d, side, a, b;
  int skip;          /* a planar block's k face (its span side): never matched */
  int64_t na, nb;    /* nodes along a and b */
  int64_t base;      /* its first face node in the global list */
} face;

typedef struct ctx {
  int32_t nblocks, dims;
  const double *xyz;
  blk *bk;
  face *fc;
  int32_t nfaces;
  int64_t nnodes;    /* face nodes in all */
  double zfar;       /* a planar block's second plane: beyond the whole grid */
  double *pos;       /* 3 a face node */
  double *h;         /* its tolerance scale */
  int32_t *fid;      /* its face */
  /* the coinciding pairs, sorted by the first node */
  int64_t (*pair)[2];
  int64_t npair, cappair;
  int64_t *first;    /* pairs of face node p: first[p] .. first[p+1]-1 */
  char *msg;
  size_t msglen;
} ctx;

static int fail(ctx *c, int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->msg, c->msglen, fmt, ap);
  va_end(ap);
  return code;
}

void adi_face_name(int32_t face, const int64_t *n, char *buf, size_t len)
{
  int d = face / 2;
  snprintf(buf, len, "%c=%lld", "ijk"[d], (long long)(face % 2 ? n[d] : 1));
}

/* Node (i,j,k) (0-based, of the matched sizes) of block b. */
static void node_xyz(const ctx *c, int32_t b, const int64_t *ijk, double *p)
{
  const blk *k = &c->bk[b];
  int64_t N = k->nf[0] * k->nf[1] * k->nf[2];
  int64_t m = ijk[0] + k->nf[0] * (ijk[1] + k->nf[1] * (k->planar ? 0 : ijk[2]));
  const double *x = c->xyz + k->off;
  p[0] = x[m];
  p[1] = x[N + m];
  p[2] = c->dims == 3 ? x[2 * N + m] : 0.0;
  if (k->planar && ijk[2] == 1) p[2] += c->zfar;
}

static double dist3(const double *p, const double *q)
{
  double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
  return sqrt(dx * dx + dy * dy + dz * dz);
}

/* The shortest edge (of positive length) from node ijk of block b; 0 when
 * it has none. A planar block's k edges are not the grid's. */
static double node_h(const ctx *c, int32_t b, const int64_t *ijk)
{
  const blk *k = &c->bk[b];
  double p[3], q[3], h = 0.0;
  node_xyz(c, b, ijk, p);
  for (int d = 0; d < (k->planar ? 2 : 3); ++d)
    for (int s = -1; s <= 1; s += 2) {
      int64_t o[3] = {ijk[0], ijk[1], ijk[2]};
      double e;
      o[d] += s;
      if (o[d] < 0 || o[d] >= k->n[d]) continue;
      node_xyz(c, b, o, q);
      e = dist3(p, q);
      if (e > 0.0 && (h == 0.0 || e < h)) h = e;
    }
  return h;
}

/* Block ijk (0-based) of face node (u,v) of face F. */
static void face_ijk(const ctx *c, const face *F, int64_t u, int64_t v, int64_t *ijk)
{
  ijk[F->d] = F->side ? c->bk[F->block].n[F->d] - 1 : 0;
  ijk[F->a] = u;
  ijk[F->b] = v;
}

static void node_of(const ctx *c, int64_t p, int32_t *f, int64_t *u, int64_t *v)
{
  const face *F = &c->fc[c->fid[p]];
  *f = c->fid[p];
  *u = (p - F->base) % F->na;
  *v = (p - F->base) / F->na;
}

/* "block 2, face j=1, node i,j,k = 3,1,1" */
static void where_node(const ctx *c, int64_t p, char *buf, size_t len)
{
  int32_t f;
  int64_t u, v, ijk[3];
  char fn[32];
  node_of(c, p, &f, &u, &v);
  face_ijk(c, &c->fc[f], u, v, ijk);
  adi_face_name(c->fc[f].f, c->bk[c->fc[f].block].n, fn, sizeof fn);
  snprintf(buf, len, "block %d, face %s, node i,j,k = %lld,%lld,%lld", c->fc[f].block + 1, fn, (long long)ijk[0] + 1,
           (long long)ijk[1] + 1, (long long)ijk[2] + 1);
}

/* the same node of the same block (a block edge's node is on 2 or 3 faces) */
static int same_node(const ctx *c, int64_t p, int64_t q)
{
  int32_t fp, fq;
  int64_t up, vp, uq, vq, a[3], b[3];
  node_of(c, p, &fp, &up, &vp);
  node_of(c, q, &fq, &uq, &vq);
  if (c->fc[fp].block != c->fc[fq].block) return 0;
  face_ijk(c, &c->fc[fp], up, vp, a);
  face_ijk(c, &c->fc[fq], uq, vq, b);
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* ------------------------------------------------- 2. coinciding pairs */

typedef struct key {
  int64_t lev, x, y, z, p;
} key;

static int key_cmp(const void *A, const void *B)
{
  const key *a = A, *b = B;
  if (a->lev != b->lev) return a->lev < b->lev ? -1 : 1;
  if (a->x != b->x) return a->x < b->x ? -1 : 1;
  if (a->y != b->y) return a->y < b->y ? -1 : 1;
  if (a->z != b->z) return a->z < b->z ? -1 : 1;
  return (a->p > b->p) - (a->p < b->p);
}

static int pair_cmp(const void *A, const void *B)
{
  const int64_t *a = A, *b = B;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

static int push_pair(ctx *c, int64_t p, int64_t q)
{
  if (c->npair == c->cappair) {
    int64_t cap = c->cappair ? 2 * c->cappair : 1024;
    void *t = realloc(c->pair, (size_t)cap * sizeof *c->pair);
    if (!t) return -1;
    c->pair = t;
    c->cappair = cap;
  }
  c->pair[c->npair][0] = p;
  c->pair[c->npair][1] = q;
  c->npair++;
  return 0;
}

/* The bucket octave of a node: buckets of 2^lev >= twice its search radius
 * (1e-3 h), but not below what the coordinates resolve (so that the
 * bucket numbers stay within 64 bits). */
static int64_t octave(double r, int64_t lev_min)
{
  int e;
  if (!(r > 0.0)) return lev_min;
  frexp(2.0 * r, &e);
  return e < lev_min ? lev_min : e;
}

static int find_pairs(ctx *c)
{
  key *K = malloc((size_t)c->nnodes * sizeof *K);
  int64_t *levs = NULL, nlev = 0, lev_min, nk = 0;
  double big = 0.0;
  int e = 0;
  if (!K) return fail(c, ENOMEM, "out of memory matching %lld face nodes", (long long)c->nnodes);
  for (int64_t p = 0; p < 3 * c->nnodes; ++p) big = fmax(big, fabs(c->pos[p]));
  {
    int ex;
    frexp(big > 0.0 ? big : 1.0, &ex);
    lev_min = ex - 50;
  }
  for (int64_t p = 0; p < c->nnodes; ++p) {
    double s;
    if (c->fc[c->fid[p]].skip) continue;
    K[nk].lev = octave(TOL_NEAR * c->h[p], lev_min);
    s = ldexp(1.0, (int)K[nk].lev);
    K[nk].x = (int64_t)floor(c->pos[3 * p] / s);
    K[nk].y = (int64_t)floor(c->pos[3 * p + 1] / s);
    K[nk].z = (int64_t)floor(c->pos[3 * p + 2] / s);
    K[nk].p = p;
    nk++;
  }
  qsort(K, (size_t)nk, sizeof *K, key_cmp);
  levs = malloc((size_t)c->nnodes * sizeof *levs);
  if (!levs) {
    free(K);
    return fail(c, ENOMEM, "out of memory matching %lld face nodes", (long long)c->nnodes);
  }
  for (int64_t q = 0; q < nk; ++q)
    if (q == 0 || K[q].lev != K[q - 1].lev) levs[nlev++] = K[q].lev;

  for (int64_t p = 0; p < c->nnodes && !e; ++p) {
    const double *pp = &c->pos[3 * p];
    if (c->fc[c->fid[p]].skip) continue;
    for (int64_t l = 0; l < nlev && !e; ++l) {
      double s = ldexp(1.0, (int)levs[l]);
      int64_t cell[3], lo[3];
      for (int d = 0; d < 3; ++d) {
        double t = pp[d] / s;
        cell[d] = (int64_t)floor(t);
        lo[d] = t - (double)cell[d] < 0.5 ? cell[d] - 1 : cell[d];
      }
      for (int corner = 0; corner < 8 && !e; ++corner) {
        key want = {levs[l], lo[0] + (corner & 1), lo[1] + ((corner >> 1) & 1), lo[2] + ((corner >> 2) & 1), -1};
        /* the first key >= want */
        size_t a = 0, b = (size_t)nk;
        while (a < b) {
          size_t m = (a + b) / 2;
          if (key_cmp(&K[m], &want) < 0) a = m + 1;
          else b = m;
        }
        for (; a < (size_t)nk && K[a].lev == want.lev && K[a].x == want.x && K[a].y == want.y &&
               K[a].z == want.z;
             ++a) {
          int64_t q = K[a].p;
          double hh, dd;
          if (q == p) continue;
          hh = fmin(c->h[p], c->h[q]);
          dd = dist3(pp, &c->pos[3 * q]);
          if (dd > TOL_NEAR * hh) continue;
          if (same_node(c, p, q)) continue;
          if (dd <= TOL_MATCH * hh) {
            if (push_pair(c, p, q) != 0) e = fail(c, ENOMEM, "out of memory matching face nodes");
          } else {
            char wp[200], wq[200];
            where_node(c, p, wp, sizeof wp);
            where_node(c, q, wq, sizeof wq);
            e = fail(c, BAD,
                     "%s and %s almost coincide: %.3e apart, within 1e-3 but not within 1e-6 of the shortest edge "
                     "next to them (%.3e): a 1-to-1 interface must match node for node (a grid written in single "
                     "precision, or faces that do not quite meet?)",
                     wp, wq, dd, hh);
          }
        }
      }
    }
  }
  free(K);
  free(levs);
  if (e) return e;
  qsort(c->pair, (size_t)c->npair, sizeof *c->pair, pair_cmp);
  /* a pair found in two octaves' buckets is one pair */
  {
    int64_t w = 0;
    for (int64_t q = 0; q < c->npair; ++q)
      if (w == 0 || c->pair[q][0] != c->pair[w - 1][0] || c->pair[q][1] != c->pair[w - 1][1]) {
        c->pair[w][0] = c->pair[q][0];
        c->pair[w][1] = c->pair[q][1];
        w++;
      }
    c->npair = w;
  }
  c->first = malloc((size_t)(c->nnodes + 1) * sizeof *c->first);
  if (!c->first) return fail(c, ENOMEM, "out of memory matching face nodes");
  {
    int64_t q = 0;
    for (int64_t p = 0; p <= c->nnodes; ++p) {
      while (q < c->npair && c->pair[q][0] < p) ++q;
      c->first[p] = q;
    }
  }
  return 0;
}

static int coincide(const ctx *c, int64_t p, int64_t q)
{
  for (int64_t k = c->first[p]; k < c->first[p + 1]; ++k)
    if (c->pair[k][1] == q) return 1;
  return 0;
}

/* ------------------------------------------------------ 3. cell matches */

/* A face cell's match: the face met, the orientation (images of the unit
 * steps in u and v, as (du, dv) pairs), the offset: (u,v) goes to
 * (A (u,v) + off). g = -1: none. */
typedef struct cellmatch {
  int32_t g;
  int32_t e1[2], e2[2];
  int64_t off[2];
  int64_t label;
  int twice;
  int32_t g2;
} cellmatch;

static int64_t fnode(const face *F, int64_t u, int64_t v) { return F->base + u + F->na * v; }

static int same_match(const cellmatch *x, const cellmatch *y)
{
  return x->g == y->g && x->e1[0] == y->e1[0] && x->e1[1] == y->e1[1] && x->e2[0] == y->e2[0] &&
         x->e2[1] == y->e2[1] && x->off[0] == y->off[0] && x->off[1] == y->off[1];
}

/* The cells of face F matched to some face cell: cm[u + (na-1)*v]. */
static void match_cells(const ctx *c, const face *F, cellmatch *cm)
{
  static const int32_t unit[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  for (int64_t v = 0; v + 1 < F->nb; ++v)
    for (int64_t u = 0; u + 1 < F->na; ++u) {
      cellmatch *m = &cm[u + (F->na - 1) * v];
      int64_t p00 = fnode(F, u, v), p10 = fnode(F, u + 1, v), p01 = fnode(F, u, v + 1), p11 = fnode(F, u + 1, v + 1);
      m->g = -1;
      m->label = -1;
      m->twice = 0;
      for (int64_t k = c->first[p00]; k < c->first[p00 + 1]; ++k) {
        int64_t q = c->pair[k][1], s, t;
        int32_t g;
        node_of(c, q, &g, &s, &t);
        const face *G = &c->fc[g];
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 4; ++b) {
            const int32_t *e1 = unit[a], *e2 = unit[b];
            int64_t s1 = s + e1[0], t1 = t + e1[1], s2 = s + e2[0], t2 = t + e2[1], s3 = s1 + e2[0], t3 = t1 + e2[1];
            cellmatch x;
            if (e1[0] * e2[0] + e1[1] * e2[1] != 0) continue;
            if (s1 < 0 || s1 >= G->na || t1 < 0 || t1 >= G->nb || s2 < 0 || s2 >= G->na || t2 < 0 || t2 >= G->nb ||
                s3 < 0 || s3 >= G->na || t3 < 0 || t3 >= G->nb)
              continue;
            if (!coincide(c, p10, fnode(G, s1, t1)) || !coincide(c, p01, fnode(G, s2, t2)) ||
                !coincide(c, p11, fnode(G, s3, t3)))
              continue;
            x.g = g;
            x.e1[0] = e1[0], x.e1[1] = e1[1], x.e2[0] = e2[0], x.e2[1] = e2[1];
            x.off[0] = s - (e1[0] * u + e2[0] * v);
            x.off[1] = t - (e1[1] * u + e2[1] * v);
            if (m->g < 0) {
              x.label = -1;
              x.twice = 0;
              *m = x;
            } else if (!same_match(m, &x)) {
              m->twice = 1;
              m->g2 = g;
            }
          }
      }
    }
}

/* ------------------------------------------------------------- results */

typedef struct out {
  adi_interface *itf;
  int64_t nitf, capitf;
  adi_face_range *left;
  int64_t nleft, capleft;
} out;

static int push_itf(out *o, const adi_interface *x)
{
  if (o->nitf == o->capitf) {
    int64_t cap = o->capitf ? 2 * o->capitf : 16;
    void *t = realloc(o->itf, (size_t)cap * sizeof *o->itf);
    if (!t) return -1;
    o->itf = t;
    o->capitf = cap;
  }
  o->itf[o->nitf++] = *x;
  return 0;
}

static int push_left(out *o, const adi_face_range *x)
{
  if (o->nleft == o->capleft) {
    int64_t cap = o->capleft ? 2 * o->capleft : 16;
    void *t = realloc(o->left, (size_t)cap * sizeof *o->left);
    if (!t) return -1;
    o->left = t;
    o->capleft = cap;
  }
  o->left[o->nleft++] = *x;
  return 0;
}

/* Face F's nodes u0..u1, v0..v1 as a range (1-based block indices). */
static void face_range(const ctx *c, const face *F, int64_t u0, int64_t v0, int64_t u1, int64_t v1, adi_face_range *r)
{
  int64_t a[3], b[3];
  face_ijk(c, F, u0, v0, a);
  face_ijk(c, F, u1, v1, b);
  r->block = F->block + 1;
  r->face = F->f;
  for (int d = 0; d < 3; ++d) {
    r->beg[d] = (int32_t)a[d] + 1;
    r->end[d] = (int32_t)b[d] + 1;
  }
}

/* "block 1, face j=1, nodes i 1..9, k 1..2" */
static void where_range(const ctx *c, const adi_face_range *r, char *buf, size_t len)
{
  char fn[32];
  int d = r->face / 2, a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
  adi_face_name(r->face, c->bk[r->block - 1].n, fn, sizeof fn);
  snprintf(buf, len, "block %d, face %s, nodes %c %d..%d, %c %d..%d", r->block, fn, "ijk"[a], r->beg[a], r->end[a],
           "ijk"[b], r->beg[b], r->end[b]);
}

/* Face F's matched cells, grouped; the interfaces kept; the cells left. */
static int face_results(ctx *c, const face *F, cellmatch *cm, out *o)
{
  int64_t nu = F->na - 1, nv = F->nb - 1, ncell = nu * nv, nlab = 0;
  int64_t *stack = malloc((size_t)(ncell > 0 ? ncell : 1) * sizeof *stack);
  int e = 0;
  if (!stack) return fail(c, ENOMEM, "out of memory");
  /* a cell matched twice: the range of such cells, and the two faces */
  {
    int64_t u0 = -1, u1 = -1, v0 = -1, v1 = -1;
    int32_t g1 = -1, g2 = -1;
    for (int64_t v = 0; v < nv; ++v)
      for (int64_t u = 0; u < nu; ++u)
        if (cm[u + nu * v].twice) {
          if (u0 < 0) u0 = u1 = u, v0 = v1 = v, g1 = cm[u + nu * v].g, g2 = cm[u + nu * v].g2;
          u0 = u < u0 ? u : u0, u1 = u > u1 ? u : u1, v0 = v < v0 ? v : v0, v1 = v > v1 ? v : v1;
        }
    if (u0 >= 0) {
      adi_face_range r;
      char w[240], f1[32], f2[32];
      face_range(c, F, u0, v0, u1 + 1, v1 + 1, &r);
      where_range(c, &r, w, sizeof w);
      adi_face_name(c->fc[g1].f, c->bk[c->fc[g1].block].n, f1, sizeof f1);
      adi_face_name(c->fc[g2].f, c->bk[c->fc[g2].block].n, f2, sizeof f2);
      free(stack);
      return fail(c, BAD,
                  "%s is claimed twice: its cells coincide with cells of block %d, face %s and of block %d, face %s "
                  "(overlapping blocks, or a block written twice?)",
                  w, c->fc[g1].block + 1, f1, c->fc[g2].block + 1, f2);
    }
  }
  for (int64_t s = 0; s < ncell && !e; ++s) {
    int64_t top = 0, n = 0, u0, u1, v0, v1;
    const cellmatch *m0 = &cm[s];
    if (cm[s].g < 0 || cm[s].label >= 0) continue;
    u0 = u1 = s % nu;
    v0 = v1 = s / nu;
    cm[s].label = nlab;
    stack[top++] = s;
    while (top > 0) {
      int64_t t = stack[--top], u = t % nu, v = t / nu;
      static const int du[4] = {1, -1, 0, 0}, dv[4] = {0, 0, 1, -1};
      n++;
      u0 = u < u0 ? u : u0, u1 = u > u1 ? u : u1, v0 = v < v0 ? v : v0, v1 = v > v1 ? v : v1;
      for (int k = 0; k < 4; ++k) {
        int64_t uu = u + du[k], vv = v + dv[k], w;
        if (uu < 0 || uu >= nu || vv < 0 || vv >= nv) continue;
        w = uu + nu * vv;
        if (cm[w].g < 0 || cm[w].label >= 0 || !same_match(&cm[w], m0)) continue;
        cm[w].label = nlab;
        stack[top++] = w;
      }
    }
    nlab++;
    {
      adi_interface x;
      const face *G = &c->fc[m0->g];
      int64_t s0 = m0->e1[0] * u0 + m0->e2[0] * v0 + m0->off[0], t0 = m0->e1[1] * u0 + m0->e2[1] * v0 + m0->off[1];
      int64_t s1 = m0->e1[0] * (u1 + 1) + m0->e2[0] * (v1 + 1) + m0->off[0];
      int64_t t1 = m0->e1[1] * (u1 + 1) + m0->e2[1] * (v1 + 1) + m0->off[1];
      face_range(c, F, u0, v0, u1 + 1, v1 + 1, &x.a);
      if (n != (u1 - u0 + 1) * (v1 - v0 + 1)) {
        char w[240];
        where_range(c, &x.a, w, sizeof w);
        e = fail(c, BAD,
                 "%s: the cells that coincide with block %d's face cells there (in one orientation) are not a "
                 "rectangle of whole cells (%lld of the %lld cells of that range): a 1-to-1 interface is a "
                 "rectangle",
                 w, G->block + 1, (long long)n, (long long)((u1 - u0 + 1) * (v1 - v0 + 1)));
        break;
      }
      face_range(c, G, s0, t0, s1, t1, &x.b);
      /* kept from the side that comes first: the lower face, or on one face
       * (a cut folded onto itself) the part whose first node comes first */
      {
        int64_t pa = fnode(F, u0, v0), sm = s0 < s1 ? s0 : s1, tm = t0 < t1 ? t0 : t1, pb = fnode(G, sm, tm);
        if (m0->g < (int32_t)(F - c->fc) || (m0->g == (int32_t)(F - c->fc) && pb < pa)) continue;
      }
      /* the transform: in-face directions from the orientation, the normal
       * from the sides (a max face against a min face keeps the sign) */
      {
        int32_t ga[2] = {G->a, G->b};
        const int32_t *e[2] = {m0->e1, m0->e2};
        int32_t fa[2] = {F->a, F->b};
        for (int k = 0; k < 2; ++k) {
          int which = e[k][0] != 0 ? 0 : 1, sg = e[k][which];
          x.transform[fa[k]] = sg * (ga[which] + 1);
        }
        x.transform[F->d] = (F->side ? 1 : -1) * (G->side ? -1 : 1) * (G->d + 1);
      }
      if (push_itf(o, &x) != 0) e = fail(c, ENOMEM, "out of memory");
    }
  }
  /* the unmatched cells: strips of rows, merged while their extent is the same */
  if (!e) {
    int64_t *ru0 = malloc((size_t)(nu + 1) * sizeof *ru0), *ru1 = malloc((size_t)(nu + 1) * sizeof *ru1),
            *rv0 = malloc((size_t)(nu + 1) * sizeof *rv0);
    int64_t nrun = 0;
    if (!ru0 || !ru1 || !rv0) e = fail(c, ENOMEM, "out of memory");
    for (int64_t v = 0; v <= nv && !e; ++v) {
      int64_t nn = 0, *cu0 = NULL, *cu1 = NULL, cap = 0;
      /* this row's runs */
      if (v < nv) {
        cap = nu + 1;
        cu0 = malloc((size_t)cap * sizeof *cu0);
        cu1 = malloc((size_t)cap * sizeof *cu1);
        if (!cu0 || !cu1) {
          free(cu0), free(cu1);
          e = fail(c, ENOMEM, "out of memory");
          break;
        }
        for (int64_t u = 0; u < nu;) {
          if (cm[u + nu * v].g >= 0) {
            ++u;
            continue;
          }
          cu0[nn] = u;
          while (u < nu && cm[u + nu * v].g < 0) ++u;
          cu1[nn++] = u;
        }
      }
      /* close the open strips that this row does not continue */
      {
        int64_t w = 0;
        for (int64_t r = 0; r < nrun && !e; ++r) {
          int cont = 0;
          for (int64_t q = 0; q < nn; ++q)
            if (cu0[q] == ru0[r] && cu1[q] == ru1[r]) cont = 1;
          if (cont) {
            ru0[w] = ru0[r], ru1[w] = ru1[r], rv0[w] = rv0[r];
            w++;
          } else {
            adi_face_range x;
            face_range(c, F, ru0[r], rv0[r], ru1[r], v, &x);
            if (push_left(o, &x) != 0) e = fail(c, ENOMEM, "out of memory");
          }
        }
        nrun = w;
        for (int64_t q = 0; q < nn; ++q) {
          int open = 0;
          for (int64_t r = 0; r < nrun; ++r)
            if (ru0[r] == cu0[q] && ru1[r] == cu1[q]) open = 1;
          if (!open) ru0[nrun] = cu0[q], ru1[nrun] = cu1[q], rv0[nrun++] = v;
        }
      }
      free(cu0);
      free(cu1);
    }
    free(ru0);
    free(ru1);
    free(rv0);
  }
  free(stack);
  return e;
}

/* Coinciding nodes inside both faces that no matched cell between those
 * faces holds: a partial overlap (hanging nodes, shifted cells). */
static int check_loose_nodes(ctx *c, cellmatch **cms)
{
  for (int64_t k = 0; k < c->npair; ++k) {
    int64_t p = c->pair[k][0], q = c->pair[k][1], u, v, s, t;
    int32_t f, g;
    int held = 0;
    node_of(c, p, &f, &u, &v);
    node_of(c, q, &g, &s, &t);
    const face *F = &c->fc[f], *G = &c->fc[g];
    if (u == 0 || v == 0 || u == F->na - 1 || v == F->nb - 1) continue;
    if (s == 0 || t == 0 || s == G->na - 1 || t == G->nb - 1) continue;
    for (int64_t dv = -1; dv <= 0 && !held; ++dv)
      for (int64_t du = -1; du <= 0 && !held; ++du) {
        const cellmatch *m = &cms[f][(u + du) + (F->na - 1) * (v + dv)];
        if (m->g == g) {
          int64_t ss = m->e1[0] * u + m->e2[0] * v + m->off[0], tt = m->e1[1] * u + m->e2[1] * v + m->off[1];
          if (ss == s && tt == t) held = 1;
        }
      }
    if (!held) {
      char wp[200], wq[200];
      where_node(c, p, wp, sizeof wp);
      where_node(c, q, wq, sizeof wq);
      return fail(c, BAD,
                  "%s coincides with %s, but no whole cell around them does: the faces overlap partly (hanging "
                  "nodes, or cells shifted), not as a rectangle of whole cells that a 1-to-1 interface is",
                  wp, wq);
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- entry */

void adi_block_links_free(adi_block_links *l)
{
  free(l->itf);
  free(l->left);
  memset(l, 0, sizeof *l);
}

static void free_ctx(ctx *c)
{
  free(c->bk);
  free(c->fc);
  free(c->pos);
  free(c->h);
  free(c->fid);
  free(c->pair);
  free(c->first);
}

int adi_block_links_find(int32_t nblocks, int32_t dims, const int64_t *n, const double *xyz, adi_block_links *res,
                         char *msg, size_t msglen)
{
  ctx c;
  out o;
  cellmatch **cms = NULL;
  int e = 0;
  memset(&c, 0, sizeof c);
  memset(&o, 0, sizeof o);
  memset(res, 0, sizeof *res);
  c.nblocks = nblocks;
  c.dims = dims;
  c.xyz = xyz;
  c.msg = msg;
  c.msglen = msglen;
  if (msglen) msg[0] = '\0';
  c.bk = calloc((size_t)nblocks, sizeof *c.bk);
  c.fc = calloc((size_t)(6 * nblocks), sizeof *c.fc);
  if (!c.bk || !c.fc) {
    free_ctx(&c);
    return fail(&c, ENOMEM, "out of memory for %d blocks", nblocks);
  }
  {
    int64_t off = 0;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int32_t b = 0; b < nblocks; ++b) {
      blk *k = &c.bk[b];
      int64_t N;
      for (int d = 0; d < 3; ++d) k->nf[d] = k->n[d] = n[3 * b + d];
      k->planar = dims == 2 || n[3 * b + 2] == 1;
      if (k->planar) k->n[2] = 2;
      k->off = off;
      N = k->nf[0] * k->nf[1] * k->nf[2];
      for (int d = 0; d < dims; ++d)
        for (int64_t m = 0; m < N; ++m) {
          double x = xyz[off + d * N + m];
          if (b == 0 && m == 0) lo[d] = hi[d] = x;
          lo[d] = fmin(lo[d], x), hi[d] = fmax(hi[d], x);
        }
      off += dims * N;
    }
    /* a planar block's second plane: further than the grid is wide */
    c.zfar = 2.0 * (fabs(hi[0] - lo[0]) + fabs(hi[1] - lo[1]) + fabs(hi[2] - lo[2])) + 1.0;
  }
  for (int32_t b = 0; b < nblocks; ++b)
    for (int32_t f = 0; f < 6; ++f) {
      face *F = &c.fc[c.nfaces];
      F->block = b, F->f = f, F->d = f / 2, F->side = f % 2;
      F->a = F->d == 0 ? 1 : 0;
      F->b = F->d == 2 ? 1 : 2;
      F->skip = c.bk[b].planar && F->d == 2;
      F->na = c.bk[b].n[F->a];
      F->nb = c.bk[b].n[F->b];
      F->base = c.nnodes;
      c.nnodes += F->na * F->nb;
      c.nfaces++;
    }
  c.pos = malloc((size_t)(3 * c.nnodes) * sizeof *c.pos);
  c.h = malloc((size_t)c.nnodes * sizeof *c.h);
  c.fid = malloc((size_t)c.nnodes * sizeof *c.fid);
  if (!c.pos || !c.h || !c.fid) {
    e = fail(&c, ENOMEM, "out of memory for %lld face nodes", (long long)c.nnodes);
    goto done;
  }
  for (int32_t f = 0; f < c.nfaces; ++f) {
    const face *F = &c.fc[f];
    for (int64_t v = 0; v < F->nb; ++v)
      for (int64_t u = 0; u < F->na; ++u) {
        int64_t p = fnode(F, u, v), ijk[3];
        face_ijk(&c, F, u, v, ijk);
        node_xyz(&c, F->block, ijk, &c.pos[3 * p]);
        c.h[p] = node_h(&c, F->block, ijk);
        c.fid[p] = f;
      }
  }
  if ((e = find_pairs(&c)) != 0) goto done;
  cms = calloc((size_t)c.nfaces, sizeof *cms);
  if (!cms) {
    e = fail(&c, ENOMEM, "out of memory");
    goto done;
  }
  for (int32_t f = 0; f < c.nfaces && !e; ++f) {
    const face *F = &c.fc[f];
    cms[f] = malloc((size_t)((F->na - 1) * (F->nb - 1) > 0 ? (F->na - 1) * (F->nb - 1) : 1) * sizeof **cms);
    if (!cms[f]) e = fail(&c, ENOMEM, "out of memory");
    else match_cells(&c, F, cms[f]);
  }
  for (int32_t f = 0; f < c.nfaces && !e; ++f) e = face_results(&c, &c.fc[f], cms[f], &o);
  if (!e) e = check_loose_nodes(&c, cms);
done:
  if (cms)
    for (int32_t f = 0; f < c.nfaces; ++f) free(cms[f]);
  free(cms);
  free_ctx(&c);
  if (e) {
    free(o.itf);
    free(o.left);
    return e;
  }
  res->itf = o.itf;
  res->nitf = o.nitf;
  res->left = o.left;
  res->nleft = o.nleft;
  return 0;
}
