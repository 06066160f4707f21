/* Derived datatype constructors, MPI_Type_dup, MPI_Type_commit and MPI_Type_free. Each
 * constructor checks its arguments, builds the flattened type (vbt_datatype.c) and records its
 * arguments for MPI_Type_get_contents. */
#include "vbt_api.h"
#include "vbt_api_type.h"
#include "vbt_attr.h"
#include "vbt_datatype.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(Type_contiguous)
VBT_PMPI_ALIAS(Type_contiguous_c)
VBT_PMPI_ALIAS(Type_vector)
VBT_PMPI_ALIAS(Type_vector_c)
VBT_PMPI_ALIAS(Type_create_hvector)
VBT_PMPI_ALIAS(Type_create_hvector_c)
VBT_PMPI_ALIAS(Type_indexed)
VBT_PMPI_ALIAS(Type_indexed_c)
VBT_PMPI_ALIAS(Type_create_hindexed)
VBT_PMPI_ALIAS(Type_create_hindexed_c)
VBT_PMPI_ALIAS(Type_create_indexed_block)
VBT_PMPI_ALIAS(Type_create_indexed_block_c)
VBT_PMPI_ALIAS(Type_create_hindexed_block)
VBT_PMPI_ALIAS(Type_create_hindexed_block_c)
VBT_PMPI_ALIAS(Type_create_struct)
VBT_PMPI_ALIAS(Type_create_struct_c)
VBT_PMPI_ALIAS(Type_create_resized)
VBT_PMPI_ALIAS(Type_create_resized_c)
VBT_PMPI_ALIAS(Type_create_subarray)
VBT_PMPI_ALIAS(Type_create_subarray_c)
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

static int check_count(const char *call, const char *arg, MPI_Count count)
{
    if (likely(count >= 0))
        return MPI_SUCCESS;
    return vbt_error_raise(NULL, call, MPI_ERR_COUNT, "argument %s is %lld; it must be 0 or more",
                           arg, (long long)count);
}

/* An array argument of n entries: NULL is fine only when n is 0. */
static int check_array(const char *call, const char *arg, const void *a, MPI_Count n)
{
    if (likely(a != NULL || n == 0))
        return MPI_SUCCESS;
    return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                           "argument %s is NULL but count is %lld; pass an array of count entries",
                           arg, (long long)n);
}

/* A count, block length or displacement array as the call passed it: int (the int
 * constructors), MPI_Aint (their byte displacements) or MPI_Count (the _c constructors), read
 * as MPI_Count so that both forms share one implementation. */
typedef enum { ARR_INT, ARR_AINT, ARR_COUNT } arr_kind_t;
typedef struct {
    const void *p;
    arr_kind_t kind;
} arr_t;

static MPI_Count arr_at(arr_t a, MPI_Count i)
{
    switch (a.kind) {
    case ARR_COUNT:
        return ((const MPI_Count *)a.p)[i];
    case ARR_AINT:
        return (MPI_Count)((const MPI_Aint *)a.p)[i];
    default:
        return ((const int *)a.p)[i];
    }
}

#define ARR_I(_a) ((arr_t){(_a), ARR_INT})
#define ARR_A(_a) ((arr_t){(_a), ARR_AINT})
#define ARR_C(_a) ((arr_t){(_a), ARR_COUNT})

static int check_blocklens(const char *call, arr_t blocklens, MPI_Count n)
{
    for (MPI_Count i = 0; i < n; i++)
        if (arr_at(blocklens, i) < 0)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "array_of_blocklengths[%lld] is %lld; block lengths must be 0 "
                                   "or more",
                                   (long long)i, (long long)arr_at(blocklens, i));
    return MPI_SUCCESS;
}

/* The contents of a type record at most INT_MAX entries of a kind (their counts are int in
 * the type object); an array constructor with more blocks than that is refused. */
static int check_entries(const char *call, MPI_Count count, MPI_Count entries)
{
    if (likely(entries <= INT_MAX))
        return MPI_SUCCESS;
    return vbt_error_raise(NULL, call, MPI_ERR_COUNT,
                           "argument count is %lld: more blocks than a type description holds "
                           "(at most %d); build the type in parts (e.g. a contiguous type of a "
                           "smaller one)",
                           (long long)count, (INT_MAX - 2) / 2);
}

