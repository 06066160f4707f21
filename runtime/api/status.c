/* What a status says: element counts, and datatype sizes. */
#include "vbt_api_p2p.h"

#include <limits.h>

VBT_PMPI_ALIAS(Get_count)
VBT_PMPI_ALIAS(Get_count_c)
VBT_PMPI_ALIAS(Get_elements)
VBT_PMPI_ALIAS(Get_elements_x)
VBT_PMPI_ALIAS(Get_elements_c)
VBT_PMPI_ALIAS(Type_size)

static int check_status_type(const char *call, const MPI_Status *status, MPI_Datatype dt,
                             const vbt_dtype_t **t_p)
{
    VBT_API_PTR(NULL, call, status, "status");
    *t_p = vbt_dtype_get(dt);
    if (*t_p == NULL)
        return vbt_api_bad_buffer(NULL, call, NULL, 0, dt);
    return MPI_SUCCESS;
}

/* Whole elements of t in the status's (packed) byte count; MPI_UNDEFINED when there is a
 * partial one. A type without data matches any number of them: MPI says 0. */
static MPI_Count count_of(const MPI_Status *status, const vbt_dtype_t *t)
{
    size_t bytes = vbt_status_get_bytes(status);

    if (t->size == 0)
        return 0;
    if (bytes % t->size != 0)
        return MPI_UNDEFINED;
    return (MPI_Count)(bytes / t->size);
}

static int get_count(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                     const void *count, MPI_Count *n_p)
{
    const vbt_dtype_t *t;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_status_type(call, status, datatype, &t));
    VBT_API_PTR(NULL, call, count, "count");
    *n_p = count_of(status, t);
    return MPI_SUCCESS;
}

/* A count that does not fit the int answers MPI_UNDEFINED (MPI-4.1 3.2.5). */
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int rc = get_count("MPI_Get_count", status, datatype, count, &n);

    if (rc == MPI_SUCCESS)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_count("MPI_Get_count_c", status, datatype, count, count);
}

/* Basic elements: those of the whole elements, then those of a partial one that fit entirely
 * (MPI-3.1 4.1.11); MPI_UNDEFINED when the data ends inside a basic element. */
static int get_elements(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                        const void *count, MPI_Count *n_p)
{
    const vbt_dtype_t *t;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_status_type(call, status, datatype, &t));
    VBT_API_PTR(NULL, call, count, "count");
    *n_p = vbt_dtype_elements(t, vbt_status_get_bytes(status));
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_x", status, datatype, count, count);
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_c", status, datatype, count, count);
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int rc = get_elements("MPI_Get_elements", status, datatype, count, &n);

    if (rc == MPI_SUCCESS)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    const vbt_dtype_t *t = vbt_dtype_get(datatype);

    VBT_API_ENTER("MPI_Type_size");
    VBT_API_PTR(NULL, "MPI_Type_size", size, "size");
    if (t == NULL)
        return vbt_api_bad_buffer(NULL, "MPI_Type_size", NULL, 0, datatype);
    *size = t->size > 0x7fffffff ? MPI_UNDEFINED : (int)t->size;
    return MPI_SUCCESS;
}
