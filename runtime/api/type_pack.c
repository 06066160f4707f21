/* MPI_Pack, MPI_Unpack, MPI_Pack_size: the packed form is the one the protocols move (the data
 * bytes in type-map order, no header), so packed data can be sent as MPI_PACKED and received
 * with the datatype, and the other way round. */
#include "vbt_api.h"
#include "vbt_api_p2p.h"
#include "vbt_datatype.h"

#include <stdint.h>

VBT_PMPI_ALIAS(Pack)
VBT_PMPI_ALIAS(Unpack)
VBT_PMPI_ALIAS(Pack_size)

/* Common checks: comm, the type and count, position and the packed buffer. */
static int check_pack(const char *call, const void *userbuf, int count, MPI_Datatype dt,
                      const void *packbuf, int packsize, const int *position, MPI_Comm comm,
                      vbt_dtype_t **t_p)
{
    VBT_API_COMM(c, comm, call);
    *t_p = vbt_dtype_get(dt);
    if (*t_p == NULL || !(*t_p)->committed || count < 0 ||
        vbt_api_buf_null_bad(userbuf, count, *t_p))
        return vbt_api_bad_buffer(c, call, userbuf, count, dt);
    if (position == NULL)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument position is NULL; pass the address of an int");
    if (packsize < 0 || (packbuf == NULL && packsize > 0))
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "the packed buffer (%p, %d bytes) is not a buffer", packbuf,
                               packsize);
    if (*position < 0 || *position > packsize)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument position is %d, outside the %d-byte packed buffer",
                               *position, packsize);
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    const char *call = "MPI_Pack";
    vbt_dtype_t *t;
    size_t bytes;
    int rc;

    VBT_API_ENTER(call);
    rc = check_pack(call, inbuf, incount, datatype, outbuf, outsize, position, comm, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    bytes = (size_t)incount * t->size;
    if (bytes > (size_t)(outsize - *position))
        return vbt_error_raise(vbt_comm_get(comm), call, MPI_ERR_TRUNCATE,
                               "%zu bytes do not fit the %d left in outbuf after position %d "
                               "(MPI_Pack_size says how much room to give)",
                               bytes, outsize - *position, *position);
    vbt_dtype_pack(t, inbuf, (size_t)incount, 0, (char *)outbuf + *position, bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    const char *call = "MPI_Unpack";
    vbt_dtype_t *t;
    size_t bytes;
    int rc;

    VBT_API_ENTER(call);
    rc = check_pack(call, outbuf, outcount, datatype, inbuf, insize, position, comm, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    bytes = (size_t)outcount * t->size;
    if (bytes > (size_t)(insize - *position))
        return vbt_error_raise(vbt_comm_get(comm), call, MPI_ERR_TRUNCATE,
                               "%d elements need %zu bytes, but inbuf has only %d after "
                               "position %d",
                               outcount, bytes, insize - *position, *position);
    vbt_dtype_unpack(t, outbuf, (size_t)outcount, 0, (const char *)inbuf + *position, bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    const char *call = "MPI_Pack_size";
    vbt_dtype_t *t;
    size_t bytes;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    t = vbt_dtype_get(datatype);
    if (t == NULL || !t->committed || incount < 0)
        return vbt_api_bad_buffer(c, call, NULL, incount, datatype);
    VBT_API_PTR(c, call, size, "size");
    bytes = (size_t)incount * t->size;
    if (bytes > 0x7fffffff)
        return vbt_error_raise(c, call, MPI_ERR_COUNT,
                               "%d elements pack into %zu bytes, more than an int holds", incount,
                               bytes);
    *size = (int)bytes;
    return MPI_SUCCESS;
}
