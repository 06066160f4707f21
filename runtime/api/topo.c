/* Process topologies: Cartesian grids, graphs and distributed graphs (adjacent form). Ranks are
 * never reordered (reorder is a hint the standard lets us ignore). */
#include "vbt_api_comm.h"
#include "vbt_api_info.h"
#include "vbt_comm_agree.h"
#include "vbt_topo.h"

#include <stdlib.h>

VBT_PMPI_ALIAS(Cart_create)
VBT_PMPI_ALIAS(Cart_coords)
VBT_PMPI_ALIAS(Cart_rank)
VBT_PMPI_ALIAS(Cart_shift)
VBT_PMPI_ALIAS(Cart_sub)
VBT_PMPI_ALIAS(Cart_get)
VBT_PMPI_ALIAS(Cartdim_get)
VBT_PMPI_ALIAS(Dims_create)
VBT_PMPI_ALIAS(Graph_create)
VBT_PMPI_ALIAS(Graphdims_get)
VBT_PMPI_ALIAS(Graph_get)
VBT_PMPI_ALIAS(Graph_neighbors_count)
VBT_PMPI_ALIAS(Graph_neighbors)
VBT_PMPI_ALIAS(Dist_graph_create_adjacent)
VBT_PMPI_ALIAS(Dist_graph_create)
VBT_PMPI_ALIAS(Dist_graph_neighbors_count)
VBT_PMPI_ALIAS(Dist_graph_neighbors)
VBT_PMPI_ALIAS(Topo_test)

static const char *kind_name(const vbt_topo_t *t)
{
    if (t == NULL)
        return "no topology";
    return t->kind == MPI_CART    ? "a Cartesian topology"
           : t->kind == MPI_GRAPH ? "a graph topology"
                                  : "a distributed graph topology";
}

/* comm's topology if it is of kind, else the error raised. */
#define VBT_API_TOPO(_t, _c, _call, _kind, _what)                                                  \
    vbt_topo_t *_t = (_c)->topo;                                                                   \
    if (unlikely(_t == NULL || _t->kind != (_kind)))                                               \
        return vbt_error_raise((_c), (_call), MPI_ERR_TOPOLOGY,                                    \
                               "argument comm has %s; it needs " _what, kind_name(_t));

/* The first n ranks of c as a group (the processes a topology of n nodes keeps). */
static vbt_status_t first_ranks(vbt_comm_t *c, int n, vbt_group_t **group_p)
{
    return vbt_group_create(n, c->world_ranks, group_p);
}

/* The communicator of the first n ranks of c (*nc_p NULL on the others). */
static int create_with_topo(const char *call, vbt_comm_t *c, int n, vbt_comm_t **nc_p)
{
    vbt_group_t *g;
    vbt_status_t status = first_ranks(c, n, &g);

    if (status == VBT_OK) {
        status = vbt_comm_create(c, g, nc_p);
        vbt_group_release(g);
    }
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, call, status);
    return MPI_SUCCESS;
}

/* Attach *t, made with status (on failure, free nc); the handle goes to *out. t is a pointer so
 * that callers can make the topology in the argument list. */
