/* Every nonblocking and persistent collective, written once as a schedule (vbt_sched.h). The
 * algorithms, for n ranks:
 *   barrier               dissemination: ceil(log2 n) rounds of one send and one receive;
 *   bcast                 binomial tree from the root; scatter + ring allgather for long
 *                         messages (vbt_coll_bcast_scatter_allgather.c);
 *   reduce                binomial tree: the children's vectors are received at once, then
 *                         combined in rank order (commutative ops: a tree rotated to the root;
 *                         others: rooted at rank 0, whose result is sent on to the root, so that
 *                         every combination is (lower ranks) op (higher ranks));
 *   allreduce             recursive doubling, a group that is not a power of two folded into one
 *                         first (as the blocking one, vbt_coll_util.c), lower ranks on the left;
 *                         Rabenseifner's or a ring for long vectors (vbt_coll_allreduce_*.c,
 *                         shared with the blocking call);
 *   gather(v), scatter(v) linear: the root posts every receive (send) in one round;
 *   allgather(v)          every block to every rank in one round for small data, a ring
 *                         (n - 1 rounds, one block each) above VBT_NB_DIRECT_BYTES;
 *   alltoall(v, w)        pairwise exchanges, VBT_COLL_A2A_WINDOW peers per round;
 *   reduce_scatter(_block) the reduce above to rank 0, then a linear scatterv;
 *   scan, exscan          recursive doubling (MPICH's), rank order kept for any op;
 *   neighbor_*            one round: a receive per in-neighbour and a send per out-neighbour,
 *                         matched as vbt_coll_neighbor.c explains.
 * MPI_IN_PLACE is resolved here into plain buffers (with a copy where a buffer is both sent
 * and replaced). Datatypes go to the schedule's steps as the user gave them. */
#include "vbt_sched.h"
#include "vbt_log.h"
#include "vbt_topo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Below this many bytes in all, allgather sends every block straight to every rank. */
#define VBT_NB_DIRECT_BYTES 65536

#define TRY(x)                                                                                     \
    do {                                                                                           \
        vbt_status_t try_st_ = (x);                                                                \
        if (try_st_ != VBT_OK)                                                                     \
            return try_st_;                                                                        \
    } while (0)

#define TRY_PTR(p)                                                                                 \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return VBT_ERR_NO_MEMORY;                                                              \
    } while (0)

static char zero_byte; /* the buffer of a message of no data (a barrier's) */

static vbt_status_t build_barrier(vbt_sched_t *s, vbt_comm_t *c)
{
    int n = c->size, me = c->rank;

    for (int k = 1; k < n; k <<= 1) {
        TRY(vbt_sched_recv(s, &zero_byte, 0, MPI_BYTE, (me - k + n) % n));
        TRY(vbt_sched_send(s, &zero_byte, 0, MPI_BYTE, (me + k) % n));
        vbt_sched_round(s);
    }
    return VBT_OK;
}

