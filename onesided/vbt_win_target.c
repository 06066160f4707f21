/* The target side of the active-message protocol: the progress hook takes every request
 * queued for a window, receives it whole (its size is known from the queue), and applies the
 * requests one at a time, in arrival order. One at a time is what makes an accumulate atomic
 * per basic element against every other accumulate to the window (with, where on-node origins
 * update this memory directly, the segment's lock: vbt_win_apply_served), and arrival order (MPI's
 * non-overtaking rule on one communicator and tag) is what keeps one origin's accumulates to
 * a location in program order. A request received after its predecessors but still arriving
 * (a large put's rendezvous) holds back the ones behind it until it is complete. */
#include "vbt_log.h"
#include "vbt_win_int.h"

#include <stdlib.h>
#include <string.h>

static void note_target_error(vbt_win_t *w, int origin, int kind, uint64_t disp, uint64_t len)
{
    if (w->errors[origin] != 0)
        return;
    w->errors[origin] = MPI_ERR_RMA_RANGE;
    w->err_disp[origin] = disp;
    w->err_len[origin] = len;
    (void)kind;
}

vbt_status_t vbt_win_answer(vbt_win_t *w, int origin, uint32_t tag)
{
    vbt_win_ack_t *a = vbt_win_pool_get(w, sizeof(*a));

    if (a == NULL)
        return VBT_ERR_NO_MEMORY;
    *a = (vbt_win_ack_t){.err = w->errors[origin],
                         .kind = 0,
                         .disp = w->err_disp[origin],
                         .len = w->err_len[origin]};
    w->errors[origin] = 0;
    return vbt_win_send(w, origin, (int)tag, a, sizeof(*a));
}

/* The lowest and highest byte count elements of a layout touch, relative to the first
 * element's address. */
static void layout_span(const vbt_win_wblock_t *b, uint64_t nb, uint64_t count, int64_t extent,
                        int64_t *lo_p, int64_t *hi_p)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;

    for (uint64_t i = 0; i < nb; i++) {
        if (b[i].off < lo)
            lo = b[i].off;
        if (b[i].off + (int64_t)b[i].len > hi)
            hi = b[i].off + (int64_t)b[i].len;
    }
    if (nb == 0 || count == 0) {
        *lo_p = *hi_p = 0;
        return;
    }
    int64_t last = (int64_t)(count - 1) * extent;
    *lo_p = last < 0 ? lo + last : lo;
    *hi_p = last > 0 ? hi + last : hi;
}

/* Copy between the window (count elements of the layout at addr) and packed bytes. */
static void scatter(char *addr, const vbt_win_wblock_t *b, uint64_t nb, uint64_t count,
                    int64_t extent, const char *in)
{
    for (uint64_t i = 0; i < count; i++)
        for (uint64_t k = 0; k < nb; k++) {
            memcpy(addr + (int64_t)i * extent + b[k].off, in, b[k].len);
            in += b[k].len;
        }
}

static void gather(const char *addr, const vbt_win_wblock_t *b, uint64_t nb, uint64_t count,
                   int64_t extent, char *out)
{
    for (uint64_t i = 0; i < count; i++)
        for (uint64_t k = 0; k < nb; k++) {
            memcpy(out, addr + (int64_t)i * extent + b[k].off, b[k].len);
            out += b[k].len;
        }
}

/* target[e] = in[e] op target[e] for every basic element of the layout, in packed order. */
static void accumulate(char *addr, const vbt_win_wblock_t *b, uint64_t nb, uint64_t count,
                       int64_t extent, const char *in, const vbt_op_t *op, MPI_Datatype basic)
{
    const vbt_dtype_t *bt = vbt_dtype_get(basic);
    size_t bsize = bt->size;

    if (bt->contig) { /* the common case: each block is an array of the basic type */
        for (uint64_t i = 0; i < count; i++)
            for (uint64_t k = 0; k < nb; k++) {
                vbt_op_apply(op, in, addr + (int64_t)i * extent + b[k].off, b[k].len / bsize,
                             basic);
                in += b[k].len;
            }
        return;
    }
    /* A padded pair type (MPI_SHORT_INT...): the kernels want its elements as laid out in
     * memory, so expand both operands from their packed form, combine, and pack back. */
    size_t n = 0, packed;
    for (uint64_t k = 0; k < nb; k++)
        n += b[k].len;
    packed = n * count;
    n = packed / bsize;
    char *tmp = malloc(packed), *x = malloc(n * (size_t)bt->extent),
         *y = malloc(n * (size_t)bt->extent);
    if (tmp == NULL || x == NULL || y == NULL) {
        vbt_error("no memory to accumulate %zu elements of a pair type", n);
        free(tmp);
        free(x);
        free(y);
        return;
    }
    gather(addr, b, nb, count, extent, tmp);
    vbt_dtype_unpack(bt, x, n, 0, in, packed);
    vbt_dtype_unpack(bt, y, n, 0, tmp, packed);
    vbt_op_apply(op, x, y, n, basic);
    vbt_dtype_pack(bt, y, n, 0, tmp, packed);
    scatter(addr, b, nb, count, extent, tmp);
    free(tmp);
    free(x);
    free(y);
}

