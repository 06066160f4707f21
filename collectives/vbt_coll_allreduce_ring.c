/* Ring allreduce: a ring reduce-scatter of n blocks (rank r ends with block r complete), then a
 * ring allgather of those blocks. Each rank sends 2 (n-1)/n of the vector, in blocks that
 * stream through both neighbour links at once, with no folding step for groups that are not
 * powers of two: the choice for very long vectors. Partial sums wrap around the ring, so
 * commutative ops only.
 *
 * Written once as a schedule (vbt_sched.h), for MPI_Allreduce, MPI_Iallreduce and
 * MPI_Allreduce_init alike; the blocking ring reduce-scatter (vbt_coll_ring.c) walks the same
 * blocks. */
#include "vbt_sched.h"

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* With sbuf set (not in place) rbuf holds nothing yet and tmp is not used: each partial sum is
 * received where it belongs and our part of sbuf added to it, and the first round sends
 * straight from sbuf, so the vector is never copied and no peer reads what we wrote this call
 * (vbt_coll_own_t says why that matters). */
static vbt_status_t build(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf, void *tmp,
                          MPI_Datatype dt, const vbt_op_t *op, const size_t *counts,
                          const size_t *displs)
{
    int n = c->size, me = c->rank, right = mod(me + 1, n), left = mod(me - 1, n);
    vbt_status_t st;

    /* Round k: pass on the partial sum of block me - 1 - k, take the left neighbour's partial
     * of block me - 2 - k and add ours to it. */
    for (int k = 0; k < n - 1; k++) {
        int sb = mod(me - 1 - k, n), rb = mod(me - 2 - k, n);
        void *at_rb = vbt_coll_at(rbuf, displs[rb], dt);
        const void *from = vbt_coll_at(sbuf != NULL && k == 0 ? sbuf : rbuf, displs[sb], dt);

        if ((st = vbt_sched_recv(s, sbuf != NULL ? at_rb : tmp, counts[rb], dt, left)) != VBT_OK ||
            (st = vbt_sched_send(s, from, counts[sb], dt, right)) != VBT_OK)
            return st;
        vbt_sched_round(s);
        if (sbuf != NULL)
            st = vbt_sched_reduce(s, op, vbt_coll_at(sbuf, displs[rb], dt), at_rb, counts[rb], dt);
        else
            st = vbt_sched_reduce(s, op, tmp, at_rb, counts[rb], dt);
        if (st != VBT_OK)
            return st;
    }
    vbt_sched_round(s);
    /* Round k: forward block me - k (ours at k = 0, then the one just received). */
    for (int k = 0; k < n - 1; k++) {
        int sb = mod(me - k, n), rb = mod(me - k - 1, n);
        if ((st = vbt_sched_recv(s, vbt_coll_at(rbuf, displs[rb], dt), counts[rb], dt, left)) !=
                VBT_OK ||
            (st = vbt_sched_send(s, vbt_coll_at(rbuf, displs[sb], dt), counts[sb], dt, right)) !=
                VBT_OK)
            return st;
        vbt_sched_round(s);
    }
    return VBT_OK;
}

vbt_status_t vbt_sched_allreduce_ring(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf,
                                      size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    int n = c->size;
    const void *first = sbuf != MPI_IN_PLACE && sbuf != rbuf ? sbuf : NULL;
    size_t stack[2 * VBT_COLL_STACK_RANKS], *counts;
    void *tmp = NULL;
    vbt_status_t st;

    if (n == 1)
        return first == NULL ? VBT_OK : vbt_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    vbt_sched_round(s);
    counts = vbt_coll_scratch(stack, sizeof(stack), 2 * (size_t)n * sizeof(*counts));
    if (counts == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n; i++) {
        counts[i] = count / (size_t)n + ((size_t)i < count % (size_t)n);
        counts[n + i] = i ? counts[n + i - 1] + counts[i - 1] : 0;
    }
    if (first == NULL && (tmp = vbt_sched_tmp(s, counts[0], dt)) == NULL) /* the largest block */
        st = VBT_ERR_NO_MEMORY;
    else
        st = build(s, c, first, rbuf, tmp, dt, op, counts, counts + n);
    vbt_coll_scratch_free(counts, stack);
    return st;
}
