/* Creating, comparing, naming and freeing communicators. The collective work (agreeing on a
 * context id, gathering split colours) is in runtime/vbt_comm.c. */
#include "vbt_api_comm.h"
#include "vbt_api_p2p.h"
#include "vbt_api_info.h"
#include "vbt_attr.h"
#include "vbt_comm_inter.h"
#include "vbt_topo.h"

#include <stdint.h>
#include <string.h>

VBT_PMPI_ALIAS(Comm_dup)
VBT_PMPI_ALIAS(Comm_split)
VBT_PMPI_ALIAS(Comm_split_type)
VBT_PMPI_ALIAS(Comm_create)
VBT_PMPI_ALIAS(Comm_create_group)
VBT_PMPI_ALIAS(Comm_free)
VBT_PMPI_ALIAS(Comm_compare)
VBT_PMPI_ALIAS(Comm_set_name)
VBT_PMPI_ALIAS(Comm_get_name)

int vbt_api_comm_dup_extras(vbt_comm_t *old, vbt_comm_t *c, const char *call)
{
    int rc = vbt_attr_copy_all(old, c);
    vbt_status_t status = VBT_OK;

    if (rc == MPI_SUCCESS && old->topo != NULL)
        status = vbt_topo_dup(old->topo, c->rank, &c->topo);
    /* MPI_Comm_dup keeps the hints too (MPI-4.1 Sec. 7.4.2). */
    if (rc == MPI_SUCCESS && status == VBT_OK && old->hints != NULL)
        status = vbt_info_dup(old->hints, &c->hints);
    if (rc == MPI_SUCCESS && status == VBT_OK)
        return MPI_SUCCESS;
    /* Undo: what was copied is deleted again through its callbacks. */
    vbt_attr_delete_all(c);
    vbt_attr_delete_all_quiet(c);
    vbt_comm_free(c);
    if (status != VBT_OK)
        return vbt_api_comm_failed(old, call, status);
    return vbt_error_raise(old, call, rc == MPI_ERR_NO_MEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER,
                           "an attribute copy callback returned error code %d, so no new "
                           "communicator was made",
                           rc);
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    vbt_comm_t *nc = NULL;
    vbt_status_t status;
    int rc;

    VBT_API_ENTER("MPI_Comm_dup");
    VBT_API_COMM(c, comm, "MPI_Comm_dup");
    VBT_API_PTR(c, "MPI_Comm_dup", newcomm, "newcomm");
    if (vbt_comm_is_inter(c))
        status = vbt_comm_inter_dup(c, &nc);
    else
        status = vbt_comm_create(c, c->group, &nc);
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, "MPI_Comm_dup", status);
    rc = vbt_api_comm_dup_extras(c, nc, "MPI_Comm_dup");
    if (rc != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return rc;
    }
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

static int split_common(const char *call, vbt_comm_t *c, int color, int key, MPI_Comm *newcomm)
{
    vbt_comm_t *nc = NULL;
    vbt_status_t status = vbt_comm_is_inter(c) ? vbt_comm_inter_split(c, color, key, &nc)
                                               : vbt_comm_split(c, color, key, &nc);

    if (status != VBT_OK)
        return vbt_api_comm_failed(c, call, status);
    *newcomm = vbt_api_comm_handle(nc);
    return MPI_SUCCESS;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    VBT_API_ENTER("MPI_Comm_split");
    VBT_API_COMM(c, comm, "MPI_Comm_split");
    VBT_API_PTR(c, "MPI_Comm_split", newcomm, "newcomm");
    if (color < 0 && color != MPI_UNDEFINED)
        return vbt_error_raise(c, "MPI_Comm_split", MPI_ERR_ARG,
                               "argument color is %d; it must be 0 or more, or MPI_UNDEFINED",
                               color);
    return split_common("MPI_Comm_split", c, color, key, newcomm);
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    vbt_info_t *ignored;
    int color;

    VBT_API_ENTER("MPI_Comm_split_type");
    VBT_API_COMM(c, comm, "MPI_Comm_split_type");
    VBT_API_PTR(c, "MPI_Comm_split_type", newcomm, "newcomm");
    /* Checked, then ignored: no info key changes how we split. */
    VBT_API_CHECK(vbt_api_check_info(c, "MPI_Comm_split_type", "info", info, &ignored));
    switch (split_type) {
    case MPI_COMM_TYPE_SHARED:
        /* One colour per node: the smallest world rank on it. */
        color = vbt_rt.proc.local_peers[0];
        break;
    case MPI_UNDEFINED:
    /* Hardware levels below the node are not known to us: the standard lets these give
     * MPI_COMM_NULL. Still collective, since others may pass MPI_UNDEFINED. */
    case MPI_COMM_TYPE_HW_UNGUIDED:
    case MPI_COMM_TYPE_HW_GUIDED:
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        color = MPI_UNDEFINED;
        break;
    default:
        return vbt_error_raise(c, "MPI_Comm_split_type", MPI_ERR_ARG,
                               "argument split_type is %d; use MPI_COMM_TYPE_SHARED, "
                               "MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_HW_GUIDED, "
                               "MPI_COMM_TYPE_RESOURCE_GUIDED or MPI_UNDEFINED",
                               split_type);
    }
    return split_common("MPI_Comm_split_type", c, color, key, newcomm);
}

