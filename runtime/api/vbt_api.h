/* Shared by the thin MPI entry points: each checks its arguments, calls the implementation and
 * maps the status at this one boundary. */
#ifndef VBT_API_H
#define VBT_API_H

#include <mpi.h>

#include "vbt_comm.h"
#include "vbt_compiler.h"
#include "vbt_error.h"
#include "vbt_runtime.h"

/* MPI_X is a weak alias of PMPI_X, so a profiling library can define MPI_X and call PMPI_X. */
#define VBT_PMPI_ALIAS(_name) _Pragma(VBT_STRINGIFY(weak MPI_##_name = PMPI_##_name))

/* Then the rest of the caller's block runs in the library's critical section (a flag test
 * below MPI_THREAD_MULTIPLE): waits inside give it up while they wait (vbt_p2p_idle). */
#define VBT_API_ENTER(_call)                                                                       \
    /* neither MPI_Init nor a session (read unlocked: sessions come and go under the lock) */      \
    if (unlikely(__atomic_load_n(&vbt_rt.users, __ATOMIC_RELAXED) == 0))                           \
        return vbt_error_not_initialized(_call);                                                   \
    VBT_RLOCK_SCOPE(&vbt_rt.cs)

/* Return from the entry point with the error of a check that failed (checks return MPI_SUCCESS
 * or the error class they raised). */
#define VBT_API_CHECK(_expr)                                                                       \
    do {                                                                                           \
        int _rc = (_expr);                                                                         \
        if (unlikely(_rc != MPI_SUCCESS))                                                          \
            return _rc;                                                                            \
    } while (0)

/* Resolve a communicator handle or raise MPI_ERR_COMM from _call (on MPI_COMM_WORLD's handler:
 * an invalid communicator has none). */
#define VBT_API_COMM(_var, _handle, _call)                                                         \
    vbt_comm_t *_var = vbt_comm_get(_handle);                                                      \
    if (unlikely(_var == NULL))                                                                    \
        return vbt_api_bad_comm(_call, _handle);

/* Raise MPI_ERR_COMM from call: argument arg is an intercommunicator, which call does not take
 * (comm_inter.c). */
int vbt_api_not_inter(vbt_comm_t *c, const char *call, const char *arg)
    __attribute__((noinline, cold));
#define VBT_API_INTRA(_c, _call, _arg)                                                             \
    do {                                                                                           \
        if (unlikely(vbt_comm_is_inter(_c)))                                                       \
            return vbt_api_not_inter((_c), (_call), (_arg));                                       \
    } while (0)

/* The message of an invalid communicator: MPI_COMM_NULL, or the handle's value. */
int vbt_api_bad_comm(const char *call, MPI_Comm handle) __attribute__((noinline, cold));

#endif
