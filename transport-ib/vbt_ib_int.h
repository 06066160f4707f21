/* transport-ib private types: the wire and address formats, the per-peer endpoint, the
 * instance (vbt_ib_iface_t), and the helpers the files of transport-ib/ share. White-box tests
 * may include it; the runtime knows only vbt_ib_tl_ops (vbt_ib.h) and sees an instance as the
 * vbt_tl_iface_t it begins with. Nothing here is process-wide: every function takes the
 * instance (the memory hooks of the registration cache are the one exception, vbt_ib_rndv.c). */
#ifndef VBT_IB_INT_H
#define VBT_IB_INT_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>

#include "vbt_clock.h"
#include "vbt_compiler.h"
#include "vbt_ib.h"
#include "vbt_tl_ops.h"

/* ---- sizing ---------------------------------------------------------------------------------
 * Receive memory is one pool shared by all peers through the SRQ. Each peer gets a fixed number
 * of credits (messages it may have outstanding towards us); the SRQ holds credits + CTL_RESERVE
 * buffers per peer. Credits shrink as the world grows so that a world's worth stays near
 * RX_TARGET buffers: 64 credits up to 3 peers, 4 at 64 peers and beyond. Every rank computes
 * the same credits from the world size. The buffers are posted in chunks as peers connect
 * (vbt_ib_pool.c): at init for VBT_IB_RX_FIRST_PEERS peers, then doubling the peers covered
 * each time a connection exceeds them, so memory follows the peers a rank talks to. */
#define VBT_IB_CREDITS_MAX 64
#define VBT_IB_CREDITS_MIN 4
#define VBT_IB_RX_TARGET   256
/* Peers the receive buffers posted at init cover. A rank of a large job typically talks to a
 * handful of peers (neighbours, a tree of collectives); 8 keeps what is pinned at init under
 * ~0.5 MiB at 64 ranks and beyond. No knob: growth is cheap (one registration per doubling on
 * the connect path), so no user needs to tune it. White-box tests lower it (vbt_ib_params_t,
 * given to vbt_ib_open) to make small jobs grow. */
#define VBT_IB_RX_FIRST_PEERS 8
/* Chunks of receive buffers: the first, then one per doubling of the peers covered; a world
 * of 2^24 peers (the width of the peer field of send wr_ids) needs 22 from 8 peers, 25 from 1. */
#define VBT_IB_RX_CHUNKS_MAX 32
/* Receive buffers per peer reserved for the messages that take no credit: at most 2 credit
 * messages (each returns at least half a window, and a sender never has more than one window
 * unreturned: see vbt_ib_credit.c) and 1 FIN can be un-reposted at a time. */
#define VBT_IB_CTL_RESERVE 3
/* Bounce buffers (registered copies of non-inline sends), shared by all peers. */
#define VBT_IB_BOUNCE_MIN 32
#define VBT_IB_BOUNCE_MAX 128
/* Signal one send in this many (fewer when bounce buffers are scarce: vbt_ib_eager.c). */
#define VBT_IB_SIG_EVERY  16
#define VBT_IB_POLL_BATCH 16
/* Inline data we ask each QP for; what the device grants is read back (rxe: 256+). */
#define VBT_IB_INLINE_WANT 256
#define VBT_IB_EAGER_MIN   256
#define VBT_IB_EAGER_MAX   (1u << 20)
#define VBT_IB_HDR_MAX     64 /* largest runtime header vbt_ib_send takes */
/* One-sided: one RDMA WRITE or READ carries at most the knob VBT_IB_WRITE_MAX (1 MiB by default,
 * VBT_IB_WRITE_FLOOR to VBT_IB_WRITE_CEIL) and the port's max_msg_sz, and at most
 * VBT_IB_PUT_WINDOW WRITEs, READs and atomics per peer are in flight. The default's 8 MiB in
 * flight covers the
 * bandwidth-delay product of any single link (25 GB/s x 10 us is 250 KB) many times over, while
 * fragments bound how long an eager message to the same peer waits behind a large transfer in the
 * send queue (1 MiB is ~80 us at 12.5 GB/s) and leave the rest of the queue to eager traffic. */
#define VBT_IB_WRITE_FLOOR 4096u
#define VBT_IB_WRITE_CEIL  (1ul << 30)
#define VBT_IB_PUT_WINDOW  8

/* ---- wire format ----------------------------------------------------------------------------
 * Every SEND starts with this header. Host byte order: all ranks of a job share an ABI. */
#define VBT_IB_WIRE_VERSION 1

typedef struct __attribute__((packed)) {
    uint8_t version;  /* VBT_IB_WIRE_VERSION */
    uint8_t type;     /* vbt_ib_msg_type_t */
    uint16_t credits; /* receive buffers the sender re-posted for the receiver's messages */
    uint32_t src;     /* sender's world rank (checked against the QP it arrived on) */
} vbt_ib_hdr_t;

