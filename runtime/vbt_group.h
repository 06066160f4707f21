/* Groups: the object behind an MPI_Group handle, an ordered list of world ranks shared by
 * reference count (a communicator holds its group, MPI_Comm_group hands out one more reference).
 * The set operations are pure functions of the rank lists, so Check tests them without MPI. */
#ifndef VBT_GROUP_H
#define VBT_GROUP_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_objpool.h"
#include "vbt_status.h"

#define VBT_GROUP_MAGIC 0x56424750u /* "VBGP": tells a live group from a stray pointer */

typedef struct vbt_group {
    uint32_t magic;
    int refcount;
    int size;
    int *ranks; /* the world rank of each member, in group order; the free-list link once freed */
    /* The session it derives from (MPI_Group_from_session_pset, and the groups made of such
     * a group), or MPI_SESSION_NULL; a communicator made from it takes it. */
    MPI_Session session;
} vbt_group_t;

/* Every group but the empty one lives here (vbt_objpool.h): a handle is looked up, never
 * followed. */
extern vbt_objpool_t vbt_group_pool;

/* MPI_GROUP_EMPTY: never allocated, never freed; every empty result is this one. */
extern vbt_group_t vbt_group_empty;

/* The object behind a handle, or NULL (MPI_GROUP_NULL, a freed group, or not a group: then the
 * handle is not read). */
static inline vbt_group_t *vbt_group_get(MPI_Group handle)
{
    if (handle == MPI_GROUP_EMPTY)
        return &vbt_group_empty;
    return vbt_objpool_get(&vbt_group_pool, handle, sizeof(vbt_group_t), VBT_GROUP_MAGIC);
}

static inline MPI_Group vbt_group_handle(vbt_group_t *g)
{
    return g == &vbt_group_empty ? MPI_GROUP_EMPTY : (MPI_Group)g;
}

/* A group of n members with these world ranks (copied), with one reference. */
vbt_status_t vbt_group_create(int n, const int *world_ranks, vbt_group_t **group_p);
void vbt_group_retain(vbt_group_t *g);
void vbt_group_release(vbt_group_t *g);
/* MPI_Finalize: every group still alive goes, its handles with it. */
void vbt_group_cleanup(void);

/* The rank of world rank w in g, or MPI_UNDEFINED. */
int vbt_group_rank_of(const vbt_group_t *g, int w);

/* Check a list of n ranks of g for MPI_Group_incl/excl: each in 0..size-1 and no repeats. On a
 * bad one, returns its index and says why in why[len]; -1 when all are good. */
int vbt_group_check_ranks(const vbt_group_t *g, int n, const int *ranks, char *why, size_t len);
/* Expand MPI_Group_range_incl/excl triplets (first, last, stride) into the list of ranks they
 * name, checking them as the standard says (rank in range, stride not 0, no rank twice).
 * VBT_ERR_INVALID_PARAM with why[len] filled on a bad triplet; *list_p is malloc'ed. */
vbt_status_t vbt_group_expand_ranges(const vbt_group_t *g, int n, int ranges[][3], int **list_p,
                                     int *count_p, char *why, size_t len);

/* The set operations of MPI-4.1 Sec. 7.3.2; arguments are valid (checked by the caller). */
vbt_status_t vbt_group_incl(const vbt_group_t *g, int n, const int *ranks, vbt_group_t **out_p);
vbt_status_t vbt_group_excl(const vbt_group_t *g, int n, const int *ranks, vbt_group_t **out_p);
vbt_status_t vbt_group_union(const vbt_group_t *a, const vbt_group_t *b, vbt_group_t **out_p);
vbt_status_t vbt_group_intersection(const vbt_group_t *a, const vbt_group_t *b,
                                    vbt_group_t **out_p);
vbt_status_t vbt_group_difference(const vbt_group_t *a, const vbt_group_t *b, vbt_group_t **out_p);
/* ranks_b[i] = rank in b of member ranks_a[i] of a (MPI_UNDEFINED if absent; MPI_PROC_NULL
 * stays MPI_PROC_NULL). ranks_a are valid ranks of a or MPI_PROC_NULL. */
vbt_status_t vbt_group_translate(const vbt_group_t *a, int n, const int *ranks_a,
                                 const vbt_group_t *b, int *ranks_b);
/* MPI_IDENT (same members, same order), MPI_SIMILAR (same members) or MPI_UNEQUAL. */
int vbt_group_compare(const vbt_group_t *a, const vbt_group_t *b);
/* Is every member of a also a member of b? */
int vbt_group_is_subset(const vbt_group_t *a, const vbt_group_t *b);

#endif
