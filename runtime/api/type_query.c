/* What a datatype says about itself: extents, sizes, names, how it was built; and
 * MPI_Get_address. */
#include "vbt_api.h"
#include "vbt_datatype.h"

#include <stdint.h>
#include <string.h>

VBT_PMPI_ALIAS(Type_get_extent)
VBT_PMPI_ALIAS(Type_get_extent_x)
VBT_PMPI_ALIAS(Type_get_extent_c)
VBT_PMPI_ALIAS(Type_get_true_extent)
VBT_PMPI_ALIAS(Type_get_true_extent_x)
VBT_PMPI_ALIAS(Type_get_true_extent_c)
VBT_PMPI_ALIAS(Type_size_x)
VBT_PMPI_ALIAS(Type_size_c)
VBT_PMPI_ALIAS(Type_get_name)
VBT_PMPI_ALIAS(Type_set_name)
VBT_PMPI_ALIAS(Type_get_envelope)
VBT_PMPI_ALIAS(Type_get_envelope_c)
VBT_PMPI_ALIAS(Type_get_contents)
VBT_PMPI_ALIAS(Type_get_contents_c)
VBT_PMPI_ALIAS(Get_address)
VBT_PMPI_ALIAS(Aint_add)
VBT_PMPI_ALIAS(Aint_diff)

/* The type behind datatype, or the error raised from call. */
static int query_type(const char *call, MPI_Datatype dt, vbt_dtype_t **t_p)
{
    *t_p = vbt_dtype_get(dt);
    if (likely(*t_p != NULL))
        return MPI_SUCCESS;
    if (dt == MPI_DATATYPE_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                               "argument datatype is MPI_DATATYPE_NULL; pass a datatype");
    return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                           "argument datatype (handle %#lx) is not a valid datatype (freed, or "
                           "never returned by a datatype constructor)",
                           (unsigned long)(uintptr_t)dt);
}

#define QUERY(_call, _dt, _t)                                                                      \
    do {                                                                                           \
        int _rc;                                                                                   \
        VBT_API_ENTER(_call);                                                                      \
        _rc = query_type(_call, _dt, &_t);                                                         \
        if (unlikely(_rc != MPI_SUCCESS))                                                          \
            return _rc;                                                                            \
    } while (0)

#define OUT_PTR(_call, _p, _name)                                                                  \
    do {                                                                                           \
        if (unlikely((_p) == NULL))                                                                \
            return vbt_error_raise(NULL, _call, MPI_ERR_ARG,                                       \
                                   "argument " _name " is NULL; pass a valid address");            \
    } while (0)

/* The four extent queries differ only in the integer type of their outputs: this checks the
 * arguments (lb_p and extent_p are the caller's output addresses, named as MPI names them) and
 * gives the lower bound and extent, the true ones when want_true is set. */
static int query_extent(const char *call, MPI_Datatype dt, int want_true, const void *lb_p,
                        const void *extent_p, MPI_Count *lb, MPI_Count *extent)
{
    vbt_dtype_t *t;

    QUERY(call, dt, t);
    if (unlikely(lb_p == NULL || extent_p == NULL))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument %s%s is NULL; pass a valid address",
                               want_true ? "true_" : "", lb_p == NULL ? "lb" : "extent");
    *lb = want_true ? t->true_lb : t->lb;
    *extent = want_true ? t->true_ub - t->true_lb : t->extent;
    return MPI_SUCCESS;
}

/* query_extent for the MPI_Aint variants. */
static int query_extent_aint(const char *call, MPI_Datatype dt, int want_true, MPI_Aint *lb,
                             MPI_Aint *extent)
{
    MPI_Count l, e;
    int rc = query_extent(call, dt, want_true, lb, extent, &l, &e);

    if (rc == MPI_SUCCESS) {
        *lb = (MPI_Aint)l;
        *extent = (MPI_Aint)e;
    }
    return rc;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    return query_extent_aint("MPI_Type_get_extent", datatype, 0, lb, extent);
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return query_extent("MPI_Type_get_extent_x", datatype, 0, lb, extent, lb, extent);
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    return query_extent_aint("MPI_Type_get_true_extent", datatype, 1, true_lb, true_extent);
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return query_extent("MPI_Type_get_true_extent_x", datatype, 1, true_lb, true_extent, true_lb,
                        true_extent);
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return query_extent("MPI_Type_get_extent_c", datatype, 0, lb, extent, lb, extent);
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return query_extent("MPI_Type_get_true_extent_c", datatype, 1, true_lb, true_extent, true_lb,
                        true_extent);
}

/* MPI_Type_size_x and MPI_Type_size_c (MPI_Type_size, whose int may be too small, is in
 * status.c). */
