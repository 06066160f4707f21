/* Process-wide state of the MPI library: set up by MPI_Init, torn down by MPI_Finalize. */
#ifndef VBT_RUNTIME_H
#define VBT_RUNTIME_H

#include <pthread.h>

#include "vbt_abi.h"
#include "vbt_pmix.h"
#include "vbt_status.h"

typedef enum {
    VBT_RT_UNINITIALIZED = 0,
    VBT_RT_INITIALIZED,
    VBT_RT_FINALIZED,
} vbt_rt_state_t;

typedef struct {
    vbt_rt_state_t state;
    int thread_level; /* the MPI_THREAD_* level provided */
    pthread_t main_thread;
    vbt_proc_info_t proc;
    int oversubscribed;        /* more ranks on this node than cores: never spin */
    vbt_fortran_abi_t fortran; /* MPI_Abi_set_fortran_info/booleans: kept across Init/Finalize */
} vbt_runtime_t;

extern vbt_runtime_t vbt_rt;

vbt_status_t vbt_runtime_init(int required, int *provided_p);
vbt_status_t vbt_runtime_finalize(void);

#endif
