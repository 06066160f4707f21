/* One-sided communication (MPI-4.1 chapter 12): the runtime object behind an MPI_Win, and what
 * the API entry points in runtime/api/win_*.c call.
 *
 * Every window owns a private duplicate of its communicator (its own context ids, so window
 * traffic never matches the application's messages). Operations travel as active messages on
 * that communicator's point-to-point context: a request (vbt_win_wire.h) that the target
 * services whenever it enters the library (the progress hook, vbt_win_target.c), applying the
 * requests one at a time in arrival order, which gives MPI's per-element atomicity of
 * accumulates and their ordering from one origin. Windows from MPI_Win_allocate_shared live in
 * one POSIX shared-memory segment, and so do the parts of an MPI_Win_allocate window that
 * belong to the ranks of one node (vbt_win_shm.c): between those ranks the origin applies the
 * operation itself (the direct path). The synchronisation modes have a file each:
 * vbt_win_fence.c, vbt_win_pscw.c, vbt_win_lock.c (locks and flushes). */
#ifndef VBT_WIN_H
#define VBT_WIN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_comm.h"
#include "vbt_datatype.h"
#include "vbt_group.h"
#include "vbt_op.h"
#include "vbt_request.h"
#include "vbt_status.h"
#include "vbt_tl.h"

#define VBT_WIN_MAGIC 0x5642574eu /* "VBWN" */

struct vbt_attr;
struct vbt_win_pending;
struct vbt_win_inbox;
struct vbt_win_region;
struct vbt_win_dyn;
struct vbt_win_lockq;
struct vbt_win_scratch;
struct vbt_info;

/* What this rank knows of each rank's part of the window (allgathered at creation). */
typedef struct {
    uint64_t base; /* the address in that rank's memory */
    uint64_t size;
    int32_t disp_unit;
    int32_t pad;
    /* The key of that rank's window memory for each transport it registered it with, by the
     * transport's position in vbt_tl_table (bit i of rkey_mask: rkey[i] is valid). */
    uint64_t rkey[VBT_TL_MAX];
    uint32_t rkey_mask;
    uint32_t atomics; /* that rank reaches every rank of the window with 64-bit NIC atomics */
    /* Its lock word (vbt_win_rlock.c) and that word's keys, as rkey[] (bits in lock_mask). */
    uint64_t lock_addr;
    uint64_t lock_rkey[VBT_TL_MAX];
    uint32_t lock_mask;
    /* Dynamic windows (vbt_win_dynkeys.c): its table of attached regions and its mailboxes
     * (one word per rank), and their keys as rkey[] (bits in dyn_mask, mbox_mask). */
    uint32_t dyn_mask;
    uint64_t dyn_table;
    uint64_t dyn_rkey[VBT_TL_MAX];
    uint64_t mbox;
    uint64_t mbox_rkey[VBT_TL_MAX];
    uint32_t mbox_mask;
    uint32_t pad2;
} vbt_win_peer_t;

struct vbt_tl_iface;
struct vbt_tl_mem;
struct vbt_win_rma_op;

/* Per target, at the origin: how its memory can be reached without its CPU (vbt_win_rma.c). */
typedef struct {
    struct vbt_tl_iface *tl; /* the transport of put/get (NULL: none; messages) */
    uint64_t rkey;
    struct vbt_tl_iface *atl; /* the transport of NIC atomics (NULL: none) */
    uint64_t arkey;
    uint64_t lock_rkey; /* the key of its lock word for atl */
    int world;          /* the target's world rank */
    uint8_t put, get;   /* tl takes put() / get() into the target's window */
    uint8_t read_peer;  /* tl copies out of the target's memory itself (READ_PEER: CMA) */
    uint8_t dyn;        /* dynamic window: we read its table of keys and it writes our mailbox */
} vbt_win_rma_peer_t;

/* Per target, at the origin: the state of this rank's access to it. */
typedef struct {
    uint8_t lock;      /* 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE held on it (MPI_Win_lock) */
    uint8_t nocheck;   /* the lock was taken with MPI_MODE_NOCHECK: no lock protocol */
    uint8_t unflushed; /* operations went to it since its last flush */
    uint8_t in_start;  /* a member of the current MPI_Win_start group */
    uint8_t acc_msgs;  /* accumulates went to it as messages since its last flush */
    uint32_t rma_out;  /* one-sided transfers posted to it and not completed */
} vbt_win_target_t;

/* Block sizes of the window's pool: 64 bytes to 16k. */
#define VBT_WIN_POOL_CLASSES 9

