/* MPI_Group_* and MPI_Comm_group: groups are local objects, nothing here communicates. Errors go
 * to MPI_COMM_WORLD's handler (a group has none of its own). */
#include "vbt_api_comm.h"

#include <stdint.h>
#include <stdlib.h>

VBT_PMPI_ALIAS(Comm_group)
VBT_PMPI_ALIAS(Group_size)
VBT_PMPI_ALIAS(Group_rank)
VBT_PMPI_ALIAS(Group_incl)
VBT_PMPI_ALIAS(Group_excl)
VBT_PMPI_ALIAS(Group_range_incl)
VBT_PMPI_ALIAS(Group_range_excl)
VBT_PMPI_ALIAS(Group_union)
VBT_PMPI_ALIAS(Group_intersection)
VBT_PMPI_ALIAS(Group_difference)
VBT_PMPI_ALIAS(Group_translate_ranks)
VBT_PMPI_ALIAS(Group_compare)
VBT_PMPI_ALIAS(Group_free)

int vbt_api_bad_group(const char *call, const char *arg, MPI_Group handle)
{
    if (handle == MPI_GROUP_NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_GROUP,
                               "argument %s is MPI_GROUP_NULL; pass a group (MPI_GROUP_EMPTY for "
                               "an empty one)",
                               arg);
    return vbt_error_raise(NULL, call, MPI_ERR_GROUP,
                           "argument %s (handle %#lx) is not a valid group (freed already?)", arg,
                           (unsigned long)(uintptr_t)handle);
}

int vbt_api_comm_failed(vbt_comm_t *c, const char *call, vbt_status_t status)
{
    return vbt_error_raise(c, call, vbt_status_to_errclass(status), "%s (the lines above say why)",
                           vbt_status_string(status));
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    VBT_API_ENTER("MPI_Comm_group");
    VBT_API_COMM(c, comm, "MPI_Comm_group");
    VBT_API_PTR(c, "MPI_Comm_group", group, "group");
    vbt_group_retain(c->group);
    *group = vbt_group_handle(c->group);
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    VBT_API_ENTER("MPI_Group_size");
    VBT_API_GROUP(g, group, "MPI_Group_size", "group");
    VBT_API_PTR(NULL, "MPI_Group_size", size, "size");
    *size = g->size;
    return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    VBT_API_ENTER("MPI_Group_rank");
    VBT_API_GROUP(g, group, "MPI_Group_rank", "group");
    VBT_API_PTR(NULL, "MPI_Group_rank", rank, "rank");
    *rank = vbt_group_rank_of(g, vbt_rt.proc.rank);
    return MPI_SUCCESS;
}

/* n and the ranks list of Group_incl/excl; MPI_SUCCESS or the error raised. */
static int check_list(const char *call, const vbt_group_t *g, int n, const int *ranks)
{
    char why[160];

    /* n above the group's size is caught below: some rank is out of range or repeated. */
    if (n < 0)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG, "argument n is %d; it must be 0 or more",
                               n);
    if (n > 0 && ranks == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument ranks is NULL with n %d; pass n ranks", n);
    if (vbt_group_check_ranks(g, n, ranks, why, sizeof(why)) >= 0)
        return vbt_error_raise(NULL, call, MPI_ERR_RANK, "argument %s", why);
    return MPI_SUCCESS;
}

/* The common end of the calls making a new group from group from (*g set by the call when status
 * is VBT_OK): the new one derives from the same session. */
static int new_group(const char *call, vbt_status_t status, const vbt_group_t *from,
                     vbt_group_t **g, MPI_Group *newgroup)
{
    if (status != VBT_OK)
        return vbt_api_comm_failed(NULL, call, status);
    if (*g != &vbt_group_empty)
        (*g)->session = from->session;
    *newgroup = vbt_group_handle(*g);
    return MPI_SUCCESS;
}

