/* Multi-block grids: the reader (fortran/plot3d_file.c, adi_p3d_probe_blocks
 * and adi_p3d_read_blocks) over every format, and the 1-to-1 interfaces
 * found from the coordinates (fortran/block_interfaces.c): a box split in 2
 * along each direction with the second block in each of the 48 index
 * orientations, a box in 4 blocks, a C-grid around a NACA 0012 section as
 * one block (its wake cut a self-interface in reverse) and as 3 blocks,
 * and the bad inputs (nodes that almost coincide, a partial overlap, a
 * non-rectangular overlap, a face range claimed twice).
 *
 * Every interface found is checked node for node: the transform and the
 * ranges map each node of side a onto a node of side b at the same
 * position; and every face cell of every block is covered exactly once by
 * an interface side or a part left for patches. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block_interfaces.h"
#include "plot3d_file.h"
#include "plot3d_write.h"

static int failures = 0, checks = 0;
#define CHECK(cond, ...)                                                                                             \
  do {                                                                                                               \
    ++checks;                                                                                                        \
    if (!(cond)) {                                                                                                   \
      ++failures;                                                                                                    \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                                    \
      printf(__VA_ARGS__);                                                                                           \
      printf("\n");                                                                                                  \
    }                                                                                                                \
  } while (0)

/* ------------------------------------------------------------ grids */

enum { MAXB = 8 };
typedef struct grid {
  int nb, dims;
  int64_t n[3 * MAXB];
  double *x[MAXB];   /* block b: dims arrays of its nodes, i fastest */
} grid;

static int64_t nodes(const grid *g, int b) { return g->n[3 * b] * g->n[3 * b + 1] * g->n[3 * b + 2]; }

static double *at(const grid *g, int b, int c, int64_t i, int64_t j, int64_t k)
{
  const int64_t *n = &g->n[3 * b];
  return &g->x[b][c * nodes(g, b) + i + n[0] * (j + n[1] * k)];
}

static void add_block(grid *g, int64_t n0, int64_t n1, int64_t n2)
{
  int b = g->nb++;
  g->n[3 * b] = n0, g->n[3 * b + 1] = n1, g->n[3 * b + 2] = n2;
  g->x[b] = calloc((size_t)(g->dims * nodes(g, b)), sizeof(double));
  if (!g->x[b]) {
    printf("out of memory\n");
    exit(1);
  }
}

static void free_grid(grid *g)
{
  for (int b = 0; b < g->nb; ++b) free(g->x[b]);
  g->nb = 0;
}

/* all blocks' coordinates in one array, as the reader gives them */
static double *concat(const grid *g)
{
  int64_t tot = 0, off = 0;
  double *a;
  for (int b = 0; b < g->nb; ++b) tot += g->dims * nodes(g, b);
  a = malloc((size_t)tot * sizeof *a);
  for (int b = 0; b < g->nb; ++b) {
    memcpy(a + off, g->x[b], (size_t)(g->dims * nodes(g, b)) * sizeof *a);
    off += g->dims * nodes(g, b);
  }
  return a;
}

/* A stretched, sheared box lattice: position of global node (I,J,K). */
static void box_point(int64_t I, int64_t J, int64_t K, int64_t NI, int64_t NJ, int64_t NK, double *p)
{
  double s = (double)I / NI, t = (double)J / NJ, r = (double)K / NK;
  p[0] = 2.0 * s * s + s + 0.1 * t;
  p[1] = 1.5 * t + 0.05 * sin(3.0 * s) + 0.2 * t * t;
  p[2] = r + 0.3 * r * r + 0.02 * s;
}

/* Block of the lattice's nodes lo..hi (inclusive, per direction) whose own
 * direction q runs along the lattice's direction perm[q], reversed where
 * rev[q]. */
