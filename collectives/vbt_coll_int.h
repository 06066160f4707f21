/* Private to collectives/: the algorithms, their tags, and the helpers they share. Every
 * algorithm moves typed buffers only through the helpers of vbt_coll_util.c (send, receive,
 * copy, reduce) and vbt_coll_tmp.c (temporary buffers), so that datatype handling lives there. */
#ifndef VBT_COLL_INT_H
#define VBT_COLL_INT_H

#include "vbt_coll.h"
#include "vbt_op.h"
#include "vbt_request.h"

#include <mpi.h>
#include <stddef.h>

/* Internal tags on the collective context: one per collective, so that a message of one can
 * never be taken by another (barrier.c uses 1). Blocking collectives are called in the same
 * order on every rank, so messages of two calls of the same collective match in order. */
enum {
    VBT_COLL_TAG_BCAST = 2,
    VBT_COLL_TAG_REDUCE,
    VBT_COLL_TAG_ALLREDUCE,
    VBT_COLL_TAG_GATHER,
    VBT_COLL_TAG_GATHERV,
    VBT_COLL_TAG_SCATTER,
    VBT_COLL_TAG_SCATTERV,
    VBT_COLL_TAG_ALLGATHER,
    VBT_COLL_TAG_ALLGATHERV,
    VBT_COLL_TAG_ALLTOALL,
    VBT_COLL_TAG_ALLTOALLV,
    VBT_COLL_TAG_ALLTOALLW,
    VBT_COLL_TAG_REDUCE_SCATTER,
    VBT_COLL_TAG_REDUCE_SCATTER_BLOCK,
    VBT_COLL_TAG_SCAN,
    VBT_COLL_TAG_EXSCAN,
    /* Neighbourhood collectives take two tags each: tag + 1 marks what a Cartesian rank sends
     * towards coordinate -1 (see vbt_coll_neighbor.c). */
    VBT_COLL_TAG_NEIGHBOR_ALLGATHER,
    VBT_COLL_TAG_NEIGHBOR_ALLGATHERV = VBT_COLL_TAG_NEIGHBOR_ALLGATHER + 2,
    VBT_COLL_TAG_NEIGHBOR_ALLTOALL = VBT_COLL_TAG_NEIGHBOR_ALLGATHERV + 2,
    VBT_COLL_TAG_NEIGHBOR_ALLTOALLV = VBT_COLL_TAG_NEIGHBOR_ALLTOALL + 2,
    VBT_COLL_TAG_NEIGHBOR_ALLTOALLW = VBT_COLL_TAG_NEIGHBOR_ALLTOALLV + 2,
};

/* ---- algorithm choice (vbt_coll_select.c) ---------------------------------------------------- */

typedef enum {
    VBT_COLL_ALG_AUTO = 0,
    VBT_COLL_ALG_BINOMIAL,
    VBT_COLL_ALG_SCATTER_ALLGATHER,
    VBT_COLL_ALG_RECURSIVE_DOUBLING,
    VBT_COLL_ALG_RABENSEIFNER,
    VBT_COLL_ALG_RING,
    VBT_COLL_ALG_LINEAR,
    VBT_COLL_ALG_BRUCK,
    VBT_COLL_ALG_PAIRWISE,
    VBT_COLL_ALG_REDUCE_SCATTERV,
} vbt_coll_alg_t;

/* The algorithm for a call: the knob's, else by the rules documented in README (Collectives).
 * Every argument is the same on every rank of the call, so every rank chooses the same. Sizes
 * are bytes of data: the whole message (bcast, allreduce, reduce-scatter) or one rank's block
 * (gather, scatter, allgather, alltoall). */
vbt_coll_alg_t vbt_coll_select_bcast(int n, size_t bytes);
vbt_coll_alg_t vbt_coll_select_allreduce(int n, size_t count, size_t bytes, int commutative);
vbt_coll_alg_t vbt_coll_select_gather(int n, size_t block);
vbt_coll_alg_t vbt_coll_select_scatter(int n, size_t block);
vbt_coll_alg_t vbt_coll_select_allgather(int n, size_t block);
vbt_coll_alg_t vbt_coll_select_alltoall(int n, size_t block);
vbt_coll_alg_t vbt_coll_select_reduce_scatter(int n, size_t bytes, int commutative);

/* ---- typed buffers (vbt_coll_util.c) --------------------------------------------------------- */

