/* The MPI-5.0 ABI's Fortran properties: the library's, and what the application registered. */
#include "vbt_abi.h"

#include "vbt_datatype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *key;
    MPI_Datatype dt;
} keys[VBT_ABI_NKEYS] = {
    /* sizes (bytes) of the default kinds */
    {"mpi_logical_size", MPI_LOGICAL},
    {"mpi_integer_size", MPI_INTEGER},
    {"mpi_real_size", MPI_REAL},
    {"mpi_double_precision_size", MPI_DOUBLE_PRECISION},
    /* optional types: "true" or "false" */
    {"mpi_logical1_supported", MPI_LOGICAL1},
    {"mpi_logical2_supported", MPI_LOGICAL2},
    {"mpi_logical4_supported", MPI_LOGICAL4},
    {"mpi_logical8_supported", MPI_LOGICAL8},
    {"mpi_logical16_supported", MPI_LOGICAL16},
    {"mpi_integer1_supported", MPI_INTEGER1},
    {"mpi_integer2_supported", MPI_INTEGER2},
    {"mpi_integer4_supported", MPI_INTEGER4},
    {"mpi_integer8_supported", MPI_INTEGER8},
    {"mpi_integer16_supported", MPI_INTEGER16},
    {"mpi_real2_supported", MPI_REAL2},
    {"mpi_real4_supported", MPI_REAL4},
    {"mpi_real8_supported", MPI_REAL8},
    {"mpi_real16_supported", MPI_REAL16},
    {"mpi_complex4_supported", MPI_COMPLEX4},
    {"mpi_complex8_supported", MPI_COMPLEX8},
    {"mpi_complex16_supported", MPI_COMPLEX16},
    {"mpi_complex32_supported", MPI_COMPLEX32},
    {"mpi_double_complex_supported", MPI_DOUBLE_COMPLEX},
};

static size_t lib_size(int k)
{
    return vbt_dtype_get(keys[k].dt)->size;
}

/* Every optional type has a layout in the library (vbt_datatype.c): the library supports it
 * unless the application said its compiler does not. */
static int supported(const vbt_fortran_abi_t *abi, int k)
{
    return !abi->info_set || abi->supported[k];
}

vbt_status_t vbt_abi_fortran_info(const vbt_fortran_abi_t *abi, vbt_info_t **info_p)
{
    vbt_info_t *info;
    vbt_status_t st;
    char value[24];

    st = vbt_info_create(&info);
    if (st != VBT_OK)
        return st;
    for (int k = 0; k < VBT_ABI_NKEYS && st == VBT_OK; k++) {
        if (k < VBT_ABI_NSIZES)
            snprintf(value, sizeof(value), "%zu", lib_size(k));
        else
            snprintf(value, sizeof(value), "%s", supported(abi, k) ? "true" : "false");
        st = vbt_info_set(info, keys[k].key, value);
    }
    if (st != VBT_OK) {
        vbt_info_release(info);
        return st;
    }
    *info_p = info;
    return VBT_OK;
}

vbt_status_t vbt_abi_set_fortran_info(vbt_fortran_abi_t *abi, const vbt_info_t *info, char *why,
                                      size_t why_len)
{
    unsigned char sup[VBT_ABI_NKEYS];
    const char *v;
    char *end;

    for (int k = 0; k < VBT_ABI_NKEYS; k++) {
        sup[k] = 1;
        if (!vbt_info_lookup(info, keys[k].key, &v))
            continue;
        if (k < VBT_ABI_NSIZES) {
            long n = strtol(v, &end, 10);
            if (end == v || *end != '\0' || n <= 0) {
                snprintf(why, why_len, "key %s has value \"%s\", not a size in bytes", keys[k].key,
                         v);
                return VBT_ERR_INVALID_PARAM;
            }
            if ((size_t)n != lib_size(k)) {
                snprintf(why, why_len,
                         "key %s is %ld, but Verbatim's Fortran types have gfortran's default "
                         "layout (%zu bytes); build the Fortran code without options that change "
                         "the default kinds (such as -fdefault-integer-8)",
                         keys[k].key, n, lib_size(k));
                return VBT_ERR_INVALID_PARAM;
            }
        } else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
            sup[k] = v[0] == 't';
        } else {
            snprintf(why, why_len, "key %s has value \"%s\"; it takes \"true\" or \"false\"",
                     keys[k].key, v);
            return VBT_ERR_INVALID_PARAM;
        }
    }
    memcpy(abi->supported, sup, sizeof(sup));
    abi->info_set = 1;
    return VBT_OK;
}

int vbt_abi_fortran_booleans(const vbt_fortran_abi_t *abi, int logical_size, void *true_p,
                             void *false_p)
{
    if (!abi->bools_set || abi->logical_size != logical_size)
        return 0;
    memcpy(true_p, abi->logical_true, (size_t)logical_size);
    memcpy(false_p, abi->logical_false, (size_t)logical_size);
    return 1;
}