static void add_box_block(grid *g, const int64_t *N, const int64_t *lo, const int64_t *hi, const int *perm,
                          const int *rev)
{
  int64_t n[3];
  int b = g->nb;
  for (int q = 0; q < 3; ++q) n[q] = hi[perm[q]] - lo[perm[q]] + 1;
  add_block(g, n[0], n[1], n[2]);
  for (int64_t k = 0; k < n[2]; ++k)
    for (int64_t j = 0; j < n[1]; ++j)
      for (int64_t i = 0; i < n[0]; ++i) {
        int64_t l[3] = {i, j, k}, G[3];
        double p[3];
        for (int q = 0; q < 3; ++q) G[perm[q]] = rev[q] ? hi[perm[q]] - l[q] : lo[perm[q]] + l[q];
        box_point(G[0], G[1], G[2], N[0], N[1], N[2], p);
        for (int c = 0; c < 3; ++c) *at(g, b, c, i, j, k) = p[c];
      }
}

/* NACA 0012 half thickness (closed trailing edge) */
static double naca(double x) { return 0.6 * (0.2969 * sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x - 0.1036 * x * x * x * x); }

/* C-grid around the section: nw wake cells each side, na cells around the
 * section, nj cells out. Node i of the inner curve (j = 0): lower wake from
 * x = 4 in to the trailing edge, the section from the lower trailing edge
 * round the leading edge to the upper one, the upper wake out. As one 2D
 * block, or as 3 (lower wake, section, upper wake: the last reversed in i
 * and j when flip, so that it stays counter-clockwise). */
static void cgrid_point(int64_t i, int64_t j, int nw, int na, int nj, double *p)
{
  const double xw = 4.0, R = 3.0;
  int ni = 2 * nw + na;
  double P[2], Q[2], s = pow((double)j / nj, 1.5);
  if (i <= nw || i >= ni - nw) {
    int64_t w = i <= nw ? i : ni - i;   /* the same x both sides, bit for bit */
    double x = 1.0 + (xw - 1.0) * pow((double)(nw - w) / nw, 1.5);
    P[0] = x, P[1] = 0.0;
    Q[0] = x, Q[1] = i <= nw ? -R : R;
  } else {
    double th = 2.0 * 3.14159265358979323846 * (double)(i - nw) / na, x = 0.5 * (1.0 + cos(th));
    P[0] = x, P[1] = i - nw < na / 2 ? -naca(x) : naca(x);
    if (2 * (i - nw) == na) P[1] = 0.0;
    Q[0] = 1.0 - R * sin(th / 2), Q[1] = -R * cos(th / 2);
  }
  p[0] = P[0] + (Q[0] - P[0]) * s;
  p[1] = P[1] + (Q[1] - P[1]) * s;
}

static void add_cgrid_block(grid *g, int64_t i0, int64_t i1, int nw, int na, int nj, int flip)
{
  int b = g->nb;
  add_block(g, i1 - i0 + 1, nj + 1, 1);
  for (int64_t j = 0; j <= nj; ++j)
    for (int64_t i = 0; i <= i1 - i0; ++i) {
      double p[2];
      cgrid_point(flip ? i1 - i : i0 + i, flip ? nj - j : j, nw, na, nj, p);
      *at(g, b, 0, i, j, 0) = p[0];
      *at(g, b, 1, i, j, 0) = p[1];
    }
}

/* -------------------------------------------------------- the checks */

/* node (0-based) of block b as the matcher sees it (a planar block: k 0..1) */
static void pos(const grid *g, int b, const int32_t *ijk1, double *p)
{
  int64_t k = g->n[3 * b + 2] == 1 ? 0 : ijk1[2] - 1;
  p[0] = *at(g, b, 0, ijk1[0] - 1, ijk1[1] - 1, k);
  p[1] = *at(g, b, 1, ijk1[0] - 1, ijk1[1] - 1, k);
  p[2] = g->dims == 3 ? *at(g, b, 2, ijk1[0] - 1, ijk1[1] - 1, k) : (double)(ijk1[2] - 1);
}

static int64_t msize(const grid *g, int b, int d) { return d == 2 && g->n[3 * b + 2] == 1 ? 2 : g->n[3 * b + d]; }

/* Every node of side a lands by the transform on a node of side b at the
 * same place, within b's range and on b's face; every face cell is covered
 * once. */
