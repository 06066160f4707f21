/* The point-to-point protocols. Every message starts with a vbt_p2p_hdr_t (vbt_p2p.h).
 *
 * Eager: a message whose header and payload fit one transport send (VBT_EAGER_LIMIT) goes in
 * one, copied through the transport's bounce buffers (or inline); the receiver copies it from
 * the receive buffer into the posted receive, or into an unexpected-message buffer.
 *
 * Fragments: larger messages up to VBT_RNDV_THRESHOLD go as FRAG_FIRST + FRAGs, eager sends
 * handed to the transport back to back (so one slot per sender tracks them at the receiver).
 *
 * Which transport carries a peer's messages is vbt_tl.h's choice; which rendezvous, the
 * capabilities of that transport (runtime/base/vbt_tl_ops.h), never its name.
 *
 * Rendezvous by put (VBT_TL_CAP_PUT: InfiniBand's RDMA WRITE), above the transport's
 * rendezvous threshold (never to oneself: self messages go straight into the matching engine
 * with their payload):
 *   sender                                   receiver
 *   register buf (cache) ---- RTS ---------> match a posted receive, or queue the RTS as an
 *                            (tag, len, id)  unexpected message WITHOUT payload until a receive
 *                                            or MPI_Mrecv takes it; then register
 *                                            min(len, capacity) bytes of the receive buffer
 *                    <------ CTS ----------- (addr, key, bytes granted, its request id)
 *   put the granted bytes, straight from the user's buffer into the user's buffer (the
 *   transport splits and pipelines them)
 *                          ---- FIN -------> (its request id): deregister (cache put), done
 *   done when the last put completes (the data is in the receiver's memory).
 * No payload byte is copied on either side. A CTS grants only the receive buffer's length, so
 * a longer message is truncated (MPI_ERR_TRUNCATE) without a byte written past the buffer. A
 * synchronous send by rendezvous needs no ACK: the CTS comes only once the receive matched.
 * MPI_Probe reports the RTS's full length; a posted receive can be cancelled until an RTS
 * matches it.
 *
 * The end of the puts is signalled by a FIN message rather than a write with immediate data:
 * the contract orders a send posted after put() behind the put's data (RC executes a QP's work
 * requests in order), at the cost of one small inline SEND pipelined behind the WRITEs, not a
 * round trip. In exchange the FIN is an ordinary message: it carries a 64-bit id (an immediate
 * has 32 bits, so it would need a table of pending receives), it arrives with the header that
 * names its sender, it uses the existing credits and wire versioning, and transports without
 * immediate data work unchanged.
 *
 * Rendezvous by read (VBT_TL_CAP_READ_PEER: shared memory's CMA): the RTS carries the address
 * of the sender's buffer and the F_READ flag. Once a receive matches it, the receiver copies
 * the granted bytes straight out of the sender's memory with one read_peer() (one copy) and
 * answers DONE, which completes the send. Where the kernel refuses the read (ptrace scope,
 * seccomp; found at start-up, or by a failing read) the receiver answers a CTS with F_STREAM
 * instead.
 *
 * Rendezvous by streaming (VBT_TL_CAP_STREAM, and whenever either side's data is not
 * contiguous): the receiver answers a CTS with F_STREAM and no key, and the sender streams the
 * data as RDATA pieces through ordinary sends into the matched receive: two copies, pipelined
 * by the transport's queue depth, and never buffered whole at either end. Each piece names the
 * receive and its offset, so no per-sender state is needed and other messages may come in
 * between.
 *
 * Non-contiguous data (a derived datatype that is not one block; vbt_datatype.h): the API hands
 * contiguous data over as bytes, untouched; otherwise the request carries the datatype and
 * every protocol moves the data's packed form. Eager sends and fragments pack each piece into
 * a scratch buffer of one transport send (the transport copies it out before returning), and
 * the receiver unpacks each piece at its offset into the user's buffer, from the wire, from a
 * fragment or from an unexpected-message buffer. A rendezvous where either side is not
 * contiguous neither registers nor reads remote memory: the RTS says F_NONCONTIG when the
 * sender's data is scattered, and the receiver, if either side is, answers a CTS with
 * F_STREAM; the sender then streams RDATA pieces (packed from its datatype, over any
 * transport) that the receiver unpacks at each piece's offset. Messages to oneself are delivered
 * as fragments packed the same way. */
