/* The exchange every neighbourhood collective is: one receive per in-neighbour and one send per
 * out-neighbour, all posted at once (a neighbourhood is small and fixed, so there is nothing to
 * schedule).
 *
 * Matching. A rank can be the same neighbour more than once: repeated edges of a graph, and a
 * periodic Cartesian dimension of size 2 (both neighbours are the other rank) or 1 (both are
 * this rank). For graphs MPI pairs the k-th edge to a rank with the k-th edge from it, which
 * FIFO matching per (source, tag) gives when every rank posts in list order. For a Cartesian
 * grid MPI says the block sent towards -1 is the one received from +1 (a shift), which list
 * order would get backwards when both neighbours are the same rank: so what travels towards -1
 * carries tag + 1 and what travels towards +1 carries tag. Neighbours of different dimensions
 * are different ranks unless both are this rank, and then list order still pairs them. */
#include "vbt_coll_int.h"
#include "vbt_datatype.h"
#include "vbt_log.h"
#include "vbt_topo.h"

#include <stdint.h>
#include <stdlib.h>

static void *block_addr(const vbt_coll_nbuf_t *b, int i)
{
    if (vbt_coll_vec_set(b->displs) && b->dts != NULL)
        return (char *)(uintptr_t)b->buf + vbt_coll_vec_at(b->displs, i);
    if (vbt_coll_vec_set(b->displs))
        return (char *)(uintptr_t)b->buf +
               (ptrdiff_t)vbt_coll_vec_at(b->displs, i) * (ptrdiff_t)vbt_dtype_get(b->dt)->extent;
    if (b->same)
        return (void *)(uintptr_t)b->buf;
    return vbt_coll_at(b->buf, (size_t)i * b->count, b->dt);
}

static size_t block_count(const vbt_coll_nbuf_t *b, int i)
{
    return vbt_coll_vec_set(b->counts) ? (size_t)vbt_coll_vec_at(b->counts, i) : b->count;
}

static MPI_Datatype block_type(const vbt_coll_nbuf_t *b, int i)
{
    return b->dts != NULL ? b->dts[i] : b->dt;
}

vbt_status_t vbt_coll_neighbor_exchange(vbt_comm_t *comm, const vbt_coll_nbuf_t *s,
                                        const vbt_coll_nbuf_t *r, int tag)
{
    const int *sources, *destinations;
    int indegree, outdegree, nreq = 0, cart;
    vbt_request_t **reqs;
    vbt_status_t st;

    st = vbt_topo_neighbors(comm, &indegree, &sources, &outdegree, &destinations);
    if (st != VBT_OK)
        return st;
    if (indegree + outdegree == 0)
        return VBT_OK;
    cart = comm->topo->kind == MPI_CART;
    reqs = calloc((size_t)(indegree + outdegree), sizeof(*reqs));
    if (reqs == NULL) {
        vbt_error("collective: no memory for %d neighbourhood requests", indegree + outdegree);
        return VBT_ERR_NO_MEMORY;
    }
    /* Cartesian in-neighbour i is at -1 for even i: what comes from it travelled towards +1. */
    for (int i = 0; i < indegree && st == VBT_OK; i++) {
        if (sources[i] == MPI_PROC_NULL)
            continue;
        st = vbt_coll_irecv(comm, block_addr(r, i), block_count(r, i), block_type(r, i), sources[i],
                            cart && (i & 1) ? tag + 1 : tag, &reqs[nreq++]);
    }
    for (int j = 0; j < outdegree && st == VBT_OK; j++) {
        if (destinations[j] == MPI_PROC_NULL)
            continue;
        st = vbt_coll_isend(comm, block_addr(s, j), block_count(s, j), block_type(s, j),
                            destinations[j], cart && !(j & 1) ? tag + 1 : tag, &reqs[nreq++]);
    }
    st = vbt_coll_finish(reqs, nreq, st);
    free(reqs);
    return st;
}
