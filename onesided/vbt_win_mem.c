/* MPI_Alloc_mem / MPI_Free_mem: ordinary memory, aligned for any type, with a header before
 * each block; the live blocks are listed so that MPI_Free_mem of any other pointer is refused
 * without reading memory that is not ours. */
#include "vbt_win.h"

#include <stdlib.h>

#define VBT_MEM_HEADER 64 /* keeps the block 64-byte aligned */

typedef struct vbt_mem_block {
    struct vbt_mem_block *next;
    size_t size;
} vbt_mem_block_t;

static vbt_mem_block_t *blocks; /* the blocks handed out: MPI_Free_mem checks against them */

void *vbt_mem_alloc(size_t size)
{
    void *p;

    if (size > SIZE_MAX - VBT_MEM_HEADER || posix_memalign(&p, 64, size + VBT_MEM_HEADER) != 0)
        return NULL;
    vbt_mem_block_t *b = p;
    b->size = size;
    b->next = blocks;
    blocks = b;
    return (char *)p + VBT_MEM_HEADER;
}

vbt_status_t vbt_mem_free(void *ptr)
{
    for (vbt_mem_block_t **pp = &blocks; *pp != NULL; pp = &(*pp)->next) {
        if ((char *)*pp + VBT_MEM_HEADER == (char *)ptr) {
            vbt_mem_block_t *b = *pp;
            *pp = b->next;
            free(b);
            return VBT_OK;
        }
    }
    return VBT_ERR_NOT_FOUND;
}
