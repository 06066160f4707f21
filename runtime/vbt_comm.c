/* Communicator objects, their context ids and their creation.
 *
 * Context ids. Every process keeps a bitmap of the context-id slots it has free (slot s owns
 * context ids 2s and 2s + 1). A new communicator's members AND their bitmaps (over the parent's
 * collective context, vbt_comm_agree.c) and all take the lowest slot free everywhere: so no
 * member can have another communicator on that slot, and a message's context id names the same
 * communicator at sender and receiver. Processes outside the new communicator may reuse the slot
 * for something else: they never exchange messages on it with its members. Freeing releases the
 * slot locally, once nothing waits for a message on it; until every member has released it, the
 * AND keeps it out of new agreements.
 *
 * Early messages. A member that finished an agreement may send on the new communicator before a
 * slower member has installed it. The receiver then finds no communicator on that slot, but it
 * has already taken part in the agreement (the sender could not have finished otherwise), so the
 * slot will be this communicator's: vbt_comm_early_context() parks such messages on a
 * placeholder whose queues the communicator adopts when it is installed. */
#include "vbt_comm.h"
#include "vbt_attr.h"
#include "vbt_comm_agree.h"
#include "vbt_errhandler.h"
#include "vbt_info.h"
#include "vbt_log.h"
#include "vbt_request.h"
#include "vbt_runtime.h"
#include "vbt_topo.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slots 0 and 1 belong to the predefined communicators. */
enum { SLOT_WORLD = 0, SLOT_SELF = 1 };

#define BITMAP_WORDS (VBT_COMM_MAX / 64)

vbt_comm_t vbt_comm_world;
vbt_comm_t vbt_comm_self;
vbt_comm_t *vbt_comm_table[VBT_COMM_MAX];
vbt_comm_t vbt_comm_slab[VBT_COMM_MAX];

static struct {
    int ready;
    uint64_t free_slots[BITMAP_WORDS]; /* 1: free on this process */
    vbt_comm_t *placeholder[VBT_COMM_MAX];
    vbt_comm_t *zombies; /* freed by the application, still used by requests */
    int agreeing;        /* blocking slot agreements in progress (nested in their waits) */
    int mask_busy;       /* MPI_THREAD_MULTIPLE: an agreement offers free_slots (mask_take) */
    uint64_t waiting[BITMAP_WORDS]; /* the parents' slots of the agreements that want it */
    vbt_group_t *self_group;
} comms;

static void slot_take(uint32_t slot)
{
    comms.free_slots[slot / 64] &= ~(UINT64_C(1) << (slot % 64));
}

static void slot_give(uint32_t slot)
{
    comms.free_slots[slot / 64] |= UINT64_C(1) << (slot % 64);
}

static void comm_setup(vbt_comm_t *comm, MPI_Comm handle, vbt_group_t *group, int rank,
                       uint32_t slot, const char *name)
{
    memset(comm, 0, sizeof(*comm));
    comm->magic = VBT_COMM_MAGIC;
    comm->handle = handle != MPI_COMM_NULL ? handle : (MPI_Comm)comm;
    comm->group = group;
    comm->world_ranks = group->ranks;
    comm->rank = rank;
    comm->size = group->size;
    comm->remote_size = group->size;
    comm->context_id = slot * 2;
    comm->vci = vbt_vci_of_context(comm->context_id);
    comm->errhandler = MPI_ERRORS_ARE_FATAL;
    comm->refcount = 1;
    comm->session = MPI_SESSION_NULL;
    if (name != NULL) {
        strncpy(comm->name, name, sizeof(comm->name) - 1);
        comm->named = 1;
    } else {
        /* For error messages only: the handle, which a debugger shows too. */
        snprintf(comm->name, sizeof(comm->name), "communicator %p", (void *)comm);
    }
}

/* Put comm on its slot, taking over whatever arrived for it early. */
static void install(vbt_comm_t *comm)
{
    uint32_t slot = comm->context_id / 2;
    vbt_comm_t *early = comms.placeholder[slot];

    if (early != NULL) {
        comm->match[0] = early->match[0];
        comm->match[1] = early->match[1];
        comms.placeholder[slot] = NULL;
        free(early);
    }
    slot_take(slot);
    vbt_comm_table[slot] = comm;
}

