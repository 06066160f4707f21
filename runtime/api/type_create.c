/* Derived datatype constructors, MPI_Type_dup, MPI_Type_commit and MPI_Type_free. Each
 * constructor checks its arguments, builds the flattened type (vbt_datatype.c) and records its
 * arguments for MPI_Type_get_contents. */
#include "vbt_api.h"
#include "vbt_api_type.h"
#include "vbt_attr.h"
#include "vbt_datatype.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(Type_contiguous)
VBT_PMPI_ALIAS(Type_vector)
VBT_PMPI_ALIAS(Type_create_hvector)
VBT_PMPI_ALIAS(Type_indexed)
VBT_PMPI_ALIAS(Type_create_hindexed)
VBT_PMPI_ALIAS(Type_create_indexed_block)
VBT_PMPI_ALIAS(Type_create_hindexed_block)
VBT_PMPI_ALIAS(Type_create_struct)
VBT_PMPI_ALIAS(Type_create_resized)
VBT_PMPI_ALIAS(Type_create_subarray)
VBT_PMPI_ALIAS(Type_dup)
VBT_PMPI_ALIAS(Type_commit)
VBT_PMPI_ALIAS(Type_free)

/* A datatype argument: valid (committed or not). */
int vbt_api_type_arg(const char *call, const char *arg, MPI_Datatype dt, vbt_dtype_t **t_p)
{
    *t_p = vbt_dtype_get(dt);
    if (likely(*t_p != NULL))
        return MPI_SUCCESS;
    if (dt == MPI_DATATYPE_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                               "argument %s is MPI_DATATYPE_NULL; pass a datatype", arg);
    return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                           "argument %s (handle %#lx) is not a valid datatype (freed, or never "
                           "returned by a datatype constructor)",
                           arg, (unsigned long)(uintptr_t)dt);
}

static int check_count(const char *call, const char *arg, int count)
{
    if (likely(count >= 0))
        return MPI_SUCCESS;
    return vbt_error_raise(NULL, call, MPI_ERR_COUNT, "argument %s is %d; it must be 0 or more",
                           arg, count);
}

/* An array argument of n entries: NULL is fine only when n is 0. */
static int check_array(const char *call, const char *arg, const void *a, int n)
{
    if (likely(a != NULL || n == 0))
        return MPI_SUCCESS;
    return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                           "argument %s is NULL but count is %d; pass an array of count entries",
                           arg, n);
}

static int check_blocklens(const char *call, const int *blocklens, int n)
{
    for (int i = 0; i < n; i++)
        if (blocklens[i] < 0)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "array_of_blocklengths[%d] is %d; block lengths must be 0 or "
                                   "more",
                                   i, blocklens[i]);
    return MPI_SUCCESS;
}

/* Finish a constructor: record its arguments and hand out the handle. */
int vbt_api_type_created(const char *call, vbt_status_t st, vbt_dtype_t *t, int combiner, int ni,
                         const int *ints, int na, const MPI_Aint *aints, int nt,
                         vbt_dtype_t *const *types, MPI_Datatype *newtype)
{
    if (st == VBT_OK) {
        st = vbt_dtype_set_contents(t, combiner, ni, ints, na, aints, nt, types);
        if (st != VBT_OK)
            vbt_dtype_handle_free(t);
    }
    if (st != VBT_OK)
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM,
                               "no memory for the new datatype's description");
    *newtype = vbt_dtype_handle(t);
    return MPI_SUCCESS;
}

#define CHECK_NEWTYPE(_call, _p)                                                                   \
    do {                                                                                           \
        if (unlikely((_p) == NULL))                                                                \
            return vbt_error_raise(NULL, _call, MPI_ERR_ARG,                                       \
                                   "argument newtype is NULL; pass the address of an "             \
                                   "MPI_Datatype");                                                \
    } while (0)

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_contiguous";
    vbt_dtype_t *old, *t = NULL;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    st = vbt_dtype_create_contiguous((size_t)count, old, &t);
    return vbt_api_type_created(call, st, t, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &old,
                                newtype);
}

