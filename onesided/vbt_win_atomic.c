/* Accumulates done by the NIC: 64-bit integer MPI_SUM (fetch-and-add), MPI_NO_OP (fetch-and-add
 * of 0: an atomic read), MPI_REPLACE (a compare-and-swap loop) and MPI_Compare_and_swap, in
 * MPI_Fetch_and_op, MPI_Accumulate, MPI_Get_accumulate and their request forms, element by
 * element, whatever the datatypes' layout. Everything else goes as a message the target's CPU
 * applies.
 *
 * Atomicity. A NIC's atomics are atomic only with the other atomics through the same NIC
 * (IBV_ATOMIC_HCA), never with the target CPU's read-modify-write. So a window uses them only
 * when every rank reaches every rank's window memory through a transport with atomics,
 * ourselves included (RMA_SELF: a loopback through the device): then every accumulate on a
 * 64-bit integer with these ops, from any origin, goes through the target's NIC, and the
 * standard's atomicity (per basic element, for the same op and datatype; MPI_NO_OP with any:
 * the default accumulate_ops=same_op_no_op) holds. The other ops on the same location (MPI_MAX
 * on an int64, say) stay messages; the standard does not ask them to be atomic with a
 * concurrent MPI_SUM there. Ordering from one origin (accumulate_ordering's default rar, raw,
 * war, waw): the NIC executes one connection's atomics in order; between the two paths to one
 * target, the origin waits for its atomics before the next accumulate message and flushes its
 * accumulate messages before the next atomic. */
#include "vbt_config.h"
#include "vbt_log.h"
#include "vbt_win_int.h"

#include <stdlib.h>
#include <string.h>

/* Elements packed on the stack; more go through the heap (a cold path for long accumulates). */
#define VBT_WIN_ATOMIC_STACK 32
/* Atomics in flight per batch of a long accumulate. */
#define VBT_WIN_ATOMIC_BATCH 256

int vbt_win_tl_atomics(const vbt_tl_t *tl)
{
    unsigned both = VBT_TL_CAP_ATOMIC_FADD64 | VBT_TL_CAP_ATOMIC_CSWAP64;
    return (tl->caps & both) == both && tl->ops->atomic != NULL;
}

/* The transport of atomics towards world rank `world`: the first one up that has them and
 * reaches it (ourselves: that takes our own rank). */
static vbt_tl_t *atomic_tl(int world, int self)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    for (int i = 0; i < ts->nup; i++) {
        vbt_tl_t *tl = ts->up[i];
        if (!vbt_win_tl_atomics(tl))
            continue;
        if (self ? (tl->caps & VBT_TL_CAP_RMA_SELF) != 0 : tl->ops->reaches(tl, world))
            return tl;
    }
    return NULL;
}

int vbt_win_atomics_possible(const vbt_win_t *w, const vbt_win_peer_t *me)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    if (!vbt_cfg.rma_nic_atomics)
        return 0;
    for (int i = 0; i < ts->nup; i++) { /* our memory is registered with each of them */
        unsigned bit = 1u << vbt_win_tl_slot(ts->up[i]);
        if (!vbt_win_tl_atomics(ts->up[i]))
            continue;
        if (!(me->lock_mask & bit) || (w->win_size > 0 && !(me->rkey_mask & bit)))
            return 0;
    }
    for (int r = 0; r < w->size; r++)
        if (atomic_tl(vbt_comm_world_rank(w->comm, r), r == w->rank) == NULL)
            return 0;
    return 1;
}

void vbt_win_atomics_connect(vbt_win_t *w)
{
    for (int t = 0; t < w->size; t++) {
        vbt_win_rma_peer_t *rp = &w->rma[t];
        vbt_tl_t *tl = atomic_tl(rp->world, t == w->rank);
        int slot = tl != NULL ? vbt_win_tl_slot(tl) : -1;

        /* Cannot happen when the ranks agree on what reaches what; a window then keeps its
         * accumulates as messages everywhere (each rank decides the same). */
        if (slot < 0 || !(w->peers[t].lock_mask & (1u << slot)) ||
            (w->peers[t].size > 0 && !(w->peers[t].rkey_mask & (1u << slot)))) {
            vbt_error("%s: rank %d published no key for the transport of atomics towards it: "
                      "the accumulates of this window go as messages",
                      w->name, t);
            return;
        }
        rp->atl = tl;
        rp->arkey = w->peers[t].rkey[slot];
        rp->lock_rkey = w->peers[t].lock_rkey[slot];
    }
    w->nic_atomics = 1;
}