vbt_comm_t *vbt_comm_early_context(uint32_t context_id)
{
    uint32_t slot = context_id >> 1;
    vbt_comm_t *p;

    if (!comms.ready || slot >= VBT_COMM_MAX)
        return NULL;
    p = comms.placeholder[slot];
    if (p == NULL) {
        p = calloc(1, sizeof(*p));
        if (p == NULL)
            return NULL;
        p->context_id = slot * 2;
        p->vci = vbt_vci_of_context(p->context_id);
        p->rank = -1;
        strcpy(p->name, "a communicator being created");
        comms.placeholder[slot] = p;
        vbt_debug("message for context %u arrived before its communicator exists: parked",
                  (unsigned)context_id);
    }
    return p;
}

vbt_status_t vbt_comm_init_predefined(int world_rank, int world_size)
{
    vbt_group_t *world_group;
    int *ranks = malloc((size_t)world_size * sizeof(int));
    vbt_status_t status;

    if (ranks == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < world_size; i++)
        ranks[i] = i;
    status = vbt_group_create(world_size, ranks, &world_group);
    free(ranks);
    if (status != VBT_OK)
        return status;
    status = vbt_group_create(1, &world_rank, &comms.self_group);
    if (status != VBT_OK) {
        vbt_group_release(world_group);
        return status;
    }
    memset(comms.free_slots, 0xff, sizeof(comms.free_slots));
    memset(comms.placeholder, 0, sizeof(comms.placeholder));
    comm_setup(&vbt_comm_world, MPI_COMM_WORLD, world_group, world_rank, SLOT_WORLD,
               "MPI_COMM_WORLD");
    comm_setup(&vbt_comm_self, MPI_COMM_SELF, comms.self_group, 0, SLOT_SELF, "MPI_COMM_SELF");
    install(&vbt_comm_world);
    install(&vbt_comm_self);
    comms.zombies = NULL;
    comms.ready = 1;
    return VBT_OK;
}

void vbt_comm_world_model(int on)
{
    uint32_t magic = on ? VBT_COMM_MAGIC : 0;

    if (!comms.ready)
        return;
    vbt_comm_world.magic = magic;
    vbt_comm_self.magic = magic;
}

static void destroy(vbt_comm_t *comm)
{
    uint32_t slot = comm->context_id / 2;
    int unreceived = 0;

    for (int i = 0; i < 2; i++) {
        for (vbt_unexp_t *u = comm->match[i].unexp_head; u != NULL; u = u->next)
            unreceived++;
    }
    if (unreceived > 0)
        vbt_info("%d message(s) sent on %s were never received; they are dropped with it",
                 unreceived, comm->name);
    if (vbt_comm_table[slot] == comm) {
        vbt_comm_table[slot] = NULL;
        slot_give(slot);
    }
    vbt_attr_delete_all_quiet(comm);
    vbt_topo_free(comm->topo);
    comm->topo = NULL;
    vbt_info_release(comm->hints);
    comm->hints = NULL;
    vbt_group_release(comm->group);
    if (comm->remote_group != NULL)
        vbt_group_release(comm->remote_group);
    comm->remote_group = NULL;
    if (comm->local != NULL) { /* hidden: never had a handle to invalidate */
        comm->local->freed = 1;
        comm->local->magic = 0;
        vbt_comm_release(comm->local);
        comm->local = NULL;
    }
    vbt_errhandler_release(comm->errhandler);
    comm->errhandler = MPI_ERRORS_ARE_FATAL;
    comm->magic = 0; /* the slab entry stays: a stale handle reads 0 there */
}

/* Destroy the freed communicators that no request uses any more. */
static void reap_zombies(void)
{
    vbt_comm_t **pp = &comms.zombies;

    while (*pp != NULL) {
        vbt_comm_t *c = *pp;
        if (vbt_request_uses_comm(c)) {
            pp = &c->next;
            continue;
        }
        *pp = c->next;
        destroy(c);
    }
}

void vbt_comm_cleanup_predefined(void)
{
    comms.ready = 0;
    for (int pass = 0; pass < 2; pass++) {
        while (comms.zombies != NULL) {
            vbt_comm_t *c = comms.zombies;
            comms.zombies = c->next;
            destroy(c);
        }
        /* Then intercommunicators: they release their hidden local communicators. */
        for (uint32_t s = 0; pass == 0 && s < VBT_COMM_MAX; s++) {
            vbt_comm_t *c = vbt_comm_table[s];
            if (c != NULL && vbt_comm_is_inter(c))
                destroy(c);
        }
    }
    for (uint32_t s = 0; s < VBT_COMM_MAX; s++) {
        vbt_comm_t *c = vbt_comm_table[s];
        if (c != NULL && c != &vbt_comm_world && c != &vbt_comm_self)
            destroy(c);
        free(comms.placeholder[s]);
        comms.placeholder[s] = NULL;
    }
    destroy(&vbt_comm_world);
    destroy(&vbt_comm_self);
    vbt_comm_world.size = 0;
    vbt_comm_self.size = 0;
}

