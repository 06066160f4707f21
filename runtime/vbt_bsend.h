/* The buffer attached with MPI_Buffer_attach, carved into blocks for buffered sends. Each
 * message takes its size plus a header that fits in MPI_BSEND_OVERHEAD. */
#ifndef VBT_BSEND_H
#define VBT_BSEND_H

#include <stddef.h>

#include "vbt_status.h"

vbt_status_t vbt_bsend_attach(void *buf, size_t size);
/* Waits until every buffered message has left, then hands the buffer back. */
vbt_status_t vbt_bsend_detach(void **buf_p, size_t *size_p);
/* A block of bytes for one message, or NULL when the attached buffer has no room; *free_p says
 * how much contiguous room there was, for the error message. */
void *vbt_bsend_alloc(size_t bytes, size_t *largest_free_p);
void vbt_bsend_release(const void *block);
int vbt_bsend_attached(void);

#endif
