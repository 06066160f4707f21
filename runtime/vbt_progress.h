/* How a rank waits: spin while a reply is likely to be microseconds away, then yield the core,
 * then sleep on the completion channel. A rank that shares its core with others (more ranks
 * than cores on the node) yields from the start, or it would starve the rank it waits for. */
#ifndef VBT_PROGRESS_H
#define VBT_PROGRESS_H

#include <stdint.h>

typedef struct {
    unsigned idle;     /* empty progress calls in a row */
    uint64_t start_ns; /* when the spinning phase ended; 0 while still spinning */
} vbt_backoff_t;

static inline void vbt_backoff_init(vbt_backoff_t *b)
{
    b->idle = 0;
    b->start_ns = 0;
}

/* How many empty polls to spin before yielding: none on a shared core, a few on a software
 * RDMA device (its packets are processed by the kernel on these same cores), more on a NIC. */
void vbt_backoff_set_spin(unsigned polls);

/* Called after a progress call that found nothing. can_block: every event we wait for arrives
 * through the verbs completion queue, so sleeping on its channel cannot miss one. */
void vbt_backoff_idle(vbt_backoff_t *b, int can_block);

#endif