/* group is a subgroup of comm's, or the error raised. */
static int check_subgroup(const char *call, vbt_comm_t *c, vbt_group_t *g)
{
    if (!vbt_group_is_subset(g, c->group))
        return vbt_error_raise(c, call, MPI_ERR_GROUP,
                               "argument group has processes that are not in %s; it must be a "
                               "subgroup of the communicator's %sgroup",
                               c->name, vbt_comm_is_inter(c) ? "local " : "");
    return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    vbt_comm_t *nc = NULL;
    vbt_status_t status;

    VBT_API_ENTER("MPI_Comm_create");
    VBT_API_COMM(c, comm, "MPI_Comm_create");
    VBT_API_GROUP(g, group, "MPI_Comm_create", "group");
    VBT_API_PTR(c, "MPI_Comm_create", newcomm, "newcomm");
    VBT_API_CHECK(check_subgroup("MPI_Comm_create", c, g));
    /* On an intercommunicator: group is a subgroup of the local group, and the new
     * intercommunicator faces the other side's group (MPI-4.1 Sec. 7.4.2). */
    if (vbt_comm_is_inter(c))
        status = vbt_comm_inter_create(c, g, &nc);
    else
        status = vbt_comm_create(c, g, &nc);
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, "MPI_Comm_create", status);
    *newcomm = vbt_api_comm_handle(nc);
    return MPI_SUCCESS;
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    vbt_comm_t *nc = NULL;
    vbt_status_t status;

    VBT_API_ENTER("MPI_Comm_create_group");
    VBT_API_COMM(c, comm, "MPI_Comm_create_group");
    VBT_API_INTRA(c, "MPI_Comm_create_group", "comm");
    VBT_API_GROUP(g, group, "MPI_Comm_create_group", "group");
    VBT_API_PTR(c, "MPI_Comm_create_group", newcomm, "newcomm");
    VBT_API_CHECK(vbt_api_check_tag(c, "MPI_Comm_create_group", tag, 0));
    VBT_API_CHECK(check_subgroup("MPI_Comm_create_group", c, g));
    status = vbt_comm_create_group(c, g, tag, &nc);
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, "MPI_Comm_create_group", status);
    *newcomm = vbt_api_comm_handle(nc);
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    int rc;

    VBT_API_ENTER("MPI_Comm_free");
    VBT_API_PTR(NULL, "MPI_Comm_free", comm, "comm");
    VBT_API_COMM(c, *comm, "MPI_Comm_free");
    if (c == &vbt_comm_world || c == &vbt_comm_self)
        return vbt_error_raise(c, "MPI_Comm_free", MPI_ERR_COMM,
                               "argument comm is %s, which cannot be freed", c->name);
    /* The attributes' delete callbacks run first, with the communicator still valid. */
    rc = vbt_attr_delete_all(c);
    if (rc != MPI_SUCCESS)
        return vbt_error_raise(c, "MPI_Comm_free", MPI_ERR_OTHER,
                               "an attribute delete callback returned error code %d; the "
                               "communicator is not freed",
                               rc);
    /* A buffer still attached is detached: its messages are delivered, then it is the user's
     * again. */
    VBT_API_CHECK(vbt_api_comm_detach_buffer(c, "MPI_Comm_free"));
    vbt_comm_free(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    VBT_API_ENTER("MPI_Comm_compare");
    VBT_API_COMM(a, comm1, "MPI_Comm_compare");
    VBT_API_COMM(b, comm2, "MPI_Comm_compare");
    VBT_API_PTR(a, "MPI_Comm_compare", result, "result");
    *result = vbt_comm_compare(a, b);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    VBT_API_ENTER("MPI_Comm_set_name");
    VBT_API_COMM(c, comm, "MPI_Comm_set_name");
    VBT_API_PTR(c, "MPI_Comm_set_name", comm_name, "comm_name");
    /* Longer names are cut to MPI_MAX_OBJECT_NAME - 1 characters, as the standard allows. */
    strncpy(c->name, comm_name, sizeof(c->name) - 1);
    c->name[sizeof(c->name) - 1] = '\0';
    c->named = 1;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    VBT_API_ENTER("MPI_Comm_get_name");
    /* MPI-4.1 (7.8): the null handle is named too. */
    if (comm == MPI_COMM_NULL) {
        VBT_API_PTR(NULL, "MPI_Comm_get_name", comm_name, "comm_name");
        VBT_API_PTR(NULL, "MPI_Comm_get_name", resultlen, "resultlen");
        strcpy(comm_name, "MPI_COMM_NULL");
        *resultlen = (int)strlen(comm_name);
        return MPI_SUCCESS;
    }
    VBT_API_COMM(c, comm, "MPI_Comm_get_name");
    VBT_API_PTR(c, "MPI_Comm_get_name", comm_name, "comm_name");
    VBT_API_PTR(c, "MPI_Comm_get_name", resultlen, "resultlen");
    strcpy(comm_name, c->named ? c->name : "");
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}
