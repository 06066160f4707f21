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

/* Hand errclass (a class or a code of MPI_Add_error_code) with its message to comm's handler, as
 * vbt_error_raise does; also MPI_Comm_call_errhandler. */
int vbt_error_invoke(vbt_comm_t *comm, const char *call, int errclass, const char *detail)
    __attribute__((noinline, cold));

/* The same for an error on a window (its handler and name, handle passed to a user handler). */
int vbt_error_invoke_win(MPI_Errhandler handler, MPI_Win win, const char *name, const char *call,
                         int errclass, const char *detail) __attribute__((noinline, cold));

/* The same for an error on a session (its handler, handle passed to a user handler). */
int vbt_error_invoke_session(MPI_Errhandler handler, MPI_Session session, const char *call,
                             int errclass, const char *detail) __attribute__((noinline, cold));

/* Codes and classes of MPI_Add_error_class/code are numbered from here (above MPI_ERR_LASTCODE,
 * the last predefined one). */
#define VBT_ERR_FIRST_USER (MPI_ERR_LASTCODE + 1)

/* The class of an error code, or -1 if code is not one (predefined classes are their own). */
int vbt_error_class_of(int code);
/* code is an error class (predefined, or from vbt_error_add(-1, ...)). */
int vbt_error_is_class(int code);
/* A new code of errclass, or (errclass -1) a new class. */
vbt_status_t vbt_error_add(int errclass, int *code_p);
/* The string of a user code or class (VBT_ERR_INVALID_PARAM for other codes). */
vbt_status_t vbt_error_set_string(int code, const char *string);
/* MPI_Remove_error_class (is_class 1) or _code (0): VBT_ERR_INVALID_PARAM if code is not a
 * live user class (code), or while the class has codes or the code has a string. */
vbt_status_t vbt_error_remove(int code, int is_class);
/* MPI_Remove_error_string: VBT_ERR_INVALID_PARAM if code is not a user code with a string. */
vbt_status_t vbt_error_remove_string(int code);
/* A live code of the user class errclass, or -1 (for error messages). */
int vbt_error_first_code_of(int errclass);
/* code is a live user code or class with a string of MPI_Add_error_string. */
int vbt_error_has_string(int code);
/* A user code's string ("" if none was set), or NULL for predefined or unknown codes. */
const char *vbt_error_user_string(int code);
/* The largest error code in use: the MPI_LASTUSEDCODE attribute. */
int vbt_error_last_used(void);

/* For calls made before MPI_Init or after MPI_Finalize. */
int vbt_error_not_initialized(const char *call) __attribute__((noinline, cold));

#endif
