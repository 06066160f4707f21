#include "vbt_error.h"
#include "vbt_log.h"
#include "vbt_runtime.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
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

static void report(const char *call, const vbt_comm_t *comm, int errclass, const char *detail)
{
    const char *name = vbt_errclass_name(errclass);
    char where[MPI_MAX_OBJECT_NAME + 8] = "";

    if (comm != NULL)
        snprintf(where, sizeof(where), " on %s", comm->name);
    /* A single write, so a message from many failing ranks stays one line each. */
    if (vbt_rt.state == VBT_RT_INITIALIZED)
        fprintf(stderr, "Verbatim: rank %d: %s%s failed: %s (%s)\n", vbt_rt.proc.rank, call, where,
                detail, name ? name : "unknown error class");
    else
        fprintf(stderr, "Verbatim: %s failed: %s (%s)\n", call, detail,
                name ? name : "unknown error class");
}

int vbt_error_raise(vbt_comm_t *comm, const char *call, int errclass, const char *fmt, ...)
{
    char detail[512];
    MPI_Errhandler handler;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);

    if (comm == NULL && vbt_rt.state == VBT_RT_INITIALIZED)
        comm = &vbt_comm_world;
    handler = (comm != NULL && vbt_rt.state == VBT_RT_INITIALIZED) ? comm->errhandler
                                                                   : MPI_ERRORS_ARE_FATAL;
    if (handler == MPI_ERRORS_RETURN) {
        vbt_debug("%s returns %s: %s", call, vbt_errclass_name(errclass), detail);
        return errclass;
    }
    report(call, comm, errclass, detail);
    fflush(stdout);
    if (vbt_rt.state == VBT_RT_INITIALIZED)
        vbt_pmix_abort(errclass, "MPI error handler MPI_ERRORS_ARE_FATAL");
    _exit(errclass != 0 ? errclass : 1);
}

int vbt_error_not_initialized(const char *call)
{
    if (vbt_rt.state == VBT_RT_FINALIZED)
        return vbt_error_raise(NULL, call, MPI_ERR_OTHER,
                               "called after MPI_Finalize; only MPI_Finalized, MPI_Initialized, "
                               "MPI_Get_version and MPI_Get_library_version may be");
    return vbt_error_raise(NULL, call, MPI_ERR_OTHER,
                           "called before MPI_Init; call MPI_Init or MPI_Init_thread first");
}
