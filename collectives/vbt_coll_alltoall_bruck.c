/* Bruck's alltoall: after a local rotation (slot i holds the block for rank me + i), round k
 * sends every slot whose index has bit k set to rank me + 2^k, packed into one message, and
 * takes the same slots from me - 2^k; a block thus travels its index in ceil(log2 n) hops, and
 * a final rotation puts each where it belongs. log2 n messages of n/2 blocks instead of n - 1
 * messages: the choice for very short blocks on larger groups. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_alltoall_bruck(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                     MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt)
{
    int n = comm->size, me = comm->rank;
    size_t half = (size_t)(n + 1) / 2 * rcount;
    void *tmp, *spack = NULL, *rpack = NULL;
    vbt_status_t st = VBT_OK;

    tmp = vbt_coll_tmp_alloc((size_t)n * rcount, rdt);
    if (tmp == NULL)
        return VBT_ERR_NO_MEMORY;
    spack = vbt_coll_tmp_alloc(half, rdt);
    rpack = vbt_coll_tmp_alloc(half, rdt);
    if (spack == NULL || rpack == NULL) {
        st = VBT_ERR_NO_MEMORY;
        goto out;
    }
    for (int i = 0; i < n && st == VBT_OK; i++)
        st = vbt_coll_copy(vbt_coll_at(sbuf, (size_t)((me + i) % n) * scount, sdt), scount, sdt,
                           vbt_coll_at(tmp, (size_t)i * rcount, rdt), rcount, rdt);

    for (int dist = 1; dist < n && st == VBT_OK; dist <<= 1) {
        size_t k = 0;

        for (int i = 0; i < n; i++) {
            if (i & dist)
                vbt_coll_copy(vbt_coll_at(tmp, (size_t)i * rcount, rdt), rcount, rdt,
                              vbt_coll_at(spack, k++ * rcount, rdt), rcount, rdt);
        }
        st = vbt_coll_sendrecv(comm, spack, k * rcount, rdt, (me + dist) % n, rpack, k * rcount,
                               rdt, (me - dist + n) % n, VBT_COLL_TAG_ALLTOALL);
        k = 0;
        for (int i = 0; i < n && st == VBT_OK; i++) {
            if (i & dist)
                vbt_coll_copy(vbt_coll_at(rpack, k++ * rcount, rdt), rcount, rdt,
                              vbt_coll_at(tmp, (size_t)i * rcount, rdt), rcount, rdt);
        }
    }
    /* Slot i now holds the block that rank me - i sent us. */
    for (int i = 0; i < n && st == VBT_OK; i++)
        st =
            vbt_coll_copy(vbt_coll_at(tmp, (size_t)i * rcount, rdt), rcount, rdt,
                          vbt_coll_at(rbuf, (size_t)((me - i + n) % n) * rcount, rdt), rcount, rdt);
out:
    vbt_coll_tmp_free(rpack, half, rdt);
    vbt_coll_tmp_free(spack, half, rdt);
    vbt_coll_tmp_free(tmp, (size_t)n * rcount, rdt);
    return st;
}
