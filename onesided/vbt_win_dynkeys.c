/* The keys of a dynamic window's attached memory, so that contiguous puts and gets reach it
 * without the target's CPU, as on the other flavors (vbt_win_rma.c).
 *
 * Each rank publishes the regions it attached, with their keys, in a table in its own memory
 * that the origins read (get()) the first time they need a region it does not hold, and keep.
 * A read races with the target's attach and detach, so the table is a seqlock: gen is odd
 * while the target changes it; an origin reads gen, the table, then gen again, and keeps the
 * copy only if both reads gave the same even value. The reads are three round trips, paid at
 * the first access to a region, never again while the copy is good.
 *
 * A copy goes stale when the target detaches a region: its key then reaches nothing (over ib a
 * put with it is a remote access error, which breaks the connection), and the same addresses may
 * be attached again under another key. Reading gen at every operation would cost a round trip
 * each, so the target tells instead: a detach writes the table's new gen into each reading
 * origin's mailbox (a word per target in the origin's memory, put() by the target) and returns
 * only once those writes are complete. An origin may touch memory attached after a detach only
 * after it synchronised with the target (MPI-4.1 12.2.4), so by then its mailbox holds that gen,
 * and an operation checks its copy with one load of local memory: copy gen >= mailbox.
 *
 * Regions beyond the table's VBT_WIN_DYN_SLOTS, or that a transport could not register, are
 * attached all the same: their operations go as messages, which the target serves. */
#include "vbt_log.h"
#include "vbt_win_int.h"

#include <stdlib.h>
#include <string.h>

#define VBT_WIN_DYN_SLOTS 64

typedef struct {
    uint64_t base, size;
    uint64_t rkey[VBT_TL_MAX]; /* by position in vbt_tl_table, bits in rkey_mask */
    uint32_t rkey_mask, pad;
} vbt_win_dyn_entry_t;

/* In the target's memory, read by the origins. */
typedef struct {
    uint64_t gen; /* even when the entries are whole; starts at 2 */
    uint64_t count;
    vbt_win_dyn_entry_t e[VBT_WIN_DYN_SLOTS];
} vbt_win_dyn_table_t;

/* Where an origin's reads of a table land. */
typedef struct {
    uint64_t gen1, gen2;
    vbt_win_dyn_table_t t;
} vbt_win_dyn_stage_t;

/* An origin's copy of one target's table: what its transport needs. */
typedef struct {
    uint64_t gen;
    uint32_t count, last; /* last: the entry the previous lookup found */
    struct {
        uint64_t base, size, rkey;
    } k[VBT_WIN_DYN_SLOTS];
} vbt_win_dyn_copy_t;

typedef struct vbt_win_dyn {
    vbt_win_dyn_table_t *table;
    vbt_tl_mem_t *table_mem[VBT_TL_MAX]; /* by position in vbt_p2p_tl()->up[] */
    vbt_tl_mem_t *region_mem[VBT_WIN_DYN_SLOTS][VBT_TL_MAX];
    vbt_win_region_t *slot_region[VBT_WIN_DYN_SLOTS];
    /* mbox[t]: the gen target t's last detach left, written by t (its transport). */
    volatile uint64_t *mbox;
    vbt_tl_mem_t *mbox_mem[VBT_TL_MAX];
    vbt_win_dyn_copy_t **copy; /* [size], each made at the first access to its target */
    vbt_win_dyn_stage_t *stage;
    uint64_t seq, seq_done; /* our reads and pushes, and the last of them that completed */
    uint32_t pushes_done;
} vbt_win_dyn_t;

/* The transports that can carry it: the origins get() the table, the target put()s the gen. */
static int dyn_tl(const vbt_tl_t *tl)
{
    return (tl->caps & VBT_TL_CAP_PUT) && (tl->caps & VBT_TL_CAP_GET) && tl->ops->mem_get != NULL;
}

