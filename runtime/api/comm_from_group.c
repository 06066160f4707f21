/* MPI_Comm_create_from_group (MPI-4.1 Sec. 7.4.2): a communicator from a group, without a parent
 * communicator (the Sessions model, also with groups of MPI_COMM_WORLD). The members agree on
 * a context id through vbt_comm_create_from_group (vbt_comm.c). Errors of the call go to the
 * errhandler argument once it is known to be good: with sessions only, there is no other
 * handler the application could have set. */
#include "vbt_api.h"
#include "vbt_api_comm.h"
#include "vbt_api_info.h"
#include "vbt_comm_inter.h"
#include "vbt_errhandler.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

VBT_PMPI_ALIAS(Comm_create_from_group)
VBT_PMPI_ALIAS(Intercomm_create_from_groups)

/* Raise errclass on handler h, as the new communicator would (the handle passed to a user
 * handler is MPI_COMM_NULL: there is none yet). */
static int __attribute__((format(printf, 4, 5), noinline, cold))
raise_on(const char *call, MPI_Errhandler h, int errclass, const char *fmt, ...)
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
    return vbt_error_invoke(&pending, call, errclass, detail);
}

/* The checks both calls make: the error handler (raised where errors without an object go: it
 * is not known to be good), the string tag and the info; *info_p is NULL for MPI_INFO_NULL. */
static int check_common(const char *call, MPI_Errhandler errhandler, const char *stringtag,
                        MPI_Info info, vbt_info_t **info_p)
{
    if (!vbt_errhandler_valid(errhandler))
        return vbt_error_raise(NULL, call, MPI_ERR_ERRHANDLER,
                               "argument errhandler (handle %#lx) is not a valid error handler; "
                               "pass MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, MPI_ERRORS_RETURN "
                               "or one from MPI_Comm_create_errhandler",
                               (unsigned long)(uintptr_t)errhandler);
    if (!vbt_errhandler_fits(errhandler, VBT_ERRH_COMM))
        return vbt_error_raise(NULL, call, MPI_ERR_ERRHANDLER,
                               "argument errhandler was made by %s, not for communicators; use "
                               "one from MPI_Comm_create_errhandler",
                               vbt_errhandler_maker(errhandler));
    if (stringtag == NULL)
        return raise_on(call, errhandler, MPI_ERR_ARG,
                        "argument stringtag is NULL; pass a string the members agree on");
    if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN) >= MPI_MAX_STRINGTAG_LEN)
        return raise_on(call, errhandler, MPI_ERR_ARG,
                        "argument stringtag is longer than %d characters "
                        "(MPI_MAX_STRINGTAG_LEN - 1)",
                        MPI_MAX_STRINGTAG_LEN - 1);
    *info_p = NULL;
    if (info != MPI_INFO_NULL && (*info_p = vbt_info_get(info)) == NULL)
        return raise_on(call, errhandler, MPI_ERR_INFO,
                        "argument info (%p) is no info object: it was freed or never made by "
                        "MPI_Info_create; pass a live one or MPI_INFO_NULL",
                        (void *)info);
    return MPI_SUCCESS;
}

