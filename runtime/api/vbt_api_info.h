/* Info argument checks shared by the entry points that take an MPI_Info. */
#ifndef VBT_API_INFO_H
#define VBT_API_INFO_H

#include "vbt_api.h"
#include "vbt_info.h"

/* info is MPI_INFO_NULL or a live info object; otherwise MPI_ERR_INFO is raised from call on c
 * (NULL: the call has no communicator). *info_p is the object, NULL for MPI_INFO_NULL. */
int vbt_api_check_info(vbt_comm_t *c, const char *call, const char *arg, MPI_Info info,
                       vbt_info_t **info_p);

#endif
