/* How a rank waits (VBT_PROGRESS):
 *   spin    poll without pause: the lowest latency, a busy core for as long as it waits;
 *   hybrid  poll a short while (a reply is then likely microseconds away), then poll and yield
 *           the core for up to a millisecond, then sleep in one poll() on every transport's
 *           wake-up descriptor (the verbs completion channel, the shared-memory doorbell) until
 *           a completion or a local peer's message wakes it;
 *   block   sleep as soon as one poll found nothing;
 *   auto    (default) hybrid; without the spinning when the node has more ranks than cores: a
 *           rank that spins on a core it shares starves the very rank it waits for.
 * For the same reason, on such a node every mode but spin makes a program's own polling loop
 * (MPI_Iprobe, MPI_Test... until something arrives) yield the core after a few empty polls.
 * A wait that cannot sleep (sends queued for credits, whose completions raise no event) yields
 * the core instead. */
#ifndef VBT_PROGRESS_H
#define VBT_PROGRESS_H

#include <stdint.h>

#include "vbt_status.h"

typedef enum {
    VBT_PROGRESS_SPIN,
    VBT_PROGRESS_HYBRID,
    VBT_PROGRESS_BLOCK,
} vbt_progress_mode_t;

typedef struct {
    unsigned idle;           /* empty progress calls in a row */
    uint64_t yield_start_ns; /* hybrid: when it stopped spinning and began yielding; 0 before */
} vbt_backoff_t;

static inline void vbt_backoff_init(vbt_backoff_t *b)
{
    b->idle = 0;
    b->yield_start_ns = 0;
}

/* Parse VBT_PROGRESS and settle auto (after the transports are up: the spin budget depends on
 * them). VBT_ERR_INVALID_PARAM, logged, for an unknown mode. */
vbt_status_t vbt_progress_init(void);
vbt_progress_mode_t vbt_progress_mode(void);
/* How many polling calls (MPI_Iprobe, MPI_Test...) in a row may find nothing before each
 * further empty one yields the core: VBT_PROGRESS_POLL_YIELD_AFTER on a node with more ranks
 * than cores unless VBT_PROGRESS=spin, else 0 (never). */
#define VBT_PROGRESS_POLL_YIELD_AFTER 4u
unsigned vbt_progress_poll_yield_after(void);

/* How many empty polls hybrid spins before sleeping: fewer on a software RDMA device (its
 * packets are processed by the kernel on these same cores), more on a NIC. */
void vbt_backoff_set_spin(unsigned polls);

/* Called after a progress call on the transport sets that found nothing. can_block: every event
 * we wait for raises a wake-up (vbt_tl_block), so sleeping cannot miss one. A negative status:
 * a transport failed while we slept (logged). */
struct vbt_tl_set;
vbt_status_t vbt_backoff_idle(struct vbt_tl_set *const *sets, int nsets, vbt_backoff_t *b,
                              int can_block);
/* vbt_backoff_idle for a thread of an MPI_THREAD_MULTIPLE process, which holds no lock: the
 * same spinning and yielding, then naps of ~50 us instead of sleeping in the transports (their
 * wake-ups are armed and disarmed under the lock, and a thread asleep holding it would stop the
 * others). Touches no transport; returns 1 when a liveness check is due, which the caller makes
 * if it can take the lock (vbt_tl_check_peers). */
int vbt_backoff_nap(vbt_backoff_t *b);

#endif
