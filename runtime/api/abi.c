/* The MPI-5.0 ABI's queries (Sec. 21.2) and Fortran registration (Sec. 21.4.1). All may be
 * called at any time, before MPI_Init and after MPI_Finalize included; errors go to
 * MPI_COMM_SELF's handler once it exists. */
#include "vbt_abi.h"
#include "vbt_api.h"
#include "vbt_api_info.h"
#include "vbt_comm.h"
#include "vbt_runtime.h"

#include <stdio.h>
#include <string.h>

VBT_PMPI_ALIAS(Abi_get_version)
VBT_PMPI_ALIAS(Abi_get_info)
VBT_PMPI_ALIAS(Abi_get_fortran_info)
VBT_PMPI_ALIAS(Abi_set_fortran_info)
VBT_PMPI_ALIAS(Abi_get_fortran_booleans)
VBT_PMPI_ALIAS(Abi_set_fortran_booleans)

static vbt_comm_t *self_comm(void)
{
    return vbt_rt.state == VBT_RT_INITIALIZED ? &vbt_comm_self : NULL;
}

static int null_arg(const char *call, const char *arg)
{
    return vbt_error_raise(self_comm(), call, MPI_ERR_ARG,
                           "argument %s is NULL; pass a valid address", arg);
}

static int failed(const char *call, vbt_status_t st)
{
    return vbt_error_raise(self_comm(), call, vbt_status_to_errclass(st),
                           "cannot build the info object: %s", vbt_status_string(st));
}

int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (abi_major == NULL || abi_minor == NULL)
        return null_arg("MPI_Abi_get_version", abi_major == NULL ? "abi_major" : "abi_minor");
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

/* The sizes of the C types the ABI leaves to the platform. */
int PMPI_Abi_get_info(MPI_Info *info)
{
    static const struct {
        const char *key;
        size_t size;
    } sizes[] = {{"mpi_aint_size", sizeof(MPI_Aint)},
                 {"mpi_count_size", sizeof(MPI_Count)},
                 {"mpi_offset_size", sizeof(MPI_Offset)}};
    vbt_info_t *i;
    vbt_status_t st;
    char value[24];

    if (info == NULL)
        return null_arg("MPI_Abi_get_info", "info");
    st = vbt_info_create(&i);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && st == VBT_OK; k++) {
        snprintf(value, sizeof(value), "%zu", sizes[k].size);
        st = vbt_info_set(i, sizes[k].key, value);
        if (st != VBT_OK)
            vbt_info_release(i);
    }
    if (st != VBT_OK)
        return failed("MPI_Abi_get_info", st);
    *info = vbt_info_handle(i);
    return MPI_SUCCESS;
}

int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    vbt_info_t *i;
    vbt_status_t st;

    if (info == NULL)
        return null_arg("MPI_Abi_get_fortran_info", "info");
    st = vbt_abi_fortran_info(&vbt_rt.fortran, &i);
    if (st != VBT_OK)
        return failed("MPI_Abi_get_fortran_info", st);
    *info = vbt_info_handle(i);
    return MPI_SUCCESS;
}

/* Only the first successful call counts; a refused one (a key does not fit the library, said
 * which) changes nothing, and MPI_Abi_get_fortran_info tells what holds. */
int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    const char *call = "MPI_Abi_set_fortran_info";
    vbt_fortran_abi_t *abi = &vbt_rt.fortran;
    vbt_info_t *i;
    char why[320];

    if (info == MPI_INFO_NULL)
        return vbt_error_raise(self_comm(), call, MPI_ERR_INFO,
                               "argument info is MPI_INFO_NULL; pass the object of "
                               "MPI_Abi_get_fortran_info with the compiler's values set");
    VBT_API_CHECK(vbt_api_check_info(self_comm(), call, "info", info, &i));
    if (abi->info_set)
        return vbt_error_raise(self_comm(), call, MPI_ERR_ABI,
                               "the Fortran properties were registered already (only the first "
                               "call counts); MPI_Abi_get_fortran_info tells what holds");
    if (vbt_abi_set_fortran_info(abi, i, why, sizeof(why)) != VBT_OK)
        return vbt_error_raise(self_comm(), call, MPI_ERR_ABI, "%s", why);
    return MPI_SUCCESS;
}

static int check_logical_size(const char *call, int logical_size)
{
    if (logical_size == 1 || logical_size == 2 || logical_size == 4 || logical_size == 8 ||
        logical_size == 16)
        return MPI_SUCCESS;
    return vbt_error_raise(self_comm(), call, MPI_ERR_ARG,
                           "argument logical_size is %d; a Fortran LOGICAL has 1, 2, 4, 8 or 16 "
                           "bytes",
                           logical_size);
}

int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                  int *is_set)
{
    const char *call = "MPI_Abi_get_fortran_booleans";

    VBT_API_CHECK(check_logical_size(call, logical_size));
    if (logical_true == NULL || logical_false == NULL || is_set == NULL)
        return null_arg(call, logical_true == NULL    ? "logical_true"
                              : logical_false == NULL ? "logical_false"
                                                      : "is_set");
    *is_set = vbt_abi_fortran_booleans(&vbt_rt.fortran, logical_size, logical_true, logical_false);
    return MPI_SUCCESS;
}

/* Once per process, as MPI_Abi_set_fortran_info: the values of the program's LOGICAL of
 * logical_size bytes, which the logical reductions on Fortran LOGICALs of that size use. */
int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    const char *call = "MPI_Abi_set_fortran_booleans";
    vbt_fortran_abi_t *abi = &vbt_rt.fortran;

    VBT_API_CHECK(check_logical_size(call, logical_size));
    if (logical_true == NULL || logical_false == NULL)
        return null_arg(call, logical_true == NULL ? "logical_true" : "logical_false");
    if (memcmp(logical_true, logical_false, (size_t)logical_size) == 0)
        return vbt_error_raise(self_comm(), call, MPI_ERR_ARG,
                               "logical_true and logical_false are the same %d bytes",
                               logical_size);
    if (abi->bools_set)
        return vbt_error_raise(self_comm(), call, MPI_ERR_ABI,
                               "the Fortran booleans were registered already (for %d-byte "
                               "LOGICALs); only the first call counts",
                               abi->logical_size);
    abi->logical_size = logical_size;
    memcpy(abi->logical_true, logical_true, (size_t)logical_size);
    memcpy(abi->logical_false, logical_false, (size_t)logical_size);
    abi->bools_set = 1;
    return MPI_SUCCESS;
}
