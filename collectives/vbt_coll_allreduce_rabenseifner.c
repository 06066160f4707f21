/* Rabenseifner's allreduce: a reduce-scatter by recursive halving (in round k each rank keeps
 * half of its current range, sends the other half to its partner and adds the partner's copy of
 * the half it keeps), then an allgather by recursive doubling that retraces those steps. Each
 * rank sends about 2 (n-1)/n of the vector in 2 log2 n rounds: bandwidth-optimal with few
 * latencies, for long vectors. Non-powers of two fold first, as in recursive doubling. The
 * halves do not keep rank order, so commutative ops only. */
#include "vbt_coll_int.h"

#include <stdlib.h>

static size_t sum(const size_t *cnts, int from, int to)
{
    size_t s = 0;
    for (int i = from; i < to; i++)
        s += cnts[i];
    return s;
}

vbt_status_t vbt_coll_allreduce_rabenseifner(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                             size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    int n = comm->size;
    int pof2, rem, newrank, mask;
    int send_idx = 0, recv_idx = 0, last_idx;
    size_t *cnts = NULL, *disps;
    void *tmp;
    vbt_status_t st;

    st = vbt_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (st != VBT_OK || n == 1)
        return st;
    tmp = vbt_coll_tmp_alloc(count, dt);
    if (tmp == NULL)
        return VBT_ERR_NO_MEMORY;
    pof2 = vbt_coll_pof2_floor(n);
    rem = n - pof2;
    cnts = malloc(2 * (size_t)pof2 * sizeof(*cnts));
    if (cnts == NULL) {
        st = VBT_ERR_NO_MEMORY;
        goto out;
    }
    disps = cnts + pof2;
    for (int i = 0; i < pof2; i++) {
        cnts[i] = count / (size_t)pof2 + ((size_t)i < count % (size_t)pof2);
        disps[i] = i ? disps[i - 1] + cnts[i - 1] : 0;
    }

    st = vbt_coll_pof2_fold(comm, rbuf, tmp, count, dt, op, rem, VBT_COLL_TAG_ALLREDUCE, &newrank);
    if (st != VBT_OK)
        goto out;

    if (newrank >= 0) {
        /* Reduce-scatter by recursive halving: [recv_idx, last_idx) is the range still ours. */
        last_idx = pof2;
        for (mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = vbt_coll_pof2_rank(newdst, rem);
            size_t scnt, rcnt;

            if (newrank < newdst) {
                send_idx = recv_idx + pof2 / (mask * 2);
                scnt = sum(cnts, send_idx, last_idx);
                rcnt = sum(cnts, recv_idx, send_idx);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                scnt = sum(cnts, send_idx, recv_idx);
                rcnt = sum(cnts, recv_idx, last_idx);
            }
            st = vbt_coll_sendrecv(comm, vbt_coll_at(rbuf, disps[send_idx], dt), scnt, dt, dst,
                                   vbt_coll_at(tmp, disps[recv_idx], dt), rcnt, dt, dst,
                                   VBT_COLL_TAG_ALLREDUCE);
            if (st != VBT_OK)
                goto out;
            st = vbt_coll_reduce_local(op, vbt_coll_at(tmp, disps[recv_idx], dt),
                                       vbt_coll_at(rbuf, disps[recv_idx], dt), rcnt, dt);
            if (st != VBT_OK)
                goto out;
            send_idx = recv_idx;
            /* The allgather starts from the last round's range: keep it. */
            if (mask * 2 < pof2)
                last_idx = recv_idx + pof2 / (mask * 2);
        }

        /* Allgather by recursive doubling, retracing the halving in reverse. */
        for (mask = pof2 / 2; mask > 0; mask >>= 1) {
            int newdst = newrank ^ mask;
            int dst = vbt_coll_pof2_rank(newdst, rem);
            size_t scnt, rcnt;

            if (newrank < newdst) {
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
            st = vbt_coll_sendrecv(comm, vbt_coll_at(rbuf, disps[send_idx], dt), scnt, dt, dst,
                                   vbt_coll_at(rbuf, disps[recv_idx], dt), rcnt, dt, dst,
                                   VBT_COLL_TAG_ALLREDUCE);
            if (st != VBT_OK)
                goto out;
            if (newrank > newdst)
                send_idx = recv_idx;
        }
    }

    st = vbt_coll_pof2_unfold(comm, rbuf, count, dt, rem, VBT_COLL_TAG_ALLREDUCE);
out:
    free(cnts);
    vbt_coll_tmp_free(tmp, count, dt);
    return st;
}