void vbt_comm_retain(vbt_comm_t *comm)
{
    comm->refcount++;
}

void vbt_comm_release(vbt_comm_t *comm)
{
    if (--comm->refcount > 0)
        return;
    if (vbt_request_uses_comm(comm)) {
        /* Pending operations complete normally (MPI-4.1 Sec. 7.4.3): keep it until they are
         * done. Messages still arrive through its slot, which stays taken. */
        comm->next = comms.zombies;
        comms.zombies = comm;
        return;
    }
    destroy(comm);
}

void vbt_comm_free(vbt_comm_t *comm)
{
    comm->freed = 1;
    comm->magic = 0; /* the handle is invalid from now on, even if the object lingers */
    vbt_comm_release(comm);
    reap_zombies();
}

/* With MPI_THREAD_MULTIPLE, may this agreement offer the real bitmap? Two threads creating
 * communicators on different parents at once must not offer the same snapshot (both would take
 * the same slot), so one agreement at a time holds the mask, as in MPICH: the one whose parent
 * has the lowest slot among those waiting, so that every member eventually gives it to the same
 * agreement. The others offer nothing and try again. */
static int mask_take(uint32_t pslot)
{
    comms.waiting[pslot / 64] |= UINT64_C(1) << (pslot % 64);
    if (comms.mask_busy)
        return 0;
    for (uint32_t w = 0; w < BITMAP_WORDS; w++) {
        if (comms.waiting[w] != 0) {
            if (w * 64 + (uint32_t)__builtin_ctzll(comms.waiting[w]) != pslot)
                return 0;
            break;
        }
    }
    comms.mask_busy = 1;
    return 1;
}

/* Agree with the members of a on a slot free at all of them. Every member calls it. */
static vbt_status_t agree_slot(const vbt_agree_t *a, uint32_t *slot_p)
{
    /* The last word: 1 at every member that offered its real bitmap. */
    uint64_t bits[BITMAP_WORDS + 1];
    uint32_t pslot = a->parent->context_id / 2;
    vbt_status_t status;
    int mine;

    for (;;) {
        reap_zombies();
        mine = !vbt_rt.cs.on || mask_take(pslot);
        if (mine)
            memcpy(bits, comms.free_slots, sizeof(comms.free_slots));
        else
            memset(bits, 0, sizeof(comms.free_slots));
        bits[BITMAP_WORDS] = (uint64_t)mine;
        /* While we wait, a nonblocking agreement must not reserve a slot of our snapshot. */
        comms.agreeing++;
        status = vbt_agree_and(a, bits, BITMAP_WORDS + 1);
        comms.agreeing--;
        if (mine && vbt_rt.cs.on)
            comms.mask_busy = 0;
        if (status != VBT_OK || bits[BITMAP_WORDS] != 0)
            break;
        /* Some member's mask was another agreement's: give that one the time to end. */
        int depth = vbt_rlock_suspend(&vbt_rt.cs);
        sched_yield();
        vbt_rlock_resume(&vbt_rt.cs, depth);
    }
    comms.waiting[pslot / 64] &= ~(UINT64_C(1) << (pslot % 64));
    if (status != VBT_OK)
        return status;
    /* The caller takes the slot before it leaves the critical section. */
    for (uint32_t w = 0; w < BITMAP_WORDS; w++) {
        if (bits[w] != 0) {
            *slot_p = w * 64 + (uint32_t)__builtin_ctzll(bits[w]);
            return VBT_OK;
        }
    }
    vbt_error("no context id is free at every member of the new communicator: a process can "
              "be in at most %d communicators at once; free some with MPI_Comm_free",
              VBT_COMM_MAX);
    return VBT_ERR_NO_RESOURCE;
}

/* The new communicator on slot, of group, where this process is rank. Takes over the caller's
 * reference to group on success. */