typedef enum {
    VBT_IB_MSG_DATA = 1,   /* runtime header + payload follow; takes a credit */
    VBT_IB_MSG_CREDIT = 2, /* nothing follows; takes no credit (reserved receive buffers) */
    VBT_IB_MSG_FIN = 3,    /* the sender is finalizing; takes no credit */
} vbt_ib_msg_type_t;

/* ---- work request ids -----------------------------------------------------------------------
 * Receives: RECV bit | chunk << 32 | buffer index in the chunk. Sends: kind << 56 | peer << 32 |
 * send-queue sequence. The connection manager's UD QP (vbt_ib_cm.c) sets the UD bit on its receives
 * and sends: UD | RECV | buffer index, UD | send slot. Kinds stay below 64, so the bit is free. */
#define VBT_IB_WRID_RECV        (1ull << 63)
#define VBT_IB_WRID_UD          (1ull << 62)
#define VBT_IB_WRID_KIND_SHIFT  56
#define VBT_IB_WRID_PEER_SHIFT  32
#define VBT_IB_WRID_CHUNK_SHIFT 32

typedef enum {
    VBT_IB_OP_DATA = 0,     /* eager send */
    VBT_IB_OP_CREDIT = 1,   /* explicit credit message */
    VBT_IB_OP_FIN = 2,      /* signalled FIN message of finalize */
    VBT_IB_OP_WRITE = 3,    /* rendezvous RDMA WRITE */
    VBT_IB_OP_LIVENESS = 4, /* zero-length RDMA WRITE asking an idle peer's NIC for an ACK */
    VBT_IB_OP_READ = 5,     /* RDMA READ of a get */
    VBT_IB_OP_ATOMIC = 6,   /* FETCH_AND_ADD or CMP_AND_SWAP */
} vbt_ib_op_t;

/* sq_put[] value of a WRITE or READ that is not the last of its put or get (no callback), and
 * of the last one of an operation whose cookie is NULL (sq_put NULL: not one-sided). */
#define VBT_IB_PUT_MORE       ((void *)1)
#define VBT_IB_RMA_NULL       ((void *)2)
#define VBT_IB_RMA_COOKIE(_c) ((_c) != NULL ? (_c) : VBT_IB_RMA_NULL)

static inline uint64_t vbt_ib_send_wrid(vbt_ib_op_t op, int peer, uint32_t seq)
{
    return ((uint64_t)op << VBT_IB_WRID_KIND_SHIFT) | ((uint64_t)(uint32_t)peer << 32) | seq;
}

/* ---- the address blob: what init returns for the runtime to publish (as "ib.addr") -------
 * A fixed size, whatever the world size: the port's address and the UD QP of the connection
 * manager. RC QPs are created and connected on first use (vbt_ib_cm.c), which fetches the
 * peer's blob through the peer_addr upcall. */
#define VBT_IB_ADDR_VERSION 2

typedef struct __attribute__((packed)) {
    uint8_t version;    /* VBT_IB_ADDR_VERSION */
    uint8_t link_layer; /* IBV_LINK_LAYER_* */
    uint8_t active_mtu; /* enum ibv_mtu of the port */
    uint8_t use_grh;    /* address by GID (RoCE, or VBT_IB_GID_INDEX on InfiniBand) */
    uint16_t lid;
    uint16_t reserved;
    uint32_t eager_limit; /* every rank must use the same */
    uint32_t ud_qpn;      /* the connection manager's UD QP (qkey VBT_IB_QKEY) */
    uint8_t gid[16];
} vbt_ib_addr_t;

/* ---- connection manager: REQ and REP over UD ----------------------------------------------
 * Connecting to a peer: create the RC QP (INIT), send REQ with its number and PSN; the peer
 * creates its QP, brings it to RTS towards ours and answers REP with its own; we bring ours to
 * RTS. A side posts on the RC QP only once it knows the peer's QP is past RTR: after a REP, or
 * after any message arrived on the RC QP. Lost REQs are retransmitted (VBT_IB_CM_RETX_*); a
 * REQ for a connection that exists is answered again (its REP may have been lost). */
#define VBT_IB_CM_VERSION    2           /* 2: rd_atomic */
#define VBT_IB_QKEY          0x56425431u /* "VBT1"; high bit clear: not a controlled qkey */
#define VBT_IB_UD_GRH        40          /* every UD receive starts with room for a GRH */
#define VBT_IB_UD_RECV       64          /* receive buffers of the UD QP */
#define VBT_IB_UD_SEND       16          /* send slots of the UD QP */
#define VBT_IB_UD_SLOT       128         /* bytes per UD buffer: GRH + message, rounded */
#define VBT_IB_CM_RETX_FIRST 50          /* ms before the first REQ retransmission */
#define VBT_IB_CM_RETX_MAX   1000        /* ms: the backoff doubles up to this */
#define VBT_IB_CM_WARN_MS    10000       /* a peer silent this long gets one warning */

typedef enum {
    VBT_IB_CM_REQ = 1,
    VBT_IB_CM_REP = 2,
} vbt_ib_cm_type_t;

