/* Performance variables: read where the library keeps them, never counted twice.
 *   <tl>_*     per transport (ib, shm, and self for a rank's messages to itself): MPI messages
 *              and payload bytes sent and received, eagerly or by rendezvous, and sends that
 *              had to wait for credits (vbt_tl_counters_t in each transport's interface object,
 *              incremented by the point-to-point engine: plain increments, no branch);
 *   p2p_*      the matching engine's queues: unexpected messages (level, high-water mark) and
 *              posted receives (level);
 *   rcache_*   the InfiniBand registration cache's statistics (vbt_rcache_stats);
 *   progress_* the progress engine's sleeps in poll() (vbt_tl_block): how many, how many an
 *              event ended, and the time spent in them. These three are not continuous: a
 *              handle counts only while started (MPI_T_pvar_start .. MPI_T_pvar_stop).
 * Counters and timers may be reset and written through a handle (each handle keeps its own
 * offset; the library's own count is never touched); levels and high-water marks are
 * read-only and show the library's value (the high-water mark since the library was first
 * set up). */
#include "vbt_mpit.h"
#include "vbt_p2p.h"
#include "vbt_rcache.h"
#include "vbt_runtime.h"
#include "vbt_tl.h"

#include <stddef.h>
#include <string.h>

enum { TL_IB, TL_SHM, TL_SELF };
enum {
    F_MSGS_SENT,
    F_BYTES_SENT,
    F_EAGER_SENT,
    F_RNDV_SENT,
    F_MSGS_RECVD,
    F_BYTES_RECVD,
    F_EAGER_RECVD,
    F_RNDV_RECVD,
    F_STALLS,
};
#define TL_ARG(_tl, _f) ((_tl)*16 + (_f))

/* A transport's counters summed over the VCIs; 0 when it is not up on this rank. */
static int counters_of(int tl, vbt_tl_counters_t *c)
{
    int found = 1;

    if (tl == TL_SELF) {
        vbt_p2p_stats_t s;
        vbt_p2p_stats(&s);
        *c = s.self;
    } else {
        vbt_p2p_tl_counters(tl == TL_IB ? "ib" : "shm", c, &found);
    }
    return found;
}

static uint64_t get_tl(int arg)
{
    vbt_tl_counters_t cnt;
    const vbt_tl_counters_t *c = &cnt;

    if (!counters_of(arg / 16, &cnt))
        return 0;
    switch (arg % 16) {
    case F_MSGS_SENT:
        return c->msgs_sent;
    case F_BYTES_SENT:
        return c->bytes_sent;
    case F_EAGER_SENT:
        return c->msgs_sent - c->rndv_sent;
    case F_RNDV_SENT:
        return c->rndv_sent;
    case F_MSGS_RECVD:
        return c->msgs_recvd;
    case F_BYTES_RECVD:
        return c->bytes_recvd;
    case F_EAGER_RECVD:
        return c->msgs_recvd - c->rndv_recvd;
    case F_RNDV_RECVD:
        return c->rndv_recvd;
    default:
        return c->stalls;
    }
}

enum { Q_UNEXP, Q_UNEXP_HWM, Q_POSTED };

static uint64_t get_queue(int arg)
{
    vbt_p2p_stats_t s;

    vbt_p2p_stats(&s);
    return arg == Q_UNEXP ? s.unexp_len : arg == Q_UNEXP_HWM ? s.unexp_hwm : s.posted_len;
}

enum { R_HITS, R_MISSES, R_EVICTIONS, R_INVALIDATIONS, R_BYTES, R_PEAK };

static uint64_t get_rcache(int arg)
{
    vbt_tl_set_t *ts = vbt_p2p_tl();
    vbt_rcache_stats_t st;
    const vbt_rcache_t *rc = NULL;

    for (int i = 0; i < ts->nup && rc == NULL; i++)
        rc = ts->up[i]->rcache;
    if (rc == NULL)
        return 0;
    vbt_rcache_stats(rc, &st);
    switch (arg) {
    case R_HITS:
        return st.hits;
    case R_MISSES:
        return st.misses;
    case R_EVICTIONS:
        return st.evictions;
    case R_INVALIDATIONS:
        return st.invalidations;
    case R_BYTES:
        return st.bytes;
    default:
        return st.peak_bytes;
    }
}

enum { P_SLEEPS, P_WAKEUPS, P_BLOCKED };

static uint64_t get_progress(int arg)
{
    uint64_t sleeps, wakeups, blocked_ns;

    vbt_p2p_sleeps(&sleeps, &wakeups, &blocked_ns);
    return arg == P_SLEEPS ? sleeps : arg == P_WAKEUPS ? wakeups : blocked_ns;
}

