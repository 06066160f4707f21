/* Every collective on an intercommunicator, written once as a schedule (vbt_sched.h): the
 * blocking call waits for it, the nonblocking one returns it, the persistent one replays it.
 * Sends and receives name remote ranks; the local parts run on the intercommunicator's hidden
 * local intracommunicator (vbt_sched_local) with the intracommunicator builders of
 * vbt_coll_nb.c. With n local and m remote ranks (MPI-4.1 Sec. 6.2.2 has the semantics):
 *   barrier               local barrier, the leaders (local rank 0) swap a token, local
 *                         barrier: nobody leaves before everyone of the other group entered;
 *   bcast                 the root (MPI_ROOT) sends to remote rank 0, which broadcasts in its
 *                         group; MPI_PROC_NULL ranks (the root's group) do nothing;
 *   gather(v), scatter(v) the root receives from (sends to) every remote rank in one round;
 *   reduce                the other group reduces to its rank 0, which sends to the root;
 *   allreduce             each group reduces to its leader, the leaders swap, each leader
 *                         broadcasts the other group's result in its group;
 *   allgather(v)          every rank sends its block to every remote rank, one round;
 *   alltoall(v, w)        block i to and from remote rank i, VBT_COLL_A2A_WINDOW per round;
 *   reduce_scatter(_block) each group reduces its vectors to its leader, the leaders swap, and
 *                         each scatters the other group's result by its own counts.
 * Scans and neighbourhood collectives are not defined on intercommunicators (the API refuses
 * them first). MPI_IN_PLACE is not allowed on intercommunicators (the API refuses it). */
#include "vbt_sched.h"

#include <stdint.h>
#include <stdlib.h>

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

static char token; /* the buffer of a message of no data */

/* An intracommunicator collective on the local group. */
static vbt_status_t local(vbt_sched_t *s, vbt_comm_t *c, vbt_coll_kind_t kind,
                          const vbt_coll_args_t *a)
{
    vbt_status_t st;

    vbt_sched_local(s, 1);
    st = vbt_sched_build(s, kind, c->local, a);
    vbt_sched_local(s, 0);
    vbt_sched_round(s);
    return st;
}

static vbt_status_t barrier(vbt_sched_t *s, vbt_comm_t *c)
{
    TRY(local(s, c, VBT_COLL_BARRIER, &(vbt_coll_args_t){0}));
    if (c->rank == 0) {
        TRY(vbt_sched_recv(s, &token, 0, MPI_BYTE, 0));
        TRY(vbt_sched_send(s, &token, 0, MPI_BYTE, 0));
        vbt_sched_round(s);
    }
    return local(s, c, VBT_COLL_BARRIER, &(vbt_coll_args_t){0});
}

static vbt_status_t bcast(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL || vbt_coll_bytes(a->rcount, a->rdt) == 0)
        return VBT_OK;
    if (a->root == MPI_ROOT)
        return vbt_sched_send(s, a->rbuf, a->rcount, a->rdt, 0);
    if (c->rank == 0) {
        TRY(vbt_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root));
        vbt_sched_round(s);
    }
    return local(s, c, VBT_COLL_BCAST,
                 &(vbt_coll_args_t){.rbuf = a->rbuf, .rcount = a->rcount, .rdt = a->rdt});
}

/* Block i of a buffer of count (or counts[i] at displs[i]) elements of dt, or dts[i] at byte
 * displacement displs[i] (alltoallw). */
typedef struct {
    const void *buf;
    size_t count;
    vbt_coll_vec_t counts, displs;
    MPI_Datatype dt;
    const MPI_Datatype *dts;
} side_t;

static MPI_Datatype side_type(const side_t *x, int i)
{
    return x->dts != NULL ? x->dts[i] : x->dt;
}

static size_t side_count(const side_t *x, int i)
{
    return vbt_coll_vec_set(x->counts) ? (size_t)vbt_coll_vec_at(x->counts, i) : x->count;
}

static void *side_addr(const side_t *x, int i)
{
    if (x->dts != NULL)
        return (char *)(uintptr_t)x->buf + vbt_coll_vec_at(x->displs, i);
    if (vbt_coll_vec_set(x->displs))
        return vbt_coll_at(x->buf, (size_t)vbt_coll_vec_at(x->displs, i), x->dt);
    return vbt_coll_at(x->buf, (size_t)i * x->count, x->dt);
}