static int int64_type(MPI_Datatype t)
{
    return t == MPI_INT64_T || t == MPI_UINT64_T || t == MPI_LONG_LONG || t == MPI_AINT ||
           t == MPI_COUNT || t == MPI_OFFSET || t == MPI_UNSIGNED_LONG_LONG ||
           ((t == MPI_LONG || t == MPI_UNSIGNED_LONG) && sizeof(long) == 8);
}

int vbt_win_nic_op(const vbt_win_t *w, const vbt_win_op_t *op)
{
    if (!w->nic_atomics || !int64_type(op->ttype->basic))
        return 0;
    if (op->kind == VBT_WIN_CAS)
        return 1;
    if (op->kind != VBT_WIN_ACC && op->kind != VBT_WIN_GET_ACC)
        return 0;
    return op->op == MPI_SUM || op->op == MPI_REPLACE ||
           (op->op == MPI_NO_OP && op->kind == VBT_WIN_GET_ACC);
}

static int atomic_run(vbt_win_t *w, const vbt_win_op_t *op, vbt_request_t **req_p,
                      vbt_status_t *st_p);

static vbt_status_t copy_result(vbt_win_rma_op_t *o)
{
    memcpy(o->result_to, &o->result, sizeof(o->result));
    return VBT_OK;
}

/* Post one atomic on the target's word at raddr; its old value goes to *result_to when it
 * completes (NULL: nowhere). last: the operation's last, which completes its request. */
static vbt_status_t post_atomic_key(vbt_win_t *w, int target, vbt_tl_atomic_op_t kind,
                                    uint64_t operand, uint64_t compare, uint64_t raddr,
                                    uint64_t rkey, void *result_to, vbt_request_t *req)
{
    vbt_win_rma_peer_t *rp = &w->rma[target];
    vbt_tl_t *tl = rp->atl;
    vbt_win_rma_op_t *o = vbt_win_rma_op_new(w, target, tl);
    vbt_backoff_t backoff;
    vbt_status_t st;

    if (o == NULL)
        return VBT_ERR_NO_MEMORY;
    st = tl->ops->mem_get(tl, &o->result, sizeof(o->result), VBT_TL_MEM_LOCAL_WRITE, &o->rmem);
    if (st != VBT_OK) {
        o->rmem = NULL;
        vbt_win_rma_op_fail(o);
        return st;
    }
    if (result_to != NULL) {
        o->result_to = result_to;
        o->done = copy_result;
    }
    vbt_backoff_init(&backoff);
    for (;;) {
        st = tl->ops->atomic(tl, rp->world, kind, operand, compare, &o->result, o->rmem, raddr,
                             rkey, &o->c);
        if (likely(st != VBT_ERR_NO_RESOURCE))
            break;
        int n = vbt_p2p_progress();
        if (n < 0) {
            st = (vbt_status_t)n;
            break;
        }
        if (n == 0)
            vbt_p2p_idle(&backoff);
    }
    if (st != VBT_OK) {
        vbt_win_rma_op_fail(o);
        return st;
    }
    o->req = req;
    return VBT_OK;
}

/* On the window memory. */
static vbt_status_t post_atomic(vbt_win_t *w, int target, vbt_tl_atomic_op_t kind, uint64_t operand,
                                uint64_t compare, uint64_t raddr, void *result_to,
                                vbt_request_t *req)
{
    return post_atomic_key(w, target, kind, operand, compare, raddr, w->rma[target].arkey,
                           result_to, req);
}

/* The target address of element i (in packed order) of tcount elements of ttype at base. */
static uint64_t element_addr(const vbt_dtype_t *t, uint64_t base, size_t i)
{
    size_t per = t->size / 8, e = i / per, k = (i % per) * 8;

    if (t->contig)
        return base + (uint64_t)t->true_lb + i * 8;
    for (size_t b = 0; b < t->nblocks; b++) {
        if (k < t->blocks[b].len)
            return base + (uint64_t)((MPI_Aint)e * t->extent + t->blocks[b].off) + k;
        k -= t->blocks[b].len;
    }
    return base; /* not reached: the blocks hold size bytes */
}

