/* Reduction operations: creating and freeing user ops, asking whether an op commutes, and
 * MPI_Reduce_local; the ops themselves live in runtime/vbt_op.c. */
#include "vbt_api_p2p.h"
#include "vbt_op.h"

#include <stdint.h>

VBT_PMPI_ALIAS(Op_create)
VBT_PMPI_ALIAS(Op_create_c)
VBT_PMPI_ALIAS(Op_free)
VBT_PMPI_ALIAS(Op_commutative)
VBT_PMPI_ALIAS(Reduce_local)
VBT_PMPI_ALIAS(Reduce_local_c)

static int bad_op(const char *call, MPI_Op op) __attribute__((noinline, cold));
static int bad_op(const char *call, MPI_Op op)
{
    if (op == MPI_OP_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_OP,
                               "argument op is MPI_OP_NULL; pass a predefined op such as MPI_SUM "
                               "or one made by MPI_Op_create");
    return vbt_error_raise(NULL, call, MPI_ERR_OP,
                           "argument op (handle %#lx) is not a valid op: it was freed, or never "
                           "made by MPI_Op_create",
                           (unsigned long)(uintptr_t)op);
}

/* Resolve an op handle or raise MPI_ERR_OP from _call. */
#define VBT_API_OP(_var, _handle, _call)                                                           \
    vbt_op_t *_var = vbt_op_get(_handle);                                                          \
    if (unlikely(_var == NULL))                                                                    \
        return bad_op(_call, _handle);

static int op_create(const char *call, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op)
{
    vbt_op_t *o;
    vbt_status_t st;

    VBT_API_ENTER(call);
    if (fn == NULL && fn_c == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument user_fn is NULL; pass the function that combines two "
                               "vectors");
    VBT_API_PTR(NULL, call, op, "op");
    st = vbt_op_create(fn, fn_c, commute, &o);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(NULL, call, st);
    *op = (MPI_Op)o;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

int PMPI_Op_free(MPI_Op *op)
{
    VBT_API_ENTER("MPI_Op_free");
    VBT_API_PTR(NULL, "MPI_Op_free", op, "op");
    VBT_API_OP(o, *op, "MPI_Op_free");
    if (vbt_op_is_predefined(o))
        return vbt_error_raise(NULL, "MPI_Op_free", MPI_ERR_OP,
                               "argument op is %s, a predefined op, which cannot be freed; free "
                               "only ops made by MPI_Op_create",
                               vbt_op_name(o));
    vbt_op_free(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    VBT_API_ENTER("MPI_Op_commutative");
    VBT_API_OP(o, op, "MPI_Op_commutative");
    VBT_API_PTR(NULL, "MPI_Op_commutative", commute, "commute");
    *commute = vbt_op_commutative(o);
    return MPI_SUCCESS;
}

static int reduce_local(const char *call, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype dt, MPI_Op op)
{
    const vbt_dtype_t *t;
    const char *why;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_OP(o, op, call);
    t = vbt_dtype_get(dt);
    if (unlikely(t == NULL || !t->committed))
        return vbt_api_bad_buffer(NULL, call, inbuf, 0, dt);
    if (unlikely(count < 0))
        return vbt_error_raise(NULL, call, MPI_ERR_COUNT,
                               "argument count is %lld; it must be 0 or more", (long long)count);
    /* Unlike the other reductions, Reduce_local has no in-place form: there is no root whose
     * receive buffer could double as input. */
    if (unlikely(inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return vbt_error_raise(NULL, call, MPI_ERR_BUFFER,
                               "argument %s is MPI_IN_PLACE, which %s does not accept: pass the "
                               "input vector in inbuf and the input-output vector in inoutbuf",
                               inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf", call);
    /* Derived types may address memory absolutely, from MPI_BOTTOM (NULL). */
    if (unlikely(count > 0 && (inbuf == NULL || inoutbuf == NULL) && t->predefined))
        return vbt_error_raise(NULL, call, MPI_ERR_BUFFER,
                               "argument %s is NULL with count %lld; pass a buffer of at least "
                               "count elements",
                               inbuf == NULL ? "inbuf" : "inoutbuf", (long long)count);
    st = vbt_op_check(o, dt, &why);
    if (unlikely(st != VBT_OK))
        return vbt_error_raise(
            NULL, call, st == VBT_ERR_INVALID_PARAM ? MPI_ERR_OP : MPI_ERR_UNSUPPORTED_OPERATION,
            "%s", why);
    st = vbt_op_apply_buffers(o, inbuf, inoutbuf, (size_t)count, dt);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(NULL, call, st);
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
