/* The collectives' entry points: resolve MPI_IN_PLACE into plain buffers, skip calls that move
 * no data (the same decision on every rank: it depends only on arguments that must match), and
 * run the algorithm vbt_coll_select.c picks. */
#include "vbt_coll_int.h"
#include "vbt_sched.h"

#include <stdlib.h>

/* The long-message algorithms are schedules (vbt_sched.h), shared with the nonblocking and
 * persistent calls: here built and run to their end. */
typedef vbt_status_t(sched_allreduce_fn)(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf,
                                         void *rbuf, size_t count, MPI_Datatype dt,
                                         const vbt_op_t *op);

static vbt_status_t run_allreduce(vbt_comm_t *comm, sched_allreduce_fn *fn, const void *sbuf,
                                  void *rbuf, size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    vbt_sched_t *s = vbt_sched_create(comm);
    vbt_status_t st;

    if (s == NULL)
        return VBT_ERR_NO_MEMORY;
    st = fn(s, comm, sbuf, rbuf, count, dt, op);
    if (st != VBT_OK) {
        vbt_sched_destroy(s);
        return st;
    }
    return vbt_sched_run(s);
}

static vbt_status_t run_bcast_scatter_allgather(vbt_comm_t *comm, void *buf, size_t count,
                                                MPI_Datatype dt, int root)
{
    vbt_sched_t *s = vbt_sched_create(comm);
    vbt_status_t st;

    if (s == NULL)
        return VBT_ERR_NO_MEMORY;
    st = vbt_sched_bcast_scatter_allgather(s, comm, buf, count, dt, root);
    if (st != VBT_OK) {
        vbt_sched_destroy(s);
        return st;
    }
    return vbt_sched_run(s);
}

vbt_status_t vbt_coll_bcast(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt, int root)
{
    size_t bytes = vbt_coll_bytes(count, dt);

    if (comm->size == 1 || bytes == 0)
        return VBT_OK;
    if (vbt_coll_select_bcast(comm->size, bytes) == VBT_COLL_ALG_SCATTER_ALLGATHER)
        return run_bcast_scatter_allgather(comm, buf, count, dt, root);
    return vbt_coll_bcast_binomial(comm, buf, count, dt, root);
}

vbt_status_t vbt_coll_reduce(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                             MPI_Datatype dt, const vbt_op_t *op, int root)
{
    if (count == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE) /* at the root only: the API checked */
        sbuf = rbuf;
    return vbt_coll_reduce_binomial(comm, sbuf, rbuf, count, dt, op, root, VBT_COLL_TAG_REDUCE);
}