int vbt_api_type_created_c(const char *call, vbt_status_t st, vbt_dtype_t *t, int combiner, int ni,
                           const int *ints, int na, const MPI_Aint *aints, int nc,
                           const MPI_Count *counts, int nt, vbt_dtype_t *const *types,
                           MPI_Datatype *newtype)
{
    if (st == VBT_OK) {
        st = vbt_dtype_set_contents(t, combiner, ni, ints, na, aints, nc, counts, nt, types);
        if (st != VBT_OK)
            vbt_dtype_handle_free(t);
    }
    if (st != VBT_OK)
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM,
                               "no memory for the new datatype's description");
    *newtype = vbt_dtype_handle(t);
    return MPI_SUCCESS;
}

int vbt_api_type_created(const char *call, vbt_status_t st, vbt_dtype_t *t, int combiner, int ni,
                         const int *ints, int na, const MPI_Aint *aints, int nt,
                         vbt_dtype_t *const *types, MPI_Datatype *newtype)
{
    return vbt_api_type_created_c(call, st, t, combiner, ni, ints, na, aints, 0, NULL, nt, types,
                                  newtype);
}

#define CHECK_NEWTYPE(_call, _p)                                                                   \
    do {                                                                                           \
        if (unlikely((_p) == NULL))                                                                \
            return vbt_error_raise(NULL, _call, MPI_ERR_ARG,                                       \
                                   "argument newtype is NULL; pass the address of an "             \
                                   "MPI_Datatype");                                                \
    } while (0)

/* Each constructor below has one implementation on MPI_Count; large says the _c form called
 * it, whose arguments are recorded as large counts (MPI-4.1 Sec. 5.1.13), the int form's as
 * integers (and its byte displacements as addresses). */

