/* Receives, the combined send-receive calls, and probes (plain and matched). */
#include "vbt_api_p2p.h"
#include "vbt_p2p_fast.h"
#include "vbt_message.h"

#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(Recv)
VBT_PMPI_ALIAS(Recv_c)
VBT_PMPI_ALIAS(Irecv)
VBT_PMPI_ALIAS(Irecv_c)
VBT_PMPI_ALIAS(Sendrecv)
VBT_PMPI_ALIAS(Sendrecv_c)
VBT_PMPI_ALIAS(Sendrecv_replace)
VBT_PMPI_ALIAS(Sendrecv_replace_c)
VBT_PMPI_ALIAS(Probe)
VBT_PMPI_ALIAS(Iprobe)
VBT_PMPI_ALIAS(Mprobe)
VBT_PMPI_ALIAS(Improbe)
VBT_PMPI_ALIAS(Mrecv)
VBT_PMPI_ALIAS(Mrecv_c)
VBT_PMPI_ALIAS(Imrecv)
VBT_PMPI_ALIAS(Imrecv_c)

/* A receive's arguments checked: the communicator in *c_p, the buffer in *d. */
static VBT_ALWAYS_INLINE int check_recv(const char *call, void *buf, MPI_Count count,
                                        MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                                        vbt_comm_t **c_p, vbt_api_data_t *d)
{
    vbt_comm_t *c = vbt_comm_get(comm);

    *c_p = c;
    if (unlikely(c == NULL)) {
        *d = (vbt_api_data_t){0}; /* not used, but the compiler cannot know bad_comm fails */
        return vbt_api_bad_comm(call, comm);
    }
    VBT_API_CHECK(vbt_api_check_data(c, call, buf, count, dt, d));
    VBT_API_CHECK(vbt_api_check_rank(c, call, "source", source, 1));
    VBT_API_CHECK(vbt_api_check_tag(c, call, tag, 1));
    return MPI_SUCCESS;
}

/* Post a receive of non-contiguous data whose arguments were checked. */
static int post_dt(const char *call, vbt_comm_t *c, const vbt_api_data_t *d, int source, int tag,
                   vbt_request_t **req_p)
{
    vbt_status_t st = vbt_p2p_irecv_held(c, VBT_CTX_P2P, d->buf, d->bytes, d->dtype, d->count,
                                         source, tag, req_p);

    return unlikely(st != VBT_OK) ? vbt_api_failed(c, call, st) : MPI_SUCCESS;
}

/* The caller has entered the API (VBT_API_ENTER): the critical section is held for the whole
 * call, the wait included (which gives it up while it spins or sleeps). */
static VBT_ALWAYS_INLINE int start_recv(const char *call, void *buf, MPI_Count count,
                                        MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                                        vbt_request_t **req_p)
{
    vbt_api_data_t d;
    vbt_comm_t *c;
    int rc = check_recv(call, buf, count, dt, source, tag, comm, &c, &d);

    if (unlikely(rc != MPI_SUCCESS))
        return rc;
    if (likely(d.dtype == NULL)) {
        *req_p = vbt_p2p_irecv_contig(c, d.buf, d.bytes, source, tag);
        if (unlikely(*req_p == NULL))
            return vbt_api_failed(c, call, VBT_ERR_NO_MEMORY);
        return MPI_SUCCESS;
    }
    return post_dt(call, c, &d, source, tag, req_p);
}

static VBT_NOINLINE_COLD int recv_failed(const char *call, vbt_comm_t *c, size_t capacity, int rc)
{
    if (rc == MPI_ERR_TRUNCATE)
        return vbt_error_raise(c, call, rc,
                               "the message is longer than the %zu-byte receive buffer; the "
                               "buffer holds its first %zu bytes, nothing beyond was written",
                               capacity, capacity);
    return vbt_error_raise(c, call, rc, "receive failed");
}

/* A completed receive: fill status, release it and report truncation through the
 * communicator's handler. req is a plain receive (never a composite request), so this is
 * vbt_api_complete's own path without its dispatch. The caller has entered the API. */
static VBT_ALWAYS_INLINE int done_recv(const char *call, vbt_request_t *req, MPI_Status *status)
{
    vbt_comm_t *c = req->comm;
    size_t capacity = req->bytes;
    int rc = vbt_api_release_done(req, status);

    if (likely(rc == MPI_SUCCESS))
        return rc;
    return recv_failed(call, c, capacity, rc);
}