vbt_status_t vbt_coll_allreduce(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                                MPI_Datatype dt, const vbt_op_t *op)
{
    if (count == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    switch (vbt_coll_select_allreduce(comm->size, count, vbt_coll_bytes(count, dt),
                                      vbt_op_commutative(op))) {
    case VBT_COLL_ALG_RING:
        return run_allreduce(comm, vbt_sched_allreduce_ring, sbuf, rbuf, count, dt, op);
    case VBT_COLL_ALG_RABENSEIFNER:
        return run_allreduce(comm, vbt_sched_allreduce_rabenseifner, sbuf, rbuf, count, dt, op);
    default:
        return vbt_coll_allreduce_recursive_doubling(comm, sbuf, rbuf, count, dt, op);
    }
}

vbt_status_t vbt_coll_gather(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                             void *rbuf, size_t rcount, MPI_Datatype rdt, int root)
{
    int me = comm->rank;
    size_t block = me == root ? vbt_coll_bytes(rcount, rdt) : vbt_coll_bytes(scount, sdt);

    if (block == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE) { /* root: its block is in place already */
        sbuf = vbt_coll_at(rbuf, (size_t)me * rcount, rdt);
        scount = rcount;
        sdt = rdt;
    }
    if (vbt_coll_select_gather(comm->size, block) == VBT_COLL_ALG_BINOMIAL)
        return vbt_coll_gather_binomial(comm, sbuf, scount, sdt, rbuf, rcount, rdt, root);
    return vbt_coll_gather_linear(comm, sbuf, scount, sdt, rbuf, rcount, rdt, root);
}

vbt_status_t vbt_coll_gatherv(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                              void *rbuf, vbt_coll_vec_t rcounts, vbt_coll_vec_t displs,
                              MPI_Datatype rdt, int root)
{
    vbt_coll_vbuf_t rv = {rcounts, displs, rdt, NULL};

    return vbt_coll_gatherv_linear(comm, sbuf, scount, sdt, rbuf, &rv, root);
}

vbt_status_t vbt_coll_scatter(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                              void *rbuf, size_t rcount, MPI_Datatype rdt, int root)
{
    int me = comm->rank;
    size_t block = me == root ? vbt_coll_bytes(scount, sdt) : vbt_coll_bytes(rcount, rdt);

    if (block == 0)
        return VBT_OK;
    if (rbuf == MPI_IN_PLACE) { /* root: its block stays where it is */
        rbuf = vbt_coll_at(sbuf, (size_t)me * scount, sdt);
        rcount = scount;
        rdt = sdt;
    }
    if (vbt_coll_select_scatter(comm->size, block) == VBT_COLL_ALG_BINOMIAL)
        return vbt_coll_scatter_binomial(comm, sbuf, scount, sdt, rbuf, rcount, rdt, root);
    return vbt_coll_scatter_linear(comm, sbuf, scount, sdt, rbuf, rcount, rdt, root);
}

vbt_status_t vbt_coll_scatterv(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                               vbt_coll_vec_t displs, MPI_Datatype sdt, void *rbuf, size_t rcount,
                               MPI_Datatype rdt, int root)
{
    vbt_coll_vbuf_t sv = {scounts, displs, sdt, NULL};

    return vbt_coll_scatterv_linear(comm, sbuf, &sv, rbuf, rcount, rdt, root);
}

vbt_status_t vbt_coll_allgather(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                                void *rbuf, size_t rcount, MPI_Datatype rdt)
{
    size_t block = vbt_coll_bytes(rcount, rdt);
    vbt_coll_own_t own = {sbuf, scount, sdt};
    /* Our block is sent from sbuf and copied into rbuf by the algorithm (vbt_coll_own_t). */
    const vbt_coll_own_t *mine = sbuf == MPI_IN_PLACE ? NULL : &own;

    if (block == 0)
        return VBT_OK;
    if (comm->size == 1)
        return mine == NULL ? VBT_OK : vbt_coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);
    switch (vbt_coll_select_allgather(comm->size, block)) {
    case VBT_COLL_ALG_RECURSIVE_DOUBLING:
        return vbt_coll_allgather_recursive_doubling(comm, mine, rbuf, rcount, rdt);
    case VBT_COLL_ALG_BRUCK:
        return vbt_coll_allgather_bruck(comm, mine, rbuf, rcount, rdt);
    default:
        return vbt_coll_allgather_ring(comm, mine, rbuf, rcount, rdt);
    }
}

vbt_status_t vbt_coll_allgatherv(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                 MPI_Datatype sdt, void *rbuf, vbt_coll_vec_t rcounts,
                                 vbt_coll_vec_t displs, MPI_Datatype rdt)
{
    vbt_coll_vbuf_t rv = {rcounts, displs, rdt, NULL};
    vbt_coll_own_t own = {sbuf, scount, sdt};

    if (comm->size == 1)
        return sbuf == MPI_IN_PLACE ? VBT_OK
                                    : vbt_coll_copy(sbuf, scount, sdt, vbt_coll_vaddr(&rv, rbuf, 0),
                                                    (size_t)vbt_coll_vec_at(rcounts, 0), rdt);
    return vbt_coll_allgatherv_ring(comm, sbuf == MPI_IN_PLACE ? NULL : &own, rbuf, &rv);
}

vbt_status_t vbt_coll_alltoall(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                               void *rbuf, size_t rcount, MPI_Datatype rdt)
{
    size_t block = vbt_coll_bytes(rcount, rdt);
    void *copy = NULL;
    vbt_status_t st;

    if (block == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE) {
        /* Every block is both sent and replaced: send from a copy. */
        copy = vbt_coll_tmp_alloc((size_t)comm->size * rcount, rdt);
        if (copy == NULL)
            return VBT_ERR_NO_MEMORY;
        st = vbt_coll_copy(rbuf, (size_t)comm->size * rcount, rdt, copy,
                           (size_t)comm->size * rcount, rdt);
        if (st != VBT_OK)
            goto out;
        sbuf = copy;
        scount = rcount;
        sdt = rdt;
    }
    if (vbt_coll_select_alltoall(comm->size, block) == VBT_COLL_ALG_BRUCK)
        st = vbt_coll_alltoall_bruck(comm, sbuf, scount, sdt, rbuf, rcount, rdt);
    else
        st = vbt_coll_alltoall_pairwise(comm, sbuf, scount, sdt, rbuf, rcount, rdt);
out:
    vbt_coll_tmp_free(copy, (size_t)comm->size * rcount, rdt);
    return st;
}

