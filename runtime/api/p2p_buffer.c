/* The buffers of buffered-mode sends (MPI-4.1 Sec. 3.6), of the process (MPI_Buffer_*) and of a
 * communicator (MPI_Comm_*_buffer): attach, detach, flush and iflush. The session's calls are in
 * session.c, on the same vbt_bsend_buf_t (vbt_bsend.h). A buffer is the user's memory or
 * MPI_BUFFER_AUTOMATIC; detach and flush wait until the buffered messages have left; a
 * communicator freed with a buffer attached detaches it first (vbt_api_comm_detach_buffer). */
#include "vbt_api_p2p.h"
#include "vbt_bsend.h"

#include <limits.h>

VBT_PMPI_ALIAS(Buffer_attach)
VBT_PMPI_ALIAS(Buffer_detach)
VBT_PMPI_ALIAS(Buffer_flush)
VBT_PMPI_ALIAS(Buffer_iflush)
VBT_PMPI_ALIAS(Comm_attach_buffer)
VBT_PMPI_ALIAS(Comm_detach_buffer)
VBT_PMPI_ALIAS(Comm_flush_buffer)
VBT_PMPI_ALIAS(Comm_iflush_buffer)
VBT_PMPI_ALIAS(Buffer_attach_c)
VBT_PMPI_ALIAS(Buffer_detach_c)
VBT_PMPI_ALIAS(Comm_attach_buffer_c)
VBT_PMPI_ALIAS(Comm_detach_buffer_c)

int vbt_api_check_attach(vbt_comm_t *c, const char *call, const vbt_bsend_buf_t *b, void *buffer,
                         MPI_Count size, const char *detach_call)
{
    if (buffer == MPI_BUFFER_AUTOMATIC) /* size is ignored */
        ;
    else if (size < 0)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument size is %lld; pass the buffer's size in bytes (0 or "
                               "more), or MPI_BUFFER_AUTOMATIC as buffer",
                               (long long)size);
    else if (buffer == NULL && size > 0)
        return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                               "argument buffer is NULL with size %lld; pass the buffer's address",
                               (long long)size);
    if (b->attached)
        return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                               "a buffer (%s) is attached already: call %s first",
                               b->automatic ? "MPI_BUFFER_AUTOMATIC" : "the user's", detach_call);
    return MPI_SUCCESS;
}

int vbt_api_detach_buffer(vbt_comm_t *c, const char *call, vbt_bsend_buf_t *b, void *buffer_addr,
                          int *size, MPI_Count *csize)
{
    void *buf;
    size_t sz;
    vbt_status_t st;

    VBT_API_PTR(c, call, buffer_addr, "buffer_addr");
    if (size == NULL && csize == NULL)
        return vbt_error_raise(c, call, MPI_ERR_ARG, "argument size is NULL; pass a valid address");
    if (!b->attached)
        return vbt_error_raise(c, call, MPI_ERR_BUFFER, "no buffer is attached");
    st = vbt_bsend_detach(b, &buf, &sz);
    if (st != VBT_OK)
        return vbt_api_failed(c, call, st);
    *(void **)buffer_addr = buf;
    if (size != NULL) /* INT_MAX only when attached by a _c call with more */
        *size = sz > INT_MAX ? INT_MAX : (int)sz;
    else
        *csize = (MPI_Count)sz;
    return MPI_SUCCESS;
}