typedef struct __attribute__((packed)) {
    uint8_t version;    /* VBT_IB_CM_VERSION */
    uint8_t type;       /* vbt_ib_cm_type_t */
    uint8_t active_mtu; /* enum ibv_mtu of the sender's port */
    uint8_t use_grh;
    uint16_t lid;
    uint8_t rd_atomic; /* READs and atomics the sender's QP takes in flight from the receiver's
                          (its max_dest_rd_atomic): the receiver's max_rd_atomic at most */
    uint8_t reserved;
    uint32_t src;         /* sender's world rank */
    uint32_t qpn;         /* the sender's RC QP for the receiver */
    uint32_t psn;         /* its initial send PSN */
    uint32_t eager_limit; /* must be the receiver's */
    uint8_t gid[16];
} vbt_ib_cm_msg_t;

/* ---- device choice ------------------------------------------------------------------------ */
typedef struct {
    char name[64];
    uint8_t port;
    struct ibv_port_attr port_attr;
    struct ibv_device_attr dev_attr;
    int gid_index; /* -1: InfiniBand addressed by LID, no GRH */
    int gid_type;  /* IBV_GID_TYPE_*, -1 unknown */
    union ibv_gid gid;
    char why[200]; /* why this port and GID, for the info log and verbatim-info */
} vbt_ib_choice_t;

/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d): RoCE v2 over IPv4. */
static inline int vbt_ib_gid_is_v4mapped(const uint8_t *raw)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    for (int i = 0; i < 12; i++) {
        if (raw[i] != prefix[i])
            return 0;
    }
    return 1;
}

/* ---- pool and queue sizes for a number of peers ------------------------------------------- */
typedef struct {
    int npeers;            /* the world's peers (at least 1) */
    int credits;           /* per peer */
    int first_peers;       /* peers the receive buffers posted at init cover */
    uint32_t rx_per_peer;  /* receive buffers per connected peer: credits + CTL_RESERVE */
    uint32_t rx_count;     /* receive buffers with every peer connected (SRQ max_wr) */
    uint32_t rx_first;     /* receive buffers posted at init (the first chunk) */
    uint32_t bounce_count; /* bounce buffers */
    uint32_t sq_depth;     /* send queue per QP, a power of two */
    uint32_t cq_size;      /* CQ entries with every peer connected */
    uint32_t cq_first;     /* CQ entries at init */
    uint32_t stride;       /* bytes per buffer: transport header + eager limit, 64-aligned */
    size_t pool_bytes;     /* the region registered at init: first chunk then bounce buffers */
    size_t pinned_bytes;   /* estimate of what is pinned at init: pool + queues */
    size_t peer_bytes;     /* estimate of what each connected peer beyond first_peers adds */
    size_t pinned_all;     /* estimate with every peer connected */
} vbt_ib_sizes_t;

/* Receive buffers posted together: chunk 0 lies in the init pool, each later one is its own
 * registration. Indexed by the chunk field of a receive wr_id. */
typedef struct {
    char *base;        /* buffer i at base + i * stride */
    uint32_t lkey;     /* of the registration holding it */
    uint32_t count;    /* buffers */
    struct ibv_mr *mr; /* cold: NULL for chunk 0 (the pool's registration) */
    void *mem;         /* cold: the allocation, NULL for chunk 0 */
} vbt_ib_rx_chunk_t;

/* ---- endpoint: one RC QP towards one peer -------------------------------------------------- */
typedef enum {
    VBT_IB_PEER_NONE = 0, /* no QP: not connected (yet), or self */
    VBT_IB_PEER_INIT,     /* QP in INIT, our REQ sent: waiting for the peer's REQ or REP */
    VBT_IB_PEER_RTS,      /* QP in RTS, the peer's maybe not in RTR yet: nothing may be posted */
    VBT_IB_PEER_READY,    /* QP in RTS and the peer's past RTR: sends go */
    VBT_IB_PEER_FAILED,   /* completion error or transition failure: unusable */
} vbt_ib_peer_state_t;