typedef struct vbt_win {
    uint32_t magic;
    int flavor;       /* MPI_WIN_FLAVOR_* */
    vbt_comm_t *comm; /* the private duplicate: VBT_CTX_P2P carries the protocol */
    int rank, size;
    void *base;
    size_t win_size;
    int disp_unit;
    int own_base;          /* base was allocated by MPI_Win_allocate: freed with the window */
    vbt_win_peer_t *peers; /* [size] */
    vbt_win_target_t *tgt; /* [size] */
    /* Shared segment (MPI_Win_allocate_shared; MPI_Win_allocate: the ranks of this node),
     * NULL when this rank's memory is not in one. */
    void *seg;
    size_t seg_len;
    uint64_t *seg_off; /* [size]: each rank's part in seg, VBT_WIN_NO_SEG for ranks outside */
    /* Transfers without the target's CPU (vbt_win_rma.c): our memory's registrations, by
     * position in vbt_tl.up; each target's keys; the operation objects' free list. */
    struct vbt_tl_mem *rma_mem[VBT_TL_MAX];
    uint64_t *lock_word; /* our lock word, locked by the peers' NIC atomics */
    struct vbt_tl_mem *lock_mem[VBT_TL_MAX];
    vbt_win_rma_peer_t *rma;         /* [size], NULL: the window has none */
    int nic_atomics;                 /* the accumulates the NIC can do go by NIC atomics */
    uint32_t rma_out;                /* transfers posted and not completed, all targets */
    vbt_status_t rma_status;         /* the first transfer that failed, until reported */
    struct vbt_win_rma_op *rma_free; /* operation objects to reuse */
    void *rma_slabs;                 /* their memory, freed with the window */
    /* Dynamic windows: the regions attached here, and their keys (vbt_win_dynkeys.c). */
    struct vbt_win_region *regions;
    struct vbt_win_dyn *dyn;
    /* Origin side. */
    uint32_t next_tag;                              /* reply tags handed out (vbt_win_reply_tag) */
    struct vbt_win_pending *pending, *pending_tail; /* results awaited, oldest first */
    /* Our sends still in flight, oldest first: retired from the head, so a long run of
     * operations costs no walk of the whole queue at every progress call. */
    struct vbt_win_pending *sendq_head, *sendq_tail;
    int fence_open; /* a fence opened an access/exposure epoch */
    int fence_ops;  /* operations issued since that fence */
    int lock_all;   /* MPI_Win_lock_all holds a shared lock on every rank */
    int lock_all_nocheck;
    int nlocks;               /* MPI_Win_lock epochs open */
    vbt_group_t *start_group; /* MPI_Win_start's, until MPI_Win_complete */
    vbt_group_t *post_group;  /* MPI_Win_post's, until MPI_Win_wait/test */
    /* Target side. */
    struct vbt_win_inbox *inbox_head, *inbox_tail; /* requests taken, in arrival order */
    struct vbt_win_lockq *lockq;                   /* lock requests waiting, in order */
    int lock_shared;                               /* shared holders */
    int lock_excl;                                 /* an exclusive holder (its rank + 1) */
    int pscw_done;      /* MPI_Win_complete notices received for the post epoch */
    int32_t *errors;    /* [size]: first error found serving each origin since its last flush */
    uint64_t *err_disp; /* [size]: ... the displacement that caused it */
    uint64_t *err_len;
    /* Origin side again: the first error a target reported (vbt_win_take_error). */
    int rep_err, rep_kind, rep_target;
    uint64_t rep_disp, rep_len;
    /* The protocol's memory (vbt_win_pool.c): free blocks by size class, and the scratch
     * arrays of the synchronisation calls (made at first use). */
    void *pool_free[VBT_WIN_POOL_CLASSES];
    uint32_t pool_nfree[VBT_WIN_POOL_CLASSES];
    struct vbt_win_scratch *scratch;
    /* Attributes, names, error handler. */
    MPI_Errhandler errhandler;
    struct vbt_info *hints; /* the info hints kept (runtime/api/win_info.c), or NULL */
    struct vbt_attr *attrs;
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
    int named; /* MPI_Win_set_name was called; else name is only for messages, and
                  MPI_Win_get_name says "" as the standard wants */
    char name[MPI_MAX_OBJECT_NAME];
    struct vbt_win *next; /* the list of live windows */
} vbt_win_t;

/* The live windows: MPI_Win handles are checked against this list before being read. */
extern vbt_win_t *vbt_win_list;

/* The window behind a handle, or NULL (MPI_WIN_NULL, freed, made up). A walk of the few live
 * windows; the handle is never dereferenced before it is found. */
static inline vbt_win_t *vbt_win_get(MPI_Win handle)
{
    for (vbt_win_t *w = vbt_win_list; w != NULL; w = w->next)
        if ((MPI_Win)w == handle)
            return w->magic == VBT_WIN_MAGIC ? w : NULL;
    return NULL;
}

static inline MPI_Win vbt_win_handle(vbt_win_t *w)
{
    return (MPI_Win)w;
}

/* Creation, collective over comm. base/size/disp_unit as the flavor has them (create: the
 * user's memory; allocate and allocate_shared: allocated here, *base_p set; dynamic: none).
 * VBT_ERR_UNREACHABLE for a shared window over ranks on several nodes. */
