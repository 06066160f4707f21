#include "vbt_progress.h"
#include "vbt_compiler.h"
#include "vbt_ib.h"
#include "vbt_runtime.h"

#include <sched.h>
#include <time.h>

/* Empty polls before a dedicated core starts yielding: a few tens of microseconds of spinning,
 * enough for a small-message round trip on a real NIC. */
static unsigned spin_polls = 4096;

void vbt_backoff_set_spin(unsigned polls)
{
    spin_polls = polls;
}
/* After this long without an event, sleep on the completion channel instead of yielding. */
#define VBT_YIELD_NS (20 * 1000 * 1000ull)
#define VBT_BLOCK_MS 100

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void vbt_backoff_idle(vbt_backoff_t *b, int can_block)
{
    b->idle++;
    if (!vbt_rt.oversubscribed && b->idle < spin_polls) {
        vbt_cpu_relax();
        return;
    }
    if (b->start_ns == 0) {
        b->start_ns = now_ns();
    } else if (can_block && (b->idle & 63) == 0 && now_ns() - b->start_ns > VBT_YIELD_NS) {
        /* The timeout bounds how long a missed wake-up could cost; it is not a poll rate. */
        vbt_ib_block(VBT_BLOCK_MS);
        return;
    }
    sched_yield();
}