#define COUNTER     MPI_T_PVAR_CLASS_COUNTER
#define LEVEL       MPI_T_PVAR_CLASS_LEVEL
#define HWM         MPI_T_PVAR_CLASS_HIGHWATERMARK
#define TIMER       MPI_T_PVAR_CLASS_TIMER
#define USER_BASIC  MPI_T_VERBOSITY_USER_BASIC
#define USER_DETAIL MPI_T_VERBOSITY_USER_DETAIL
#define TUNER_BASIC MPI_T_VERBOSITY_TUNER_BASIC

/* A transport's nine counters. */
#define TL_PVARS(_p, _tl, _what, _cat)                                                             \
    {_p "_msgs_sent", "MPI messages sent " _what, COUNTER, USER_BASIC, 0, 1, _cat,                 \
     get_tl,          TL_ARG(_tl, F_MSGS_SENT)},                                                   \
        {_p "_bytes_sent",                                                                         \
         "payload bytes of the MPI messages sent " _what,                                          \
         COUNTER,                                                                                  \
         USER_BASIC,                                                                               \
         0,                                                                                        \
         1,                                                                                        \
         _cat,                                                                                     \
         get_tl,                                                                                   \
         TL_ARG(_tl, F_BYTES_SENT)},                                                               \
        {_p "_eager_sent",                                                                         \
         "MPI messages sent eagerly " _what " (whole, or in fragments)",                           \
         COUNTER,                                                                                  \
         USER_DETAIL,                                                                              \
         0,                                                                                        \
         1,                                                                                        \
         _cat,                                                                                     \
         get_tl,                                                                                   \
         TL_ARG(_tl, F_EAGER_SENT)},                                                               \
        {_p "_rndv_sent",                                                                          \
         "MPI messages sent by rendezvous " _what,                                                 \
         COUNTER,                                                                                  \
         USER_DETAIL,                                                                              \
         0,                                                                                        \
         1,                                                                                        \
         _cat,                                                                                     \
         get_tl,                                                                                   \
         TL_ARG(_tl, F_RNDV_SENT)},                                                                \
        {_p "_msgs_recvd",                                                                         \
         "MPI messages received " _what " (arrived, matched or not)",                              \
         COUNTER,                                                                                  \
         USER_BASIC,                                                                               \
         0,                                                                                        \
         1,                                                                                        \
         _cat,                                                                                     \
         get_tl,                                                                                   \
         TL_ARG(_tl, F_MSGS_RECVD)},                                                               \
        {_p "_bytes_recvd",                                                                        \
         "payload bytes of the MPI messages received " _what,                                      \
         COUNTER,                                                                                  \
         USER_BASIC,                                                                               \
         0,                                                                                        \
         1,                                                                                        \
         _cat,                                                                                     \
         get_tl,                                                                                   \
         TL_ARG(_tl, F_BYTES_RECVD)},                                                              \
        {_p "_eager_recvd",                                                                        \
         "MPI messages received eagerly " _what,                                                   \
         COUNTER,                                                                                  \
         USER_DETAIL,                                                                              \
         0,                                                                                        \
         1,                                                                                        \
         _cat,                                                                                     \
         get_tl,                                                                                   \
         TL_ARG(_tl, F_EAGER_RECVD)},                                                              \
        {_p "_rndv_recvd",                                                                         \
         "MPI messages received by rendezvous " _what,                                             \
         COUNTER,                                                                                  \
         USER_DETAIL,                                                                              \
         0,                                                                                        \
         1,                                                                                        \
         _cat,                                                                                     \
         get_tl,                                                                                   \
         TL_ARG(_tl, F_RNDV_RECVD)},                                                               \
    {                                                                                              \
        _p "_send_stalls",                                                                         \
            "sends (and control messages) " _what " queued because the transport had no credit, "  \
            "send slot or ring cell for them",                                                     \
            COUNTER, TUNER_BASIC, 0, 1, _cat, get_tl, TL_ARG(_tl, F_STALLS)                        \
    }