static vbt_status_t alltoallv(vbt_comm_t *comm, const void *sbuf, const vbt_coll_vbuf_t *sv,
                              void *rbuf, const vbt_coll_vbuf_t *rv, int tag)
{
    void *copy, *base = NULL;
    vbt_status_t st;

    if (sbuf == MPI_IN_PLACE) {
        st = vbt_coll_vdup(rv, comm->size, rbuf, &copy, &base);
        if (st != VBT_OK)
            return st;
        sbuf = copy;
        sv = rv;
    }
    st = vbt_coll_alltoallv_pairwise(comm, sbuf, sv, rbuf, rv, tag);
    free(base);
    return st;
}

vbt_status_t vbt_coll_alltoallv(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                vbt_coll_vec_t sdispls, MPI_Datatype sdt, void *rbuf,
                                vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls, MPI_Datatype rdt)
{
    vbt_coll_vbuf_t sv = {scounts, sdispls, sdt, NULL}, rv = {rcounts, rdispls, rdt, NULL};

    return alltoallv(comm, sbuf, &sv, rbuf, &rv, VBT_COLL_TAG_ALLTOALLV);
}

vbt_status_t vbt_coll_alltoallw(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                vbt_coll_vec_t sdispls, const MPI_Datatype *sdts, void *rbuf,
                                vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls,
                                const MPI_Datatype *rdts)
{
    vbt_coll_vbuf_t sv = {scounts, sdispls, MPI_DATATYPE_NULL, sdts},
                    rv = {rcounts, rdispls, MPI_DATATYPE_NULL, rdts};

    return alltoallv(comm, sbuf, &sv, rbuf, &rv, VBT_COLL_TAG_ALLTOALLW);
}

static vbt_status_t reduce_scatter(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                   vbt_coll_vec_t rcounts, MPI_Datatype dt, const vbt_op_t *op,
                                   int tag)
{
    size_t total = 0;

    for (int i = 0; i < comm->size; i++)
        total += (size_t)vbt_coll_vec_at(rcounts, i);
    if (total == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE) /* the whole vector is in rbuf */
        sbuf = rbuf;
    if (vbt_coll_select_reduce_scatter(comm->size, vbt_coll_bytes(total, dt),
                                       vbt_op_commutative(op)) == VBT_COLL_ALG_RING)
        return vbt_coll_reduce_scatter_ring(comm, sbuf, rbuf, rcounts, dt, op, tag);
    return vbt_coll_reduce_scatter_reduce_scatterv(comm, sbuf, rbuf, rcounts, dt, op, tag);
}

vbt_status_t vbt_coll_reduce_scatter(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                     vbt_coll_vec_t rcounts, MPI_Datatype dt, const vbt_op_t *op)
{
    return reduce_scatter(comm, sbuf, rbuf, rcounts, dt, op, VBT_COLL_TAG_REDUCE_SCATTER);
}

vbt_status_t vbt_coll_reduce_scatter_block(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                           size_t rcount, MPI_Datatype dt, const vbt_op_t *op)
{
    MPI_Count stack[VBT_COLL_STACK_RANKS], *counts;
    vbt_status_t st;

    if (rcount == 0)
        return VBT_OK;
    counts = vbt_coll_scratch(stack, sizeof(stack), (size_t)comm->size * sizeof(*counts));
    if (counts == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < comm->size; i++)
        counts[i] = (MPI_Count)rcount;
    st = reduce_scatter(comm, sbuf, rbuf, vbt_coll_vec_count(counts), dt, op,
                        VBT_COLL_TAG_REDUCE_SCATTER_BLOCK);
    vbt_coll_scratch_free(counts, stack);
    return st;
}

vbt_status_t vbt_coll_scan(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                           MPI_Datatype dt, const vbt_op_t *op)
{
    if (count == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    return vbt_coll_scan_recursive_doubling(comm, sbuf, rbuf, count, dt, op);
}

vbt_status_t vbt_coll_exscan(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                             MPI_Datatype dt, const vbt_op_t *op)
{
    if (count == 0)
        return VBT_OK;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    return vbt_coll_exscan_recursive_doubling(comm, sbuf, rbuf, count, dt, op);
}