int vbt_api_iflush_buffer(vbt_comm_t *c, const char *call, vbt_bsend_buf_t *b, MPI_Request *request)
{
    vbt_request_t *req;
    vbt_status_t st;

    VBT_API_PTR(c, call, request, "request");
    st = vbt_bsend_iflush(b, c, &req);
    if (st != VBT_OK)
        return vbt_api_failed(c, call, st);
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

int vbt_api_comm_detach_buffer(vbt_comm_t *c, const char *call)
{
    void *buf;
    size_t sz;
    vbt_status_t st;

    if (!c->bsend.attached)
        return MPI_SUCCESS;
    st = vbt_bsend_detach(&c->bsend, &buf, &sz);
    return st == VBT_OK ? MPI_SUCCESS : vbt_api_failed(c, call, st);
}

int vbt_api_finalize_buffers(const char *call, int world, int last)
{
    void *buf;
    size_t sz;
    vbt_status_t st = VBT_OK;

    if (world) {
        VBT_API_CHECK(vbt_api_comm_detach_buffer(&vbt_comm_world, call));
        VBT_API_CHECK(vbt_api_comm_detach_buffer(&vbt_comm_self, call));
    }
    if (last && vbt_rt.bsend.attached)
        st = vbt_bsend_detach(&vbt_rt.bsend, &buf, &sz);
    else
        st = vbt_bsend_flush(&vbt_rt.bsend);
    return st == VBT_OK ? MPI_SUCCESS : vbt_api_failed(NULL, call, st);
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    VBT_API_ENTER("MPI_Buffer_attach");
    VBT_API_CHECK(vbt_api_check_attach(NULL, "MPI_Buffer_attach", &vbt_rt.bsend, buffer, size,
                                       "MPI_Buffer_detach"));
    vbt_bsend_attach(&vbt_rt.bsend, buffer, (size_t)(size > 0 ? size : 0));
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    VBT_API_ENTER("MPI_Buffer_detach");
    return vbt_api_detach_buffer(NULL, "MPI_Buffer_detach", &vbt_rt.bsend, buffer_addr, size, NULL);
}

int PMPI_Buffer_flush(void)
{
    vbt_status_t st;

    VBT_API_ENTER("MPI_Buffer_flush");
    st = vbt_bsend_flush(&vbt_rt.bsend);
    return st == VBT_OK ? MPI_SUCCESS : vbt_api_failed(NULL, "MPI_Buffer_flush", st);
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
    VBT_API_ENTER("MPI_Buffer_iflush");
    return vbt_api_iflush_buffer(NULL, "MPI_Buffer_iflush", &vbt_rt.bsend, request);
}

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    VBT_API_ENTER("MPI_Comm_attach_buffer");
    VBT_API_COMM(c, comm, "MPI_Comm_attach_buffer");
    VBT_API_CHECK(vbt_api_check_attach(c, "MPI_Comm_attach_buffer", &c->bsend, buffer, size,
                                       "MPI_Comm_detach_buffer"));
    vbt_bsend_attach(&c->bsend, buffer, (size_t)(size > 0 ? size : 0));
    return MPI_SUCCESS;
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    VBT_API_ENTER("MPI_Comm_detach_buffer");
    VBT_API_COMM(c, comm, "MPI_Comm_detach_buffer");
    return vbt_api_detach_buffer(c, "MPI_Comm_detach_buffer", &c->bsend, buffer_addr, size, NULL);
}

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    vbt_status_t st;

    VBT_API_ENTER("MPI_Comm_flush_buffer");
    VBT_API_COMM(c, comm, "MPI_Comm_flush_buffer");
    st = vbt_bsend_flush(&c->bsend);
    return st == VBT_OK ? MPI_SUCCESS : vbt_api_failed(c, "MPI_Comm_flush_buffer", st);
}

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    VBT_API_ENTER("MPI_Comm_iflush_buffer");
    VBT_API_COMM(c, comm, "MPI_Comm_iflush_buffer");
    return vbt_api_iflush_buffer(c, "MPI_Comm_iflush_buffer", &c->bsend, request);
}

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    VBT_API_ENTER("MPI_Buffer_attach_c");
    VBT_API_CHECK(vbt_api_check_attach(NULL, "MPI_Buffer_attach_c", &vbt_rt.bsend, buffer, size,
                                       "MPI_Buffer_detach_c"));
    vbt_bsend_attach(&vbt_rt.bsend, buffer, (size_t)(size > 0 ? size : 0));
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    VBT_API_ENTER("MPI_Buffer_detach_c");
    return vbt_api_detach_buffer(NULL, "MPI_Buffer_detach_c", &vbt_rt.bsend, buffer_addr, NULL,
                                 size);
}

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    VBT_API_ENTER("MPI_Comm_attach_buffer_c");
    VBT_API_COMM(c, comm, "MPI_Comm_attach_buffer_c");
    VBT_API_CHECK(vbt_api_check_attach(c, "MPI_Comm_attach_buffer_c", &c->bsend, buffer, size,
                                       "MPI_Comm_detach_buffer_c"));
    vbt_bsend_attach(&c->bsend, buffer, (size_t)(size > 0 ? size : 0));
    return MPI_SUCCESS;
}

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    VBT_API_ENTER("MPI_Comm_detach_buffer_c");
    VBT_API_COMM(c, comm, "MPI_Comm_detach_buffer_c");
    return vbt_api_detach_buffer(c, "MPI_Comm_detach_buffer_c", &c->bsend, buffer_addr, NULL, size);
}