static void check_links(const char *name, const grid *g, const adi_block_links *l)
{
  int *cover[MAXB][6];
  for (int b = 0; b < g->nb; ++b)
    for (int f = 0; f < 6; ++f) {
      int d = f / 2, a = d == 0 ? 1 : 0, c = d == 2 ? 1 : 2;
      cover[b][f] = calloc((size_t)((msize(g, b, a) - 1) * (msize(g, b, c) - 1)), sizeof(int));
    }
  for (int64_t q = 0; q < l->nitf; ++q) {
    const adi_interface *x = &l->itf[q];
    int ba = x->a.block - 1, bb = x->b.block - 1, bad = 0, perm[3], used[3] = {0, 0, 0};
    for (int d = 0; d < 3; ++d) {
      int t = abs(x->transform[d]) - 1;
      CHECK(t >= 0 && t < 3 && !used[t], "%s: interface %lld: transform %d,%d,%d is no permutation", name,
            (long long)q + 1, x->transform[0], x->transform[1], x->transform[2]);
      if (t < 0 || t > 2) return;
      used[t] = 1;
      perm[d] = t;
    }
    {
      /* the normal directions: a's face's and b's face's */
      int da = x->a.face / 2, db = x->b.face / 2;
      CHECK(perm[da] == db, "%s: interface %lld: the transform does not take face normal to face normal", name,
            (long long)q + 1);
      CHECK(x->a.beg[da] == (x->a.face % 2 ? msize(g, ba, da) : 1) && x->b.beg[db] == (x->b.face % 2 ? msize(g, bb, db) : 1),
            "%s: interface %lld: a range off its face", name, (long long)q + 1);
    }
    {
      int32_t lo[3], hi[3], ijk[3];
      for (int d = 0; d < 3; ++d) {
        lo[d] = x->a.beg[d] < x->a.end[d] ? x->a.beg[d] : x->a.end[d];
        hi[d] = x->a.beg[d] < x->a.end[d] ? x->a.end[d] : x->a.beg[d];
      }
      for (ijk[2] = lo[2]; ijk[2] <= hi[2]; ++ijk[2])
        for (ijk[1] = lo[1]; ijk[1] <= hi[1]; ++ijk[1])
          for (ijk[0] = lo[0]; ijk[0] <= hi[0]; ++ijk[0]) {
            int32_t m[3];
            double p[3], r[3];
            for (int d = 0; d < 3; ++d) {
              int t = perm[d], s = x->transform[d] > 0 ? 1 : -1;
              m[t] = x->b.beg[t] + s * (ijk[d] - x->a.beg[d]);
            }
            for (int d = 0; d < 3; ++d)
              if (m[d] < 1 || m[d] > msize(g, bb, d)) bad = 1;
            if (bad) break;
            pos(g, ba, ijk, p);
            pos(g, bb, m, r);
            if (fabs(p[0] - r[0]) + fabs(p[1] - r[1]) + fabs(p[2] - r[2]) > 1e-12) bad = 1;
          }
      CHECK(!bad, "%s: interface %lld (block %d face %d -> block %d face %d): a node maps to another place", name,
            (long long)q + 1, x->a.block, x->a.face, x->b.block, x->b.face);
      /* b's range is a's image: its end is the image of a's end */
      for (int d = 0; d < 3; ++d) {
        int t = perm[d], s = x->transform[d] > 0 ? 1 : -1;
        CHECK(x->b.end[t] == x->b.beg[t] + s * (x->a.end[d] - x->a.beg[d]), "%s: interface %lld: b's end", name,
              (long long)q + 1);
      }
    }
  }
  /* coverage: both sides of every interface, and every part left */
  for (int64_t q = 0; q < l->nitf + l->nleft; ++q)
    for (int side = 0; side < (q < l->nitf ? 2 : 1); ++side) {
      const adi_face_range *r = q < l->nitf ? (side ? &l->itf[q].b : &l->itf[q].a) : &l->left[q - l->nitf];
      int b = r->block - 1, f = r->face, d = f / 2, a = d == 0 ? 1 : 0, c = d == 2 ? 1 : 2;
      int32_t a0 = r->beg[a] < r->end[a] ? r->beg[a] : r->end[a], a1 = r->beg[a] ^ r->end[a] ^ a0;
      int32_t c0 = r->beg[c] < r->end[c] ? r->beg[c] : r->end[c], c1 = r->beg[c] ^ r->end[c] ^ c0;
      for (int32_t v = c0; v < c1; ++v)
        for (int32_t u = a0; u < a1; ++u) cover[b][f][(u - 1) + (msize(g, b, a) - 1) * (v - 1)]++;
    }
  for (int b = 0; b < g->nb; ++b)
    for (int f = 0; f < 6; ++f) {
      int d = f / 2, a = d == 0 ? 1 : 0, c = d == 2 ? 1 : 2, bad = 0;
      for (int64_t m = 0; m < (msize(g, b, a) - 1) * (msize(g, b, c) - 1); ++m)
        if (cover[b][f][m] != 1) bad = 1;
      CHECK(!bad, "%s: block %d face %d: a cell covered other than once", name, b + 1, f);
      free(cover[b][f]);
    }
}