static int attach(const char *call, vbt_comm_t *c, vbt_comm_t *nc, vbt_status_t status,
                  vbt_topo_t **t, MPI_Comm *out)
{
    if (status != VBT_OK) {
        vbt_comm_free(nc);
        *out = MPI_COMM_NULL;
        return vbt_api_comm_failed(c, call, status);
    }
    nc->topo = *t;
    *out = nc->handle;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    vbt_comm_t *nc = NULL;
    vbt_topo_t *t = NULL;
    long long n = 1;
    int rc;

    VBT_API_ENTER("MPI_Cart_create");
    VBT_API_COMM(c, comm_old, "MPI_Cart_create");
    VBT_API_INTRA(c, "MPI_Cart_create", "comm_old");
    VBT_API_PTR(c, "MPI_Cart_create", comm_cart, "comm_cart");
    (void)reorder;
    if (ndims < 0)
        return vbt_error_raise(c, "MPI_Cart_create", MPI_ERR_DIMS,
                               "argument ndims is %d; it must be 0 or more", ndims);
    if (ndims > 0 && (dims == NULL || periods == NULL))
        return vbt_error_raise(c, "MPI_Cart_create", MPI_ERR_ARG,
                               "argument %s is NULL with ndims %d; pass ndims entries",
                               dims == NULL ? "dims" : "periods", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return vbt_error_raise(c, "MPI_Cart_create", MPI_ERR_DIMS,
                                   "argument dims[%d] is %d; every dimension must be 1 or more", i,
                                   dims[i]);
        n *= dims[i];
        if (n > c->size)
            break;
    }
    if (n > c->size)
        return vbt_error_raise(c, "MPI_Cart_create", MPI_ERR_TOPOLOGY,
                               "the grid has more nodes than comm_old has processes (%d)", c->size);
    rc = create_with_topo("MPI_Cart_create", c, (int)n, &nc);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nc == NULL) {
        *comm_cart = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return attach("MPI_Cart_create", c, nc, vbt_topo_cart(ndims, dims, periods, nc->rank, &t), &t,
                  comm_cart);
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    VBT_API_ENTER("MPI_Cartdim_get");
    VBT_API_COMM(c, comm, "MPI_Cartdim_get");
    VBT_API_PTR(c, "MPI_Cartdim_get", ndims, "ndims");
    VBT_API_TOPO(t, c, "MPI_Cartdim_get", MPI_CART, "a Cartesian one");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

static int check_maxdims(vbt_comm_t *c, const char *call, const vbt_topo_t *t, int maxdims)
{
    if (maxdims < t->ndims)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument maxdims is %d, but the grid has %d dimensions", maxdims,
                               t->ndims);
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    VBT_API_ENTER("MPI_Cart_get");
    VBT_API_COMM(c, comm, "MPI_Cart_get");
    VBT_API_TOPO(t, c, "MPI_Cart_get", MPI_CART, "a Cartesian one");
    VBT_API_CHECK(check_maxdims(c, "MPI_Cart_get", t, maxdims));
    if (t->ndims > 0 && (dims == NULL || periods == NULL || coords == NULL))
        return vbt_error_raise(c, "MPI_Cart_get", MPI_ERR_ARG,
                               "argument %s is NULL; pass arrays of maxdims ints",
                               dims == NULL      ? "dims"
                               : periods == NULL ? "periods"
                                                 : "coords");
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    VBT_API_ENTER("MPI_Cart_rank");
    VBT_API_COMM(c, comm, "MPI_Cart_rank");
    VBT_API_PTR(c, "MPI_Cart_rank", rank, "rank");
    VBT_API_TOPO(t, c, "MPI_Cart_rank", MPI_CART, "a Cartesian one");
    if (t->ndims > 0 && coords == NULL)
        return vbt_error_raise(c, "MPI_Cart_rank", MPI_ERR_ARG,
                               "argument coords is NULL; pass ndims coordinates");
    if (vbt_cart_rank(t->ndims, t->dims, t->periods, coords, rank) != VBT_OK) {
        for (int i = 0; i < t->ndims; i++) {
            if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i]))
                return vbt_error_raise(c, "MPI_Cart_rank", MPI_ERR_ARG,
                                       "argument coords[%d] is %d, outside 0..%d of a "
                                       "non-periodic dimension",
                                       i, coords[i], t->dims[i] - 1);
        }
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    VBT_API_ENTER("MPI_Cart_coords");
    VBT_API_COMM(c, comm, "MPI_Cart_coords");
    VBT_API_TOPO(t, c, "MPI_Cart_coords", MPI_CART, "a Cartesian one");
    VBT_API_CHECK(check_maxdims(c, "MPI_Cart_coords", t, maxdims));
    if (rank < 0 || rank >= c->size)
        return vbt_error_raise(c, "MPI_Cart_coords", MPI_ERR_RANK,
                               "argument rank is %d; the grid has ranks 0..%d", rank, c->size - 1);
    if (t->ndims > 0 && coords == NULL)
        return vbt_error_raise(c, "MPI_Cart_coords", MPI_ERR_ARG,
                               "argument coords is NULL; pass an array of maxdims ints");
    vbt_cart_coords(t->ndims, t->dims, rank, coords);
    return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    VBT_API_ENTER("MPI_Cart_shift");
    VBT_API_COMM(c, comm, "MPI_Cart_shift");
    VBT_API_PTR(c, "MPI_Cart_shift", rank_source, "rank_source");
    VBT_API_PTR(c, "MPI_Cart_shift", rank_dest, "rank_dest");
    VBT_API_TOPO(t, c, "MPI_Cart_shift", MPI_CART, "a Cartesian one");
    if (direction < 0 || direction >= t->ndims)
        return vbt_error_raise(c, "MPI_Cart_shift", MPI_ERR_ARG,
                               "argument direction is %d; the grid has dimensions 0..%d", direction,
                               t->ndims - 1);
    vbt_cart_shift(t->ndims, t->dims, t->periods, t->coords, direction, disp, rank_source,
                   rank_dest);
    return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    vbt_comm_t *nc = NULL;
    vbt_topo_t *nt = NULL;
    int color = 0, nkept = 0, *kdims, *kperiods;
    vbt_status_t status;

    VBT_API_ENTER("MPI_Cart_sub");
    VBT_API_COMM(c, comm, "MPI_Cart_sub");
    VBT_API_PTR(c, "MPI_Cart_sub", newcomm, "newcomm");
    VBT_API_TOPO(t, c, "MPI_Cart_sub", MPI_CART, "a Cartesian one");
    if (t->ndims > 0 && remain_dims == NULL)
        return vbt_error_raise(c, "MPI_Cart_sub", MPI_ERR_ARG,
                               "argument remain_dims is NULL; pass ndims flags");
    kdims = malloc((size_t)(t->ndims + 1) * sizeof(int));
    kperiods = malloc((size_t)(t->ndims + 1) * sizeof(int));
    if (kdims == NULL || kperiods == NULL) {
        free(kdims);
        free(kperiods);
        return vbt_api_comm_failed(c, "MPI_Cart_sub", VBT_ERR_NO_MEMORY);
    }
    /* One sub-grid per position in the dropped dimensions; within it, the old (row-major)
     * order is the sub-grid's row-major order. */
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            kdims[nkept] = t->dims[i];
            kperiods[nkept++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    status = vbt_comm_split(c, color, c->rank, &nc);
    if (status == VBT_OK)
        status = vbt_topo_cart(nkept, kdims, kperiods, nc->rank, &nt);
    free(kdims);
    free(kperiods);
    if (nc == NULL)
        return vbt_api_comm_failed(c, "MPI_Cart_sub", status);
    return attach("MPI_Cart_sub", c, nc, status, &nt, newcomm);
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    long long fixed = 1;
    vbt_status_t status;

    VBT_API_ENTER("MPI_Dims_create");
    if (nnodes <= 0)
        return vbt_error_raise(NULL, "MPI_Dims_create", MPI_ERR_ARG,
                               "argument nnodes is %d; it must be 1 or more", nnodes);
    if (ndims < 0)
        return vbt_error_raise(NULL, "MPI_Dims_create", MPI_ERR_DIMS,
                               "argument ndims is %d; it must be 0 or more", ndims);
    if (ndims > 0 && dims == NULL)
        return vbt_error_raise(NULL, "MPI_Dims_create", MPI_ERR_ARG,
                               "argument dims is NULL; pass an array of ndims ints");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return vbt_error_raise(NULL, "MPI_Dims_create", MPI_ERR_DIMS,
                                   "argument dims[%d] is %d; entries are 0 (to be chosen) or a "
                                   "positive dimension",
                                   i, dims[i]);
        if (dims[i] > 0)
            fixed *= dims[i];
        if (fixed > nnodes)
            break;
    }
    status = vbt_dims_create(nnodes, ndims, dims);
    if (status == VBT_ERR_INVALID_PARAM)
        return vbt_error_raise(NULL, "MPI_Dims_create", MPI_ERR_DIMS,
                               "the non-zero entries of dims multiply to %lld, which does not "
                               "divide nnodes %d",
                               fixed, nnodes);
    if (status != VBT_OK)
        return vbt_api_comm_failed(NULL, "MPI_Dims_create", status);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    vbt_comm_t *nc = NULL;
    vbt_topo_t *t = NULL;
    int rc;

    VBT_API_ENTER("MPI_Graph_create");
    VBT_API_COMM(c, comm_old, "MPI_Graph_create");
    VBT_API_INTRA(c, "MPI_Graph_create", "comm_old");
    VBT_API_PTR(c, "MPI_Graph_create", comm_graph, "comm_graph");
    (void)reorder;
    if (nnodes < 0 || nnodes > c->size)
        return vbt_error_raise(c, "MPI_Graph_create", MPI_ERR_ARG,
                               "argument nnodes is %d; it must be between 0 and the size of "
                               "comm_old, %d",
                               nnodes, c->size);
    if (nnodes > 0 && (index == NULL || edges == NULL))
        return vbt_error_raise(c, "MPI_Graph_create", MPI_ERR_ARG,
                               "argument %s is NULL with nnodes %d",
                               index == NULL ? "index" : "edges", nnodes);
    for (int i = 0; i < nnodes; i++) {
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return vbt_error_raise(c, "MPI_Graph_create", MPI_ERR_ARG,
                                   "argument index[%d] is %d, less than the entry before; index "
                                   "holds running totals of neighbour counts",
                                   i, index[i]);
    }
    for (int e = 0; nnodes > 0 && e < index[nnodes - 1]; e++) {
        if (edges[e] < 0 || edges[e] >= nnodes)
            return vbt_error_raise(c, "MPI_Graph_create", MPI_ERR_ARG,
                                   "argument edges[%d] is %d; nodes are 0..%d", e, edges[e],
                                   nnodes - 1);
    }
    if (nnodes == 0) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    rc = create_with_topo("MPI_Graph_create", c, nnodes, &nc);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nc == NULL) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return attach("MPI_Graph_create", c, nc, vbt_topo_graph(nnodes, index, edges, nc->rank, &t), &t,
                  comm_graph);
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    VBT_API_ENTER("MPI_Graphdims_get");
    VBT_API_COMM(c, comm, "MPI_Graphdims_get");
    VBT_API_PTR(c, "MPI_Graphdims_get", nnodes, "nnodes");
    VBT_API_PTR(c, "MPI_Graphdims_get", nedges, "nedges");
    VBT_API_TOPO(t, c, "MPI_Graphdims_get", MPI_GRAPH, "a graph one");
    *nnodes = t->nnodes;
    *nedges = t->index[t->nnodes - 1];
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    VBT_API_ENTER("MPI_Graph_get");
    VBT_API_COMM(c, comm, "MPI_Graph_get");
    VBT_API_TOPO(t, c, "MPI_Graph_get", MPI_GRAPH, "a graph one");
    if ((maxindex > 0 && index == NULL) || (maxedges > 0 && edges == NULL))
        return vbt_error_raise(c, "MPI_Graph_get", MPI_ERR_ARG, "argument %s is NULL",
                               index == NULL ? "index" : "edges");
    /* As much as fits, as the standard says. */
    for (int i = 0; i < t->nnodes && i < maxindex; i++)
        index[i] = t->index[i];
    for (int e = 0; e < t->index[t->nnodes - 1] && e < maxedges; e++)
        edges[e] = t->edges[e];
    return MPI_SUCCESS;
}

