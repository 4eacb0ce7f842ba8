/* afp_gpu.h - the inside of the GPU path (CUDA C; the plugin sees afp.h
 * only): the handle, struct afp_gpu, that holds all the path keeps between
 * solves; one field's matrix on the device; and what its files call of each
 * other. One file per job:
 *   afp_gpu_device.cu    the handle, the device and MPI set-up, the copy bandwidth
 *   afp_gpu_matrix.cu    the device matrix of a field: LDU -> CSR, interfaces,
 *                        the values of each call, its reuse between calls
 *   afp_gpu_exchange.cu  the processor interfaces: CUDA-aware MPI, NCCL
 *                        (opened at run time) or host staging
 *   afp_gpu_sums.cu      the global sums: device tree and ranks in rank order
 *                        (reduction TREE), or OpenFOAM's order (SEQUENTIAL)
 *   afp_gpu_pcg.cu       y = A x and the PCG loop (afp_gpu_solve)
 * afp_gpu_tree.cuh holds the reduction tree's shape, afp_gpu_check.h the
 * checks every CUDA, MPI and NCCL call goes through. */
#ifndef AFP_GPU_H
#define AFP_GPU_H

#include <cuda_runtime.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "afp.h"
#include "afp_gpu_check.h"

#define BLOCK AFP_TREE_BLOCK          /* the tree of reduction TREE (afp.h) */
#define MAXBLOCKS AFP_TREE_MAXBLOCKS
#define NRED 4                        /* sums formed together at most */
#define MAXMAT 8                      /* fields whose matrices stay on the device */

/* ---- NCCL, opened at run time (a machine without it still loads the plugin) */
typedef struct { char internal[128]; } nccl_id_t;
typedef void *nccl_comm_t;
typedef int (*nccl_getid_fn)(nccl_id_t *);
typedef int (*nccl_init_fn)(nccl_comm_t *, int, nccl_id_t, int);
typedef int (*nccl_sendrecv_fn)(const void *, size_t, int, int, nccl_comm_t, cudaStream_t);
typedef int (*nccl_recv_fn)(void *, size_t, int, int, nccl_comm_t, cudaStream_t);
typedef int (*nccl_group_fn)(void);
typedef int (*nccl_destroy_fn)(nccl_comm_t);
typedef const char *(*nccl_errstr_fn)(int);
#define NCCL_DOUBLE 8
typedef struct afp_nccl {
    void *lib;                         /* NULL: not opened */
    nccl_getid_fn get_id; nccl_init_fn init; nccl_sendrecv_fn send; nccl_recv_fn recv;
    nccl_group_fn gstart, gend; nccl_destroy_fn destroy; nccl_errstr_fn err;
    nccl_comm_t comm;                  /* NULL: no communicator made */
} afp_nccl;

/* ---- one field's matrix on the device, kept between solves -------------- */
typedef struct afp_gpu_matrix {
    char field[64];
    uint64_t key;                      /* hash of the addressing (afp_gpu_matrix_of) */
    int n, nfaces, nnz, sym;           /* n == 0: a free slot */
    size_t bytes;
    int *rowptr, *col, *src;           /* CSR; src: entry e = 2f (lower coef of f) or 2f+1 (upper) */
    double *val, *diag, *rD, *sumA, *up, *lo;
    /* interfaces */
    int niface, nif;                   /* interfaces, packed interface faces */
    int *h_nb, *h_tag, *h_off, *h_cnt; /* per interface: neighbour, tag, offset, faces */
    int *ifc;                          /* packed: cell of each interface face (device) */
    int nirow, *irows, *iptr, *islot;  /* rows with interface faces, their entries: slot in recv */
    int *h_perm;                       /* host: packed face of each (row-grouped) entry */
    double *icoef, *h_icoef;           /* row-grouped interface coefficients */
    double *sendb, *recvb, *h_send, *h_recv;
    /* vectors */
    double *psi, *b, *wA, *pA, *rA, *t0, *t1;
    double lmax;
    double bytes_acc;                  /* modelled bytes of the kernels launched since the last reset */
} afp_gpu_matrix;