static vbt_status_t comm_new(vbt_comm_t *parent, vbt_group_t *group, int rank, uint32_t slot,
                             vbt_comm_t **comm_p)
{
    vbt_comm_t *comm = &vbt_comm_slab[slot];

    comm_setup(comm, MPI_COMM_NULL, group, rank, slot, NULL);
    comm->errhandler = parent->errhandler;
    vbt_errhandler_retain(comm->errhandler);
    comm->session = parent->session;
    install(comm);
    *comm_p = comm;
    return VBT_OK;
}

vbt_status_t vbt_comm_new_on_slot(vbt_comm_t *parent, vbt_group_t *group, int rank, uint32_t slot,
                                  vbt_comm_t **comm_p)
{
    return comm_new(parent, group, rank, slot, comm_p);
}

void vbt_comm_agreement_begin(uint64_t *bits)
{
    reap_zombies();
    memcpy(bits, comms.free_slots, sizeof(comms.free_slots));
    comms.agreeing++;
}

void vbt_comm_agreement_end(void)
{
    comms.agreeing--;
}

vbt_status_t vbt_comm_create(vbt_comm_t *parent, vbt_group_t *group, vbt_comm_t **comm_p)
{
    vbt_agree_t a = {.parent = parent, .n = parent->size, .me = parent->rank, .tag = 0};
    int rank = vbt_group_rank_of(group, parent->world_ranks[parent->rank]);
    uint32_t slot;
    vbt_status_t status;

    status = agree_slot(&a, &slot);
    if (status != VBT_OK)
        return status;
    if (rank == MPI_UNDEFINED) {
        *comm_p = NULL;
        return VBT_OK;
    }
    vbt_group_retain(group);
    status = comm_new(parent, group, rank, slot, comm_p);
    if (status != VBT_OK)
        vbt_group_release(group);
    return status;
}

void vbt_comm_slots_free(uint64_t *bits)
{
    reap_zombies();
    memcpy(bits, comms.free_slots, sizeof(comms.free_slots));
}

void vbt_comm_slots_offerable(uint64_t *bits)
{
    if (comms.agreeing > 0) {
        memset(bits, 0, sizeof(comms.free_slots));
        return;
    }
    vbt_comm_slots_free(bits);
}

void vbt_comm_slots_reserve(const uint64_t *bits)
{
    for (uint32_t w = 0; w < BITMAP_WORDS; w++)
        comms.free_slots[w] &= ~bits[w];
}

void vbt_comm_slots_unreserve(const uint64_t *bits)
{
    for (uint32_t w = 0; w < BITMAP_WORDS; w++)
        comms.free_slots[w] |= bits[w];
}

vbt_status_t vbt_comm_create_on_slot(vbt_comm_t *parent, uint32_t slot, vbt_comm_t **comm_p)
{
    vbt_status_t status;

    vbt_group_retain(parent->group);
    status = comm_new(parent, parent->group, parent->rank, slot, comm_p);
    if (status != VBT_OK)
        vbt_group_release(parent->group);
    return status;
}

vbt_status_t vbt_comm_create_group(vbt_comm_t *parent, vbt_group_t *group, int tag,
                                   vbt_comm_t **comm_p)
{
    int rank = vbt_group_rank_of(group, parent->world_ranks[parent->rank]);
    int *pranks;
    uint32_t slot;
    vbt_status_t status;

    if (rank == MPI_UNDEFINED) {
        *comm_p = NULL;
        return VBT_OK;
    }
    /* The members talk over the parent: they need their ranks in it. */
    pranks = malloc((size_t)group->size * sizeof(int));
    if (pranks == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < group->size; i++)
        pranks[i] = vbt_group_rank_of(parent->group, group->ranks[i]);
    vbt_agree_t a = {
        .parent = parent, .n = group->size, .me = rank, .ranks = pranks, .tag = 2 + (tag & 0x7fff)};
    status = agree_slot(&a, &slot);
    free(pranks);
    if (status != VBT_OK)
        return status;
    vbt_group_retain(group);
    status = comm_new(parent, group, rank, slot, comm_p);
    if (status != VBT_OK)
        vbt_group_release(group);
    return status;
}

/* Agreement tags: 0 MPI_Comm_create/dup, 1 split, 2 + (tag & 0x7fff) MPI_Comm_create_group,
 * then the string tags of MPI_Comm_create_from_group up to VBT_AGREE_TAG_MASK. */
enum { STRINGTAG_FIRST = 2 + 0x8000 };

int vbt_comm_stringtag_tag(const char *stringtag)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (const unsigned char *p = (const unsigned char *)stringtag; *p != '\0'; p++)
        h = (h ^ *p) * 16777619u;
    return STRINGTAG_FIRST + (int)(h % (uint32_t)(VBT_AGREE_TAG_MASK + 1 - STRINGTAG_FIRST));
}