/* The arguments Type_vector and Type_create_hvector share (their strides need no check). */
static int check_vector(const char *call, int count, int blocklength, MPI_Datatype oldtype,
                        const MPI_Datatype *newtype, vbt_dtype_t **old_p)
{
    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    VBT_API_CHECK(check_count(call, "blocklength", blocklength));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, old_p));
    CHECK_NEWTYPE(call, newtype);
    return MPI_SUCCESS;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_vector";
    int ints[3] = {count, blocklength, stride};
    vbt_dtype_t *old, *t = NULL;
    vbt_status_t st;

    VBT_API_CHECK(check_vector(call, count, blocklength, oldtype, newtype, &old));
    st = vbt_dtype_create_hvector((size_t)count, (size_t)blocklength,
                                  (MPI_Aint)stride * old->extent, old, &t);
    return vbt_api_type_created(call, st, t, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &old,
                                newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_hvector";
    int ints[2] = {count, blocklength};
    vbt_dtype_t *old, *t = NULL;
    vbt_status_t st;

    VBT_API_CHECK(check_vector(call, count, blocklength, oldtype, newtype, &old));
    st = vbt_dtype_create_hvector((size_t)count, (size_t)blocklength, stride, old, &t);
    return vbt_api_type_created(call, st, t, MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &old,
                                newtype);
}

/* The indexed family: blocklens, or blocklen each for the _block variants (block set);
 * displacements in elements of oldtype (idisps, elements set) or bytes (adisps). The contents
 * are laid out as MPI-3.1 Table 4.1 says. */
static int indexed(const char *call, int combiner, int count, int block, const int *blocklens,
                   int blocklen, int elements, const int *idisps, const MPI_Aint *adisps,
                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    vbt_dtype_t *old, *t = NULL;
    MPI_Aint *bytes;
    int *ints;
    int ni = 0, rc;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    if (!block) {
        VBT_API_CHECK(check_array(call, "array_of_blocklengths", blocklens, count));
        VBT_API_CHECK(check_blocklens(call, blocklens, count));
    } else {
        VBT_API_CHECK(check_count(call, "blocklength", blocklen));
    }
    VBT_API_CHECK(check_array(call, "array_of_displacements",
                              elements ? (const void *)idisps : adisps, count));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    bytes = malloc(((size_t)count + 1) * sizeof(*bytes));
    ints = malloc((2 * (size_t)count + 2) * sizeof(*ints));
    if (bytes == NULL || ints == NULL) {
        free(bytes);
        free(ints);
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM, "no memory for %d displacements", count);
    }
    for (int i = 0; i < count; i++)
        bytes[i] = elements ? (MPI_Aint)idisps[i] * old->extent : adisps[i];
    ints[ni++] = count;
    if (!block) {
        if (count > 0)
            memcpy(ints + ni, blocklens, (size_t)count * sizeof(*ints));
        ni += count;
    } else {
        ints[ni++] = blocklen;
    }
    if (elements && count > 0) {
        memcpy(ints + ni, idisps, (size_t)count * sizeof(*ints));
        ni += count;
    }
    st = vbt_dtype_create_hindexed((size_t)count, block ? NULL : blocklens, (size_t)blocklen, bytes,
                                   old, &t);
    rc = vbt_api_type_created(call, st, t, combiner, ni, ints, elements ? 0 : count, adisps, 1,
                              &old, newtype);
    free(bytes);
    free(ints);
    return rc;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, 0, array_of_blocklengths, 0, 1,
                   array_of_displacements, NULL, oldtype, newtype);
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count, 0,
                   array_of_blocklengths, 0, 0, NULL, array_of_displacements, oldtype, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, 1, NULL,
                   blocklength, 1, array_of_displacements, NULL, oldtype, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count, 1, NULL,
                   blocklength, 0, NULL, array_of_displacements, oldtype, newtype);
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_struct";
    vbt_dtype_t **types, *t = NULL;
    int *ints, rc;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    VBT_API_CHECK(check_array(call, "array_of_blocklengths", array_of_blocklengths, count));
    VBT_API_CHECK(check_array(call, "array_of_displacements", array_of_displacements, count));
    VBT_API_CHECK(check_array(call, "array_of_types", array_of_types, count));
    VBT_API_CHECK(check_blocklens(call, array_of_blocklengths, count));
    CHECK_NEWTYPE(call, newtype);
    types = malloc(((size_t)count + 1) * sizeof(*types));
    ints = malloc(((size_t)count + 1) * sizeof(*ints));
    if (types == NULL || ints == NULL) {
        free(types);
        free(ints);
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM, "no memory for %d types", count);
    }
    for (int i = 0; i < count; i++) {
        types[i] = vbt_dtype_get(array_of_types[i]);
        if (types[i] == NULL) {
            free(types);
            free(ints);
            return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                                   "array_of_types[%d] (handle %#lx) is not a valid datatype", i,
                                   (unsigned long)(uintptr_t)array_of_types[i]);
        }
    }
    ints[0] = count;
    if (count > 0)
        memcpy(ints + 1, array_of_blocklengths, (size_t)count * sizeof(*ints));
    st = vbt_dtype_create_struct((size_t)count, array_of_blocklengths, array_of_displacements,
                                 types, &t);
    rc = vbt_api_type_created(call, st, t, MPI_COMBINER_STRUCT, count + 1, ints, count,
                              array_of_displacements, count, types, newtype);
    free(types);
    free(ints);
    return rc;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_resized";
    MPI_Aint aints[2] = {lb, extent};
    vbt_dtype_t *old, *t = NULL;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    st = vbt_dtype_create_resized(old, lb, extent, &t);
    return vbt_api_type_created(call, st, t, MPI_COMBINER_RESIZED, 0, NULL, 2, aints, 1, &old,
                                newtype);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_subarray";
    vbt_dtype_t *old, *t = NULL;
    int *ints, rc;
    vbt_status_t st;

    VBT_API_ENTER(call);
    if (ndims <= 0)
        return vbt_error_raise(NULL, call, MPI_ERR_DIMS,
                               "argument ndims is %d; it must be 1 or more", ndims);
    VBT_API_CHECK(check_array(call, "array_of_sizes", array_of_sizes, ndims));
    VBT_API_CHECK(check_array(call, "array_of_subsizes", array_of_subsizes, ndims));
    VBT_API_CHECK(check_array(call, "array_of_starts", array_of_starts, ndims));
    for (int i = 0; i < ndims; i++) {
        int n = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
        if (n <= 0 || sub < 0 || sub > n || start < 0 || start > n - sub)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "dimension %d: size %d, subsize %d, start %d do not describe a "
                                   "subarray (need size >= 1, 0 <= subsize <= size, "
                                   "0 <= start <= size - subsize)",
                                   i, n, sub, start);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument order is %d; use MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    ints = malloc((3 * (size_t)ndims + 2) * sizeof(*ints));
    if (ints == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM, "no memory for %d dimensions", ndims);
    ints[0] = ndims;
    memcpy(ints + 1, array_of_sizes, (size_t)ndims * sizeof(*ints));
    memcpy(ints + 1 + ndims, array_of_subsizes, (size_t)ndims * sizeof(*ints));
    memcpy(ints + 1 + 2 * ndims, array_of_starts, (size_t)ndims * sizeof(*ints));
    ints[1 + 3 * ndims] = order;
    st = vbt_dtype_create_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                                   old, &t);
    rc = vbt_api_type_created(call, st, t, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1,
                              &old, newtype);
    free(ints);
    return rc;
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_dup";
    vbt_dtype_t *old, *t = NULL;
    vbt_status_t st;
    int rc;

    VBT_API_ENTER(call);
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    st = vbt_dtype_dup(old, &t);
    rc = vbt_api_type_created(call, st, t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The attributes go along as their copy callbacks say (MPI-4.1 Sec. 7.7.4). */
    rc = vbt_attr_list_copy(old->attrs, oldtype, &t->attrs);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    /* Undo: what was copied is deleted again through its callbacks. */
    vbt_attr_list_delete_all(&t->attrs, *newtype);
    vbt_attr_list_delete_quiet(&t->attrs);
    vbt_dtype_handle_free(t);
    *newtype = MPI_DATATYPE_NULL;
    return vbt_error_raise(NULL, call, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_OTHER,
                           "copying the attributes of oldtype: a copy callback returned error "
                           "code %d",
                           rc);
}

