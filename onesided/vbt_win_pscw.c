/* General active target synchronisation (post, start, complete, wait). Post sends a POST
 * message to each origin of its group; start waits for the POST of each target of its group
 * (a target's window is exposed before the origin touches it); complete flushes the targets it
 * sent operations to, then sends each target of the group a COMPLETE request, served after
 * everything the origin sent before; wait (test) returns once COMPLETE came from every origin
 * of the post group. MPI_MODE_NOCHECK on both post and start (the standard allows it only on
 * both) skips the POST messages. */
#include "vbt_win_int.h"

#include <string.h>

/* The window-communicator rank of group member i. */
static int member(const vbt_win_t *w, const vbt_group_t *g, int i)
{
    return vbt_group_rank_of(w->comm->group, g->ranks[i]);
}

vbt_status_t vbt_win_post(vbt_win_t *w, vbt_group_t *group, int assert)
{
    vbt_status_t st = VBT_OK;

    if (!(assert &MPI_MODE_NOCHECK))
        for (int i = 0; i < group->size && st == VBT_OK; i++) {
            char *m = vbt_win_pool_get(w, 1);
            if (m == NULL)
                return VBT_ERR_NO_MEMORY;
            *m = 1;
            st = vbt_win_send(w, member(w, group, i), VBT_WIN_TAG_POST, m, 1);
        }
    if (st != VBT_OK)
        return st;
    vbt_group_retain(group);
    w->post_group = group;
    return VBT_OK;
}

vbt_status_t vbt_win_start(vbt_win_t *w, vbt_group_t *group, int assert)
{
    vbt_request_t **reqs = NULL;
    char *bytes = NULL;
    vbt_status_t st = VBT_OK;
    int n = group->size;

    if (!(assert &MPI_MODE_NOCHECK) && n > 0) {
        vbt_win_scratch_t *s = vbt_win_scratch(w); /* n <= w->size entries of it */
        if (s == NULL)
            return VBT_ERR_NO_MEMORY;
        reqs = s->reqs;
        bytes = (char *)s->want;
        memset(reqs, 0, (size_t)n * sizeof(*reqs));
        for (int i = 0; i < n && st == VBT_OK; i++)
            st = vbt_p2p_irecv(w->comm, VBT_CTX_P2P, &bytes[i], 1, member(w, group, i),
                               VBT_WIN_TAG_POST, &reqs[i]);
        for (int i = 0; i < n; i++) {
            if (reqs[i] == NULL)
                continue;
            vbt_status_t s2 = vbt_win_wait_req(reqs[i]);
            if (st == VBT_OK)
                st = s2;
        }
    }
    if (st != VBT_OK)
        return st;
    for (int i = 0; i < n; i++)
        w->tgt[member(w, group, i)].in_start = 1;
    vbt_group_retain(group);
    w->start_group = group;
    return VBT_OK;
}

vbt_status_t vbt_win_complete(vbt_win_t *w)
{
    vbt_group_t *g = w->start_group;
    uint8_t *want = vbt_win_want(w);
    vbt_status_t st;
    int any = 0;

    if (want == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < g->size; i++) {
        int t = member(w, g, i);
        any |= want[t] = w->tgt[t].unflushed;
    }
    st = any ? vbt_win_flush_targets(w, want, -1, VBT_WIN_FLUSH) : vbt_win_wait_results(w, -1);
    for (int i = 0; i < g->size && st == VBT_OK; i++)
        st = vbt_win_send_ctrl(w, member(w, g, i), VBT_WIN_COMPLETE, 0, 0);
    if (st != VBT_OK)
        return st;
    for (int i = 0; i < g->size; i++)
        w->tgt[member(w, g, i)].in_start = 0;
    w->start_group = NULL;
    vbt_group_release(g);
    return VBT_OK;
}

vbt_status_t vbt_win_test(vbt_win_t *w, int *flag_p)
{
    int n = vbt_p2p_progress();

    if (n < 0)
        return (vbt_status_t)n;
    *flag_p = w->pscw_done >= w->post_group->size;
    if (*flag_p) {
        w->pscw_done -= w->post_group->size;
        vbt_group_release(w->post_group);
        w->post_group = NULL;
    }
    return VBT_OK;
}

vbt_status_t vbt_win_wait(vbt_win_t *w)
{
    vbt_backoff_t backoff;
    int done = 0;

    vbt_backoff_init(&backoff);
    for (;;) {
        vbt_status_t st = vbt_win_test(w, &done);
        if (st != VBT_OK || done)
            return st;
        vbt_p2p_idle(&backoff);
    }
}