vbt_status_t vbt_win_create(vbt_comm_t *comm, int flavor, void *base, size_t size, int disp_unit,
                            void **base_p, vbt_win_t **win_p);
/* MPI_Win_free after the attributes were deleted: completes everything, collective. */
vbt_status_t vbt_win_free(vbt_win_t *win);
/* MPI_Finalize: windows the application did not free go, without communication. */
void vbt_win_cleanup(void);

/* MPI_Win_shared_query on a window of any flavor but dynamic: rank's part as this process
 * maps it; size 0 and base NULL for a rank whose memory it cannot load and store (MPI-4.1
 * 12.2.3). MPI_PROC_NULL: the lowest rank with memory among those it can. */
void vbt_win_shared_query(vbt_win_t *win, int rank, size_t *size_p, int *disp_unit_p,
                          void **base_p);

/* Dynamic windows. VBT_ERR_INVALID_PARAM: overlaps an attached region; VBT_ERR_NOT_FOUND:
 * detach of memory not attached. */
vbt_status_t vbt_win_attach(vbt_win_t *win, void *base, size_t size);
vbt_status_t vbt_win_detach(vbt_win_t *win, const void *base);

/* The kinds of operation (vbt_win_wire.h's request kinds). */
typedef enum {
    VBT_WIN_PUT = 1,
    VBT_WIN_GET = 2,
    VBT_WIN_ACC = 3,
    VBT_WIN_GET_ACC = 4,
    VBT_WIN_CAS = 5,
} vbt_win_op_kind_t;

/* One operation as the origin describes it, after the API checked it. origin: count elements
 * of otype at obuf (ACC/PUT source); result: rcount of rtype at rbuf (GET destination, GET_ACC
 * and CAS results); compare: CAS's one element. The target side: tcount of ttype at byte
 * displacement tdisp (already times disp_unit; dynamic windows: the absolute address). op:
 * accumulates (MPI_REPLACE for put-like, MPI_NO_OP for fetch-only). */
typedef struct {
    vbt_win_op_kind_t kind;
    int target;
    const void *obuf;
    size_t ocount;
    vbt_dtype_t *otype;
    void *rbuf;
    size_t rcount;
    vbt_dtype_t *rtype;
    const void *cbuf;
    uint64_t tdisp;
    size_t tcount;
    vbt_dtype_t *ttype;
    MPI_Op op;
} vbt_win_op_t;

/* Start an operation. req_p non-NULL: an MPI request for MPI_Rput & co, complete when the
 * origin's buffers are reusable (result data arrived for the fetching ones). */
vbt_status_t vbt_win_op_start(vbt_win_t *win, const vbt_win_op_t *op, vbt_request_t **req_p);

/* May this rank access target now (an epoch is open towards it)? */
int vbt_win_can_access(const vbt_win_t *win, int target);
/* Is a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) open towards target? The
 * request-based operations are allowed only there (MPI-4.1 12.3.5). */
int vbt_win_in_passive(const vbt_win_t *win, int target);

/* Synchronisation. Each waits, driving progress (and so serving other ranks' requests). */
vbt_status_t vbt_win_fence(vbt_win_t *win, int assert);
vbt_status_t vbt_win_post(vbt_win_t *win, vbt_group_t *group, int assert);
vbt_status_t vbt_win_start(vbt_win_t *win, vbt_group_t *group, int assert);
vbt_status_t vbt_win_complete(vbt_win_t *win);
vbt_status_t vbt_win_wait(vbt_win_t *win);
/* *flag_p: the exposure epoch ended (as MPI_Win_wait would); 0 leaves it open. */
vbt_status_t vbt_win_test(vbt_win_t *win, int *flag_p);
vbt_status_t vbt_win_lock(vbt_win_t *win, int type, int target, int assert);
vbt_status_t vbt_win_unlock(vbt_win_t *win, int target);
vbt_status_t vbt_win_lock_all(vbt_win_t *win, int assert);
vbt_status_t vbt_win_unlock_all(vbt_win_t *win);
/* target -1: every rank. local: only the origin's buffers (MPI_Win_flush_local). */
vbt_status_t vbt_win_flush(vbt_win_t *win, int target, int local);

/* An error a target found serving our operations (a dynamic window's displacement outside
 * every attached region), reported by its flush acknowledgement: taken (and cleared) by the
 * synchronisation call that completes them, which raises it. 0 when there is none; else the
 * MPI error class, with a sentence in why. */
int vbt_win_take_error(vbt_win_t *win, char *why, size_t len);

/* Memory for MPI_Alloc_mem: a header before each block tells ours from other pointers. */
void *vbt_mem_alloc(size_t size);
/* VBT_ERR_NOT_FOUND for a pointer that is not a live block of vbt_mem_alloc. */
vbt_status_t vbt_mem_free(void *ptr);

#endif
