/* The collectives' only contact with datatypes: send, receive, copy and reduce count elements
 * of a datatype at an address, and size temporary buffers (vbt_coll_tmp.c hands them out). Element
 * i of a buffer starts at buf + i * extent and its data lies between true_lb and true_ub from
 * there; contiguous types move as count * size bytes from buf + true_lb, others through the
 * datatype engine (packed on the wire by point-to-point, packed and unpacked here for local copies
 * and reductions). Temporary buffers have the user's layout, so an algorithm treats them and user
 * buffers alike.
 *
 * Any committed type works: the extent may be negative (element i then lies below element 0,
 * so the buffer spans downwards from buf), true_lb may be negative, and elements may have
 * holes or overlap. So every offset is signed, and the bytes a buffer covers are found from its
 * first and last elements (vbt_coll_range), never as count * extent up from buf. Overlapping
 * elements are legal in send buffers only, so an algorithm that would receive into the layout
 * of a send type holds packed bytes (MPI_BYTE) instead: the binomial gather and scatter, and
 * the scatter-allgather broadcast, whose ranks may describe the data with different types. */
#include "vbt_coll_int.h"
#include "vbt_datatype.h"
#include "vbt_log.h"
#include "vbt_p2p.h"
#include "vbt_runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const vbt_dtype_t *type_of(MPI_Datatype dt)
{
    return vbt_dtype_get(dt);
}

void *vbt_coll_at(const void *buf, size_t index, MPI_Datatype dt)
{
    return (char *)(uintptr_t)buf + (MPI_Aint)index * type_of(dt)->extent;
}

void vbt_coll_range(size_t count, MPI_Datatype dt, MPI_Aint *lo_p, MPI_Aint *hi_p)
{
    const vbt_dtype_t *t = type_of(dt);
    /* Where the last element starts: below the first for a negative extent. */
    MPI_Aint last = count > 0 ? (MPI_Aint)(count - 1) * t->extent : 0;

    *lo_p = t->true_lb + (last < 0 ? last : 0);
    *hi_p = count > 0 ? t->true_ub + (last > 0 ? last : 0) : *lo_p;
}

size_t vbt_coll_span(size_t count, MPI_Datatype dt)
{
    MPI_Aint lo, hi;

    vbt_coll_range(count, dt, &lo, &hi);
    return (size_t)(hi - lo);
}

void *vbt_coll_contig_data(const void *buf, MPI_Datatype dt)
{
    const vbt_dtype_t *t = type_of(dt);

    return t->contig ? (char *)(uintptr_t)buf + t->true_lb : NULL;
}

size_t vbt_coll_bytes(size_t count, MPI_Datatype dt)
{
    return count * type_of(dt)->size;
}

vbt_status_t vbt_coll_copy(const void *src, size_t scount, MPI_Datatype sdt, void *dst,
                           size_t rcount, MPI_Datatype rdt)
{
    const vbt_dtype_t *st = type_of(sdt), *rt = type_of(rdt);
    size_t bytes = scount * st->size;
    void *packed;

    if (bytes > rcount * rt->size)
        return VBT_ERR_TRUNCATE;
    if (bytes == 0 || (src == dst && sdt == rdt))
        return VBT_OK;
    if (st->contig && rt->contig) {
        memmove((char *)dst + rt->true_lb, (const char *)src + st->true_lb, bytes);
    } else if (st->contig) {
        vbt_dtype_unpack(rt, dst, rcount, 0, (const char *)src + st->true_lb, bytes);
    } else if (rt->contig) {
        vbt_dtype_pack(st, src, scount, 0, (char *)dst + rt->true_lb, bytes);
    } else {
        packed = malloc(bytes);
        if (packed == NULL) {
            vbt_error("collective: no memory to copy %zu bytes of a non-contiguous datatype",
                      bytes);
            return VBT_ERR_NO_MEMORY;
        }
        vbt_dtype_pack(st, src, scount, 0, packed, bytes);
        vbt_dtype_unpack(rt, dst, rcount, 0, packed, bytes);
        free(packed);
    }
    return VBT_OK;
}