/* group's object, or the error: MPI_GROUP_NULL or a dead handle. */
static int check_group(const char *call, MPI_Errhandler eh, MPI_Group handle, const char *arg,
                       vbt_group_t **g_p)
{
    *g_p = vbt_group_get(handle);
    if (*g_p == NULL)
        return raise_on(call, eh, MPI_ERR_GROUP,
                        "argument %s (handle %#lx) is %s; pass one from "
                        "MPI_Group_from_session_pset, MPI_Comm_group or a group constructor",
                        arg, (unsigned long)(uintptr_t)handle,
                        handle == MPI_GROUP_NULL ? "MPI_GROUP_NULL"
                                                 : "not a valid group (freed, or never made)");
    return MPI_SUCCESS;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create_from_group";
    vbt_comm_t *nc = NULL;
    vbt_info_t *i;
    vbt_group_t *g;
    vbt_status_t status;
    int rc;

    VBT_API_ENTER(call);
    if ((rc = check_common(call, errhandler, stringtag, info, &i)) != MPI_SUCCESS ||
        (rc = check_group(call, errhandler, group, "group", &g)) != MPI_SUCCESS)
        return rc;
    if (newcomm == NULL)
        return raise_on(call, errhandler, MPI_ERR_ARG, "argument newcomm is NULL");
    /* MPI_GROUP_EMPTY: a local call that gives MPI_COMM_NULL. */
    if (g->size == 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (vbt_group_rank_of(g, vbt_rt.proc.rank) == MPI_UNDEFINED)
        return raise_on(call, errhandler, MPI_ERR_GROUP,
                        "this process (rank %d of mpi://WORLD) is not a member of argument "
                        "group; only the group's members call it",
                        vbt_rt.proc.rank);
    status = vbt_comm_create_from_group(g, stringtag, errhandler, &nc);
    if (status == VBT_OK)
        status = vbt_api_comm_set_hints(nc, i);
    if (status != VBT_OK) {
        if (nc != NULL)
            vbt_comm_free(nc);
        return raise_on(call, errhandler, vbt_status_to_errclass(status),
                        "no communicator was made: %s", vbt_status_string(status));
    }
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

/* MPI_Intercomm_create_from_groups (MPI-4.1 Sec. 7.6.2): collective over both groups. Each
 * group makes a communicator of itself, the two leaders one of the two of them (the bridge),
 * all by the agreement of MPI_Comm_create_from_group under tags derived from stringtag; then
 * MPI_Intercomm_create's core joins them, and the helpers go. The groups are disjoint, so the
 * two sides' agreements name disjoint members and never meet. */
/* A string tag of our own for one step: the caller's, a step name and the first world rank of
 * the members, so the two sides' steps never share a tag. */
static void step_tag(char *out, size_t len, const char *stringtag, const char *step, int first)
{
    snprintf(out, len, "%s\x1fvbt-icfg-%s-%d", stringtag, step, first);
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    vbt_group_t *lg, *rg, *pair = NULL;
    vbt_comm_t *local = NULL, *bridge = NULL, *nc = NULL;
    static const char call[] = "MPI_Intercomm_create_from_groups";
    vbt_info_t *i;
    vbt_status_t st;
    char tag[MPI_MAX_STRINGTAG_LEN + 64];
    int rc, me, leader_w, remote_w, bridge_remote = 0;

    VBT_API_ENTER(call);
    if ((rc = check_common(call, errhandler, stringtag, info, &i)) != MPI_SUCCESS ||
        (rc = check_group(call, errhandler, local_group, "local_group", &lg)) != MPI_SUCCESS ||
        (rc = check_group(call, errhandler, remote_group, "remote_group", &rg)) != MPI_SUCCESS)
        return rc;
    if (lg->size == 0 || rg->size == 0)
        return raise_on(call, errhandler, MPI_ERR_GROUP,
                        "argument %s is empty (MPI_GROUP_EMPTY); both groups need members",
                        lg->size == 0 ? "local_group" : "remote_group");
    if (local_leader < 0 || local_leader >= lg->size)
        return raise_on(call, errhandler, MPI_ERR_RANK,
                        "argument local_leader is %d, but local_group has %d members: use "
                        "0..%d, the same at every member of local_group",
                        local_leader, lg->size, lg->size - 1);
    if (remote_leader < 0 || remote_leader >= rg->size)
        return raise_on(call, errhandler, MPI_ERR_RANK,
                        "argument remote_leader is %d, but remote_group has %d members: use "
                        "0..%d, the other group's leader",
                        remote_leader, rg->size, rg->size - 1);
    if (newintercomm == NULL)
        return raise_on(call, errhandler, MPI_ERR_ARG, "argument newintercomm is NULL");
    me = vbt_group_rank_of(lg, vbt_rt.proc.rank);
    if (me == MPI_UNDEFINED)
        return raise_on(call, errhandler, MPI_ERR_GROUP,
                        "this process (rank %d of mpi://WORLD) is not a member of argument "
                        "local_group; each process passes its own group as local_group",
                        vbt_rt.proc.rank);
    /* Every member checks, so that all of them fail alike rather than some wait. */
    for (int k = 0; k < rg->size; k++)
        if (vbt_group_rank_of(lg, rg->ranks[k]) != MPI_UNDEFINED)
            return raise_on(call, errhandler, MPI_ERR_GROUP,
                            "world rank %d is in both local_group and remote_group; the two "
                            "groups must be disjoint",
                            rg->ranks[k]);

    step_tag(tag, sizeof(tag), stringtag, "local", lg->ranks[0]);
    st = vbt_comm_create_from_group(lg, tag, errhandler, &local);
    leader_w = lg->ranks[local_leader];
    remote_w = rg->ranks[remote_leader];
    if (st == VBT_OK && me == local_leader) {
        /* The bridge of the two leaders, the lower world rank first at both. */
        int two[2] = {leader_w < remote_w ? leader_w : remote_w,
                      leader_w < remote_w ? remote_w : leader_w};

        bridge_remote = two[0] == leader_w ? 1 : 0;
        st = vbt_group_create(2, two, &pair);
        if (st == VBT_OK) {
            step_tag(tag, sizeof(tag), stringtag, "bridge", two[0]);
            st = vbt_comm_create_from_group(pair, tag, errhandler, &bridge);
            vbt_group_release(pair);
        }
    }
    /* A leader without a bridge makes its group fail with it (vbt_comm_intercomm_create). */
    if (local != NULL)
        st = vbt_comm_intercomm_create(local, local_leader, bridge, bridge_remote,
                                       vbt_comm_stringtag_tag(stringtag), &nc);
    if (st == VBT_OK) {
        vbt_errhandler_retain(errhandler);
        vbt_errhandler_release(nc->errhandler);
        nc->errhandler = errhandler;
        st = vbt_api_comm_set_hints(nc, i);
    }
    if (bridge != NULL)
        vbt_comm_free(bridge);
    if (local != NULL)
        vbt_comm_free(local);
    if (st != VBT_OK) {
        if (nc != NULL)
            vbt_comm_free(nc);
        return raise_on(call, errhandler, vbt_status_to_errclass(st),
                        "no intercommunicator was made: %s", vbt_status_string(st));
    }
    *newintercomm = nc->handle;
    return MPI_SUCCESS;
}
