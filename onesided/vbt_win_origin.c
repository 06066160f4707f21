/* The origin side of the operations. Each is one request message: the header, the target
 * datatype flattened (its blocks), and for puts and accumulates the origin's data packed, so
 * the origin's buffer is reusable as soon as the call returns (local completion is immediate
 * for them). Fetching operations pre-post a receive of the target's answer straight into the
 * origin's result buffer with its datatype, under a reply tag of their own; that receive is the
 * request MPI_Rget & co return. Deviation from the two-message put (header, then the data
 * received in place): one message keeps every request in one ordered stream served whole, at
 * the price of a copy at each end. Targets whose memory is in the origin's shared segment
 * (shared windows; allocate windows on one node) take the direct path instead (vbt_win_shm.c):
 * the same request is applied by the origin itself to the target's memory. */
#include "vbt_win_int.h"

#include <stdlib.h>
#include <string.h>

int vbt_win_can_access(const vbt_win_t *w, int target)
{
    return w->fence_open || w->lock_all || w->tgt[target].lock != 0 || w->tgt[target].in_start;
}

int vbt_win_in_passive(const vbt_win_t *w, int target)
{
    return w->lock_all || w->tgt[target].lock != 0;
}

static vbt_status_t post_result(vbt_win_t *w, const vbt_win_op_t *op, uint32_t tag,
                                vbt_request_t **rreq_p)
{
    vbt_dtype_t *t = op->rtype;
    size_t bytes = op->rcount * t->size;

    if (t->contig)
        return vbt_p2p_irecv(w->comm, VBT_CTX_P2P, (char *)op->rbuf + t->true_lb, bytes, op->target,
                             (int)tag, rreq_p);
    return vbt_p2p_irecv_dt(w->comm, VBT_CTX_P2P, op->rbuf, bytes, t, op->rcount, op->target,
                            (int)tag, rreq_p);
}

/* A contiguous put or get to memory this process maps (our own window, a target in our
 * segment): one copy between the origin's buffer and it (no request, no packing), complete on
 * return. 0: not such an operation, or memory only the target can check (our dynamic window
 * outside what is attached: a message to ourselves reports the error). */
static int local_copy(vbt_win_t *w, const vbt_win_op_t *op)
{
    int get = op->kind == VBT_WIN_GET;
    const vbt_dtype_t *lt = get ? op->rtype : op->otype;
    size_t bytes = op->tcount * op->ttype->size;
    char *mine, *theirs;

    if ((op->kind != VBT_WIN_PUT && !get) || !op->ttype->contig || !lt->contig)
        return 0;
    if (vbt_win_direct(w, op->target))
        theirs = (char *)w->seg + w->seg_off[op->target];
    else if (op->target == w->rank)
        theirs = (char *)(uintptr_t)w->peers[op->target].base;
    else
        return 0;
    theirs += op->tdisp + op->ttype->true_lb;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC && !vbt_win_region_covers(w, (uintptr_t)theirs, bytes))
        return 0;
    mine = (char *)(get ? op->rbuf : (void *)(uintptr_t)op->obuf) + lt->true_lb;
    if (bytes > 0)
        memmove(get ? mine : theirs, get ? theirs : mine, bytes);
    return 1;
}

