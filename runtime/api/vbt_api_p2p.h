/* Argument checks shared by the point-to-point entry points. Each returns MPI_SUCCESS or the
 * error class raised (through the communicator's handler) with a message naming the argument. */
#ifndef VBT_API_P2P_H
#define VBT_API_P2P_H

#include "vbt_api.h"
#include "vbt_datatype.h"
#include "vbt_p2p.h"
#include "vbt_progress.h"

#include <stddef.h>
#include <stdint.h>

/* Largest tag; MPI requires at least 32767. */
#define VBT_TAG_UB 0x3fffffff

int vbt_api_bad_buffer(vbt_comm_t *c, const char *call, const void *buf, MPI_Count count,
                       MPI_Datatype dt) __attribute__((noinline, cold));
int vbt_api_bad_rank(vbt_comm_t *c, const char *call, const char *arg, int rank, int any_ok)
    __attribute__((noinline, cold));
int vbt_api_bad_tag(vbt_comm_t *c, const char *call, int tag, int any_ok)
    __attribute__((noinline, cold));
/* Raise a failure of the implementation (a vbt_status_t) from call. */
int vbt_api_failed(vbt_comm_t *c, const char *call, vbt_status_t status)
    __attribute__((noinline, cold));

/* A buffer as the protocols take it: contiguous data as (buf, bytes) with dtype NULL, the fast
 * path; or count elements of a non-contiguous dtype at buf, bytes long once packed. */
typedef struct {
    void *buf;
    size_t bytes;
    vbt_dtype_t *dtype;
    size_t count;
} vbt_api_data_t;

/* A NULL buf is refused unless the type's data lies elsewhere (absolute addresses from
 * MPI_Get_address, used with MPI_BOTTOM). MPI_IN_PLACE and MPI_BUFFER_AUTOMATIC (1 and 2) are
 * never data (collectives resolve MPI_IN_PLACE before this): refused at the same cost. */
static inline int vbt_api_buf_null_bad(const void *buf, MPI_Count count, const vbt_dtype_t *t)
{
    return (uintptr_t)buf <= (uintptr_t)MPI_BUFFER_AUTOMATIC && count > 0 && t->size > 0 &&
           (buf != NULL || t->true_lb == 0);
}

/* buf/count/datatype for communication: a valid, committed type. count is an MPI_Count for
 * the int and the large-count (_c) calls alike; its byte length must fit a ptrdiff_t (checked
 * by a multiplication that reports overflow, not a division: no divide on the message path). */
static inline int vbt_api_check_data(vbt_comm_t *c, const char *call, const void *buf,
                                     MPI_Count count, MPI_Datatype dt, vbt_api_data_t *d)
{
    vbt_dtype_t *t = vbt_dtype_get_committed(dt);
    uint64_t bytes;

    if (unlikely(t == NULL || count < 0 || vbt_api_buf_null_bad(buf, count, t) ||
                 __builtin_mul_overflow((uint64_t)count, (uint64_t)t->size, &bytes) ||
                 bytes > PTRDIFF_MAX)) {
        *d = (vbt_api_data_t){0}; /* not used, but the compiler cannot know bad_buffer fails */
        return vbt_api_bad_buffer(c, call, buf, count, dt);
    }
    d->bytes = (size_t)bytes;
    d->count = (size_t)count;
    if (likely(t->contig)) {
        d->buf = (char *)(uintptr_t)buf + t->true_lb;
        d->dtype = NULL;
    } else {
        d->buf = (void *)(uintptr_t)buf;
        d->dtype = t;
    }
    return MPI_SUCCESS;
}

/* buf/count/datatype of contiguous data: on success *bytes_p is the buffer's length (for
 * callers that move bytes only; a non-contiguous type is refused with MPI_ERR_TYPE). */
static inline int vbt_api_check_buffer(vbt_comm_t *c, const char *call, const void *buf,
                                       MPI_Count count, MPI_Datatype dt, size_t *bytes_p)
{
    vbt_api_data_t d;
    int rc = vbt_api_check_data(c, call, buf, count, dt, &d);
    if (unlikely(rc != MPI_SUCCESS))
        return rc;
    if (unlikely(d.dtype != NULL))
        return vbt_error_raise(c, call, MPI_ERR_TYPE,
                               "argument datatype is not contiguous, which %s does not support yet",
                               call);
    *bytes_p = d.bytes;
    return MPI_SUCCESS;
}

static inline int vbt_api_check_rank(vbt_comm_t *c, const char *call, const char *arg, int rank,
                                     int any_ok)
{
    if (likely((rank >= 0 && rank < c->remote_size) || rank == MPI_PROC_NULL ||
               (any_ok && rank == MPI_ANY_SOURCE)))
        return MPI_SUCCESS;
    return vbt_api_bad_rank(c, call, arg, rank, any_ok);
}

