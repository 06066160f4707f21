/* Operations that move data without the target's CPU: contiguous puts and gets as the
 * transport's put()/get() (RDMA WRITE/READ over ib) straight into and out of the target's
 * window memory, gets copied out of an on-node target's memory (READ_PEER: CMA), and the 64-bit
 * accumulates the NIC does atomically
 * (vbt_win_atomic.c). Chosen per target by the transport's capabilities and by whether the
 * target registered its memory, never by a transport's name; anything else goes as a message.
 *
 * Keys: at creation every rank registers its window memory with each transport that offers
 * put, get or atomics and allgathers the keys with the window (vbt_win_peer_t), so an
 * operation costs no round trip for them. Completion: each transfer is an operation object from
 * the window's free list, the transport's cookie; its completion (vbt_rma_cookie_t) counts it
 * off the target's rma_out, which flushes, fences, completes and unlocks wait for. */
#include "vbt_error.h"
#include "vbt_log.h"
#include "vbt_win_int.h"

#include <stdlib.h>
#include <string.h>

/* Operation objects come in slabs of this many. */
#define VBT_WIN_RMA_SLAB 64

typedef struct vbt_win_rma_slab {
    struct vbt_win_rma_slab *next;
    vbt_win_rma_op_t ops[VBT_WIN_RMA_SLAB];
} vbt_win_rma_slab_t;

int vbt_win_tl_slot(const vbt_tl_t *tl)
{
    for (int j = 0; j < VBT_TL_MAX && vbt_tl_table[j] != NULL; j++)
        if (vbt_tl_table[j] == tl->ops)
            return j;
    return -1;
}

vbt_status_t vbt_win_rma_register(vbt_win_t *w, vbt_win_peer_t *me)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    int have_mem = w->win_size > 0 && w->base != NULL;

    w->rma = calloc((size_t)w->size, sizeof(*w->rma));
    if (w->rma == NULL)
        return VBT_ERR_NO_MEMORY;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return vbt_win_dyn_register(w, me);
    if (w->flavor == MPI_WIN_FLAVOR_SHARED)
        return VBT_OK;
    /* The word of the locks taken by NIC atomics (vbt_win_rlock.c), on a cache line of its own. */
    if (posix_memalign((void **)&w->lock_word, 64, 64) != 0)
        return VBT_ERR_NO_MEMORY;
    memset(w->lock_word, 0, 64);
    me->lock_addr = (uint64_t)(uintptr_t)w->lock_word;
    for (int i = 0; i < ts->nup; i++) {
        vbt_tl_t *tl = ts->up[i];
        unsigned access = 0;
        int slot = vbt_win_tl_slot(tl);

        if (tl->caps & VBT_TL_CAP_PUT)
            access |= VBT_TL_MEM_REMOTE_WRITE;
        if (tl->caps & VBT_TL_CAP_GET)
            access |= VBT_TL_MEM_REMOTE_READ;
        if (vbt_win_tl_atomics(tl))
            access |= VBT_TL_MEM_REMOTE_ATOMIC;
        if (access == 0 || slot < 0 || tl->ops->mem_get == NULL)
            continue;
        /* Not an error: the peers then reach this memory by messages. */
        if (have_mem &&
            tl->ops->mem_get(tl, w->base, w->win_size, access, &w->rma_mem[i]) != VBT_OK) {
            w->rma_mem[i] = NULL;
            vbt_debug("%s: %zu bytes of window memory not registered with %s: operations on "
                      "them go as messages",
                      w->name, w->win_size, tl->ops->name);
        } else if (have_mem) {
            me->rkey[slot] = tl->ops->mem_rkey(tl, w->rma_mem[i]);
            me->rkey_mask |= 1u << slot;
        }
        if (vbt_win_tl_atomics(tl) &&
            tl->ops->mem_get(tl, w->lock_word, 8, VBT_TL_MEM_REMOTE_ATOMIC | VBT_TL_MEM_LOCAL_WRITE,
                             &w->lock_mem[i]) == VBT_OK) {
            me->lock_rkey[slot] = tl->ops->mem_rkey(tl, w->lock_mem[i]);
            me->lock_mask |= 1u << slot;
        } else {
            w->lock_mem[i] = NULL;
        }
    }
    me->atomics = vbt_win_atomics_possible(w, me);
    return VBT_OK;
}