vbt_status_t vbt_win_dyn_register(vbt_win_t *w, vbt_win_peer_t *me)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    vbt_win_dyn_t *d = calloc(1, sizeof(*d));
    size_t mbox_len = (size_t)w->size * sizeof(uint64_t);

    if (d == NULL)
        return VBT_ERR_NO_MEMORY;
    w->dyn = d;
    d->copy = calloc((size_t)w->size, sizeof(*d->copy));
    if (d->copy == NULL || posix_memalign((void **)&d->table, 64, sizeof(*d->table)) != 0 ||
        posix_memalign((void **)&d->mbox, 64, mbox_len) != 0 ||
        posix_memalign((void **)&d->stage, 64, sizeof(*d->stage)) != 0)
        return VBT_ERR_NO_MEMORY;
    memset(d->table, 0, sizeof(*d->table));
    d->table->gen = 2;
    memset((void *)d->mbox, 0, mbox_len);
    me->dyn_table = (uint64_t)(uintptr_t)d->table;
    me->mbox = (uint64_t)(uintptr_t)d->mbox;
    for (int i = 0; i < ts->nup; i++) {
        vbt_tl_t *tl = ts->up[i];
        int slot = vbt_win_tl_slot(tl);

        if (!dyn_tl(tl) || slot < 0)
            continue;
        /* Not an error either way: the peers then reach our attached memory by messages. */
        if (tl->ops->mem_get(tl, d->table, sizeof(*d->table), VBT_TL_MEM_REMOTE_READ,
                             &d->table_mem[i]) != VBT_OK ||
            tl->ops->mem_get(tl, (void *)d->mbox, mbox_len, VBT_TL_MEM_REMOTE_WRITE,
                             &d->mbox_mem[i]) != VBT_OK) {
            vbt_debug("%s: the table of attached memory is not registered with %s: operations "
                      "on attached memory go as messages",
                      w->name, tl->ops->name);
            continue;
        }
        me->dyn_rkey[slot] = tl->ops->mem_rkey(tl, d->table_mem[i]);
        me->mbox_rkey[slot] = tl->ops->mem_rkey(tl, d->mbox_mem[i]);
        me->dyn_mask |= 1u << slot;
        me->mbox_mask |= 1u << slot;
    }
    return VBT_OK;
}

void vbt_win_dyn_connect(vbt_win_t *w)
{
    const vbt_win_peer_t *mine = &w->peers[w->rank];

    for (int t = 0; t < w->size; t++) {
        vbt_win_rma_peer_t *rp = &w->rma[t];
        const vbt_win_peer_t *p = &w->peers[t];
        int slot;

        if (t == w->rank)
            continue;
        rp->tl = vbt_tl_of(vbt_p2p_tl(), rp->world);
        slot = vbt_win_tl_slot(rp->tl);
        /* Symmetric: both ends pick the same transport for the pair and see the same masks, so
         * the target writes our mailbox exactly when we read its table. */
        if (slot < 0 || !dyn_tl(rp->tl) ||
            !(p->dyn_mask & p->mbox_mask & mine->dyn_mask & mine->mbox_mask & (1u << slot)))
            continue;
        rp->dyn = 1;
        rp->put = rp->get = 1;
    }
}

void vbt_win_dyn_destroy(vbt_win_t *w)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    vbt_win_dyn_t *d = w->dyn;

    if (d == NULL)
        return;
    for (int i = 0; i < ts->nup; i++) {
        vbt_tl_t *tl = ts->up[i];
        if (d->table_mem[i] != NULL)
            tl->ops->mem_put(tl, d->table_mem[i]);
        if (d->mbox_mem[i] != NULL)
            tl->ops->mem_put(tl, d->mbox_mem[i]);
        for (int s = 0; s < VBT_WIN_DYN_SLOTS; s++)
            if (d->region_mem[s][i] != NULL)
                tl->ops->mem_put(tl, d->region_mem[s][i]);
    }
    for (int t = 0; d->copy != NULL && t < w->size; t++)
        free(d->copy[t]);
    free(d->copy);
    free(d->table);
    free((void *)d->mbox);
    free(d->stage);
    free(d);
    w->dyn = NULL;
}

/* The seqlock's writer side: origins never keep a table read while gen was odd. */
static void table_open(vbt_win_dyn_table_t *t)
{
    __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void table_close(vbt_win_dyn_table_t *t)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELAXED);
}

void vbt_win_dyn_publish(vbt_win_t *w, vbt_win_region_t *r)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    vbt_win_dyn_t *d = w->dyn;
    vbt_win_dyn_entry_t e = {.base = r->base, .size = r->size};
    int s;

    r->slot = -1;
    if (d == NULL || r->size == 0 || d->table->count == VBT_WIN_DYN_SLOTS)
        return;
    s = (int)d->table->count;
    for (int i = 0; i < ts->nup; i++) {
        vbt_tl_t *tl = ts->up[i];
        int slot = vbt_win_tl_slot(tl);

        if (d->table_mem[i] == NULL || slot < 0)
            continue;
        if (tl->ops->mem_get(tl, (void *)r->base, r->size,
                             VBT_TL_MEM_REMOTE_READ | VBT_TL_MEM_REMOTE_WRITE,
                             &d->region_mem[s][i]) != VBT_OK) {
            d->region_mem[s][i] = NULL;
            vbt_debug("%s: %zu bytes attached at %p not registered with %s: operations on them "
                      "go as messages",
                      w->name, r->size, (void *)r->base, tl->ops->name);
            continue;
        }
        e.rkey[slot] = tl->ops->mem_rkey(tl, d->region_mem[s][i]);
        e.rkey_mask |= 1u << slot;
    }
    table_open(d->table);
    d->table->e[s] = e;
    d->table->count++;
    table_close(d->table);
    d->slot_region[s] = r;
    r->slot = s;
}