static vbt_status_t build_bcast(vbt_sched_t *s, vbt_comm_t *c, void *buf, size_t count,
                                MPI_Datatype dt, int root)
{
    int n = c->size, vr = (c->rank - root + n) % n, mask = 1;
    size_t bytes = vbt_coll_bytes(count, dt);

    if (n == 1 || bytes == 0)
        return VBT_OK;
    if (vbt_coll_select_bcast(n, bytes) == VBT_COLL_ALG_SCATTER_ALLGATHER)
        return vbt_sched_bcast_scatter_allgather(s, c, buf, count, dt, root);
    while (mask < n) {
        if (vr & mask) {
            TRY(vbt_sched_recv(s, buf, count, dt, (vr - mask + root) % n));
            vbt_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n)
            TRY(vbt_sched_send(s, buf, count, dt, (vr + mask + root) % n));
    vbt_sched_round(s);
    return VBT_OK;
}

/* Reduce sbuf (count of dt, at every rank) into rbuf at root (rbuf may be sbuf there). */
static vbt_status_t build_reduce(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf,
                                 size_t count, MPI_Datatype dt, const vbt_op_t *op, int root)
{
    int n = c->size, commute = vbt_op_commutative(op);
    int top = commute ? root : 0; /* the tree's root */
    int vr = (c->rank - top + n) % n, mask = 1, nchild = 0;
    void *child[32];
    const void *acc = sbuf;

    if (count == 0)
        return VBT_OK;
    /* Children vr + 1, vr + 2, vr + 4, ... below our lowest set bit, all received at once. */
    while (mask < n && !(vr & mask)) {
        if (vr + mask < n) {
            child[nchild] = vbt_sched_tmp(s, count, dt);
            TRY_PTR(child[nchild]);
            TRY(vbt_sched_recv(s, child[nchild], count, dt, (vr + mask + top) % n));
            nchild++;
        }
        mask <<= 1;
    }
    vbt_sched_round(s);
    /* acc covers vr .. vr + 2^k - 1, child k the next 2^k: acc op child, lower ranks left. */
    for (int k = 0; k < nchild; k++) {
        TRY(vbt_sched_reduce(s, op, acc, child[k], count, dt));
        acc = child[k];
    }
    if (vr != 0) {
        TRY(vbt_sched_send(s, acc, count, dt, (vr - mask + top) % n));
    } else if (c->rank == root) {
        if (acc != rbuf)
            TRY(vbt_sched_copy(s, acc, count, dt, rbuf, count, dt));
    } else {
        TRY(vbt_sched_send(s, acc, count, dt, root)); /* rank 0 of a non-commutative op */
    }
    vbt_sched_round(s);
    if (top != root && c->rank == root) {
        TRY(vbt_sched_recv(s, rbuf, count, dt, top));
        vbt_sched_round(s);
    }
    return VBT_OK;
}

static int pof2_floor(int n)
{
    int p = 1;

    while (p * 2 <= n)
        p *= 2;
    return p;
}

vbt_status_t vbt_sched_pof2_fold(vbt_sched_t *s, vbt_comm_t *c, void *rbuf, void *tmp, size_t count,
                                 MPI_Datatype dt, const vbt_op_t *op, int *newrank_p)
{
    int me = c->rank, rem = c->size - pof2_floor(c->size);

    /* Of the first 2 * rem ranks, each even one hands its vector to the odd one above. */
    if (me >= 2 * rem) {
        *newrank_p = me - rem;
        return VBT_OK;
    }
    if (me % 2 == 0) {
        TRY(vbt_sched_send(s, rbuf, count, dt, me + 1));
        vbt_sched_round(s);
        *newrank_p = -1;
        return VBT_OK;
    }
    TRY(vbt_sched_recv(s, tmp, count, dt, me - 1));
    vbt_sched_round(s);
    TRY(vbt_sched_reduce(s, op, tmp, rbuf, count, dt)); /* rank me - 1 on the left */
    vbt_sched_round(s);
    *newrank_p = me / 2;
    return VBT_OK;
}

vbt_status_t vbt_sched_pof2_unfold(vbt_sched_t *s, vbt_comm_t *c, void *rbuf, size_t count,
                                   MPI_Datatype dt)
{
    int me = c->rank, rem = c->size - pof2_floor(c->size);

    if (me >= 2 * rem)
        return VBT_OK;
    if (me % 2)
        TRY(vbt_sched_send(s, rbuf, count, dt, me - 1));
    else
        TRY(vbt_sched_recv(s, rbuf, count, dt, me + 1));
    vbt_sched_round(s);
    return VBT_OK;
}

static vbt_status_t build_allreduce_rd(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf,
                                       size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    int n = c->size, me = c->rank, pof2 = pof2_floor(n), rem = n - pof2, newrank;
    int commute = vbt_op_commutative(op);
    void *tmp;

    if (sbuf != MPI_IN_PLACE && sbuf != rbuf)
        TRY(vbt_sched_copy(s, sbuf, count, dt, rbuf, count, dt));
    if (n == 1)
        return VBT_OK;
    tmp = vbt_sched_tmp(s, count, dt);
    TRY_PTR(tmp);
    vbt_sched_round(s);
    TRY(vbt_sched_pof2_fold(s, c, rbuf, tmp, count, dt, op, &newrank));
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int pn = newrank ^ mask;
            int peer = pn < rem ? pn * 2 + 1 : pn + rem;
            TRY(vbt_sched_recv(s, tmp, count, dt, peer));
            TRY(vbt_sched_send(s, rbuf, count, dt, peer));
            vbt_sched_round(s);
            if (peer < me || commute) {
                TRY(vbt_sched_reduce(s, op, tmp, rbuf, count, dt)); /* rbuf = tmp op rbuf */
            } else {
                TRY(vbt_sched_reduce(s, op, rbuf, tmp, count, dt)); /* tmp = rbuf op tmp */
                TRY(vbt_sched_copy(s, tmp, count, dt, rbuf, count, dt));
            }
        }
        vbt_sched_round(s);
    }
    return vbt_sched_pof2_unfold(s, c, rbuf, count, dt);
}