void vbt_win_rma_connect(vbt_win_t *w)
{
    int atomics = 1;

    if (w->rma == NULL)
        return;
    for (int t = 0; t < w->size; t++) {
        atomics &= w->peers[t].atomics != 0;
        w->rma[t].world = vbt_comm_world_rank(w->comm, t);
    }
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        vbt_win_dyn_connect(w);
    for (int t = 0; t < w->size; t++) {
        vbt_win_rma_peer_t *rp = &w->rma[t];
        const vbt_win_peer_t *p = &w->peers[t];
        int slot;

        if (t == w->rank || w->flavor == MPI_WIN_FLAVOR_DYNAMIC ||
            w->flavor == MPI_WIN_FLAVOR_SHARED)
            continue;
        rp->tl = vbt_tl_of(vbt_p2p_tl(), rp->world);
        slot = vbt_win_tl_slot(rp->tl);
        rp->read_peer = (rp->tl->caps & VBT_TL_CAP_READ_PEER) != 0;
        if (slot >= 0 && (p->rkey_mask & (1u << slot))) {
            rp->rkey = p->rkey[slot];
            rp->put = (rp->tl->caps & VBT_TL_CAP_PUT) != 0;
            rp->get = (rp->tl->caps & VBT_TL_CAP_GET) != 0;
        }
    }
    /* The same verdict on every rank: all of them allgathered the same flags. */
    if (atomics && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && w->flavor != MPI_WIN_FLAVOR_SHARED)
        vbt_win_atomics_connect(w);
    if (VBT_LOG_DEBUG <= vbt_log_level) {
        int nput = 0, nget = 0, nread = 0;
        for (int t = 0; t < w->size; t++) {
            nput += w->rma[t].put;
            nget += w->rma[t].get;
            nread += w->rma[t].read_peer;
        }
        vbt_debug("%s: of %d other ranks, %d take puts and %d gets without their CPU, %d "
                  "gets by CMA; NIC atomics %s",
                  w->name, w->size - 1, nput, nget, nread, w->nic_atomics ? "on" : "off");
    }
}

void vbt_win_rma_destroy(vbt_win_t *w)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    vbt_backoff_t backoff;

    /* MPI_Finalize with a window never freed: let the transfers finish before their objects
     * and the memory they reach go (a failed peer completes them with an error). */
    vbt_backoff_init(&backoff);
    while (w->rma_out > 0 && vbt_p2p_progress() >= 0)
        vbt_p2p_idle(&backoff);
    for (int i = 0; i < ts->nup; i++) {
        if (w->rma_mem[i] != NULL)
            ts->up[i]->ops->mem_put(ts->up[i], w->rma_mem[i]);
        if (w->lock_mem[i] != NULL)
            ts->up[i]->ops->mem_put(ts->up[i], w->lock_mem[i]);
        w->rma_mem[i] = w->lock_mem[i] = NULL;
    }
    vbt_win_dyn_destroy(w);
    free(w->lock_word);
    w->lock_word = NULL;
    while (w->rma_slabs != NULL) {
        vbt_win_rma_slab_t *s = w->rma_slabs;
        w->rma_slabs = s->next;
        free(s);
    }
    w->rma_free = NULL;
    free(w->rma);
    w->rma = NULL;
}

static void rma_done(vbt_rma_cookie_t *c, vbt_status_t status)
{
    vbt_win_rma_op_t *o = (vbt_win_rma_op_t *)c;
    vbt_win_t *w = o->w;

    if (o->lmem != NULL)
        o->tl->ops->mem_put(o->tl, o->lmem);
    if (o->rmem != NULL)
        o->tl->ops->mem_put(o->tl, o->rmem);
    if (status == VBT_OK && o->done != NULL)
        status = o->done(o);
    w->tgt[o->target].rma_out--;
    w->rma_out--;
    if (unlikely(status != VBT_OK) && w->rma_status == VBT_OK)
        w->rma_status = status;
    if (o->req != NULL) {
        if (unlikely(status != VBT_OK))
            o->req->status_error = vbt_status_to_errclass(status);
        vbt_p2p_request_done(o->req);
    }
    o->next = w->rma_free;
    w->rma_free = o;
}

vbt_win_rma_op_t *vbt_win_rma_op_new(vbt_win_t *w, int target, vbt_tl_t *tl)
{
    vbt_win_rma_op_t *o = w->rma_free;

    if (unlikely(o == NULL)) { /* warm-up only: objects are reused from then on */
        vbt_win_rma_slab_t *s = malloc(sizeof(*s));
        if (s == NULL)
            return NULL;
        s->next = w->rma_slabs;
        w->rma_slabs = s;
        for (int i = 0; i < VBT_WIN_RMA_SLAB; i++) {
            s->ops[i].next = w->rma_free;
            w->rma_free = &s->ops[i];
        }
        o = w->rma_free;
    }
    w->rma_free = o->next;
    *o = (vbt_win_rma_op_t){
        .c = {.magic = VBT_RMA_COOKIE_MAGIC, .done = rma_done}, .w = w, .target = target, .tl = tl};
    w->tgt[target].rma_out++;
    w->rma_out++;
    return o;
}