static int check_graph_rank(vbt_comm_t *c, const char *call, int rank)
{
    if (rank < 0 || rank >= c->size)
        return vbt_error_raise(c, call, MPI_ERR_RANK, "argument rank is %d; the graph has 0..%d",
                               rank, c->size - 1);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    VBT_API_ENTER("MPI_Graph_neighbors_count");
    VBT_API_COMM(c, comm, "MPI_Graph_neighbors_count");
    VBT_API_PTR(c, "MPI_Graph_neighbors_count", nneighbors, "nneighbors");
    VBT_API_TOPO(t, c, "MPI_Graph_neighbors_count", MPI_GRAPH, "a graph one");
    VBT_API_CHECK(check_graph_rank(c, "MPI_Graph_neighbors_count", rank));
    *nneighbors = t->index[rank] - (rank > 0 ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    int first;

    VBT_API_ENTER("MPI_Graph_neighbors");
    VBT_API_COMM(c, comm, "MPI_Graph_neighbors");
    VBT_API_TOPO(t, c, "MPI_Graph_neighbors", MPI_GRAPH, "a graph one");
    VBT_API_CHECK(check_graph_rank(c, "MPI_Graph_neighbors", rank));
    if (maxneighbors > 0 && neighbors == NULL)
        return vbt_error_raise(c, "MPI_Graph_neighbors", MPI_ERR_ARG,
                               "argument neighbors is NULL with maxneighbors %d", maxneighbors);
    first = rank > 0 ? t->index[rank - 1] : 0;
    for (int i = 0; first + i < t->index[rank] && i < maxneighbors; i++)
        neighbors[i] = t->edges[first + i];
    return MPI_SUCCESS;
}

static int check_nodes(vbt_comm_t *c, const char *call, const char *arg, int n, const int *ranks)
{
    if (n < 0)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument %sdegree is %d; it must be 0 or more", arg, n);
    if (n > 0 && ranks == NULL)
        return vbt_error_raise(c, call, MPI_ERR_ARG, "argument %s is NULL with %d neighbours",
                               arg[0] == 'i' ? "sources" : "destinations", n);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return vbt_error_raise(c, call, MPI_ERR_RANK, "argument %s[%d] is %d; use 0..%d",
                                   arg[0] == 'i' ? "sources" : "destinations", i, ranks[i],
                                   c->size - 1);
    }
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int *sourceweights, int outdegree,
                                    const int destinations[], const int *destweights, MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    vbt_comm_t *nc = NULL;
    vbt_topo_t *t = NULL;
    vbt_info_t *ignored;
    vbt_status_t status;

    VBT_API_ENTER("MPI_Dist_graph_create_adjacent");
    VBT_API_COMM(c, comm_old, "MPI_Dist_graph_create_adjacent");
    VBT_API_INTRA(c, "MPI_Dist_graph_create_adjacent", "comm_old");
    VBT_API_PTR(c, "MPI_Dist_graph_create_adjacent", comm_dist_graph, "comm_dist_graph");
    /* Checked, then ignored: no info key changes the graph we build. */
    VBT_API_CHECK(vbt_api_check_info(c, "MPI_Dist_graph_create_adjacent", "info", info, &ignored));
    (void)reorder;
    VBT_API_CHECK(check_nodes(c, "MPI_Dist_graph_create_adjacent", "in", indegree, sources));
    VBT_API_CHECK(check_nodes(c, "MPI_Dist_graph_create_adjacent", "out", outdegree, destinations));
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
        return vbt_error_raise(c, "MPI_Dist_graph_create_adjacent", MPI_ERR_ARG,
                               "only one of sourceweights and destweights is MPI_UNWEIGHTED; "
                               "the graph is weighted or not on both sides");
    if ((indegree > 0 && sourceweights == NULL) || (outdegree > 0 && destweights == NULL))
        return vbt_error_raise(c, "MPI_Dist_graph_create_adjacent", MPI_ERR_ARG,
                               "argument %s is NULL; pass weights or MPI_UNWEIGHTED",
                               sourceweights == NULL ? "sourceweights" : "destweights");
    status = vbt_comm_create(c, c->group, &nc);
    if (status != VBT_OK)
        return vbt_api_comm_failed(c, "MPI_Dist_graph_create_adjacent", status);
    status = vbt_topo_dist_graph(indegree, sources, sourceweights, outdegree, destinations,
                                 destweights, &t);
    return attach("MPI_Dist_graph_create_adjacent", c, nc, status, &t, comm_dist_graph);
}