typedef struct {
    /* fast path */
    int credits;           /* messages we may still send to this peer */
    int owed;              /* its messages' buffers we re-posted but did not report yet */
    uint32_t sq_head;      /* sequence of the next send WR */
    uint32_t sq_tail;      /* first send WR not known to be complete */
    uint16_t unsig;        /* WRs posted since the last signalled one */
    uint16_t unsig_bounce; /* of those, how many hold a bounce buffer */
    uint8_t state;         /* vbt_ib_peer_state_t */
    uint8_t owe_listed;    /* on the list of peers owed an explicit credit message */
    uint8_t fail_reported; /* the failure was logged at error and returned as fatal */
    uint8_t fail_op;       /* vbt_ib_op_t of the first failed WR */
    uint8_t fin_received;  /* the peer is finalizing: send it no more credit messages */
    uint8_t fin_posted;    /* our FIN is posted, as WR fin_seq */
    uint16_t puts;         /* WRITEs, READs, atomics in flight (at most VBT_IB_PUT_WINDOW) */
    struct ibv_qp *qp;
    uint32_t *sq_bounce; /* per send-queue slot: bounce buffer index + 1, 0 for none */
    void **sq_put;       /* per slot: a one-sided WR's cookie, VBT_IB_PUT_MORE, VBT_IB_RMA_NULL, or
                            NULL (not one-sided) */
    uint32_t fin_seq;
    /* cold */
    uint8_t live_posted; /* a liveness probe was posted, as WR live_seq (vbt_ib_liveness.c) */
    uint32_t live_seq;
    uint32_t psn;    /* our initial send PSN on this QP */
    int fail_status; /* enum ibv_wc_status of the first failed WR */
    /* connection manager (vbt_ib_cm.c) */
    uint32_t rqpn;       /* the peer's RC QP ours is connected to (state RTS, READY) */
    uint32_t ud_qpn;     /* the peer's UD QP (valid with ah) */
    struct ibv_ah *ah;   /* towards the peer's UD QP; NULL until first needed */
    uint8_t addr_known;  /* addr is the peer's published address (fetched, checked; ah made) */
    uint8_t addr_bad;    /* fetching it failed (logged) when a message of the peer came */
    vbt_ib_addr_t addr;  /* what its REQs and REPs must agree with */
    uint8_t req_pending; /* our REQ awaits a REP: retransmitted from progress */
    uint8_t warned;      /* the "has not answered" warning was given */
    uint32_t retx_ms;    /* current retransmission interval */
    uint64_t retx_at;    /* ms (monotonic) of the next retransmission */
    uint64_t req_since;  /* ms of the first REQ of this attempt */
} vbt_ib_peer_t;

/* ---- the instance: one per ib transport opened (the runtime opens one per process) ------
 * All of its state (init allocates it, cache-line aligned; finalize frees it). What a message
 * touches comes first, next to the interface the runtime reads with every send: the send path
 * needs the first two cache lines (the interface with max_send, the peers, then the pre-built
 * WR and the bounce free list), the poll loop the lines after (CQ, SRQ, the upcalls, the
 * re-post batch). */
typedef struct vbt_ib_iface {
    /* fast path */
    vbt_tl_iface_t super; /* first: what the runtime sees (send, limits, caps) */
    vbt_ib_peer_t *peers; /* indexed by world rank; peers[rank] is never connected */
    int size;
    int rank;
    char *bounce_base;     /* bounce buffer i at bounce_base + i * stride */
    uint32_t *bounce_free; /* stack of free bounce buffer indices */
    uint32_t bounce_nfree;
    uint32_t lkey;
    uint32_t stride;
    uint32_t max_inline; /* inline data the QPs accept (0: none) */
    uint32_t sq_depth;
    uint32_t sq_mask;
    uint32_t sig_every;         /* signal at least one WR in this many */
    uint32_t sig_every_bounce;  /* and one in this many bounce-buffer WRs */
    struct ibv_send_wr send_wr; /* pre-built: only the changing fields are set per send */
    struct ibv_sge send_sge[3];
    struct ibv_cq *cq;
    struct ibv_srq *srq;
    vbt_tl_upcalls_t up; /* the runtime's, copied at init */
    int in_progress;     /* vbt_ib_progress is running (a nested call returns 0) */
    int conn_pending;    /* peers with req_pending: progress checks retransmissions */
    int credit_thresh;   /* owed credits that trigger an explicit credit message */
    int credits_max;
    int owe_count;
    int *owe_list;     /* peers owed a credit message, owe_count of them */
    uint32_t rx_batch; /* receive WRs collected for re-posting */
    struct ibv_recv_wr rx_wr[VBT_IB_POLL_BATCH];
    struct ibv_sge rx_sge[VBT_IB_POLL_BATCH];
    int rx_src[VBT_IB_POLL_BATCH];                    /* who sent it, -1 unknown */
    uint16_t rx_credits[VBT_IB_POLL_BATCH];           /* credits it carried, applied on re-post */
    uint8_t rx_is_data[VBT_IB_POLL_BATCH];            /* a DATA message: owe its sender a credit */
    vbt_ib_rx_chunk_t rx_chunk[VBT_IB_RX_CHUNKS_MAX]; /* receive buffers, by wr_id's chunk */
    /* one-sided (vbt_ib_rndv.c) */
    struct ibv_send_wr put_wr; /* pre-built RDMA WRITE or READ (the opcode set per call) */
    struct ibv_sge put_sge;
    struct ibv_send_wr atomic_wr; /* pre-built atomic */
    struct ibv_sge atomic_sge;
    size_t max_put; /* bytes per WRITE or READ: min(port max_msg_sz, knob VBT_IB_WRITE_MAX) */
    int qp_access;  /* what the QPs let a peer do (IBV_ACCESS_REMOTE_*), by the caps */
    int rd_atomic;  /* READs and atomics our QPs take in flight from a peer (max_dest_rd_atomic) */
    struct vbt_rcache *rcache;
    int reg_errno;  /* errno of the last failed ibv_reg_mr, for the message */
    int hooks_held; /* our cache receives the memory hooks' events (the first instance's) */
    /* cold */
    struct ibv_context *dev;
    struct ibv_pd *pd;
    struct ibv_comp_channel *channel;
    struct ibv_mr *mr;
    void *pool;
    vbt_ib_choice_t choice;
    vbt_ib_sizes_t sizes;
    int npeers;
    int wired;
    int finalizing;
    /* connection manager (vbt_ib_cm.c) */
    struct ibv_qp *ud_qp;
    struct ibv_mr *ud_mr;
    char *ud_pool;         /* VBT_IB_UD_RECV receive then VBT_IB_UD_SEND send slots */
    uint32_t ud_send_free; /* bitmap of free send slots */
    uint64_t cm_next_at;   /* ms of the earliest retransmission due */
    uint64_t live_at;      /* ms (monotonic) when the next liveness probes are due */
    int nconnected;        /* peers whose QP reached RTS */
    /* receive pool and CQ growth (vbt_ib_pool.c) */
    int nqps;            /* peers with a QP: each may use rx_per_peer buffers and its send CQEs */
    int rx_peers;        /* peers the posted buffers and the CQ cover (nqps <= rx_peers) */
    int rx_nchunks;      /* chunks in rx_chunk[] */
    uint32_t rx_posted;  /* receive buffers in all chunks */
    uint32_t srq_max_wr; /* what the SRQ holds, as granted */
    uint32_t cq_cap;     /* entries the CQ holds now */
    int cq_resizable;    /* ibv_resize_cq works here; else the CQ was made for the world */
    size_t pinned;       /* estimate of what the transport pins now (not the cache) */
    struct ibv_send_wr ud_wr; /* pre-built (cold, but saves a memset per REQ) */
    struct ibv_sge ud_sge;
} vbt_ib_iface_t;