vbt_status_t vbt_sched_allreduce(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf,
                                 size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    if (count == 0)
        return VBT_OK;
    switch (vbt_coll_select_allreduce(c->size, count, vbt_coll_bytes(count, dt),
                                      vbt_op_commutative(op))) {
    case VBT_COLL_ALG_RING:
        return vbt_sched_allreduce_ring(s, c, sbuf, rbuf, count, dt, op);
    case VBT_COLL_ALG_RABENSEIFNER:
        return vbt_sched_allreduce_rabenseifner(s, c, sbuf, rbuf, count, dt, op);
    default:
        return build_allreduce_rd(s, c, sbuf, rbuf, count, dt, op);
    }
}

/* One rank's block of a v or w buffer. */
static void *vaddr(const void *buf, vbt_coll_vec_t displs, MPI_Datatype dt, int bytes, int i)
{
    if (bytes)
        return (char *)(uintptr_t)buf + vbt_coll_vec_at(displs, i);
    return (char *)(uintptr_t)buf +
           (MPI_Aint)vbt_coll_vec_at(displs, i) * vbt_dtype_get(dt)->extent;
}

typedef struct {
    const void *buf;
    size_t count;          /* when counts is NULL */
    vbt_coll_vec_t counts; /* per rank, or unset */
    vbt_coll_vec_t displs; /* per rank (elements, bytes when dts), or unset: block i at i * count */
    MPI_Datatype dt;
    const MPI_Datatype *dts;
} side_t;

static void *side_addr(const side_t *x, int i)
{
    if (vbt_coll_vec_set(x->displs))
        return vaddr(x->buf, x->displs, x->dt, x->dts != NULL, i);
    return vbt_coll_at(x->buf, (size_t)i * x->count, x->dt);
}

static size_t side_count(const side_t *x, int i)
{
    return vbt_coll_vec_set(x->counts) ? (size_t)vbt_coll_vec_at(x->counts, i) : x->count;
}

static MPI_Datatype side_type(const side_t *x, int i)
{
    return x->dts != NULL ? x->dts[i] : x->dt;
}

/* Gather(v): root receives block i of r from rank i; sbuf (or in place: nothing) is ours. */
static vbt_status_t build_gather(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, size_t scount,
                                 MPI_Datatype sdt, const side_t *r, int root)
{
    int n = c->size, me = c->rank;

    if (me != root) {
        if (vbt_coll_bytes(scount, sdt) > 0)
            TRY(vbt_sched_send(s, sbuf, scount, sdt, root));
        vbt_sched_round(s);
        return VBT_OK;
    }
    for (int i = 0; i < n; i++) {
        if (vbt_coll_bytes(side_count(r, i), side_type(r, i)) == 0)
            continue;
        if (i == me) {
            if (sbuf != MPI_IN_PLACE)
                TRY(vbt_sched_copy(s, sbuf, scount, sdt, side_addr(r, i), side_count(r, i),
                                   side_type(r, i)));
        } else {
            TRY(vbt_sched_recv(s, side_addr(r, i), side_count(r, i), side_type(r, i), i));
        }
    }
    vbt_sched_round(s);
    return VBT_OK;
}

