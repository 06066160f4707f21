/* The window's own memory for its protocol: request and reply buffers, the entries of its
 * queues, and the scratch arrays of the synchronisation calls, so that a steady stream of
 * small operations and flushes allocates nothing once warm (the data path rule).
 *
 * Blocks come in size classes, powers of two from VBT_WIN_POOL_MIN to VBT_WIN_POOL_MAX bytes
 * (16k, the default on-node rendezvous threshold: bigger requests travel by rendezvous, whose
 * copy dwarfs a malloc, so they are still malloc'd and freed). A freed block goes to its class's
 * free list in the window, the runtime's unexpected-buffer pool pattern; each list keeps at most
 * VBT_WIN_POOL_KEEP bytes, so a burst does not pin its peak until MPI_Win_free. The state
 * lives in the window, never in a global: windows are independent, and MPI_Win_free gives
 * everything back. Every block is a malloc block, so teardown may free() one directly.
 * Not the object pool (vbt_objpool.h): nothing here is an MPI handle to validate. */
#include "vbt_win_int.h"

#include <stdlib.h>
#include <string.h>

#define VBT_WIN_POOL_MIN_SHIFT 6
#define VBT_WIN_POOL_MIN       ((size_t)1 << VBT_WIN_POOL_MIN_SHIFT)
#define VBT_WIN_POOL_MAX       (VBT_WIN_POOL_MIN << (VBT_WIN_POOL_CLASSES - 1))
#define VBT_WIN_POOL_KEEP      ((size_t)128 * 1024)

/* The class of a block of len bytes (len <= VBT_WIN_POOL_MAX). */
static unsigned pool_class(size_t len)
{
    if (len <= VBT_WIN_POOL_MIN)
        return 0;
    return (unsigned)(64 - __builtin_clzll((unsigned long long)len - 1)) - VBT_WIN_POOL_MIN_SHIFT;
}

void *vbt_win_pool_get(vbt_win_t *w, size_t len)
{
    unsigned c;
    void *p;

    if (len > VBT_WIN_POOL_MAX)
        return malloc(len);
    c = pool_class(len);
    p = w->pool_free[c];
    if (p == NULL)
        return malloc(VBT_WIN_POOL_MIN << c);
    memcpy(&w->pool_free[c], p, sizeof(void *));
    w->pool_nfree[c]--;
    return p;
}

void vbt_win_pool_put(vbt_win_t *w, void *p, size_t len)
{
    unsigned c;

    if (p == NULL)
        return;
    if (len > VBT_WIN_POOL_MAX) {
        free(p);
        return;
    }
    c = pool_class(len);
    if ((size_t)w->pool_nfree[c] * (VBT_WIN_POOL_MIN << c) >= VBT_WIN_POOL_KEEP) {
        free(p);
        return;
    }
    memcpy(p, &w->pool_free[c], sizeof(void *));
    w->pool_free[c] = p;
    w->pool_nfree[c]++;
}

vbt_win_scratch_t *vbt_win_scratch(vbt_win_t *w)
{
    size_t n = (size_t)w->size;
    /* One block: this header, want[size] bytes, then acks and reqs (aligned for them). */
    size_t want_off = sizeof(vbt_win_scratch_t);
    size_t acks_off = (want_off + n + 15) / 16 * 16;
    size_t reqs_off = acks_off + n * sizeof(vbt_win_ack_t);
    char *m;

    if (w->scratch != NULL)
        return w->scratch;
    m = malloc(reqs_off + n * sizeof(vbt_request_t *));
    if (m == NULL)
        return NULL;
    w->scratch = (vbt_win_scratch_t *)m;
    *w->scratch = (vbt_win_scratch_t){.want = (uint8_t *)(m + want_off),
                                      .acks = (vbt_win_ack_t *)(m + acks_off),
                                      .reqs = (vbt_request_t **)(m + reqs_off)};
    return w->scratch;
}

uint8_t *vbt_win_want(vbt_win_t *w)
{
    vbt_win_scratch_t *s = vbt_win_scratch(w);

    if (s == NULL)
        return NULL;
    memset(s->want, 0, (size_t)w->size);
    return s->want;
}

void vbt_win_pool_destroy(vbt_win_t *w)
{
    for (unsigned c = 0; c < VBT_WIN_POOL_CLASSES; c++) {
        while (w->pool_free[c] != NULL) {
            void *p = w->pool_free[c];
            memcpy(&w->pool_free[c], p, sizeof(void *));
            free(p);
        }
        w->pool_nfree[c] = 0;
    }
    free(w->scratch);
    w->scratch = NULL;
}
