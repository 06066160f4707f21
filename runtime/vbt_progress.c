#include "vbt_progress.h"
#include "vbt_clock.h"
#include "vbt_compiler.h"
#include "vbt_config.h"
#include "vbt_log.h"
#include "vbt_runtime.h"
#include "vbt_tl.h"

#include <sched.h>
#include <string.h>
#include <time.h>

/* Empty polls before hybrid sleeps: a few tens of microseconds of spinning, enough for a
 * small-message round trip on a real NIC or through shared memory. */
static unsigned spin_polls = 4096;
static vbt_progress_mode_t mode = VBT_PROGRESS_HYBRID;

/* After spinning, hybrid yields the core for up to this long before it sleeps: on a shared
 * core the rank we wait for then runs at once, and a short wait (a collective's next step)
 * costs no sleep and wake-up. Measured at 8 ranks on 2 cores (bench/progress): a barrier took
 * ~50 us when waiting ranks slept at once, ~15 us with this. A wait this long is not short. */
#define VBT_YIELD_NS (1000 * 1000ull)

/* How often a spinning wait looks whether a peer died (vbt_tl_check_peers: a clock read unless
 * 100 ms have passed for shm, or a second for the liveness probes over ib): often enough to end
 * within that, rarely enough to cost nothing. */
#define VBT_LIVENESS_POLLS 4096

/* A sleep's timeout bounds what a missed wake-up could cost; it is not a poll rate. */
#define VBT_BLOCK_MS 100

void vbt_backoff_set_spin(unsigned polls)
{
    if (spin_polls > 0) /* auto on a shared core spins none, whatever the device */
        spin_polls = polls;
}

vbt_status_t vbt_progress_init(void)
{
    const char *m = vbt_cfg.progress;

    if (strcmp(m, "spin") == 0) {
        mode = VBT_PROGRESS_SPIN;
    } else if (strcmp(m, "hybrid") == 0) {
        mode = VBT_PROGRESS_HYBRID;
    } else if (strcmp(m, "block") == 0) {
        mode = VBT_PROGRESS_BLOCK;
    } else if (strcmp(m, "auto") == 0) {
        /* On a shared core, spinning even briefly takes the core from the rank we wait for. */
        mode = VBT_PROGRESS_HYBRID;
        if (vbt_rt.oversubscribed)
            spin_polls = 0;
    } else {
        vbt_error("VBT_PROGRESS=%s: unknown mode (known: auto, spin, hybrid, block)", m);
        return VBT_ERR_INVALID_PARAM;
    }
    if (mode == VBT_PROGRESS_SPIN && vbt_rt.oversubscribed)
        vbt_warn("VBT_PROGRESS=spin with more ranks than cores on %s: waiting ranks take the "
                 "cores from the ranks they wait for",
                 vbt_rt.proc.hostname);
    vbt_debug("progress: %s%s, %u polls before sleeping",
              mode == VBT_PROGRESS_SPIN     ? "spin"
              : mode == VBT_PROGRESS_HYBRID ? "hybrid"
                                            : "block",
              strcmp(m, "auto") == 0 ? " (auto)" : "", spin_polls);
    return VBT_OK;
}

vbt_progress_mode_t vbt_progress_mode(void)
{
    return mode;
}

unsigned vbt_progress_poll_yield_after(void)
{
    /* A program's polling loop (HPL's ring broadcasts loop on MPI_Iprobe) is a wait the library
     * cannot see: on a shared core it takes the core from the rank whose message it waits for,
     * each empty poll a few hundred nanoseconds of a time slice that rank needs. After a few
     * (a reply already on its way is then not microseconds away), give the core up. A yield
     * costs ~1 us where nobody else wants the core, so only where the node is oversubscribed;
     * spin says the user wants none of it. Measured at 4 ranks on 2 cores (bench/progress
     * --poll): an MPI_Iprobe ring lap from ~10 ms to tens of microseconds. */
    if (vbt_rt.oversubscribed && mode != VBT_PROGRESS_SPIN)
        return VBT_PROGRESS_POLL_YIELD_AFTER;
    return 0;
}

vbt_status_t vbt_backoff_idle(vbt_tl_set_t *const *sets, int nsets, vbt_backoff_t *b, int can_block)
{
    b->idle++;
    if (likely(mode == VBT_PROGRESS_SPIN ||
               (mode == VBT_PROGRESS_HYBRID && b->idle < spin_polls))) {
        vbt_cpu_relax();
        /* Spinning never sleeps, and sleeping is where dead peers are noticed. */
        if (unlikely(b->idle % VBT_LIVENESS_POLLS == 0))
            return vbt_tl_check_peers(sets, nsets);
        return VBT_OK;
    }
    if (mode == VBT_PROGRESS_HYBRID) {
        uint64_t now = vbt_now_ns();
        if (b->yield_start_ns == 0)
            b->yield_start_ns = now;
        if (now - b->yield_start_ns < VBT_YIELD_NS) {
            sched_yield();
            return VBT_OK;
        }
    }
    if (can_block)
        return vbt_tl_block(sets, nsets, VBT_BLOCK_MS);
    sched_yield();
    return vbt_tl_check_peers(sets, nsets);
}

/* A nap once the yielding is over (MPI_THREAD_MULTIPLE): short enough that a thread woken by
 * nobody still answers quickly, long enough to give the core away. */
#define VBT_NAP_NS (50 * 1000l)

int vbt_backoff_nap(vbt_backoff_t *b)
{
    b->idle++;
    if (mode == VBT_PROGRESS_SPIN || (mode == VBT_PROGRESS_HYBRID && b->idle < spin_polls)) {
        vbt_cpu_relax();
    } else if (mode == VBT_PROGRESS_HYBRID &&
               (b->yield_start_ns == 0 || vbt_now_ns() - b->yield_start_ns < VBT_YIELD_NS)) {
        if (b->yield_start_ns == 0)
            b->yield_start_ns = vbt_now_ns();
        sched_yield();
    } else {
        struct timespec ts = {0, VBT_NAP_NS};
        nanosleep(&ts, NULL);
        return 1; /* a nap is where dead peers are looked for, as a sleep is */
    }
    return b->idle % VBT_LIVENESS_POLLS == 0;
}
