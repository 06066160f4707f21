/* Shared by the MPI_T entry points (mpit_*.c): the tools interface's calls return their error
 * class directly (no error handler), after logging the cause at debug level. */
#ifndef VBT_API_MPIT_H
#define VBT_API_MPIT_H

#include "vbt_api.h"
#include "vbt_mpit.h"

/* Declare t, the tools interface's object, or return MPI_T_ERR_NOT_INITIALIZED. */
#define VBT_MPIT_ENTER(_call)                                                                      \
    vbt_mpit_t *t = vbt_rt.mpit;                                                                   \
    if (unlikely(t == NULL))                                                                       \
        return vbt_mpit_error(_call, MPI_T_ERR_NOT_INITIALIZED,                                    \
                              "call MPI_T_init_thread first (it may come before MPI_Init)");       \
    VBT_RLOCK_SCOPE(&vbt_rt.cs) /* the library's critical section (vbt_lock.h) */

/* Return MPI_T_ERR_INVALID when a required pointer argument is NULL. */
#define VBT_MPIT_NONNULL(_call, _arg)                                                              \
    do {                                                                                           \
        if (unlikely((_arg) == NULL))                                                              \
            return vbt_mpit_error(_call, MPI_T_ERR_INVALID, "argument %s is NULL", #_arg);         \
    } while (0)

/* Return MPI_T_ERR_INVALID_INDEX unless 0 <= _index < _n. */
#define VBT_MPIT_INDEX(_call, _what, _index, _n, _count_call)                                      \
    do {                                                                                           \
        if (unlikely((_index) < 0 || (_index) >= (_n)))                                            \
            return vbt_mpit_error(_call, MPI_T_ERR_INVALID_INDEX,                                  \
                                  "argument %s %d is not a " _what " index (0 to %d: "             \
                                  "see " _count_call ")",                                          \
                                  #_index, (_index), (_n)-1);                                      \
    } while (0)

#endif
