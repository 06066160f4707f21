/* Argument checks shared by the collective entry points (coll_*.c). Each returns MPI_SUCCESS
 * or the error class raised through the communicator's handler, with a message naming the
 * call, the argument and the problem. */
#ifndef VBT_API_COLL_H
#define VBT_API_COLL_H

#include "vbt_api_p2p.h"
#include "vbt_coll.h"
#include "vbt_op.h"

/* Names of one buffer's three arguments, e.g. {"sendbuf", "sendcount", "sendtype"}. */
typedef struct {
    const char *buf, *count, *type;
} vbt_api_bufname_t;

extern const vbt_api_bufname_t vbt_api_send, vbt_api_recv, vbt_api_inout;

int vbt_api_coll_bad_buffer(vbt_comm_t *c, const char *call, const vbt_api_bufname_t *name,
                            const void *buf, MPI_Count count, MPI_Datatype dt)
    __attribute__((noinline, cold));
int vbt_api_coll_bad_root(vbt_comm_t *c, const char *call, int root)
    __attribute__((noinline, cold));
/* A buffer argument is MPI_IN_PLACE where MPI does not allow it (why: where it is allowed). */
int vbt_api_coll_bad_in_place(vbt_comm_t *c, const char *call, const char *arg, const char *why)
    __attribute__((noinline, cold));
/* sendbuf and recvbuf are the same address (MPI forbids aliasing; MPI_IN_PLACE is the way). */
int vbt_api_coll_aliased(vbt_comm_t *c, const char *call) __attribute__((noinline, cold));
/* An array of n counts (and displacements when displs_name is set), int or 64-bit as the call
 * has them: present, counts >= 0. */
int vbt_api_coll_check_counts(vbt_comm_t *c, const char *call, const char *counts_name,
                              vbt_coll_vec_t counts, const char *displs_name, vbt_coll_vec_t displs,
                              int n);
/* Both sides of a collective in which every rank sends and receives blocks of one size
 * (Allgather, Alltoall): recvbuf is a buffer, sendbuf MPI_IN_PLACE or a buffer that is not
 * recvbuf. */
int vbt_api_coll_check_blocks(vbt_comm_t *c, const char *call, const void *sendbuf,
                              MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype);
/* The op handle is valid and may combine dt; *op_p set on success. */
int vbt_api_coll_check_op(vbt_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt,
                          const vbt_op_t **op_p);

/* How an entry point runs a collective: NULL for the blocking call, else the nonblocking
 * (MPI_I*) or persistent (MPI_*_init, with its info) call, whose request handle goes to
 * *request. */
typedef struct {
    const char *call;
    int persistent;
    MPI_Info info;
    MPI_Request *request;
} vbt_api_nb_t;

/* Check request (and info), build the collective's schedule and start it (persistent: leave it
 * inactive), setting *nb->request. */
int vbt_api_coll_post(vbt_comm_t *c, const vbt_api_nb_t *nb, vbt_coll_kind_t kind,
                      const vbt_coll_args_t *a);

/* A collective on intercommunicator c (coll_inter.c): check args as MPI-4.1 Sec. 6.2.2 wants
 * them there (op: the handle, for the reductions; args->op is ignored), then run it (nb NULL:
 * blocking) or post it. Scans and neighbourhood collectives are refused. */
int vbt_api_coll_inter(vbt_comm_t *c, const char *call, const vbt_api_nb_t *nb,
                       vbt_coll_kind_t kind, const vbt_coll_args_t *args, MPI_Op op);
#define VBT_API_INTER(_c, _call, _nb, _kind, _op, ...)                                             \
    do {                                                                                           \
        if (unlikely(vbt_comm_is_inter(_c)))                                                       \
            return vbt_api_coll_inter((_c), (_call), (_nb), (_kind),                               \
                                      &(vbt_coll_args_t){__VA_ARGS__}, (_op));                     \
    } while (0)

/* buf/count/datatype of a collective: a valid, committed datatype, count >= 0, buf set when
 * count > 0 (unless the type's data lies at absolute addresses, for MPI_BOTTOM). MPI_IN_PLACE
 * is not a buffer: callers resolve it first. */
static inline int vbt_api_coll_check_buffer(vbt_comm_t *c, const char *call,
                                            const vbt_api_bufname_t *name, const void *buf,
                                            MPI_Count count, MPI_Datatype dt)
{
    const vbt_dtype_t *t = vbt_dtype_get(dt);

    if (unlikely(t == NULL || !t->committed || count < 0 || vbt_api_buf_null_bad(buf, count, t)))
        return vbt_api_coll_bad_buffer(c, call, name, buf, count, dt);
    return MPI_SUCCESS;
}

/* An intracommunicator's root: 0..size-1. */
static inline int vbt_api_coll_check_root(vbt_comm_t *c, const char *call, int root)
{
    if (likely(root >= 0 && root < c->size))
        return MPI_SUCCESS;
    return vbt_api_coll_bad_root(c, call, root);
}

#endif