#include "vbt_config.h"
#include "vbt_p2p_int.h"
#include "vbt_progress.h"
#include "vbt_runtime.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

vbt_vci_t vbt_vcis[VBT_VCI_MAX];
int vbt_nvcis;
/* Every VCI's transports, for a sleep on all of them (set at vbt_p2p_init). */
static vbt_tl_set_t *vci_sets[VBT_VCI_MAX];

/* VBT_VCIS as it will be used: vbt_p2p_init refuses a value out of range before any message
 * moves, but communicators are made before it runs. */
static unsigned vci_count(void)
{
    return vbt_cfg.vcis >= 1 && vbt_cfg.vcis <= VBT_VCI_MAX ? (unsigned)vbt_cfg.vcis : 1;
}

/* Round robin by the context's slot (its id without the collective bit): MPI_COMM_WORLD on
 * the first, MPI_COMM_SELF on the second, and the communicators a program creates, which take
 * the lowest free slot, on the next ones in turn. Every member computes the same. */
vbt_vci_t *vbt_vci_of_context(uint32_t context_id)
{
    return &vbt_vcis[(context_id >> 1) % vci_count()];
}

void vbt_p2p_request_done_slow(vbt_request_t *req)
{
    if (req->flags & VBT_REQF_NOTIFY) { /* never bsend or freed */
        req->next = req->vci->notify;
        req->vci->notify = req;
        return;
    }
    if (req->flags & VBT_REQF_BSEND)
        vbt_bsend_release(req->bsend_block);
    if (req->flags & VBT_REQF_FREED)
        vbt_request_release_held(req);
}

/* Each installed hook once, unless it is running already (we are inside it). A hook may add
 * or remove hooks, itself included: the table is read afresh at every step. */
static int run_hooks(vbt_vci_t *vci)
{
    int n = 0;

    for (int i = 0; i < vci->nhooks; i++) {
        vbt_p2p_hook_fn *fn = vci->hooks[i].fn;
        void *arg = vci->hooks[i].arg;

        if (vci->hooks[i].running)
            continue;
        vci->hooks[i].running = 1;
        n += fn(arg);
        /* It may have moved (a hook before it removed): find it again. */
        for (int j = 0; j < vci->nhooks; j++) {
            if (vci->hooks[j].fn == fn && vci->hooks[j].arg == arg) {
                vci->hooks[j].running = 0;
                i = j;
                break;
            }
        }
    }
    return n;
}

int vbt_p2p_progress_more(vbt_vci_t *vci, int n)
{
    if (vci->npending > 0)
        vbt_p2p_drain_sendqs(vci);
    if (vci->nputs > 0)
        vbt_p2p_put_progress(vci);
    if (vci->nhooks > 0)
        n += run_hooks(vci);
    while (vci->notify != NULL) {
        vbt_request_t *req = vci->notify;
        vci->notify = req->next;
        req->next = NULL;
        req->x.notify.fn(req, req->x.notify.arg); /* may release req, post or send */
        n++;
    }
    if (unlikely(vci->failed != VBT_OK))
        return vci->failed;
    return n;
}

int vbt_p2p_progress(void)
{
    int n = vbt_p2p_progress_try(&vbt_vcis[0]);

    for (int i = 1; i < vbt_nvcis && n >= 0; i++) {
        int m = vbt_p2p_progress_try(&vbt_vcis[i]);
        n = m < 0 ? m : n + m;
    }
    return n;
}

/* A wait on one VCI whose own step found nothing progresses the others before it backs off:
 * what it waits for may depend on them (a rendezvous on another communicator whose receiver
 * sends our message only once it has the data), and the hooks run on the first. Returns what
 * their steps found; a failure is kept in the waiting VCI's state for its next step. */
