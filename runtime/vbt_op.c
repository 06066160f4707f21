/* Op objects (predefined and user), which op may combine which datatype, and applying an op to
 * two buffers. The element-wise kernels are in vbt_op_kernels.c. */
#include "vbt_op.h"
#include "vbt_op_int.h"

#include "vbt_compiler.h"
#include "vbt_datatype.h"
#include "vbt_log.h"
#include "vbt_objpool.h"
#include "vbt_runtime.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A valid handle points to a pool object carrying this; MPI_Op_free clears it, so a stale
 * handle is refused (and a handle outside the pool is refused without being read). */
#define VBT_OP_MAGIC 0x706f7476u /* "vtop" */

struct vbt_op {
    uint32_t magic;
    uint8_t index;             /* predefined: handle - 0x20 (VBT_OPI_*); user ops: VBT_OPI_USER */
    uint8_t commute;           /* 0 or 1 */
    int refcount;              /* user ops: 1 for the handle, plus one per vbt_op_retain */
    const char *name;          /* the free-list link once freed */
    MPI_User_function *fn;     /* user ops: exactly one of fn and fn_c is set */
    MPI_User_function_c *fn_c; /* MPI_Op_create_c: takes the whole count at once */
};

#define PREDEF(_i, _name) [VBT_OPI_##_i] = {VBT_OP_MAGIC, VBT_OPI_##_i, 1, 0, _name, NULL, NULL}
static vbt_op_t predefined[VBT_OPI_COUNT] = {
    PREDEF(SUM, "MPI_SUM"),         PREDEF(MIN, "MPI_MIN"),       PREDEF(MAX, "MPI_MAX"),
    PREDEF(PROD, "MPI_PROD"),       PREDEF(BAND, "MPI_BAND"),     PREDEF(BOR, "MPI_BOR"),
    PREDEF(BXOR, "MPI_BXOR"),       PREDEF(LAND, "MPI_LAND"),     PREDEF(LOR, "MPI_LOR"),
    PREDEF(LXOR, "MPI_LXOR"),       PREDEF(MINLOC, "MPI_MINLOC"), PREDEF(MAXLOC, "MPI_MAXLOC"),
    PREDEF(REPLACE, "MPI_REPLACE"), PREDEF(NO_OP, "MPI_NO_OP"),
};

/* Which groups of datatypes each predefined op takes (MPI-3.1 sec. 5.9.2), and the same in
 * words for the error message. REPLACE and NO_OP take anything and are not listed. */
typedef struct {
    uint8_t groups;
    const char *takes;
} op_domain_t;

#define ARITH           (VBT_OPC_CINT | VBT_OPC_FINT | VBT_OPC_FLOAT | VBT_OPC_CHAR)
#define BITS            (VBT_OPC_CINT | VBT_OPC_FINT | VBT_OPC_BYTE | VBT_OPC_CHAR)
#define ONE(_i, _g, _t) [VBT_OPI_##_i] = {_g, _t}
#define CHARS           "character (MPI_CHAR, MPI_WCHAR, MPI_CHARACTER)"
static const op_domain_t domains[VBT_OPI_COUNT] = {
    ONE(SUM, ARITH | VBT_OPC_COMPLEX, "integer, floating-point, complex and " CHARS " types"),
    ONE(PROD, ARITH | VBT_OPC_COMPLEX, "integer, floating-point, complex and " CHARS " types"),
    ONE(MIN, ARITH, "integer, floating-point and " CHARS " types"),
    ONE(MAX, ARITH, "integer, floating-point and " CHARS " types"),
    ONE(LAND, VBT_OPC_CINT | VBT_OPC_LOGICAL, "C integer and logical types (MPI_C_BOOL)"),
    ONE(LOR, VBT_OPC_CINT | VBT_OPC_LOGICAL, "C integer and logical types (MPI_C_BOOL)"),
    ONE(LXOR, VBT_OPC_CINT | VBT_OPC_LOGICAL, "C integer and logical types (MPI_C_BOOL)"),
    ONE(BAND, BITS, "integer and " CHARS " types and MPI_BYTE"),
    ONE(BOR, BITS, "integer and " CHARS " types and MPI_BYTE"),
    ONE(BXOR, BITS, "integer and " CHARS " types and MPI_BYTE"),
    ONE(MINLOC, VBT_OPC_PAIR,
        "the value-index pairs (MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, "
        "MPI_SHORT_INT, MPI_LONG_DOUBLE_INT and the Fortran pairs)"),
    ONE(MAXLOC, VBT_OPC_PAIR,
        "the value-index pairs (MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, "
        "MPI_SHORT_INT, MPI_LONG_DOUBLE_INT and the Fortran pairs)"),
};

