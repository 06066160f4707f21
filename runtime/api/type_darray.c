/* MPI_Type_create_darray (MPI-4.1 Sec. 5.1.4): the elements of a global array that one process
 * of a process grid owns under block and cyclic distributions. The distribution decides, per
 * dimension, which indices are this process's; vbt_dtype_create_grid builds the type of those
 * elements in array order, lb 0, extent the whole array. The process grid is numbered in
 * row-major order whatever the array order, as the standard says. */
#include "vbt_api_type.h"

#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(Type_create_darray)

/* The indices of a dimension of gsize elements that process coord of psize owns, into idx
 * (room for gsize); returns how many. */
static int owned(int gsize, int distrib, int darg, int psize, int coord, int *idx)
{
    int n = 0;

    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < gsize; i++)
            idx[n++] = i;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        /* Default block: ceil(gsize / psize); an explicit one covers the dimension (checked). */
        long blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + (long)psize - 1) / psize : darg;
        long lo = blk * coord, hi = lo + blk < gsize ? lo + blk : gsize;
        for (long i = lo; i < hi; i++)
            idx[n++] = (int)i;
    } else {
        /* Cyclic(k): blocks of k go round the processes; default k = 1. */
        long k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (long start = k * coord; start < gsize; start += k * psize)
            for (long i = start; i < start + k && i < gsize; i++)
                idx[n++] = (int)i;
    }
    return n;
}

static const char *distrib_name(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK    ? "MPI_DISTRIBUTE_BLOCK"
           : d == MPI_DISTRIBUTE_CYCLIC ? "MPI_DISTRIBUTE_CYCLIC"
                                        : "MPI_DISTRIBUTE_NONE";
}

static int check_darray(const char *call, int size, int rank, int ndims, const int gsizes[],
                        const int distribs[], const int dargs[], const int psizes[], int order)
{
    long nprocs = 1;

    if (size <= 0)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument size is %d; it must be the number of processes in the "
                               "grid, 1 or more",
                               size);
    if (rank < 0 || rank >= size)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument rank is %d; it must be in 0..size-1 (size is %d)", rank,
                               size);
    if (ndims <= 0)
        return vbt_error_raise(NULL, call, MPI_ERR_DIMS,
                               "argument ndims is %d; it must be 1 or more", ndims);
    if (gsizes == NULL || distribs == NULL || dargs == NULL || psizes == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument array_of_%s is NULL; pass an array of ndims entries",
                               gsizes == NULL     ? "gsizes"
                               : distribs == NULL ? "distribs"
                               : dargs == NULL    ? "dargs"
                                                  : "psizes");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument order is %d; use MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    for (int i = 0; i < ndims; i++) {
        int g = gsizes[i], d = distribs[i], a = dargs[i], p = psizes[i];
        if (g <= 0)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "array_of_gsizes[%d] is %d; sizes must be 1 or more", i, g);
        if (p <= 0)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "array_of_psizes[%d] is %d; process grid sizes must be 1 or "
                                   "more",
                                   i, p);
        if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "array_of_distribs[%d] is %d; use MPI_DISTRIBUTE_BLOCK, "
                                   "MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE",
                                   i, d);
        if (d == MPI_DISTRIBUTE_NONE && p != 1)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "dimension %d is MPI_DISTRIBUTE_NONE, so array_of_psizes[%d] "
                                   "must be 1, not %d",
                                   i, i, p);
        if (d != MPI_DISTRIBUTE_NONE && a != MPI_DISTRIBUTE_DFLT_DARG && a <= 0)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "array_of_dargs[%d] is %d; a %s argument is 1 or more, or "
                                   "MPI_DISTRIBUTE_DFLT_DARG",
                                   i, a, distrib_name(d));
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG && (long)a * p < g)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "dimension %d: blocks of %d on %d processes cover %ld of the "
                                   "%d elements; the block size must be at least %d (or "
                                   "MPI_DISTRIBUTE_DFLT_DARG)",
                                   i, a, p, (long)a * p, g, (g + p - 1) / p);
        nprocs *= p;
        if (nprocs > size)
            break;
    }
    if (nprocs != size)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "the process grid array_of_psizes has %s%ld processes, but size "
                               "is %d; their product must equal size",
                               nprocs > size ? "more than " : "", nprocs, size);
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_darray";
    vbt_dtype_t *old, *t = NULL;
    int *ints, *nidx, **idx, *space, rc, r;
    long total = 0;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_darray(call, size, rank, ndims, array_of_gsizes, array_of_distribs,
                               array_of_dargs, array_of_psizes, order));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    if (newtype == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument newtype is NULL; pass the address of an MPI_Datatype");
    for (int i = 0; i < ndims; i++)
        total += array_of_gsizes[i];
    ints = malloc((4 * (size_t)ndims + 4) * sizeof(*ints));
    nidx = malloc((size_t)ndims * sizeof(*nidx));
    idx = malloc((size_t)ndims * sizeof(*idx));
    space = malloc((size_t)total * sizeof(*space));
    if (ints == NULL || nidx == NULL || idx == NULL || space == NULL) {
        free(ints), free(nidx), free(idx), free(space);
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM,
                               "no memory for the index lists of %d dimensions", ndims);
    }
    /* This process's coordinates: row-major, the last dimension fastest. */
    r = rank;
    for (int i = ndims - 1, *p = space + total; i >= 0; i--) {
        int coord = r % array_of_psizes[i];
        r /= array_of_psizes[i];
        p -= array_of_gsizes[i];
        idx[i] = p;
        nidx[i] = owned(array_of_gsizes[i], array_of_distribs[i], array_of_dargs[i],
                        array_of_psizes[i], coord, p);
    }
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    memcpy(ints + 3, array_of_gsizes, (size_t)ndims * sizeof(*ints));
    memcpy(ints + 3 + ndims, array_of_distribs, (size_t)ndims * sizeof(*ints));
    memcpy(ints + 3 + 2 * ndims, array_of_dargs, (size_t)ndims * sizeof(*ints));
    memcpy(ints + 3 + 3 * ndims, array_of_psizes, (size_t)ndims * sizeof(*ints));
    ints[3 + 4 * ndims] = order;
    st = vbt_dtype_create_grid(ndims, array_of_gsizes, nidx, (const int *const *)idx, order, old,
                               &t);
    rc = vbt_api_type_created(call, st, t, MPI_COMBINER_DARRAY, 4 * ndims + 4, ints, 0, NULL, 1,
                              &old, newtype);
    free(ints), free(nidx), free(idx), free(space);
    return rc;
}