static int find(const grid *g, adi_block_links *l, char *msg, size_t len)
{
  double *a = concat(g);
  int e = adi_block_links_find(g->nb, g->dims, g->n, a, l, msg, len);
  free(a);
  return e;
}

/* ------------------------------------------------------------ tests */

static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

static void test_box_split2(void)
{
  const int64_t N[3] = {6, 5, 4};
  int cases = 0;
  for (int d = 0; d < 3; ++d)
    for (int p = 0; p < 6; ++p)
      for (int r = 0; r < 8; ++r) {
        grid g = {0, 3, {0}, {0}};
        int64_t lo[3] = {0, 0, 0}, hi[3] = {N[0], N[1], N[2]};
        const int id[3] = {0, 1, 2}, no[3] = {0, 0, 0}, rev[3] = {r & 1, (r >> 1) & 1, (r >> 2) & 1};
        adi_block_links l;
        char msg[600], name[80];
        int e;
        snprintf(name, sizeof name, "box split in %c, perm %d, rev %d", "ijk"[d], p, r);
        hi[d] = 2;
        add_box_block(&g, N, lo, hi, id, no);
        lo[d] = 2, hi[d] = N[d];
        add_box_block(&g, N, lo, hi, perms[p], rev);
        e = find(&g, &l, msg, sizeof msg);
        CHECK(e == 0, "%s: %s", name, msg);
        if (e == 0) {
          CHECK(l.nitf == 1, "%s: %lld interfaces, not 1", name, (long long)l.nitf);
          if (l.nitf == 1) {
            CHECK(l.itf[0].a.block == 1 && l.itf[0].a.face == 2 * d + 1 && l.itf[0].b.block == 2,
                  "%s: the interface is block %d face %d - block %d", name, l.itf[0].a.block, l.itf[0].a.face,
                  l.itf[0].b.block);
            /* its transform: block 1's direction q runs along block 2's direction with perm == q */
            for (int q = 0; q < 3; ++q) {
              int t = 0;
              while (perms[p][t] != q) ++t;
              CHECK(abs(l.itf[0].transform[q]) == t + 1 && (q == d || (l.itf[0].transform[q] < 0) == rev[t]),
                    "%s: transform %d,%d,%d", name, l.itf[0].transform[0], l.itf[0].transform[1],
                    l.itf[0].transform[2]);
            }
          }
          CHECK(l.nleft == 10, "%s: %lld parts left, not the 10 other faces", name, (long long)l.nleft);
          check_links(name, &g, &l);
          adi_block_links_free(&l);
        }
        free_grid(&g);
        cases++;
      }
  printf("  box in 2 blocks: %d cases (3 split directions x 48 orientations of block 2)\n", cases);
}

