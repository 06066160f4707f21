/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size (MPI-4.1 Sec. 5.2.3): packing
 * in the portable "external32" representation (runtime/vbt_dtype_external.c), the only data
 * representation these calls know. */
#include "vbt_api.h"
#include "vbt_api_p2p.h"
#include "vbt_dtype_external.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

VBT_PMPI_ALIAS(Pack_external)
VBT_PMPI_ALIAS(Pack_external_c)
VBT_PMPI_ALIAS(Unpack_external)
VBT_PMPI_ALIAS(Unpack_external_c)
VBT_PMPI_ALIAS(Pack_external_size)
VBT_PMPI_ALIAS(Pack_external_size_c)

static int check_datarep(const char *call, const char *datarep)
{
    if (datarep == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument datarep is NULL; pass \"external32\"");
    if (strcmp(datarep, "external32") != 0)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument datarep is \"%.64s\"; the only data representation for "
                               "packing is \"external32\"",
                               datarep);
    return MPI_SUCCESS;
}

/* The checks Pack_external and Unpack_external share: datarep, the user buffer and its type,
 * the packed buffer and the position in it. */
static int check_external(const char *call, const char *datarep, const void *userbuf,
                          MPI_Count count, MPI_Datatype dt, const void *packbuf, MPI_Count packsize,
                          const void *position, MPI_Count pos, vbt_dtype_t **t_p)
{
    VBT_API_CHECK(check_datarep(call, datarep));
    *t_p = vbt_dtype_get(dt);
    if (*t_p == NULL || !(*t_p)->committed || count < 0 ||
        vbt_api_buf_null_bad(userbuf, count, *t_p) ||
        (uint64_t)count > PTRDIFF_MAX / (vbt_dtype_external_size(*t_p) + 1))
        return vbt_api_bad_buffer(NULL, call, userbuf, count, dt);
    if (position == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument position is NULL; pass the address of an integer");
    if (packsize < 0 || (packbuf == NULL && packsize > 0))
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "the packed buffer (%p, %ld bytes) is not a buffer", packbuf,
                               (long)packsize);
    if (pos < 0 || pos > packsize)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument position is %ld, outside the %ld-byte packed buffer",
                               (long)pos, (long)packsize);
    return MPI_SUCCESS;
}

static int conversion_failed(const char *call, vbt_status_t st, size_t bad, const vbt_dtype_t *t)
{
    if (st == VBT_ERR_NO_MEMORY)
        return vbt_error_raise(NULL, call, MPI_ERR_NO_MEM,
                               "no memory for the %zu-byte scratch buffer of the conversion",
                               t->size);
    return vbt_error_raise(NULL, call, MPI_ERR_CONVERSION,
                           "basic value %zu does not fit its external32 size (external32 "
                           "long is 32 bits, wchar_t 16); nothing was converted",
                           bad);
}

/* Pack_external and Unpack_external: one implementation on MPI_Count for the MPI_Aint (int
 * counts) and the _c (MPI_Count) forms; *position_p is the caller's position, copied. */
static int pack_external(const char *call, const char datarep[], const void *inbuf,
                         MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         const void *position, MPI_Count *position_p)
{
    vbt_dtype_t *t;
    size_t bytes, bad = 0;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_external(call, datarep, inbuf, incount, datatype, outbuf, outsize, position,
                                 position != NULL ? *position_p : 0, &t));
    bytes = (size_t)incount * vbt_dtype_external_size(t);
    if (bytes > (size_t)(outsize - *position_p))
        return vbt_error_raise(NULL, call, MPI_ERR_TRUNCATE,
                               "%zu bytes do not fit the %ld left in outbuf after position %ld "
                               "(MPI_Pack_external_size says how much room to give)",
                               bytes, (long)(outsize - *position_p), (long)*position_p);
    st = vbt_dtype_external_pack(t, inbuf, (size_t)incount, (char *)outbuf + *position_p, &bad);
    if (st != VBT_OK)
        return conversion_failed(call, st, bad, t);
    *position_p += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count pos = position != NULL ? *position : 0;
    int rc = pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize,
                           position, &pos);

    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize,
                         position, position);
}

static int unpack_external(const char *call, const char datarep[], const void *inbuf,
                           MPI_Count insize, const void *position, MPI_Count *position_p,
                           void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    vbt_dtype_t *t;
    size_t bytes, bad = 0;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_external(call, datarep, outbuf, outcount, datatype, inbuf, insize, position,
                                 position != NULL ? *position_p : 0, &t));
    bytes = (size_t)outcount * vbt_dtype_external_size(t);
    if (bytes > (size_t)(insize - *position_p))
        return vbt_error_raise(NULL, call, MPI_ERR_TRUNCATE,
                               "%lld elements need %zu bytes, but inbuf has only %ld after "
                               "position %ld",
                               (long long)outcount, bytes, (long)(insize - *position_p),
                               (long)*position_p);
    st = vbt_dtype_external_unpack(t, (const char *)inbuf + *position_p, (size_t)outcount, outbuf,
                                   &bad);
    if (st != VBT_OK)
        return conversion_failed(call, st, bad, t);
    *position_p += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_Count pos = position != NULL ? *position : 0;
    int rc = unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position, &pos, outbuf,
                             outcount, datatype);

    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, position,
                           outbuf, outcount, datatype);
}

static int pack_external_size(const char *call, const char datarep[], MPI_Count incount,
                              MPI_Datatype datatype, const void *size, MPI_Count *size_p)
{
    vbt_dtype_t *t;

    VBT_API_ENTER(call);
    VBT_API_CHECK(check_datarep(call, datarep));
    t = vbt_dtype_get(datatype);
    if (t == NULL || incount < 0 ||
        (uint64_t)incount > PTRDIFF_MAX / (vbt_dtype_external_size(t) + 1))
        return vbt_api_bad_buffer(NULL, call, NULL, incount, datatype);
    VBT_API_PTR(NULL, call, size, "size");
    *size_p = (MPI_Count)((size_t)incount * vbt_dtype_external_size(t));
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    MPI_Count n;
    int rc = pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size, &n);

    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)n;
    return rc;
}

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    return pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size, size);
}