static void reply(vbt_win_t *w, int origin, uint32_t tag, void *buf, size_t len)
{
    vbt_status_t st = vbt_win_send(w, origin, (int)tag, buf, len);

    if (st != VBT_OK)
        vbt_error("%s: cannot answer rank %d: %s", w->name, origin, vbt_status_string(st));
}

int vbt_win_apply(vbt_win_t *w, char *base, uint64_t size, const vbt_win_req_t *h,
                  const vbt_win_wblock_t *b, const char *data, void **out_p, size_t *outlen_p)
{
    int64_t lo, hi;
    uint64_t tsize = h->count * h->size;
    char *addr, *out = NULL;
    int ok;
    const vbt_op_t *op = NULL;
    MPI_Datatype basic = (MPI_Datatype)(uintptr_t)h->basic;

    *out_p = NULL;
    *outlen_p = 0;
    layout_span(b, h->nblocks, h->count, h->extent, &lo, &hi);
    if (base == NULL) { /* dynamic: an address, inside an attached region */
        addr = (char *)(uintptr_t)h->disp;
        ok = vbt_win_region_covers(w, (uintptr_t)h->disp + (uintptr_t)lo, (size_t)(hi - lo));
    } else {
        addr = base + h->disp;
        ok = (int64_t)h->disp + lo >= 0 && (uint64_t)((int64_t)h->disp + hi) <= size;
    }
    if (!ok)
        return MPI_ERR_RMA_RANGE;
    if (h->kind == VBT_WIN_ACC || h->kind == VBT_WIN_GET_ACC || h->kind == VBT_WIN_CAS) {
        op = vbt_op_get((MPI_Op)(uintptr_t)h->op);
        if (op == NULL || !vbt_op_is_predefined(op) || vbt_dtype_get(basic) == NULL ||
            vbt_op_check(op, basic, NULL) != VBT_OK) {
            vbt_error("%s: an accumulate with an invalid op or datatype; dropped", w->name);
            return MPI_ERR_OP;
        }
    }
    if (tsize == 0)
        return MPI_SUCCESS;
    if (h->kind == VBT_WIN_GET || h->kind == VBT_WIN_GET_ACC || h->kind == VBT_WIN_CAS) {
        out = vbt_win_pool_get(w, h->kind == VBT_WIN_CAS ? h->size : tsize);
        if (out == NULL) {
            vbt_error("%s: no memory for %llu bytes of results", w->name,
                      (unsigned long long)tsize);
            return MPI_ERR_NO_MEM;
        }
    }
    switch (h->kind) {
    case VBT_WIN_PUT:
        scatter(addr, b, h->nblocks, h->count, h->extent, data);
        break;
    case VBT_WIN_ACC:
        accumulate(addr, b, h->nblocks, h->count, h->extent, data, op, basic);
        break;
    case VBT_WIN_GET:
    case VBT_WIN_GET_ACC:
        gather(addr, b, h->nblocks, h->count, h->extent, out);
        if (h->kind == VBT_WIN_GET_ACC && h->datalen > 0)
            accumulate(addr, b, h->nblocks, h->count, h->extent, data, op, basic);
        *outlen_p = tsize;
        break;
    case VBT_WIN_CAS:
        memcpy(out, addr, h->size);
        if (memcmp(addr, data, h->size) == 0)
            memcpy(addr, data + h->size, h->size);
        *outlen_p = h->size;
        break;
    }
    *out_p = out;
    return MPI_SUCCESS;
}

static void serve_access(vbt_win_t *w, int origin, const vbt_win_req_t *h,
                         const vbt_win_wblock_t *b, const char *data)
{
    int fetch = h->kind == VBT_WIN_GET || h->kind == VBT_WIN_GET_ACC || h->kind == VBT_WIN_CAS;
    void *out;
    size_t outlen;
    int rc = vbt_win_apply_served(w, w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : (char *)w->base,
                                  w->win_size, h, b, data, &out, &outlen);

    if (rc == MPI_ERR_RMA_RANGE) {
        int64_t lo, hi;
        layout_span(b, h->nblocks, h->count, h->extent, &lo, &hi);
        note_target_error(w, origin, h->kind, h->disp + (uint64_t)lo, (uint64_t)(hi - lo));
    }
    if (fetch) /* the origin waits for its results (an empty answer after an error) */
        reply(w, origin, h->reply_tag, out, outlen);
}