vbt_status_t vbt_win_op_start(vbt_win_t *w, const vbt_win_op_t *op, vbt_request_t **req_p)
{
    vbt_dtype_t *tt = op->ttype;
    int fetch = op->kind == VBT_WIN_GET || op->kind == VBT_WIN_GET_ACC || op->kind == VBT_WIN_CAS;
    /* A contiguous target is described as one element of one block, so the target copies it
     * with one memcpy and applies an accumulate in one call. */
    int tcontig = tt->contig;
    size_t nb = tcontig ? 1 : tt->nblocks, datalen = 0, len;
    vbt_request_t *rreq = NULL;
    vbt_win_req_t *h;
    vbt_win_wblock_t *b;
    vbt_status_t st;
    uint32_t tag = 0;

    /* The NIC's accumulates first: on a window with NIC atomics they go through the target's
     * NIC whatever path its other operations take, the direct one included (atomicity). */
    if (w->nic_atomics && vbt_win_atomic_start(w, op, req_p, &st))
        return st;
    if (local_copy(w, op)) {
        w->fence_ops++;
        if (req_p != NULL && (*req_p = vbt_win_request_new(w, 1)) == NULL)
            return VBT_ERR_NO_MEMORY;
        return VBT_OK;
    }
    if (w->rma != NULL && !vbt_win_direct(w, op->target) && vbt_win_rma_start(w, op, req_p, &st))
        return st;
    if (w->nic_atomics && op->kind >= VBT_WIN_ACC) {
        /* An accumulate message after atomics to the same target: they are done first, so
         * the two paths keep one origin's accumulates in program order. */
        if (w->tgt[op->target].rma_out > 0) {
            st = vbt_win_wait_results(w, op->target);
            if (st != VBT_OK)
                return st;
        }
        w->tgt[op->target].acc_msgs = 1;
    }
    if (op->kind == VBT_WIN_PUT || op->kind == VBT_WIN_ACC ||
        (op->kind == VBT_WIN_GET_ACC && op->op != MPI_NO_OP))
        datalen = op->ocount * op->otype->size;
    else if (op->kind == VBT_WIN_CAS)
        datalen = 2 * tt->size;
    len = sizeof(*h) + nb * sizeof(*b) + datalen;
    h = vbt_win_pool_get(w, len);
    if (h == NULL)
        return VBT_ERR_NO_MEMORY;
    b = (vbt_win_wblock_t *)(h + 1);
    if (fetch && !vbt_win_direct(w, op->target)) {
        tag = vbt_win_reply_tag(w);
        st = post_result(w, op, tag, &rreq);
        if (st == VBT_OK)
            st = vbt_win_track(w, rreq, op->target, req_p == NULL);
        if (st != VBT_OK) {
            vbt_win_pool_put(w, h, len);
            return st;
        }
    }
    *h = (vbt_win_req_t){.version = VBT_WIN_WIRE_VERSION,
                         .kind = (uint8_t)op->kind,
                         .reply_tag = tag,
                         .disp = op->tdisp,
                         .count = tcontig ? 1 : op->tcount,
                         .extent = tcontig ? (int64_t)(op->tcount * tt->size) : tt->extent,
                         .size = tcontig ? op->tcount * tt->size : tt->size,
                         .nblocks = nb,
                         .op = (uint64_t)(uintptr_t)op->op,
                         .basic = (uint64_t)(uintptr_t)tt->basic,
                         .datalen = datalen};
    if (tcontig)
        b[0] = (vbt_win_wblock_t){.off = tt->true_lb, .len = op->tcount * tt->size};
    else
        for (size_t i = 0; i < nb; i++)
            b[i] = (vbt_win_wblock_t){.off = tt->blocks[i].off, .len = tt->blocks[i].len};
    if (op->kind == VBT_WIN_CAS) {
        memcpy(b + nb, op->cbuf, tt->size);
        memcpy((char *)(b + nb) + tt->size, op->obuf, tt->size);
    } else if (datalen > 0 && op->otype->contig) {
        memcpy(b + nb, (const char *)op->obuf + op->otype->true_lb, datalen);
    } else if (datalen > 0) {
        vbt_dtype_pack(op->otype, op->obuf, op->ocount, 0, b + nb, datalen);
    }
    if (vbt_win_direct(w, op->target)) { /* in our segment: done here and now */
        st = vbt_win_shm_apply(w, op->target, h, b, (const char *)(b + nb), op->rbuf, op->rcount,
                               op->rtype);
        vbt_win_pool_put(w, h, len);
        if (st != VBT_OK)
            return st;
        w->fence_ops++;
    } else {
        st = vbt_win_send(w, op->target, VBT_WIN_TAG_REQ, h, len);
        if (st != VBT_OK)
            return st; /* a tracked result receive completes or goes with the window */
        w->tgt[op->target].unflushed = 1;
        w->fence_ops++;
    }
    if (req_p == NULL)
        return VBT_OK;
    if (rreq == NULL) { /* nothing comes back: locally complete already */
        rreq = vbt_win_request_new(w, 1);
        if (rreq == NULL)
            return VBT_ERR_NO_MEMORY;
    }
    *req_p = rreq;
    return VBT_OK;
}

vbt_request_t *vbt_win_request_new(vbt_win_t *w, int complete)
{
    vbt_request_t *r = vbt_request_alloc(VBT_REQ_SEND);

    if (r != NULL) {
        r->comm = w->comm;
        r->complete = (uint8_t)complete;
    }
    return r;
}