/* The instance behind an interface the runtime hands back (super is its first member). */
static inline vbt_ib_iface_t *vbt_ib_of(vbt_tl_iface_t *iface)
{
    return (vbt_ib_iface_t *)iface;
}

/* What init may be told beyond the job: the white-box tests' hooks (the ops' init uses the
 * defaults, VBT_IB_PARAMS_DEFAULT). */
typedef struct {
    int rx_first_peers; /* peers the receive buffers posted at init cover (VBT_IB_RX_FIRST_PEERS) */
} vbt_ib_params_t;
#define VBT_IB_PARAMS_DEFAULT                                                                      \
    {                                                                                              \
        .rx_first_peers = VBT_IB_RX_FIRST_PEERS                                                    \
    }

/* The init op with params (vbt_ib_tl.c). */
vbt_status_t vbt_ib_open(const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up,
                         const vbt_ib_params_t *params, vbt_tl_iface_t **iface_p, void *addr,
                         size_t *addr_len_p, char *why, size_t why_len);

/* ---- vbt_ib_verbs.c: the one place libibverbs return conventions become vbt_status_t ------
 * rc: what an int-returning verbs call gave back, in any of its conventions (0 success; an
 * errno value; -1 with errno set; a negative errno). saved_errno: errno right after the call.
 * Logs "<what> failed: <reason>" at error (at debug with VBT_IB_PROBE) from the caller's
 * file and line. With VBT_IB_PINS, ENOMEM explains RLIMIT_MEMLOCK and how to raise it. */
#define VBT_IB_PINS  0x1u /* the call creates an object that pins memory (QP, CQ, MR, SRQ) */
#define VBT_IB_PROBE 0x2u /* the caller handles the failure: log at debug only */
vbt_status_t vbt_ib_verbs_status(long rc, int saved_errno, unsigned flags, const char *file,
                                 int line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7))) VBT_NOINLINE_COLD;

/* Check an int-returning verbs call. */
#define vbt_ib_check_rc(_rc, _flags, ...)                                                          \
    __extension__({                                                                                \
        long _vbt_rc = (long)(_rc);                                                                \
        int _vbt_errno = errno;                                                                    \
        _vbt_rc == 0                                                                               \
            ? VBT_OK                                                                               \
            : vbt_ib_verbs_status(_vbt_rc, _vbt_errno, (_flags), __FILE__, __LINE__, __VA_ARGS__); \
    })
/* Check an object-creating verbs call (NULL with errno set on failure). */
#define vbt_ib_check_ptr(_ptr, _flags, ...)                                                        \
    __extension__({                                                                                \
        int _vbt_errno = errno;                                                                    \
        (_ptr) != NULL                                                                             \
            ? VBT_OK                                                                               \
            : vbt_ib_verbs_status(-1, _vbt_errno, (_flags), __FILE__, __LINE__, __VA_ARGS__);      \
    })

/* ---- vbt_ib_device.c ----------------------------------------------------------------------- */
/* Choose the device, port and GID (VBT_IB_DEVICE, VBT_IB_GID_INDEX, else the first ACTIVE
 * port) and leave it open in *dev_p. On failure nothing is logged: err says why in one
 * sentence; VBT_ERR_NO_DEVICE means nothing usable (an info, not an error). */