/* Wait for a receive, then done_recv. */
static VBT_ALWAYS_INLINE int finish_recv(const char *call, vbt_request_t *req, MPI_Status *status)
{
    vbt_status_t st = vbt_p2p_wait_flag(&req->complete);

    if (unlikely(st != VBT_OK))
        return vbt_api_failed(req->comm, call, st);
    return done_recv(call, req, status);
}

/* A contiguous receive is posted and waited for in one call of the engine. */
static VBT_ALWAYS_INLINE int recv_impl(const char *call, void *buf, MPI_Count count,
                                       MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                       MPI_Status *status)
{
    vbt_api_data_t d;
    vbt_request_t *req;
    vbt_comm_t *c;
    vbt_status_t st;
    int rc;

    VBT_API_ENTER(call);
    rc = check_recv(call, buf, count, datatype, source, tag, comm, &c, &d);
    if (unlikely(rc != MPI_SUCCESS))
        return rc;
    if (likely(d.dtype == NULL)) {
        st = vbt_p2p_recv_contig(c, d.buf, d.bytes, source, tag, &req);
        if (unlikely(st != VBT_OK))
            return vbt_api_failed(c, call, st);
        return done_recv(call, req, status);
    }
    rc = post_dt(call, c, &d, source, tag, &req);
    if (unlikely(rc != MPI_SUCCESS))
        return rc;
    return finish_recv(call, req, status);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return recv_impl("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    return recv_impl("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

static int irecv_impl(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    vbt_request_t *req;
    int rc;

    if (unlikely(request == NULL))
        return vbt_error_raise(vbt_comm_get(comm), call, MPI_ERR_ARG,
                               "argument request is NULL; pass the address of an MPI_Request");
    VBT_API_ENTER(call);
    rc = start_recv(call, buf, count, datatype, source, tag, comm, &req);
    if (likely(rc == MPI_SUCCESS))
        *request = (MPI_Request)req;
    return rc;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return irecv_impl("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return irecv_impl("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}

static int sendrecv_impl(const char *call, const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status)
{
    MPI_Request sreq;
    vbt_request_t *rreq;
    int rc, src;

    VBT_API_ENTER(call);
    /* Post the receive first so a matching send from a peer doing the same never waits. */
    rc = start_recv(call, recvbuf, recvcount, recvtype, source, recvtag, comm, &rreq);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Isend_c(sendbuf, sendcount, sendtype, dest, sendtag, comm, &sreq);
    if (rc != MPI_SUCCESS) {
        vbt_p2p_cancel(rreq);
        vbt_request_release(rreq);
        return rc;
    }
    rc = finish_recv(call, rreq, status);
    src = PMPI_Wait(&sreq, MPI_STATUS_IGNORE);
    return rc != MPI_SUCCESS ? rc : src;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_impl("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, status);
}

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_impl("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, status);
}

static int sendrecv_replace_impl(const char *call, void *buf, MPI_Count count,
                                 MPI_Datatype datatype, int dest, int sendtag, int source,
                                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    vbt_api_data_t d;
    size_t bytes;
    void *tmp;
    int rc;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(vbt_api_check_data(c, call, buf, count, datatype, &d));
    bytes = d.bytes;
    /* The outgoing data must survive until sent while the incoming lands in buf: a packed
     * copy, sent as bytes (the same type signature on the wire). */
    tmp = malloc(bytes ? bytes : 1);
    if (tmp == NULL)
        return vbt_error_raise(c, call, MPI_ERR_NO_MEM, "no memory for a %zu-byte copy", bytes);
    if (d.dtype == NULL)
        memcpy(tmp, d.buf, bytes);
    else
        vbt_dtype_pack(d.dtype, d.buf, d.count, 0, tmp, bytes);
    rc = sendrecv_impl(call, tmp, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                       source, recvtag, comm, status);
    free(tmp);
    return rc;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace_impl("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag,
                                 source, recvtag, comm, status);
}

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace_impl("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag,
                                 source, recvtag, comm, status);
}

static void fill_probe_status(const vbt_unexp_t *u, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = u->src;
    status->MPI_TAG = u->tag;
    vbt_status_set_bytes(status, u->len, 0);
}

static void fill_proc_null_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    vbt_status_set_bytes(status, 0, 0);
}

/* The common part of the four probes: check, then look once or until found. */
static int probe(const char *call, int source, int tag, MPI_Comm comm, int blocking, int take,
                 int *flag, MPI_Message *message, MPI_Status *status)
{
    vbt_unexp_t *u;
    vbt_message_t *m = NULL;
    vbt_status_t st;
    vbt_backoff_t backoff;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(vbt_api_check_rank(c, call, "source", source, 1));
    VBT_API_CHECK(vbt_api_check_tag(c, call, tag, 1));
    if (!blocking)
        VBT_API_PTR(c, call, flag, "flag");
    if (take)
        VBT_API_PTR(c, call, message, "message");
    if (source == MPI_PROC_NULL) {
        fill_proc_null_status(status);
        if (flag)
            *flag = 1;
        if (take)
            *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    if (take && (m = vbt_message_alloc()) == NULL)
        return vbt_api_failed(c, call, VBT_ERR_NO_MEMORY);
    vbt_backoff_init(&backoff);
    for (;;) {
        st = vbt_p2p_iprobe(c, VBT_CTX_P2P, source, tag, take, &u);
        if (st != VBT_OK) {
            if (m != NULL)
                vbt_message_free(m);
            return vbt_api_failed(c, call, st);
        }
        if (u != NULL || !blocking)
            break;
        vbt_p2p_idle(&backoff);
    }
    if (!blocking)
        vbt_p2p_polled(u != NULL);
    if (flag)
        *flag = u != NULL;
    if (u == NULL) {
        if (take) {
            vbt_message_free(m);
            *message = MPI_MESSAGE_NULL;
        }
        return MPI_SUCCESS;
    }
    fill_probe_status(u, status);
    if (take)
        *message = vbt_message_set(m, c, u);
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe("MPI_Probe", source, tag, comm, 1, 0, NULL, NULL, status);
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe("MPI_Iprobe", source, tag, comm, 0, 0, flag, NULL, status);
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe("MPI_Mprobe", source, tag, comm, 1, 1, NULL, message, status);
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    return probe("MPI_Improbe", source, tag, comm, 0, 1, flag, message, status);
}

/* The caller has entered the API, as for start_recv. */
static int start_mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype dt,
                       MPI_Message *message, vbt_request_t **req_p)
{
    vbt_message_t *m;
    vbt_unexp_t *u;
    vbt_comm_t *c;
    vbt_api_data_t d;
    vbt_status_t st;

    VBT_API_PTR(NULL, call, message, "message");
    if (*message == MPI_MESSAGE_NO_PROC) {
        st = vbt_p2p_irecv(&vbt_comm_self, VBT_CTX_P2P, buf, 0, MPI_PROC_NULL, 0, req_p);
        *message = MPI_MESSAGE_NULL;
        return st == VBT_OK ? MPI_SUCCESS : vbt_api_failed(NULL, call, st);
    }
    m = vbt_message_get(*message);
    if (m == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_REQUEST,
                               "argument message is not a message returned by MPI_Mprobe or "
                               "MPI_Improbe (each can be received once)");
    VBT_API_CHECK(vbt_api_check_data(m->comm, call, buf, count, dt, &d));
    u = m->unexp;
    c = m->comm;
    vbt_message_free(m);
    *message = MPI_MESSAGE_NULL;
    if (likely(d.dtype == NULL))
        st = vbt_p2p_imrecv(c, u, d.buf, d.bytes, req_p);
    else
        st = vbt_p2p_imrecv_dt(c, u, d.buf, d.bytes, d.dtype, d.count, req_p);
    if (st != VBT_OK)
        return vbt_api_failed(NULL, call, st);
    return MPI_SUCCESS;
}

static int mrecv_impl(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Message *message, MPI_Status *status)
{
    vbt_request_t *req;
    int rc;

    VBT_API_ENTER(call); /* to the end: finish_recv releases the request */
    rc = start_mrecv(call, buf, count, datatype, message, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return finish_recv(call, req, status);
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    return mrecv_impl("MPI_Mrecv", buf, count, datatype, message, status);
}

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    return mrecv_impl("MPI_Mrecv_c", buf, count, datatype, message, status);
}

static int imrecv_impl(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Message *message, MPI_Request *request)
{
    vbt_request_t *req;
    int rc;

    if (request == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG, "argument request is NULL");
    VBT_API_ENTER(call);
    rc = start_mrecv(call, buf, count, datatype, message, &req);
    if (rc == MPI_SUCCESS)
        *request = (MPI_Request)req;
    return rc;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    return imrecv_impl("MPI_Imrecv", buf, count, datatype, message, request);
}

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    return imrecv_impl("MPI_Imrecv_c", buf, count, datatype, message, request);
}
