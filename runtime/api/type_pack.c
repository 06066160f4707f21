/* MPI_Pack, MPI_Unpack, MPI_Pack_size: the packed form is the one the protocols move (the data
 * bytes in type-map order, no header), so packed data can be sent as MPI_PACKED and received
 * with the datatype, and the other way round. */
#include "vbt_api.h"
#include "vbt_api_p2p.h"
#include "vbt_datatype.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

VBT_PMPI_ALIAS(Pack)
VBT_PMPI_ALIAS(Pack_c)
VBT_PMPI_ALIAS(Unpack)
VBT_PMPI_ALIAS(Unpack_c)
VBT_PMPI_ALIAS(Pack_size)
VBT_PMPI_ALIAS(Pack_size_c)

/* Common checks: comm, the type and count, position and the packed buffer. The int and the
 * _c calls share one implementation on MPI_Count; the int ones pass their int position in and
 * out through pos_in (NULL for a NULL position). */
static int check_pack(const char *call, const void *userbuf, MPI_Count count, MPI_Datatype dt,
                      const void *packbuf, MPI_Count packsize, const void *position, MPI_Count pos,
                      MPI_Comm comm, vbt_dtype_t **t_p)
{
    VBT_API_COMM(c, comm, call);
    *t_p = vbt_dtype_get(dt);
    if (*t_p == NULL || !(*t_p)->committed || count < 0 ||
        vbt_api_buf_null_bad(userbuf, count, *t_p) ||
        ((*t_p)->size > 0 && (uint64_t)count > PTRDIFF_MAX / (*t_p)->size))
        return vbt_api_bad_buffer(c, call, userbuf, count, dt);
    if (position == NULL)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument position is NULL; pass the address of an integer");
    if (packsize < 0 || (packbuf == NULL && packsize > 0))
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "the packed buffer (%p, %lld bytes) is not a buffer", packbuf,
                               (long long)packsize);
    if (pos < 0 || pos > packsize)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument position is %lld, outside the %lld-byte packed buffer",
                               (long long)pos, (long long)packsize);
    return MPI_SUCCESS;
}

/* *position_p: the caller's position (checked non-NULL through position). */
static int pack_impl(const char *call, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                     void *outbuf, MPI_Count outsize, const void *position, MPI_Count *position_p,
                     MPI_Comm comm)
{
    vbt_dtype_t *t;
    size_t bytes;
    int rc;

    VBT_API_ENTER(call);
    rc = check_pack(call, inbuf, incount, datatype, outbuf, outsize, position,
                    position != NULL ? *position_p : 0, comm, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    bytes = (size_t)incount * t->size;
    if (bytes > (size_t)(outsize - *position_p))
        return vbt_error_raise(vbt_comm_get(comm), call, MPI_ERR_TRUNCATE,
                               "%zu bytes do not fit the %lld left in outbuf after position %lld "
                               "(MPI_Pack_size says how much room to give)",
                               bytes, (long long)(outsize - *position_p), (long long)*position_p);
    vbt_dtype_pack(t, inbuf, (size_t)incount, 0, (char *)outbuf + *position_p, bytes);
    *position_p += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPI_Count pos = position != NULL ? *position : 0;
    int rc = pack_impl("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, position, &pos, comm);

    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* <= outsize, an int */
    return rc;
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return pack_impl("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, position,
                     comm);
}

static int unpack_impl(const char *call, const void *inbuf, MPI_Count insize, const void *position,
                       MPI_Count *position_p, void *outbuf, MPI_Count outcount,
                       MPI_Datatype datatype, MPI_Comm comm)
{
    vbt_dtype_t *t;
    size_t bytes;
    int rc;

    VBT_API_ENTER(call);
    rc = check_pack(call, outbuf, outcount, datatype, inbuf, insize, position,
                    position != NULL ? *position_p : 0, comm, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    bytes = (size_t)outcount * t->size;
    if (bytes > (size_t)(insize - *position_p))
        return vbt_error_raise(vbt_comm_get(comm), call, MPI_ERR_TRUNCATE,
                               "%lld elements need %zu bytes, but inbuf has only %lld after "
                               "position %lld",
                               (long long)outcount, bytes, (long long)(insize - *position_p),
                               (long long)*position_p);
    vbt_dtype_unpack(t, outbuf, (size_t)outcount, 0, (const char *)inbuf + *position_p, bytes);
    *position_p += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position != NULL ? *position : 0;
    int rc =
        unpack_impl("MPI_Unpack", inbuf, insize, position, &pos, outbuf, outcount, datatype, comm);

    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* <= insize, an int */
    return rc;
}

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return unpack_impl("MPI_Unpack_c", inbuf, insize, position, position, outbuf, outcount,
                       datatype, comm);
}

static int pack_size(const char *call, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     const void *size, MPI_Count *bytes_p)
{
    vbt_dtype_t *t;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    t = vbt_dtype_get(datatype);
    if (t == NULL || !t->committed || incount < 0 ||
        (t->size > 0 && (uint64_t)incount > PTRDIFF_MAX / t->size))
        return vbt_api_bad_buffer(c, call, NULL, incount, datatype);
    VBT_API_PTR(c, call, size, "size");
    *bytes_p = incount * (MPI_Count)t->size;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count bytes;
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, size, &bytes);

    /* An answer that does not fit the int is MPI_UNDEFINED (MPI_Pack_size_c has it). */
    if (rc == MPI_SUCCESS)
        *size = bytes > INT_MAX ? MPI_UNDEFINED : (int)bytes;
    return rc;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, size, size);
}