/* The address of element index of a buffer of dt (below buf for a negative extent). */
void *vbt_coll_at(const void *buf, size_t index, MPI_Datatype dt);
/* The bytes count elements of dt at buf may touch: [buf + *lo_p, buf + *hi_p), from the lower
 * of the first and last elements' true_lb to the higher one's true_ub, whatever the signs of
 * the extent and the bounds (empty for count 0). */
void vbt_coll_range(size_t count, MPI_Datatype dt, MPI_Aint *lo_p, MPI_Aint *hi_p);
/* Bytes that count elements of dt span in memory (the size of a temporary buffer for them). */
size_t vbt_coll_span(size_t count, MPI_Datatype dt);
/* Where the data of elements of dt at buf is one run of bytes (count * size of them), for an
 * algorithm that cuts a message at byte boundaries: buf + true_lb when dt is contiguous, else
 * NULL (pack it). */
void *vbt_coll_contig_data(const void *buf, MPI_Datatype dt);
/* Bytes of data in count elements of dt (equal on every rank for matching type signatures). */
size_t vbt_coll_bytes(size_t count, MPI_Datatype dt);
/* A temporary buffer for count elements of dt, laid out as a user buffer of dt would be (its
 * address is where element 0 goes, which need not be the allocation's start), in
 * vbt_coll_tmp.c: a block an earlier call freed when one fits, so its contents are stale, not
 * zero; not NULL for count 0, NULL when out of memory (logged). Free with vbt_coll_tmp_free and the
 * same count and dt (NULL is fine). Elements of a type that overlap (allowed in send buffers)
 * overlap here too: receive such data into packed bytes instead (count bytes of MPI_BYTE). */
void *vbt_coll_tmp_alloc(size_t count, MPI_Datatype dt);
void vbt_coll_tmp_free(void *tmp, size_t count, MPI_Datatype dt);
/* Copy scount elements of sdt at src to rcount elements of rdt at dst; VBT_ERR_TRUNCATE when
 * the source holds more data than the destination takes. */
vbt_status_t vbt_coll_copy(const void *src, size_t scount, MPI_Datatype sdt, void *dst,
                           size_t rcount, MPI_Datatype rdt);
/* inout = in op inout, element by element (VBT_ERR_NO_MEMORY when packing a non-contiguous
 * datatype for a predefined op finds no memory). */
vbt_status_t vbt_coll_reduce_local(const vbt_op_t *op, const void *in, void *inout, size_t count,
                                   MPI_Datatype dt);

/* One rank's block in a buffer of a v or w collective: counts[i] elements of dt (dts[i] when
 * dts is set) at displs[i] elements of dt from the start (bytes when dts is set, as
 * MPI_Alltoallw counts them). */
typedef struct {
    vbt_coll_vec_t counts;
    vbt_coll_vec_t displs;
    MPI_Datatype dt;
    const MPI_Datatype *dts;
} vbt_coll_vbuf_t;

void *vbt_coll_vaddr(const vbt_coll_vbuf_t *v, const void *buf, int i);
MPI_Datatype vbt_coll_vtype(const vbt_coll_vbuf_t *v, int i);
/* A copy of the n blocks of v in buf (for MPI_IN_PLACE): *copy_p addresses like buf, *base_p
 * is what to free (with free()). */
vbt_status_t vbt_coll_vdup(const vbt_coll_vbuf_t *v, int n, const void *buf, void **copy_p,
                           void **base_p);

/* ---- messages on the collective context (vbt_coll_util.c) ------------------------------------ */

/* *req_p is NULL when the message went eagerly at once (nothing to wait for) or the post failed;
 * the callers keep the requests in arrays that vbt_coll_finish or the schedules walk, which skip
 * NULL. */
vbt_status_t vbt_coll_isend(vbt_comm_t *comm, const void *buf, size_t count, MPI_Datatype dt,
                            int dest, int tag, vbt_request_t **req_p);
vbt_status_t vbt_coll_irecv(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt, int src,
                            int tag, vbt_request_t **req_p);
/* Complete the n requests of reqs (NULL entries are skipped) and release them, setting each
 * entry to NULL. When st is not VBT_OK (a post failed), pending receives are cancelled and
 * pending sends left to complete on their own instead, and st is returned. Otherwise: the first
 * failure (VBT_ERR_TRUNCATE for a message longer than its receive buffer), or VBT_OK. */
