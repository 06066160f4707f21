/* Transport selection: which transport carries the messages to each peer, chosen once at
 * MPI_Init, and the calls the point-to-point protocols make through that choice.
 *
 *   self  a rank's messages to itself: straight into the matching engine (vbt_p2p.c)
 *   shm   ranks of the same node whose segment we mapped (transport-shm/)
 *   ib    every other rank, over verbs (transport-ib/)
 *
 * VBT_TRANSPORTS lists the ones a rank may use; each peer gets the first of self, shm, ib that
 * reaches it. A peer that none reaches fails MPI_Init with one message saying why. The choice
 * per peer is printed at VBT_LOG=info. Nothing above vbt_p2p.c knows which transport carried a
 * message. */
#ifndef VBT_TL_H
#define VBT_TL_H

#include <stddef.h>

#include "vbt_compiler.h"
#include "vbt_ib.h"
#include "vbt_pmix.h"
#include "vbt_shm.h"
#include "vbt_status.h"

typedef enum {
    VBT_TL_SELF = 0,
    VBT_TL_SHM = 1,
    VBT_TL_IB = 2,
} vbt_tl_kind_t;

/* One transport as the protocols see it. */
typedef struct {
    vbt_tl_kind_t kind;
    const char *name;
    /* vbt_ib_send / vbt_shm_send: hdr then payload, one message, ordered per peer. */
    vbt_status_t (*send)(int peer, const void *hdr, size_t hdr_len, const void *payload,
                         size_t len);
    size_t max_send;       /* largest hdr_len + len of one send */
    size_t rndv_threshold; /* larger messages go by this transport's rendezvous */
} vbt_tl_t;

/* Same signature for both transports: an arrived message; a finished RDMA WRITE. */
typedef void (*vbt_tl_recv_cb_t)(int src_world, const void *data, size_t len);
typedef void (*vbt_tl_put_cb_t)(void *cookie, vbt_status_t status);

typedef struct {
    const vbt_tl_t **peer; /* by world rank; NULL for none (only ever before init is done) */
    int ib_up;
    int shm_up;
    int cma; /* the shm rendezvous reads the sender's buffer with CMA (one copy) */
} vbt_tl_state_t;

extern vbt_tl_state_t vbt_tl;

/* Parse VBT_TRANSPORTS, bring up the listed transports, fence the modex, wire them up and pick
 * one per peer. Fails with VBT_ERR_INVALID_PARAM for a bad VBT_TRANSPORTS and
 * VBT_ERR_UNREACHABLE when some peer has no transport (both logged, naming the fix). */
vbt_status_t vbt_tl_init(const vbt_proc_info_t *proc, vbt_tl_recv_cb_t recv_cb,
                         vbt_tl_put_cb_t put_cb);
void vbt_tl_finalize(void);

/* The transport of a peer (world rank, not ourselves). */
static inline const vbt_tl_t *vbt_tl_of(int world)
{
    return vbt_tl.peer[world];
}

/* Does any peer go over verbs? (The progress engine spins less on a software RDMA device.) */
int vbt_tl_uses_ib(void);

/* Poll every transport once: arrivals are delivered through recv_cb. Returns the number of
 * events or a negative status on a fatal error. */
static inline int vbt_tl_progress(void)
{
    int n = 0, m;

    if (likely(vbt_tl.shm_up)) {
        n = vbt_shm_progress();
        if (unlikely(n < 0))
            return n;
    }
    if (vbt_tl.ib_up) {
        m = vbt_ib_progress();
        if (unlikely(m < 0))
            return m;
        n += m;
    }
    return n;
}

/* For waits that do not sleep (vbt_tl_block checks as it sleeps): notice a local peer that
 * died, at most every 100 ms, a clock read otherwise. VBT_OK, or VBT_ERR_PEER_FAILED (logged).
 * Over ib it sends the liveness probes due (at most every second, vbt_ib_check_liveness): a
 * dead peer shows up seconds later as the completion error of a probe, from progress. */
vbt_status_t vbt_tl_check_peers(void);

/* Sleep until any transport has something for us (a completion on the verbs CQ, a message or
 * freed ring space from a local peer), or timeout_ms passes: one poll() on the completion
 * channel and the shared-memory doorbell together, after arming both and polling once more so
 * that no wake-up is lost. Events found while arming are handled. VBT_OK on an event or a
 * timeout; a negative status when a transport failed. */
vbt_status_t vbt_tl_block(int timeout_ms);

#endif
