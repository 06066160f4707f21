/* Buffers for buffered-mode sends (MPI-4.1 Sec. 3.6): one per communicator, per session and per
 * process, each attached by the user (MPI_Comm_attach_buffer, MPI_Session_attach_buffer,
 * MPI_Buffer_attach) and held in that object. A buffer is either the user's memory, carved into
 * blocks, or MPI_BUFFER_AUTOMATIC, where each message gets a block of the heap. Each message
 * takes its size plus a header that fits in MPI_BSEND_OVERHEAD; the header names the buffer it
 * came from, so a block goes back to its buffer whoever sent it. Every buffer also keeps its
 * outstanding messages in the order they were started, which is what flush waits on: a flush
 * (blocking or not) is done once every message started before it has left the buffer. */
#ifndef VBT_BSEND_H
#define VBT_BSEND_H

#include <stddef.h>
#include <stdint.h>

#include "vbt_status.h"

struct vbt_request;
struct vbt_comm;
typedef struct vbt_bsend_block vbt_bsend_block_t;

typedef struct vbt_bsend_buf {
    int attached;
    int automatic;               /* attached as MPI_BUFFER_AUTOMATIC: blocks come from the heap */
    char *base;                  /* the user's buffer as attached (NULL when automatic) */
    size_t size;                 /* its size as attached */
    uint64_t seq;                /* messages started from this buffer, ever */
    vbt_bsend_block_t *blocks;   /* the user's buffer: its blocks in address order */
    vbt_bsend_block_t *oldest;   /* every outstanding message, oldest first ... */
    vbt_bsend_block_t *newest;   /* ... to the one started last */
    struct vbt_request *flushes; /* MPI_*iflush* requests not yet complete, linked by next */
} vbt_bsend_buf_t;

/* buf is MPI_BUFFER_AUTOMATIC (size ignored) or size bytes of the user's memory.
 * VBT_ERR_INVALID_PARAM when b has a buffer already. */
vbt_status_t vbt_bsend_attach(vbt_bsend_buf_t *b, void *buf, size_t size);
static inline int vbt_bsend_attached(const vbt_bsend_buf_t *b)
{
    return b->attached;
}
/* Waits until every message in b has left, then hands the buffer back as attached (buf is
 * MPI_BUFFER_AUTOMATIC and size 0 for an automatic one). b must have a buffer. */
vbt_status_t vbt_bsend_detach(vbt_bsend_buf_t *b, void **buf_p, size_t *size_p);
/* Waits until every message started from b so far has left; b stays attached (or not). */
vbt_status_t vbt_bsend_flush(vbt_bsend_buf_t *b);
/* A request that completes once every message started from b so far has left (at once when
 * none is outstanding). comm is the communicator it reports errors on, or NULL. */
vbt_status_t vbt_bsend_iflush(vbt_bsend_buf_t *b, struct vbt_comm *comm,
                              struct vbt_request **req_p);

/* A block of bytes for one message from b, or NULL: no buffer attached, no room (then
 * *largest_free_p says how much contiguous room there was, for the error message) or, for an
 * automatic buffer, no memory. */
void *vbt_bsend_alloc(vbt_bsend_buf_t *b, size_t bytes, size_t *largest_free_p);
/* The message in block has left: the block goes back to its buffer. */
void vbt_bsend_release(const void *block);

#endif