vbt_status_t vbt_comm_create_from_group(vbt_group_t *group, const char *stringtag,
                                        MPI_Errhandler errhandler, vbt_comm_t **comm_p)
{
    /* Rank r of the internal world communicator is world rank r: the group's ranks are the
     * members' ranks there. */
    int rank = vbt_group_rank_of(group, vbt_comm_world.rank);
    vbt_agree_t a = {.parent = &vbt_comm_world,
                     .n = group->size,
                     .me = rank,
                     .ranks = group->ranks,
                     .tag = vbt_comm_stringtag_tag(stringtag)};
    uint32_t slot;
    vbt_status_t status;

    if (rank == MPI_UNDEFINED) {
        vbt_error("this process (world rank %d) is not a member of the group", vbt_comm_world.rank);
        return VBT_ERR_INVALID_PARAM;
    }
    status = agree_slot(&a, &slot);
    if (status != VBT_OK)
        return status;
    vbt_group_retain(group);
    status = comm_new(&vbt_comm_world, group, rank, slot, comm_p);
    if (status != VBT_OK) {
        vbt_group_release(group);
        return status;
    }
    vbt_errhandler_retain(errhandler);
    vbt_errhandler_release((*comm_p)->errhandler);
    (*comm_p)->errhandler = errhandler;
    (*comm_p)->session = group->session;
    return VBT_OK;
}

typedef struct {
    int color;
    int key;
    int prank; /* rank in the parent: breaks ties between equal keys */
} split_entry_t;

static int split_cmp(const void *x, const void *y)
{
    const split_entry_t *a = x, *b = y;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->prank < b->prank ? -1 : a->prank > b->prank;
}

vbt_status_t vbt_comm_split(vbt_comm_t *parent, int color, int key, vbt_comm_t **comm_p)
{
    vbt_agree_t a = {.parent = parent, .n = parent->size, .me = parent->rank, .tag = 1};
    int mine[2] = {color, key}, *all, *world = NULL, n = 0, rank = -1;
    split_entry_t *members = NULL;
    vbt_group_t *group;
    uint32_t slot;
    vbt_status_t status;

    all = malloc((size_t)parent->size * sizeof(mine));
    if (all == NULL)
        return VBT_ERR_NO_MEMORY;
    status = vbt_agree_allgather(&a, mine, sizeof(mine), all);
    if (status != VBT_OK)
        goto out;
    /* Everyone joins the context agreement, also those that get MPI_COMM_NULL. */
    status = agree_slot(&a, &slot);
    if (status != VBT_OK || color == MPI_UNDEFINED) {
        *comm_p = NULL;
        goto out;
    }
    members = malloc((size_t)parent->size * sizeof(*members));
    world = malloc((size_t)parent->size * sizeof(int));
    status = VBT_ERR_NO_MEMORY;
    if (members == NULL || world == NULL)
        goto out;
    for (int r = 0; r < parent->size; r++) {
        if (all[2 * r] == color)
            members[n++] = (split_entry_t){.color = color, .key = all[2 * r + 1], .prank = r};
    }
    qsort(members, (size_t)n, sizeof(*members), split_cmp);
    for (int i = 0; i < n; i++) {
        world[i] = parent->world_ranks[members[i].prank];
        if (members[i].prank == parent->rank)
            rank = i;
    }
    status = vbt_group_create(n, world, &group);
    if (status != VBT_OK)
        goto out;
    status = comm_new(parent, group, rank, slot, comm_p);
    if (status != VBT_OK)
        vbt_group_release(group);
out:
    free(all);
    free(members);
    free(world);
    return status;
}

int vbt_comm_compare(const vbt_comm_t *a, const vbt_comm_t *b)
{
    int r;

    if (a == b)
        return MPI_IDENT;
    if (vbt_comm_is_inter(a) != vbt_comm_is_inter(b))
        return MPI_UNEQUAL;
    r = vbt_group_compare(a->group, b->group);
    if (vbt_comm_is_inter(a) && r != MPI_UNEQUAL) {
        int rr = vbt_group_compare(a->remote_group, b->remote_group);
        if (rr == MPI_UNEQUAL)
            return MPI_UNEQUAL;
        if (rr == MPI_SIMILAR)
            r = MPI_SIMILAR;
    }
    return r == MPI_IDENT ? MPI_CONGRUENT : r;
}
