/* Transport selection: which transport carries the messages to each peer, chosen once at
 * MPI_Init, and the calls the protocols make through that choice. The transports are the
 * entries of vbt_tl_table (runtime/vbt_tl_table.c), each reached only through its ops table
 * (runtime/base/vbt_tl_ops.h, the contract); a rank's messages to itself ("self") never reach
 * a transport: vbt_p2p.c delivers them straight into the matching engine.
 *
 * VBT_TRANSPORTS lists the ones a rank may use; each peer gets the first of the table's
 * transports that reaches it. A peer that none reaches fails MPI_Init with one message saying
 * why. The choice per peer is printed at VBT_LOG=info. The protocols choose by the chosen
 * transport's limits and capabilities, never by its name. */
#ifndef VBT_TL_H
#define VBT_TL_H

#include <stddef.h>

#include "vbt_compiler.h"
#include "vbt_pmix.h"
#include "vbt_status.h"
#include "vbt_tl_ops.h"

/* At most this many transports in the table. */
#define VBT_TL_MAX 4

/* One transport as the protocols see it: its interface object (limits, capabilities, send). */
typedef vbt_tl_iface_t vbt_tl_t;

/* A table entry as vbt_tl_open found it. */
typedef struct vbt_tl_set vbt_tl_set_t;
typedef struct {
    const vbt_tl_ops_t *ops;
    int wanted;            /* named in VBT_TRANSPORTS */
    vbt_tl_iface_t *iface; /* NULL: not up */
    char key[32];          /* the modex key of its address blob: "<name>.addr" */
    char why[832];         /* why it is not up, for the unreachable-peer message */
    int npeers;            /* peers it carries */
    vbt_tl_upcalls_t up;   /* the caller's, with peer_addr reading this entry's key */
} vbt_tl_slot_t;

/* One set of transport instances: one of each transport that came up, and the choice per
 * peer. A virtual communication interface (vbt_p2p_int.h) owns one, so everything in it is
 * driven by one thread at a time (its owner's lock). */
struct vbt_tl_set {
    vbt_tl_t **peer;          /* by world rank; NULL for ourselves */
    vbt_tl_t *up[VBT_TL_MAX]; /* the instances that are up, in table order */
    int nup;
    /* vbt_tl_block's sleeps (counted on the first set it sleeps on), for MPI_T's performance
     * variables: how many, how many ended by an event (the others timed out), and the
     * nanoseconds spent in them. */
    uint64_t sleeps;
    uint64_t wakeups;
    uint64_t blocked_ns;
    vbt_tl_slot_t slot[VBT_TL_MAX];
    int nslots;
    int instance; /* which of the process's sets (vbt_tl_open) */
};

/* Add counters b into a. */
static inline void vbt_tl_counters_add(vbt_tl_counters_t *a, const vbt_tl_counters_t *b)
{
    a->msgs_sent += b->msgs_sent;
    a->bytes_sent += b->bytes_sent;
    a->rndv_sent += b->rndv_sent;
    a->msgs_recvd += b->msgs_recvd;
    a->bytes_recvd += b->bytes_recvd;
    a->rndv_recvd += b->rndv_recvd;
    a->stalls += b->stalls;
}

/* Bringing up a process's sets: vbt_tl_open for each, then one modex fence (vbt_modex_fence),
 * then vbt_tl_connect for each, then vbt_pmix_barrier_local once (a peer maps our on-node
 * resources after the fence: none may leave MPI_Init before every rank of the node has).
 *
 * vbt_tl_open parses VBT_TRANSPORTS, brings up instance `instance` of each listed transport
 * and publishes its address (the first instance under "<name>.addr", the others under
 * "<name>.addr.<instance>"). up gives the arrival and completion upcalls (its peer_addr is
 * vbt_tl's own: the modex). Fails with VBT_ERR_INVALID_PARAM for a bad VBT_TRANSPORTS (logged,
 * naming the fix). */
vbt_status_t vbt_tl_open(vbt_tl_set_t *ts, const vbt_proc_info_t *proc, const vbt_tl_upcalls_t *up,
                         int instance);
/* After the fence: wire the instances up and pick one per peer. VBT_ERR_UNREACHABLE when some
 * peer has no transport (logged, saying why for each transport). */
vbt_status_t vbt_tl_connect(vbt_tl_set_t *ts, const vbt_proc_info_t *proc);
void vbt_tl_finalize(vbt_tl_set_t *ts);

/* The transport of a peer (world rank, not ourselves). */
static inline vbt_tl_t *vbt_tl_of(const vbt_tl_set_t *ts, int world)
{
    return ts->peer[world];
}

/* Send hdr then payload to a peer over its transport. */
static inline vbt_status_t vbt_tl_send(vbt_tl_t *tl, int peer, const void *hdr, size_t hdr_len,
                                       const void *payload, size_t len)
{
    return tl->send(tl, peer, hdr, hdr_len, payload, len);
}

/* The fewest polls any used transport wants a wait to spin before it yields (0: no wish). */
int vbt_tl_spin_polls(const vbt_tl_set_t *ts);

/* Poll every transport once: arrivals are delivered through the recv upcall. Returns the
 * number of events or a negative status on a fatal error. */
static inline int vbt_tl_progress(vbt_tl_set_t *ts)
{
    int n = 0;

    for (int i = 0; i < ts->nup; i++) {
        int m = ts->up[i]->ops->progress(ts->up[i]);
        if (unlikely(m < 0))
            return m;
        n += m;
    }
    return n;
}

/* For waits that do not sleep (vbt_tl_block checks as it sleeps): the liveness check of every
 * transport of the nsets sets (a clock read unless one is due). VBT_OK, or the first
 * VBT_ERR_PEER_FAILED (logged). */
vbt_status_t vbt_tl_check_peers(vbt_tl_set_t *const *sets, int nsets);

/* Sleep until any transport of the nsets sets has something for us, or timeout_ms passes: one
 * poll() on every transport's wake-up descriptor together, after each armed its own and looked once
 * more, so that no wake-up is lost. Events found while arming are handled. VBT_OK on an event or a
 * timeout; a negative status when a transport failed. */
vbt_status_t vbt_tl_block(vbt_tl_set_t *const *sets, int nsets, int timeout_ms);

#endif
