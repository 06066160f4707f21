#include "vbt_bsend.h"
#include "vbt_p2p.h"

#include <mpi.h>
#include <stdint.h>

/* Allocated blocks, in address order, each headed by this. */
typedef struct bsend_block {
    struct bsend_block *next;
    size_t span; /* bytes from the header to the end of the block */
} bsend_block_t;

_Static_assert(sizeof(bsend_block_t) + 15 <= MPI_BSEND_OVERHEAD,
               "a block header must fit in MPI_BSEND_OVERHEAD");

static struct {
    char *base;
    size_t size;
    bsend_block_t *blocks;
} attached;

#define ALIGN16(_x) (((_x) + 15) & ~(size_t)15)

int vbt_bsend_attached(void)
{
    return attached.base != NULL;
}

vbt_status_t vbt_bsend_attach(void *buf, size_t size)
{
    if (attached.base != NULL)
        return VBT_ERR_INVALID_PARAM;
    attached.base = buf;
    attached.size = size;
    attached.blocks = NULL;
    return VBT_OK;
}

vbt_status_t vbt_bsend_detach(void **buf_p, size_t *size_p)
{

    while (attached.blocks != NULL) {
        int n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
    }
    *buf_p = attached.base;
    *size_p = attached.size;
    attached.base = NULL;
    attached.size = 0;
    return VBT_OK;
}

void *vbt_bsend_alloc(size_t bytes, size_t *largest_free_p)
{
    /* Start at a 16-byte boundary inside the user's buffer. */
    char *start = (char *)ALIGN16((uintptr_t)attached.base);
    char *end = attached.base + attached.size;
    size_t need = ALIGN16(sizeof(bsend_block_t)) + ALIGN16(bytes);
    bsend_block_t **link = &attached.blocks;
    char *gap = start;
    size_t largest = 0;

    if (attached.base == NULL || start > end) {
        *largest_free_p = 0;
        return NULL;
    }
    for (;;) {
        char *gap_end = *link ? (char *)*link : end;
        size_t room = (size_t)(gap_end - gap);
        if (room >= need) {
            bsend_block_t *b = (bsend_block_t *)gap;
            b->span = need;
            b->next = *link;
            *link = b;
            return gap + ALIGN16(sizeof(bsend_block_t));
        }
        if (room > largest)
            largest = room;
        if (*link == NULL)
            break;
        gap = (char *)*link + (*link)->span;
        link = &(*link)->next;
    }
    *largest_free_p =
        largest > ALIGN16(sizeof(bsend_block_t)) ? largest - ALIGN16(sizeof(bsend_block_t)) : 0;
    return NULL;
}

void vbt_bsend_release(const void *block)
{
    const bsend_block_t *b =
        (const bsend_block_t *)((const char *)block - ALIGN16(sizeof(bsend_block_t)));

    for (bsend_block_t **link = &attached.blocks; *link != NULL; link = &(*link)->next) {
        if (*link == b) {
            *link = b->next;
            return;
        }
    }
}
