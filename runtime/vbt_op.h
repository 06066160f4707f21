/* Reduction operations: the runtime object behind MPI_Op, predefined and user-defined, and the
 * one function the collectives call to combine two buffers.
 * (Contract written first so runtime/ and collectives/ can be built against it; the
 * implementation is runtime/vbt_op.c, the kernels runtime/vbt_op_kernels.c.) */
#ifndef VBT_OP_H
#define VBT_OP_H

#include <mpi.h>
#include <stddef.h>

#include "vbt_status.h"

typedef struct vbt_op vbt_op_t;

/* The object behind an op handle (predefined or from MPI_Op_create), or NULL when the handle
 * names no valid op (MPI_OP_NULL included). A user op's handle is the object's address; a
 * freed op's handle is no longer valid. */
vbt_op_t *vbt_op_get(MPI_Op op);

/* 1 for the predefined ops and user ops created with commute = 1. Non-commutative ops must be
 * applied in rank order: result = x_0 op x_1 op ... op x_{n-1}. */
int vbt_op_commutative(const vbt_op_t *op);

/* May op be applied to count elements of dt? VBT_OK, or VBT_ERR_INVALID_PARAM with *why set to
 * a sentence naming the op and the type (e.g. "MPI_BAND is not defined on MPI_DOUBLE: ...")
 * for the combinations MPI forbids and for an invalid dt. User ops, MPI_REPLACE and MPI_NO_OP
 * accept any datatype; the other predefined ops a derived datatype whose data is all one
 * predefined type they accept. VBT_ERR_UNSUPPORTED (with *why) where MPI allows the combination
 * but Verbatim cannot compute it: a Fortran type the C compiler has no arithmetic for
 * (MPI_REAL2, MPI_REAL16, ...), a derived datatype of a padded pair type (MPI_DOUBLE_INT...).
 * *why points to a thread-local buffer, valid until the next vbt_op_check on this thread; why
 * may be NULL. */
vbt_status_t vbt_op_check(const vbt_op_t *op, MPI_Datatype dt, const char **why);

/* inout[i] = in[i] op inout[i] for count elements of dt (MPI's order: the left operand is in),
 * after vbt_op_check said yes. Predefined ops work on the predefined datatypes (elements at
 * extent stride, as in a C array) and on derived datatypes whose elements are all one
 * predefined type (the caller passes such data packed: count elements of dt, or equally
 * count * nbasic elements of that predefined type); user ops get (in, inout, &len, &dt) as MPI
 * says, called in chunks of at most INT_MAX elements (one call for ops from MPI_Op_create_c),
 * element i at byte i * extent of dt. MPI_REPLACE copies count * extent bytes of a predefined type,
 * count * size of a derived one (packed data). No allocation, no lock. */
void vbt_op_apply(const vbt_op_t *op, const void *in, void *inout, size_t count, MPI_Datatype dt);

/* The same on buffers laid out as the user's datatype says (MPI_Reduce_local), after
 * vbt_op_check said yes: derived datatypes are packed into temporary buffers, which is the only
 * thing that can fail (VBT_ERR_NO_MEMORY, logged); user ops get the buffers as they are. */
vbt_status_t vbt_op_apply_buffers(const vbt_op_t *op, const void *in, void *inout, size_t count,
                                  MPI_Datatype dt);

/* The name of a predefined op ("MPI_SUM"), or "user op". */
const char *vbt_op_name(const vbt_op_t *op);

/* 1 for the predefined ops. */
int vbt_op_is_predefined(const vbt_op_t *op);

/* The name of a predefined datatype ("MPI_DOUBLE"), or NULL for any other handle. Synonyms get
 * the first name of mpi.h (MPI_C_COMPLEX, MPI_LONG_LONG_INT). */
const char *vbt_op_dtype_name(MPI_Datatype dt);

/* MPI_CHAR, MPI_WCHAR or MPI_CHARACTER: the ops take them (as MPICH does, beyond the standard),
 * compare-and-swap does not. */
int vbt_op_is_char_type(MPI_Datatype dt);

/* A user op for MPI_Op_create (fn set) or MPI_Op_create_c (fn_c set); the other is NULL.
 * VBT_ERR_NO_MEMORY (logged) when the object cannot be allocated. */
vbt_status_t vbt_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute,
                           vbt_op_t **op_p);

/* MPI_Op_free: the handle is invalid from now on; the object itself lives until the last
 * vbt_op_release of an operation still using it (a pending non-blocking collective).
 * VBT_ERR_INVALID_PARAM for a predefined op, which cannot be freed. */
vbt_status_t vbt_op_free(vbt_op_t *op);

/* Keep op alive across MPI_Op_free while an operation uses it; no-ops for predefined ops.
 * Thread-safe. They take const pointers, as the collectives hold them: the reference count is
 * the only thing they change. */
void vbt_op_retain(const vbt_op_t *op);
void vbt_op_release(const vbt_op_t *op);

/* MPI_Finalize: the user ops still alive go, their handles with them. */
void vbt_op_cleanup(void);

#endif