/* The root receives block i of r from remote rank i; the other group sends. */
static vbt_status_t gather(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a)
{
    side_t r = {a->rbuf, a->rcount, a->rcounts, a->rdispls, a->rdt, NULL};

    if (a->root == MPI_PROC_NULL)
        return VBT_OK;
    if (a->root != MPI_ROOT) {
        if (vbt_coll_bytes(a->scount, a->sdt) > 0)
            TRY(vbt_sched_send(s, a->sbuf, a->scount, a->sdt, a->root));
        return VBT_OK;
    }
    for (int i = 0; i < c->remote_size; i++) {
        if (vbt_coll_bytes(side_count(&r, i), r.dt) > 0)
            TRY(vbt_sched_recv(s, side_addr(&r, i), side_count(&r, i), r.dt, i));
    }
    return VBT_OK;
}

static vbt_status_t scatter(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a)
{
    side_t x = {a->sbuf, a->scount, a->scounts, a->sdispls, a->sdt, NULL};

    if (a->root == MPI_PROC_NULL)
        return VBT_OK;
    if (a->root != MPI_ROOT) {
        if (vbt_coll_bytes(a->rcount, a->rdt) > 0)
            TRY(vbt_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root));
        return VBT_OK;
    }
    for (int i = 0; i < c->remote_size; i++) {
        if (vbt_coll_bytes(side_count(&x, i), x.dt) > 0)
            TRY(vbt_sched_send(s, side_addr(&x, i), side_count(&x, i), x.dt, i));
    }
    return VBT_OK;
}

static vbt_status_t allgather(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a)
{
    side_t r = {a->rbuf, a->rcount, a->rcounts, a->rdispls, a->rdt, NULL};
    int m = c->remote_size;

    /* From remote rank me + k first: not every rank starts with remote rank 0. */
    for (int k = 0; k < m; k++) {
        int i = (c->rank + k) % m;
        if (vbt_coll_bytes(side_count(&r, i), r.dt) > 0)
            TRY(vbt_sched_recv(s, side_addr(&r, i), side_count(&r, i), r.dt, i));
    }
    if (vbt_coll_bytes(a->scount, a->sdt) > 0) {
        for (int k = 0; k < m; k++)
            TRY(vbt_sched_send(s, a->sbuf, a->scount, a->sdt, (c->rank + k) % m));
    }
    return VBT_OK;
}

static vbt_status_t alltoall(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a)
{
    side_t x = {a->sbuf, a->scount, a->scounts, a->sdispls, a->sdt, a->sdts};
    side_t r = {a->rbuf, a->rcount, a->rcounts, a->rdispls, a->rdt, a->rdts};
    int m = c->remote_size;

    for (int k = 0; k < m; k++) {
        int i = (c->rank + k) % m;
        if (vbt_coll_bytes(side_count(&r, i), side_type(&r, i)) > 0)
            TRY(vbt_sched_recv(s, side_addr(&r, i), side_count(&r, i), side_type(&r, i), i));
        if (vbt_coll_bytes(side_count(&x, i), side_type(&x, i)) > 0)
            TRY(vbt_sched_send(s, side_addr(&x, i), side_count(&x, i), side_type(&x, i), i));
        if ((k + 1) % VBT_COLL_A2A_WINDOW == 0)
            vbt_sched_round(s);
    }
    return VBT_OK;
}

/* The reduction of the local group's sbuf (count of dt) into *acc_p at local rank 0. */
static vbt_status_t reduce_local(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, size_t count,
                                 MPI_Datatype dt, const vbt_op_t *op, void **acc_p)
{
    void *acc = NULL;

    if (c->rank == 0) {
        acc = vbt_sched_tmp(s, count, dt);
        TRY_PTR(acc);
    }
    *acc_p = acc;
    return local(s, c, VBT_COLL_REDUCE,
                 &(vbt_coll_args_t){
                     .sbuf = sbuf, .rbuf = acc, .rcount = count, .rdt = dt, .op = op, .root = 0});
}

static vbt_status_t reduce(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a)
{
    void *acc;

    if (a->root == MPI_PROC_NULL || a->rcount == 0)
        return VBT_OK;
    if (a->root == MPI_ROOT)
        return vbt_sched_recv(s, a->rbuf, a->rcount, a->rdt, 0);
    TRY(reduce_local(s, c, a->sbuf, a->rcount, a->rdt, a->op, &acc));
    if (c->rank == 0)
        TRY(vbt_sched_send(s, acc, a->rcount, a->rdt, a->root));
    return VBT_OK;
}

static vbt_status_t allreduce(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a)
{
    void *acc;

    if (a->rcount == 0)
        return VBT_OK;
    TRY(reduce_local(s, c, a->sbuf, a->rcount, a->rdt, a->op, &acc));
    if (c->rank == 0) {
        TRY(vbt_sched_recv(s, a->rbuf, a->rcount, a->rdt, 0));
        TRY(vbt_sched_send(s, acc, a->rcount, a->rdt, 0));
        vbt_sched_round(s);
    }
    return local(s, c, VBT_COLL_BCAST,
                 &(vbt_coll_args_t){.rbuf = a->rbuf, .rcount = a->rcount, .rdt = a->rdt});
}

