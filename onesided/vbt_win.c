/* The window object: creation in every flavor, the registry of live windows, MPI_Win_free, and
 * the bookkeeping of what a window has in flight (sends, awaited results). */
#include "vbt_attr.h"
#include "vbt_coll.h"
#include "vbt_errhandler.h"
#include "vbt_info.h"
#include "vbt_log.h"
#include "vbt_win_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vbt_win_t *vbt_win_list;

void vbt_win_hook_update(void)
{
    vbt_p2p_set_hook(vbt_win_list != NULL ? vbt_win_progress : NULL, NULL);
}

static void win_destroy(vbt_win_t *w)
{
    for (vbt_win_t **pp = &vbt_win_list; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    }
    vbt_win_hook_update();
    while (w->pending != NULL) {
        vbt_win_pending_t *p = w->pending;
        w->pending = p->next;
        free(p);
    }
    while (w->sendq_head != NULL) {
        vbt_win_pending_t *p = w->sendq_head;
        w->sendq_head = p->next;
        free(p->buf);
        free(p);
    }
    while (w->regions != NULL) {
        vbt_win_region_t *r = w->regions;
        w->regions = r->next;
        free(r);
    }
    while (w->lockq != NULL) {
        vbt_win_lockq_t *q = w->lockq;
        w->lockq = q->next;
        free(q);
    }
    if (w->rma != NULL)
        vbt_win_rma_destroy(w);
    if (w->seg != NULL)
        vbt_win_shm_destroy(w);
    if (w->own_base)
        free(w->base);
    if (w->start_group != NULL)
        vbt_group_release(w->start_group);
    if (w->post_group != NULL)
        vbt_group_release(w->post_group);
    vbt_errhandler_release(w->errhandler);
    vbt_info_release(w->hints);
    free(w->peers);
    free(w->tgt);
    free(w->errors);
    free(w->err_disp);
    free(w->err_len);
    vbt_win_pool_destroy(w);
    w->magic = 0;
    free(w);
}

vbt_status_t vbt_win_create(vbt_comm_t *comm, int flavor, void *base, size_t size, int disp_unit,
                            void **base_p, vbt_win_t **win_p)
{
    vbt_win_t *w = calloc(1, sizeof(*w));
    vbt_win_peer_t me;
    vbt_status_t st;
    int n;

    if (w == NULL)
        return VBT_ERR_NO_MEMORY;
    /* Creation is collective: the private communicator first (every rank takes part even if
     * it is short of memory below; the allgather then tells every rank that one failed). */
    st = vbt_comm_create(comm, comm->group, &w->comm);
    if (st != VBT_OK) {
        free(w);
        return st;
    }
    n = w->comm->size;
    w->magic = VBT_WIN_MAGIC;
    w->flavor = flavor;
    w->rank = w->comm->rank;
    w->size = n;
    w->disp_unit = disp_unit;
    w->win_size = size;
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->attr_model = MPI_WIN_UNIFIED;
    w->attr_flavor = flavor;
    /* For the messages of creation already. Cut to fit: the communicator's name may take the
     * whole buffer itself. */
    snprintf(w->name, sizeof(w->name), "window %u of %.100s", w->comm->context_id / 2, comm->name);
    w->peers = calloc((size_t)n, sizeof(*w->peers));
    w->tgt = calloc((size_t)n, sizeof(*w->tgt));
    w->errors = calloc((size_t)n, sizeof(*w->errors));
    w->err_disp = calloc((size_t)n, sizeof(*w->err_disp));
    w->err_len = calloc((size_t)n, sizeof(*w->err_len));
    st =
        (w->peers && w->tgt && w->errors && w->err_disp && w->err_len) ? VBT_OK : VBT_ERR_NO_MEMORY;
    w->next = vbt_win_list; /* listed at once: a peer's first request may come before we return */
    vbt_win_list = w;
    vbt_win_hook_update();
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
        /* Collective: a rank that failed above takes part with nothing to share. */
        vbt_status_t s2 = vbt_win_shm_create(w, st == VBT_OK ? size : 0);
        if (st == VBT_OK)
            st = s2;
        base = w->base;
    }
    if (st == VBT_OK && flavor == MPI_WIN_FLAVOR_ALLOCATE && w->seg == NULL) {
        /* Memory of our own, aligned for any type and for a later registration. */
        if (size > 0 && posix_memalign(&base, 64, size) != 0)
            st = VBT_ERR_NO_MEMORY;
        w->own_base = size > 0 && st == VBT_OK;
    }
    w->base = base;
    me = (vbt_win_peer_t){
        .base = (uint64_t)(uintptr_t)base, .size = size, .disp_unit = disp_unit, .pad = st};
    if (st == VBT_OK && w->peers != NULL) {
        st = vbt_win_rma_register(w, &me);
        me.pad = st;
    }
    if (w->peers == NULL) { /* still take part in the allgather */
        vbt_win_peer_t *tmp = calloc((size_t)n, sizeof(*tmp));
        if (tmp != NULL)
            vbt_coll_allgather(w->comm, &me, sizeof(me), MPI_BYTE, tmp, sizeof(me), MPI_BYTE);
        free(tmp);
        win_destroy(w);
        return VBT_ERR_NO_MEMORY;
    }
    vbt_status_t s3 =
        vbt_coll_allgather(w->comm, &me, sizeof(me), MPI_BYTE, w->peers, sizeof(me), MPI_BYTE);
    if (s3 != VBT_OK && st == VBT_OK)
        st = s3;
    for (int r = 0; r < n && st == VBT_OK && s3 == VBT_OK; r++)
        if (w->peers[r].pad != VBT_OK)
            st = (vbt_status_t)w->peers[r].pad; /* the same verdict on every rank */
    if (st != VBT_OK) {
        vbt_comm_free(w->comm);
        win_destroy(w);
        return st;
    }
    vbt_win_rma_connect(w);
    w->attr_size = (MPI_Aint)size;
    w->attr_disp_unit = disp_unit;
    if (base_p != NULL)
        *base_p = base;
    *win_p = w;
    return VBT_OK;
}

