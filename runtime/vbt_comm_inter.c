/* Intercommunicators: creation (MPI_Intercomm_create, and MPI_Comm_dup, split and create on an
 * intercommunicator), and MPI_Intercomm_merge.
 *
 * An intercommunicator is a communicator whose group is the local group and whose world_ranks
 * are the remote group's: point-to-point names remote ranks with no other change, and a message
 * carries the sender's local rank, which is the receiver's remote rank of it. Its context slot
 * is free at every member of both groups. Each one also has a hidden intracommunicator of its
 * local group (comm->local, on a second slot) for the local parts of its collectives
 * (collectives/vbt_coll_inter.c) and of the creations here.
 *
 * Every creation is one exchange: each group ANDs its free slots over its own intracommunicator
 * to its leader, the two leaders swap those and a blob (the group, split colours, ...) over a
 * bridge communicator, and each leader broadcasts the AND of both and the other side's blob to
 * its group. Both groups then take the two lowest common slots (the intercommunicator's and the
 * hidden ones: two groups are disjoint, so their hidden communicators may share one) and build
 * the same result from the same data. */
#include "vbt_comm_inter.h"
#include "vbt_comm_agree.h"
#include "vbt_log.h"
#include "vbt_p2p.h"
#include "vbt_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_WORDS VBT_COMM_SLOT_WORDS

/* Agreement tags on the local intracommunicator (vbt_comm_agree.h; below MPI_Comm_create_group's
 * 2 .. 0x8001 never, above them always). */
enum {
    AGREE_AND = 0xfff0,
    AGREE_BCAST_HEAD = 0xfff1,
    AGREE_BCAST_BLOB = 0xfff2,
    AGREE_GATHER = 0xfff3
};

/* What a leader sends the other leader and then its group: the free slots of its group (of
 * both groups, to its group), the blob's length and an error both leaders found. */
typedef struct {
    uint64_t bits[SLOT_WORDS];
    uint64_t bytes;
    uint64_t err; /* the leader's failure (a vbt_status_t), 0 for none */
} head_t;

typedef struct {
    vbt_comm_t *local;  /* the group's intracommunicator */
    int leader;         /* its leader's rank in local */
    vbt_comm_t *bridge; /* the leaders' communicator (at the leader only) */
    int remote_leader;  /* the other leader's rank in bridge */
    int tag;            /* on bridge's collective context */
    int *perm;          /* local ranks from the leader on: the leader is member 0 */
} link_t;

static vbt_status_t link_init(link_t *l)
{
    int n = l->local->size;

    l->perm = malloc((size_t)n * sizeof(int));
    if (l->perm == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n; i++)
        l->perm[i] = (i + l->leader) % n;
    return VBT_OK;
}

static vbt_agree_t link_agree(const link_t *l, int tag)
{
    int n = l->local->size;

    return (vbt_agree_t){.parent = l->local,
                         .n = n,
                         .me = (l->local->rank - l->leader + n) % n,
                         .ranks = l->perm,
                         .tag = tag};
}

static vbt_status_t wait_req(vbt_request_t *req, size_t *bytes_p)
{
    vbt_status_t st = vbt_p2p_wait_flag(&req->complete);

    if (st == VBT_OK && req->status_error != MPI_SUCCESS)
        st = req->status_error == MPI_ERR_TRUNCATE ? VBT_ERR_TRUNCATE : VBT_ERR_IO;
    if (bytes_p != NULL)
        *bytes_p = req->status_bytes;
    vbt_request_release(req);
    return st;
}