static vbt_status_t build_scatter(vbt_sched_t *s, vbt_comm_t *c, const side_t *x, void *rbuf,
                                  size_t rcount, MPI_Datatype rdt, int root)
{
    int n = c->size, me = c->rank;

    if (me != root) {
        if (vbt_coll_bytes(rcount, rdt) > 0)
            TRY(vbt_sched_recv(s, rbuf, rcount, rdt, root));
        vbt_sched_round(s);
        return VBT_OK;
    }
    for (int i = 0; i < n; i++) {
        if (vbt_coll_bytes(side_count(x, i), side_type(x, i)) == 0)
            continue;
        if (i == me) {
            if (rbuf != MPI_IN_PLACE)
                TRY(vbt_sched_copy(s, side_addr(x, i), side_count(x, i), side_type(x, i), rbuf,
                                   rcount, rdt));
        } else {
            TRY(vbt_sched_send(s, side_addr(x, i), side_count(x, i), side_type(x, i), i));
        }
    }
    vbt_sched_round(s);
    return VBT_OK;
}

/* Allgather(v) of the blocks of r, ours already in place. */
static vbt_status_t build_allgather(vbt_sched_t *s, vbt_comm_t *c, const side_t *r)
{
    int n = c->size, me = c->rank;
    size_t total = 0;

    for (int i = 0; i < n; i++)
        total += vbt_coll_bytes(side_count(r, i), side_type(r, i));
    if (n == 1 || total == 0)
        return VBT_OK;
    vbt_sched_round(s);
    if (total <= VBT_NB_DIRECT_BYTES) {
        for (int k = 1; k < n; k++) {
            int from = (me - k + n) % n;
            TRY(vbt_sched_recv(s, side_addr(r, from), side_count(r, from), side_type(r, from),
                               from));
        }
        for (int k = 1; k < n; k++)
            TRY(vbt_sched_send(s, side_addr(r, me), side_count(r, me), side_type(r, me),
                               (me + k) % n));
        vbt_sched_round(s);
        return VBT_OK;
    }
    /* Ring: in round k we pass on the block that came in round k - 1. */
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        TRY(vbt_sched_recv(s, side_addr(r, rb), side_count(r, rb), side_type(r, rb),
                           (me - 1 + n) % n));
        TRY(vbt_sched_send(s, side_addr(r, sb), side_count(r, sb), side_type(r, sb), (me + 1) % n));
        vbt_sched_round(s);
    }
    return VBT_OK;
}

/* Alltoall(v, w): block i of x to rank i, block i of r from it. */
static vbt_status_t build_alltoall(vbt_sched_t *s, vbt_comm_t *c, const side_t *x, const side_t *r)
{
    int n = c->size, me = c->rank;

    TRY(vbt_sched_copy(s, side_addr(x, me), side_count(x, me), side_type(x, me), side_addr(r, me),
                       side_count(r, me), side_type(r, me)));
    vbt_sched_round(s);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        if (vbt_coll_bytes(side_count(r, from), side_type(r, from)) > 0)
            TRY(vbt_sched_recv(s, side_addr(r, from), side_count(r, from), side_type(r, from),
                               from));
        if (vbt_coll_bytes(side_count(x, to), side_type(x, to)) > 0)
            TRY(vbt_sched_send(s, side_addr(x, to), side_count(x, to), side_type(x, to), to));
        if (k % VBT_COLL_A2A_WINDOW == 0)
            vbt_sched_round(s);
    }
    vbt_sched_round(s);
    return VBT_OK;
}

