/* Recursive-doubling allgather: in round k every rank swaps all it has (the blocks of 2^k
 * consecutive ranks, contiguous in the receive buffer) with the rank 2^k away, so log2 n rounds
 * and no temporary buffer. A group that is not a power of two is folded first: of the first
 * 2 * rem ranks, each even one gives its block to the odd one above it, which stands for both
 * and hands it the whole result at the end. */
#include "vbt_coll_int.h"

/* The first real rank that position i of the folded group stands for (lo(pof2) = n). */
static int lo(int i, int rem)
{
    return i < rem ? 2 * i : i + rem;
}

/* Put our block into rbuf (once): from here on it is sent from there. */
static vbt_status_t place(const vbt_coll_own_t **own_p, void *rbuf, int me, size_t rcount,
                          MPI_Datatype rdt)
{
    const vbt_coll_own_t *own = *own_p;

    *own_p = NULL;
    if (own == NULL)
        return VBT_OK;
    return vbt_coll_copy(own->buf, own->count, own->dt, vbt_coll_at(rbuf, (size_t)me * rcount, rdt),
                         rcount, rdt);
}

vbt_status_t vbt_coll_allgather_recursive_doubling(vbt_comm_t *comm, const vbt_coll_own_t *own,
                                                   void *rbuf, size_t rcount, MPI_Datatype rdt)
{
    int n = comm->size, me = comm->rank;
    int pof2 = vbt_coll_pof2_floor(n), rem = n - pof2, newrank;
    vbt_status_t st = VBT_OK;

    if (me < 2 * rem) {
        if (me % 2 == 0) {
            /* The whole result, our block included, comes back from me + 1. */
            if (own != NULL)
                st = vbt_coll_send(comm, own->buf, own->count, own->dt, me + 1,
                                   VBT_COLL_TAG_ALLGATHER);
            else
                st = vbt_coll_send(comm, vbt_coll_at(rbuf, (size_t)me * rcount, rdt), rcount, rdt,
                                   me + 1, VBT_COLL_TAG_ALLGATHER);
            newrank = -1;
        } else {
            st = vbt_coll_recv(comm, vbt_coll_at(rbuf, (size_t)(me - 1) * rcount, rdt), rcount, rdt,
                               me - 1, VBT_COLL_TAG_ALLGATHER);
            if (st == VBT_OK)
                st = place(&own, rbuf, me, rcount, rdt);
            newrank = me / 2;
        }
        if (st != VBT_OK)
            return st;
    } else {
        newrank = me - rem;
    }

    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask;
        int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
        int g = newrank & ~(mask - 1), h = newdst & ~(mask - 1);
        size_t ga = (size_t)lo(g, rem), gb = (size_t)lo(g + mask, rem);
        size_t ha = (size_t)lo(h, rem), hb = (size_t)lo(h + mask, rem);
        void *to = vbt_coll_at(rbuf, ha * rcount, rdt);
        vbt_request_t *reqs[2] = {NULL, NULL};

        st = vbt_coll_irecv(comm, to, (hb - ha) * rcount, rdt, dst, VBT_COLL_TAG_ALLGATHER,
                            &reqs[0]);
        if (st == VBT_OK && own != NULL) {
            /* The first round sends our block alone: from the send buffer, while it goes into
             * place. */
            st = vbt_coll_isend(comm, own->buf, own->count, own->dt, dst, VBT_COLL_TAG_ALLGATHER,
                                &reqs[1]);
            if (st == VBT_OK)
                st = place(&own, rbuf, me, rcount, rdt);
        } else if (st == VBT_OK) {
            st = vbt_coll_isend(comm, vbt_coll_at(rbuf, ga * rcount, rdt), (gb - ga) * rcount, rdt,
                                dst, VBT_COLL_TAG_ALLGATHER, &reqs[1]);
        }
        st = vbt_coll_finish(reqs, 2, st);
        if (st != VBT_OK)
            return st;
    }

    if (me < 2 * rem) {
        if (me % 2)
            st = vbt_coll_send(comm, rbuf, (size_t)n * rcount, rdt, me - 1, VBT_COLL_TAG_ALLGATHER);
        else
            st = vbt_coll_recv(comm, rbuf, (size_t)n * rcount, rdt, me + 1, VBT_COLL_TAG_ALLGATHER);
    }
    return st;
}