/* The type behind *datatype for Type_commit and Type_free, which take its address. */
static int check_type_at(const char *call, const MPI_Datatype *datatype, vbt_dtype_t **t_p)
{
    VBT_API_ENTER(call);
    if (datatype == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument datatype is NULL; pass the address of an MPI_Datatype");
    return vbt_api_type_arg(call, "datatype", *datatype, t_p);
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    const char *call = "MPI_Type_commit";
    vbt_dtype_t *t;

    VBT_API_CHECK(check_type_at(call, datatype, &t));
    /* The flattened form was built with the type: committing only allows communication. */
    t->committed = 1;
    return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    const char *call = "MPI_Type_free";
    vbt_dtype_t *t;

    VBT_API_CHECK(check_type_at(call, datatype, &t));
    if (t->predefined || t->f90)
        return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                               "argument datatype is the predefined %s%s, which cannot be freed",
                               t->name, t->f90 ? " (from MPI_Type_create_f90_*)" : "");
    /* The last handle: the attributes go, through their delete callbacks; a callback that
     * fails keeps the type (and the attributes not yet deleted). */
    if (t->handles == 1) {
        int rc = vbt_attr_list_delete_all(&t->attrs, *datatype);
        if (rc != MPI_SUCCESS)
            return vbt_error_raise(NULL, call, MPI_ERR_OTHER,
                                   "a delete callback of an attribute on datatype returned error "
                                   "code %d; the datatype stays",
                                   rc);
    }
    /* Pending operations and types built from it hold references: it lives on for them. */
    vbt_dtype_handle_free(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
