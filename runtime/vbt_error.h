/* The one place where internal failures become MPI error classes, readable messages and the
 * communicator's error handler (MPI_ERRORS_ARE_FATAL by default, or MPI_ERRORS_RETURN). */
#ifndef VBT_ERROR_H
#define VBT_ERROR_H

#include "vbt_comm.h"
#include "vbt_status.h"

int vbt_status_to_errclass(vbt_status_t status);

/* The error class's name ("MPI_ERR_RANK") and description, or NULL for an unknown code. */
const char *vbt_errclass_name(int errclass);
const char *vbt_errclass_description(int errclass);

/* Raise errclass from MPI call `call` on comm (NULL: the call has no communicator and uses
 * MPI_COMM_WORLD's handler, or aborts before MPI_Init). The message says which argument was
 * wrong and how to fix it. Returns errclass when the handler returns; aborts when it is fatal. */
int vbt_error_raise(vbt_comm_t *comm, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noinline, cold));

/* For calls made before MPI_Init or after MPI_Finalize. */
int vbt_error_not_initialized(const char *call) __attribute__((noinline, cold));

#endif