static int progress_others(vbt_vci_t *vci)
{
    int n = 0;

    for (int i = 0; i < vbt_nvcis; i++) {
        int m;
        if (&vbt_vcis[i] == vci)
            continue;
        m = vbt_p2p_progress_try(&vbt_vcis[i]);
        if (unlikely(m < 0)) {
            if (vci->failed == VBT_OK)
                vci->failed = (vbt_status_t)m;
            return 1;
        }
        n += m;
    }
    return n;
}

/* Hooks run in the progress of the first VCI, which every wait drives. */
void vbt_p2p_hook_add(vbt_p2p_hook_fn *fn, void *arg)
{
    vbt_vci_t *vci = &vbt_vcis[0];

    for (int i = 0; i < vci->nhooks; i++)
        if (vci->hooks[i].fn == fn && vci->hooks[i].arg == arg)
            return;
    if (vci->nhooks == VBT_P2P_HOOKS_MAX) { /* a programming error: the layers are known */
        vbt_error("progress: more than %d progress hooks", VBT_P2P_HOOKS_MAX);
        abort();
    }
    vci->hooks[vci->nhooks].fn = fn;
    vci->hooks[vci->nhooks].arg = arg;
    vci->hooks[vci->nhooks].running = 0;
    vci->nhooks++;
}

void vbt_p2p_hook_remove(vbt_p2p_hook_fn *fn, void *arg)
{
    vbt_vci_t *vci = &vbt_vcis[0];

    for (int i = 0; i < vci->nhooks; i++) {
        if (vci->hooks[i].fn == fn && vci->hooks[i].arg == arg) {
            /* Keep the order of the others; a running hook below us keeps its flag. */
            for (int j = i + 1; j < vci->nhooks; j++)
                vci->hooks[j - 1] = vci->hooks[j];
            vci->nhooks--;
            return;
        }
    }
}

void vbt_p2p_set_hook(vbt_p2p_hook_fn *fn, void *arg)
{
    vbt_vci_t *vci = &vbt_vcis[0];

    if (vci->rma_hook != NULL)
        vbt_p2p_hook_remove(vci->rma_hook, NULL);
    vci->rma_hook = fn;
    if (fn != NULL)
        vbt_p2p_hook_add(fn, arg);
}

/* vbt_p2p_idle with MPI_THREAD_MULTIPLE: the waiting thread gives the lock up, naps, and looks
 * for dead peers only if it can take the lock back at once. */
static void idle_threaded(vbt_vci_t *vci, vbt_backoff_t *backoff)
{
    int depth = vbt_rlock_suspend(&vbt_rt.cs);

    if (vbt_backoff_nap(backoff) && vbt_rlock_try(&vbt_rt.cs)) {
        vbt_status_t status = vbt_tl_check_peers(vci_sets, vbt_nvcis);
        if (unlikely(status != VBT_OK) && vci->failed == VBT_OK)
            vci->failed = status;
        vbt_rlock_release(&vbt_rt.cs);
    }
    vbt_rlock_resume(&vbt_rt.cs, depth);
}

void vbt_p2p_idle_vci(vbt_vci_t *vci, vbt_backoff_t *backoff)
{
    vbt_status_t status;
    int can_block;

    /* The other VCIs found something: not idle, the caller looks at its flag again. */
    if (unlikely(vbt_nvcis > 1) && progress_others(vci) != 0)
        return;
    /* Outside the section (MULTIPLE): the engine's state is not ours to read. */
    if (unlikely(vbt_rt.cs.on)) {
        idle_threaded(vci, backoff);
        return;
    }
    /* Sends waiting for credits or put slots get them from completions that may raise no
     * event (unsignalled sends): poll for those rather than sleep. */
    can_block = vci->npending == 0 && vci->nputs == 0;
    for (int i = 0; unlikely(vbt_nvcis > 1) && i < vbt_nvcis; i++)
        if (vbt_vcis[i].npending != 0 || vbt_vcis[i].nputs != 0)
            can_block = 0;
    status = vbt_backoff_idle(vci_sets, vbt_nvcis, backoff, can_block);
    if (unlikely(status != VBT_OK) && vci->failed == VBT_OK)
        vci->failed = status; /* the next progress call returns it */
}