static const vbt_mpit_pvar_t pvars[] = {
    TL_PVARS("ib", TL_IB, "over InfiniBand verbs", VBT_MPIT_CAT_IB),
    TL_PVARS("shm", TL_SHM, "through shared memory", VBT_MPIT_CAT_SHM),
    TL_PVARS("self", TL_SELF, "between this rank and itself", VBT_MPIT_CAT_P2P),
    {"p2p_unexpected_length",
     "unexpected messages held: arrived before a matching receive and not received yet (queued, "
     "or taken by MPI_Mprobe)",
     LEVEL, TUNER_BASIC, 1, 1, VBT_MPIT_CAT_P2P, get_queue, Q_UNEXP},
    {"p2p_unexpected_hwm", "the most unexpected messages held at once since MPI_Init", HWM,
     TUNER_BASIC, 1, 1, VBT_MPIT_CAT_P2P, get_queue, Q_UNEXP_HWM},
    {"p2p_posted_length", "receives posted and not matched by a message yet", LEVEL, TUNER_BASIC, 1,
     1, VBT_MPIT_CAT_P2P, get_queue, Q_POSTED},
    {"rcache_hits", "registration cache: lookups served by a cached registration", COUNTER,
     TUNER_BASIC, 0, 1, VBT_MPIT_CAT_RCACHE, get_rcache, R_HITS},
    {"rcache_misses", "registration cache: lookups that registered memory", COUNTER, TUNER_BASIC, 0,
     1, VBT_MPIT_CAT_RCACHE, get_rcache, R_MISSES},
    {"rcache_evictions",
     "registration cache: unused registrations dropped to stay under VBT_RCACHE_MAX", COUNTER,
     TUNER_BASIC, 0, 1, VBT_MPIT_CAT_RCACHE, get_rcache, R_EVICTIONS},
    {"rcache_invalidations",
     "registration cache: registrations dropped because their memory was freed or unmapped",
     COUNTER, TUNER_BASIC, 0, 1, VBT_MPIT_CAT_RCACHE, get_rcache, R_INVALIDATIONS},
    {"rcache_bytes_pinned", "registration cache: bytes registered (pinned) now", LEVEL, TUNER_BASIC,
     1, 1, VBT_MPIT_CAT_RCACHE, get_rcache, R_BYTES},
    {"rcache_bytes_pinned_hwm", "registration cache: the most bytes registered at once", HWM,
     TUNER_BASIC, 1, 1, VBT_MPIT_CAT_RCACHE, get_rcache, R_PEAK},
    {"progress_sleeps",
     "times a waiting rank slept in poll() on the transports' wake-up descriptors (counted "
     "while the handle is started)",
     COUNTER, TUNER_BASIC, 0, 0, VBT_MPIT_CAT_PROGRESS, get_progress, P_SLEEPS},
    {"progress_wakeups",
     "sleeps ended by an event (a completion or a local peer's doorbell), "
     "not by the timeout (counted while the handle is started)",
     COUNTER, TUNER_BASIC, 0, 0, VBT_MPIT_CAT_PROGRESS, get_progress, P_WAKEUPS},
    {"progress_blocked_time",
     "seconds spent asleep waiting for the network or a local peer (while the handle is "
     "started)",
     TIMER, USER_BASIC, 0, 0, VBT_MPIT_CAT_PROGRESS, get_progress, P_BLOCKED},
};

_Static_assert(sizeof(pvars) / sizeof(pvars[0]) <= VBT_MPIT_PVARS_MAX, "raise VBT_MPIT_PVARS_MAX");

const vbt_mpit_pvar_t *vbt_mpit_pvars(int *count_p)
{
    *count_p = (int)(sizeof(pvars) / sizeof(pvars[0]));
    return pvars;
}

MPI_Datatype vbt_mpit_pvar_datatype(const vbt_mpit_pvar_t *p)
{
    return p->var_class == TIMER ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
}

uint64_t vbt_mpit_pvar_raw(const vbt_mpit_t *t, int index)
{
    const vbt_mpit_pvar_t *p = &pvars[index];
    uint64_t live = vbt_rt.users > 0 ? p->get(p->arg) : 0;

    switch (p->var_class) {
    case COUNTER:
    case TIMER:
        return t->carry[index] + live;
    case HWM:
        return live > t->carry[index] ? live : t->carry[index];
    default:
        return live;
    }
}

uint64_t vbt_mpit_pvar_value(const vbt_mpit_t *t, const vbt_mpit_pvar_handle_t *h)
{
    const vbt_mpit_pvar_t *p = &pvars[h->index];
    uint64_t raw = vbt_mpit_pvar_raw(t, h->index);

    if (p->var_class != COUNTER && p->var_class != TIMER)
        return raw;
    return h->accum + (h->started ? raw - h->base : 0);
}

void vbt_mpit_pvar_store(const vbt_mpit_pvar_t *p, uint64_t value, void *buf)
{
    if (p->var_class == TIMER)
        *(double *)buf = (double)value * 1e-9;
    else
        *(unsigned long long *)buf = value;
}

uint64_t vbt_mpit_pvar_load(const vbt_mpit_pvar_t *p, const void *buf)
{
    if (p->var_class == TIMER) {
        double s = *(const double *)buf;
        return s > 0 ? (uint64_t)(s * 1e9 + 0.5) : 0;
    }
    return *(const unsigned long long *)buf;
}