/* User ops, 64 Ki at once (4 MiB of address space, mapped as they come). */
static vbt_objpool_t pool = VBT_OBJPOOL_INITIALIZER(vbt_op_t, "user op", 1u << 16, name);

/* The last refusal's sentence, per thread so concurrent checks do not garble each other. */
static _Thread_local char why_buf[320];

vbt_op_t *vbt_op_get(MPI_Op handle)
{
    uintptr_t h = (uintptr_t)handle;
    vbt_op_t *op;

    if (h > 0x20 && h < 0x20 + VBT_OPI_COUNT)
        return predefined[h - 0x20].name != NULL ? &predefined[h - 0x20] : NULL;
    op = vbt_objpool_get(&pool, handle, sizeof(vbt_op_t), VBT_OP_MAGIC);
    return op != NULL && op->index == VBT_OPI_USER ? op : NULL;
}

int vbt_op_commutative(const vbt_op_t *op)
{
    return op->commute;
}

const char *vbt_op_name(const vbt_op_t *op)
{
    return op->name;
}

int vbt_op_is_predefined(const vbt_op_t *op)
{
    return op->index != VBT_OPI_USER;
}

static int is_predefined_dtype(MPI_Datatype dt)
{
    uintptr_t h = (uintptr_t)dt;
    return h > 0x200 && h <= 0x2ff && vbt_op_dtypes[h - 0x200].name != NULL;
}

const char *vbt_op_dtype_name(MPI_Datatype dt)
{
    return is_predefined_dtype(dt) ? vbt_op_dtypes[(uintptr_t)dt - 0x200].name : NULL;
}

int vbt_op_is_char_type(MPI_Datatype dt)
{
    return is_predefined_dtype(dt) && (vbt_op_dtypes[(uintptr_t)dt - 0x200].groups & VBT_OPC_CHAR);
}

__attribute__((format(printf, 3, 4), noinline, cold)) static vbt_status_t
refuse(vbt_status_t status, const char **why, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
    va_end(ap);
    if (why != NULL)
        *why = why_buf;
    return status;
}

/* The one predefined type the data of dt is made of (dt itself when predefined), or
 * MPI_DATATYPE_NULL when it mixes several. */
static MPI_Datatype basic_of(MPI_Datatype dt)
{
    return is_predefined_dtype(dt) ? dt : vbt_dtype_get(dt)->basic;
}

/* A pair type whose C struct has padding: packed, its elements are not the struct. */
static int is_padded(MPI_Datatype basic)
{
    const vbt_dtype_t *t = vbt_dtype_get(basic);
    return (MPI_Aint)t->size != t->extent;
}

