/* The MPI-5.0 ABI's Fortran side (MPI-5.0 Sec. 21.4.1): the properties of the Fortran compiler
 * the library assumes (gfortran's defaults, as vbt_datatype.c lays the Fortran types out), what
 * the application registered with MPI_Abi_set_fortran_info, and the values of .TRUE. and
 * .FALSE. it registered with MPI_Abi_set_fortran_booleans, which the logical reductions on
 * Fortran LOGICAL types of that size then read and produce (vbt_op.c). The state lives in the
 * runtime object (vbt_rt.fortran) and outlives MPI_Init and MPI_Finalize, as the calls may come
 * at any time. */
#ifndef VBT_ABI_H
#define VBT_ABI_H

#include <mpi.h>
#include <stddef.h>

#include "vbt_info.h"
#include "vbt_status.h"

/* The info keys of MPI_Abi_get/set_fortran_info: four sizes, then the optional types. */
#define VBT_ABI_NSIZES 4
#define VBT_ABI_NKEYS  (VBT_ABI_NSIZES + 19)

typedef struct {
    int info_set; /* MPI_Abi_set_fortran_info succeeded: later calls fail with MPI_ERR_ABI */
    unsigned char supported[VBT_ABI_NKEYS]; /* the _supported keys as registered (sizes: unused) */
    int bools_set;    /* MPI_Abi_set_fortran_booleans succeeded: the values below hold */
    int logical_size; /* 1, 2, 4, 8 or 16 */
    unsigned char logical_true[16], logical_false[16];
} vbt_fortran_abi_t;

/* A new info object (vbt_info_create) with every key and the library's value, or the
 * registered one. */
vbt_status_t vbt_abi_fortran_info(const vbt_fortran_abi_t *abi, vbt_info_t **info_p);

/* Check info against what the library can honour: VBT_OK (and abi updated), or
 * VBT_ERR_INVALID_PARAM with a sentence in why (size of why_len) naming the key. Unknown keys
 * are ignored, as MPI asks of every info argument. */
vbt_status_t vbt_abi_set_fortran_info(vbt_fortran_abi_t *abi, const vbt_info_t *info, char *why,
                                      size_t why_len);

/* The registered .TRUE./.FALSE. for LOGICALs of logical_size bytes: 1 and the values copied,
 * or 0 when none were registered for that size. */
int vbt_abi_fortran_booleans(const vbt_fortran_abi_t *abi, int logical_size, void *true_p,
                             void *false_p);

#endif