static void test_box_split4(void)
{
  const int64_t N[3] = {6, 6, 3};
  const int pp[4] = {0, 3, 5, 2}, rr[4] = {0, 5, 2, 7};
  grid g = {0, 3, {0}, {0}};
  adi_block_links l;
  char msg[600];
  for (int q = 0; q < 4; ++q) {
    int64_t lo[3] = {q & 1 ? 3 : 0, q & 2 ? 2 : 0, 0}, hi[3] = {q & 1 ? N[0] : 3, q & 2 ? N[1] : 2, N[2]};
    const int rev[3] = {rr[q] & 1, (rr[q] >> 1) & 1, (rr[q] >> 2) & 1};
    add_box_block(&g, N, lo, hi, perms[pp[q]], rev);
  }
  int e = find(&g, &l, msg, sizeof msg);
  CHECK(e == 0, "box in 4 blocks: %s", msg);
  if (e == 0) {
    CHECK(l.nitf == 4, "box in 4 blocks: %lld interfaces, not 4", (long long)l.nitf);
    CHECK(l.nleft == 16, "box in 4 blocks: %lld parts left, not 16", (long long)l.nleft);
    check_links("box in 4 blocks", &g, &l);
    adi_block_links_free(&l);
  }
  free_grid(&g);
  printf("  box in 4 blocks (2 x 2 in i and j, each block oriented its own way)\n");
}

static void test_cgrid(void)
{
  const int nw = 6, na = 16, nj = 5, ni = 2 * nw + na;
  adi_block_links l;
  char msg[600];
  int e;
  {
    grid g = {0, 2, {0}, {0}};
    add_cgrid_block(&g, 0, ni, nw, na, nj, 0);
    e = find(&g, &l, msg, sizeof msg);
    CHECK(e == 0, "C-grid, one block: %s", msg);
    if (e == 0) {
      CHECK(l.nitf == 1, "C-grid, one block: %lld interfaces, not 1", (long long)l.nitf);
      if (l.nitf == 1) {
        const adi_interface *x = &l.itf[0];
        CHECK(x->a.block == 1 && x->b.block == 1 && x->a.face == 2 && x->b.face == 2 && x->a.beg[0] == 1 &&
                  x->a.end[0] == nw + 1 && x->b.beg[0] == ni + 1 && x->b.end[0] == ni + 1 - nw && x->transform[0] == -1 &&
                  x->transform[1] == -2 && x->transform[2] == 3,
              "C-grid, one block: the wake cut is block %d face %d i %d..%d -> block %d face %d i %d..%d, transform "
              "%d,%d,%d",
              x->a.block, x->a.face, x->a.beg[0], x->a.end[0], x->b.block, x->b.face, x->b.beg[0], x->b.end[0],
              x->transform[0], x->transform[1], x->transform[2]);
      }
      /* the section: face j=1 from i = nw+1 to ni+1-nw, left for a wall patch */
      {
        int wall = 0;
        for (int64_t q = 0; q < l.nleft; ++q)
          if (l.left[q].face == 2 && l.left[q].beg[0] == nw + 1 && l.left[q].end[0] == ni + 1 - nw) wall = 1;
        CHECK(wall, "C-grid, one block: the section's part of face j=1 is not left for patches");
      }
      check_links("C-grid, one block", &g, &l);
      adi_block_links_free(&l);
    }
    free_grid(&g);
  }
  for (int flip = 0; flip <= 1; ++flip) {
    grid g = {0, 2, {0}, {0}};
    char name[64];
    snprintf(name, sizeof name, "C-grid in 3 blocks%s", flip ? " (block 3 reversed in i and j)" : "");
    add_cgrid_block(&g, 0, nw, nw, na, nj, 0);
    add_cgrid_block(&g, nw, ni - nw, nw, na, nj, 0);
    add_cgrid_block(&g, ni - nw, ni, nw, na, nj, flip);
    e = find(&g, &l, msg, sizeof msg);
    CHECK(e == 0, "%s: %s", name, msg);
    if (e == 0) {
      int wake = 0;
      CHECK(l.nitf == 3, "%s: %lld interfaces, not 3", name, (long long)l.nitf);
      for (int64_t q = 0; q < l.nitf; ++q)
        if (l.itf[q].a.block == 1 && l.itf[q].a.face == 2 && l.itf[q].b.block == 3 && l.itf[q].b.face == (flip ? 3 : 2) &&
            l.itf[q].transform[0] == (flip ? 1 : -1) && l.itf[q].transform[1] == (flip ? 2 : -2))
          wake = 1;
      CHECK(wake, "%s: the wake cut (block 1 j=1 against block 3 j=1) is not found", name);
      check_links(name, &g, &l);
      adi_block_links_free(&l);
    }
    free_grid(&g);
  }
  printf("  C-grid around a NACA 0012 section: one block (wake cut in reverse on j=1), 3 blocks (twice)\n");
}