/* The leaders' swap: our head and blob out, theirs in (*rblob_p malloc'ed). */
static vbt_status_t leaders_swap(const link_t *l, const head_t *mine, const void *blob,
                                 head_t *theirs, void **rblob_p)
{
    vbt_request_t *rs = NULL, *rr = NULL;
    vbt_status_t st, st2;
    size_t got = 0;
    void *rblob;

    st = vbt_p2p_irecv(l->bridge, VBT_CTX_COLL, theirs, sizeof(*theirs), l->remote_leader, l->tag,
                       &rr);
    if (st != VBT_OK)
        return st;
    st = vbt_p2p_isend(l->bridge, VBT_CTX_COLL, mine, sizeof(*mine), l->remote_leader, l->tag, 0,
                       &rs);
    if (st != VBT_OK) {
        vbt_p2p_cancel(rr);
        wait_req(rr, NULL);
        return st;
    }
    st = wait_req(rr, &got);
    st2 = wait_req(rs, NULL);
    if (st == VBT_OK)
        st = st2;
    if (st == VBT_OK && got != sizeof(*theirs))
        st = VBT_ERR_TRUNCATE;
    if (st != VBT_OK)
        return st;
    rblob = malloc(theirs->bytes ? (size_t)theirs->bytes : 1);
    if (rblob == NULL)
        return VBT_ERR_NO_MEMORY;
    st = vbt_p2p_irecv(l->bridge, VBT_CTX_COLL, rblob, (size_t)theirs->bytes, l->remote_leader,
                       l->tag, &rr);
    if (st == VBT_OK) {
        st = vbt_p2p_isend(l->bridge, VBT_CTX_COLL, blob, (size_t)mine->bytes, l->remote_leader,
                           l->tag, 0, &rs);
        if (st != VBT_OK) {
            vbt_p2p_cancel(rr);
            wait_req(rr, NULL);
        } else {
            st = wait_req(rr, NULL);
            st2 = wait_req(rs, NULL);
            if (st == VBT_OK)
                st = st2;
        }
    }
    if (st != VBT_OK) {
        free(rblob);
        return st;
    }
    *rblob_p = rblob;
    return VBT_OK;
}

/* The exchange (see the top). bits: in, this process's free slots; out, those free at every
 * member of both groups. blob (bytes long) counts at the leader only. On success *rblob_p
 * (malloc'ed) holds the other leader's blob, *rbytes_p long, at every member. */
static vbt_status_t exchange(const link_t *l, uint64_t *bits, const void *blob, size_t bytes,
                             void **rblob_p, size_t *rbytes_p)
{
    vbt_agree_t a = link_agree(l, AGREE_AND);
    head_t head, theirs;
    void *rblob = NULL;
    vbt_status_t st;

    st = vbt_agree_and(&a, bits, SLOT_WORDS);
    if (st != VBT_OK)
        return st;
    memset(&head, 0, sizeof(head));
    if (l->local->rank == l->leader) {
        memcpy(head.bits, bits, sizeof(head.bits));
        head.bytes = bytes;
        /* No bridge: the leader's peer_comm or remote_leader was refused (by the API). */
        st = l->bridge != NULL ? leaders_swap(l, &head, blob, &theirs, &rblob)
                               : VBT_ERR_INVALID_PARAM;
        if (st != VBT_OK) {
            /* The group still waits for our broadcast: tell it why. */
            head.err = (uint64_t)(int64_t)st;
            head.bytes = 0;
        } else {
            for (int w = 0; w < SLOT_WORDS; w++)
                head.bits[w] &= theirs.bits[w];
            head.bytes = theirs.bytes;
        }
    }
    a.tag = AGREE_BCAST_HEAD;
    vbt_status_t bst = vbt_agree_bcast(&a, &head, sizeof(head));
    if (bst != VBT_OK || head.err) {
        free(rblob);
        return bst != VBT_OK ? bst : (vbt_status_t)(int64_t)head.err;
    }
    if (rblob == NULL) {
        rblob = malloc(head.bytes ? (size_t)head.bytes : 1);
        if (rblob == NULL)
            return VBT_ERR_NO_MEMORY; /* the leader's broadcast goes unreceived: fatal anyway */
    }
    a.tag = AGREE_BCAST_BLOB;
    st = vbt_agree_bcast(&a, rblob, (size_t)head.bytes);
    if (st != VBT_OK) {
        free(rblob);
        return st;
    }
    memcpy(bits, head.bits, sizeof(head.bits));
    *rblob_p = rblob;
    *rbytes_p = (size_t)head.bytes;
    return VBT_OK;
}

/* The two lowest slots set in bits. */
static vbt_status_t two_slots(const uint64_t *bits, uint32_t *slot_p, uint32_t *lslot_p)
{
    int found = 0;
    uint32_t s[2] = {0, 0};

    for (uint32_t w = 0; w < SLOT_WORDS && found < 2; w++) {
        uint64_t b = bits[w];
        while (b != 0 && found < 2) {
            s[found++] = w * 64 + (uint32_t)__builtin_ctzll(b);
            b &= b - 1;
        }
    }
    if (found < 2) {
        vbt_error("no two context ids are free at every member of the new intercommunicator: a "
                  "process can be in at most %d communicators at once (an intercommunicator "
                  "takes two); free some with MPI_Comm_free",
                  VBT_COMM_MAX);
        return VBT_ERR_NO_RESOURCE;
    }
    *slot_p = s[0];
    *lslot_p = s[1];
    return VBT_OK;
}