/* A copy of the blocks of r (for MPI_IN_PLACE: sent from the copy, received into r). */
static vbt_status_t dup_side(vbt_sched_t *s, vbt_comm_t *c, const side_t *r, side_t *x)
{
    int n = c->size;
    const char *lo = NULL, *hi = NULL;
    char *base;

    for (int i = 0; i < n; i++) {
        const char *a = side_addr(r, i);
        MPI_Aint blo, bhi;
        if (side_count(r, i) == 0)
            continue;
        vbt_coll_range(side_count(r, i), side_type(r, i), &blo, &bhi);
        if (lo == NULL || a + blo < lo)
            lo = a + blo;
        if (hi == NULL || a + bhi > hi)
            hi = a + bhi;
    }
    if (lo == NULL)
        lo = hi = r->buf;
    base = vbt_sched_alloc(s, (size_t)(hi - lo));
    TRY_PTR(base);
    *x = *r;
    x->buf = base - lo + (const char *)r->buf; /* the same offsets from the copy */
    /* Filled when the schedule runs (every start of a persistent one): raw bytes. */
    return vbt_sched_copy(s, lo, (size_t)(hi - lo), MPI_BYTE, base, (size_t)(hi - lo), MPI_BYTE);
}

static vbt_status_t build_scan(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf,
                               size_t count, MPI_Datatype dt, const vbt_op_t *op, int exclusive)
{
    int n = c->size, me = c->rank, first = 1, commute = vbt_op_commutative(op);
    void *partial, *tmp;

    if (count == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    if (!exclusive && sbuf != rbuf)
        TRY(vbt_sched_copy(s, sbuf, count, dt, rbuf, count, dt));
    if (n == 1)
        return VBT_OK;
    partial = vbt_sched_tmp(s, count, dt);
    tmp = vbt_sched_tmp(s, count, dt);
    TRY_PTR(partial);
    TRY_PTR(tmp);
    /* partial: the reduction of our group so far (ranks below us in it included). */
    TRY(vbt_sched_copy(s, sbuf, count, dt, partial, count, dt));
    vbt_sched_round(s);
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = me ^ mask;
        if (peer >= n)
            continue;
        TRY(vbt_sched_recv(s, tmp, count, dt, peer));
        TRY(vbt_sched_send(s, partial, count, dt, peer));
        vbt_sched_round(s);
        if (peer < me) { /* tmp covers lower ranks: it goes on the left */
            if (exclusive && first)
                TRY(vbt_sched_copy(s, tmp, count, dt, rbuf, count, dt));
            else
                TRY(vbt_sched_reduce(s, op, tmp, rbuf, count, dt));
            first = 0;
            TRY(vbt_sched_reduce(s, op, tmp, partial, count, dt));
        } else if (commute) {
            TRY(vbt_sched_reduce(s, op, tmp, partial, count, dt));
        } else {
            TRY(vbt_sched_reduce(s, op, partial, tmp, count, dt)); /* tmp = partial op tmp */
            TRY(vbt_sched_copy(s, tmp, count, dt, partial, count, dt));
        }
    }
    vbt_sched_round(s);
    return VBT_OK;
}

