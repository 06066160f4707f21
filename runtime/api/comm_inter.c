/* Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge, MPI_Comm_test_inter,
 * MPI_Comm_remote_size, MPI_Comm_remote_group, and the refusal of intracommunicator-only calls.
 * The collective work is in runtime/vbt_comm_inter.c. */
#include "vbt_api_comm.h"
#include "vbt_api_p2p.h"
#include "vbt_comm_inter.h"

VBT_PMPI_ALIAS(Intercomm_create)
VBT_PMPI_ALIAS(Intercomm_merge)
VBT_PMPI_ALIAS(Comm_test_inter)
VBT_PMPI_ALIAS(Comm_remote_size)
VBT_PMPI_ALIAS(Comm_remote_group)

int vbt_api_not_inter(vbt_comm_t *c, const char *call, const char *arg)
{
    return vbt_error_raise(c, call, MPI_ERR_COMM,
                           "argument %s is %s, an intercommunicator; %s takes an "
                           "intracommunicator only (MPI_Intercomm_merge makes one of both groups)",
                           arg, c->name, call);
}

static int not_intra(vbt_comm_t *c, const char *call)
{
    return vbt_error_raise(c, call, MPI_ERR_COMM,
                           "argument comm is %s, an intracommunicator; %s takes an "
                           "intercommunicator (MPI_Comm_test_inter tells them apart)",
                           c->name, call);
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char call[] = "MPI_Intercomm_create";
    vbt_comm_t *peer = NULL, *nc = NULL, *bad = NULL;
    int bad_rl = 0;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, local_comm, call);
    VBT_API_PTR(c, call, newintercomm, "newintercomm");
    if (vbt_comm_is_inter(c))
        return vbt_api_not_inter(c, call, "local_comm");
    if (local_leader < 0 || local_leader >= c->size)
        return vbt_error_raise(c, call, MPI_ERR_RANK,
                               "argument local_leader is %d, but local_comm (%s) has %d ranks: "
                               "use 0..%d, the same at every process of local_comm",
                               local_leader, c->name, c->size, c->size - 1);
    if (tag < 0 || tag > VBT_TAG_UB)
        return vbt_error_raise(c, call, MPI_ERR_TAG,
                               "argument tag is %d: use 0..%d (MPI_TAG_UB); wildcards are not "
                               "allowed",
                               tag, VBT_TAG_UB);
    /* peer_comm and remote_leader count at the local leader only (MPI-4.1 Sec. 7.6.2). A bad
     * one still goes through the local group's part, so the others return an error too rather
     * than wait for the leader. */
    if (c->rank == local_leader) {
        peer = vbt_comm_get(peer_comm);
        if (peer != NULL &&
            (remote_leader < 0 || remote_leader >= peer->remote_size ||
             vbt_group_rank_of(c->group, peer->world_ranks[remote_leader]) != MPI_UNDEFINED)) {
            bad_rl = 1;
            bad = peer;
            peer = NULL;
        }
    }
    st = vbt_comm_intercomm_create(c, local_leader, peer, remote_leader, tag, &nc);
    if (c->rank == local_leader && peer == NULL && !bad_rl)
        return vbt_error_raise(
            c, call, MPI_ERR_COMM,
            "argument peer_comm is %s at the local leader; pass a communicator that holds "
            "both leaders (MPI_COMM_WORLD, or a duplicate of it)",
            peer_comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "not a valid communicator");
    if (bad_rl && remote_leader >= 0 && remote_leader < bad->remote_size)
        return vbt_error_raise(c, call, MPI_ERR_RANK,
                               "argument remote_leader is %d, which is in local_comm itself: "
                               "the remote leader must be a process of the other group (the "
                               "two groups must be disjoint)",
                               remote_leader);
    if (bad_rl)
        return vbt_error_raise(c, call, MPI_ERR_RANK,
                               "argument remote_leader is %d, but peer_comm (%s) has %d ranks: "
                               "use 0..%d, the other group's leader's rank there",
                               remote_leader, bad->name, bad->remote_size, bad->remote_size - 1);
    if (st == VBT_ERR_INVALID_PARAM && c->rank != local_leader)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "the local leader (rank %d of local_comm) refused its peer_comm or "
                               "remote_leader argument, or the two groups overlap (the leader's "
                               "error says why): no intercommunicator was made",
                               local_leader);
    if (st != VBT_OK)
        return vbt_api_comm_failed(c, call, st);
    *newintercomm = nc->handle;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char call[] = "MPI_Intercomm_merge";
    vbt_comm_t *nc = NULL;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, intercomm, call);
    VBT_API_PTR(c, call, newintracomm, "newintracomm");
    if (!vbt_comm_is_inter(c))
        return not_intra(c, call);
    st = vbt_comm_inter_merge(c, high, &nc);
    if (st != VBT_OK)
        return vbt_api_comm_failed(c, call, st);
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    VBT_API_ENTER("MPI_Comm_test_inter");
    VBT_API_COMM(c, comm, "MPI_Comm_test_inter");
    VBT_API_PTR(c, "MPI_Comm_test_inter", flag, "flag");
    *flag = vbt_comm_is_inter(c);
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    VBT_API_ENTER("MPI_Comm_remote_size");
    VBT_API_COMM(c, comm, "MPI_Comm_remote_size");
    VBT_API_PTR(c, "MPI_Comm_remote_size", size, "size");
    if (!vbt_comm_is_inter(c))
        return not_intra(c, "MPI_Comm_remote_size");
    *size = c->remote_size;
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    VBT_API_ENTER("MPI_Comm_remote_group");
    VBT_API_COMM(c, comm, "MPI_Comm_remote_group");
    VBT_API_PTR(c, "MPI_Comm_remote_group", group, "group");
    if (!vbt_comm_is_inter(c))
        return not_intra(c, "MPI_Comm_remote_group");
    vbt_group_retain(c->remote_group);
    *group = vbt_group_handle(c->remote_group);
    return MPI_SUCCESS;
}
