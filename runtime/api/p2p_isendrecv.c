/* MPI_Isendrecv and MPI_Isendrecv_replace: one request of its own kind (VBT_REQ_SENDRECV) over
 * a receive and a send, complete when both are (vbt_request_poll.c). The status is the
 * receive's. */
#include "vbt_api_p2p.h"

#include <stdlib.h>
#include <string.h>

VBT_PMPI_ALIAS(Isendrecv)
VBT_PMPI_ALIAS(Isendrecv_c)
VBT_PMPI_ALIAS(Isendrecv_replace)
VBT_PMPI_ALIAS(Isendrecv_replace_c)

static vbt_status_t post_recv(vbt_comm_t *c, const vbt_api_data_t *d, int source, int tag,
                              vbt_request_t **req_p)
{
    if (d->dtype == NULL)
        return vbt_p2p_irecv(c, VBT_CTX_P2P, d->buf, d->bytes, source, tag, req_p);
    return vbt_p2p_irecv_dt(c, VBT_CTX_P2P, d->buf, d->bytes, d->dtype, d->count, source, tag,
                            req_p);
}

/* Receive (posted first, so that a peer doing the same never waits on us) and send under one
 * request. tmp: the send's data is a packed copy that the send request frees. */
static int start_pair(const char *call, vbt_comm_t *c, const vbt_api_data_t *sd, int dest,
                      int sendtag, const vbt_api_data_t *rd, int source, int recvtag, void *tmp,
                      MPI_Request *request)
{
    vbt_request_t *req = vbt_request_alloc(VBT_REQ_SENDRECV), *s = NULL, *r = NULL;
    vbt_status_t st;

    if (req == NULL) {
        free(tmp);
        return vbt_api_failed(c, call, VBT_ERR_NO_MEMORY);
    }
    st = post_recv(c, rd, source, recvtag, &r);
    if (st != VBT_OK)
        goto err_release;
    if (sd->dtype == NULL)
        st = vbt_p2p_isend(c, VBT_CTX_P2P, sd->buf, sd->bytes, dest, sendtag, 0, &s);
    else
        st = vbt_p2p_isend_dt(c, VBT_CTX_P2P, sd->buf, sd->bytes, sd->dtype, sd->count, dest,
                              sendtag, 0, &s);
    if (st != VBT_OK)
        goto err_cancel;
    if (tmp != NULL) {
        s->bsend_block = tmp;
        s->flags |= VBT_REQF_TMPBUF;
    }
    req->comm = c;
    req->x.child[0] = s;
    req->x.child[1] = r;
    *request = (MPI_Request)req;
    return MPI_SUCCESS;

err_cancel:
    vbt_p2p_cancel(r);
    if (r->complete)
        vbt_request_release(r);
    else
        r->flags |= VBT_REQF_FREED;
err_release:
    free(tmp);
    vbt_request_release(req);
    return vbt_api_failed(c, call, st);
}

static int isendrecv_impl(const char *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Request *request)
{
    vbt_api_data_t sd, rd;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_PTR(c, call, request, "request");
    VBT_API_CHECK(vbt_api_check_data(c, call, sendbuf, sendcount, sendtype, &sd));
    VBT_API_CHECK(vbt_api_check_data(c, call, recvbuf, recvcount, recvtype, &rd));
    VBT_API_CHECK(vbt_api_check_rank(c, call, "dest", dest, 0));
    VBT_API_CHECK(vbt_api_check_rank(c, call, "source", source, 1));
    VBT_API_CHECK(vbt_api_check_tag(c, call, sendtag, 0));
    VBT_API_CHECK(vbt_api_check_tag(c, call, recvtag, 1));
    return start_pair(call, c, &sd, dest, sendtag, &rd, source, recvtag, NULL, request);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    return isendrecv_impl("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                          recvcount, recvtype, source, recvtag, comm, request);
}

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv_impl("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                          recvcount, recvtype, source, recvtag, comm, request);
}

/* The outgoing data is packed first (sent as bytes: the same type signature on the wire), so
 * the receive lands in buf directly and nothing of buf is overwritten before it is sent. */
static int isendrecv_replace_impl(const char *call, void *buf, MPI_Count count,
                                  MPI_Datatype datatype, int dest, int sendtag, int source,
                                  int recvtag, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_data_t d, sd;
    void *tmp = NULL;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_PTR(c, call, request, "request");
    VBT_API_CHECK(vbt_api_check_data(c, call, buf, count, datatype, &d));
    VBT_API_CHECK(vbt_api_check_rank(c, call, "dest", dest, 0));
    VBT_API_CHECK(vbt_api_check_rank(c, call, "source", source, 1));
    VBT_API_CHECK(vbt_api_check_tag(c, call, sendtag, 0));
    VBT_API_CHECK(vbt_api_check_tag(c, call, recvtag, 1));
    sd = (vbt_api_data_t){NULL, d.bytes, NULL, d.bytes};
    if (dest != MPI_PROC_NULL && d.bytes > 0) {
        tmp = malloc(d.bytes);
        if (tmp == NULL)
            return vbt_error_raise(c, call, MPI_ERR_NO_MEM, "no memory for a %zu-byte copy",
                                   d.bytes);
        if (d.dtype == NULL)
            memcpy(tmp, d.buf, d.bytes);
        else
            vbt_dtype_pack(d.dtype, d.buf, d.count, 0, tmp, d.bytes);
        sd.buf = tmp;
    }
    return start_pair(call, c, &sd, dest, sendtag, &d, source, recvtag, tmp, request);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv_replace_impl("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag,
                                  source, recvtag, comm, request);
}

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    return isendrecv_replace_impl("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag,
                                  source, recvtag, comm, request);
}
