/* The transport contract: everything the runtime's protocols may ask of a transport, and all
 * that a transport may ask of the runtime. Open MPI's btl.h and UCX's uct.h are the models: one
 * ops table per transport, an interface object per instance, limits and capability flags that
 * the protocols choose by. No protocol names a transport; no transport sees PMIx, MPI objects
 * or the runtime's headers (this header lives in runtime/base/, the only runtime folder a
 * transport's include path has).
 *
 * Life of an instance (vbt_tl.c drives it; the white-box tests drive it by hand):
 *   init       open the resource, fill the interface's limits and capabilities, and pack the
 *              address blob the runtime publishes for this rank (fixed size: what a rank
 *              publishes does not grow with the job). No peer is known yet.
 *   (the runtime publishes every instance's blob and fences once)
 *   wireup     peers' addresses may be asked for from now on (upcall peer_addr); a transport
 *              that connects on first use connects nothing here.
 *   reaches    whether this instance can carry messages to a peer: the runtime gives each peer
 *              the first transport of its table that reaches it.
 *   send / put / get / atomic / read_peer / progress / sleep ...  any number of times
 *   finalize   drain what the peers must still get, destroy everything.
 * Every call on one instance comes from one thread at a time: the caller serialises them. An
 * instance keeps all of its state in its interface object, so two instances (two NICs, or a
 * test with no MPI ranks at all) are independent, and a later MPI_THREAD_MULTIPLE can give
 * each thread or communicator its own.
 *
 * Return conventions: VBT_OK; VBT_ERR_NO_RESOURCE for back-pressure (nothing was done, call
 * again after progress); any other status is an error the transport has already logged once,
 * with the peer and the cause. */
#ifndef VBT_TL_OPS_H
#define VBT_TL_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vbt_status.h"

typedef struct vbt_tl_iface vbt_tl_iface_t;
typedef struct vbt_tl_ops vbt_tl_ops_t;
/* A registration held by one operation (opaque to the runtime; the transport's cache entry). */
typedef struct vbt_tl_mem vbt_tl_mem_t;

/* ---- capabilities ------------------------------------------------------------------------- */
enum {
    /* put(): one-sided write of registered local memory into a peer's registered memory, and
     * a send posted after put() returned VBT_OK arrives after that data is in place. */
    VBT_TL_CAP_PUT = 1u << 0,
    /* get(): one-sided read of a peer's registered memory into registered local memory. */
    VBT_TL_CAP_GET = 1u << 1,
    /* atomic(): 64-bit fetch-and-add / compare-and-swap on a peer's registered memory. */
    VBT_TL_CAP_ATOMIC_FADD64 = 1u << 2,
    VBT_TL_CAP_ATOMIC_CSWAP64 = 1u << 3,
    /* read_peer(): one copy straight out of a peer process's memory, no registration (CMA). */
    VBT_TL_CAP_READ_PEER = 1u << 4,
    /* Ordered sends that may be pipelined back to back: a rendezvous may stream its data as
     * pieces through send(). Without it, and without PUT or READ_PEER, a transport carries
     * only eager messages and fragments. */
    VBT_TL_CAP_STREAM = 1u << 5,
    /* put(), get() and atomic() also take our own rank as the peer (a loopback through the
     * device, so our own atomics are atomic with the peers' on the same memory). */
    VBT_TL_CAP_RMA_SELF = 1u << 6,
};

/* Access a registration grants beyond local reads. */
enum {
    VBT_TL_MEM_REMOTE_WRITE = 1u << 0, /* the target of a peer's put() */
    VBT_TL_MEM_REMOTE_READ = 1u << 1,  /* the source of a peer's get() */
    VBT_TL_MEM_REMOTE_ATOMIC = 1u << 2,
    VBT_TL_MEM_LOCAL_WRITE = 1u << 3, /* the destination of our get() or an atomic's result */
};

typedef enum {
    VBT_TL_ATOMIC_FADD = 1, /* *remote += operand; result: the old value */
    VBT_TL_ATOMIC_CSWAP,    /* if (*remote == compare) *remote = operand; result: the old value */
} vbt_tl_atomic_op_t;

/* ---- what the runtime gives a transport --------------------------------------------------- */
typedef struct {
    int rank;               /* ours, in 0 .. size - 1 */
    int size;               /* peers are ranks 0 .. size - 1 */
    const int *local_peers; /* ranks on this node (ourselves included), ascending */
    int local_size;
    const char *job_name; /* the job's name (its PMIx namespace), "" when it has none: a
                             label for what a transport creates, so leaks are traceable */
    int instance;         /* which of this process's instances of the transport (0, 1, ...:
                             one per virtual communication interface), for the same labels */
} vbt_tl_job_t;

