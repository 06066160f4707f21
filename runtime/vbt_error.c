#include "vbt_error.h"
#include "vbt_errhandler.h"
#include "vbt_log.h"
#include "vbt_runtime.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int errclass;
    const char *name;
    const char *description;
} errclass_info_t;

#define E(_c, _d)                                                                                  \
    {                                                                                              \
        _c, #_c, _d                                                                                \
    }
static const errclass_info_t errclasses[] = {
    E(MPI_SUCCESS, "no error"),
    E(MPI_ERR_BUFFER, "invalid buffer pointer"),
    E(MPI_ERR_COUNT, "invalid count argument"),
    E(MPI_ERR_TYPE, "invalid datatype"),
    E(MPI_ERR_TAG, "invalid tag"),
    E(MPI_ERR_COMM, "invalid communicator"),
    E(MPI_ERR_RANK, "invalid rank"),
    E(MPI_ERR_REQUEST, "invalid request"),
    E(MPI_ERR_ROOT, "invalid root"),
    E(MPI_ERR_GROUP, "invalid group"),
    E(MPI_ERR_OP, "invalid operation"),
    E(MPI_ERR_TOPOLOGY, "invalid topology"),
    E(MPI_ERR_DIMS, "invalid dimension argument"),
    E(MPI_ERR_ARG, "invalid argument"),
    E(MPI_ERR_UNKNOWN, "unknown error"),
    E(MPI_ERR_TRUNCATE, "message truncated: it is longer than the receive buffer"),
    E(MPI_ERR_OTHER, "other error"),
    E(MPI_ERR_INTERN, "internal error"),
    E(MPI_ERR_IN_STATUS, "error code is in status"),
    E(MPI_ERR_PENDING, "pending request"),
    E(MPI_ERR_KEYVAL, "invalid keyval"),
    E(MPI_ERR_NO_MEM, "out of memory"),
    E(MPI_ERR_BASE, "invalid base address"),
    E(MPI_ERR_INFO_KEY, "info key too long"),
    E(MPI_ERR_INFO_VALUE, "info value too long"),
    E(MPI_ERR_INFO_NOKEY, "info key not defined"),
    E(MPI_ERR_SPAWN, "error in spawning processes"),
    E(MPI_ERR_PORT, "invalid port name"),
    E(MPI_ERR_SERVICE, "invalid service name"),
    E(MPI_ERR_NAME, "invalid name"),
    E(MPI_ERR_WIN, "invalid window"),
    E(MPI_ERR_SIZE, "invalid size"),
    E(MPI_ERR_DISP, "invalid displacement"),
    E(MPI_ERR_INFO, "invalid info object"),
    E(MPI_ERR_LOCKTYPE, "invalid lock type"),
    E(MPI_ERR_ASSERT, "invalid assert argument"),
    E(MPI_ERR_RMA_CONFLICT, "conflicting accesses to a window"),
    E(MPI_ERR_RMA_SYNC, "wrong synchronisation of RMA calls"),
    E(MPI_ERR_RMA_RANGE, "target memory outside the window"),
    E(MPI_ERR_RMA_ATTACH, "memory cannot be attached"),
    E(MPI_ERR_RMA_SHARED, "memory cannot be shared"),
    E(MPI_ERR_RMA_FLAVOR, "wrong window flavor"),
    E(MPI_ERR_FILE, "invalid file handle"),
    E(MPI_ERR_NOT_SAME, "collective argument not identical on all processes"),
    E(MPI_ERR_AMODE, "invalid file access mode"),
    E(MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation"),
    E(MPI_ERR_UNSUPPORTED_OPERATION, "unsupported operation"),
    E(MPI_ERR_NO_SUCH_FILE, "no such file"),
    E(MPI_ERR_FILE_EXISTS, "file exists"),
    E(MPI_ERR_BAD_FILE, "invalid file name"),
    E(MPI_ERR_ACCESS, "permission denied"),
    E(MPI_ERR_NO_SPACE, "not enough space"),
    E(MPI_ERR_QUOTA, "quota exceeded"),
    E(MPI_ERR_READ_ONLY, "read-only file or file system"),
    E(MPI_ERR_FILE_IN_USE, "file in use"),
    E(MPI_ERR_DUP_DATAREP, "data representation already defined"),
    E(MPI_ERR_CONVERSION, "data conversion failed"),
    E(MPI_ERR_IO, "I/O error"),
    E(MPI_ERR_SESSION, "invalid session"),
    E(MPI_ERR_PROC_ABORTED, "a peer process aborted"),
    E(MPI_ERR_VALUE_TOO_LARGE, "value too large for the output argument"),
    E(MPI_ERR_ERRHANDLER, "invalid error handler"),
    /* The tools interface's (MPI_T, runtime/api/mpit_*.c). */
    E(MPI_T_ERR_CANNOT_INIT, "the tools interface cannot be initialised"),
    E(MPI_T_ERR_NOT_ACCESSIBLE, "the tools interface is not accessible"),
    E(MPI_T_ERR_NOT_INITIALIZED, "the tools interface is not initialised: call MPI_T_init_thread"),
    E(MPI_T_ERR_NOT_SUPPORTED, "not supported by the tools interface"),
    E(MPI_T_ERR_MEMORY, "out of memory in the tools interface"),
    E(MPI_T_ERR_INVALID, "invalid use of the tools interface or bad parameter value"),
    E(MPI_T_ERR_INVALID_INDEX, "invalid index of a variable, category, event or source"),
    E(MPI_T_ERR_INVALID_ITEM, "invalid item index of an enumeration"),
    E(MPI_T_ERR_INVALID_SESSION, "invalid performance-variable session"),
    E(MPI_T_ERR_INVALID_HANDLE, "invalid tools-interface handle"),
    E(MPI_T_ERR_INVALID_NAME, "no variable, category or event of that name"),
    E(MPI_T_ERR_OUT_OF_HANDLES, "no more tools-interface handles"),
    E(MPI_T_ERR_OUT_OF_SESSIONS, "no more performance-variable sessions"),
    E(MPI_T_ERR_CVAR_SET_NOT_NOW, "the control variable cannot be set now"),
    E(MPI_T_ERR_CVAR_SET_NEVER, "the control variable cannot be set (read-only or constant)"),
    E(MPI_T_ERR_PVAR_NO_WRITE, "the performance variable cannot be written or reset"),
    E(MPI_T_ERR_PVAR_NO_STARTSTOP, "the performance variable is continuous: no start or stop"),
    E(MPI_T_ERR_PVAR_NO_ATOMIC, "the performance variable cannot be read and reset atomically"),
};
#undef E

static const errclass_info_t *find_class(int errclass)
{
    for (size_t i = 0; i < sizeof(errclasses) / sizeof(errclasses[0]); i++) {
        if (errclasses[i].errclass == errclass)
            return &errclasses[i];
    }
    return NULL;
}

const char *vbt_errclass_name(int errclass)
{
    const errclass_info_t *e = find_class(errclass);
    return e ? e->name : NULL;
}

const char *vbt_errclass_description(int errclass)
{
    const errclass_info_t *e = find_class(errclass);
    return e ? e->description : NULL;
}

int vbt_status_to_errclass(vbt_status_t status)
{
    switch (status) {
    case VBT_OK:
    case VBT_INPROGRESS:
        return MPI_SUCCESS;
    case VBT_ERR_NO_MEMORY:
        return MPI_ERR_NO_MEM;
    case VBT_ERR_INVALID_PARAM:
        return MPI_ERR_ARG;
    case VBT_ERR_TRUNCATE:
        return MPI_ERR_TRUNCATE;
    case VBT_ERR_UNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    case VBT_ERR_PEER_FAILED:
        return MPI_ERR_PROC_ABORTED;
    case VBT_ERR_ABORTED:
        return MPI_ERR_PROC_ABORTED;
    case VBT_ERR_IO:
        return MPI_ERR_IO;
    default:
        return MPI_ERR_OTHER;
    }
}

/* Classes and codes added by MPI_Add_error_class / MPI_Add_error_code: code
 * VBT_ERR_FIRST_USER + i is user.codes[i]. A class added this way is a code of its own class.
 * Removed ones (MPI_Remove_error_class/code) keep their slot, marked, and their number is not
 * given out again: a stale value then stays invalid instead of meaning another error. */
typedef struct {
    int errclass;
    int removed;
    char *string; /* MPI_Add_error_string's, or NULL: MPI_Error_string then says "" */
} user_code_t;

static struct {
    user_code_t *codes;
    int n, cap;
} user;

static user_code_t *user_code(int code)
{
    user_code_t *u;

    if (code < VBT_ERR_FIRST_USER || code - VBT_ERR_FIRST_USER >= user.n)
        return NULL;
    u = &user.codes[code - VBT_ERR_FIRST_USER];
    return u->removed ? NULL : u;
}

int vbt_error_class_of(int code)
{
    const user_code_t *u = user_code(code);

    if (u != NULL)
        return u->errclass;
    return find_class(code) != NULL ? code : -1;
}

int vbt_error_is_class(int code)
{
    return vbt_error_class_of(code) == code;
}

vbt_status_t vbt_error_add(int errclass, int *code_p)
{
    int code = VBT_ERR_FIRST_USER + user.n;

    if (user.n == user.cap) {
        int cap = user.cap ? 2 * user.cap : 16;
        user_code_t *codes = realloc(user.codes, (size_t)cap * sizeof(*codes));
        if (codes == NULL)
            return VBT_ERR_NO_MEMORY;
        user.codes = codes;
        user.cap = cap;
    }
    user.codes[user.n].errclass = errclass < 0 ? code : errclass;
    user.codes[user.n].removed = 0;
    user.codes[user.n].string = NULL;
    user.n++;
    *code_p = code;
    return VBT_OK;
}

vbt_status_t vbt_error_set_string(int code, const char *string)
{
    user_code_t *u = user_code(code);
    char *copy;

    if (u == NULL)
        return VBT_ERR_INVALID_PARAM;
    copy = strdup(string);
    if (copy == NULL)
        return VBT_ERR_NO_MEMORY;
    free(u->string);
    u->string = copy;
    return VBT_OK;
}

vbt_status_t vbt_error_remove(int code, int is_class)
{
    user_code_t *u = user_code(code);

    if (u == NULL || (u->errclass == code) != is_class)
        return VBT_ERR_INVALID_PARAM;
    if (is_class) {
        for (int i = 0; i < user.n; i++) {
            if (!user.codes[i].removed && user.codes[i].errclass == code &&
                VBT_ERR_FIRST_USER + i != code)
                return VBT_ERR_INVALID_PARAM;
        }
    } else if (u->string != NULL) {
        return VBT_ERR_INVALID_PARAM;
    }
    free(u->string);
    u->string = NULL;
    u->removed = 1;
    return VBT_OK;
}

vbt_status_t vbt_error_remove_string(int code)
{
    user_code_t *u = user_code(code);

    if (u == NULL || u->string == NULL)
        return VBT_ERR_INVALID_PARAM;
    free(u->string);
    u->string = NULL;
    return VBT_OK;
}

int vbt_error_first_code_of(int errclass)
{
    for (int i = 0; i < user.n; i++) {
        if (!user.codes[i].removed && user.codes[i].errclass == errclass &&
            VBT_ERR_FIRST_USER + i != errclass)
            return VBT_ERR_FIRST_USER + i;
    }
    return -1;
}

int vbt_error_has_string(int code)
{
    const user_code_t *u = user_code(code);
    return u != NULL && u->string != NULL;
}

const char *vbt_error_user_string(int code)
{
    const user_code_t *u = user_code(code);

    if (u == NULL)
        return NULL;
    return u->string != NULL ? u->string : "";
}

int vbt_error_last_used(void)
{
    return user.n > 0 ? VBT_ERR_FIRST_USER + user.n - 1 : MPI_ERR_LASTCODE;
}

static void report_on(const char *call, const char *object, int errclass, const char *detail)
{
    const char *name = vbt_errclass_name(vbt_error_class_of(errclass));
    char where[MPI_MAX_OBJECT_NAME + 8] = "";

    if (object != NULL)
        snprintf(where, sizeof(where), " on %s", object);
    /* A single write, so a message from many failing ranks stays one line each. */
    if (vbt_rt.users > 0)
        fprintf(stderr, "Verbatim: rank %d: %s%s failed: %s (%s)\n", vbt_rt.proc.rank, call, where,
                detail, name ? name : "user-defined error class");
    else
        fprintf(stderr, "Verbatim: %s failed: %s (%s)\n", call, detail,
                name ? name : "user-defined error class");
}

static void report(const char *call, const vbt_comm_t *comm, int errclass, const char *detail)
{
    report_on(call, comm != NULL ? comm->name : NULL, errclass, detail);
}

int vbt_error_invoke_win(MPI_Errhandler handler, MPI_Win win, const char *name, const char *call,
                         int errclass, const char *detail)
{
    if (handler == MPI_ERRORS_RETURN) {
        vbt_debug("%s returns %s: %s", call, vbt_errclass_name(vbt_error_class_of(errclass)),
                  detail);
        return errclass;
    }
    if (!vbt_errhandler_is_predefined(handler)) {
        vbt_errhandler_t *e = (vbt_errhandler_t *)handler;
        MPI_Win h = win;
        int code = errclass;

        vbt_debug("%s calls the user error handler with %d: %s", call, errclass, detail);
        if (e->kind == VBT_ERRH_WIN)
            e->win_fn(&h, &code);
        return errclass;
    }
    report_on(call, name, errclass, detail);
    fflush(stdout);
    vbt_pmix_abort(errclass, handler == MPI_ERRORS_ABORT
                                 ? "MPI error handler MPI_ERRORS_ABORT"
                                 : "MPI error handler MPI_ERRORS_ARE_FATAL");
}

int vbt_error_invoke_session(MPI_Errhandler handler, MPI_Session session, const char *call,
                             int errclass, const char *detail)
{
    if (handler == MPI_ERRORS_RETURN) {
        vbt_debug("%s returns %s: %s", call, vbt_errclass_name(vbt_error_class_of(errclass)),
                  detail);
        return errclass;
    }
    if (!vbt_errhandler_is_predefined(handler)) {
        vbt_errhandler_t *e = (vbt_errhandler_t *)handler;
        MPI_Session h = session; /* a copy: the handler may write to it */
        int code = errclass;

        vbt_debug("%s calls the user error handler with %d: %s", call, errclass, detail);
        if (e->kind == VBT_ERRH_SESSION)
            e->session_fn(&h, &code);
        return errclass;
    }
    report_on(call, "a session", errclass, detail);
    fflush(stdout);
    vbt_pmix_abort(errclass, handler == MPI_ERRORS_ABORT
                                 ? "MPI error handler MPI_ERRORS_ABORT"
                                 : "MPI error handler MPI_ERRORS_ARE_FATAL");
}

int vbt_error_invoke(vbt_comm_t *comm, const char *call, int errclass, const char *detail)
{
    MPI_Errhandler handler;
    vbt_errhandler_t *user_handler;

    if (comm == NULL && vbt_rt.state == VBT_RT_INITIALIZED)
        comm = &vbt_comm_world;
    /* Communicators of sessions work without MPI_Init. */
    handler = (comm != NULL && vbt_rt.users > 0) ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
    if (handler == MPI_ERRORS_RETURN) {
        vbt_debug("%s returns %s: %s", call, vbt_errclass_name(vbt_error_class_of(errclass)),
                  detail);
        return errclass;
    }
    if (!vbt_errhandler_is_predefined(handler)) {
        /* The communicator holds a reference, so the handler lives through the call even if
         * the application frees its handle inside. The handle passed is a copy: a handler that
         * writes to it must not change the communicator. */
        MPI_Comm h = comm->handle;
        int code = errclass;

        user_handler = (vbt_errhandler_t *)handler;
        vbt_debug("%s calls the user error handler with %d: %s", call, errclass, detail);
        user_handler->fn(&h, &code);
        return errclass;
    }
    report(call, comm, errclass, detail);
    fflush(stdout);
    if (vbt_rt.users > 0)
        vbt_pmix_abort(errclass, handler == MPI_ERRORS_ABORT
                                     ? "MPI error handler MPI_ERRORS_ABORT"
                                     : "MPI error handler MPI_ERRORS_ARE_FATAL");
    _exit(errclass > 0 && errclass < 256 ? errclass : 1);
}

int vbt_error_raise(vbt_comm_t *comm, const char *call, int errclass, const char *fmt, ...)
{
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return vbt_error_invoke(comm, call, errclass, detail);
}

int vbt_error_not_initialized(const char *call)
{
    if (vbt_rt.state == VBT_RT_FINALIZED)
        return vbt_error_raise(NULL, call, MPI_ERR_OTHER,
                               "called after MPI_Finalize with no session open; only "
                               "MPI_Finalized, MPI_Initialized, MPI_Get_version, "
                               "MPI_Get_library_version, MPI_Error_string, MPI_Error_class, the "
                               "MPI_Info calls and MPI_Session_init may be");
    return vbt_error_raise(NULL, call, MPI_ERR_OTHER,
                           "called before MPI_Init; call MPI_Init, MPI_Init_thread or "
                           "MPI_Session_init first");
}