static int contiguous(const char *call, int large, MPI_Count count, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    vbt_dtype_t *old, *t = NULL;
    int icount = (int)count;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    st = vbt_dtype_create_contiguous((size_t)count, old, &t);
    return vbt_api_type_created_c(call, st, t, MPI_COMBINER_CONTIGUOUS, large ? 0 : 1, &icount, 0,
                                  NULL, large ? 1 : 0, &count, 1, &old, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous", 0, count, oldtype, newtype);
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous_c", 1, count, oldtype, newtype);
}

/* Type_vector (stride in elements of oldtype) and Type_create_hvector (in bytes: hv). */
static int vector(const char *call, int large, int hv, MPI_Count count, MPI_Count blocklength,
                  MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int ints[3] = {(int)count, (int)blocklength, (int)stride};
    MPI_Count counts[3] = {count, blocklength, stride};
    MPI_Aint astride = (MPI_Aint)stride;
    vbt_dtype_t *old, *t = NULL;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    VBT_API_CHECK(check_count(call, "blocklength", blocklength));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    st = vbt_dtype_create_hvector((size_t)count, (size_t)blocklength,
                                  hv ? astride : astride * old->extent, old, &t);
    if (large)
        return vbt_api_type_created_c(call, st, t, hv ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR,
                                      0, NULL, 0, NULL, 3, counts, 1, &old, newtype);
    return vbt_api_type_created_c(call, st, t, hv ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR,
                                  hv ? 2 : 3, ints, hv ? 1 : 0, &astride, 0, NULL, 1, &old,
                                  newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector", 0, 0, count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector_c", 1, 0, count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector", 0, 1, count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector_c", 1, 1, count, blocklength, stride, oldtype, newtype);
}

/* The indexed family: blocklens, or blocklen each for the _block variants (block set);
 * displacements in elements of oldtype (elements set) or bytes. The contents are laid out as
 * MPI-4.1 Table 5.1 says: count, the block lengths (or the one), then the displacements, as
 * integers and addresses (bytes) for the int forms, all as large counts for the _c forms. */
static int indexed(const char *call, int large, int combiner, MPI_Count count, int block,
                   arr_t blocklens, MPI_Count blocklen, int elements, arr_t disps,
                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_Count nlens = block ? 1 : count, ncounts = 1 + nlens + count, *lens = NULL, *counts;
    MPI_Aint *bytes, *aints;
    vbt_dtype_t *old, *t = NULL;
    int *ints, ni = 0, na = 0, nc = 0, rc;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    VBT_API_CHECK(check_entries(call, count, ncounts));
    if (!block) {
        VBT_API_CHECK(check_array(call, "array_of_blocklengths", blocklens.p, count));
        VBT_API_CHECK(check_blocklens(call, blocklens, count));
    } else {
        VBT_API_CHECK(check_count(call, "blocklength", blocklen));
    }
    VBT_API_CHECK(check_array(call, "array_of_displacements", disps.p, count));
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    bytes = malloc(((size_t)count + 1) * sizeof(*bytes));
    lens = malloc(((size_t)count + 1) * sizeof(*lens));
    counts = malloc((size_t)ncounts * sizeof(*counts));
    ints = malloc((size_t)ncounts * sizeof(*ints));
    aints = malloc(((size_t)count + 1) * sizeof(*aints));
    if (bytes == NULL || lens == NULL || counts == NULL || ints == NULL || aints == NULL) {
        free(bytes), free(lens), free(counts), free(ints), free(aints);
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM, "no memory for %lld displacements",
                               (long long)count);
    }
    for (MPI_Count i = 0; i < count; i++) {
        MPI_Count d = arr_at(disps, i);
        bytes[i] = elements ? (MPI_Aint)d * old->extent : (MPI_Aint)d;
        lens[i] = block ? blocklen : arr_at(blocklens, i);
    }
    /* The contents: count, the block length(s), the displacements. */
    counts[nc++] = count;
    for (MPI_Count i = 0; i < nlens; i++)
        counts[nc++] = block ? blocklen : arr_at(blocklens, i);
    for (MPI_Count i = 0; i < count; i++)
        counts[nc++] = arr_at(disps, i);
    if (!large) {
        /* Integers: all but byte displacements, which are addresses. */
        ni = elements ? nc : nc - (int)count;
        for (int i = 0; i < ni; i++)
            ints[i] = (int)counts[i];
        if (!elements) {
            na = (int)count;
            for (int i = 0; i < na; i++)
                aints[i] = (MPI_Aint)counts[ni + i];
        }
        nc = 0;
    }
    st = vbt_dtype_create_hindexed((size_t)count, lens, 0, bytes, old, &t);
    rc = vbt_api_type_created_c(call, st, t, combiner, ni, ints, na, aints, nc, counts, 1, &old,
                                newtype);
    free(bytes), free(lens), free(counts), free(ints), free(aints);
    return rc;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return indexed("MPI_Type_indexed", 0, MPI_COMBINER_INDEXED, count, 0,
                   ARR_I(array_of_blocklengths), 0, 1, ARR_I(array_of_displacements), oldtype,
                   newtype);
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    return indexed("MPI_Type_indexed_c", 1, MPI_COMBINER_INDEXED, count, 0,
                   ARR_C(array_of_blocklengths), 0, 1, ARR_C(array_of_displacements), oldtype,
                   newtype);
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed", 0, MPI_COMBINER_HINDEXED, count, 0,
                   ARR_I(array_of_blocklengths), 0, 0, ARR_A(array_of_displacements), oldtype,
                   newtype);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed_c", 1, MPI_COMBINER_HINDEXED, count, 0,
                   ARR_C(array_of_blocklengths), 0, 0, ARR_C(array_of_displacements), oldtype,
                   newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_indexed_block", 0, MPI_COMBINER_INDEXED_BLOCK, count, 1,
                   ARR_I(NULL), blocklength, 1, ARR_I(array_of_displacements), oldtype, newtype);
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_indexed_block_c", 1, MPI_COMBINER_INDEXED_BLOCK, count, 1,
                   ARR_C(NULL), blocklength, 1, ARR_C(array_of_displacements), oldtype, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed_block", 0, MPI_COMBINER_HINDEXED_BLOCK, count, 1,
                   ARR_I(NULL), blocklength, 0, ARR_A(array_of_displacements), oldtype, newtype);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed_block_c", 1, MPI_COMBINER_HINDEXED_BLOCK, count, 1,
                   ARR_C(NULL), blocklength, 0, ARR_C(array_of_displacements), oldtype, newtype);
}

