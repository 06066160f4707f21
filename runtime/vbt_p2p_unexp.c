/* Buffers for unexpected messages: a free list of records and a pool of VBT_UNEXP_POOL_BLOCK
 * payload buffers, so floods of small early arrivals allocate nothing. */
#include "vbt_p2p_int.h"

#include <stdlib.h>
#include <string.h>

/* An unexpected-message record with room for len bytes of payload (none when !with_data). */
vbt_unexp_t *vbt_p2p_unexp_alloc(size_t len, int with_data)
{
    vbt_unexp_t *u = vbt_p2p.unexp_free;

    if (u != NULL)
        vbt_p2p.unexp_free = u->next;
    else if ((u = malloc(sizeof(*u))) == NULL)
        return NULL;
    memset(u, 0, sizeof(*u));
    if (!with_data) {
        u->data = NULL;
    } else if (len <= VBT_UNEXP_POOL_BLOCK && vbt_p2p.unexp_pool != NULL) {
        u->data = vbt_p2p.unexp_pool;
        vbt_p2p.unexp_pool = *(void **)u->data;
        u->pooled = 1;
    } else {
        u->data = malloc(len <= VBT_UNEXP_POOL_BLOCK ? VBT_UNEXP_POOL_BLOCK : len);
        u->pooled = len <= VBT_UNEXP_POOL_BLOCK;
        if (u->data == NULL) {
            u->next = vbt_p2p.unexp_free;
            vbt_p2p.unexp_free = u;
            return NULL;
        }
    }
    u->len = len;
    vbt_p2p.stats.unexp_len++;
    vbt_p2p.stats.unexp_hwm = vbt_p2p.stats.unexp_len > vbt_p2p.stats.unexp_hwm
                                  ? vbt_p2p.stats.unexp_len
                                  : vbt_p2p.stats.unexp_hwm;
    return u;
}

void vbt_p2p_unexp_release(vbt_unexp_t *u)
{
    if (u->pooled) {
        *(void **)u->data = vbt_p2p.unexp_pool;
        vbt_p2p.unexp_pool = u->data;
    } else if (u->data != NULL) {
        free(u->data);
    }
    u->next = vbt_p2p.unexp_free;
    vbt_p2p.unexp_free = u;
    vbt_p2p.stats.unexp_len--;
}