static vbt_status_t mark_done(vbt_win_rma_op_t *o)
{
    o->w->dyn->seq_done = o->result;
    return VBT_OK;
}

static vbt_status_t count_push(vbt_win_rma_op_t *o)
{
    o->w->dyn->pushes_done++;
    return VBT_OK;
}

/* Drive progress until done() says so, or a transfer of the window failed. */
static vbt_status_t wait_until(vbt_win_t *w, int (*done)(const vbt_win_dyn_t *d, uint64_t arg),
                               uint64_t arg)
{
    vbt_backoff_t backoff;

    vbt_backoff_init(&backoff);
    while (!done(w->dyn, arg)) {
        if (w->rma_status != VBT_OK) {
            vbt_status_t st = w->rma_status;
            w->rma_status = VBT_OK;
            return st;
        }
        int n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
        if (n == 0)
            vbt_p2p_idle(&backoff);
    }
    return VBT_OK;
}

static int pushes_in(const vbt_win_dyn_t *d, uint64_t n)
{
    return d->pushes_done == n;
}

static int read_in(const vbt_win_dyn_t *d, uint64_t seq)
{
    return d->seq_done == seq;
}

/* Write our table's gen into the mailbox of every origin that reads the table, and wait. */
static vbt_status_t push_gen(vbt_win_t *w)
{
    vbt_win_dyn_t *d = w->dyn;
    uint32_t posted = 0;
    vbt_status_t st = VBT_OK;

    d->pushes_done = 0;
    for (int o = 0; o < w->size && st == VBT_OK; o++) {
        vbt_win_rma_peer_t *rp = &w->rma[o];
        vbt_win_rma_op_t *op;
        int slot;

        if (o == w->rank || !rp->dyn)
            continue;
        slot = vbt_win_tl_slot(rp->tl);
        op = vbt_win_rma_op_new(w, o, rp->tl);
        if (op == NULL) {
            st = VBT_ERR_NO_MEMORY;
            break;
        }
        st = rp->tl->ops->mem_get(rp->tl, &d->table->gen, sizeof(uint64_t), 0, &op->lmem);
        if (st != VBT_OK) {
            op->lmem = NULL;
            vbt_win_rma_op_fail(op);
            break;
        }
        op->done = count_push;
        st = vbt_win_rma_post(op, 0, (char *)&d->table->gen, sizeof(uint64_t),
                              w->peers[o].mbox + (uint64_t)w->rank * sizeof(uint64_t),
                              w->peers[o].mbox_rkey[slot]);
        if (st != VBT_OK)
            vbt_win_rma_op_fail(op);
        else
            posted++;
    }
    /* Even after a failure: the writes posted must be done before gen can change again. */
    vbt_status_t s2 = wait_until(w, pushes_in, posted);
    return st != VBT_OK ? st : s2;
}

vbt_status_t vbt_win_dyn_withdraw(vbt_win_t *w, vbt_win_region_t *r)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    vbt_win_dyn_t *d = w->dyn;
    int s = r->slot, last;

    if (d == NULL || s < 0)
        return VBT_OK;
    last = (int)d->table->count - 1;
    table_open(d->table);
    d->table->e[s] = d->table->e[last];
    memset(&d->table->e[last], 0, sizeof(d->table->e[last]));
    d->table->count--;
    table_close(d->table);
    for (int i = 0; i < ts->nup; i++) {
        if (d->region_mem[s][i] != NULL)
            ts->up[i]->ops->mem_put(ts->up[i], d->region_mem[s][i]);
        d->region_mem[s][i] = d->region_mem[last][i]; /* the last entry moved into s */
        d->region_mem[last][i] = NULL;
    }
    d->slot_region[s] = d->slot_region[last];
    d->slot_region[last] = NULL;
    if (s != last)
        d->slot_region[s]->slot = s;
    else
        d->slot_region[s] = NULL;
    r->slot = -1;
    return push_gen(w);
}