/* MPI_Dist_graph_create: each process may name any edges; every edge s -> d goes to s as an
 * out-edge and to d as an in-edge, in one exchange with every process. A process's neighbours
 * are in the order of the processes that named them, then of their lists. */
enum { EDGE_OUT = 0, EDGE_IN = 1 };
typedef struct {
    int kind;
    int other;
    int weight;
} edge_rec_t;

#define VBT_AGREE_TAG_DIST_GRAPH 0x7ff0

static vbt_status_t dist_graph_exchange(vbt_comm_t *c, int n, const int *sources,
                                        const int *degrees, const int *destinations,
                                        const int *weights, vbt_topo_t **topo_p)
{
    int size = c->size, nin = 0, nout = 0;
    size_t *sbytes = calloc((size_t)size, sizeof(size_t));
    size_t *rbytes = calloc((size_t)size, sizeof(size_t));
    size_t *fill = calloc((size_t)size, sizeof(size_t)); /* records written per process */
    edge_rec_t **sbufs = calloc((size_t)size, sizeof(*sbufs));
    void **rbufs = calloc((size_t)size, sizeof(*rbufs));
    int *in = NULL, *inw = NULL, *out = NULL, *outw = NULL, weighted = weights != MPI_UNWEIGHTED;
    vbt_agree_t a = {.parent = c, .n = size, .me = c->rank, .tag = VBT_AGREE_TAG_DIST_GRAPH};
    vbt_status_t status = VBT_ERR_NO_MEMORY;

    if (sbytes == NULL || rbytes == NULL || fill == NULL || sbufs == NULL || rbufs == NULL)
        goto out;
    /* Count, then fill, the records for each process. */
    for (int i = 0, k = 0; i < n; i++) {
        for (int j = 0; j < degrees[i]; j++, k++) {
            sbytes[sources[i]] += sizeof(edge_rec_t);
            sbytes[destinations[k]] += sizeof(edge_rec_t);
        }
    }
    for (int p = 0; p < size; p++) {
        sbufs[p] = malloc(sbytes[p] ? sbytes[p] : 1);
        if (sbufs[p] == NULL)
            goto out;
    }
    for (int i = 0, k = 0; i < n; i++) {
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = destinations[k], w = weighted ? weights[k] : 1;
            sbufs[s][fill[s]++] = (edge_rec_t){EDGE_OUT, d, w};
            sbufs[d][fill[d]++] = (edge_rec_t){EDGE_IN, s, w};
        }
    }
    status = vbt_agree_alltoallv(&a, sbytes, (const void *const *)sbufs, rbytes, rbufs);
    if (status != VBT_OK)
        goto out;
    for (int p = 0; p < size; p++) {
        const edge_rec_t *r = rbufs[p];
        for (size_t i = 0; i < rbytes[p] / sizeof(edge_rec_t); i++) {
            if (r[i].kind == EDGE_IN)
                nin++;
            else
                nout++;
        }
    }
    in = malloc((size_t)(nin + 1) * sizeof(int));
    inw = malloc((size_t)(nin + 1) * sizeof(int));
    out = malloc((size_t)(nout + 1) * sizeof(int));
    outw = malloc((size_t)(nout + 1) * sizeof(int));
    status = VBT_ERR_NO_MEMORY;
    if (in == NULL || inw == NULL || out == NULL || outw == NULL)
        goto out;
    nin = nout = 0;
    for (int p = 0; p < size; p++) {
        const edge_rec_t *r = rbufs[p];
        for (size_t i = 0; i < rbytes[p] / sizeof(edge_rec_t); i++) {
            if (r[i].kind == EDGE_IN) {
                in[nin] = r[i].other;
                inw[nin++] = r[i].weight;
            } else {
                out[nout] = r[i].other;
                outw[nout++] = r[i].weight;
            }
        }
    }
    status = vbt_topo_dist_graph(nin, in, weighted ? inw : MPI_UNWEIGHTED, nout, out,
                                 weighted ? outw : MPI_UNWEIGHTED, topo_p);