/* The intercommunicator of local group group (this process its rank) and remote group remote
 * on slot, with its hidden local communicator on lslot. Takes over the references to both
 * groups on success. */
static vbt_status_t make_inter(vbt_comm_t *parent, vbt_group_t *group, int rank,
                               vbt_group_t *remote, uint32_t slot, uint32_t lslot,
                               vbt_comm_t **comm_p)
{
    vbt_comm_t *lc, *ic;
    vbt_status_t st;

    vbt_group_retain(group); /* one reference for each of the two communicators */
    st = vbt_comm_new_on_slot(parent, group, rank, lslot, &lc);
    if (st != VBT_OK) {
        vbt_group_release(group);
        return st;
    }
    snprintf(lc->name, sizeof(lc->name), "the local group of an intercommunicator");
    st = vbt_comm_new_on_slot(parent, group, rank, slot, &ic);
    if (st != VBT_OK) {
        lc->magic = 0;
        vbt_comm_release(lc);
        return st;
    }
    ic->remote_group = remote;
    ic->world_ranks = remote->ranks;
    ic->remote_size = remote->size;
    ic->local = lc;
    *comm_p = ic;
    return VBT_OK;
}

/* A remote group's world ranks as received: n in 0..world size - 1, none in local. */
static vbt_status_t remote_group_from(const int *ranks, size_t bytes, const vbt_group_t *local,
                                      vbt_group_t **group_p)
{
    int n = (int)(bytes / sizeof(int));

    if (bytes % sizeof(int) != 0)
        return VBT_ERR_IO;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= vbt_comm_world.size)
            return VBT_ERR_IO;
        if (vbt_group_rank_of(local, ranks[i]) != MPI_UNDEFINED) {
            vbt_error("the two groups of the new intercommunicator overlap (world rank %d is in "
                      "both): the local communicators of the two leaders must have no process "
                      "in common",
                      ranks[i]);
            return VBT_ERR_INVALID_PARAM;
        }
    }
    return vbt_group_create(n, ranks, group_p);
}

static vbt_status_t link_run(link_t *l, const void *blob, size_t bytes, uint64_t *bits,
                             void **rblob_p, size_t *rbytes_p)
{
    vbt_status_t st = link_init(l);

    if (st != VBT_OK)
        return st;
    vbt_comm_agreement_begin(bits);
    st = exchange(l, bits, blob, bytes, rblob_p, rbytes_p);
    vbt_comm_agreement_end();
    free(l->perm);
    l->perm = NULL;
    return st;
}

vbt_status_t vbt_comm_intercomm_create(vbt_comm_t *local, int local_leader, vbt_comm_t *bridge,
                                       int remote_leader, int tag, vbt_comm_t **comm_p)
{
    link_t l = {.local = local,
                .leader = local_leader,
                .bridge = bridge,
                .remote_leader = remote_leader,
                .tag = VBT_INTER_TAG_BASE + (tag & VBT_INTER_TAG_MASK)};
    uint64_t bits[SLOT_WORDS];
    void *rblob = NULL;
    size_t rbytes = 0;
    uint32_t slot, lslot;
    vbt_group_t *remote;
    vbt_status_t st;

    st =
        link_run(&l, local->group->ranks, (size_t)local->size * sizeof(int), bits, &rblob, &rbytes);
    if (st != VBT_OK)
        return st;
    st = remote_group_from(rblob, rbytes, local->group, &remote);
    free(rblob);
    if (st != VBT_OK)
        return st;
    st = two_slots(bits, &slot, &lslot);
    if (st == VBT_OK)
        st = make_inter(local, local->group, local->rank, remote, slot, lslot, comm_p);
    if (st != VBT_OK) {
        vbt_group_release(remote);
        return st;
    }
    vbt_group_retain(local->group);
    return VBT_OK;
}

/* The link of an existing intercommunicator: its hidden local one, leaders at rank 0. */
static link_t inter_link(vbt_comm_t *inter)
{
    return (link_t){.local = inter->local,
                    .leader = 0,
                    .bridge = inter,
                    .remote_leader = 0,
                    .tag = VBT_INTER_TAG_OWN};
}