/* One get() of len bytes of target's memory at raddr into our stage, waited for. */
static vbt_status_t read_table(vbt_win_t *w, int target, void *laddr, size_t len, uint64_t raddr,
                               uint64_t rkey)
{
    vbt_win_rma_peer_t *rp = &w->rma[target];
    vbt_win_rma_op_t *o = vbt_win_rma_op_new(w, target, rp->tl);
    vbt_status_t st;

    if (o == NULL)
        return VBT_ERR_NO_MEMORY;
    st = rp->tl->ops->mem_get(rp->tl, laddr, len, VBT_TL_MEM_LOCAL_WRITE, &o->lmem);
    if (st != VBT_OK) {
        o->lmem = NULL;
        vbt_win_rma_op_fail(o);
        return st;
    }
    /* Identified by a sequence number: after a failure an older read may still land. */
    o->result = ++w->dyn->seq;
    o->done = mark_done;
    st = vbt_win_rma_post(o, 1, laddr, len, raddr, rkey);
    if (st != VBT_OK) {
        vbt_win_rma_op_fail(o);
        return st;
    }
    return wait_until(w, read_in, o->result);
}

/* A consistent copy of target's table. */
static vbt_status_t fetch(vbt_win_t *w, int target)
{
    vbt_win_dyn_t *d = w->dyn;
    vbt_win_dyn_stage_t *sg = d->stage;
    const vbt_win_peer_t *p = &w->peers[target];
    int slot = vbt_win_tl_slot(w->rma[target].tl);
    uint64_t rkey = p->dyn_rkey[slot];
    vbt_win_dyn_copy_t *c = d->copy[target];
    vbt_backoff_t backoff;
    vbt_status_t st;

    if (c == NULL && (c = d->copy[target] = malloc(sizeof(*c))) == NULL)
        return VBT_ERR_NO_MEMORY;
    vbt_backoff_init(&backoff);
    for (;;) {
        st = read_table(w, target, &sg->gen1, sizeof(uint64_t), p->dyn_table, rkey);
        if (st == VBT_OK && !(sg->gen1 & 1))
            st = read_table(w, target, &sg->t, sizeof(sg->t), p->dyn_table, rkey);
        if (st == VBT_OK && !(sg->gen1 & 1))
            st = read_table(w, target, &sg->gen2, sizeof(uint64_t), p->dyn_table, rkey);
        if (st != VBT_OK)
            return st;
        if (!(sg->gen1 & 1) && sg->gen1 == sg->gen2)
            break;
        vbt_p2p_idle(&backoff); /* the target is changing it: a moment */
    }
    c->gen = sg->gen1;
    c->count = 0;
    c->last = 0;
    for (uint64_t i = 0; i < sg->t.count && i < VBT_WIN_DYN_SLOTS; i++) {
        const vbt_win_dyn_entry_t *e = &sg->t.e[i];
        if (!(e->rkey_mask & (1u << slot)))
            continue;
        c->k[c->count].base = e->base;
        c->k[c->count].size = e->size;
        c->k[c->count].rkey = e->rkey[slot];
        c->count++;
    }
    return VBT_OK;
}

static int lookup(vbt_win_dyn_copy_t *c, uint64_t addr, size_t len, uint64_t *rkey_p)
{
    for (uint32_t n = 0; n < c->count; n++) {
        uint32_t i = (c->last + n) % c->count; /* streams hit the same region again */
        if (addr >= c->k[i].base && addr - c->k[i].base <= c->k[i].size &&
            len <= c->k[i].size - (addr - c->k[i].base)) {
            c->last = i;
            *rkey_p = c->k[i].rkey;
            return 1;
        }
    }
    return 0;
}

int vbt_win_dyn_rkey(vbt_win_t *w, int target, uint64_t addr, size_t len, uint64_t *rkey_p,
                     vbt_status_t *st_p)
{
    vbt_win_dyn_t *d = w->dyn;
    vbt_win_dyn_copy_t *c = d->copy[target];

    /* The mailbox is written by the target's transport: read it from memory each time. */
    if (likely(c != NULL && c->gen >= __atomic_load_n(&d->mbox[target], __ATOMIC_ACQUIRE) &&
               lookup(c, addr, len, rkey_p)))
        return 1;
    /* Not in our copy, or the copy is older than the target's last detach: read it again. */
    *st_p = fetch(w, target);
    if (*st_p != VBT_OK)
        return -1;
    return lookup(d->copy[target], addr, len, rkey_p);
}
