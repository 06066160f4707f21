/* Process topologies attached to communicators: Cartesian grids, graphs and distributed graphs
 * (MPI-4.1 Ch. 8). The grid arithmetic and MPI_Dims_create are pure functions, tested by Check.
 * Every topology also keeps its neighbour lists in the order the neighbourhood collectives use,
 * which vbt_topo_neighbors() hands out. */
#ifndef VBT_TOPO_H
#define VBT_TOPO_H

#include "vbt_comm.h"
#include "vbt_status.h"

typedef struct vbt_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART */
    int ndims;
    int *dims;
    int *periods;
    int *coords; /* this process's */
    /* MPI_GRAPH: the whole graph as given to MPI_Graph_create */
    int nnodes;
    int *index;
    int *edges;
    /* All kinds: neighbours (MPI_DIST_GRAPH: as given; weights NULL when unweighted) */
    int indegree;
    int outdegree;
    int *sources;
    int *destinations;
    int *sourceweights;
    int *destweights;
    int weighted;
} vbt_topo_t;

/* In-neighbours and out-neighbours of comm, owned by the communicator, in the order of the
 * neighbourhood collectives (MPI-4.1 Sec. 8.6): Cartesian: for each dimension the source then
 * the destination of a shift by 1, i.e. the ranks at coordinate -1 and +1 (MPI_PROC_NULL off a
 * non-periodic edge), both lists the same; graph: the neighbours in MPI_Graph_neighbors order,
 * both lists the same; distributed graph: sources and destinations as given at creation.
 * VBT_ERR_INVALID_PARAM when comm has no topology. */
vbt_status_t vbt_topo_neighbors(const vbt_comm_t *comm, int *indegree_p, const int **sources_p,
                                int *outdegree_p, const int **destinations_p);

/* Grid arithmetic (row-major, as MPI numbers Cartesian ranks). */
int vbt_cart_size(int ndims, const int *dims);
void vbt_cart_coords(int ndims, const int *dims, int rank, int *coords);
/* VBT_ERR_INVALID_PARAM when a coordinate is off a non-periodic dimension. */
vbt_status_t vbt_cart_rank(int ndims, const int *dims, const int *periods, const int *coords,
                           int *rank_p);
/* The ranks disp steps before (source) and after (dest) coords in dimension dir. */
void vbt_cart_shift(int ndims, const int *dims, const int *periods, const int *coords, int dir,
                    int disp, int *source_p, int *dest_p);
/* MPI_Dims_create: fill the zero entries of dims so their product with the others is nnodes,
 * as close to each other as possible (the smallest largest-minus-smallest; among those, the
 * largest smallest factor, then second smallest, ..., as MPICH), non-increasing.
 * VBT_ERR_INVALID_PARAM when nnodes is not
 * a multiple of the product of the given entries. */
vbt_status_t vbt_dims_create(int nnodes, int ndims, int *dims);

/* Topology objects: arguments checked by the caller. */
vbt_status_t vbt_topo_cart(int ndims, const int *dims, const int *periods, int rank,
                           vbt_topo_t **topo_p);
vbt_status_t vbt_topo_graph(int nnodes, const int *index, const int *edges, int rank,
                            vbt_topo_t **topo_p);
vbt_status_t vbt_topo_dist_graph(int indegree, const int *sources, const int *sourceweights,
                                 int outdegree, const int *destinations, const int *destweights,
                                 vbt_topo_t **topo_p);
vbt_status_t vbt_topo_dup(const vbt_topo_t *topo, int rank, vbt_topo_t **topo_p);
void vbt_topo_free(vbt_topo_t *topo);

#endif