static int create_struct(const char *call, int large, MPI_Count count, arr_t blocklens, arr_t disps,
                         const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPI_Count ncounts = 1 + 2 * count, *lens, *counts;
    vbt_dtype_t **types, *t = NULL;
    MPI_Aint *bytes;
    int *ints, rc;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_count(call, "count", count));
    VBT_API_CHECK(check_entries(call, count, ncounts));
    VBT_API_CHECK(check_array(call, "array_of_blocklengths", blocklens.p, count));
    VBT_API_CHECK(check_array(call, "array_of_displacements", disps.p, count));
    VBT_API_CHECK(check_array(call, "array_of_types", array_of_types, count));
    VBT_API_CHECK(check_blocklens(call, blocklens, count));
    CHECK_NEWTYPE(call, newtype);
    types = malloc(((size_t)count + 1) * sizeof(*types));
    lens = malloc(((size_t)count + 1) * sizeof(*lens));
    bytes = malloc(((size_t)count + 1) * sizeof(*bytes));
    counts = malloc((size_t)ncounts * sizeof(*counts));
    ints = malloc(((size_t)count + 1) * sizeof(*ints));
    if (types == NULL || lens == NULL || bytes == NULL || counts == NULL || ints == NULL) {
        free(types), free(lens), free(bytes), free(counts), free(ints);
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM, "no memory for %lld types",
                               (long long)count);
    }
    counts[0] = count;
    ints[0] = (int)count;
    for (MPI_Count i = 0; i < count; i++) {
        types[i] = vbt_dtype_get(array_of_types[i]);
        if (types[i] == NULL) {
            free(types), free(lens), free(bytes), free(counts), free(ints);
            return vbt_error_raise(NULL, call, MPI_ERR_TYPE,
                                   "array_of_types[%lld] (handle %#lx) is not a valid datatype",
                                   (long long)i, (unsigned long)(uintptr_t)array_of_types[i]);
        }
        lens[i] = arr_at(blocklens, i);
        bytes[i] = (MPI_Aint)arr_at(disps, i);
        counts[1 + i] = lens[i];
        counts[1 + count + i] = bytes[i];
        ints[1 + i] = (int)lens[i];
    }
    st = vbt_dtype_create_struct((size_t)count, lens, bytes, types, &t);
    if (large)
        rc = vbt_api_type_created_c(call, st, t, MPI_COMBINER_STRUCT, 0, NULL, 0, NULL,
                                    (int)ncounts, counts, (int)count, types, newtype);
    else
        rc = vbt_api_type_created_c(call, st, t, MPI_COMBINER_STRUCT, (int)count + 1, ints,
                                    (int)count, bytes, 0, NULL, (int)count, types, newtype);
    free(types), free(lens), free(bytes), free(counts), free(ints);
    return rc;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return create_struct("MPI_Type_create_struct", 0, count, ARR_I(array_of_blocklengths),
                         ARR_A(array_of_displacements), array_of_types, newtype);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return create_struct("MPI_Type_create_struct_c", 1, count, ARR_C(array_of_blocklengths),
                         ARR_C(array_of_displacements), array_of_types, newtype);
}