vbt_status_t vbt_ib_device_select(vbt_ib_choice_t *choice_p, struct ibv_context **dev_p, char *err,
                                  size_t errlen);
/* VBT_OK when `need` bytes may be pinned; else logs one message saying how to raise
 * RLIMIT_MEMLOCK and returns VBT_ERR_MEMLOCK. */
vbt_status_t vbt_ib_memlock_check(size_t need, const char *what);
/* What RLIMIT_MEMLOCK leaves for more pinning once `pinned` bytes are pinned: SIZE_MAX when
 * unlimited (or CAP_IPC_LOCK lifts it), 0 when nothing is left. */
size_t vbt_ib_memlock_left(size_t pinned);
/* Append to buf a sentence on RLIMIT_MEMLOCK: its value and how to raise it. Returns 1 when the
 * limit can be what stopped a registration (finite and no CAP_IPC_LOCK). */
int vbt_ib_memlock_explain(char *buf, size_t len);
const char *vbt_ib_mtu_str(int mtu);
/* Is the chosen device a software one (Soft-RoCE rxe, siw)? Its "NIC" is kernel work on our
 * own cores, so a rank that spins on the CQ delays the very packets it waits for. */
int vbt_ib_device_is_software(const vbt_ib_choice_t *choice);
/* Does the device deliver an atomic's fetched value in big-endian on this little-endian host?
 * Mellanox/NVIDIA HCAs do through plain verbs (NVIDIA's documentation of the mlx5 driver;
 * libfabric's fi_verbs(7) says the same): their atomics are then not offered. */
int vbt_ib_atomic_reply_be(const vbt_ib_choice_t *choice);
/* For verbatim-info (the describe op): every device, port (state, link layer, MTU, LID), GID
 * (index, type, address), the one Verbatim would pick and why, and RLIMIT_MEMLOCK. */
void vbt_ib_describe(FILE *out);

/* ---- vbt_ib_sizes.c: pool and queue sizes for a number of peers ---------------------------- */
/* Sizes for npeers peers with buffers of eager_limit bytes, receive buffers posted at init for
 * first_peers of them (at most npeers). */
void vbt_ib_sizes(int npeers, size_t eager_limit, int first_peers, vbt_ib_sizes_t *sizes_p);
/* Estimate of what is pinned with the receive buffers and queues of `peers` connected peers
 * (at least s->first_peers counted: the first chunk is always there). */
size_t vbt_ib_sizes_pinned(const vbt_ib_sizes_t *s, int peers);
/* CQ entries for `peers` connected peers: their receive buffers, their send queues, the UD QP. */
uint32_t vbt_ib_cq_entries(const vbt_ib_sizes_t *s, int peers);
/* n bytes rounded up to whole 4 KiB pages. */
static inline size_t vbt_ib_page_align(size_t n)
{
    size_t page = 4096;
    return (n + page - 1) & ~(page - 1);
}

/* ---- vbt_ib_pool.c: the eager pools and queues, and their growth --------------------------- */
/* Called before a QP for peer is created (the connect path, cold): make sure the posted receive
 * buffers and the CQ cover one more peer, posting another chunk (double the peers covered, at
 * most the world) and growing the CQ if not. Fails, logged, naming peer, when RLIMIT_MEMLOCK,
 * the SRQ or the CQ cannot take it. vbt_ib_qp_create counts the peer (nqps) on success. */
vbt_status_t vbt_ib_rx_reserve(vbt_ib_iface_t *c, int peer) VBT_NOINLINE_COLD;
/* CQ, completion channel, SRQ, the registered pool with every receive posted. */
vbt_status_t vbt_ib_eager_init(vbt_ib_iface_t *c);
void vbt_ib_eager_cleanup(vbt_ib_iface_t *c);

/* ---- vbt_ib_eager.c: the send path and the poll loop (inline helpers: vbt_ib_eager.inl) ----
 * The send and progress ops. */
vbt_status_t vbt_ib_send(vbt_tl_iface_t *iface, int peer, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len);
int vbt_ib_progress(vbt_tl_iface_t *iface);
/* Give peer its credits and start its send-queue accounting (QP in RTS, the peer's past RTR). */
void vbt_ib_eager_peer_ready(vbt_ib_iface_t *c, int peer);
/* Why peer takes no WR now: VBT_ERR_NO_RESOURCE when it is READY (the caller knows it is out of
 * credits or slots), else the error, logged once (call names the caller in the message). */
vbt_status_t vbt_ib_peer_refused(vbt_ib_iface_t *c, int peer, const char *call) VBT_NOINLINE_COLD;

/* ---- vbt_ib_credit.c: credit messages and FIN ---------------------------------------------- */
/* Send a message that takes no credit (CREDIT or FIN; the receiver reserves buffers for
 * them). 1: sent, or moot as the peer is unusable; 0: no send-queue room now, try later. */
int vbt_ib_ctl_send(vbt_ib_iface_t *c, int peer, vbt_ib_msg_type_t type);
/* Send a CREDIT message to each listed peer still owed half a window (after a poll, while
 * owe_count != 0); a peer leaves the list once it is sent or no longer needed. */