/* ---- the handle (afp.h's afp_gpu) ---------------------------------------- */
struct afp_gpu {
    int ready;                         /* device chosen, streams and scratch made */
    int device;                        /* -1 until then */
    int mpi;                           /* MPI initialised: ranks > 1 possible */
    MPI_Comm comm;                     /* a duplicate of MPI_COMM_WORLD: our messages only */
    int rank, nranks;
    int node_ranks, ndev;              /* ranks on this node, its devices: NCCL needs one GPU per rank */
    cudaStream_t s, sc;                /* compute stream, communication stream */
    double *part;                      /* block partial sums, NRED x MAXBLOCKS */
    double *red_d, *red_h;             /* final local sums (device, pinned host) */
    double copy_gbs;                   /* measured copy bandwidth, GB/s; 0: not measured */
    int exchange_kind;                 /* AFP_EXCHANGE_* in use; -1: not chosen yet */
    int cuda_aware;                    /* MPIX_Query_cuda_support; -1: not asked yet */
    int seq;                           /* this solve: reduction SEQUENTIAL */
    afp_nccl nccl;
    afp_gpu_matrix mats[MAXMAT];
};

/* ---- afp_gpu_device.cu --------------------------------------------------- */
/* MPI communicator, device (node-local rank modulo the devices), streams,
 * scratch: once per handle */
int afp_gpu_init(afp_gpu *g);
/* g->copy_gbs, once per handle */
int afp_gpu_measure_copy_bw(afp_gpu *g);

/* ---- afp_gpu_matrix.cu --------------------------------------------------- */
/* the device matrix of field for s: the kept one when the addressing hashes
 * to the same key, else built afresh (*built = 1); NULL on failure */
afp_gpu_matrix *afp_gpu_matrix_of(afp_gpu *g, const afp_system *s, const afp_controls *c, const char *field,
                                  int *built);
/* this call's values: diagonal, face and interface coefficients, psi and
 * the source; the CSR values, sumA, 1/D, and lmax for Chebyshev */
int afp_gpu_upload_values(afp_gpu *g, afp_gpu_matrix *m, const afp_system *s, const afp_controls *c,
                          const double *psi, const double *b);
void afp_gpu_matrix_free(afp_gpu_matrix *m);

/* ---- afp_gpu_exchange.cu ------------------------------------------------- */
/* which exchange (want: AFP_EXCHANGE_*), the same on every rank; once per handle */
int afp_gpu_pick_exchange(afp_gpu *g, int want);
const char *afp_gpu_exchange_name(const afp_gpu *g);
/* the interface values of x sent (req: 2 x niface requests), and received
 * and applied to y = A x */
int afp_gpu_exchange_start(afp_gpu *g, afp_gpu_matrix *m, const double *x, MPI_Request *req);
int afp_gpu_exchange_finish(afp_gpu *g, afp_gpu_matrix *m, double *y, MPI_Request *req);
void afp_gpu_nccl_close(afp_nccl *nccl);

/* ---- afp_gpu_sums.cu: the results summed over the ranks into v ---------- */
/* reduction SEQUENTIAL: the sums of k_seq, in OpenFOAM's order:
 *  SEQ_SUM  sum a             SEQ_DOT  sum a*b
 *  SEQ_INIT normFactor terms |a - c avg| + |b - c avg| (a = A psi, b = source,
 *           c = sumA) and |b - a| (= |rA|)
 *  SEQ_MAG  sum |a|           SEQ_MAGDOT  sum |a| and sum b*a (a = r, b = w) */
enum { SEQ_SUM, SEQ_DOT, SEQ_INIT, SEQ_MAG, SEQ_MAGDOT };
int afp_gpu_seq_sums(afp_gpu *g, int mode, int n, const double *a, const double *b, const double *c, double avg,
                     double *v);
/* reduction TREE: the k rows of block partials in g->part (nb blocks) */
int afp_gpu_finish_sums(afp_gpu *g, int nb, int k, double *v);
/* sum a, and a.b, in this solve's order (g->seq) */
int afp_gpu_sum(afp_gpu *g, int n, const double *a, double *v);
int afp_gpu_dot(afp_gpu *g, int n, const double *a, const double *b, double *v);
/* host values v[0..k-1] summed over the ranks in rank order */
int afp_gpu_allsum_host(afp_gpu *g, double *v, int k);

#endif