static void expect_bad(const char *name, const grid *g, const char *want)
{
  adi_block_links l;
  char msg[800];
  int e = find(g, &l, msg, sizeof msg);
  CHECK(e == 2 && strstr(msg, want), "%s: exit %d, \"%s\" (wanted 2 and \"%s\")", name, e, msg, want);
  if (e == 0) adi_block_links_free(&l);
  printf("  bad input, %s: %s\n", name, msg);
}

static void test_bad(void)
{
  const int64_t N[3] = {6, 5, 4};
  const int id[3] = {0, 1, 2}, no[3] = {0, 0, 0};
  int64_t lo[3] = {0, 0, 0}, hi[3] = {2, N[1], N[2]};
  {
    grid g = {0, 3, {0}, {0}};
    int64_t lo2[3] = {2, 0, 0}, hi2[3] = {N[0], N[1], N[2]};
    add_box_block(&g, N, lo, hi, id, no);
    add_box_block(&g, N, lo2, hi2, id, no);
    *at(&g, 1, 1, 0, 2, 1) += 1e-4 * 0.2;   /* the shortest edge there is about 0.3 */
    expect_bad("nodes 1e-5 of a cell apart", &g, "almost coincide");
    free_grid(&g);
  }
  {
    /* block 2 on twice the lattice in j and k: its face has a node between each of block 1's */
    grid g = {0, 3, {0}, {0}};
    const int64_t N2[3] = {6, 10, 8};
    int64_t lo2[3] = {2, 0, 0}, hi2[3] = {N2[0], N2[1], N2[2]};
    add_box_block(&g, N, lo, hi, id, no);
    add_box_block(&g, N2, lo2, hi2, id, no);
    expect_bad("hanging nodes (a partial overlap)", &g, "overlap partly");
    free_grid(&g);
  }
  {
    /* block 2's face pushed off block 1's where j >= 3 and k >= 2: the cells that still meet make an L */
    grid g = {0, 3, {0}, {0}};
    int64_t lo2[3] = {2, 0, 0}, hi2[3] = {N[0], N[1], N[2]};
    add_box_block(&g, N, lo, hi, id, no);
    add_box_block(&g, N, lo2, hi2, id, no);
    for (int64_t k = 2; k < 5; ++k)
      for (int64_t j = 3; j < 6; ++j) *at(&g, 1, 0, 0, j, k) += 0.05;
    expect_bad("an overlap that is no rectangle", &g, "not a rectangle of whole cells");
    free_grid(&g);
  }
  {
    grid g = {0, 3, {0}, {0}};
    int64_t lo2[3] = {2, 0, 0}, hi2[3] = {N[0], N[1], N[2]};
    add_box_block(&g, N, lo, hi, id, no);
    add_box_block(&g, N, lo2, hi2, id, no);
    add_box_block(&g, N, lo2, hi2, perms[1], no);
    expect_bad("a face range claimed twice", &g, "claimed twice");
    free_grid(&g);
  }
}

/* ------------------------------------------------------------ the reader */

/* enc 0 text, 1 Fortran (4-byte markers), 2 Fortran (8-byte), 3 raw; with
 * the count header, through fortran/plot3d_write.c */
static void write_file(const char *path, const grid *g, int enc, int p, int big)
{
  p3d_write_options o;
  char msg[600];
  memset(&o, 0, sizeof o);
  o.encoding = enc == 0 ? P3D_TEXT : (enc == 3 ? P3D_RAW : P3D_FORTRAN);
  o.marker_bytes = enc == 2 ? 8 : 4;
  o.real_bytes = p;
  o.big_endian = big;
  o.with_count = 1;
  o.dims = g->dims;
  CHECK(p3d_write_blocks(path, &o, g->nb, g->n, (const double *const *)g->x, msg, sizeof msg) == 0,
        "writing %s: %s", path, msg);
}

