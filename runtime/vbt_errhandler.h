/* User error handlers (MPI_Comm_create_errhandler). The predefined handlers are the integers of
 * mpi.h and never objects; a user handler is a heap object whose address is the handle, found in
 * a registry before it is dereferenced, so a freed or made-up handle is refused, not followed. */
#ifndef VBT_ERRHANDLER_H
#define VBT_ERRHANDLER_H

#include <mpi.h>

#include "vbt_status.h"

/* What a user handler was made for: MPI_Comm_create_errhandler, MPI_Win_create_errhandler or
 * MPI_Session_create_errhandler. */
enum { VBT_ERRH_COMM = 0, VBT_ERRH_WIN = 1, VBT_ERRH_SESSION = 2 };

typedef struct vbt_errhandler {
    uint32_t magic;
    int refcount; /* the handle (until MPI_Errhandler_free) and every object using it */
    int kind;
    MPI_Comm_errhandler_function *fn;
    MPI_Win_errhandler_function *win_fn;
    MPI_Session_errhandler_function *session_fn;
    struct vbt_errhandler *next; /* the registry of live handlers */
} vbt_errhandler_t;

/* MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT or MPI_ERRORS_RETURN. */
static inline int vbt_errhandler_is_predefined(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_ABORT || h == MPI_ERRORS_RETURN;
}

/* The user handler behind h, or NULL (predefined, null, freed or never created). */
vbt_errhandler_t *vbt_errhandler_get(MPI_Errhandler h);

/* h names a predefined handler or a live user handler whose handle was not freed. */
int vbt_errhandler_valid(MPI_Errhandler h);

vbt_status_t vbt_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *h_p);
vbt_status_t vbt_errhandler_create_win(MPI_Win_errhandler_function *fn, MPI_Errhandler *h_p);
vbt_status_t vbt_errhandler_create_session(MPI_Session_errhandler_function *fn,
                                           MPI_Errhandler *h_p);
/* "MPI_Comm_create_errhandler" (or _Win_, _Session_): what made the user handler h. */
const char *vbt_errhandler_maker(MPI_Errhandler h);

/* May h be set on an object of kind (VBT_ERRH_*)? Predefined handlers go on anything. */
int vbt_errhandler_fits(MPI_Errhandler h, int kind);

/* One more / one less user of h (no-ops for predefined handlers). The object goes with the last
 * reference; MPI_Errhandler_free drops the handle's. */
void vbt_errhandler_retain(MPI_Errhandler h);
void vbt_errhandler_release(MPI_Errhandler h);

#endif