/* MPI_REPLACE of words [from, to): read them all, then swap each in until no other origin came
 * in between. Each step is posted for all the words still to do and waited once, so the words
 * cost a few round trips together, not two each. seen[i] ends with the value replaced (the
 * fetch result); old and pending are scratch. */
static vbt_status_t replace_batch(vbt_win_t *w, const vbt_win_op_t *op, uint64_t base,
                                  const uint64_t *in, size_t from, size_t to, uint64_t *seen,
                                  uint64_t *old, size_t *pending)
{
    int t = op->target;
    size_t left = to - from;
    vbt_status_t st = VBT_OK;

    for (size_t i = from; i < to && st == VBT_OK; i++) {
        pending[i - from] = i;
        st = post_atomic(w, t, VBT_TL_ATOMIC_FADD, 0, 0, element_addr(op->ttype, base, i), &seen[i],
                         NULL);
    }
    if (st == VBT_OK)
        st = vbt_win_wait_results(w, t);
    while (st == VBT_OK && left > 0) {
        size_t still = 0;
        for (size_t k = 0; k < left && st == VBT_OK; k++) {
            size_t i = pending[k];
            st = post_atomic(w, t, VBT_TL_ATOMIC_CSWAP, in[i], seen[i],
                             element_addr(op->ttype, base, i), &old[i], NULL);
        }
        if (st == VBT_OK)
            st = vbt_win_wait_results(w, t);
        for (size_t k = 0; k < left && st == VBT_OK; k++) {
            size_t i = pending[k];
            if (old[i] != seen[i]) { /* another origin's word came in between: again */
                seen[i] = old[i];
                pending[still++] = i;
            }
        }
        left = still;
    }
    return st;
}

/* In batches of VBT_WIN_ATOMIC_BATCH words, so that a long accumulate keeps a bounded number
 * of atomics in flight (and of operation objects in the window's pool). */
static vbt_status_t replace_words(vbt_win_t *w, const vbt_win_op_t *op, uint64_t base,
                                  const uint64_t *in, size_t n, uint64_t *seen, uint64_t *old,
                                  size_t *pending)
{
    vbt_status_t st = VBT_OK;

    for (size_t from = 0; from < n && st == VBT_OK; from += VBT_WIN_ATOMIC_BATCH) {
        size_t to = n - from > VBT_WIN_ATOMIC_BATCH ? from + VBT_WIN_ATOMIC_BATCH : n;
        st = replace_batch(w, op, base, in, from, to, seen, old, pending);
    }
    return st;
}

int vbt_win_atomic_start(vbt_win_t *w, const vbt_win_op_t *op, vbt_request_t **req_p,
                         vbt_status_t *st_p)
{
    if (!vbt_win_nic_op(w, op))
        return 0;
    return atomic_run(w, op, req_p, st_p);
}