vbt_status_t vbt_coll_finish(vbt_request_t **reqs, int n, vbt_status_t st);
/* Scratch for a call's per-rank arrays (request slots, block sizes and offsets): the caller's
 * stack array of cap bytes when bytes fit (no malloc and free a call on groups of up to
 * VBT_COLL_STACK_RANKS, for which those arrays are sized), else malloc'ed (NULL when out of
 * memory); give it back with vbt_coll_scratch_free. */
#define VBT_COLL_STACK_RANKS 16
void *vbt_coll_scratch(void *stack, size_t cap, size_t bytes);
void vbt_coll_scratch_free(void *scratch, void *stack);
vbt_status_t vbt_coll_send(vbt_comm_t *comm, const void *buf, size_t count, MPI_Datatype dt,
                           int dest, int tag);
vbt_status_t vbt_coll_recv(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt, int src,
                           int tag);
/* Receive from src while sending to dest (the receive is posted first). */
vbt_status_t vbt_coll_sendrecv(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                               int dest, void *rbuf, size_t rcount, MPI_Datatype rdt, int src,
                               int tag);

/* ---- reducing over a group that is not a power of two (vbt_coll_util.c) --------------------- */

/* The largest power of two not above n. */
int vbt_coll_pof2_floor(int n);
/* Fold a group of n = pof2 + rem ranks into pof2 for an allreduce of buf: of the first 2 * rem
 * ranks, each even one hands its vector to the odd one above it, which adds it (as the left
 * operand, so rank order is kept) into buf through tmp (count elements). *newrank_p is the
 * rank's place in the folded group, or -1 for a rank that only waits for the result. */
vbt_status_t vbt_coll_pof2_fold(vbt_comm_t *comm, void *buf, void *tmp, size_t count,
                                MPI_Datatype dt, const vbt_op_t *op, int rem, int tag,
                                int *newrank_p);
/* The real rank of place newrank of the folded group. */
int vbt_coll_pof2_rank(int newrank, int rem);
/* Hand the result in buf back to the ranks the fold left out. */
vbt_status_t vbt_coll_pof2_unfold(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt,
                                  int rem, int tag);

/* ---- neighbourhood exchanges (vbt_coll_neighbor.c) ------------------------------------------ */

/* One side of a neighbourhood collective: block i is counts[i] elements (count when counts is
 * unset) of dts[i] (dt when dts is NULL), at displs[i] bytes (w: dts set) or elements of dt (v),
 * buf itself (same: allgather's send side) or right after block i - 1 from buf. */
typedef struct {
    const void *buf;
    size_t count;
    MPI_Datatype dt;
    vbt_coll_vec_t counts;
    vbt_coll_vec_t displs;
    const MPI_Datatype *dts;
    int same;
} vbt_coll_nbuf_t;

/* Receive block i of r from in-neighbour i and send block j of s to out-neighbour j of comm's
 * topology, all at once; MPI_PROC_NULL neighbours are skipped (their blocks left untouched). */
vbt_status_t vbt_coll_neighbor_exchange(vbt_comm_t *comm, const vbt_coll_nbuf_t *s,
                                        const vbt_coll_nbuf_t *r, int tag);

/* ---- algorithms (one file each: vbt_coll_<collective>_<algorithm>.c) ------------------------- */

vbt_status_t vbt_coll_bcast_binomial(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt,
                                     int root);

vbt_status_t vbt_coll_reduce_binomial(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                                      MPI_Datatype dt, const vbt_op_t *op, int root, int tag);

vbt_status_t vbt_coll_allreduce_recursive_doubling(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                                   size_t count, MPI_Datatype dt,
                                                   const vbt_op_t *op);

/* The ring reduce-scatter of the full vector sbuf (not modified), block i being counts[i]
 * elements at element offset displs[i]: afterwards rank r holds the reduction of block r in
 * result, or (result NULL, as when result overlaps sbuf) at its place in work, a temporary laid
 * out like sbuf that takes the partial sums on the way. Commutative ops only. */
vbt_status_t vbt_coll_ring_reduce_scatter(vbt_comm_t *comm, const void *sbuf, void *work,
                                          void *result, const size_t *counts, const size_t *displs,
                                          MPI_Datatype dt, const vbt_op_t *op, int tag);
/* A rank's own block of an allgather(v) while it is still only in the user's send buffer (NULL
 * for MPI_IN_PLACE: it is in the receive buffer already). The algorithms send it from there, as
 * Open MPI's two-process allgather does, and copy it into the receive buffer while the first
 * exchange is in flight, so that no peer reads pages this rank has just written: besides the
 * overlap, a page a peer read with CMA is slow for its owner to write next on a guest whose
 * hypervisor shadows page tables (README, Collectives: 1 MiB at 2 ranks, 24 us for the copy
 * became 130-180). */
