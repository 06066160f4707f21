/* Sends in every mode: standard, synchronous, ready, buffered; blocking and not. */
#include "vbt_api_p2p.h"
#include "vbt_p2p_fast.h"
#include "vbt_bsend.h"
#include "vbt_session.h"

#include <limits.h>
#include <string.h>

VBT_PMPI_ALIAS(Send)
VBT_PMPI_ALIAS(Send_c)
VBT_PMPI_ALIAS(Ssend)
VBT_PMPI_ALIAS(Ssend_c)
VBT_PMPI_ALIAS(Rsend)
VBT_PMPI_ALIAS(Rsend_c)
VBT_PMPI_ALIAS(Bsend)
VBT_PMPI_ALIAS(Bsend_c)
VBT_PMPI_ALIAS(Isend)
VBT_PMPI_ALIAS(Isend_c)
VBT_PMPI_ALIAS(Issend)
VBT_PMPI_ALIAS(Issend_c)
VBT_PMPI_ALIAS(Irsend)
VBT_PMPI_ALIAS(Irsend_c)
VBT_PMPI_ALIAS(Ibsend)
VBT_PMPI_ALIAS(Ibsend_c)

/* Check the arguments and start the send; blocking callers then wait on *req_p. The caller
 * has entered the API (VBT_API_ENTER): the critical section is held for the whole call, so the
 * engine's functions are called in their _held forms. */
static VBT_ALWAYS_INLINE int start_send(const char *call, const void *buf, MPI_Count count,
                                        MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                                        unsigned flags, int blocking, vbt_request_t **req_p)
{
    vbt_api_data_t d;
    vbt_status_t st;

    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(vbt_api_check_data(c, call, buf, count, dt, &d));
    VBT_API_CHECK(vbt_api_check_rank(c, call, "dest", dest, 0));
    VBT_API_CHECK(vbt_api_check_tag(c, call, tag, 0));
    if (blocking && likely(d.dtype == NULL && flags == 0)) /* *req_p NULL: sent already */
        st = vbt_p2p_send_contig(c, VBT_CTX_P2P, d.buf, d.bytes, dest, tag, req_p);
    else if (blocking)
        st = vbt_p2p_send_held(c, VBT_CTX_P2P, d.buf, d.bytes, d.dtype, d.count, dest, tag, flags,
                               req_p);
    else
        st = vbt_p2p_isend_held(c, VBT_CTX_P2P, d.buf, d.bytes, d.dtype, d.count, dest, tag, flags,
                                req_p);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

static VBT_ALWAYS_INLINE int blocking_send(const char *call, const void *buf, MPI_Count count,
                                           MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                                           unsigned flags)
{
    vbt_request_t *req;
    MPI_Request handle;
    int rc;

    VBT_API_ENTER(call);
    rc = start_send(call, buf, count, dt, dest, tag, comm, flags, 1, &req);
    if (unlikely(rc != MPI_SUCCESS) || likely(req == NULL))
        return rc;
    if (likely(req->complete)) { /* eager: already with the transport */
        rc = req->status_error;
        vbt_request_release_held(req);
        return likely(rc == MPI_SUCCESS)
                   ? rc
                   : vbt_error_raise(vbt_comm_get(comm), call, rc, "send failed");
    }
    handle = (MPI_Request)req;
    rc = vbt_api_complete(&handle, MPI_STATUS_IGNORE);
    return likely(rc == MPI_SUCCESS) ? rc
                                     : vbt_error_raise(vbt_comm_get(comm), call, rc, "send failed");
}

static VBT_ALWAYS_INLINE int nonblocking_send(const char *call, const void *buf, MPI_Count count,
                                              MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                                              unsigned flags, MPI_Request *request)
{
    vbt_request_t *req;
    int rc;

    if (unlikely(request == NULL))
        return vbt_error_raise(vbt_comm_get(comm), call, MPI_ERR_ARG,
                               "argument request is NULL; pass the address of an MPI_Request");
    VBT_API_ENTER(call);
    rc = start_send(call, buf, count, dt, dest, tag, comm, flags, 0, &req);
    if (likely(rc == MPI_SUCCESS))
        *request = (MPI_Request)req;
    return rc;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return blocking_send("MPI_Send", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    return blocking_send("MPI_Send_c", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return blocking_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, VBT_REQF_SYNC);
}

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return blocking_send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, VBT_REQF_SYNC);
}

/* A ready send may assume the receive is posted; sending it as a standard send is correct. */
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return blocking_send("MPI_Rsend", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return blocking_send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, 0);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return nonblocking_send("MPI_Isend", buf, count, datatype, dest, tag, comm, 0, request);
}

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send("MPI_Isend_c", buf, count, datatype, dest, tag, comm, 0, request);
}

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return nonblocking_send("MPI_Issend", buf, count, datatype, dest, tag, comm, VBT_REQF_SYNC,
                            request);
}

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send("MPI_Issend_c", buf, count, datatype, dest, tag, comm, VBT_REQF_SYNC,
                            request);
}

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return nonblocking_send("MPI_Irsend", buf, count, datatype, dest, tag, comm, 0, request);
}

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, 0, request);
}