vbt_status_t vbt_op_check(const vbt_op_t *op, MPI_Datatype dt, const char **why)
{
    const vbt_op_dtype_t *d;
    MPI_Datatype basic;

    if (unlikely(vbt_dtype_get(dt) == NULL))
        return refuse(VBT_ERR_INVALID_PARAM, why, "%s cannot be applied to %s", op->name,
                      dt == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "an invalid datatype");
    if (op->index == VBT_OPI_USER || op->index == VBT_OPI_REPLACE || op->index == VBT_OPI_NO_OP)
        return VBT_OK;
    basic = basic_of(dt);
    if (unlikely(!is_predefined_dtype(basic)))
        return refuse(VBT_ERR_INVALID_PARAM, why,
                      "%s is not defined on a derived datatype that mixes several basic types",
                      op->name);
    d = &vbt_op_dtypes[(uintptr_t)basic - 0x200];
    if (unlikely((d->groups & domains[op->index].groups) == 0))
        return refuse(VBT_ERR_INVALID_PARAM, why, "%s is not defined on %s%s: it takes %s",
                      op->name, basic == dt ? "" : "a derived datatype of ", d->name,
                      domains[op->index].takes);
    if (unlikely(vbt_op_kernels[op->index][d->kind] == NULL))
        return refuse(VBT_ERR_UNSUPPORTED, why,
                      "%s on %s is not supported: the C compiler Verbatim was built with has no "
                      "arithmetic for this type",
                      op->name, d->name);
    if (unlikely(basic != dt && is_padded(basic)))
        return refuse(VBT_ERR_UNSUPPORTED, why,
                      "%s on a derived datatype of %s is not supported yet: only on %s itself",
                      op->name, d->name, d->name);
    return VBT_OK;
}

/* User functions take an int count: feed them at most INT_MAX elements at a time. */
static void apply_user(const vbt_op_t *op, const void *in, void *inout, size_t count,
                       MPI_Datatype dt)
{
    MPI_Aint extent = vbt_dtype_get(dt)->extent;
    MPI_Datatype d = dt;

    if (op->fn_c != NULL) {
        MPI_Count len = (MPI_Count)count;
        op->fn_c((void *)(uintptr_t)in, inout, &len, &d);
        return;
    }
    while (count > 0) {
        int chunk = count > INT_MAX ? INT_MAX : (int)count;
        int len = chunk; /* the function may write to it: keep our copy */
        d = dt;
        op->fn((void *)(uintptr_t)in, inout, &len, &d);
        in = (const char *)in + (MPI_Aint)chunk * extent;
        inout = (char *)inout + (MPI_Aint)chunk * extent;
        count -= (size_t)chunk;
    }
}

/* The Fortran LOGICAL types (MPI_LOGICAL, MPI_LOGICALn), by handle. */
static int is_fortran_logical(MPI_Datatype basic)
{
    uintptr_t h = (uintptr_t)basic;
    return h == 0x218 || h == 0x2c0 || h == 0x2c8 || h == 0x2d0 || h == 0x2d8 || h == 0x2e0;
}

/* Logical ops on Fortran LOGICALs whose .TRUE. and .FALSE. the program registered
 * (MPI_Abi_set_fortran_booleans): a value is false when it has the bytes of .FALSE., true
 * otherwise, and results are written as the registered values. */
static void apply_fortran_logical(int opi, const void *in, void *inout, size_t count, size_t sz,
                                  const unsigned char *t, const unsigned char *f)
{
    for (size_t i = 0; i < count; i++) {
        const unsigned char *a = (const unsigned char *)in + i * sz;
        unsigned char *b = (unsigned char *)inout + i * sz;
        int x = memcmp(a, f, sz) != 0, y = memcmp(b, f, sz) != 0;
        int r = opi == VBT_OPI_LAND ? x && y : opi == VBT_OPI_LOR ? x || y : x != y;
        memcpy(b, r ? t : f, sz);
    }
}