void vbt_win_rma_op_fail(vbt_win_rma_op_t *o)
{
    vbt_win_t *w = o->w;

    if (o->lmem != NULL)
        o->tl->ops->mem_put(o->tl, o->lmem);
    if (o->rmem != NULL)
        o->tl->ops->mem_put(o->tl, o->rmem);
    w->tgt[o->target].rma_out--;
    w->rma_out--;
    o->next = w->rma_free;
    w->rma_free = o;
}

/* Back-pressure (a full send queue, a connection being made) is waited out driving progress. */
vbt_status_t vbt_win_rma_post(vbt_win_rma_op_t *o, int get, char *laddr, size_t len, uint64_t raddr,
                              uint64_t rkey)
{
    vbt_tl_t *tl = o->tl;
    int world = o->w->rma[o->target].world;
    vbt_backoff_t backoff;
    size_t done = 0;

    vbt_backoff_init(&backoff);
    for (;;) {
        size_t posted = 0;
        vbt_status_t st = get ? tl->ops->get(tl, world, laddr + done, len - done, o->lmem,
                                             raddr + done, rkey, &o->c, &posted)
                              : tl->ops->put(tl, world, laddr + done, len - done, o->lmem,
                                             raddr + done, rkey, &o->c, &posted);
        done += posted;
        if (likely(st != VBT_ERR_NO_RESOURCE))
            return st;
        int n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
        if (n == 0 && posted == 0)
            vbt_p2p_idle(&backoff);
    }
}

/* The request of MPI_Rput/MPI_Rget, if one is asked for: complete already, or completed by
 * the transfer o. */
static vbt_status_t rma_request(vbt_win_t *w, vbt_win_rma_op_t *o, vbt_request_t **req_p)
{
    vbt_request_t *r;

    if (req_p == NULL)
        return VBT_OK;
    r = vbt_win_request_new(w, o == NULL);
    if (r == NULL)
        return VBT_ERR_NO_MEMORY;
    if (o != NULL)
        o->req = r;
    *req_p = r;
    return VBT_OK;
}

int vbt_win_rma_start(vbt_win_t *w, const vbt_win_op_t *op, vbt_request_t **req_p,
                      vbt_status_t *st_p)
{
    int get = op->kind == VBT_WIN_GET;
    const vbt_dtype_t *lt = get ? op->rtype : op->otype;
    size_t bytes = op->tcount * op->ttype->size;
    vbt_win_rma_peer_t *rp = &w->rma[op->target];
    char *laddr;
    uint64_t raddr, rkey;
    vbt_win_rma_op_t *o;
    vbt_status_t st;

    if (op->kind != VBT_WIN_PUT && !get)
        return vbt_win_atomic_start(w, op, req_p, st_p);
    if (!op->ttype->contig || !lt->contig || bytes == 0)
        return 0;
    laddr = (char *)(get ? op->rbuf : (void *)(uintptr_t)op->obuf) + lt->true_lb;
    raddr = w->peers[op->target].base + op->tdisp + (uint64_t)op->ttype->true_lb;
    rkey = rp->rkey;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        /* The address must be in attached memory, which the target's table says. Anything
         * else goes as a message, and the target reports the error. */
        if (!rp->dyn)
            return 0;
        int found = vbt_win_dyn_rkey(w, op->target, raddr, bytes, &rkey, st_p);
        if (found <= 0)
            return found < 0;
    }
    if (get && rp->read_peer && !rp->get) {
        st = rp->tl->ops->read_peer(rp->tl, rp->world, laddr, raddr, bytes);
        if (st == VBT_ERR_UNSUPPORTED) { /* refused by the kernel: from now on by messages */
            rp->read_peer = 0;
            return 0;
        }
        w->fence_ops++;
        *st_p = st == VBT_OK ? rma_request(w, NULL, req_p) : st;
        return 1;
    }
    if (!(get ? rp->get : rp->put))
        return 0;
    o = vbt_win_rma_op_new(w, op->target, rp->tl);
    if (o == NULL)
        return 0;
    /* An origin buffer the transport cannot register (rare) goes as a message instead. */
    if (rp->tl->ops->mem_get(rp->tl, laddr, bytes, get ? VBT_TL_MEM_LOCAL_WRITE : 0, &o->lmem) !=
        VBT_OK) {
        o->lmem = NULL;
        vbt_win_rma_op_fail(o);
        return 0;
    }
    st = rma_request(w, o, req_p);
    if (st == VBT_OK)
        st = vbt_win_rma_post(o, get, laddr, bytes, raddr, rkey);
    if (st != VBT_OK) {
        if (o->req != NULL) {
            vbt_request_release(o->req);
            *req_p = NULL;
        }
        /* Pieces posted before the failure carry no cookie: the object is ours again. */
        vbt_win_rma_op_fail(o);
        *st_p = st;
        return 1;
    }
    w->fence_ops++;
    *st_p = VBT_OK;
    return 1;
}