/* counts unset: block elements for every local rank. */
static vbt_status_t reduce_scatter(vbt_sched_t *s, vbt_comm_t *c, const vbt_coll_args_t *a,
                                   vbt_coll_vec_t counts, size_t block)
{
    int n = c->size;
    MPI_Count *cnt = vbt_sched_alloc(s, (size_t)n * sizeof(MPI_Count));
    MPI_Count *displs = vbt_sched_alloc(s, (size_t)n * sizeof(MPI_Count));
    size_t total = 0;
    void *acc, *theirs = NULL;

    TRY_PTR(cnt);
    TRY_PTR(displs);
    for (int i = 0; i < n; i++) {
        cnt[i] = vbt_coll_vec_set(counts) ? vbt_coll_vec_at(counts, i) : (MPI_Count)block;
        displs[i] = (MPI_Count)total;
        total += (size_t)cnt[i];
    }
    if (total == 0)
        return VBT_OK;
    TRY(reduce_local(s, c, a->sbuf, total, a->rdt, a->op, &acc));
    if (c->rank == 0) {
        /* The other group's vectors are as long as ours (the standard requires it). */
        theirs = vbt_sched_tmp(s, total, a->rdt);
        TRY_PTR(theirs);
        TRY(vbt_sched_recv(s, theirs, total, a->rdt, 0));
        TRY(vbt_sched_send(s, acc, total, a->rdt, 0));
        vbt_sched_round(s);
    }
    return local(s, c, VBT_COLL_SCATTERV,
                 &(vbt_coll_args_t){.sbuf = theirs,
                                    .scounts = vbt_coll_vec_count(cnt),
                                    .sdispls = vbt_coll_vec_count(displs),
                                    .sdt = a->rdt,
                                    .rbuf = a->rbuf,
                                    .rcount = (size_t)cnt[c->rank],
                                    .rdt = a->rdt,
                                    .root = 0});
}

vbt_status_t vbt_sched_and_both(vbt_sched_t *s, vbt_comm_t *c, uint64_t *bits, size_t nwords)
{
    const vbt_op_t *band = vbt_op_get(MPI_BAND);
    uint64_t *theirs;

    vbt_sched_local(s, 1);
    TRY(vbt_sched_allreduce(s, c->local, MPI_IN_PLACE, bits, nwords, MPI_UINT64_T, band));
    vbt_sched_local(s, 0);
    vbt_sched_round(s);
    if (c->rank == 0) {
        theirs = vbt_sched_tmp(s, nwords, MPI_UINT64_T);
        TRY_PTR(theirs);
        TRY(vbt_sched_recv(s, theirs, nwords, MPI_UINT64_T, 0));
        TRY(vbt_sched_send(s, bits, nwords, MPI_UINT64_T, 0));
        vbt_sched_round(s);
        TRY(vbt_sched_reduce(s, band, theirs, bits, nwords, MPI_UINT64_T));
        vbt_sched_round(s);
    }
    return local(s, c, VBT_COLL_BCAST,
                 &(vbt_coll_args_t){.rbuf = bits, .rcount = nwords, .rdt = MPI_UINT64_T});
}

vbt_status_t vbt_sched_build_inter(vbt_sched_t *s, vbt_coll_kind_t kind, vbt_comm_t *c,
                                   const vbt_coll_args_t *a)
{
    switch (kind) {
    case VBT_COLL_BARRIER:
        return barrier(s, c);
    case VBT_COLL_BCAST:
        return bcast(s, c, a);
    case VBT_COLL_GATHER:
    case VBT_COLL_GATHERV:
        return gather(s, c, a);
    case VBT_COLL_SCATTER:
    case VBT_COLL_SCATTERV:
        return scatter(s, c, a);
    case VBT_COLL_ALLGATHER:
    case VBT_COLL_ALLGATHERV:
        return allgather(s, c, a);
    case VBT_COLL_ALLTOALL:
    case VBT_COLL_ALLTOALLV:
    case VBT_COLL_ALLTOALLW:
        return alltoall(s, c, a);
    case VBT_COLL_REDUCE:
        return reduce(s, c, a);
    case VBT_COLL_ALLREDUCE:
        return allreduce(s, c, a);
    case VBT_COLL_REDUCE_SCATTER:
        return reduce_scatter(s, c, a, a->rcounts, 0);
    case VBT_COLL_REDUCE_SCATTER_BLOCK:
        return reduce_scatter(s, c, a, (vbt_coll_vec_t){NULL}, a->rcount);
    default:
        return VBT_ERR_INVALID_PARAM;
    }
}
