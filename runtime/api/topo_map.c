/* MPI_Cart_map and MPI_Graph_map (MPI-4.1 Sec. 8.5.8): where a process would go in a Cartesian
 * grid or graph built on comm. MPI_Cart_create and MPI_Graph_create never reorder (they keep
 * the first ranks of comm_old), so the mapping is the same one: the process of rank r gets node
 * r when the topology has more than r nodes, MPI_UNDEFINED otherwise. A valid mapping, and the
 * one those calls then use. */
#include "vbt_api_comm.h"
#include "vbt_api_p2p.h"

VBT_PMPI_ALIAS(Cart_map)
VBT_PMPI_ALIAS(Graph_map)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    const char *call = "MPI_Cart_map";
    long long n = 1;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_PTR(c, call, newrank, "newrank");
    if (ndims < 0)
        return vbt_error_raise(c, call, MPI_ERR_DIMS, "argument ndims is %d; it must be 0 or more",
                               ndims);
    if (ndims > 0 && (dims == NULL || periods == NULL))
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument %s is NULL with ndims %d; pass ndims entries",
                               dims == NULL ? "dims" : "periods", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return vbt_error_raise(c, call, MPI_ERR_DIMS,
                                   "argument dims[%d] is %d; every dimension must be 1 or more", i,
                                   dims[i]);
        n *= dims[i];
        if (n > c->size)
            return vbt_error_raise(c, call, MPI_ERR_TOPOLOGY,
                                   "the grid has more nodes than comm has processes (%d)", c->size);
    }
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    const char *call = "MPI_Graph_map";

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_PTR(c, call, newrank, "newrank");
    if (nnodes < 0 || nnodes > c->size)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument nnodes is %d; it must be between 0 and the size of "
                               "comm, %d",
                               nnodes, c->size);
    if (nnodes > 0 && (index == NULL || edges == NULL))
        return vbt_error_raise(c, call, MPI_ERR_ARG, "argument %s is NULL with nnodes %d",
                               index == NULL ? "index" : "edges", nnodes);
    for (int i = 0; i < nnodes; i++) {
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return vbt_error_raise(c, call, MPI_ERR_ARG,
                                   "argument index[%d] is %d, less than the entry before; index "
                                   "holds running totals of neighbour counts",
                                   i, index[i]);
    }
    for (int e = 0; nnodes > 0 && e < index[nnodes - 1]; e++) {
        if (edges[e] < 0 || edges[e] >= nnodes)
            return vbt_error_raise(c, call, MPI_ERR_ARG,
                                   "argument edges[%d] is %d; nodes are 0..%d", e, edges[e],
                                   nnodes - 1);
    }
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
