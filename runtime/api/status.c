/* What a status says: element counts, and datatype sizes. */
#include "vbt_api_p2p.h"

VBT_PMPI_ALIAS(Get_count)
VBT_PMPI_ALIAS(Get_elements)
VBT_PMPI_ALIAS(Get_elements_x)
VBT_PMPI_ALIAS(Type_size)

static int check_status_type(const char *call, const MPI_Status *status, MPI_Datatype dt,
                             const vbt_dtype_info_t **info_p)
{
    VBT_API_PTR(NULL, call, status, "status");
    *info_p = vbt_dtype_get(dt);
    if (*info_p == NULL)
        return vbt_api_bad_buffer(NULL, call, NULL, 0, dt);
    return MPI_SUCCESS;
}

/* Elements of dt in the status's byte count; MPI_UNDEFINED when it is not a whole number. */
static MPI_Count count_of(const MPI_Status *status, const vbt_dtype_info_t *info, int elements)
{
    size_t bytes = vbt_status_get_bytes(status);
    size_t per = elements ? info->extent / info->nelements : info->extent;

    if (bytes % per != 0)
        return MPI_UNDEFINED;
    return (MPI_Count)(bytes / per);
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    const vbt_dtype_info_t *info;
    MPI_Count n;

    VBT_API_ENTER("MPI_Get_count");
    VBT_API_CHECK(check_status_type("MPI_Get_count", status, datatype, &info));
    VBT_API_PTR(NULL, "MPI_Get_count", count, "count");
    n = count_of(status, info, 0);
    *count = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    const vbt_dtype_info_t *info;

    VBT_API_ENTER("MPI_Get_elements_x");
    VBT_API_CHECK(check_status_type("MPI_Get_elements_x", status, datatype, &info));
    VBT_API_PTR(NULL, "MPI_Get_elements_x", count, "count");
    /* Pair types hold two basic elements of different sizes: a partial pair is undefined. */
    if (info->nelements > 1) {
        MPI_Count pairs = count_of(status, info, 0);
        *count = pairs == MPI_UNDEFINED ? MPI_UNDEFINED : pairs * info->nelements;
    } else {
        *count = count_of(status, info, 1);
    }
    return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int rc;

    VBT_API_PTR(NULL, "MPI_Get_elements", count, "count");
    rc = PMPI_Get_elements_x(status, datatype, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    *count = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    const vbt_dtype_info_t *info = vbt_dtype_get(datatype);

    VBT_API_ENTER("MPI_Type_size");
    VBT_API_PTR(NULL, "MPI_Type_size", size, "size");
    if (info == NULL)
        return vbt_api_bad_buffer(NULL, "MPI_Type_size", NULL, 0, datatype);
    *size = (int)info->size;
    return MPI_SUCCESS;
}