typedef struct {
    /* An arrived message, in order per sender; data is valid only during the call. The
     * callback may call send() (a nested progress() returns 0). */
    void (*recv)(void *arg, int src, const void *data, size_t len);
    /* Every piece of one put(), get() or atomic() completed, or one failed (logged). */
    void (*rma_done)(void *arg, void *cookie, vbt_status_t status);
    /* The blob `peer` published for this transport (malloc'ed: the transport frees it), fetched
     * on demand, so connecting on first use costs a rank nothing for the peers it never talks
     * to. VBT_ERR_NOT_FOUND when the peer published none (it does not run this transport). */
    vbt_status_t (*peer_addr)(void *addr_arg, int peer, void **blob_p, size_t *len_p);
    void *arg;      /* recv's and rma_done's first argument: the instance's owner */
    void *addr_arg; /* peer_addr's: which of the runtime's published blobs */
} vbt_tl_upcalls_t;

/* The largest address blob a transport publishes. */
#define VBT_TL_ADDR_MAX 256

/* ---- counters (MPI_T's performance variables) ---------------------------------------------
 * Kept in the interface object, plain increments by the one thread that drives the instance
 * (no atomics, no branches). The runtime counts the MPI messages it hands to the transport and
 * those that arrive through it (a message once, however many pieces: payload bytes, not the
 * headers), and the sends the transport refused for want of credits or ring cells. */
typedef struct {
    uint64_t msgs_sent;
    uint64_t bytes_sent;
    uint64_t rndv_sent; /* of msgs_sent: by rendezvous; the others went eagerly */
    uint64_t msgs_recvd;
    uint64_t bytes_recvd;
    uint64_t rndv_recvd;
    uint64_t stalls; /* sends queued because the transport said VBT_ERR_NO_RESOURCE */
} vbt_tl_counters_t;

struct vbt_rcache;

/* ---- the interface object ----------------------------------------------------------------
 * Each transport's instance struct begins with this (the runtime reads only these fields; the
 * transport casts to its own type). Filled by init, final after wireup. */
typedef vbt_status_t (*vbt_tl_send_fn_t)(vbt_tl_iface_t *iface, int peer, const void *hdr,
                                         size_t hdr_len, const void *payload, size_t len);

struct vbt_tl_iface {
    vbt_tl_send_fn_t send; /* ops->send, here so the message path loads it with the limits */
    const vbt_tl_ops_t *ops;
    unsigned caps;         /* VBT_TL_CAP_*; READ_PEER may be cleared later (a refused read) */
    size_t max_send;       /* largest hdr_len + len of one send */
    size_t rndv_threshold; /* larger messages go by rendezvous (the transport's knob) */
    int spin_polls;        /* polls a wait should spin before it yields (0: the default);
                              a software NIC whose work runs on our cores wants few */
    vbt_tl_counters_t cnt; /* kept by the runtime (see above) */
    const struct vbt_rcache *rcache; /* the registration cache, for its statistics, or NULL */
};

/* ---- the ops table ----------------------------------------------------------------------- */
struct vbt_tl_ops {
    const char *name; /* as VBT_TRANSPORTS and the logs say it */

    /* Open the instance for job. *addr_len_p is the capacity of addr on entry (at least
     * VBT_TL_ADDR_MAX). On success *iface_p is set and the address blob is in
     * addr[0 .. *addr_len_p) (0: nothing to publish, the instance reaches nobody, e.g. shm
     * alone on its node; it is still polled, as a peer may reach it). VBT_ERR_NO_DEVICE: nothing
     * usable here (not an error: why[] says what was found instead, for the unreachable-peer
     * message). Any other error was logged. */
    vbt_status_t (*init)(const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up,
                         vbt_tl_iface_t **iface_p, void *addr, size_t *addr_len_p, char *why,
                         size_t why_len);
    /* After the fence: peers' blobs can be fetched (up->peer_addr). */
    vbt_status_t (*wireup)(vbt_tl_iface_t *iface);
    /* 1 when this instance carries messages to peer (never asked for ourselves). */
    int (*reaches)(vbt_tl_iface_t *iface, int peer);
    void (*finalize)(vbt_tl_iface_t *iface);

