/* Process-wide state of the MPI library. The one-time setup (PMIx client, transports, shared
 * memory, predefined objects) is shared by the World model (MPI_Init .. MPI_Finalize) and every
 * session (MPI_Session_init .. MPI_Session_finalize): each holds one reference, the first sets
 * the library up and the last tears it down, so a session may begin before, after or without
 * MPI_Init, and again after MPI_Finalize (then the library is set up anew). */
#ifndef VBT_RUNTIME_H
#define VBT_RUNTIME_H

#include <pthread.h>

#include "vbt_abi.h"
#include "vbt_bsend.h"
#include "vbt_lock.h"
#include "vbt_pmix.h"
#include "vbt_status.h"

typedef enum {
    VBT_RT_UNINITIALIZED = 0,
    VBT_RT_INITIALIZED,
    VBT_RT_FINALIZED,
} vbt_rt_state_t;

struct vbt_session;
struct vbt_mpit;

typedef struct {
    vbt_rt_state_t state; /* of the World model only: what MPI_Initialized/MPI_Finalized say */
    int users;            /* World model (while initialised) + live sessions; 0: library down */
    struct vbt_session *sessions; /* the live sessions (vbt_session.h) */
    int thread_level;             /* the MPI_THREAD_* level provided */
    pthread_t main_thread;
    vbt_proc_info_t proc;
    int oversubscribed;        /* more ranks on this node than cores: never spin */
    vbt_fortran_abi_t fortran; /* MPI_Abi_set_fortran_info/booleans: kept across Init/Finalize */
    vbt_bsend_buf_t bsend;     /* the process's buffer (MPI_Buffer_attach) */
    struct vbt_mpit *mpit;     /* the tools interface (MPI_T_init_thread .. MPI_T_finalize) */
    /* The library's critical section: on only once MPI_THREAD_MULTIPLE is granted (World
     * model or a session), off again when the library is torn down. */
    vbt_rlock_t cs;
    /* Freed temporary buffers of the collectives, kept for the next call
     * (collectives/vbt_coll_tmp.c). */
    void *coll_tmp[4];
} vbt_runtime_t;

extern vbt_runtime_t vbt_rt;

/* One more user of the library: the first sets it up (collective over the job, as MPI_Init
 * is). */
vbt_status_t vbt_runtime_acquire(void);
/* One user less: the last tears the library down (collective over the job). */
vbt_status_t vbt_runtime_release(void);

/* The World model: MPI_Init_thread (a reference, the thread level, MPI_COMM_WORLD and
 * MPI_COMM_SELF valid) and MPI_Finalize (their handles invalid, the reference dropped). */
vbt_status_t vbt_runtime_init(int required, int *provided_p);
vbt_status_t vbt_runtime_finalize(void);

/* The thread level a session or MPI_Init_thread asking for required gets. */
int vbt_runtime_thread_level(int required);
/* A user got level: MPI_THREAD_MULTIPLE turns the library's locks on. */
void vbt_runtime_threads(int level);

#endif