static void test_reader(const char *dir)
{
  const int64_t N[3] = {6, 5, 4};
  const int id[3] = {0, 1, 2}, no[3] = {0, 0, 0}, rv[3] = {1, 0, 1};
  grid g3 = {0, 3, {0}, {0}}, g2 = {0, 2, {0}, {0}};
  int files = 0;
  {
    int64_t lo[3] = {0, 0, 0}, hi[3] = {2, N[1], N[2]}, lo2[3] = {2, 0, 0}, hi2[3] = {N[0], N[1], N[2]};
    add_box_block(&g3, N, lo, hi, id, no);
    add_box_block(&g3, N, lo2, hi2, perms[4], rv);
    hi2[2] = 2;
    add_box_block(&g3, N, lo2, hi2, id, no);   /* a third of another size */
  }
  add_cgrid_block(&g2, 0, 6, 6, 16, 5, 0);
  add_cgrid_block(&g2, 6, 22, 6, 16, 5, 0);
  add_cgrid_block(&g2, 22, 28, 6, 16, 5, 1);
  for (int which = 0; which < 2; ++which) {
    const grid *g = which ? &g2 : &g3;
    double *want = concat(g);
    for (int enc = 0; enc < 4; ++enc)
      for (int p = 4; p <= 8; p += 4)
        for (int big = 0; big <= 1; ++big) {
          char path[600], msg[1000], name[120];
          adi_p3d_layout lay;
          int64_t nb = 0, sizes[3 * MAXB], tot = 0;
          int e;
          if (enc == 0 && (p == 4 || big)) continue;
          snprintf(path, sizeof path, "%s/mb_%d_%d_%d_%d.x", dir, which, enc, p, big);
          snprintf(name, sizeof name, "reader: %dD, encoding %d, %d-byte reals, %s-endian", g->dims, enc, p,
                   big ? "big" : "little");
          write_file(path, g, enc, p, big);
          files++;
          e = adi_p3d_probe_blocks(path, &lay, &nb, sizes, MAXB, msg, sizeof msg);
          CHECK(e == 0 && nb == g->nb, "%s: probe: %s (%lld blocks)", name, e ? msg : "", (long long)nb);
          if (e || nb != g->nb) continue;
          for (int b = 0; b < g->nb; ++b) {
            CHECK(sizes[3 * b] == g->n[3 * b] && sizes[3 * b + 1] == g->n[3 * b + 1] && sizes[3 * b + 2] == g->n[3 * b + 2],
                  "%s: block %d's sizes", name, b + 1);
            tot += g->dims * nodes(g, b);
          }
          {
            double *x = malloc((size_t)tot * sizeof *x);
            int same = 1;
            e = adi_p3d_read_blocks(path, &lay, x, tot, msg, sizeof msg);
            CHECK(e == 0, "%s: read: %s", name, msg);
            for (int64_t v = 0; e == 0 && v < tot; ++v)
              if (x[v] != (p == 4 ? (double)(float)want[v] : want[v])) same = 0;
            CHECK(same, "%s: the coordinates read differ", name);
            free(x);
          }
          /* the one-block reader refuses it as before */
          e = adi_p3d_probe(path, &lay, msg, sizeof msg);
          CHECK(e != 0 && strstr(msg, "holds 3 blocks (a multi-block grid)"), "%s: the one-block reader: %s", name, msg);
          unlink(path);
        }
    free(want);
  }
  free_grid(&g3);
  free_grid(&g2);
  printf("  reader: %d files of 3 blocks (3D and 2D; text, Fortran 4- and 8-byte markers, raw; single, double; "
         "either byte order)\n",
         files);
}

/* A part of the test: a PASS line when it added no failure (the suite counts those lines). */
static void section(const char *name, void (*fn)(void), const char *dir)
{
  int before = failures;
  if (fn) fn();
  else test_reader(dir);
  if (failures == before) printf("PASS %s\n", name);
}

/* --write DIR: the sample files of the hostile-input suite
 * (tests/hostile/grid_files.sh) and of a look with build/grid_check. */