void vbt_ib_credit_service(vbt_ib_iface_t *c);

/* ---- vbt_ib_wc_error.c: errors on a connection (cold) -------------------------------------- */
/* What a vbt_ib_op_t is called in messages ("eager send", ...; "receive" for anything else). */
const char *vbt_ib_op_name(int op);
/* Into buf, the likely cause of completion status st of op (-1: a receive) towards peer. */
void vbt_ib_likely_cause(const vbt_ib_iface_t *c, enum ibv_wc_status st, int op, int peer,
                         char *buf, size_t len);
/* Mark p failed by op (-1: a receive) with wc_status, unless it failed already. */
void vbt_ib_peer_fail(vbt_ib_peer_t *p, int op, int wc_status);
/* A completion with an error status: one sentence saying what failed, towards whom, and the
 * likely cause. Returns a fatal status, or 0 when nothing the caller sent is lost (a credit
 * or finalize message towards a rank that has exited). */
int vbt_ib_wc_error(vbt_ib_iface_t *c, const struct ibv_wc *wc) VBT_NOINLINE_COLD;
/* A message that failed vbt_ib_hdr_check (field: what is wrong) or came on the wrong QP. */
int vbt_ib_bad_message(vbt_ib_iface_t *c, const struct ibv_wc *wc,
                       const char *field) VBT_NOINLINE_COLD;
/* ibv_post_send of an op towards peer returned rc: log it, mark the peer failed. */
vbt_status_t vbt_ib_post_failed(vbt_ib_iface_t *c, int peer, int rc,
                                vbt_ib_op_t op) VBT_NOINLINE_COLD;

/* ---- vbt_ib_sleep.c: blocking and finalize ------------------------------------------------- */
/* The sleep ops (vbt_tl_ops.h): the completion channel's fd; arm the CQ and poll once more
 * (completions found are handled, *sleep_p = 0); take and acknowledge the event. max_sleep_ms
 * is in vbt_ib_cm.c: until the next connection request is due for retransmission (>= 1 ms),
 * or -1 (no limit) when no connection is being made. */
int vbt_ib_wait_fd(vbt_tl_iface_t *iface);
vbt_status_t vbt_ib_sleep_begin(vbt_tl_iface_t *iface, int *sleep_p);
vbt_status_t vbt_ib_sleep_end(vbt_tl_iface_t *iface, int readable, int timed_out);
int vbt_ib_max_sleep_ms(vbt_tl_iface_t *iface);
/* The three steps at once on our channel alone, for finalize's drain: at most timeout_ms (< 0:
 * no limit). VBT_OK on an event and on timeout. */
vbt_status_t vbt_ib_block(vbt_ib_iface_t *c, int timeout_ms);
/* Finalize's goodbye: send each READY peer a FIN and wait, at most timeout_ms, until for every
 * one our FIN is acknowledged (so is every send before it) or its FIN has arrived (it is done).
 * Peers not READY are not waited for. */
void vbt_ib_eager_drain(vbt_ib_iface_t *c, int timeout_ms);

/* ---- vbt_ib_ep.c: the RC QP state machine and the address blob ----------------------------- */
/* Create peer's RC QP and bring it to INIT (state INIT), with its per-slot arrays. */
vbt_status_t vbt_ib_qp_create(vbt_ib_iface_t *c, int peer);
/* Bring peer's QP (INIT) to RTR and RTS towards the remote QP m->qpn whose first PSN is m->psn,
 * at the remote port's lid/gid and MTU, with at most m->rd_atomic READs and atomics in flight
 * (state RTS): m is the peer's REQ or REP. Failures are logged. */
vbt_status_t vbt_ib_qp_connect(vbt_ib_iface_t *c, int peer, const vbt_ib_cm_msg_t *m);
/* Connect our own slot's QP to itself (VBT_TL_CAP_RMA_SELF), at the first one-sided operation
 * on our own memory. */
vbt_status_t vbt_ib_loopback_connect(vbt_ib_iface_t *c);
/* What our QPs take in flight of a peer's READs and atomics (max_dest_rd_atomic), as offered
 * in our REQ and REP: min(device max_qp_rd_atom, 16), at least 1. */
int vbt_ib_rd_atomic_offer(const vbt_ib_choice_t *choice);
/* Destroy every peer's QP (finalize). */
void vbt_ib_qp_destroy_all(vbt_ib_iface_t *c);
/* What the device grants for inline data, from a QP made and dropped at once (init): known
 * from the start, and a device that cannot create our RC QPs at all (too little
 * RLIMIT_MEMLOCK) fails init rather than the first send. */
vbt_status_t vbt_ib_qp_probe(vbt_ib_iface_t *c);
/* The address vector towards lid/gid on our port (the RC QPs' path and the UD address handles). */
void vbt_ib_ah_attr(const vbt_ib_iface_t *c, struct ibv_ah_attr *ah, uint16_t lid,
                    const uint8_t *gid);
