#include "vbt_comm.h"

#include <string.h>

/* Context ids 0..3 belong to the predefined communicators (two each). */
enum { VBT_CONTEXT_WORLD = 0, VBT_CONTEXT_SELF = 2 };

vbt_comm_t vbt_comm_world;
vbt_comm_t vbt_comm_self;

static void comm_setup(vbt_comm_t *comm, MPI_Comm handle, int rank, int size, uint32_t context,
                       int base, const char *name)
{
    memset(comm, 0, sizeof(*comm));
    comm->handle = handle;
    comm->rank = rank;
    comm->size = size;
    comm->context_id = context;
    comm->world_rank_base = base;
    comm->errhandler = MPI_ERRORS_ARE_FATAL;
    strncpy(comm->name, name, sizeof(comm->name) - 1);
}

vbt_status_t vbt_comm_init_predefined(int world_rank, int world_size)
{
    comm_setup(&vbt_comm_world, MPI_COMM_WORLD, world_rank, world_size, VBT_CONTEXT_WORLD, 0,
               "MPI_COMM_WORLD");
    comm_setup(&vbt_comm_self, MPI_COMM_SELF, 0, 1, VBT_CONTEXT_SELF, world_rank, "MPI_COMM_SELF");
    return VBT_OK;
}

void vbt_comm_cleanup_predefined(void)
{
    vbt_comm_world.size = 0;
    vbt_comm_self.size = 0;
}

vbt_comm_t *vbt_comm_from_context(uint32_t context_id)
{
    switch (context_id & ~1u) {
    case VBT_CONTEXT_WORLD:
        return vbt_comm_world.size ? &vbt_comm_world : NULL;
    case VBT_CONTEXT_SELF:
        return vbt_comm_self.size ? &vbt_comm_self : NULL;
    }
    return NULL;
}
