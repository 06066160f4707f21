#include "vbt_runtime.h"
#include "vbt_coll.h"
#include "vbt_comm.h"
#include "vbt_config.h"
#include "vbt_datatype.h"
#include "vbt_group.h"
#include "vbt_info.h"
#include "vbt_log.h"
#include "vbt_message.h"
#include "vbt_mpit.h"
#include "vbt_op.h"
#include "vbt_p2p.h"
#include "vbt_request.h"

#include <mpi.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

vbt_runtime_t vbt_rt;

/* Every level: below MPI_THREAD_MULTIPLE the library takes no lock (we keep no thread-private
 * state, so serialised calls from any thread are safe); at MULTIPLE vbt_rt.cs is on. */
#define VBT_THREAD_LEVEL_MAX MPI_THREAD_MULTIPLE

static int count_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int vbt_runtime_thread_level(int required)
{
    int level = required < VBT_THREAD_LEVEL_MAX ? required : VBT_THREAD_LEVEL_MAX;

    return level < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : level;
}

void vbt_runtime_threads(int level)
{
    if (level == MPI_THREAD_MULTIPLE)
        vbt_rlock_enable(&vbt_rt.cs);
}

/* The one-time setup, for the first user. */
static vbt_status_t setup(void)
{
    vbt_status_t status;
    int cpus;

    status = vbt_config_load();
    if (status != VBT_OK)
        return status;
    status = vbt_coll_init(); /* the VBT_COLL_* knobs */
    if (status != VBT_OK)
        return status;

    status = vbt_pmix_init(&vbt_rt.proc);
    if (status != VBT_OK) {
        vbt_rt.proc.size = 0; /* nothing learnt to keep for a next attempt */
        return status;
    }
    vbt_log_set_identity(NULL, vbt_rt.proc.rank);

    cpus = count_online_cpus();
    vbt_rt.oversubscribed = vbt_rt.proc.local_size > cpus;
    if (vbt_rt.oversubscribed)
        vbt_info("%d ranks share %d cores on %s: waiting ranks will not spin",
                 vbt_rt.proc.local_size, cpus, vbt_rt.proc.hostname);

    vbt_datatype_init();
    status = vbt_comm_init_predefined(vbt_rt.proc.rank, vbt_rt.proc.size);
    if (status != VBT_OK)
        goto err_pmix;
    /* MPI_COMM_WORLD and MPI_COMM_SELF are the World model's: valid from MPI_Init on. Inside,
     * the world communicator carries what sessions agree on (vbt_comm.c). */
    vbt_comm_world_model(vbt_rt.state == VBT_RT_INITIALIZED);
    status = vbt_p2p_init();
    if (status != VBT_OK)
        goto err_p2p;
    vbt_rt.main_thread = pthread_self();
    return VBT_OK;

err_p2p:
    vbt_p2p_cleanup();
err_pmix:
    vbt_pmix_finalize(0);
    return status;
}

/* The teardown, for the last user. */
static vbt_status_t teardown(void)
{
    vbt_status_t status, st;

    /* Queued sends leave first; then nobody tears down a connection a peer still uses. */
    status = vbt_p2p_flush();
    st = vbt_pmix_barrier();
    if (status == VBT_OK)
        status = st;
    vbt_mpit_library_down(); /* a tool's counters outlive the objects that keep them */
    vbt_p2p_cleanup();
    vbt_request_cleanup();
    vbt_coll_tmp_cache_clear(); /* after the requests, whose schedules give theirs back */
    vbt_comm_cleanup_predefined();
    vbt_info_cleanup(); /* after the comms, which hold their hints */
    vbt_info_env_cleanup();
    vbt_datatype_cleanup(); /* after the requests and comms that may hold type references */
    vbt_group_cleanup();    /* after the comms, which hold their groups */
    vbt_op_cleanup();
    vbt_message_cleanup();
    /* After a failure, the launcher must see this rank leave at once (as before an abort). */
    st = vbt_pmix_finalize(status == VBT_OK);
    if (status == VBT_OK)
        status = st;
    /* vbt_rt.proc stays: who we are in the job does not change if the library comes up
     * again. */
    vbt_rlock_disable(&vbt_rt.cs); /* a next user chooses its thread level anew */
    return status;
}

vbt_status_t vbt_runtime_acquire(void)
{
    if (vbt_rt.users == 0) {
        vbt_status_t status = setup();
        if (status != VBT_OK)
            return status;
    }
    /* Atomic (relaxed: a plain move on x86) because VBT_API_ENTER reads it without the lock:
     * another thread may be in any call while a session comes or goes. */
    __atomic_store_n(&vbt_rt.users, vbt_rt.users + 1, __ATOMIC_RELAXED);
    return VBT_OK;
}

vbt_status_t vbt_runtime_release(void)
{
    __atomic_store_n(&vbt_rt.users, vbt_rt.users - 1, __ATOMIC_RELAXED);
    if (vbt_rt.users > 0)
        return VBT_OK;
    return teardown();
}

/* VBT_THREAD_LEVEL as an MPI_THREAD_* level, or -1 (logged) when it names none. */
static int default_thread_level(void)
{
    static const char *const names[] = {"single", "funneled", "serialized", "multiple"};
    const char *v = vbt_cfg.thread_level;

    if (strncasecmp(v, "MPI_THREAD_", 11) == 0)
        v += 11;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(v, names[i]) == 0)
            return MPI_THREAD_SINGLE + i;
    vbt_error("VBT_THREAD_LEVEL=%s: unknown level (known: single, funneled, serialized, "
              "multiple)",
              vbt_cfg.thread_level);
    return -1;
}

vbt_status_t vbt_runtime_init(int required, int *provided_p)
{
    vbt_status_t status = vbt_runtime_acquire();

    if (status != VBT_OK)
        return status;
    if (required < 0) { /* MPI_Init: the knob's level */
        required = default_thread_level();
        if (required < 0) {
            vbt_runtime_release();
            return VBT_ERR_INVALID_PARAM;
        }
    }
    vbt_rt.thread_level = vbt_runtime_thread_level(required);
    vbt_runtime_threads(vbt_rt.thread_level);
    vbt_rt.main_thread = pthread_self();
    vbt_rt.state = VBT_RT_INITIALIZED;
    vbt_comm_world_model(1);
    *provided_p = vbt_rt.thread_level;
    return VBT_OK;
}

vbt_status_t vbt_runtime_finalize(void)
{
    vbt_rt.state = VBT_RT_FINALIZED;
    /* The World model's handles go now, even while sessions keep the library up. */
    vbt_comm_world_model(0);
    return vbt_runtime_release();
}