vbt_status_t vbt_win_free(vbt_win_t *w)
{
    vbt_status_t st;
    uint8_t *want = vbt_win_want(w);

    if (want == NULL)
        return VBT_ERR_NO_MEMORY;
    /* Everything this rank issued is complete at its target before anyone leaves the barrier,
     * so after it no request for this window is on its way to us. */
    for (int t = 0; t < w->size; t++)
        want[t] = w->tgt[t].unflushed;
    st = vbt_win_flush_targets(w, want, -1, VBT_WIN_FLUSH);
    if (st == VBT_OK)
        st = vbt_coll_barrier(w->comm);
    if (st == VBT_OK)
        st = vbt_win_wait_idle(w);
    if (st != VBT_OK)
        return st;
    w->magic = 0; /* the handle is invalid from here on */
    vbt_comm_free(w->comm);
    win_destroy(w);
    return VBT_OK;
}

void vbt_win_cleanup(void)
{
    while (vbt_win_list != NULL) {
        vbt_win_t *w = vbt_win_list;
        vbt_attr_list_delete_quiet(&w->attrs);
        win_destroy(w);
    }
}

vbt_status_t vbt_win_send(vbt_win_t *win, int rank, int tag, void *buf, size_t len)
{
    vbt_request_t *req;
    vbt_win_pending_t *p;
    vbt_status_t st = vbt_p2p_isend(win->comm, VBT_CTX_P2P, buf, len, rank, tag, 0, &req);

    if (st != VBT_OK) {
        vbt_win_pool_put(win, buf, len);
        return st;
    }
    if (req->complete) { /* eager: the transport has its copy */
        vbt_request_release(req);
        vbt_win_pool_put(win, buf, len);
        return VBT_OK;
    }
    p = vbt_win_pool_get(win, sizeof(*p));
    if (p == NULL) { /* rare: finish this one here */
        st = vbt_win_wait_req(req);
        vbt_win_pool_put(win, buf, len);
        return st;
    }
    *p = (vbt_win_pending_t){.next = NULL, .req = req, .buf = buf, .len = len, .target = -1};
    if (win->sendq_tail != NULL)
        win->sendq_tail->next = p;
    else
        win->sendq_head = p;
    win->sendq_tail = p;
    return VBT_OK;
}

