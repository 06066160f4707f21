/* Argument checks shared by the group, communicator, attribute and topology entry points. */
#ifndef VBT_API_COMM_H
#define VBT_API_COMM_H

#include "vbt_api.h"
#include "vbt_api_p2p.h"
#include "vbt_group.h"

int vbt_api_bad_group(const char *call, const char *arg, MPI_Group handle)
    __attribute__((noinline, cold));
/* Raise a failure of the implementation (a vbt_status_t) from call. */
int vbt_api_comm_failed(vbt_comm_t *c, const char *call, vbt_status_t status)
    __attribute__((noinline, cold));

/* Resolve a group handle or raise MPI_ERR_GROUP from _call. */
#define VBT_API_GROUP(_var, _handle, _call, _arg)                                                  \
    vbt_group_t *_var = vbt_group_get(_handle);                                                    \
    if (unlikely(_var == NULL))                                                                    \
        return vbt_api_bad_group(_call, _arg, _handle);

/* A new communicator's handle, MPI_COMM_NULL for NULL. */
static inline MPI_Comm vbt_api_comm_handle(vbt_comm_t *c)
{
    return c != NULL ? c->handle : MPI_COMM_NULL;
}

/* Attach what MPI_Comm_dup keeps (attributes through their copy callbacks, topology) to a new
 * communicator; on failure the new one is freed. Returns an MPI error code. */
int vbt_api_comm_dup_extras(vbt_comm_t *old, vbt_comm_t *c, const char *call);
/* Update c's hints from info (MPI_Comm_set_info, the _with_info dups; comm_info.c). */
struct vbt_info;
vbt_status_t vbt_api_comm_set_hints(vbt_comm_t *c, const struct vbt_info *info);

#endif
