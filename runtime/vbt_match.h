/* The matching engine: per communicator context, a queue of posted receives and a queue of
 * unexpected messages, both in arrival order, which is what gives MPI its non-overtaking rule
 * per (source, tag, communicator). Pure logic: no transport, no allocation. */
#ifndef VBT_MATCH_H
#define VBT_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "vbt_compiler.h"
#include "vbt_request.h"

/* Bytes of payload an unexpected message's record holds itself (so that the record is 128
 * bytes): the smallest messages take no buffer of their own. */
#define VBT_UNEXP_INLINE 54

/* A message that arrived before its receive was posted (or was taken by MPI_Mprobe: then a
 * vbt_message_t holds it, vbt_message.h). */
typedef struct vbt_unexp {
    struct vbt_unexp *next;
    int src; /* comm rank of the sender */
    int tag;
    int src_world;      /* world rank, to send a synchronous-send ack (or a CTS) to */
    unsigned rts_flags; /* rendezvous: VBT_P2P_F_* of the RTS */
    uint64_t ack_id;    /* non-zero: the sender waits for an ack once this is matched */
    uint64_t rts_id;    /* rendezvous (a ready-to-send, no payload): the sender's request */
    uint64_t rts_addr;  /* ... where the data is in the sender's memory */
    size_t len;         /* whole message */
    size_t received;    /* bytes arrived so far (large messages come in fragments) */
    void *data;         /* NULL for a rendezvous: the payload stays with the sender */
    uint8_t rndv;       /* a ready-to-send: receiving it answers with a CTS */
    uint8_t store;      /* where data is (vbt_p2p_unexp.c): inline, a size class, or malloc */
    /* Payloads up to VBT_UNEXP_INLINE bytes are kept here, in the record itself. */
    unsigned char inline_data[VBT_UNEXP_INLINE];
} vbt_unexp_t;

typedef struct {
    vbt_request_t *posted_head;
    vbt_request_t *posted_tail;
    vbt_unexp_t *unexp_head;
    vbt_unexp_t *unexp_tail;
} vbt_match_queue_t;

/* Does a receive for (want_src, want_tag) accept a message from src with tag? */
static inline int vbt_match_accepts(int want_src, int want_tag, int src, int tag)
{
    return (want_src == src || want_src == -1 /* MPI_ANY_SOURCE */) &&
           (want_tag == tag || (want_tag == -2 /* MPI_ANY_TAG */ && tag >= 0));
}

/* Unlink r, whose predecessor is prev (NULL at the head), from the posted queue. */
static inline void vbt_match_posted_unlink(vbt_match_queue_t *q, vbt_request_t *prev,
                                           vbt_request_t *r)
{
    if (prev == NULL)
        q->posted_head = r->next;
    else
        prev->next = r->next;
    if (q->posted_tail == r)
        q->posted_tail = prev;
    r->next = NULL;
}

/* The searches behind the two below, past an empty queue and a match at its head. */
vbt_request_t *vbt_match_take_posted_search(vbt_match_queue_t *q, int src, int tag);
vbt_unexp_t *vbt_match_find_unexpected_search(vbt_match_queue_t *q, int src, int tag, int take);

/* An arriving message: remove and return the oldest posted receive that accepts it. Inline for
 * the common cases, an empty queue or the head (a receive posted ahead of its message). */
static inline vbt_request_t *vbt_match_take_posted(vbt_match_queue_t *q, int src, int tag)
{
    vbt_request_t *r = q->posted_head;

    if (r == NULL)
        return NULL;
    if (likely(vbt_match_accepts(r->peer, r->tag, src, tag))) {
        vbt_match_posted_unlink(q, NULL, r);
        return r;
    }
    return vbt_match_take_posted_search(q, src, tag);
}

/* A new receive: the oldest unexpected message it accepts; removed when take is set. */
static inline vbt_unexp_t *vbt_match_find_unexpected(vbt_match_queue_t *q, int src, int tag,
                                                     int take)
{
    if (q->unexp_head == NULL)
        return NULL;
    return vbt_match_find_unexpected_search(q, src, tag, take);
}

static inline void vbt_match_append_posted(vbt_match_queue_t *q, vbt_request_t *req)
{
    req->next = NULL;
    if (q->posted_tail != NULL)
        q->posted_tail->next = req;
    else
        q->posted_head = req;
    q->posted_tail = req;
}

static inline void vbt_match_append_unexpected(vbt_match_queue_t *q, vbt_unexp_t *u)
{
    u->next = NULL;
    if (q->unexp_tail != NULL)
        q->unexp_tail->next = u;
    else
        q->unexp_head = u;
    q->unexp_tail = u;
}

/* Remove a posted receive (MPI_Cancel); returns 1 when it was still there. */
int vbt_match_remove_posted(vbt_match_queue_t *q, vbt_request_t *req);

#endif