vbt_status_t vbt_coll_reduce_local(const vbt_op_t *op, const void *in, void *inout, size_t count,
                                   MPI_Datatype dt)
{
    if (count == 0)
        return VBT_OK;
    return vbt_op_apply_buffers(op, in, inout, count, dt);
}

vbt_status_t vbt_coll_isend(vbt_comm_t *comm, const void *buf, size_t count, MPI_Datatype dt,
                            int dest, int tag, vbt_request_t **req_p)
{
    vbt_dtype_t *t = vbt_dtype_get(dt);

    *req_p = NULL; /* also when the post fails: callers' request slots need not be cleared */
    if (t->contig) {
        VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
        /* A message that goes eagerly at once is the transport's: no request to allocate, wait
         * on and free (*req_p NULL, which vbt_coll_finish and the schedules skip), as for
         * MPI_Send. An 8-byte rooted collective at 2 ranks is one such message a call. */
        return vbt_p2p_send_held(comm, VBT_CTX_COLL, (const char *)buf + t->true_lb,
                                 count * t->size, NULL, 0, dest, tag, 0, req_p);
    }
    return vbt_p2p_isend_dt(comm, VBT_CTX_COLL, buf, count * t->size, t, count, dest, tag, 0,
                            req_p);
}

vbt_status_t vbt_coll_irecv(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt, int src,
                            int tag, vbt_request_t **req_p)
{
    vbt_dtype_t *t = vbt_dtype_get(dt);
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */

    *req_p = NULL; /* also when the post fails */

    if (t->contig)
        return vbt_p2p_irecv_held(comm, VBT_CTX_COLL, (char *)buf + t->true_lb, count * t->size,
                                  NULL, 0, src, tag, req_p);
    return vbt_p2p_irecv_held(comm, VBT_CTX_COLL, buf, count * t->size, t, count, src, tag, req_p);
}

vbt_status_t vbt_coll_finish(vbt_request_t **reqs, int n, vbt_status_t st)
{
    for (int i = 0; i < n; i++) {
        vbt_request_t *req = reqs[i];
        vbt_status_t s = VBT_OK;

        if (req == NULL)
            continue;
        reqs[i] = NULL;
        if (st != VBT_OK && !req->complete) {
            /* A post failed: peers may never send what we wait for. Cancel our receives;
             * sends finish on their own and free themselves. */
            vbt_p2p_cancel(req);
            if (!req->complete) {
                req->flags |= VBT_REQF_FREED;
                continue;
            }
        }
        if (!req->complete)
            s = vbt_p2p_wait_flag(&req->complete);
        if (s != VBT_OK) {
            /* The transport failed; the request may still be in its hands. */
            req->flags |= VBT_REQF_FREED;
            st = s;
            continue;
        }
        if (req->status_error != MPI_SUCCESS && st == VBT_OK &&
            !(req->flags & VBT_REQF_CANCELLED)) {
            vbt_debug("collective: message from rank %d (tag %d) longer than expected", req->peer,
                      req->tag);
            st = req->status_error == MPI_ERR_TRUNCATE ? VBT_ERR_TRUNCATE : VBT_ERR_IO;
        }
        vbt_request_release(req);
    }
    return st;
}

void *vbt_coll_scratch(void *stack, size_t cap, size_t bytes)
{
    if (bytes <= cap)
        return stack;
    return malloc(bytes);
}

void vbt_coll_scratch_free(void *scratch, void *stack)
{
    if (scratch != stack)
        free(scratch);
}

vbt_status_t vbt_coll_send(vbt_comm_t *comm, const void *buf, size_t count, MPI_Datatype dt,
                           int dest, int tag)
{
    vbt_request_t *req = NULL;
    vbt_status_t st = vbt_coll_isend(comm, buf, count, dt, dest, tag, &req);

    return vbt_coll_finish(&req, 1, st);
}

vbt_status_t vbt_coll_recv(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt, int src,
                           int tag)
{
    vbt_request_t *req = NULL;
    vbt_status_t st = vbt_coll_irecv(comm, buf, count, dt, src, tag, &req);

    return vbt_coll_finish(&req, 1, st);
}

