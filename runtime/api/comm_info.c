/* Communicator info hints (MPI-4.1 Sec. 7.4.4): MPI_Comm_set_info, MPI_Comm_get_info and
 * MPI_Comm_dup_with_info. The hints Verbatim keeps are the MPI-4 assertions (Sec. 7.4.4) with a
 * value "true" or "false": they promise what the application will not do and never change what
 * Verbatim does, so honouring them is keeping them. Every other key is ignored, so
 * MPI_Comm_get_info, which returns the hints in use, does not return it. */
#include "vbt_api_comm.h"
#include "vbt_api_info.h"
#include "vbt_comm_inter.h"
#include "vbt_attr.h"

#include <string.h>

VBT_PMPI_ALIAS(Comm_set_info)
VBT_PMPI_ALIAS(Comm_get_info)
VBT_PMPI_ALIAS(Comm_dup_with_info)

static const char *const kept_keys[] = {
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
};

/* Update c's hints from info: each kept key there with a boolean value replaces the one set
 * before; keys info does not have stay as they were. */
vbt_status_t vbt_api_comm_set_hints(vbt_comm_t *c, const vbt_info_t *info)
{
    vbt_status_t status;

    if (info == NULL)
        return VBT_OK;
    for (size_t k = 0; k < sizeof(kept_keys) / sizeof(kept_keys[0]); k++) {
        const char *v;
        if (!vbt_info_lookup(info, kept_keys[k], &v) ||
            (strcmp(v, "true") != 0 && strcmp(v, "false") != 0))
            continue;
        if (c->hints == NULL) {
            status = vbt_info_create(&c->hints);
            if (status != VBT_OK)
                return status;
        }
        status = vbt_info_set(c->hints, kept_keys[k], v);
        if (status != VBT_OK)
            return status;
    }
    return VBT_OK;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    vbt_info_t *i;
    vbt_status_t status;

    VBT_API_ENTER("MPI_Comm_set_info");
    VBT_API_COMM(c, comm, "MPI_Comm_set_info");
    VBT_API_CHECK(vbt_api_check_info(c, "MPI_Comm_set_info", "info", info, &i));
    status = vbt_api_comm_set_hints(c, i);
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, "MPI_Comm_set_info", status);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    vbt_info_t *i;
    vbt_status_t status;

    VBT_API_ENTER("MPI_Comm_get_info");
    VBT_API_COMM(c, comm, "MPI_Comm_get_info");
    VBT_API_PTR(c, "MPI_Comm_get_info", info_used, "info_used");
    /* Always a new object, empty when no hint is kept; the caller frees it. */
    status = c->hints != NULL ? vbt_info_dup(c->hints, &i) : vbt_info_create(&i);
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, "MPI_Comm_get_info", status);
    *info_used = vbt_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    vbt_comm_t *nc = NULL;
    vbt_info_t *i;
    vbt_status_t status;
    int rc;

    VBT_API_ENTER("MPI_Comm_dup_with_info");
    VBT_API_COMM(c, comm, "MPI_Comm_dup_with_info");
    VBT_API_CHECK(vbt_api_check_info(c, "MPI_Comm_dup_with_info", "info", info, &i));
    VBT_API_PTR(c, "MPI_Comm_dup_with_info", newcomm, "newcomm");
    if (vbt_comm_is_inter(c))
        status = vbt_comm_inter_dup(c, &nc);
    else
        status = vbt_comm_create(c, c->group, &nc);
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, "MPI_Comm_dup_with_info", status);
    rc = vbt_api_comm_dup_extras(c, nc, "MPI_Comm_dup_with_info");
    if (rc != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return rc;
    }
    /* The hints come from info alone, not from comm (Sec. 7.4.2); dup_extras copied comm's. */
    vbt_info_release(nc->hints);
    nc->hints = NULL;
    status = vbt_api_comm_set_hints(nc, i);
    if (status != VBT_OK) {
        vbt_attr_delete_all(nc);
        vbt_attr_delete_all_quiet(nc);
        vbt_comm_free(nc);
        *newcomm = MPI_COMM_NULL;
        return vbt_api_comm_failed(c, "MPI_Comm_dup_with_info", status);
    }
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}