static int atomic_run(vbt_win_t *w, const vbt_win_op_t *op, vbt_request_t **req_p,
                      vbt_status_t *st_p)
{
    int t = op->target, fetch = op->kind != VBT_WIN_ACC;
    size_t n = op->kind == VBT_WIN_CAS ? 1 : op->tcount * op->ttype->size / 8;
    uint64_t base = w->peers[t].base + op->tdisp;
    uint64_t in_stack[VBT_WIN_ATOMIC_STACK], out_stack[VBT_WIN_ATOMIC_STACK];
    uint64_t old_stack[VBT_WIN_ATOMIC_STACK];
    size_t pending_stack[VBT_WIN_ATOMIC_STACK]; /* a batch's words still to swap */
    uint64_t *in = in_stack, *out = out_stack, *old = old_stack;
    size_t *pending = pending_stack;
    int replace = op->kind != VBT_WIN_CAS && op->op == MPI_REPLACE;
    /* One word, or words landing straight in a contiguous result buffer: asynchronous, the
     * last one completes the request. Otherwise (REPLACE loops, scattered results) here. */
    int direct = !replace && (!fetch || op->rtype->contig);
    char *rbase = fetch ? (char *)op->rbuf + op->rtype->true_lb : NULL;
    vbt_request_t *req = NULL;
    vbt_status_t st = VBT_OK;

    if (n == 0)
        return 0;
    if (n > VBT_WIN_ATOMIC_STACK) {
        in = malloc(n * sizeof(*in));
        out = fetch || replace ? malloc(n * sizeof(*out)) : out_stack;
        old = replace ? malloc(n * sizeof(*old)) : old_stack;
        pending = replace ? malloc(VBT_WIN_ATOMIC_BATCH * sizeof(*pending)) : pending_stack;
        if (in == NULL || out == NULL || old == NULL || pending == NULL) {
            st = VBT_ERR_NO_MEMORY;
            goto out;
        }
    }
    /* Accumulate messages to this target are applied before our atomics. */
    if (w->tgt[t].acc_msgs)
        st = vbt_win_flush_targets(w, NULL, t, VBT_WIN_FLUSH);
    if (st == VBT_OK && op->kind == VBT_WIN_CAS) {
        memcpy(&in[0], op->obuf, 8);
    } else if (st == VBT_OK && op->op != MPI_NO_OP) {
        if (op->otype->contig)
            memcpy(in, (const char *)op->obuf + op->otype->true_lb, n * 8);
        else
            vbt_dtype_pack(op->otype, op->obuf, op->ocount, 0, in, n * 8);
    }
    if (st == VBT_OK && req_p != NULL) {
        req = vbt_win_request_new(w, 0);
        if (req == NULL)
            st = VBT_ERR_NO_MEMORY;
    }
    if (st == VBT_OK && replace)
        st = replace_words(w, op, base, in, n, out, old, pending);
    for (size_t i = 0; i < n && st == VBT_OK && !replace; i++) {
        uint64_t raddr = element_addr(op->ttype, base, i);
        void *to = !fetch ? NULL : direct ? (void *)(rbase + i * 8) : (void *)&out[i];
        vbt_request_t *last = direct && i == n - 1 ? req : NULL;

        if (op->kind == VBT_WIN_CAS) {
            uint64_t compare;
            memcpy(&compare, op->cbuf, 8);
            st = post_atomic(w, t, VBT_TL_ATOMIC_CSWAP, in[0], compare, raddr, to, last);
        } else {
            st = post_atomic(w, t, VBT_TL_ATOMIC_FADD, op->op == MPI_NO_OP ? 0 : in[i], 0, raddr,
                             to, last);
        }
        if (st == VBT_OK && (i + 1) % VBT_WIN_ATOMIC_BATCH == 0 && i + 1 < n)
            st = vbt_win_wait_results(w, t); /* a bounded number in flight */
    }
    if (st == VBT_OK && !direct) {
        st = vbt_win_wait_results(w, t);
        if (st == VBT_OK && fetch)
            vbt_dtype_unpack(op->rtype, op->rbuf, op->rcount, 0, out, n * 8);
        if (req != NULL)
            vbt_p2p_request_done(req);
    }
    if (st != VBT_OK && req != NULL && direct) {
        /* Posted words complete on their own; the request is not handed out. Wait for them,
         * as the last one that would have completed it was never posted. */
        (void)vbt_win_wait_results(w, t);
        vbt_request_release(req);
        req = NULL;
    }
out:
    if (in != in_stack)
        free(in);
    if (out != out_stack)
        free(out);
    if (old != old_stack)
        free(old);
    if (pending != pending_stack)
        free(pending);
    if (st == VBT_OK) {
        w->fence_ops++;
        if (req_p != NULL)
            *req_p = req;
    }
    *st_p = st;
    return 1;
}

vbt_status_t vbt_win_lock_atomic(vbt_win_t *w, int target, vbt_tl_atomic_op_t kind,
                                 uint64_t operand, uint64_t compare, uint64_t *old_p)
{
    vbt_status_t st = post_atomic_key(w, target, kind, operand, compare, w->peers[target].lock_addr,
                                      w->rma[target].lock_rkey, old_p, NULL);
    return st == VBT_OK ? vbt_win_wait_results(w, target) : st;
}