vbt_status_t vbt_win_send_ctrl(vbt_win_t *win, int rank, int kind, int arg, uint32_t reply_tag)
{
    vbt_win_req_t *h = vbt_win_pool_get(win, sizeof(*h));

    if (h == NULL)
        return VBT_ERR_NO_MEMORY;
    memset(h, 0, sizeof(*h));
    h->version = VBT_WIN_WIRE_VERSION;
    h->kind = (uint8_t)kind;
    h->arg = (uint16_t)arg;
    h->reply_tag = reply_tag;
    return vbt_win_send(win, rank, VBT_WIN_TAG_REQ, h, sizeof(*h));
}

vbt_status_t vbt_win_track(vbt_win_t *win, vbt_request_t *req, int target, int owned)
{
    vbt_win_pending_t *p = vbt_win_pool_get(win, sizeof(*p));

    if (p == NULL)
        return VBT_ERR_NO_MEMORY;
    *p = (vbt_win_pending_t){
        .next = NULL, .req = owned ? req : NULL, .req_id = vbt_request_id(req), .target = target};
    if (win->pending_tail != NULL)
        win->pending_tail->next = p;
    else
        win->pending = p;
    win->pending_tail = p;
    return VBT_OK;
}

static int pending_done(const vbt_win_pending_t *p)
{
    const vbt_request_t *r;

    if (p->req != NULL)
        return p->req->complete;
    r = vbt_request_from_id(p->req_id); /* NULL: completed and freed by the application */
    return r == NULL || r->complete;
}

void vbt_win_reap(vbt_win_t *win)
{
    /* Both queues from the head while done (mostly in order; one done early waits for its
     * turn, and the waits below look at each entry's state, not at its presence). */
    while (win->sendq_head != NULL && win->sendq_head->req->complete) {
        vbt_win_pending_t *p = win->sendq_head;
        win->sendq_head = p->next;
        if (win->sendq_head == NULL)
            win->sendq_tail = NULL;
        vbt_request_release(p->req);
        vbt_win_pool_put(win, p->buf, p->len);
        vbt_win_pool_put(win, p, sizeof(*p));
    }
    while (win->pending != NULL && pending_done(win->pending)) {
        vbt_win_pending_t *p = win->pending;
        win->pending = p->next;
        if (win->pending == NULL)
            win->pending_tail = NULL;
        if (p->req != NULL)
            vbt_request_release(p->req);
        vbt_win_pool_put(win, p, sizeof(*p));
    }
}

/* Is anything of interest still pending? target -2: anything; -1: any result; else target's. */
static int pending_any(const vbt_win_t *win, int target)
{
    if (target == -2 && win->sendq_head != NULL)
        return 1;
    if (target < 0 ? win->rma_out > 0 : win->tgt[target].rma_out > 0)
        return 1;
    for (const vbt_win_pending_t *p = win->pending; p != NULL; p = p->next)
        if ((target == -2 || target == -1 || p->target == target) && !pending_done(p))
            return 1;
    return 0;
}

static vbt_status_t wait_pending(vbt_win_t *win, int target)
{
    vbt_backoff_t backoff;

    vbt_backoff_init(&backoff);
    for (;;) {
        vbt_win_reap(win);
        if (!pending_any(win, target)) {
            vbt_status_t st = win->rma_status; /* a transfer that failed, reported once */
            win->rma_status = VBT_OK;
            return st;
        }
        int n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
        if (n == 0)
            vbt_p2p_idle(&backoff);
        else
            vbt_backoff_init(&backoff);
    }
}

vbt_status_t vbt_win_wait_results(vbt_win_t *win, int target)
{
    return wait_pending(win, target);
}

vbt_status_t vbt_win_wait_idle(vbt_win_t *win)
{
    return wait_pending(win, -2);
}

vbt_status_t vbt_win_wait_req(vbt_request_t *req)
{
    vbt_status_t st = vbt_p2p_wait_flag(&req->complete);

    vbt_request_release(req);
    return st;
}

void vbt_win_note_error(vbt_win_t *win, int target, const vbt_win_ack_t *ack)
{
    if (ack->err == 0 || win->rep_err != 0)
        return; /* the first one is reported */
    win->rep_err = ack->err;
    win->rep_kind = ack->kind;
    win->rep_target = target;
    win->rep_disp = ack->disp;
    win->rep_len = ack->len;
}