static int write_samples(const char *dir)
{
  const int64_t N[3] = {6, 5, 4};
  const int id[3] = {0, 1, 2}, no[3] = {0, 0, 0}, rv[3] = {1, 0, 1};
  int64_t lo[3] = {0, 0, 0}, hi[3] = {2, N[1], N[2]}, lo2[3] = {2, 0, 0}, hi2[3] = {N[0], N[1], N[2]};
  char path[700];
  grid g = {0, 3, {0}, {0}};
  add_box_block(&g, N, lo, hi, id, no);
  add_box_block(&g, N, lo2, hi2, perms[4], rv);
  snprintf(path, sizeof path, "%s/box2.x", dir);
  write_file(path, &g, 1, 8, 0);
  *at(&g, 0, 1, 2, 2, 1) += 1e-4 * 0.2;   /* block 1's face i=3 */
  snprintf(path, sizeof path, "%s/almost.x", dir);
  write_file(path, &g, 1, 8, 0);
  *at(&g, 0, 1, 2, 2, 1) -= 1e-4 * 0.2;
  {
    /* block 2 with two directions swapped: left-handed (the cell checks' turn) */
    grid h = {0, 3, {0}, {0}};
    add_box_block(&h, N, lo, hi, id, no);
    add_box_block(&h, N, lo2, hi2, perms[1], no);
    snprintf(path, sizeof path, "%s/left.x", dir);
    write_file(path, &h, 1, 8, 0);
    free_grid(&h);
  }
  add_box_block(&g, N, lo2, hi2, id, no);
  snprintf(path, sizeof path, "%s/twice.x", dir);
  write_file(path, &g, 3, 8, 1);
  free_grid(&g);
  {
    const int64_t N2[3] = {6, 10, 8};
    g.dims = 3;
    add_box_block(&g, N, lo, hi, id, no);
    add_box_block(&g, N2, lo2, (int64_t[3]){N2[0], N2[1], N2[2]}, id, no);
    snprintf(path, sizeof path, "%s/partial.x", dir);
    write_file(path, &g, 1, 8, 0);
    free_grid(&g);
  }
  g.dims = 3;
  add_box_block(&g, N, lo, hi, id, no);
  add_box_block(&g, N, lo2, hi2, id, no);
  for (int64_t k = 2; k < 5; ++k)
    for (int64_t j = 3; j < 6; ++j) *at(&g, 1, 0, 0, j, k) += 0.05;
  snprintf(path, sizeof path, "%s/notrect.x", dir);
  write_file(path, &g, 0, 8, 0);
  free_grid(&g);
  g.dims = 2;
  add_cgrid_block(&g, 0, 28, 6, 16, 5, 0);
  snprintf(path, sizeof path, "%s/cgrid1.x", dir);
  write_file(path, &g, 0, 8, 0);
  free_grid(&g);
  add_cgrid_block(&g, 0, 6, 6, 16, 5, 0);
  add_cgrid_block(&g, 6, 22, 6, 16, 5, 0);
  add_cgrid_block(&g, 22, 28, 6, 16, 5, 1);
  snprintf(path, sizeof path, "%s/cgrid3.x", dir);
  write_file(path, &g, 2, 4, 1);
  free_grid(&g);
  return 0;
}

int main(int argc, char **argv)
{
  char dir[] = "/tmp/adiflow-mblock.XXXXXX";
  if (argc == 3 && !strcmp(argv[1], "--write")) return write_samples(argv[2]);
  if (!mkdtemp(dir)) {
    printf("cannot make a temporary folder\n");
    return 1;
  }
  printf("test_block_interfaces\n");
  section("multi-block: a box in 2 blocks, every orientation of the second", test_box_split2, dir);
  section("multi-block: a box in 4 blocks", test_box_split4, dir);
  section("multi-block: C-grid, one block and 3 blocks", test_cgrid, dir);
  section("multi-block: bad inputs refused (almost coincide, partial, not a rectangle, claimed twice)", test_bad, dir);
  section("multi-block: the reader, every format", NULL, dir);
  rmdir(dir);
  printf("%d of %d checks passed\n", checks - failures, checks);
  if (failures) {
    printf("FAILED\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