out:
    for (int p = 0; p < size; p++) {
        if (sbufs != NULL)
            free(sbufs[p]);
        if (rbufs != NULL)
            free(rbufs[p]);
    }
    free(sbufs);
    free(rbufs);
    free(sbytes);
    free(rbytes);
    free(fill);
    free(in);
    free(inw);
    free(out);
    free(outw);
    return status;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int *weights, MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    vbt_comm_t *nc = NULL;
    vbt_topo_t *t = NULL;
    vbt_info_t *ignored;
    vbt_status_t status;
    long long nedges = 0;

    VBT_API_ENTER("MPI_Dist_graph_create");
    VBT_API_COMM(c, comm_old, "MPI_Dist_graph_create");
    VBT_API_INTRA(c, "MPI_Dist_graph_create", "comm_old");
    VBT_API_PTR(c, "MPI_Dist_graph_create", comm_dist_graph, "comm_dist_graph");
    /* Checked, then ignored: no info key changes the graph we build. */
    VBT_API_CHECK(vbt_api_check_info(c, "MPI_Dist_graph_create", "info", info, &ignored));
    (void)reorder;
    if (n < 0)
        return vbt_error_raise(c, "MPI_Dist_graph_create", MPI_ERR_ARG,
                               "argument n is %d; it must be 0 or more", n);
    if (n > 0 && (sources == NULL || degrees == NULL))
        return vbt_error_raise(c, "MPI_Dist_graph_create", MPI_ERR_ARG,
                               "argument %s is NULL with n %d",
                               sources == NULL ? "sources" : "degrees", n);
    for (int i = 0; i < n; i++) {
        if (sources[i] < 0 || sources[i] >= c->size)
            return vbt_error_raise(c, "MPI_Dist_graph_create", MPI_ERR_RANK,
                                   "argument sources[%d] is %d; use 0..%d", i, sources[i],
                                   c->size - 1);
        if (degrees[i] < 0)
            return vbt_error_raise(c, "MPI_Dist_graph_create", MPI_ERR_ARG,
                                   "argument degrees[%d] is %d; it must be 0 or more", i,
                                   degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > 0 && destinations == NULL)
        return vbt_error_raise(c, "MPI_Dist_graph_create", MPI_ERR_ARG,
                               "argument destinations is NULL with %lld edges", nedges);
    if (nedges > 0 && (weights == NULL || weights == MPI_WEIGHTS_EMPTY))
        return vbt_error_raise(c, "MPI_Dist_graph_create", MPI_ERR_ARG,
                               "argument weights is %s with %lld edges; pass weights or "
                               "MPI_UNWEIGHTED",
                               weights == NULL ? "NULL" : "MPI_WEIGHTS_EMPTY", nedges);
    for (long long k = 0; k < nedges; k++) {
        if (destinations[k] < 0 || destinations[k] >= c->size)
            return vbt_error_raise(c, "MPI_Dist_graph_create", MPI_ERR_RANK,
                                   "argument destinations[%lld] is %d; use 0..%d", k,
                                   destinations[k], c->size - 1);
    }
    status = dist_graph_exchange(c, n, sources, degrees, destinations, weights, &t);
    if (status == VBT_OK)
        status = vbt_comm_create(c, c->group, &nc);
    if (status != VBT_OK) {
        vbt_topo_free(t);
        return vbt_api_comm_failed(c, "MPI_Dist_graph_create", status);
    }
    return attach("MPI_Dist_graph_create", c, nc, VBT_OK, &t, comm_dist_graph);
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    VBT_API_ENTER("MPI_Dist_graph_neighbors_count");
    VBT_API_COMM(c, comm, "MPI_Dist_graph_neighbors_count");
    VBT_API_PTR(c, "MPI_Dist_graph_neighbors_count", indegree, "indegree");
    VBT_API_PTR(c, "MPI_Dist_graph_neighbors_count", outdegree, "outdegree");
    VBT_API_PTR(c, "MPI_Dist_graph_neighbors_count", weighted, "weighted");
    VBT_API_TOPO(t, c, "MPI_Dist_graph_neighbors_count", MPI_DIST_GRAPH, "a distributed graph one");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights,
                              int maxoutdegree, int destinations[], int *destweights)
{
    VBT_API_ENTER("MPI_Dist_graph_neighbors");
    VBT_API_COMM(c, comm, "MPI_Dist_graph_neighbors");
    VBT_API_TOPO(t, c, "MPI_Dist_graph_neighbors", MPI_DIST_GRAPH, "a distributed graph one");
    if (maxindegree < t->indegree || maxoutdegree < t->outdegree)
        return vbt_error_raise(c, "MPI_Dist_graph_neighbors", MPI_ERR_ARG,
                               "arguments maxindegree %d and maxoutdegree %d are smaller than "
                               "the degrees %d and %d (MPI_Dist_graph_neighbors_count)",
                               maxindegree, maxoutdegree, t->indegree, t->outdegree);
    if ((t->indegree > 0 && sources == NULL) || (t->outdegree > 0 && destinations == NULL))
        return vbt_error_raise(c, "MPI_Dist_graph_neighbors", MPI_ERR_ARG, "argument %s is NULL",
                               sources == NULL ? "sources" : "destinations");
    for (int i = 0; i < t->indegree; i++) {
        sources[i] = t->sources[i];
        if (t->weighted && sourceweights != MPI_UNWEIGHTED && sourceweights != NULL)
            sourceweights[i] = t->sourceweights[i];
    }
    for (int i = 0; i < t->outdegree; i++) {
        destinations[i] = t->destinations[i];
        if (t->weighted && destweights != MPI_UNWEIGHTED && destweights != NULL)
            destweights[i] = t->destweights[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    VBT_API_ENTER("MPI_Topo_test");
    VBT_API_COMM(c, comm, "MPI_Topo_test");
    VBT_API_PTR(c, "MPI_Topo_test", status, "status");
    *status = c->topo != NULL ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