static int type_size_count(const char *call, MPI_Datatype datatype, MPI_Count *size)
{
    vbt_dtype_t *t;

    QUERY(call, datatype, t);
    OUT_PTR(call, size, "size");
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size_count("MPI_Type_size_x", datatype, size);
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size_count("MPI_Type_size_c", datatype, size);
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    vbt_dtype_t *t;

    /* MPI-4.1 (5.1.13 / 7.8): the null handle is named too. */
    if (datatype == MPI_DATATYPE_NULL) {
        VBT_API_ENTER("MPI_Type_get_name");
        OUT_PTR("MPI_Type_get_name", type_name, "type_name");
        OUT_PTR("MPI_Type_get_name", resultlen, "resultlen");
        strcpy(type_name, "MPI_DATATYPE_NULL");
        *resultlen = (int)strlen(type_name);
        return MPI_SUCCESS;
    }
    QUERY("MPI_Type_get_name", datatype, t);
    OUT_PTR("MPI_Type_get_name", type_name, "type_name");
    OUT_PTR("MPI_Type_get_name", resultlen, "resultlen");
    strcpy(type_name, t->name);
    *resultlen = (int)strlen(t->name);
    return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    vbt_dtype_t *t;

    QUERY("MPI_Type_set_name", datatype, t);
    OUT_PTR("MPI_Type_set_name", type_name, "type_name");
    /* Longer names are cut to MPI_MAX_OBJECT_NAME - 1 characters, as MPI allows. */
    strncpy(t->name, type_name, sizeof(t->name) - 1);
    t->name[sizeof(t->name) - 1] = '\0';
    return MPI_SUCCESS;
}

/* A type from a large-count constructor keeps MPI_Count arguments, which the int forms have no
 * array for: MPI-4.1 Sec. 5.1.13 has them raise MPI_ERR_TYPE, pointing to the _c form. */
static int need_c(const char *call, const vbt_dtype_t *t)
{
    return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                           "argument datatype was built by a large-count constructor (%d "
                           "MPI_Count arguments), which %s cannot return; call %s_c",
                           t->ncounts, call, call);
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    const char *call = "MPI_Type_get_envelope";
    vbt_dtype_t *t;

    QUERY(call, datatype, t);
    OUT_PTR(call, num_integers, "num_integers");
    OUT_PTR(call, num_addresses, "num_addresses");
    OUT_PTR(call, num_datatypes, "num_datatypes");
    OUT_PTR(call, combiner, "combiner");
    if (t->ncounts > 0)
        return need_c(call, t);
    *num_integers = t->nints;
    *num_addresses = t->naints;
    *num_datatypes = t->ntypes;
    *combiner = t->predefined ? MPI_COMBINER_NAMED : t->combiner;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    const char *call = "MPI_Type_get_envelope_c";
    vbt_dtype_t *t;

    QUERY(call, datatype, t);
    OUT_PTR(call, num_integers, "num_integers");
    OUT_PTR(call, num_addresses, "num_addresses");
    OUT_PTR(call, num_large_counts, "num_large_counts");
    OUT_PTR(call, num_datatypes, "num_datatypes");
    OUT_PTR(call, combiner, "combiner");
    *num_integers = t->nints;
    *num_addresses = t->naints;
    *num_large_counts = t->ncounts;
    *num_datatypes = t->ntypes;
    *combiner = t->predefined ? MPI_COMBINER_NAMED : t->combiner;
    return MPI_SUCCESS;
}

static int get_contents(const char *call, MPI_Datatype datatype, MPI_Count max_integers,
                        MPI_Count max_addresses, MPI_Count max_large_counts,
                        MPI_Count max_datatypes, int array_of_integers[],
                        MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                        MPI_Datatype array_of_datatypes[])
{
    vbt_dtype_t *t;

    QUERY(call, datatype, t);
    if (t->predefined)
        return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                               "argument datatype is the predefined %s, which has no contents "
                               "(MPI_Type_get_envelope says MPI_COMBINER_NAMED)",
                               t->name);
    if (array_of_large_counts == NULL && t->ncounts > 0)
        return need_c(call, t);
    if (max_integers < t->nints || max_addresses < t->naints || max_datatypes < t->ntypes ||
        max_large_counts < t->ncounts)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "the arrays hold %lld integers, %lld addresses, %lld large counts "
                               "and %lld datatypes, but the type needs %d, %d, %d and %d (see "
                               "MPI_Type_get_envelope_c)",
                               (long long)max_integers, (long long)max_addresses,
                               (long long)max_large_counts, (long long)max_datatypes, t->nints,
                               t->naints, t->ncounts, t->ntypes);
    if ((t->nints > 0 && array_of_integers == NULL) ||
        (t->naints > 0 && array_of_addresses == NULL) ||
        (t->ntypes > 0 && array_of_datatypes == NULL))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG, "an output array is NULL");
    if (t->nints > 0)
        memcpy(array_of_integers, t->ints, (size_t)t->nints * sizeof(*t->ints));
    if (t->naints > 0)
        memcpy(array_of_addresses, t->aints, (size_t)t->naints * sizeof(*t->aints));
    if (t->ncounts > 0)
        memcpy(array_of_large_counts, t->counts, (size_t)t->ncounts * sizeof(*t->counts));
    /* Derived types come back as handles the caller must free (MPI-3.1 4.1.13). */
    for (int i = 0; i < t->ntypes; i++) {
        vbt_dtype_handle_add(t->types[i]);
        array_of_datatypes[i] = vbt_dtype_handle(t->types[i]);
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    return get_contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, 0,
                        max_datatypes, array_of_integers, array_of_addresses, NULL,
                        array_of_datatypes);
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    /* A type without large counts may pass NULL for array_of_large_counts. */
    static MPI_Count none[1];

    return get_contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                        max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                        array_of_large_counts != NULL ? array_of_large_counts : none,
                        array_of_datatypes);
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    VBT_API_ENTER("MPI_Get_address");
    OUT_PTR("MPI_Get_address", address, "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* Address arithmetic for absolute addresses (dynamic windows' displacements, MPI_BOTTOM): in a
 * flat address space, plain integer arithmetic. Callable at any time, like the standard lets
 * an implementation do. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
