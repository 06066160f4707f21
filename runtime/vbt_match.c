#include "vbt_match.h"

vbt_request_t *vbt_match_take_posted_search(vbt_match_queue_t *q, int src, int tag)
{
    vbt_request_t *prev = NULL;

    for (vbt_request_t *r = q->posted_head; r != NULL; prev = r, r = r->next) {
        if (vbt_match_accepts(r->peer, r->tag, src, tag)) {
            vbt_match_posted_unlink(q, prev, r);
            return r;
        }
    }
    return NULL;
}

int vbt_match_remove_posted(vbt_match_queue_t *q, vbt_request_t *req)
{
    vbt_request_t *prev = NULL;

    for (vbt_request_t *r = q->posted_head; r != NULL; prev = r, r = r->next) {
        if (r == req) {
            vbt_match_posted_unlink(q, prev, r);
            return 1;
        }
    }
    return 0;
}

vbt_unexp_t *vbt_match_find_unexpected_search(vbt_match_queue_t *q, int src, int tag, int take)
{
    vbt_unexp_t *prev = NULL;

    for (vbt_unexp_t *u = q->unexp_head; u != NULL; prev = u, u = u->next) {
        if (!vbt_match_accepts(src, tag, u->src, u->tag))
            continue;
        if (take) {
            if (prev == NULL)
                q->unexp_head = u->next;
            else
                prev->next = u->next;
            if (q->unexp_tail == u)
                q->unexp_tail = prev;
            u->next = NULL;
        }
        return u;
    }
    return NULL;
}