vbt_status_t vbt_comm_inter_dup_on_slots(vbt_comm_t *inter, uint32_t slot, uint32_t lslot,
                                         vbt_comm_t **comm_p)
{
    vbt_status_t st;

    vbt_group_retain(inter->remote_group);
    st = make_inter(inter, inter->group, inter->rank, inter->remote_group, slot, lslot, comm_p);
    if (st != VBT_OK) {
        vbt_group_release(inter->remote_group);
        return st;
    }
    vbt_group_retain(inter->group);
    return VBT_OK;
}

vbt_status_t vbt_comm_inter_dup(vbt_comm_t *inter, vbt_comm_t **comm_p)
{
    link_t l = inter_link(inter);
    uint64_t bits[SLOT_WORDS];
    void *rblob = NULL;
    size_t rbytes = 0;
    uint32_t slot, lslot;
    vbt_status_t st;

    st = link_run(&l, NULL, 0, bits, &rblob, &rbytes);
    free(rblob);
    if (st != VBT_OK)
        return st;
    st = two_slots(bits, &slot, &lslot);
    if (st != VBT_OK)
        return st;
    return vbt_comm_inter_dup_on_slots(inter, slot, lslot, comm_p);
}

typedef struct {
    int key;
    int rank; /* in its group: breaks ties between equal keys */
    int world;
} member_t;

