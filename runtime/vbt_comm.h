/* Communicators: the runtime object behind an MPI_Comm handle. */
#ifndef VBT_COMM_H
#define VBT_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_status.h"

typedef struct vbt_comm {
    MPI_Comm handle;
    int rank;
    int size;
    uint32_t context_id; /* messages of different communicators never match */
    int world_rank_base; /* this comm's rank r is world rank (base + r); no groups yet */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
} vbt_comm_t;

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

static inline int vbt_comm_world_rank(const vbt_comm_t *comm, int rank)
{
    return comm->world_rank_base + rank;
}

#endif
