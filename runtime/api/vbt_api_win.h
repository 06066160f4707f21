/* Argument checks and error reporting shared by the one-sided entry points (win_*.c). Errors
 * on a valid window go through the window's error handler (MPI_ERRORS_ARE_FATAL unless the
 * application set another), the others through MPI_COMM_WORLD's. */
#ifndef VBT_API_WIN_H
#define VBT_API_WIN_H

#include "vbt_api.h"
#include "vbt_api_p2p.h"
#include "vbt_win.h"

int vbt_api_bad_win(const char *call, MPI_Win handle) __attribute__((noinline, cold));
int vbt_api_win_raise(vbt_win_t *w, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noinline, cold));
/* Raise a failure of the engine (a vbt_status_t). */
int vbt_api_win_failed(vbt_win_t *w, const char *call, vbt_status_t st)
    __attribute__((noinline, cold));
/* After a synchronisation: raise the first error a target reported, if any. */
int vbt_api_win_reported(vbt_win_t *w, const char *call);
/* The info argument of a window call: MPI_INFO_NULL or a valid info object (*info_p; NULL
 * for MPI_INFO_NULL). */
int vbt_api_win_check_info(vbt_comm_t *c, const char *call, MPI_Info info,
                           struct vbt_info **info_p);
/* Keep the window hints of info on w (win_info.c); VBT_ERR_NO_MEMORY is the only failure. */
vbt_status_t vbt_api_win_set_hints(vbt_win_t *w, const struct vbt_info *info);

/* Resolve a window handle or raise MPI_ERR_WIN from _call. */
#define VBT_API_WIN(_var, _handle, _call)                                                          \
    vbt_win_t *_var = vbt_win_get(_handle);                                                        \
    if (unlikely(_var == NULL))                                                                    \
        return vbt_api_bad_win(_call, _handle);

#endif
