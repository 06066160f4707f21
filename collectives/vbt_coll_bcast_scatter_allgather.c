/* Scatter-allgather broadcast (van de Geijn): the message is cut into n chunks of
 * ceil(bytes / n) bytes; a binomial scatter gives rank v (numbered from the root) chunk v,
 * then a ring allgather gives every rank every chunk. About 2 (n-1)/n of the message crosses
 * each link instead of log2 n whole copies: the choice for long messages on larger groups.
 *
 * Chunks are cut in bytes of the packed message, not in elements: ranks may describe the same
 * data with different datatypes (only the type signature must match the root's), so their
 * elements need not line up. A rank whose datatype is contiguous works in its own buffer;
 * others pack (the root) or unpack (the rest) once around the exchange.
 *
 * Written once as a schedule (vbt_sched.h), for MPI_Bcast, MPI_Ibcast and MPI_Bcast_init. */
#include "vbt_sched.h"

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
static vbt_status_t build(vbt_sched_t *s, vbt_comm_t *c, char *buf, size_t bytes, int root)
{
    int n = c->size, me = c->rank, vr = (me - root + n) % n, mask = 1;
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    size_t chunk = (bytes + (size_t)n - 1) / (size_t)n, off, len, soff, slen;
    vbt_status_t st;

    /* Scatter: rank v receives chunks [v, v + lowbit(v)) from v - lowbit(v), then hands the
     * upper parts of that range on to v + lowbit(v) / 2, v + lowbit(v) / 4, ... */
    while (mask < n) {
        if (vr & mask) {
            chunk_range(bytes, chunk, vr, vr + mask < n ? vr + mask : n, &off, &len);
            st = vbt_sched_recv(s, buf + off, len, MPI_BYTE, (me - mask + n) % n);
            if (st != VBT_OK)
                return st;
            vbt_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= n)
            continue;
        chunk_range(bytes, chunk, vr + mask, vr + 2 * mask < n ? vr + 2 * mask : n, &off, &len);
        st = vbt_sched_send(s, buf + off, len, MPI_BYTE, (me + mask) % n);
        if (st != VBT_OK)
            return st;
    }
    vbt_sched_round(s);

    /* Ring allgather of the chunks, numbered from the root: round k forwards chunk vr - k
     * (ours at k = 0, then the one just received). */
    for (int k = 0; k < n - 1; k++) {
        chunk_range(bytes, chunk, (vr - k - 1 + n) % n, (vr - k - 1 + n) % n + 1, &off, &len);
        chunk_range(bytes, chunk, (vr - k + n) % n, (vr - k + n) % n + 1, &soff, &slen);
        if ((st = vbt_sched_recv(s, buf + off, len, MPI_BYTE, left)) != VBT_OK ||
            (st = vbt_sched_send(s, buf + soff, slen, MPI_BYTE, right)) != VBT_OK)
            return st;
        vbt_sched_round(s);
    }
    return VBT_OK;
}

vbt_status_t vbt_sched_bcast_scatter_allgather(vbt_sched_t *s, vbt_comm_t *c, void *buf,
                                               size_t count, MPI_Datatype dt, int root)
{
    size_t bytes = vbt_coll_bytes(count, dt);
    char *data = vbt_coll_contig_data(buf, dt);
    vbt_status_t st;

    if (c->size == 1)
        return VBT_OK;
    if (data != NULL)
        return build(s, c, data, bytes, root);
    data = vbt_sched_tmp(s, bytes, MPI_BYTE);
    if (data == NULL)
        return VBT_ERR_NO_MEMORY;
    if (c->rank == root) {
        if ((st = vbt_sched_copy(s, buf, count, dt, data, bytes, MPI_BYTE)) != VBT_OK)
            return st;
        vbt_sched_round(s);
    }
    if ((st = build(s, c, data, bytes, root)) != VBT_OK)
        return st;
    if (c->rank != root)
        return vbt_sched_copy(s, data, bytes, MPI_BYTE, buf, count, dt);
    return VBT_OK;
}