vbt_status_t vbt_coll_sendrecv(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                               int dest, void *rbuf, size_t rcount, MPI_Datatype rdt, int src,
                               int tag)
{
    vbt_request_t *reqs[2] = {NULL, NULL};
    vbt_status_t st;

    st = vbt_coll_irecv(comm, rbuf, rcount, rdt, src, tag, &reqs[0]);
    if (st == VBT_OK)
        st = vbt_coll_isend(comm, sbuf, scount, sdt, dest, tag, &reqs[1]);
    return vbt_coll_finish(reqs, 2, st);
}

void *vbt_coll_vaddr(const vbt_coll_vbuf_t *v, const void *buf, int i)
{
    if (v->dts != NULL)
        return (char *)(uintptr_t)buf + vbt_coll_vec_at(v->displs, i);
    return (char *)(uintptr_t)buf +
           (MPI_Aint)vbt_coll_vec_at(v->displs, i) * type_of(v->dt)->extent;
}

MPI_Datatype vbt_coll_vtype(const vbt_coll_vbuf_t *v, int i)
{
    return v->dts != NULL ? v->dts[i] : v->dt;
}

vbt_status_t vbt_coll_vdup(const vbt_coll_vbuf_t *v, int n, const void *buf, void **copy_p,
                           void **base_p)
{
    const char *lo = NULL, *hi = NULL;
    char *base;

    for (int i = 0; i < n; i++) {
        const char *a = vbt_coll_vaddr(v, buf, i);
        MPI_Aint blo, bhi;

        if (vbt_coll_vec_at(v->counts, i) == 0)
            continue;
        vbt_coll_range((size_t)vbt_coll_vec_at(v->counts, i), vbt_coll_vtype(v, i), &blo, &bhi);
        if (lo == NULL || a + blo < lo)
            lo = a + blo;
        if (hi == NULL || a + bhi > hi)
            hi = a + bhi;
    }
    if (lo == NULL)
        lo = hi = buf;
    base = malloc(hi > lo ? (size_t)(hi - lo) : 1);
    if (base == NULL) {
        vbt_error("collective: no memory for a %zu-byte copy of the buffer", (size_t)(hi - lo));
        return VBT_ERR_NO_MEMORY;
    }
    if (hi > lo)
        memcpy(base, lo, (size_t)(hi - lo));
    /* copy + (x - buf) is base + (x - lo) for every block address x. */
    *copy_p = (void *)((uintptr_t)base - (uintptr_t)lo + (uintptr_t)buf);
    *base_p = base;
    return VBT_OK;
}

int vbt_coll_pof2_floor(int n)
{
    int pof2 = 1;

    while (pof2 * 2 <= n)
        pof2 *= 2;
    return pof2;
}

vbt_status_t vbt_coll_pof2_fold(vbt_comm_t *comm, void *buf, void *tmp, size_t count,
                                MPI_Datatype dt, const vbt_op_t *op, int rem, int tag,
                                int *newrank_p)
{
    int me = comm->rank;
    vbt_status_t st;

    if (me >= 2 * rem) {
        *newrank_p = me - rem;
        return VBT_OK;
    }
    if (me % 2 == 0) {
        st = vbt_coll_send(comm, buf, count, dt, me + 1, tag);
        if (st == VBT_OK)
            *newrank_p = -1;
        return st;
    }
    st = vbt_coll_recv(comm, tmp, count, dt, me - 1, tag);
    if (st == VBT_OK) /* rank me - 1 is the left operand */
        st = vbt_coll_reduce_local(op, tmp, buf, count, dt);
    if (st == VBT_OK)
        *newrank_p = me / 2;
    return st;
}

int vbt_coll_pof2_rank(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

vbt_status_t vbt_coll_pof2_unfold(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt,
                                  int rem, int tag)
{
    int me = comm->rank;

    if (me >= 2 * rem)
        return VBT_OK;
    if (me % 2)
        return vbt_coll_send(comm, buf, count, dt, me - 1, tag);
    return vbt_coll_recv(comm, buf, count, dt, me + 1, tag);
}
