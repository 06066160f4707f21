/* Communicators: the runtime object behind an MPI_Comm handle. */
#ifndef VBT_COMM_H
#define VBT_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_match.h"
#include "vbt_status.h"

typedef struct vbt_comm {
    MPI_Comm handle;
    int rank;
    int size;
    /* Messages of different communicators never match: each has its own context ids, one for
     * point-to-point (context_id + VBT_CTX_P2P) and one for collectives (+ VBT_CTX_COLL). */
    uint32_t context_id;
    vbt_match_queue_t match[2];
    int world_rank_base; /* this comm's rank r is world rank (base + r); no groups yet */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
} vbt_comm_t;

enum { VBT_CTX_P2P = 0, VBT_CTX_COLL = 1 };

extern vbt_comm_t vbt_comm_world;
extern vbt_comm_t vbt_comm_self;

vbt_status_t vbt_comm_init_predefined(int world_rank, int world_size);
void vbt_comm_cleanup_predefined(void);

/* The object behind a handle, or NULL when the handle names no valid communicator. */
static inline vbt_comm_t *vbt_comm_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return &vbt_comm_world;
    if (comm == MPI_COMM_SELF)
        return &vbt_comm_self;
    return NULL;
}

/* The communicator a message's context id belongs to, or NULL. */
vbt_comm_t *vbt_comm_from_context(uint32_t context_id);

static inline int vbt_comm_world_rank(const vbt_comm_t *comm, int rank)
{
    return comm->world_rank_base + rank;
}

#endif
