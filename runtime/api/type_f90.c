/* The Fortran 90 parameterised types (MPI-4.1 Sec. 19.1.9): MPI_Type_create_f90_integer, _real
 * and _complex return the predefined type of the kind selected_int_kind(r) or
 * selected_real_kind(p, r) gives, and MPI_Type_match_size the predefined type of a class and
 * size. The kinds are those of gfortran on this platform's types: INTEGER of 1, 2, 4, 8, 16
 * bytes (decimal ranges 2, 4, 9, 18, 38), REAL of 4, 8, 16 bytes (IEEE single, double and
 * quad: precision 6, 15, 33; range 37, 307, 4931), COMPLEX as two of those.
 *
 * The standard makes the f90 results predefined (MPI_Type_free may not free them) yet has
 * MPI_Type_get_envelope report MPI_COMBINER_F90_* with the p and r asked for, so each (p, r)
 * is a type of its own: made once from the named type, kept on that type's list, and freed at
 * MPI_Finalize. */
#include "vbt_api_type.h"

#include <stdint.h>
#include <stdio.h>

VBT_PMPI_ALIAS(Type_create_f90_integer)
VBT_PMPI_ALIAS(Type_create_f90_real)
VBT_PMPI_ALIAS(Type_create_f90_complex)
VBT_PMPI_ALIAS(Type_match_size)

typedef struct {
    MPI_Datatype type, complex_type;
    int precision, range;
} f90_kind_t;

static const f90_kind_t int_kinds[] = {
    {MPI_INTEGER1, MPI_DATATYPE_NULL, 0, 2},   {MPI_INTEGER2, MPI_DATATYPE_NULL, 0, 4},
    {MPI_INTEGER4, MPI_DATATYPE_NULL, 0, 9},   {MPI_INTEGER8, MPI_DATATYPE_NULL, 0, 18},
    {MPI_INTEGER16, MPI_DATATYPE_NULL, 0, 38},
};

static const f90_kind_t real_kinds[] = {
    {MPI_REAL4, MPI_COMPLEX8, 6, 37},
    {MPI_REAL8, MPI_COMPLEX16, 15, 307},
    {MPI_REAL16, MPI_COMPLEX32, 33, 4931},
};

/* The type for combiner with parameters (p, r) made from the named type base: found on
 * base's list, or made now. */
static int f90_type(const char *call, MPI_Datatype base, int combiner, int p, int r,
                    MPI_Datatype *newtype)
{
    vbt_dtype_t *b = vbt_dtype_get(base), *t;
    int ints[2] = {p, r}, ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    vbt_status_t st;
    int rc;

    if (ni == 1)
        ints[0] = r;
    for (t = b->f90_list; t != NULL; t = t->f90_next) {
        if (t->combiner == combiner && t->ints[0] == ints[0] && (ni == 1 || t->ints[1] == r)) {
            *newtype = vbt_dtype_handle(t);
            return MPI_SUCCESS;
        }
    }
    st = vbt_dtype_dup(b, &t);
    rc = vbt_api_type_created(call, st, t, combiner, ni, ints, 0, NULL, 0, NULL, newtype);
    if (rc != MPI_SUCCESS)
        return rc;
    t->f90 = 1;
    t->committed = 1;
    snprintf(t->name, sizeof(t->name), "%s", b->name);
    t->f90_next = b->f90_list;
    b->f90_list = t;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_f90_integer";

    VBT_API_ENTER(call);
    if (newtype == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument newtype is NULL; pass the address of an MPI_Datatype");
    for (size_t i = 0; i < sizeof(int_kinds) / sizeof(int_kinds[0]); i++)
        if (int_kinds[i].range >= r)
            return f90_type(call, int_kinds[i].type, MPI_COMBINER_F90_INTEGER, 0, r, newtype);
    return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                           "argument r is %d: no INTEGER kind holds %d decimal digits (the "
                           "largest, INTEGER(16), holds 38)",
                           r, r);
}

static int f90_real(const char *call, int p, int r, int cplx, MPI_Datatype *newtype)
{
    VBT_API_ENTER(call);
    if (newtype == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument newtype is NULL; pass the address of an MPI_Datatype");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "arguments p and r are both MPI_UNDEFINED; give at least one");
    for (size_t i = 0; i < sizeof(real_kinds) / sizeof(real_kinds[0]); i++) {
        const f90_kind_t *k = &real_kinds[i];
        if ((p == MPI_UNDEFINED || k->precision >= p) && (r == MPI_UNDEFINED || k->range >= r))
            return f90_type(call, cplx ? k->complex_type : k->type,
                            cplx ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL, p, r, newtype);
    }
    return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                           "no %s kind has precision %d and range %d (the largest, %s(16), has "
                           "precision 33 and range 4931; MPI_UNDEFINED leaves one free)",
                           cplx ? "COMPLEX" : "REAL", p, r, cplx ? "COMPLEX" : "REAL");
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_real("MPI_Type_create_f90_real", p, r, 0, newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_real("MPI_Type_create_f90_complex", p, r, 1, newtype);
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *call = "MPI_Type_match_size";
    static const MPI_Datatype candidates[][5] = {
        {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16},
        {MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_DATATYPE_NULL},
        {MPI_COMPLEX4, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32, MPI_DATATYPE_NULL},
    };
    int row;

    VBT_API_ENTER(call);
    if (datatype == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument datatype is NULL; pass the address of an MPI_Datatype");
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        row = 0;
        break;
    case MPI_TYPECLASS_REAL:
        row = 1;
        break;
    case MPI_TYPECLASS_COMPLEX:
        row = 2;
        break;
    default:
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument typeclass is %d; use MPI_TYPECLASS_INTEGER, "
                               "MPI_TYPECLASS_REAL or MPI_TYPECLASS_COMPLEX",
                               typeclass);
    }
    for (int i = 0; i < 5; i++) {
        vbt_dtype_t *t = vbt_dtype_get(candidates[row][i]);
        if (t != NULL && (MPI_Aint)t->size == size && size > 0) {
            *datatype = candidates[row][i];
            return MPI_SUCCESS;
        }
    }
    return vbt_error_raise(NULL, call, MPI_ERR_ARG, "no %s type is %d bytes (sizes: %s)",
                           row == 0   ? "INTEGER"
                           : row == 1 ? "REAL"
                                      : "COMPLEX",
                           size,
                           row == 0   ? "1, 2, 4, 8, 16"
                           : row == 1 ? "2, 4, 8, 16"
                                      : "4, 8, 16, 32");
}