/* The buffer a buffered send on c uses (MPI-4.1 Sec. 3.6): c's own, else that of the session c
 * derives from, else the process's. */
vbt_bsend_buf_t *vbt_api_bsend_buf(vbt_comm_t *c)
{
    vbt_session_t *s;

    if (c->bsend.attached)
        return &c->bsend;
    s = vbt_session_get(c->session);
    if (s != NULL && s->bsend.attached)
        return &s->bsend;
    return &vbt_rt.bsend;
}

static int __attribute__((noinline, cold))
no_room(const char *call, vbt_comm_t *c, const vbt_bsend_buf_t *b, size_t bytes, size_t largest)
{
    const char *whose = b == &c->bsend       ? "the communicator's"
                        : b == &vbt_rt.bsend ? "the process's"
                                             : "the session's";

    if (!b->attached)
        return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                               "no buffer is attached (to %s, its session or the process): call "
                               "MPI_Buffer_attach, MPI_Comm_attach_buffer or "
                               "MPI_Session_attach_buffer with room for %zu bytes plus "
                               "MPI_BSEND_OVERHEAD per message, or with MPI_BUFFER_AUTOMATIC",
                               c->name, bytes);
    if (b->automatic)
        return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                               "out of memory for a copy of %zu bytes in %s automatic buffer",
                               bytes, whose);
    return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                           "%s attached buffer (%zu bytes) has no room for %zu bytes (largest "
                           "free block %zu): attach a larger buffer or MPI_BUFFER_AUTOMATIC, or "
                           "wait for earlier buffered sends (MPI_Buffer_flush & co)",
                           whose, b->size, bytes, largest);
}

/* Buffered: copy into the buffer and send from there; the caller's request completes at once,
 * the internal one gives the block back when the data has left. */
static int buffered_send_data(const char *call, vbt_comm_t *c, const vbt_api_data_t *dp, int dest,
                              int tag, MPI_Request *request)
{
    vbt_request_t *req, *done;
    size_t bytes = dp->bytes, largest = 0;
    vbt_api_data_t d = *dp;
    void *block;
    vbt_status_t st;

    if (dest == MPI_PROC_NULL) {
        block = NULL;
    } else {
        vbt_bsend_buf_t *b = vbt_api_bsend_buf(c);

        block = vbt_bsend_alloc(b, bytes, &largest);
        if (block == NULL)
            return no_room(call, c, b, bytes, largest);
        /* Packed: the buffer holds the message as it goes on the wire. */
        if (d.dtype == NULL)
            memcpy(block, d.buf, bytes);
        else
            vbt_dtype_pack(d.dtype, d.buf, d.count, 0, block, bytes);
    }
    st = vbt_p2p_isend(c, VBT_CTX_P2P, block, bytes, dest, tag, 0, &req);
    if (unlikely(st != VBT_OK)) {
        if (block != NULL)
            vbt_bsend_release(block);
        return vbt_api_failed(c, call, st);
    }
    if (req->complete) {
        if (block != NULL)
            vbt_bsend_release(block);
        vbt_request_release(req);
    } else {
        req->bsend_block = block;
        req->flags |= VBT_REQF_BSEND | VBT_REQF_FREED;
    }
    if (request != NULL) {
        /* The caller's request is complete already: the data is in our buffer. */
        done = vbt_request_alloc(VBT_REQ_SEND);
        if (done == NULL)
            return vbt_api_failed(c, call, VBT_ERR_NO_MEMORY);
        done->comm = c;
        done->complete = 1;
        *request = (MPI_Request)done;
    }
    return MPI_SUCCESS;
}

static int buffered_send(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt,
                         int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_data_t d;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(vbt_api_check_data(c, call, buf, count, dt, &d));
    VBT_API_CHECK(vbt_api_check_rank(c, call, "dest", dest, 0));
    VBT_API_CHECK(vbt_api_check_tag(c, call, tag, 0));
    return buffered_send_data(call, c, &d, dest, tag, request);
}

int vbt_api_bsend_start(const char *call, vbt_comm_t *c, const vbt_api_data_t *d, int dest, int tag,
                        vbt_request_t **req_p)
{
    MPI_Request handle;
    int rc = buffered_send_data(call, c, d, dest, tag, &handle);

    if (rc == MPI_SUCCESS)
        *req_p = vbt_request_of(handle);
    return rc;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return buffered_send("MPI_Bsend", buf, count, datatype, dest, tag, comm, NULL);
}

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return buffered_send("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, NULL);
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    if (request == NULL)
        return vbt_error_raise(vbt_comm_get(comm), "MPI_Ibsend", MPI_ERR_ARG,
                               "argument request is NULL; pass the address of an MPI_Request");
    return buffered_send("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    if (request == NULL)
        return vbt_error_raise(vbt_comm_get(comm), "MPI_Ibsend_c", MPI_ERR_ARG,
                               "argument request is NULL; pass the address of an MPI_Request");
    return buffered_send("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request);
}