static int member_cmp(const void *x, const void *y)
{
    const member_t *a = x, *b = y;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* The members of colour color among n (colour, key) pairs of the group with these world ranks,
 * ordered by key then rank, as a new group (NULL when none). */
static vbt_status_t color_group(const int *ck, int n, const int *world, int color,
                                vbt_group_t **group_p)
{
    member_t *m = malloc((size_t)(n ? n : 1) * sizeof(*m));
    int *ranks = malloc((size_t)(n ? n : 1) * sizeof(int)), k = 0;
    vbt_status_t st = VBT_OK;

    *group_p = NULL;
    if (m == NULL || ranks == NULL) {
        st = VBT_ERR_NO_MEMORY;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (ck[2 * i] == color)
            m[k++] = (member_t){.key = ck[2 * i + 1], .rank = i, .world = world[i]};
    }
    if (k == 0)
        goto out;
    qsort(m, (size_t)k, sizeof(*m), member_cmp);
    for (int i = 0; i < k; i++)
        ranks[i] = m[i].world;
    st = vbt_group_create(k, ranks, group_p);
out:
    free(m);
    free(ranks);
    return st;
}

vbt_status_t vbt_comm_inter_split(vbt_comm_t *inter, int color, int key, vbt_comm_t **comm_p)
{
    link_t l = inter_link(inter);
    int n = inter->size, mine[2] = {color, key}, *all;
    vbt_agree_t a;
    uint64_t bits[SLOT_WORDS];
    void *rblob = NULL;
    size_t rbytes = 0;
    uint32_t slot, lslot;
    vbt_group_t *lg = NULL, *rg = NULL;
    vbt_status_t st;

    *comm_p = NULL;
    all = malloc((size_t)n * sizeof(mine));
    if (all == NULL)
        return VBT_ERR_NO_MEMORY;
    /* The local colours and keys, in local rank order, at everyone (the leader's blob). */
    a = (vbt_agree_t){.parent = inter->local, .n = n, .me = inter->rank, .tag = AGREE_GATHER};
    st = vbt_agree_allgather(&a, mine, sizeof(mine), all);
    if (st == VBT_OK)
        st = link_run(&l, all, (size_t)n * sizeof(mine), bits, &rblob, &rbytes);
    if (st != VBT_OK)
        goto out;
    if (rbytes != (size_t)inter->remote_size * sizeof(mine)) {
        st = VBT_ERR_IO;
        goto out;
    }
    if (color == MPI_UNDEFINED)
        goto out;
    st = color_group(all, n, inter->group->ranks, color, &lg);
    if (st == VBT_OK)
        st = color_group(rblob, inter->remote_size, inter->remote_group->ranks, color, &rg);
    /* A colour only one side has gives MPI_COMM_NULL (MPI-4.1 Sec. 7.4.2). */
    if (st != VBT_OK || rg == NULL)
        goto out;
    st = two_slots(bits, &slot, &lslot);
    if (st == VBT_OK)
        st = make_inter(inter, lg, vbt_group_rank_of(lg, inter->group->ranks[inter->rank]), rg,
                        slot, lslot, comm_p);
    if (st == VBT_OK)
        lg = rg = NULL;
out:
    if (lg != NULL)
        vbt_group_release(lg);
    if (rg != NULL)
        vbt_group_release(rg);
    free(all);
    free(rblob);
    return st;
}

vbt_status_t vbt_comm_inter_create(vbt_comm_t *inter, vbt_group_t *group, vbt_comm_t **comm_p)
{
    link_t l = inter_link(inter);
    uint64_t bits[SLOT_WORDS];
    void *rblob = NULL;
    size_t rbytes = 0;
    uint32_t slot, lslot;
    vbt_group_t *rg = NULL;
    int rank = vbt_group_rank_of(group, inter->group->ranks[inter->rank]);
    vbt_status_t st;

    *comm_p = NULL;
    st = link_run(&l, group->ranks, (size_t)group->size * sizeof(int), bits, &rblob, &rbytes);
    if (st != VBT_OK)
        return st;
    st = remote_group_from(rblob, rbytes, inter->group, &rg);
    free(rblob);
    if (st != VBT_OK)
        return st;
    for (int i = 0; i < rg->size && st == VBT_OK; i++) {
        if (vbt_group_rank_of(inter->remote_group, rg->ranks[i]) == MPI_UNDEFINED)
            st = VBT_ERR_IO; /* not a subgroup of the remote group: the other side's check */
    }
    /* Outside group, or facing an empty group: MPI_COMM_NULL. */
    if (st != VBT_OK || rank == MPI_UNDEFINED || rg->size == 0 || group->size == 0) {
        vbt_group_release(rg);
        return st;
    }
    st = two_slots(bits, &slot, &lslot);
    if (st == VBT_OK)
        st = make_inter(inter, group, rank, rg, slot, lslot, comm_p);
    if (st != VBT_OK) {
        vbt_group_release(rg);
        return st;
    }
    vbt_group_retain(group);
    return VBT_OK;
}

vbt_status_t vbt_comm_inter_merge(vbt_comm_t *inter, int high, vbt_comm_t **comm_p)
{
    link_t l = inter_link(inter);
    int mine[2] = {high != 0, inter->group->ranks[0]}, *theirs, n, *ranks;
    uint64_t bits[SLOT_WORDS];
    void *rblob = NULL;
    size_t rbytes = 0;
    uint32_t slot = 0;
    int we_first, k = 0, rank = -1;
    vbt_group_t *g;
    vbt_status_t st;

    /* The leader's high counts for its group (the standard wants them all the same). */
    st = link_run(&l, mine, sizeof(mine), bits, &rblob, &rbytes);
    if (st != VBT_OK)
        return st;
    if (rbytes != sizeof(mine)) {
        free(rblob);
        return VBT_ERR_IO;
    }
    theirs = rblob;
    {
        vbt_agree_t a = {
            .parent = inter->local, .n = inter->size, .me = inter->rank, .tag = AGREE_BCAST_HEAD};
        /* Our own leader's high, for members that passed another one. */
        st = vbt_agree_bcast(&a, mine, sizeof(mine));
    }
    if (st != VBT_OK) {
        free(rblob);
        return st;
    }
    /* The low group first; equal highs: the group of the lower leader (world rank) first. */
    if (mine[0] != theirs[0])
        we_first = !mine[0];
    else
        we_first = mine[1] < theirs[1];
    free(rblob);
    n = inter->size + inter->remote_size;
    ranks = malloc((size_t)n * sizeof(int));
    if (ranks == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int pass = 0; pass < 2; pass++) {
        const vbt_group_t *g2 = (pass == 0) == we_first ? inter->group : inter->remote_group;
        for (int i = 0; i < g2->size; i++) {
            if (g2 == inter->group && i == inter->rank)
                rank = k;
            ranks[k++] = g2->ranks[i];
        }
    }
    for (uint32_t w = 0; w < SLOT_WORDS; w++) {
        if (bits[w] != 0) {
            slot = w * 64 + (uint32_t)__builtin_ctzll(bits[w]);
            break;
        }
        if (w + 1 == SLOT_WORDS) {
            free(ranks);
            vbt_error("no context id is free at every member of the merged communicator: a "
                      "process can be in at most %d communicators at once; free some with "
                      "MPI_Comm_free",
                      VBT_COMM_MAX);
            return VBT_ERR_NO_RESOURCE;
        }
    }
    st = vbt_group_create(n, ranks, &g);
    free(ranks);
    if (st != VBT_OK)
        return st;
    st = vbt_comm_new_on_slot(inter, g, rank, slot, comm_p);
    if (st != VBT_OK)
        vbt_group_release(g);
    return st;
}
