/* Scatter-allgather broadcast (van de Geijn): the message is cut into n chunks of
 * ceil(bytes / n) bytes; a binomial scatter gives rank v (numbered from the root) chunk v,
 * then a ring allgather gives every rank every chunk. About 2 (n-1)/n of the message crosses
 * each link instead of log2 n whole copies: the choice for long messages on larger groups.
 *
 * Chunks are cut in bytes of the packed message, not in elements: ranks may describe the same
 * data with different datatypes (only the type signature must match the root's), so their
 * elements need not line up. A rank whose datatype is contiguous works in its own buffer;
 * others pack (the root) or unpack (the rest) once around the exchange. */
#include "vbt_coll_int.h"

#include <stdlib.h>

/* Bytes [first chunk a, chunk b) of the message, clamped to bytes. */
static void chunk_range(size_t bytes, size_t chunk, int a, int b, size_t *off_p, size_t *len_p)
{
    size_t lo = (size_t)a * chunk, hi = (size_t)b * chunk;

    if (lo > bytes)
        lo = bytes;
    if (hi > bytes)
        hi = bytes;
    *off_p = lo;
    *len_p = hi - lo;
}

/* The broadcast of bytes bytes at buf, n > 1. */
static vbt_status_t scatter_allgather(vbt_comm_t *comm, void *buf, size_t bytes, int root)
{
    const MPI_Datatype dt = MPI_BYTE;
    int n = comm->size, me = comm->rank;
    int vr = (me - root + n) % n;
    size_t chunk = (bytes + (size_t)n - 1) / (size_t)n, off, len;
    size_t *counts, *displs;
    vbt_request_t *reqs[32] = {NULL};
    int nreq = 0, mask = 1;
    vbt_status_t st = VBT_OK;

    /* Scatter: rank v receives chunks [v, v + lowbit(v)) from v - lowbit(v). */
    while (mask < n) {
        if (vr & mask) {
            chunk_range(bytes, chunk, vr, vr + mask < n ? vr + mask : n, &off, &len);
            st = vbt_coll_recv(comm, vbt_coll_at(buf, off, dt), len, dt, (me - mask + n) % n,
                               VBT_COLL_TAG_BCAST);
            if (st != VBT_OK)
                return st;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && st == VBT_OK; mask >>= 1) {
        if (vr + mask >= n)
            continue;
        chunk_range(bytes, chunk, vr + mask, vr + 2 * mask < n ? vr + 2 * mask : n, &off, &len);
        st = vbt_coll_isend(comm, vbt_coll_at(buf, off, dt), len, dt, (me + mask) % n,
                            VBT_COLL_TAG_BCAST, &reqs[nreq++]);
    }
    st = vbt_coll_finish(reqs, nreq, st);
    if (st != VBT_OK)
        return st;

    /* Allgather: chunk j belongs to the rank numbered j from the root, real rank j + root. */
    counts = malloc(2 * (size_t)n * sizeof(*counts));
    if (counts == NULL)
        return VBT_ERR_NO_MEMORY;
    displs = counts + n;
    for (int r = 0; r < n; r++) {
        int j = (r - root + n) % n;
        chunk_range(bytes, chunk, j, j + 1, &displs[r], &counts[r]);
    }
    st = vbt_coll_ring_allgather(comm, buf, counts, displs, dt, 0, VBT_COLL_TAG_BCAST);
    free(counts);
    return st;
}

vbt_status_t vbt_coll_bcast_scatter_allgather(vbt_comm_t *comm, void *buf, size_t count,
                                              MPI_Datatype dt, int root)
{
    size_t bytes = vbt_coll_bytes(count, dt);
    void *data = vbt_coll_contig_data(buf, dt), *packed = NULL;
    vbt_status_t st = VBT_OK;

    if (comm->size == 1)
        return VBT_OK;
    if (data == NULL) {
        data = packed = vbt_coll_tmp_alloc(bytes, MPI_BYTE);
        if (packed == NULL)
            return VBT_ERR_NO_MEMORY;
        if (comm->rank == root)
            st = vbt_coll_copy(buf, count, dt, packed, bytes, MPI_BYTE);
    }
    if (st == VBT_OK)
        st = scatter_allgather(comm, data, bytes, root);
    if (st == VBT_OK && packed != NULL && comm->rank != root)
        st = vbt_coll_copy(packed, bytes, MPI_BYTE, buf, count, dt);
    vbt_coll_tmp_free(packed, bytes, MPI_BYTE);
    return st;
}