void vbt_p2p_idle(vbt_backoff_t *backoff)
{
    vbt_p2p_idle_vci(&vbt_vcis[0], backoff);
}

void vbt_p2p_polled(int found)
{
    vbt_vci_t *vci = &vbt_vcis[0];

    if (likely(vci->poll_yield_after == 0))
        return;
    if (found) {
        vci->poll_empty = 0;
        return;
    }
    if (++vci->poll_empty < vci->poll_yield_after)
        return;
    vci->poll_empty = vci->poll_yield_after; /* no wrap-around, however long it polls */
    vci->poll_yields++;
    sched_yield();
}

vbt_status_t vbt_p2p_wait_flag_outside(vbt_vci_t *vci, const volatile uint8_t *flag)
{
    int depth = vbt_rlock_suspend(&vbt_rt.cs);
    vbt_status_t status = vbt_p2p_wait_flag_loop(vci, flag, 1);

    vbt_rlock_resume(&vbt_rt.cs, depth);
    return status;
}

/* With MPI_THREAD_MULTIPLE a caller inside the critical section takes one step before it gives
 * the section up; the rest of the wait runs outside it, its progress calls only trying it. */
vbt_status_t vbt_p2p_wait_flag(const volatile uint8_t *flag)
{
    return vbt_p2p_wait_flag_inline(&vbt_vcis[0], flag);
}

/* Open one VCI: its engine state, and its transport instances brought up and published. */
static vbt_status_t vci_open(vbt_vci_t *vci, int index)
{
    memset(vci, 0, sizeof(*vci));
    vci->index = index;
    vci->my_world = vbt_rt.proc.rank;
    vci->world_size = vbt_rt.proc.size;
    vci->frag = calloc((size_t)vci->world_size, sizeof(*vci->frag));
    vci->sendq = calloc((size_t)vci->world_size, sizeof(*vci->sendq));
    if (vci->frag == NULL || vci->sendq == NULL)
        return VBT_ERR_NO_MEMORY;
    vbt_p2p_unexp_init(vci);
    vci_sets[index] = &vci->tl;
    return vbt_tl_open(
        &vci->tl, &vbt_rt.proc,
        &(vbt_tl_upcalls_t){.recv = vbt_p2p_recv_cb, .rma_done = vbt_p2p_put_cb, .arg = vci},
        index);
}

/* After the fence: connect its transports and size what depends on them. */
static vbt_status_t vci_connect(vbt_vci_t *vci)
{
    vbt_status_t status = vbt_tl_connect(&vci->tl, &vbt_rt.proc);

    if (status != VBT_OK)
        return status;
    for (int i = 0; i < vci->tl.nup; i++) {
        const vbt_tl_t *t = vci->tl.up[i];
        if (t->rndv_threshold > VBT_P2P_FRAG_MAX) {
            vbt_error("the %s transport's rendezvous threshold (%zu bytes: VBT_RNDV_THRESHOLD or "
                      "VBT_SHM_RNDV_THRESHOLD) is above 64m, the largest message sent as eager "
                      "fragments (a receiver buffers an unexpected one whole): set it to at "
                      "most 64m",
                      t->ops->name, t->rndv_threshold);
            return VBT_ERR_INVALID_PARAM;
        }
    }
    /* Non-contiguous data is packed here one transport send at a time (and in pieces of
     * VBT_P2P_SELF_PIECE to ourselves). */
    vci->scratch_len = VBT_P2P_SELF_PIECE;
    for (int w = 0; w < vci->world_size; w++)
        if (w != vci->my_world && vbt_tl_of(&vci->tl, w)->max_send > vci->scratch_len)
            vci->scratch_len = vbt_tl_of(&vci->tl, w)->max_send;
    vci->scratch = malloc(vci->scratch_len);
    vci->peer_cnt = calloc((size_t)vci->world_size, sizeof(*vci->peer_cnt));
    if (vci->scratch == NULL || vci->peer_cnt == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int w = 0; w < vci->world_size; w++)
        vci->peer_cnt[w] = w == vci->my_world ? &vci->stats.self : &vbt_tl_of(&vci->tl, w)->cnt;
    vci->poll_yield_after = vbt_progress_poll_yield_after();
    return VBT_OK;
}

