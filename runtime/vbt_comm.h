/* Communicators: the runtime object behind an MPI_Comm handle. MPI_COMM_WORLD and MPI_COMM_SELF
 * are static objects; the others are heap objects whose address is the handle. Each owns an
 * even context id (context_id + VBT_CTX_P2P for point-to-point, + VBT_CTX_COLL for collectives)
 * agreed by its members (vbt_comm.c says how), so messages of different communicators never
 * match. */
#ifndef VBT_COMM_H
#define VBT_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_bsend.h"
#include "vbt_compiler.h"
#include "vbt_group.h"
#include "vbt_match.h"
#include "vbt_status.h"
#include "vbt_vci.h"

#define VBT_COMM_MAGIC 0x5642434du /* "VBCM": tells a live communicator from a stray pointer */

/* Communicators a process can be part of at once (context ids 0 .. 2 * VBT_COMM_MAX - 1). */
#define VBT_COMM_MAX 4096

struct vbt_attr;
struct vbt_topo;

typedef struct vbt_comm {
    uint32_t magic;
    MPI_Comm handle;
    int rank;
    int size;
    /* The ranks point-to-point names: size, or the remote group's size on an
     * intercommunicator (whose world_ranks are the remote group's). */
    int remote_size;
    uint32_t context_id;
    vbt_vci_t *vci; /* what its messages travel through, on every member (vbt_vci.h) */
    vbt_match_queue_t match[2];
    /* The peers' world ranks: point-to-point rank r goes to world rank world_ranks[r]. An
     * intracommunicator's are group->ranks, an intercommunicator's remote_group->ranks. */
    const int *world_ranks;
    vbt_group_t *group;        /* the local group */
    vbt_group_t *remote_group; /* an intercommunicator's remote group; NULL: intracommunicator */
    /* An intercommunicator's local group as a hidden intracommunicator, for the local parts of
     * its collectives and creations (runtime/vbt_comm_inter.c). */
    struct vbt_comm *local;
    MPI_Errhandler errhandler;
    int refcount; /* the handle's reference (until MPI_Comm_free) and vbt_comm_retain()s */
    int freed;    /* MPI_Comm_free'd: destroyed once nothing uses it any more */
    struct vbt_attr *attrs;
    struct vbt_topo *topo;
    struct vbt_info *hints; /* the info hints kept (MPI_Comm_set_info), or NULL for none */
    struct vbt_comm *next;  /* the list of freed communicators still in use */
    int named; /* name was given (MPI_Comm_set_name, or predefined); else it is only for
                  messages, and MPI_Comm_get_name says "" as the standard wants */
    char name[MPI_MAX_OBJECT_NAME];
    /* Nonblocking and persistent collectives started on this communicator (their tags,
     * collectives/vbt_sched.h); every member counts the same, as they start them in order. */
    uint32_t coll_seq;
    /* Buffered sends on this communicator use bsend when attached (MPI_Comm_attach_buffer),
     * else the buffer of session, else the process's (vbt_rt.bsend). */
    vbt_bsend_buf_t bsend;
    /* The session it derives from (its group came from MPI_Group_from_session_pset), or
     * MPI_SESSION_NULL; looked up (vbt_session_get) before use, as the session may be gone. */
    MPI_Session session;
} vbt_comm_t;

enum { VBT_CTX_P2P = 0, VBT_CTX_COLL = 1 };

extern vbt_comm_t vbt_comm_world;
extern vbt_comm_t vbt_comm_self;
/* The other communicators: the one on context slot s is vbt_comm_slab[s] (a slot has at most one
 * live communicator), so that a handle is checked by its address before it is read and a made-up
 * one cannot crash vbt_comm_get(). Untouched entries cost no memory. */
extern vbt_comm_t vbt_comm_slab[VBT_COMM_MAX];
/* Context table: slot context_id / 2. Only for vbt_comm_from_context(). */
extern vbt_comm_t *vbt_comm_table[VBT_COMM_MAX];

vbt_status_t vbt_comm_init_predefined(int world_rank, int world_size);
/* Make the handles MPI_COMM_WORLD and MPI_COMM_SELF valid (on: between MPI_Init and
 * MPI_Finalize) or not (sessions only). The objects stay either way: the library uses them. */
void vbt_comm_world_model(int on);
/* Destroy every communicator still there (MPI_Finalize). */
void vbt_comm_cleanup_predefined(void);

/* The object behind a handle, or NULL when the handle names no valid communicator. */
static inline vbt_comm_t *vbt_comm_get(MPI_Comm handle)
{
    vbt_comm_t *c = (vbt_comm_t *)handle;

    /* Valid in the World model only (vbt_comm_world_model()): their magic is 0 otherwise. */
    if (handle == MPI_COMM_WORLD)
        return likely(vbt_comm_world.magic == VBT_COMM_MAGIC) ? &vbt_comm_world : NULL;
    if (handle == MPI_COMM_SELF)
        return likely(vbt_comm_self.magic == VBT_COMM_MAGIC) ? &vbt_comm_self : NULL;
    /* One unsigned compare also refuses 0..4095 and addresses below the slab. */
    uintptr_t off = (uintptr_t)handle - (uintptr_t)vbt_comm_slab;
    if (unlikely(off >= sizeof(vbt_comm_slab) || off % sizeof(vbt_comm_t) != 0 ||
                 c->magic != VBT_COMM_MAGIC))
        return NULL;
    return c;
}

