/* MPI_Type_create_darray (MPI-4.1 Sec. 5.1.4): the elements of a global array that one process
 * of a process grid owns under block and cyclic distributions. The distribution decides, per
 * dimension, which indices are this process's; vbt_dtype_create_grid builds the type of those
 * elements in array order, lb 0, extent the whole array. The process grid is numbered in
 * row-major order whatever the array order, as the standard says. */
#include "vbt_api_type.h"

#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(Type_create_darray)
VBT_PMPI_ALIAS(Type_create_darray_c)

/* The indices of a dimension of gsize elements that process coord of psize owns, into idx
 * (room for gsize); returns how many. */
static MPI_Count owned(MPI_Count gsize, int distrib, int darg, int psize, int coord, MPI_Count *idx)
{
    MPI_Count n = 0;

    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (MPI_Count i = 0; i < gsize; i++)
            idx[n++] = i;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        /* Default block: ceil(gsize / psize); an explicit one covers the dimension (checked). */
        MPI_Count blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        MPI_Count lo = blk * coord, hi = lo + blk < gsize ? lo + blk : gsize;
        for (MPI_Count i = lo; i < hi; i++)
            idx[n++] = i;
    } else {
        /* Cyclic(k): blocks of k go round the processes; default k = 1. */
        MPI_Count k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (MPI_Count start = k * coord; start < gsize; start += k * psize)
            for (MPI_Count i = start; i < start + k && i < gsize; i++)
                idx[n++] = i;
    }
    return n;
}

static const char *distrib_name(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK    ? "MPI_DISTRIBUTE_BLOCK"
           : d == MPI_DISTRIBUTE_CYCLIC ? "MPI_DISTRIBUTE_CYCLIC"
                                        : "MPI_DISTRIBUTE_NONE";
}

/* array_of_gsizes as the call passed it: int (MPI_Type_create_darray) or MPI_Count (_c). */
typedef struct {
    const int *i;
    const MPI_Count *c;
} gsizes_t;

static MPI_Count gsize_at(gsizes_t g, int k)
{
    return g.c != NULL ? g.c[k] : g.i[k];
}

static int check_darray(const char *call, int size, int rank, int ndims, gsizes_t gsizes,
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
    if ((gsizes.i == NULL && gsizes.c == NULL) || distribs == NULL || dargs == NULL ||
        psizes == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument array_of_%s is NULL; pass an array of ndims entries",
                               gsizes.i == NULL && gsizes.c == NULL ? "gsizes"
                               : distribs == NULL                   ? "distribs"
                               : dargs == NULL                      ? "dargs"
                                                                    : "psizes");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument order is %d; use MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    for (int i = 0; i < ndims; i++) {
        MPI_Count g = gsize_at(gsizes, i);
        int d = distribs[i], a = dargs[i], p = psizes[i];
        if (g <= 0)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "array_of_gsizes[%d] is %lld; sizes must be 1 or more", i,
                                   (long long)g);
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
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG && (MPI_Count)a * p < g)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "dimension %d: blocks of %d on %d processes cover %lld of the "
                                   "%lld elements; the block size must be at least %lld (or "
                                   "MPI_DISTRIBUTE_DFLT_DARG)",
                                   i, a, p, (long long)a * p, (long long)g,
                                   (long long)((g + p - 1) / p));
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

/* One implementation on MPI_Count; large: the _c form, whose gsizes are recorded as large
 * counts (MPI-4.1 Sec. 5.1.13: size, rank, ndims, distribs, dargs, psizes, order as integers). */
static int darray(const char *call, int large, int size, int rank, int ndims, gsizes_t gsizes,
                  const int array_of_distribs[], const int array_of_dargs[],
                  const int array_of_psizes[], int order, MPI_Datatype oldtype,
                  MPI_Datatype *newtype)
{
    vbt_dtype_t *old, *t = NULL;
    MPI_Count *nidx, **idx, *space, *g, total = 0;
    int *ints, rc, r, ni = 0;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_darray(call, size, rank, ndims, gsizes, array_of_distribs, array_of_dargs,
                               array_of_psizes, order));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    if (newtype == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument newtype is NULL; pass the address of an MPI_Datatype");
    for (int i = 0; i < ndims; i++)
        total += gsize_at(gsizes, i);
    ints = malloc((4 * (size_t)ndims + 4) * sizeof(*ints));
    g = malloc((size_t)ndims * sizeof(*g));
    nidx = malloc((size_t)ndims * sizeof(*nidx));
    idx = malloc((size_t)ndims * sizeof(*idx));
    space = malloc((size_t)total * sizeof(*space));
    if (ints == NULL || g == NULL || nidx == NULL || idx == NULL || space == NULL) {
        free(ints), free(g), free(nidx), free(idx), free(space);
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM,
                               "no memory for the index lists of %d dimensions", ndims);
    }
    for (int i = 0; i < ndims; i++)
        g[i] = gsize_at(gsizes, i);
    /* This process's coordinates: row-major, the last dimension fastest. */
    r = rank;
    for (int i = ndims - 1; i >= 0; i--) {
        int coord = r % array_of_psizes[i];
        r /= array_of_psizes[i];
        total -= g[i];
        idx[i] = space + total;
        nidx[i] =
            owned(g[i], array_of_distribs[i], array_of_dargs[i], array_of_psizes[i], coord, idx[i]);
    }
    ints[ni++] = size;
    ints[ni++] = rank;
    ints[ni++] = ndims;
    if (!large)
        for (int i = 0; i < ndims; i++)
            ints[ni++] = (int)g[i];
    memcpy(ints + ni, array_of_distribs, (size_t)ndims * sizeof(*ints));
    memcpy(ints + ni + ndims, array_of_dargs, (size_t)ndims * sizeof(*ints));
    memcpy(ints + ni + 2 * ndims, array_of_psizes, (size_t)ndims * sizeof(*ints));
    ni += 3 * ndims;
    ints[ni++] = order;
    st = vbt_dtype_create_grid(ndims, g, nidx, (const MPI_Count *const *)idx, order, old, &t);
    rc = vbt_api_type_created_c(call, st, t, MPI_COMBINER_DARRAY, ni, ints, 0, NULL,
                                large ? ndims : 0, g, 1, &old, newtype);
    free(ints), free(g), free(nidx), free(idx), free(space);
    return rc;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray", 0, size, rank, ndims, (gsizes_t){array_of_gsizes, NULL},
                  array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype);
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray_c", 1, size, rank, ndims,
                  (gsizes_t){NULL, array_of_gsizes}, array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype, newtype);
}
