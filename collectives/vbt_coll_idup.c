/* MPI_Comm_idup: the context-id agreement of MPI_Comm_dup (runtime/vbt_comm.c: the lowest slot
 * free at every member) as a schedule, so the caller does not wait for late members.
 *
 * While it runs this process may create other communicators, so a slot it offers could be taken
 * before the agreement ends. Hence two phases: first an AND of the free slots as they are (no
 * reservation: only a hint of which slots are free everywhere), then every member offers at most
 * VBT_IDUP_OFFER of the slots in that AND that are still free, and reserves them (they leave its
 * free bitmap, so no other agreement takes them) until the second AND ends. Its lowest slot is
 * then free and reserved at every member; the rest go back. An empty second AND (the members'
 * communicators moved meanwhile, or a member was inside a blocking agreement, whose snapshot
 * of free slots must not be reserved under it) starts both phases again. */
#include "vbt_sched.h"
#include "vbt_comm_inter.h"
#include "vbt_log.h"

#include <stdlib.h>
#include <string.h>

#define VBT_IDUP_OFFER 64

typedef struct {
    vbt_comm_t *parent;
    vbt_coll_idup_done_fn *done;
    void *arg;
    uint64_t hint[VBT_COMM_SLOT_WORDS];
    uint64_t offer[VBT_COMM_SLOT_WORDS];  /* what we reserved */
    uint64_t agreed[VBT_COMM_SLOT_WORDS]; /* the AND of every member's offer */
    int reserved;
} idup_t;

static vbt_status_t append(vbt_sched_t *s, idup_t *d);

static vbt_status_t take_snapshot(vbt_sched_t *s, void *arg)
{
    idup_t *d = arg;

    (void)s;
    vbt_comm_slots_free(d->hint);
    return VBT_OK;
}

static vbt_status_t make_offer(vbt_sched_t *s, void *arg)
{
    idup_t *d = arg;
    uint64_t now[VBT_COMM_SLOT_WORDS];
    int left = VBT_IDUP_OFFER;

    (void)s;
    vbt_comm_slots_offerable(now);
    for (int w = 0; w < VBT_COMM_SLOT_WORDS; w++) {
        uint64_t b = d->hint[w] & now[w], keep = 0;
        while (b != 0 && left > 0) {
            uint64_t low = b & -b;
            keep |= low;
            b &= b - 1;
            left--;
        }
        d->offer[w] = keep;
    }
    vbt_comm_slots_reserve(d->offer);
    d->reserved = 1;
    memcpy(d->agreed, d->offer, sizeof(d->agreed));
    return VBT_OK;
}

static vbt_status_t decide(vbt_sched_t *s, void *arg)
{
    idup_t *d = arg;
    vbt_comm_t *nc;
    vbt_status_t st;

    /* An intercommunicator takes two slots (its own and its local group's hidden one). */
    uint32_t slot[2];
    int need = vbt_comm_is_inter(d->parent) ? 2 : 1, got = 0;
    for (uint32_t w = 0; w < VBT_COMM_SLOT_WORDS && got < need; w++) {
        uint64_t b = d->agreed[w];
        while (b != 0 && got < need) {
            slot[got++] = w * 64 + (uint32_t)__builtin_ctzll(b);
            b &= b - 1;
        }
    }
    if (got == need) {
        for (int i = 0; i < need; i++)
            d->offer[slot[i] / 64] &= ~(UINT64_C(1) << (slot[i] % 64));
        vbt_comm_slots_unreserve(d->offer);
        d->reserved = 0;
        if (need == 2)
            st = vbt_comm_inter_dup_on_slots(d->parent, slot[0], slot[1], &nc);
        else
            st = vbt_comm_create_on_slot(d->parent, slot[0], &nc);
        if (st != VBT_OK)
            return st;
        return d->done(d->arg, nc);
    }
    vbt_comm_slots_unreserve(d->offer);
    d->reserved = 0;
    for (int w = 0; w < VBT_COMM_SLOT_WORDS; w++) {
        if (d->hint[w] != 0) {
            vbt_debug("MPI_Comm_idup: the offered context ids were taken meanwhile; again");
            return append(s, d);
        }
    }
    vbt_error("no context id is free at every member of the new communicator: a process can "
              "be in at most %d communicators at once; free some with MPI_Comm_free",
              VBT_COMM_MAX);
    return VBT_ERR_NO_RESOURCE;
}

/* bits becomes the AND over every member (of both groups of an intercommunicator). */
static vbt_status_t and_all(vbt_sched_t *s, idup_t *d, uint64_t *bits, const vbt_op_t *band)
{
    if (vbt_comm_is_inter(d->parent))
        return vbt_sched_and_both(s, d->parent, bits, VBT_COMM_SLOT_WORDS);
    return vbt_sched_allreduce(s, d->parent, MPI_IN_PLACE, bits, VBT_COMM_SLOT_WORDS, MPI_UINT64_T,
                               band);
}

static vbt_status_t append(vbt_sched_t *s, idup_t *d)
{
    const vbt_op_t *band = vbt_op_get(MPI_BAND);

    vbt_sched_round(s);
    if (vbt_sched_call(s, take_snapshot, d) != VBT_OK)
        return VBT_ERR_NO_MEMORY;
    vbt_sched_round(s);
    if (and_all(s, d, d->hint, band) != VBT_OK)
        return VBT_ERR_NO_MEMORY;
    vbt_sched_round(s);
    if (vbt_sched_call(s, make_offer, d) != VBT_OK)
        return VBT_ERR_NO_MEMORY;
    vbt_sched_round(s);
    if (and_all(s, d, d->agreed, band) != VBT_OK)
        return VBT_ERR_NO_MEMORY;
    vbt_sched_round(s);
    if (vbt_sched_call(s, decide, d) != VBT_OK)
        return VBT_ERR_NO_MEMORY;
    vbt_sched_round(s);
    return VBT_OK;
}

static void idup_free(void *state)
{
    idup_t *d = state;

    if (d->reserved) /* ended early (a failure, MPI_Finalize): give the offer back */
        vbt_comm_slots_unreserve(d->offer);
    free(d);
}

vbt_status_t vbt_coll_idup(vbt_comm_t *comm, vbt_coll_idup_done_fn *done, void *arg,
                           vbt_request_t **req_p)
{
    vbt_sched_t *s = vbt_sched_create(comm);
    idup_t *d;
    vbt_status_t st;

    if (s == NULL)
        return VBT_ERR_NO_MEMORY;
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        vbt_sched_destroy(s);
        return VBT_ERR_NO_MEMORY;
    }
    d->parent = comm;
    d->done = done;
    d->arg = arg;
    vbt_sched_set_state(s, d, idup_free);
    st = append(s, d);
    if (st != VBT_OK) {
        vbt_sched_destroy(s);
        return st;
    }
    return vbt_sched_commit(s, 0, req_p);
}
