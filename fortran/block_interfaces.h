/* The 1-to-1 interfaces of a multi-block grid, found from the node
 * coordinates alone (fortran/block_interfaces.c), and what is left of each
 * block face for boundary patches.
 *
 * Blocks: block b (0-based here, 1-based in every message and result) has
 * n[0] x n[1] x n[2] nodes; coordinate c of node (i,j,k) (0-based) is
 * xyz[off + c*N + i + n0*(j + n1*k)], N = n0*n1*n2, off the block's start
 * in the array of all blocks (Plot3D's own order, as adi_p3d_read_blocks
 * gives it). dims 2: x, y only. A planar block (dims 2, or n[2] = 1) is
 * made one cell thick as the solver makes a 2D grid: its k = 2 plane is the
 * k = 1 plane moved far out in z (beyond the whole grid), so that its nodes
 * meet nothing; its k edges count in no tolerance; its two k faces (the
 * span's sides, which a 2D run never joins to anything) are not matched
 * and are left whole, which also keeps a 2D grid's cost to its i and j
 * faces. Its results name k 1..2.
 *
 * Faces: 0..5 are i=1, i=max, j=1, j=max, k=1, k=max. A face's index
 * directions (a, b) are its block's other two in increasing order.
 *
 * The rule: two nodes (not the same node of the same block) coincide when
 * they are within 1e-6 of h, h the shorter of the two nodes' shortest
 * adjacent edges in their blocks; within 1e-3 of h but not 1e-6, they
 * "almost coincide", which is an error. A cell of a face is matched to a
 * cell of a face when its 4 corners coincide with the 4 corners of that
 * cell in one of the 8 orientations (swap of the index directions,
 * reversal of either). The matched cells of a face that share the face
 * they meet, the orientation and the offset, and are connected, make one
 * interface: they must be a rectangle of whole cells. A face cell matched
 * twice (to two places), and coinciding nodes inside both faces that no
 * matched cell holds (a partial overlap: hanging nodes, half a cell
 * shifted), are errors. Coinciding nodes on a face's edge that hold no
 * cell are blocks touching along an edge: not an interface, no error.
 *
 * Cost: the face nodes are bucketed per octave of their tolerance (a sorted
 * key array); each node looks in 8 buckets of each octave present:
 * O(N L log N) for N face nodes and L octaves of cell size. */
#ifndef ADIFLOW_BLOCK_INTERFACES_H
#define ADIFLOW_BLOCK_INTERFACES_H

#include <stddef.h>
#include <stdint.h>

/* A part of a block face: block (1-based), face (0..5), and its nodes from
 * beg to end (1-based i, j, k; the normal direction's beg = end). For an
 * interface's side b, beg and end are the images of side a's beg and end
 * (so a reversed direction has end < beg). The same struct as
 * face_range_t in fortran/grid_blocks.f90 (bind(c)). */
typedef struct adi_face_range {
  int32_t block, face;
  int32_t beg[3], end[3];
} adi_face_range;

/* A 1-to-1 interface: side a's node (i,j,k) is side b's node whose index
 * in b's direction |t[d]|-1 is b.beg + sign(t[d]) * (index d - a.beg[d]),
 * for each direction d of a (CGNS's transform; for the normal directions
 * the sign is + when leaving a through its face enters b through its face
 * the usual way: a's max face against b's min face and the like). */
typedef struct adi_interface {
  adi_face_range a, b;
  int32_t transform[3];
} adi_interface;

typedef struct adi_block_links {
  adi_interface *itf;
  int64_t nitf;
  adi_face_range *left;   /* the face parts left for boundary patches */
  int64_t nleft;
} adi_block_links;

/* Finds the interfaces of nblocks blocks whose sizes are n (3 a block) and
 * whose coordinates are xyz (dims 2 or 3; see above). 0, or 2 (bad input:
 * msg names the blocks, faces and nodes) or ENOMEM. *out is filled on 0
 * and must be freed with adi_block_links_free. */
int adi_block_links_find(int32_t nblocks, int32_t dims, const int64_t *n, const double *xyz, adi_block_links *out,
                         char *msg, size_t msglen);
void adi_block_links_free(adi_block_links *l);

/* "i=1", "j=17" and the like: face f of a block of n nodes. */
void adi_face_name(int32_t face, const int64_t *n, char *buf, size_t len);

#endif
