/* MPI_Comm_idup, MPI_Comm_idup_with_info: MPI_Comm_dup and _with_info without waiting for the
 * other members; the context-id agreement runs as a collective schedule (collectives/
 * vbt_coll_idup.c), and what MPI_Comm_dup does after it (attributes, topology, hints, the
 * handle in *newcomm) is done when it completes. */
#include "vbt_api_coll.h"
#include "vbt_api_comm.h"
#include "vbt_api_info.h"
#include "vbt_attr.h"

#include <stdlib.h>

VBT_PMPI_ALIAS(Comm_idup)
VBT_PMPI_ALIAS(Comm_idup_with_info)

typedef struct {
    const char *call;
    vbt_comm_t *old;
    MPI_Comm *newcomm;
    int with_info;
    vbt_info_t *info; /* with_info: a copy of the caller's (it may free its own) */
} idup_arg_t;

static vbt_status_t idup_done(void *arg, vbt_comm_t *nc)
{
    idup_arg_t *d = arg;
    vbt_status_t st = VBT_OK;
    int rc = vbt_api_comm_dup_extras(d->old, nc, d->call); /* frees nc on failure */

    if (rc != MPI_SUCCESS) {
        st = rc == MPI_ERR_NO_MEM ? VBT_ERR_NO_MEMORY : VBT_ERR_IO;
        nc = NULL;
    } else if (d->with_info) {
        /* The hints come from info alone (Sec. 7.4.2), as MPI_Comm_dup_with_info does. */
        vbt_info_release(nc->hints);
        nc->hints = NULL;
        st = vbt_api_comm_set_hints(nc, d->info);
        if (st != VBT_OK) {
            vbt_attr_delete_all(nc);
            vbt_attr_delete_all_quiet(nc);
            vbt_comm_free(nc);
            nc = NULL;
        }
    }
    *d->newcomm = nc != NULL ? nc->handle : MPI_COMM_NULL;
    if (d->info != NULL)
        vbt_info_release(d->info);
    free(d);
    return st;
}

static int idup_common(const char *call, MPI_Comm comm, int with_info, MPI_Info info,
                       MPI_Comm *newcomm, MPI_Request *request)
{
    vbt_request_t *req;
    vbt_info_t *i = NULL;
    idup_arg_t *d;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    if (with_info)
        VBT_API_CHECK(vbt_api_check_info(c, call, "info", info, &i));
    VBT_API_PTR(c, call, newcomm, "newcomm");
    VBT_API_PTR(c, call, request, "request");
    d = calloc(1, sizeof(*d));
    if (d == NULL)
        return vbt_api_comm_failed(c, call, VBT_ERR_NO_MEMORY);
    *d = (idup_arg_t){.call = call, .old = c, .newcomm = newcomm, .with_info = with_info};
    if (i != NULL && (st = vbt_info_dup(i, &d->info)) != VBT_OK) {
        free(d);
        return vbt_api_comm_failed(c, call, st);
    }
    *newcomm = MPI_COMM_NULL; /* until the request completes */
    st = vbt_coll_idup(c, idup_done, d, &req);
    if (st != VBT_OK) {
        if (d->info != NULL)
            vbt_info_release(d->info);
        free(d);
        return vbt_api_comm_failed(c, call, st);
    }
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_common("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, request);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_common("MPI_Comm_idup_with_info", comm, 1, info, newcomm, request);
}
