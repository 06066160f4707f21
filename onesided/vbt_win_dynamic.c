/* Dynamic windows (MPI_Win_create_dynamic): memory attached and detached locally, at any time.
 * Origins address it by absolute address (MPI_Get_address); only the target knows what is
 * attached, so it checks every access against its regions and reports one outside them back to
 * the origin in its next flush answer (vbt_win_take_error). Their keys, for operations without
 * the target's CPU, are published in vbt_win_dynkeys.c. */
#include "vbt_win_int.h"

#include <stdlib.h>

vbt_status_t vbt_win_attach(vbt_win_t *w, void *base, size_t size)
{
    uintptr_t b = (uintptr_t)base;
    vbt_win_region_t *r;

    for (r = w->regions; r != NULL; r = r->next)
        if (b < r->base + r->size && r->base < b + size)
            return VBT_ERR_INVALID_PARAM;
    r = malloc(sizeof(*r));
    if (r == NULL)
        return VBT_ERR_NO_MEMORY;
    *r = (vbt_win_region_t){.next = w->regions, .base = b, .size = size};
    w->regions = r;
    vbt_win_dyn_publish(w, r);
    return VBT_OK;
}

vbt_status_t vbt_win_detach(vbt_win_t *w, const void *base)
{
    for (vbt_win_region_t **pp = &w->regions; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->base == (uintptr_t)base) {
            vbt_win_region_t *r = *pp;
            *pp = r->next;
            vbt_status_t st = vbt_win_dyn_withdraw(w, r);
            free(r);
            return st;
        }
    }
    return VBT_ERR_NOT_FOUND;
}

int vbt_win_region_covers(const vbt_win_t *w, uintptr_t addr, size_t len)
{
    if (len == 0)
        return 1;
    for (const vbt_win_region_t *r = w->regions; r != NULL; r = r->next)
        if (addr >= r->base && addr - r->base <= r->size && len <= r->size - (addr - r->base))
            return 1;
    return 0;
}