/* Group_incl and Group_excl: the same checks, and the ranks kept or dropped. */
static int list_common(const char *call, MPI_Group group, int n, const int ranks[],
                       MPI_Group *newgroup, int incl)
{
    vbt_group_t *out = NULL;
    vbt_status_t status;
    int rc;

    VBT_API_ENTER(call);
    VBT_API_GROUP(g, group, call, "group");
    VBT_API_PTR(NULL, call, newgroup, "newgroup");
    rc = check_list(call, g, n, ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    status = incl ? vbt_group_incl(g, n, ranks, &out) : vbt_group_excl(g, n, ranks, &out);
    return new_group(call, status, g, &out, newgroup);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return list_common("MPI_Group_incl", group, n, ranks, newgroup, 1);
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return list_common("MPI_Group_excl", group, n, ranks, newgroup, 0);
}

static int range_common(const char *call, MPI_Group group, int n, int ranges[][3],
                        MPI_Group *newgroup, int incl)
{
    vbt_group_t *out = NULL;
    int *list = NULL, count = 0;
    char why[200];
    vbt_status_t status;

    VBT_API_ENTER(call);
    VBT_API_GROUP(g, group, call, "group");
    VBT_API_PTR(NULL, call, newgroup, "newgroup");
    if (n < 0)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG, "argument n is %d; it must be 0 or more",
                               n);
    if (n > 0 && ranges == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG,
                               "argument ranges is NULL with n %d; pass n triplets", n);
    status = vbt_group_expand_ranges(g, n, ranges, &list, &count, why, sizeof(why));
    if (status == VBT_ERR_INVALID_PARAM)
        return vbt_error_raise(NULL, call, MPI_ERR_RANK, "argument %s", why);
    if (status != VBT_OK)
        return vbt_api_comm_failed(NULL, call, status);
    status = incl ? vbt_group_incl(g, count, list, &out) : vbt_group_excl(g, count, list, &out);
    free(list);
    return new_group(call, status, g, &out, newgroup);
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_common("MPI_Group_range_incl", group, n, ranges, newgroup, 1);
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_common("MPI_Group_range_excl", group, n, ranges, newgroup, 0);
}

typedef vbt_status_t (*set_op_t)(const vbt_group_t *, const vbt_group_t *, vbt_group_t **);

static int set_common(const char *call, MPI_Group group1, MPI_Group group2, MPI_Group *newgroup,
                      set_op_t op)
{
    vbt_group_t *out = NULL;

    VBT_API_ENTER(call);
    VBT_API_GROUP(a, group1, call, "group1");
    VBT_API_GROUP(b, group2, call, "group2");
    VBT_API_PTR(NULL, call, newgroup, "newgroup");
    /* Groups of two sessions may not be mixed; a session's group with a World one gives a
     * group of the session. */
    return new_group(call, op(a, b, &out), a->session != MPI_SESSION_NULL ? a : b, &out, newgroup);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_common("MPI_Group_union", group1, group2, newgroup, vbt_group_union);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_common("MPI_Group_intersection", group1, group2, newgroup, vbt_group_intersection);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_common("MPI_Group_difference", group1, group2, newgroup, vbt_group_difference);
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    vbt_status_t status;

    VBT_API_ENTER("MPI_Group_translate_ranks");
    VBT_API_GROUP(a, group1, "MPI_Group_translate_ranks", "group1");
    VBT_API_GROUP(b, group2, "MPI_Group_translate_ranks", "group2");
    if (n < 0)
        return vbt_error_raise(NULL, "MPI_Group_translate_ranks", MPI_ERR_ARG,
                               "argument n is %d; it must be 0 or more", n);
    if (n > 0 && (ranks1 == NULL || ranks2 == NULL))
        return vbt_error_raise(NULL, "MPI_Group_translate_ranks", MPI_ERR_ARG,
                               "argument %s is NULL with n %d; pass arrays of n ints",
                               ranks1 == NULL ? "ranks1" : "ranks2", n);
    for (int i = 0; i < n; i++) {
        if ((ranks1[i] < 0 || ranks1[i] >= a->size) && ranks1[i] != MPI_PROC_NULL)
            return vbt_error_raise(NULL, "MPI_Group_translate_ranks", MPI_ERR_RANK,
                                   "argument ranks1[%d] is %d, but group1 has %d members: use "
                                   "0..%d or MPI_PROC_NULL",
                                   i, ranks1[i], a->size, a->size - 1);
    }
    status = vbt_group_translate(a, n, ranks1, b, ranks2);
    if (status != VBT_OK)
        return vbt_api_comm_failed(NULL, "MPI_Group_translate_ranks", status);
    return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    VBT_API_ENTER("MPI_Group_compare");
    VBT_API_GROUP(a, group1, "MPI_Group_compare", "group1");
    VBT_API_GROUP(b, group2, "MPI_Group_compare", "group2");
    VBT_API_PTR(NULL, "MPI_Group_compare", result, "result");
    *result = vbt_group_compare(a, b);
    return MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
    VBT_API_ENTER("MPI_Group_free");
    VBT_API_PTR(NULL, "MPI_Group_free", group, "group");
    VBT_API_GROUP(g, *group, "MPI_Group_free", "*group");
    /* MPI_GROUP_EMPTY may be freed like any group (MPI-4.1 Sec. 7.3.3): nothing to release. */
    vbt_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
