/* Rabenseifner's allreduce: a reduce-scatter by recursive halving (in round k each rank keeps
 * half of its current range, sends the other half to its partner and adds the partner's copy of
 * the half it keeps), then an allgather by recursive doubling that retraces those steps. Each
 * rank sends about 2 (n-1)/n of the vector in 2 log2 n rounds: bandwidth-optimal with few
 * latencies, for long vectors. Non-powers of two fold first, as in recursive doubling. The
 * halves do not keep rank order, so commutative ops only.
 *
 * Written once as a schedule (vbt_sched.h): MPI_Iallreduce and MPI_Allreduce_init run it from
 * the progress engine, MPI_Allreduce runs it to its end (vbt_sched_run). */
#include "vbt_sched.h"

static size_t sum(const size_t *cnts, int from, int to)
{
    size_t s = 0;
    for (int i = from; i < to; i++)
        s += cnts[i];
    return s;
}

/* Our range at the start of each phase and the partner's, steps of both phases, built into s.
 * With sbuf set (a power of two, not in place) rbuf holds nothing yet: the first round sends
 * from sbuf and receives into rbuf, where our half of sbuf is then added. */
static vbt_status_t build(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf, void *rbuf, void *tmp,
                          size_t count, MPI_Datatype dt, const vbt_op_t *op, int pof2, int newrank,
                          const size_t *cnts, const size_t *disps)
{
    int rem = c->size - pof2, send_idx = 0, recv_idx = 0, last_idx = pof2, mask;
    vbt_status_t st;

    /* Reduce-scatter by recursive halving: [recv_idx, last_idx) is the range still ours. */
    for (mask = 1; mask < pof2; mask <<= 1) {
        int dst = vbt_coll_pof2_rank(newrank ^ mask, rem);
        /* With sbuf, the first round copies nothing first, and no peer reads what we wrote
         * this call: the partner's half arrives where it belongs and ours is added to it. */
        int direct = mask == 1 && sbuf != NULL;
        size_t scnt, rcnt;
        void *mine, *to;

        if (newrank < (newrank ^ mask)) {
            send_idx = recv_idx + pof2 / (mask * 2);
            scnt = sum(cnts, send_idx, last_idx);
            rcnt = sum(cnts, recv_idx, send_idx);
        } else {
            recv_idx = send_idx + pof2 / (mask * 2);
            scnt = sum(cnts, send_idx, recv_idx);
            rcnt = sum(cnts, recv_idx, last_idx);
        }
        mine = vbt_coll_at(rbuf, disps[recv_idx], dt);
        to = direct ? mine : vbt_coll_at(tmp, disps[recv_idx], dt);

        if ((st = vbt_sched_recv(s, to, rcnt, dt, dst)) != VBT_OK ||
            (st = vbt_sched_send(s, vbt_coll_at(direct ? sbuf : rbuf, disps[send_idx], dt), scnt,
                                 dt, dst)) != VBT_OK)
            return st;
        vbt_sched_round(s);
        st = vbt_sched_reduce(s, op, direct ? vbt_coll_at(sbuf, disps[recv_idx], dt) : to, mine,
                              rcnt, dt);
        if (st != VBT_OK)
            return st;
        send_idx = recv_idx;
        /* The allgather starts from the last round's range: keep it. */
        if (mask * 2 < pof2)
            last_idx = recv_idx + pof2 / (mask * 2);
    }
    vbt_sched_round(s);

    /* Allgather by recursive doubling, retracing the halving in reverse. */
    for (mask = pof2 / 2; mask > 0; mask >>= 1) {
        int dst = vbt_coll_pof2_rank(newrank ^ mask, rem);
        size_t scnt, rcnt;

        if (newrank < (newrank ^ mask)) {
            if (mask != pof2 / 2)
                last_idx = last_idx + pof2 / (mask * 2);
            recv_idx = send_idx + pof2 / (mask * 2);
            scnt = sum(cnts, send_idx, recv_idx);
            rcnt = sum(cnts, recv_idx, last_idx);
        } else {
            recv_idx = send_idx - pof2 / (mask * 2);
            scnt = sum(cnts, send_idx, last_idx);
            rcnt = sum(cnts, recv_idx, send_idx);
        }
        if ((st = vbt_sched_recv(s, vbt_coll_at(rbuf, disps[recv_idx], dt), rcnt, dt, dst)) !=
                VBT_OK ||
            (st = vbt_sched_send(s, vbt_coll_at(rbuf, disps[send_idx], dt), scnt, dt, dst)) !=
                VBT_OK)
            return st;
        vbt_sched_round(s);
        if (newrank > (newrank ^ mask))
            send_idx = recv_idx;
    }
    return VBT_OK;
}

vbt_status_t vbt_sched_allreduce_rabenseifner(vbt_sched_t *s, vbt_comm_t *c, const void *sbuf,
                                              void *rbuf, size_t count, MPI_Datatype dt,
                                              const vbt_op_t *op)
{
    int n = c->size, pof2 = vbt_coll_pof2_floor(n), newrank;
    /* A power of two reads sbuf in the first round instead of copying it into rbuf first. */
    const void *first = sbuf != MPI_IN_PLACE && sbuf != rbuf && n == pof2 && n > 1 ? sbuf : NULL;
    size_t stack[2 * VBT_COLL_STACK_RANKS], *cnts;
    void *tmp;
    vbt_status_t st;

    if (first == NULL && sbuf != MPI_IN_PLACE && sbuf != rbuf &&
        (st = vbt_sched_copy(s, sbuf, count, dt, rbuf, count, dt)) != VBT_OK)
        return st;
    if (n == 1)
        return VBT_OK;
    /* Two ranks reading sbuf have one round, which takes no temporary. */
    tmp = NULL;
    if (!(first != NULL && n == 2) && (tmp = vbt_sched_tmp(s, count, dt)) == NULL)
        return VBT_ERR_NO_MEMORY;
    vbt_sched_round(s);
    st = vbt_sched_pof2_fold(s, c, rbuf, tmp, count, dt, op, &newrank);
    if (st != VBT_OK || newrank < 0)
        return st != VBT_OK ? st : vbt_sched_pof2_unfold(s, c, rbuf, count, dt);
    /* Block i of the pof2 the halving works on: cnts[i] elements at disps[i]. */
    cnts = vbt_coll_scratch(stack, sizeof(stack), 2 * (size_t)pof2 * sizeof(*cnts));
    if (cnts == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < pof2; i++) {
        cnts[i] = count / (size_t)pof2 + ((size_t)i < count % (size_t)pof2);
        cnts[pof2 + i] = i ? cnts[pof2 + i - 1] + cnts[i - 1] : 0;
    }
    st = build(s, c, first, rbuf, tmp, count, dt, op, pof2, newrank, cnts, cnts + pof2);
    vbt_coll_scratch_free(cnts, stack);
    if (st != VBT_OK)
        return st;
    return vbt_sched_pof2_unfold(s, c, rbuf, count, dt);
}
