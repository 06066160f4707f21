#include "vbt_bsend.h"
#include "vbt_p2p.h"
#include "vbt_request.h"

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* Each message's block is headed by this. */
struct vbt_bsend_block {
    vbt_bsend_block_t *next;          /* the user's buffer: the next block by address */
    vbt_bsend_block_t *older, *newer; /* the buffer's outstanding messages, in start order */
    vbt_bsend_buf_t *owner;
    uint64_t seq; /* owner->seq when it was started */
    size_t span;  /* bytes from the header to the end of the block */
};

#define ALIGN16(_x) (((_x) + 15) & ~(size_t)15)
#define HDR         ALIGN16(sizeof(vbt_bsend_block_t))

_Static_assert(HDR + 15 <= MPI_BSEND_OVERHEAD, "a block header must fit in MPI_BSEND_OVERHEAD");

vbt_status_t vbt_bsend_attach(vbt_bsend_buf_t *b, void *buf, size_t size)
{
    if (b->attached)
        return VBT_ERR_INVALID_PARAM;
    b->attached = 1;
    b->automatic = buf == MPI_BUFFER_AUTOMATIC;
    b->base = b->automatic ? NULL : buf;
    b->size = b->automatic ? 0 : size;
    b->blocks = NULL;
    return VBT_OK;
}

/* Has every message started up to number upto left? */
static int flushed(const vbt_bsend_buf_t *b, uint64_t upto)
{
    return b->oldest == NULL || b->oldest->seq > upto;
}

/* Drive progress until every message of b started up to number upto has left. */
static vbt_status_t wait_flushed(vbt_bsend_buf_t *b, uint64_t upto)
{
    vbt_backoff_t backoff;

    vbt_backoff_init(&backoff);
    while (!flushed(b, upto)) {
        int n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
        if (n == 0)
            vbt_p2p_idle(&backoff);
        else
            vbt_backoff_init(&backoff);
    }
    return VBT_OK;
}

vbt_status_t vbt_bsend_detach(vbt_bsend_buf_t *b, void **buf_p, size_t *size_p)
{
    vbt_status_t st = wait_flushed(b, UINT64_MAX);

    if (st != VBT_OK)
        return st;
    *buf_p = b->automatic ? MPI_BUFFER_AUTOMATIC : b->base;
    *size_p = b->size;
    b->attached = 0;
    b->automatic = 0;
    b->base = NULL;
    b->size = 0;
    return VBT_OK;
}

vbt_status_t vbt_bsend_flush(vbt_bsend_buf_t *b)
{
    return wait_flushed(b, b->seq);
}

static void flush_done(vbt_request_t *req)
{
    req->status_source = MPI_ANY_SOURCE;
    req->status_tag = MPI_ANY_TAG;
    req->complete = 1;
    if (req->flags & VBT_REQF_FREED)
        vbt_request_release(req);
}

vbt_status_t vbt_bsend_iflush(vbt_bsend_buf_t *b, struct vbt_comm *comm, vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_request_alloc(VBT_REQ_BFLUSH);

    if (req == NULL)
        return VBT_ERR_NO_MEMORY;
    req->comm = comm;
    req->x.flush_upto = b->seq;
    if (flushed(b, b->seq)) {
        flush_done(req);
    } else {
        req->next = b->flushes;
        b->flushes = req;
    }
    *req_p = req;
    return VBT_OK;
}

/* The user's buffer: first fit, in address order. */
static vbt_bsend_block_t *carve(vbt_bsend_buf_t *b, size_t need, size_t *largest_free_p)
{
    /* Start at a 16-byte boundary inside the user's buffer. */
    char *start = (char *)ALIGN16((uintptr_t)b->base);
    char *end = b->base + b->size;
    vbt_bsend_block_t **link = &b->blocks;
    char *gap = start;
    size_t largest = 0;

    if (start > end) {
        *largest_free_p = 0;
        return NULL;
    }
    for (;;) {
        char *gap_end = *link ? (char *)*link : end;
        size_t room = (size_t)(gap_end - gap);
        if (room >= need) {
            vbt_bsend_block_t *blk = (vbt_bsend_block_t *)gap;
            blk->next = *link;
            *link = blk;
            return blk;
        }
        if (room > largest)
            largest = room;
        if (*link == NULL)
            break;
        gap = (char *)*link + (*link)->span;
        link = &(*link)->next;
    }
    *largest_free_p = largest > HDR ? largest - HDR : 0;
    return NULL;
}

void *vbt_bsend_alloc(vbt_bsend_buf_t *b, size_t bytes, size_t *largest_free_p)
{
    size_t need = HDR + ALIGN16(bytes);
    vbt_bsend_block_t *blk;

    *largest_free_p = 0;
    if (!b->attached || need < bytes)
        return NULL;
    if (b->automatic) {
        blk = malloc(need);
        if (blk == NULL)
            return NULL;
        blk->next = NULL;
    } else {
        blk = carve(b, need, largest_free_p);
        if (blk == NULL)
            return NULL;
    }
    blk->span = need;
    blk->owner = b;
    blk->seq = ++b->seq;
    blk->newer = NULL;
    blk->older = b->newest;
    if (b->newest != NULL)
        b->newest->newer = blk;
    else
        b->oldest = blk;
    b->newest = blk;
    return (char *)blk + HDR;
}

void vbt_bsend_release(const void *block)
{
    vbt_bsend_block_t *blk = (vbt_bsend_block_t *)((uintptr_t)block - HDR);
    vbt_bsend_buf_t *b = blk->owner;

    if (blk->older != NULL)
        blk->older->newer = blk->newer;
    else
        b->oldest = blk->newer;
    if (blk->newer != NULL)
        blk->newer->older = blk->older;
    else
        b->newest = blk->older;
    /* A buffer is detached only once its messages have left: b is as it was at the start. */
    if (b->automatic) {
        free(blk);
    } else {
        vbt_bsend_block_t **link = &b->blocks;
        while (*link != blk)
            link = &(*link)->next;
        *link = blk->next;
    }
    /* The flushes now satisfied complete. */
    for (vbt_request_t **pp = &b->flushes; *pp != NULL;) {
        vbt_request_t *req = *pp;
        if (flushed(b, req->x.flush_upto)) {
            *pp = req->next;
            req->next = NULL;
            flush_done(req);
        } else {
            pp = &req->next;
        }
    }
}