static inline int vbt_api_check_tag(vbt_comm_t *c, const char *call, int tag, int any_ok)
{
    if (likely((tag >= 0 && tag <= VBT_TAG_UB) || (any_ok && tag == MPI_ANY_TAG)))
        return MPI_SUCCESS;
    return vbt_api_bad_tag(c, call, tag, any_ok);
}

#define VBT_API_PTR(_c, _call, _ptr, _name)                                                        \
    do {                                                                                           \
        if (unlikely((_ptr) == NULL))                                                              \
            return vbt_error_raise((_c), (_call), MPI_ERR_ARG,                                     \
                                   "argument " _name " is NULL; pass a valid address");            \
    } while (0)

/* A completed plain request (not persistent, composite or generalized): fill status, free it
 * and return its error class. The caller has entered the API and nulls its handle, if any. */
static inline int vbt_api_release_done(vbt_request_t *req, MPI_Status *status)
{
    int err = req->status_error;

    vbt_request_fill_status(req, status);
    vbt_request_release_held(req);
    return err;
}

/* Wait for one request, fill status, free it and null the handle; returns its error class. The
 * caller has entered the API (holds the critical section; the wait gives it up meanwhile). */
int vbt_api_complete(MPI_Request *request, MPI_Status *status);
/* Wait until req is complete, composite requests included (vbt_request_done). */
vbt_status_t vbt_api_wait(vbt_request_t *req);

/* The kinds from VBT_REQ_PSEND (persistent, sendrecv, partitioned, generalized): finish a
 * completed one as Wait/Test do (persistent ones go inactive and keep their handle), free,
 * cancel (p2p_persist.c); generalized requests' callbacks (greq.c). */
int vbt_api_finish_other(MPI_Request *request, MPI_Status *status);
int vbt_api_free_other(MPI_Request *request, vbt_request_t *req);
int vbt_api_cancel_other(vbt_request_t *req);
int vbt_api_greq_query(vbt_request_t *req, MPI_Status *status);
int vbt_api_greq_finish(MPI_Request *request, MPI_Status *status);
int vbt_api_greq_free(MPI_Request *request, vbt_request_t *req);
int vbt_api_greq_cancel(vbt_request_t *req);

/* The status of a null or inactive request (MPI_ERROR left alone, as by every single-completion
 * call: MPI-4.1 3.2.5). */
void vbt_api_empty_status(MPI_Status *status);
/* The multiple-completion calls' rule (MPI-4.1 3.2.5): the MPI_ERROR fields are written if and
 * only if the call returns MPI_ERR_IN_STATUS. Record err, the error of statuses[i], in order of
 * i: at the first failure the statuses before it get MPI_SUCCESS, after it each its own error.
 * Sets *any_error on a failure; statuses may be MPI_STATUSES_IGNORE. */
void vbt_api_status_error(MPI_Status statuses[], int i, int err, int *any_error);

/* Start a buffered send (copied into the buffer vbt_api_bsend_buf names); the request is
 * complete already. */
int vbt_api_bsend_start(const char *call, vbt_comm_t *c, const vbt_api_data_t *d, int dest, int tag,
                        vbt_request_t **req_p);
/* The buffer a buffered send on c uses (MPI-4.1 Sec. 3.6): c's own, else that of the session c
 * derives from, else the process's (p2p_send.c). */
struct vbt_bsend_buf *vbt_api_bsend_buf(vbt_comm_t *c);

/* p2p_buffer.c: the parts of the attach, detach and iflush calls of the process and
 * communicator buffers; errors go to c's handler (NULL: the process's calls). */
int vbt_api_check_attach(vbt_comm_t *c, const char *call, const struct vbt_bsend_buf *b,
                         void *buffer, MPI_Count size, const char *detach_call);
/* The size comes out in *size, or in *csize for the large-count (_c) calls (size NULL). */
int vbt_api_detach_buffer(vbt_comm_t *c, const char *call, struct vbt_bsend_buf *b,
                          void *buffer_addr, int *size, MPI_Count *csize);
int vbt_api_iflush_buffer(vbt_comm_t *c, const char *call, struct vbt_bsend_buf *b,
                          MPI_Request *request);
/* A communicator being freed: its buffer, if any, is detached (the buffered messages in it
 * delivered first), as MPI_Comm_detach_buffer would. */
int vbt_api_comm_detach_buffer(vbt_comm_t *c, const char *call);
/* MPI_Finalize and the last MPI_Session_finalize: deliver the process's buffered messages and
 * those of MPI_COMM_WORLD's and MPI_COMM_SELF's buffers (the World model's end: call), detach
 * those; the process's buffer is detached too when the library goes down (last). */
int vbt_api_finalize_buffers(const char *call, int world, int last);

#endif