static vbt_status_t build_reduce_scatter(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf,
                                         void *rbuf, vbt_coll_vec_t counts, size_t block,
                                         MPI_Datatype dt, const vbt_op_t *op)
{
    int n = c->size, me = c->rank;
    MPI_Count *displs = vbt_sched_alloc(s, (size_t)n * sizeof(MPI_Count)), *cnt;
    size_t total = 0;
    void *whole = NULL;

    cnt = vbt_sched_alloc(s, (size_t)n * sizeof(MPI_Count));
    TRY_PTR(displs);
    TRY_PTR(cnt);
    for (int i = 0; i < n; i++) {
        cnt[i] = vbt_coll_vec_set(counts) ? vbt_coll_vec_at(counts, i) : (MPI_Count)block;
        displs[i] = (MPI_Count)total;
        total += (size_t)cnt[i];
    }
    if (total == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf; /* the whole vector is in rbuf */
    if (me == 0) {
        whole = vbt_sched_tmp(s, total, dt);
        TRY_PTR(whole);
    }
    TRY(build_reduce(s, c, sbuf, whole, total, dt, op, 0));
    vbt_sched_round(s);
    side_t x = {.buf = whole,
                .counts = vbt_coll_vec_count(cnt),
                .displs = vbt_coll_vec_count(displs),
                .dt = dt};
    return build_scatter(s, c, &x, rbuf, (size_t)cnt[me], dt, 0);
}

/* ---- neighbourhood collectives ------------------------------------------------------------- */

typedef struct {
    const void *buf;
    size_t count;
    MPI_Datatype dt;
    vbt_coll_vec_t counts, displs; /* displs in bytes when dts is set (w) */
    const MPI_Datatype *dts;
    int same; /* every block is buf itself (allgather's send side) */
} nside_t;

static void *nblock(const nside_t *b, int i)
{
    if (vbt_coll_vec_set(b->displs))
        return vaddr(b->buf, b->displs, b->dt, b->dts != NULL, i);
    if (b->same)
        return (void *)(uintptr_t)b->buf;
    return vbt_coll_at(b->buf, (size_t)i * b->count, b->dt);
}

static vbt_status_t build_neighbor(vbt_sched_t *s, vbt_comm_t *c, const nside_t *x,
                                   const nside_t *r)
{
    const int *sources, *destinations;
    int indegree, outdegree, cart = c->topo->kind == MPI_CART;

    TRY(vbt_topo_neighbors(c, &indegree, &sources, &outdegree, &destinations));
    /* Cartesian in-neighbour i is at -1 for even i: what comes from it travelled towards +1. */
    for (int i = 0; i < indegree; i++) {
        if (sources[i] == MPI_PROC_NULL)
            continue;
        TRY(vbt_sched_recv(s, nblock(r, i),
                           vbt_coll_vec_set(r->counts) ? (size_t)vbt_coll_vec_at(r->counts, i)
                                                       : r->count,
                           r->dts ? r->dts[i] : r->dt, sources[i]));
        if (cart && (i & 1))
            vbt_sched_alt_tag(s);
    }
    for (int j = 0; j < outdegree; j++) {
        if (destinations[j] == MPI_PROC_NULL)
            continue;
        TRY(vbt_sched_send(s, nblock(x, j),
                           vbt_coll_vec_set(x->counts) ? (size_t)vbt_coll_vec_at(x->counts, j)
                                                       : x->count,
                           x->dts ? x->dts[j] : x->dt, destinations[j]));
        if (cart && !(j & 1))
            vbt_sched_alt_tag(s);
    }
    vbt_sched_round(s);
    return VBT_OK;
}

/* ---- entry ---------------------------------------------------------------------------------- */

vbt_status_t vbt_sched_build(vbt_sched_t *s, vbt_coll_kind_t kind, vbt_comm_t *c,
                             const vbt_coll_args_t *a)
{
    int me = c->rank, n = c->size;

    switch (kind) {
    case VBT_COLL_BARRIER:
        return build_barrier(s, c);
    case VBT_COLL_BCAST:
        return build_bcast(s, c, a->rbuf, a->rcount, a->rdt, a->root);
    case VBT_COLL_GATHER:
    case VBT_COLL_GATHERV: {
        side_t r = {.buf = a->rbuf,
                    .count = a->rcount,
                    .counts = a->rcounts,
                    .displs = a->rdispls,
                    .dt = a->rdt};
        if (me == a->root && a->sbuf == MPI_IN_PLACE)
            return build_gather(s, c, MPI_IN_PLACE, 0, MPI_BYTE, &r, a->root);
        return build_gather(s, c, a->sbuf, a->scount, a->sdt, &r, a->root);
    }
    case VBT_COLL_SCATTER:
    case VBT_COLL_SCATTERV: {
        side_t x = {.buf = a->sbuf,
                    .count = a->scount,
                    .counts = a->scounts,
                    .displs = a->sdispls,
                    .dt = a->sdt};
        return build_scatter(s, c, &x, a->rbuf, a->rcount, a->rdt, a->root);
    }
    case VBT_COLL_ALLGATHER:
    case VBT_COLL_ALLGATHERV: {
        side_t r = {.buf = a->rbuf,
                    .count = a->rcount,
                    .counts = a->rcounts,
                    .displs = a->rdispls,
                    .dt = a->rdt};
        if (a->sbuf != MPI_IN_PLACE)
            TRY(vbt_sched_copy(s, a->sbuf, a->scount, a->sdt, side_addr(&r, me), side_count(&r, me),
                               a->rdt));
        return build_allgather(s, c, &r);
    }
    case VBT_COLL_ALLTOALL:
    case VBT_COLL_ALLTOALLV:
    case VBT_COLL_ALLTOALLW: {
        side_t r = {.buf = a->rbuf,
                    .count = a->rcount,
                    .counts = a->rcounts,
                    .displs = a->rdispls,
                    .dt = a->rdt,
                    .dts = a->rdts};
        side_t x = {.buf = a->sbuf,
                    .count = a->scount,
                    .counts = a->scounts,
                    .displs = a->sdispls,
                    .dt = a->sdt,
                    .dts = a->sdts};
        if (a->sbuf == MPI_IN_PLACE) {
            TRY(dup_side(s, c, &r, &x));
            vbt_sched_round(s);
        }
        (void)n;
        return build_alltoall(s, c, &x, &r);
    }
    case VBT_COLL_REDUCE:
        return build_reduce(s, c, a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf, a->rbuf, a->rcount,
                            a->rdt, a->op, a->root);
    case VBT_COLL_ALLREDUCE:
        return vbt_sched_allreduce(s, c, a->sbuf, a->rbuf, a->rcount, a->rdt, a->op);
    case VBT_COLL_REDUCE_SCATTER:
        return build_reduce_scatter(s, c, a->sbuf, a->rbuf, a->rcounts, 0, a->rdt, a->op);
    case VBT_COLL_REDUCE_SCATTER_BLOCK:
        return build_reduce_scatter(s, c, a->sbuf, a->rbuf, (vbt_coll_vec_t){NULL}, a->rcount,
                                    a->rdt, a->op);
    case VBT_COLL_SCAN:
        return build_scan(s, c, a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, 0);
    case VBT_COLL_EXSCAN:
        return build_scan(s, c, a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, 1);
    case VBT_COLL_NEIGHBOR_ALLGATHER:
    case VBT_COLL_NEIGHBOR_ALLGATHERV:
    case VBT_COLL_NEIGHBOR_ALLTOALL:
    case VBT_COLL_NEIGHBOR_ALLTOALLV:
    case VBT_COLL_NEIGHBOR_ALLTOALLW: {
        int gather = kind == VBT_COLL_NEIGHBOR_ALLGATHER || kind == VBT_COLL_NEIGHBOR_ALLGATHERV;
        nside_t x = {.buf = a->sbuf,
                     .count = a->scount,
                     .dt = a->sdt,
                     .counts = a->scounts,
                     .displs = gather ? (vbt_coll_vec_t){NULL} : a->sdispls,
                     .dts = a->sdts,
                     .same = gather};
        nside_t r = {.buf = a->rbuf,
                     .count = a->rcount,
                     .dt = a->rdt,
                     .counts = a->rcounts,
                     .displs = a->rdispls,
                     .dts = a->rdts};
        return build_neighbor(s, c, &x, &r);
    }
    }
    return VBT_ERR_INVALID_PARAM;
}

vbt_status_t vbt_coll_post(vbt_coll_kind_t kind, vbt_comm_t *comm, const vbt_coll_args_t *a,
                           int persistent, vbt_request_t **req_p)
{
    vbt_sched_t *s = vbt_sched_create(comm);
    vbt_status_t st;

    if (s == NULL)
        return VBT_ERR_NO_MEMORY;
    if (vbt_comm_is_inter(comm))
        st = vbt_sched_build_inter(s, kind, comm, a);
    else
        st = vbt_sched_build(s, kind, comm, a);
    if (st != VBT_OK) {
        vbt_sched_destroy(s);
        return st;
    }
    return vbt_sched_commit(s, persistent, req_p);
}