void vbt_op_apply(const vbt_op_t *op, const void *in, void *inout, size_t count, MPI_Datatype dt)
{
    const vbt_dtype_t *t;
    MPI_Datatype basic;

    if (unlikely(count == 0))
        return;
    switch (op->index) {
    case VBT_OPI_USER:
        apply_user(op, in, inout, count, dt);
        return;
    case VBT_OPI_NO_OP:
        return;
    case VBT_OPI_REPLACE:
        t = vbt_dtype_get(dt);
        if (in != inout)
            memcpy(inout, in, count * (t->predefined ? (size_t)t->extent : t->size));
        return;
    default:
        if (likely(is_predefined_dtype(dt))) {
            basic = dt;
        } else { /* packed: count elements are count * nbasic of the basic type */
            basic = vbt_dtype_get(dt)->basic;
            count *= vbt_dtype_get(dt)->nbasic;
        }
        if (unlikely(vbt_rt.fortran.bools_set && op->index >= VBT_OPI_LAND &&
                     op->index <= VBT_OPI_LXOR && is_fortran_logical(basic) &&
                     vbt_dtype_get(basic)->size == (size_t)vbt_rt.fortran.logical_size)) {
            apply_fortran_logical(op->index, in, inout, count, vbt_dtype_get(basic)->size,
                                  vbt_rt.fortran.logical_true, vbt_rt.fortran.logical_false);
            return;
        }
        vbt_op_kernels[op->index][vbt_op_dtypes[(uintptr_t)basic - 0x200].kind](in, inout, count);
    }
}

vbt_status_t vbt_op_apply_buffers(const vbt_op_t *op, const void *in, void *inout, size_t count,
                                  MPI_Datatype dt)
{
    const vbt_dtype_t *t = vbt_dtype_get(dt);
    size_t bytes = count * t->size;
    void *tmp_in, *tmp_io;

    if (t->predefined || op->index == VBT_OPI_USER) {
        vbt_op_apply(op, in, inout, count, dt);
        return VBT_OK;
    }
    if (count == 0 || bytes == 0 || op->index == VBT_OPI_NO_OP)
        return VBT_OK;
    if (t->contig) { /* count * size bytes at true_lb, in packed order already */
        vbt_op_apply(op, (const char *)in + t->true_lb, (char *)inout + t->true_lb, count, dt);
        return VBT_OK;
    }
    tmp_in = malloc(bytes);
    tmp_io = malloc(bytes);
    if (tmp_in == NULL || tmp_io == NULL) {
        free(tmp_in);
        free(tmp_io);
        vbt_error("cannot allocate 2 x %zu bytes to reduce a non-contiguous datatype", bytes);
        return VBT_ERR_NO_MEMORY;
    }
    vbt_dtype_pack(t, in, count, 0, tmp_in, bytes);
    vbt_dtype_pack(t, inout, count, 0, tmp_io, bytes);
    vbt_op_apply(op, tmp_in, tmp_io, count, dt);
    vbt_dtype_unpack(t, inout, count, 0, tmp_io, bytes);
    free(tmp_in);
    free(tmp_io);
    return VBT_OK;
}

vbt_status_t vbt_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute,
                           vbt_op_t **op_p)
{
    vbt_op_t *op = vbt_objpool_alloc(&pool); /* logs why when it cannot */

    if (op == NULL)
        return VBT_ERR_NO_MEMORY;
    op->magic = VBT_OP_MAGIC;
    op->index = VBT_OPI_USER;
    op->commute = commute != 0;
    op->refcount = 1;
    op->name = "user op";
    op->fn = fn;
    op->fn_c = fn_c;
    *op_p = op;
    return VBT_OK;
}

vbt_status_t vbt_op_free(vbt_op_t *op)
{
    if (op->index != VBT_OPI_USER)
        return VBT_ERR_INVALID_PARAM;
    op->magic = 0;
    vbt_op_release(op);
    return VBT_OK;
}

void vbt_op_retain(const vbt_op_t *op)
{
    if (op->index == VBT_OPI_USER)
        __atomic_add_fetch(&((vbt_op_t *)(uintptr_t)op)->refcount, 1, __ATOMIC_RELAXED);
}

void vbt_op_release(const vbt_op_t *op)
{
    vbt_op_t *o = (vbt_op_t *)(uintptr_t)op; /* user ops live in the pool, never const */

    if (o->index == VBT_OPI_USER && __atomic_sub_fetch(&o->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        vbt_objpool_free(&pool, o); /* the handle was freed before: the magic is 0 already */
}

void vbt_op_cleanup(void)
{
    vbt_objpool_destroy(&pool);
}