    /* Deliver arrivals (up->recv), retire completions (up->rma_done). Returns the number of
     * events (>= 0) or a negative status on a fatal error. */
    int (*progress)(vbt_tl_iface_t *iface);
    /* Sleeping on several transports in one poll(): sleep_begin arms the wake-up and looks
     * once more (events found are handled, *sleep_p = 0: do not sleep); with *sleep_p = 1 the
     * caller polls wait_fd() for POLLIN, at most max_sleep_ms() (-1: no limit), then calls
     * sleep_end(readable, timed_out). No wake-up is lost between the two. */
    int (*wait_fd)(vbt_tl_iface_t *iface);
    vbt_status_t (*sleep_begin)(vbt_tl_iface_t *iface, int *sleep_p);
    vbt_status_t (*sleep_end)(vbt_tl_iface_t *iface, int readable, int timed_out);
    int (*max_sleep_ms)(vbt_tl_iface_t *iface);
    /* For waits that found nothing to do: notice dead peers (cheap unless a check is due).
     * VBT_ERR_PEER_FAILED (logged) for a peer found dead. */
    vbt_status_t (*check_liveness)(vbt_tl_iface_t *iface);

    /* hdr (<= 64 bytes) then payload to peer, one message, ordered per peer. VBT_OK: both
     * buffers may be reused at once. */
    vbt_tl_send_fn_t send;

    /* Registration (PUT, GET or atomics): a cached registration covering [addr, addr + len),
     * len > 0, with at least `access` (VBT_TL_MEM_*). A registration never outlives its
     * mapping: memory the application frees or unmaps is never served stale. */
    vbt_status_t (*mem_get)(vbt_tl_iface_t *iface, const void *addr, size_t len, unsigned access,
                            vbt_tl_mem_t **mem_p);
    void (*mem_put)(vbt_tl_iface_t *iface, vbt_tl_mem_t *mem);
    /* The key a peer needs to reach it (put, get, atomic). */
    uint64_t (*mem_rkey)(vbt_tl_iface_t *iface, const vbt_tl_mem_t *mem);

    /* Zero-copy one-sided transfers of len > 0 bytes between [laddr, laddr + len) inside mem
     * and the peer's [raddr, raddr + len) (rkey): split as the transport needs and pipelined;
     * a prefix may be posted (*posted_p bytes) with VBT_ERR_NO_RESOURCE for the rest.
     * VBT_OK: all of it is posted, and up->rma_done(cookie) follows once all of it is done.
     * NULL where the capability is missing. */
    vbt_status_t (*put)(vbt_tl_iface_t *iface, int peer, const void *laddr, size_t len,
                        vbt_tl_mem_t *mem, uint64_t raddr, uint64_t rkey, void *cookie,
                        size_t *posted_p);
    vbt_status_t (*get)(vbt_tl_iface_t *iface, int peer, void *laddr, size_t len, vbt_tl_mem_t *mem,
                        uint64_t raddr, uint64_t rkey, void *cookie, size_t *posted_p);
    /* A 64-bit atomic on the peer's [raddr, raddr + 8) (8-byte aligned); the old value lands in
     * *result (8 bytes inside result_mem, LOCAL_WRITE) before up->rma_done(cookie). */
    vbt_status_t (*atomic)(vbt_tl_iface_t *iface, int peer, vbt_tl_atomic_op_t op, uint64_t operand,
                           uint64_t compare, uint64_t *result, vbt_tl_mem_t *result_mem,
                           uint64_t raddr, uint64_t rkey, void *cookie);
    /* One copy of len bytes at the peer's address remote into local (READ_PEER).
     * VBT_ERR_UNSUPPORTED when the kernel refuses it (then READ_PEER is cleared and the caller
     * streams instead); VBT_ERR_INVALID_PARAM for a range the peer does not have mapped. */
    vbt_status_t (*read_peer)(vbt_tl_iface_t *iface, int peer, void *local, uint64_t remote,
                              size_t len);

    /* For verbatim-info: what this transport would use on this machine and why. */
    void (*describe)(FILE *out);
};

/* The transports built into this library, in the order the runtime tries them per peer (after
 * self, which the runtime handles). NULL-terminated. A new transport is one folder that
 * defines its vbt_tl_ops_t plus one entry here (runtime/vbt_tl_table.c). */
extern const vbt_tl_ops_t *const vbt_tl_table[];

#endif