/* Every rank must have as many VCIs: a communicator's messages travel on the VCI its context
 * id names on both sides. Each rank compares its count with rank 0's (published before the
 * fence), so a rank started with another VBT_VCIS says so instead of losing messages, and ends
 * the job: the ranks that agree with rank 0 cannot know, and would wait for it in the node's
 * barrier. */
static vbt_status_t check_vci_count(void)
{
    void *blob = NULL;
    size_t len = 0;
    int32_t theirs;
    vbt_status_t status;

    if (vbt_rt.proc.rank == 0)
        return VBT_OK;
    status = vbt_modex_get(0, "vbt.vcis", &blob, &len);
    if (status != VBT_OK || len != sizeof(theirs)) {
        free(blob);
        vbt_error("cannot read rank 0's number of VCIs (VBT_VCIS) from the modex: %s",
                  vbt_status_string(status != VBT_OK ? status : VBT_ERR_PMIX));
        return status != VBT_OK ? status : VBT_ERR_PMIX;
    }
    memcpy(&theirs, blob, sizeof(theirs));
    free(blob);
    if (theirs != vbt_nvcis) {
        vbt_error("VBT_VCIS=%d on this rank but %d on rank 0: it must be the same on every rank "
                  "(set it once for the whole job, e.g. mpirun -x VBT_VCIS=%d)",
                  vbt_nvcis, (int)theirs, (int)theirs);
        vbt_pmix_abort(MPI_ERR_OTHER, "VBT_VCIS differs between ranks");
    }
    return VBT_OK;
}

vbt_status_t vbt_p2p_init(void)
{
    int32_t count = vbt_cfg.vcis;
    vbt_status_t status;

    if (vbt_cfg.vcis < 1 || vbt_cfg.vcis > VBT_VCI_MAX) {
        vbt_error("VBT_VCIS=%d: the number of virtual communication interfaces must be 1 to %d",
                  vbt_cfg.vcis, VBT_VCI_MAX);
        return VBT_ERR_INVALID_PARAM;
    }
    /* Before the VCIs: their polling calls' yield depends on the progress mode. */
    status = vbt_progress_init();
    if (status != VBT_OK)
        return status;
    /* Every VCI's instances are published before the one fence, and connected after it. */
    vbt_nvcis = vbt_cfg.vcis;
    for (int i = 0; i < vbt_nvcis; i++) {
        status = vci_open(&vbt_vcis[i], i);
        if (status != VBT_OK)
            return status;
    }
    if (vbt_rt.proc.size > 1) {
        status = vbt_modex_put("vbt.vcis", &count, sizeof(count));
        if (status == VBT_OK)
            status = vbt_modex_fence();
        if (status == VBT_OK)
            status = check_vci_count();
        if (status != VBT_OK)
            return status;
    }
    for (int i = 0; i < vbt_nvcis; i++) {
        status = vci_connect(&vbt_vcis[i]);
        if (status != VBT_OK)
            return status;
    }
    /* A peer maps our on-node resources through our /proc entry after the fence: until every
     * rank of the node has done so, none may leave MPI_Init, or one that exits at once (a
     * failing program) makes the others fail to map it. Every rank of the node calls this,
     * whatever its VBT_TRANSPORTS says, so the fence always completes. */
    if (vbt_rt.proc.size > 1) {
        status = vbt_pmix_barrier_local(vbt_rt.proc.local_peers, vbt_rt.proc.local_size);
        if (status != VBT_OK)
            return status;
    }
    /* A transport whose NIC is work on our own cores asks to spin little (Soft-RoCE). */
    if (vbt_tl_spin_polls(&vbt_vcis[0].tl) > 0)
        vbt_backoff_set_spin((unsigned)vbt_tl_spin_polls(&vbt_vcis[0].tl));
    if (vbt_vcis[0].poll_yield_after > 0)
        vbt_debug("progress: polling calls yield the core after %u empty polls in a row",
                  vbt_vcis[0].poll_yield_after);
    if (vbt_nvcis > 1)
        vbt_info("%d virtual communication interfaces (VBT_VCIS): communicators are spread over "
                 "them by context id",
                 vbt_nvcis);
    return VBT_OK;
}

