/* The "external32" data representation of MPI_Pack_external & co (MPI-4.1 Sec. 14.5.2). */
#ifndef VBT_DTYPE_EXTERNAL_H
#define VBT_DTYPE_EXTERNAL_H

#include "vbt_datatype.h"

/* Bytes of one value of the basic type dt (native size native_size) in external32. */
size_t vbt_dtype_external_basic_size(MPI_Datatype dt, size_t native_size);
/* Bytes of one element of t in external32. */
size_t vbt_dtype_external_size(const vbt_dtype_t *t);

/* Count elements at buf into count * vbt_dtype_external_size(t) bytes at out, and back. A value
 * that does not fit its external32 size (a long beyond 32 bits, a wchar_t beyond 16) gives
 * VBT_ERR_INVALID_PARAM with its index (in basic values) in *bad_p; VBT_ERR_NO_MEMORY for the
 * scratch buffer. */
vbt_status_t vbt_dtype_external_pack(const vbt_dtype_t *t, const void *buf, size_t count, void *out,
                                     size_t *bad_p);
vbt_status_t vbt_dtype_external_unpack(const vbt_dtype_t *t, const void *in, size_t count,
                                       void *buf, size_t *bad_p);

#endif