static int resized(const char *call, int large, MPI_Datatype oldtype, MPI_Count lb,
                   MPI_Count extent, MPI_Datatype *newtype)
{
    MPI_Aint aints[2] = {(MPI_Aint)lb, (MPI_Aint)extent};
    MPI_Count counts[2] = {lb, extent};
    vbt_dtype_t *old, *t = NULL;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    st = vbt_dtype_create_resized(old, aints[0], aints[1], &t);
    return vbt_api_type_created_c(call, st, t, MPI_COMBINER_RESIZED, 0, NULL, large ? 0 : 2, aints,
                                  large ? 2 : 0, counts, 1, &old, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized", 0, oldtype, lb, extent, newtype);
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized_c", 1, oldtype, lb, extent, newtype);
}

static int subarray(const char *call, int large, int ndims, arr_t sizes, arr_t subsizes,
                    arr_t starts, int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    vbt_dtype_t *old, *t = NULL;
    MPI_Count *counts;
    int *ints, rc;
    vbt_status_t st;

    VBT_API_ENTER(call);
    if (ndims <= 0)
        return vbt_error_raise(NULL, call, MPI_ERR_DIMS,
                               "argument ndims is %d; it must be 1 or more", ndims);
    VBT_API_CHECK(check_array(call, "array_of_sizes", sizes.p, ndims));
    VBT_API_CHECK(check_array(call, "array_of_subsizes", subsizes.p, ndims));
    VBT_API_CHECK(check_array(call, "array_of_starts", starts.p, ndims));
    for (int i = 0; i < ndims; i++) {
        MPI_Count n = arr_at(sizes, i), sub = arr_at(subsizes, i), start = arr_at(starts, i);
        if (n <= 0 || sub < 0 || sub > n || start < 0 || start > n - sub)
            return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                                   "dimension %d: size %lld, subsize %lld, start %lld do not "
                                   "describe a subarray (need size >= 1, 0 <= subsize <= size, "
                                   "0 <= start <= size - subsize)",
                                   i, (long long)n, (long long)sub, (long long)start);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument order is %d; use MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    VBT_API_CHECK(vbt_api_type_arg(call, "oldtype", oldtype, &old));
    CHECK_NEWTYPE(call, newtype);
    ints = malloc((3 * (size_t)ndims + 2) * sizeof(*ints));
    counts = malloc(3 * (size_t)ndims * sizeof(*counts));
    if (ints == NULL || counts == NULL) {
        free(ints), free(counts);
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM, "no memory for %d dimensions", ndims);
    }
    for (int i = 0; i < ndims; i++) {
        counts[i] = arr_at(sizes, i);
        counts[ndims + i] = arr_at(subsizes, i);
        counts[2 * ndims + i] = arr_at(starts, i);
    }
    /* int form: ndims, the three arrays, order; _c form: ndims and order, the arrays as large
     * counts. */
    ints[0] = ndims;
    if (large) {
        ints[1] = order;
    } else {
        for (int i = 0; i < 3 * ndims; i++)
            ints[1 + i] = (int)counts[i];
        ints[1 + 3 * ndims] = order;
    }
    st = vbt_dtype_create_subarray(ndims, counts, counts + ndims, counts + 2 * ndims, order, old,
                                   &t);
    rc = vbt_api_type_created_c(call, st, t, MPI_COMBINER_SUBARRAY, large ? 2 : 3 * ndims + 2, ints,
                                0, NULL, large ? 3 * ndims : 0, counts, 1, &old, newtype);
    free(ints), free(counts);
    return rc;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray", 0, ndims, ARR_I(array_of_sizes),
                    ARR_I(array_of_subsizes), ARR_I(array_of_starts), order, oldtype, newtype);
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray_c", 1, ndims, ARR_C(array_of_sizes),
                    ARR_C(array_of_subsizes), ARR_C(array_of_starts), order, oldtype, newtype);
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

/* The type behind *datatype for Type_commit and Type_free, which take its address. The caller
 * has entered the API: its critical section must cover the whole call, not only this check. */
static int check_type_at(const char *call, const MPI_Datatype *datatype, vbt_dtype_t **t_p)
{
    if (datatype == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument datatype is NULL; pass the address of an MPI_Datatype");
    return vbt_api_type_arg(call, "datatype", *datatype, t_p);
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    const char *call = "MPI_Type_commit";
    vbt_dtype_t *t;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_type_at(call, datatype, &t));
    /* The flattened form was built with the type: committing only allows communication. */
    t->committed = 1;
    return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    const char *call = "MPI_Type_free";
    vbt_dtype_t *t;

    VBT_API_ENTER(call);
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