typedef struct {
    const void *buf;
    size_t count;
    MPI_Datatype dt;
} vbt_coll_own_t;

/* The ring allgather of blocks laid out as above: rank r starts with block r, in buf already
 * or (own not NULL) in own, which goes into buf on the way. */
vbt_status_t vbt_coll_ring_allgather(vbt_comm_t *comm, void *buf, const size_t *counts,
                                     const size_t *displs, MPI_Datatype dt,
                                     const vbt_coll_own_t *own, int tag);

vbt_status_t vbt_coll_gather_linear(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                    MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                                    int root);
vbt_status_t vbt_coll_gather_binomial(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                      MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                                      int root);
vbt_status_t vbt_coll_scatter_linear(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                     MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                                     int root);
vbt_status_t vbt_coll_scatter_binomial(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                       MPI_Datatype sdt, void *rbuf, size_t rcount,
                                       MPI_Datatype rdt, int root);

/* Allgather on 2 or more ranks; own is this rank's block when not in rbuf yet (NULL: it is). */
vbt_status_t vbt_coll_allgather_bruck(vbt_comm_t *comm, const vbt_coll_own_t *own, void *rbuf,
                                      size_t rcount, MPI_Datatype rdt);
vbt_status_t vbt_coll_allgather_recursive_doubling(vbt_comm_t *comm, const vbt_coll_own_t *own,
                                                   void *rbuf, size_t rcount, MPI_Datatype rdt);
vbt_status_t vbt_coll_allgather_ring(vbt_comm_t *comm, const vbt_coll_own_t *own, void *rbuf,
                                     size_t rcount, MPI_Datatype rdt);

/* Pairwise exchanges in flight at once (alltoall, alltoallv/w). */
#define VBT_COLL_A2A_WINDOW 8

vbt_status_t vbt_coll_alltoall_bruck(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                     MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt);
vbt_status_t vbt_coll_alltoall_pairwise(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                        MPI_Datatype sdt, void *rbuf, size_t rcount,
                                        MPI_Datatype rdt);
vbt_status_t vbt_coll_alltoallv_pairwise(vbt_comm_t *comm, const void *sbuf,
                                         const vbt_coll_vbuf_t *sv, void *rbuf,
                                         const vbt_coll_vbuf_t *rv, int tag);

vbt_status_t vbt_coll_gatherv_linear(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                     MPI_Datatype sdt, void *rbuf, const vbt_coll_vbuf_t *rv,
                                     int root);
vbt_status_t vbt_coll_scatterv_linear(vbt_comm_t *comm, const void *sbuf, const vbt_coll_vbuf_t *sv,
                                      void *rbuf, size_t rcount, MPI_Datatype rdt, int root);
vbt_status_t vbt_coll_allgatherv_ring(vbt_comm_t *comm, const vbt_coll_own_t *own, void *rbuf,
                                      const vbt_coll_vbuf_t *rv);

/* Reduce-scatter of the vector sbuf (sum of counts elements; never MPI_IN_PLACE here): rank i
 * gets block i, counts[i] elements, in rbuf. */
vbt_status_t vbt_coll_reduce_scatter_ring(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                          vbt_coll_vec_t counts, MPI_Datatype dt,
                                          const vbt_op_t *op, int tag);
vbt_status_t vbt_coll_reduce_scatter_reduce_scatterv(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                                     vbt_coll_vec_t counts, MPI_Datatype dt,
                                                     const vbt_op_t *op, int tag);

vbt_status_t vbt_coll_scan_recursive_doubling(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                              size_t count, MPI_Datatype dt, const vbt_op_t *op);
vbt_status_t vbt_coll_exscan_recursive_doubling(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                                size_t count, MPI_Datatype dt, const vbt_op_t *op);
/* The rounds both scans share (in vbt_coll_scan_recursive_doubling.c), mine being this rank's
 * contribution. Inclusive, rbuf holds mine on entry and every lower group's partial is added
 * to it; exclusive, rbuf gets only what comes from lower groups (the first partial copied, later
 * ones added on the left). n > 1. */
vbt_status_t vbt_coll_scan_rounds(vbt_comm_t *comm, const void *mine, void *rbuf, size_t count,
                                  MPI_Datatype dt, const vbt_op_t *op, int exclusive, int tag);

#endif
