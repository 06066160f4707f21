/* MPI_Comm_create_from_group (MPI-4.1 Sec. 7.4.2): a communicator from a group, without a parent
 * communicator (the Sessions model, also with groups of MPI_COMM_WORLD). The members agree on
 * a context id through vbt_comm_create_from_group (vbt_comm.c). Errors of the call go to the
 * errhandler argument once it is known to be good: with sessions only, there is no other
 * handler the application could have set. */
#include "vbt_api.h"
#include "vbt_api_comm.h"
#include "vbt_api_info.h"
#include "vbt_errhandler.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

VBT_PMPI_ALIAS(Comm_create_from_group)

#define CALL "MPI_Comm_create_from_group"

/* Raise errclass on handler h, as the new communicator would (the handle passed to a user
 * handler is MPI_COMM_NULL: there is none yet). */
static int __attribute__((format(printf, 3, 4), noinline, cold))
raise_on(MPI_Errhandler h, int errclass, const char *fmt, ...)
{
    vbt_comm_t pending;
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    memset(&pending, 0, sizeof(pending));
    pending.handle = MPI_COMM_NULL;
    pending.errhandler = h;
    snprintf(pending.name, sizeof(pending.name), "the communicator being created");
    return vbt_error_invoke(&pending, CALL, errclass, detail);
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    vbt_comm_t *nc = NULL;
    vbt_info_t *i;
    vbt_status_t status;
    size_t len;

    VBT_API_ENTER(CALL);
    if (!vbt_errhandler_valid(errhandler))
        return vbt_error_raise(NULL, CALL, MPI_ERR_ERRHANDLER,
                               "argument errhandler (handle %#lx) is not a valid error handler; "
                               "pass MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN "
                               "or one from MPI_Comm_create_errhandler",
                               (unsigned long)(uintptr_t)errhandler);
    if (!vbt_errhandler_fits(errhandler, VBT_ERRH_COMM))
        return vbt_error_raise(NULL, CALL, MPI_ERR_ERRHANDLER,
                               "argument errhandler was made by %s, not for communicators; use "
                               "one from MPI_Comm_create_errhandler",
                               vbt_errhandler_maker(errhandler));
    vbt_group_t *g = vbt_group_get(group);
    if (g == NULL)
        return raise_on(errhandler, MPI_ERR_GROUP,
                        "argument group (handle %#lx) is %s; pass one from "
                        "MPI_Group_from_session_pset, MPI_Comm_group or a group constructor",
                        (unsigned long)(uintptr_t)group,
                        group == MPI_GROUP_NULL ? "MPI_GROUP_NULL"
                                                : "not a valid group (freed, or never made)");
    if (stringtag == NULL)
        return raise_on(errhandler, MPI_ERR_ARG,
                        "argument stringtag is NULL; pass a string the members agree on");
    len = strnlen(stringtag, MPI_MAX_STRINGTAG_LEN);
    if (len >= MPI_MAX_STRINGTAG_LEN)
        return raise_on(errhandler, MPI_ERR_ARG,
                        "argument stringtag is longer than %d characters "
                        "(MPI_MAX_STRINGTAG_LEN - 1)",
                        MPI_MAX_STRINGTAG_LEN - 1);
    if (newcomm == NULL)
        return raise_on(errhandler, MPI_ERR_ARG, "argument newcomm is NULL");
    if (info != MPI_INFO_NULL && (i = vbt_info_get(info)) == NULL)
        return raise_on(errhandler, MPI_ERR_INFO,
                        "argument info (%p) is no info object: it was freed or never made by "
                        "MPI_Info_create; pass a live one or MPI_INFO_NULL",
                        (void *)info);
    if (info == MPI_INFO_NULL)
        i = NULL;
    /* MPI_GROUP_EMPTY: a local call that gives MPI_COMM_NULL. */
    if (g->size == 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (vbt_group_rank_of(g, vbt_rt.proc.rank) == MPI_UNDEFINED)
        return raise_on(errhandler, MPI_ERR_GROUP,
                        "this process (rank %d of mpi://WORLD) is not a member of argument "
                        "group; only the group's members call it",
                        vbt_rt.proc.rank);
    status = vbt_comm_create_from_group(g, stringtag, errhandler, &nc);
    if (status == VBT_OK)
        status = vbt_api_comm_set_hints(nc, i);
    if (status != VBT_OK) {
        if (nc != NULL)
            vbt_comm_free(nc);
        return raise_on(errhandler, vbt_status_to_errclass(status), "no communicator was made: %s",
                        vbt_status_string(status));
    }
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}