/* One request, checked against its length before anything in it is used. */
static void serve_one(vbt_win_t *w, int origin, const char *buf, size_t len)
{
    const vbt_win_req_t *h = (const vbt_win_req_t *)buf;
    const vbt_win_wblock_t *b;
    vbt_status_t st = VBT_OK;

    if (len < sizeof(*h) || h->version != VBT_WIN_WIRE_VERSION || origin < 0 || origin >= w->size ||
        h->nblocks > (len - sizeof(*h)) / sizeof(*b) ||
        h->datalen != len - sizeof(*h) - h->nblocks * sizeof(*b)) {
        vbt_error("%s: a malformed one-sided request (%zu bytes) from rank %d; dropped", w->name,
                  len, origin);
        return;
    }
    b = (const vbt_win_wblock_t *)(h + 1);
    switch (h->kind) {
    case VBT_WIN_FLUSH:
        st = vbt_win_answer(w, origin, h->reply_tag);
        break;
    case VBT_WIN_LOCK:
        st = vbt_win_lock_request(w, origin, h->arg, h->reply_tag);
        break;
    case VBT_WIN_UNLOCK:
        st = vbt_win_lock_release(w, origin);
        if (st == VBT_OK)
            st = vbt_win_answer(w, origin, h->reply_tag);
        break;
    case VBT_WIN_COMPLETE:
        w->pscw_done++;
        break;
    case VBT_WIN_PUT:
    case VBT_WIN_GET:
    case VBT_WIN_ACC:
    case VBT_WIN_GET_ACC:
    case VBT_WIN_CAS: {
        uint64_t tsize = h->count * h->size;
        uint64_t want = h->kind == VBT_WIN_GET ? 0 : h->kind == VBT_WIN_CAS ? 2 * h->size : tsize;
        if ((h->kind == VBT_WIN_GET_ACC && h->datalen == 0) || h->datalen == want) {
            serve_access(w, origin, h, b, (const char *)(b + h->nblocks));
            break;
        }
        vbt_error("%s: rank %d's request carries %llu bytes of data for %llu; dropped", w->name,
                  origin, (unsigned long long)h->datalen, (unsigned long long)want);
        break;
    }
    default:
        vbt_error("%s: unknown one-sided request kind %u from rank %d; dropped", w->name, h->kind,
                  origin);
    }
    if (st != VBT_OK)
        vbt_error("%s: serving rank %d: %s", w->name, origin, vbt_status_string(st));
}

/* An inbox entry and its buffer are one block of the window's pool; the buffer starts 16-byte
 * aligned, as malloc's did, for the accumulate kernels reading data in it. */
#define VBT_WIN_INBOX_HDR ((sizeof(vbt_win_inbox_t) + 15) / 16 * 16)

/* Take the first request that arrived and start receiving it whole: 1, or 0 when there is none
 * (or no memory: then it stays queued for a later try). */
static int take(vbt_win_t *w)
{
    vbt_match_queue_t *q = &w->comm->match[VBT_CTX_P2P];
    vbt_unexp_t *msg;
    vbt_win_inbox_t *in;
    vbt_status_t st;

    if (q->unexp_head == NULL)
        return 0;
    msg = vbt_match_find_unexpected(q, -1, VBT_WIN_TAG_REQ, 0);
    if (msg == NULL)
        return 0;
    /* Memory first, then take it. */
    in = vbt_win_pool_get(w, VBT_WIN_INBOX_HDR + msg->len);
    if (in == NULL)
        return 0;
    msg = vbt_match_find_unexpected(q, -1, VBT_WIN_TAG_REQ, 1); /* the same, first one */
    in->buf = (char *)in + VBT_WIN_INBOX_HDR;
    in->len = msg->len;
    in->src = msg->src;
    in->next = NULL;
    st = vbt_p2p_imrecv(w->comm, msg, in->buf, in->len, &in->req);
    if (st != VBT_OK) {
        vbt_error("%s: receiving a one-sided request from rank %d: %s; dropped", w->name, in->src,
                  vbt_status_string(st));
        vbt_win_pool_put(w, in, VBT_WIN_INBOX_HDR + in->len);
        return 0;
    }
    if (w->inbox_tail != NULL)
        w->inbox_tail->next = in;
    else
        w->inbox_head = in;
    w->inbox_tail = in;
    return 1;
}

/* Serve the requests received whole at the head of the inbox: how many. */
static int serve_ready(vbt_win_t *w)
{
    int work = 0;

    while (w->inbox_head != NULL && w->inbox_head->req->complete) {
        vbt_win_inbox_t *in = w->inbox_head;
        w->inbox_head = in->next;
        if (w->inbox_head == NULL)
            w->inbox_tail = NULL;
        serve_one(w, in->src, in->buf, in->req->status_bytes);
        vbt_request_release(in->req);
        vbt_win_pool_put(w, in, VBT_WIN_INBOX_HDR + in->len);
        work++;
    }
    return work;
}

static int serve(vbt_win_t *w)
{
    int work = 0;

    if (w->pending != NULL || w->sendq_head != NULL)
        vbt_win_reap(w);
    /* Each request is served as soon as it and all before it are whole, so a flood of eager
     * requests holds one buffer at a time rather than one per request queued. */
    for (;;) {
        work += serve_ready(w);
        if (!take(w))
            break;
        work++;
    }
    return work;
}

int vbt_win_progress(void *arg)
{
    int work = 0;

    (void)arg;
    for (vbt_win_t *w = vbt_win_list; w != NULL; w = w->next)
        if (w->magic == VBT_WIN_MAGIC)
            work += serve(w);
    return work;
}