/* Our address blob (the UD QP exists). */
void vbt_ib_addr_pack(const vbt_ib_iface_t *c, vbt_ib_addr_t *a);
/* Decode a peer's published blob (vbt_ib_addr_decode) into *addr_p and check it against ours
 * (logged at error when it is malformed or does not fit). */
vbt_status_t vbt_ib_addr_check(const vbt_ib_iface_t *c, int peer, const void *blob, size_t len,
                               vbt_ib_addr_t *addr_p);

/* ---- vbt_ib_cm.c: the connection manager --------------------------------------------------- */
/* The UD QP on the shared CQ, its registered buffers, every receive posted. After the CQ. */
vbt_status_t vbt_ib_cm_init(vbt_ib_iface_t *c);
/* Destroy the UD QP and every address handle. Before the CQ. */
void vbt_ib_cm_cleanup(vbt_ib_iface_t *c);
/* Make sure a connection to peer is under way (state NONE: create the QP, send REQ; state RTS:
 * send REQ to learn the peer is ready). VBT_ERR_NO_RESOURCE while it is; another status
 * (logged) when it cannot be. */
vbt_status_t vbt_ib_cm_connect(vbt_ib_iface_t *c, int peer) VBT_NOINLINE_COLD;
/* A completion of the UD QP (success or error). Never fatal: 0. */
int vbt_ib_cm_completion(vbt_ib_iface_t *c, const struct ibv_wc *wc) VBT_NOINLINE_COLD;
/* The first message arrived on peer's RC QP in state RTS: its QP is past RTR: ready. */
void vbt_ib_cm_peer_ready(vbt_ib_iface_t *c, int peer) VBT_NOINLINE_COLD;
/* Our REQ or REP about our QP for peer (state INIT or later), and sending one to peer, whose
 * address handle exists (VBT_ERR_NO_RESOURCE when every UD send slot is taken). Apart from the
 * connection manager itself, only a white-box test sends one it forged. */
void vbt_ib_cm_msg_make(const vbt_ib_iface_t *c, int peer, vbt_ib_cm_type_t type,
                        vbt_ib_cm_msg_t *m);
vbt_status_t vbt_ib_cm_post(vbt_ib_iface_t *c, int peer, const vbt_ib_cm_msg_t *m);
/* Retransmit due REQs (called from progress while conn_pending). */
void vbt_ib_cm_progress(vbt_ib_iface_t *c) VBT_NOINLINE_COLD;

/* ---- vbt_ib_liveness.c: noticing that a connected peer died ----------------------------------
 * Probes go out at most this often, only while a wait is idle. */
#define VBT_IB_LIVENESS_MS 1000
/* The check_liveness op. */
vbt_status_t vbt_ib_check_liveness(vbt_tl_iface_t *iface);
/* Whether a failed probe towards peer says something the user must hear (1), or is the
 * expected end of a peer that finalized, or of our own finalize (0: logged at debug). */
int vbt_ib_liveness_failure_matters(const vbt_ib_iface_t *c, int peer);

/* ---- vbt_ib_rndv.c: registered memory and the one-sided operations ------------------------- */
/* The registration ops and put (vbt_tl_ops.h). */
vbt_status_t vbt_ib_mem_get(vbt_tl_iface_t *iface, const void *addr, size_t len, unsigned access,
                            vbt_tl_mem_t **mem_p);
void vbt_ib_mem_put(vbt_tl_iface_t *iface, vbt_tl_mem_t *mem);
uint64_t vbt_ib_mem_rkey(vbt_tl_iface_t *iface, const vbt_tl_mem_t *mem);
vbt_status_t vbt_ib_put(vbt_tl_iface_t *iface, int peer, const void *laddr, size_t len,
                        vbt_tl_mem_t *mem, uint64_t raddr, uint64_t rkey, void *cookie,
                        size_t *posted_p);
vbt_status_t vbt_ib_get(vbt_tl_iface_t *iface, int peer, void *laddr, size_t len, vbt_tl_mem_t *mem,
                        uint64_t raddr, uint64_t rkey, void *cookie, size_t *posted_p);
vbt_status_t vbt_ib_atomic(vbt_tl_iface_t *iface, int peer, vbt_tl_atomic_op_t op, uint64_t operand,
                           uint64_t compare, uint64_t *result, vbt_tl_mem_t *result_mem,
                           uint64_t raddr, uint64_t rkey, void *cookie);
/* The registration cache (its limit: VBT_RCACHE_MAX, within what RLIMIT_MEMLOCK leaves after
 * the pools) and the pre-built WRITE. After the PD and the pools exist. */
vbt_status_t vbt_ib_rndv_init(vbt_ib_iface_t *c);
void vbt_ib_rndv_cleanup(vbt_ib_iface_t *c);
/* Report every one-sided operation of peer posted at or after seq as failed (its QP is in
 * error: they will only be flushed). */
void vbt_ib_put_fail_from(vbt_ib_iface_t *c, int peer, uint32_t seq, vbt_status_t status);

#endif