void vbt_p2p_stats(vbt_p2p_stats_t *sum)
{
    memset(sum, 0, sizeof(*sum));
    for (int i = 0; i < vbt_nvcis; i++) {
        const vbt_p2p_stats_t *s = &vbt_vcis[i].stats;
        sum->unexp_len += s->unexp_len;
        sum->unexp_hwm += s->unexp_hwm;
        sum->posted_len += s->posted_len;
        vbt_tl_counters_add(&sum->self, &s->self);
    }
}

void vbt_p2p_tl_counters(const char *name, vbt_tl_counters_t *sum, int *found_p)
{
    memset(sum, 0, sizeof(*sum));
    *found_p = 0;
    for (int v = 0; v < vbt_nvcis; v++) {
        const vbt_tl_set_t *ts = &vbt_vcis[v].tl;
        for (int i = 0; i < ts->nup; i++) {
            if (strcmp(ts->up[i]->ops->name, name) == 0) {
                vbt_tl_counters_add(sum, &ts->up[i]->cnt);
                *found_p = 1;
            }
        }
    }
}

void vbt_p2p_sleeps(uint64_t *sleeps_p, uint64_t *wakeups_p, uint64_t *blocked_ns_p)
{
    *sleeps_p = *wakeups_p = *blocked_ns_p = 0;
    for (int i = 0; i < vbt_nvcis; i++) {
        *sleeps_p += vbt_vcis[i].tl.sleeps;
        *wakeups_p += vbt_vcis[i].tl.wakeups;
        *blocked_ns_p += vbt_vcis[i].tl.blocked_ns;
    }
}

vbt_tl_set_t *vbt_p2p_tl(void)
{
    return &vbt_vcis[0].tl;
}

vbt_status_t vbt_p2p_flush(void)
{
    for (int i = 0; i < vbt_nvcis; i++) {
        vbt_vci_t *vci = &vbt_vcis[i];
        while (vci->npending > 0 || vci->nputs > 0) {
            int n = vbt_p2p_progress();
            if (n < 0)
                return (vbt_status_t)n;
        }
    }
    return VBT_OK;
}

static void vci_cleanup(vbt_vci_t *vci)
{
    /* Its free requests back to the pool (destroyed after us, or kept for a next init). */
    while (vci->head.req_free != NULL) {
        vbt_request_t *req = vci->head.req_free;
        vci->head.req_free = req->next;
        vbt_objpool_free(&vbt_request_pool, req);
    }
    vbt_tl_finalize(&vci->tl);
    free(vci->scratch);
    free(vci->peer_cnt);
    free(vci->frag);
    free(vci->sendq);
    vbt_p2p_unexp_cleanup(vci);
    memset(vci, 0, sizeof(*vci));
}

void vbt_p2p_cleanup(void)
{
    if (vbt_vcis[0].poll_yield_after > 0)
        vbt_debug("progress: polling calls yielded the core %llu times (after %u empty polls "
                  "in a row)",
                  (unsigned long long)vbt_vcis[0].poll_yields, vbt_vcis[0].poll_yield_after);
    /* In reverse order of their opening. */
    for (int i = vbt_nvcis - 1; i >= 0; i--)
        vci_cleanup(&vbt_vcis[i]);
    vbt_nvcis = 0;
}