/* A message for a context no communicator of ours has yet (slow path, see vbt_comm.c). */
vbt_comm_t *vbt_comm_early_context(uint32_t context_id);

/* The communicator a message's context id belongs to, or NULL. O(1): on the receive path. */
static inline vbt_comm_t *vbt_comm_from_context(uint32_t context_id)
{
    uint32_t slot = context_id >> 1;

    if (likely(slot < VBT_COMM_MAX && vbt_comm_table[slot] != NULL))
        return vbt_comm_table[slot];
    return vbt_comm_early_context(context_id);
}

static inline int vbt_comm_world_rank(const vbt_comm_t *comm, int rank)
{
    return comm->world_ranks[rank];
}

/* Keep a communicator alive across calls (e.g. a nonblocking collective's schedule): a freed
 * communicator is destroyed only after its last vbt_comm_release(). */
void vbt_comm_retain(vbt_comm_t *comm);
void vbt_comm_release(vbt_comm_t *comm);

/* Creation, collective over parent (create_group: over group's members). *comm_p is NULL for
 * a process that gets MPI_COMM_NULL. New communicators take parent's error handler, no name,
 * no attributes and no topology (the API layer copies those that MPI_Comm_dup keeps). */
vbt_status_t vbt_comm_create(vbt_comm_t *parent, vbt_group_t *group, vbt_comm_t **comm_p);
vbt_status_t vbt_comm_create_group(vbt_comm_t *parent, vbt_group_t *group, int tag,
                                   vbt_comm_t **comm_p);
/* MPI_Comm_create_from_group (MPI-4.1 Sec. 7.4.2), collective over group's members, which this
 * process is one of, without a parent communicator: the members agree on a context over the
 * library's internal world communicator (every process has one, with or without MPI_Init),
 * under an agreement tag derived from stringtag (vbt_comm_stringtag_tag), so calls with
 * different tags stay apart. The new communicator gets errhandler (retained), no name, no
 * hints (the API layer applies them). MPI_Intercomm_create_from_groups builds on the same
 * agreement. */
vbt_status_t vbt_comm_create_from_group(vbt_group_t *group, const char *stringtag,
                                        MPI_Errhandler errhandler, vbt_comm_t **comm_p);
/* The agreement tag (vbt_comm_agree.h) of a string tag: a hash into a range no other
 * communicator constructor uses. */
int vbt_comm_stringtag_tag(const char *stringtag);
vbt_status_t vbt_comm_split(vbt_comm_t *parent, int color, int key, vbt_comm_t **comm_p);
/* MPI_Comm_free after the attributes were deleted: the handle becomes invalid at once, the
 * object and its context id go when no request uses it any more. */
void vbt_comm_free(vbt_comm_t *comm);

/* Nonblocking creation (MPI_Comm_idup): the members agree on a slot by a collective schedule
 * that may run while this process creates other communicators, so the slots it offers are
 * reserved (not free to other agreements) until it ends. VBT_COMM_SLOT_WORDS 64-bit words hold
 * one bit per slot, 1 for free. */
#define VBT_COMM_SLOT_WORDS (VBT_COMM_MAX / 64)
void vbt_comm_slots_free(uint64_t *bits);
/* The free slots a nonblocking agreement may reserve now: none while a blocking agreement of
 * this process is in progress (its snapshot of the free slots must stay free until it ends). */
void vbt_comm_slots_offerable(uint64_t *bits);
/* Take the slots set in bits out of the free ones (they must be free), or give them back. */
void vbt_comm_slots_reserve(const uint64_t *bits);
void vbt_comm_slots_unreserve(const uint64_t *bits);
/* The duplicate of parent (same group, same rank) on slot, which its members agreed on and this
 * process reserved. */
vbt_status_t vbt_comm_create_on_slot(vbt_comm_t *parent, uint32_t slot, vbt_comm_t **comm_p);

/* MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL (intercommunicators: both groups). */
int vbt_comm_compare(const vbt_comm_t *a, const vbt_comm_t *b);

static inline int vbt_comm_is_inter(const vbt_comm_t *comm)
{
    return comm->remote_group != NULL;
}

/* For agreements that are not vbt_comm.c's own (intercommunicators, vbt_comm_inter.c): begin
 * copies this process's free slots into bits and keeps them out of nonblocking agreements until
 * end (they nest). */
void vbt_comm_agreement_begin(uint64_t *bits);
void vbt_comm_agreement_end(void);
/* The new communicator of group (its reference taken over on success) on slot, where this
 * process is rank; parent's error handler. */
vbt_status_t vbt_comm_new_on_slot(vbt_comm_t *parent, vbt_group_t *group, int rank, uint32_t slot,
                                  vbt_comm_t **comm_p);

#endif
