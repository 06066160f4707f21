/* Collective algorithms, layered on the runtime's point-to-point calls over each
 * communicator's collective context (so they never match user messages).
 *
 * The entry points below take MPI's arguments after the API layer checked them (counts as
 * size_t, ops resolved); MPI_IN_PLACE is passed through where MPI allows it. Each chooses an
 * algorithm from the message size, the group size and the op (vbt_coll_select.c; a
 * VBT_COLL_<NAME> knob forces one) and returns VBT_OK or the first failure (VBT_ERR_TRUNCATE
 * when a rank's data is longer than another expects). */
#ifndef VBT_COLL_H
#define VBT_COLL_H

#include <mpi.h>
#include <stddef.h>

#include "vbt_comm.h"
#include "vbt_op.h"
#include "vbt_status.h"

/* A count or displacement array of a v or w collective as the caller passed it: int (the int
 * forms) or 64-bit (MPI_Count counts, MPI_Aint displacements: the _c forms and
 * MPI_Neighbor_alltoallw). The collectives read it through vbt_coll_vec_at, so the int and the
 * _c forms share one implementation with 64-bit arithmetic. p NULL: no array. */
typedef enum { VBT_COLL_VEC_INT, VBT_COLL_VEC_COUNT, VBT_COLL_VEC_AINT } vbt_coll_vec_kind_t;
typedef struct {
    const void *p;
    vbt_coll_vec_kind_t kind;
} vbt_coll_vec_t;

static inline vbt_coll_vec_t vbt_coll_vec_int(const int *a)
{
    return (vbt_coll_vec_t){a, VBT_COLL_VEC_INT};
}

static inline vbt_coll_vec_t vbt_coll_vec_count(const MPI_Count *a)
{
    return (vbt_coll_vec_t){a, VBT_COLL_VEC_COUNT};
}

static inline vbt_coll_vec_t vbt_coll_vec_aint(const MPI_Aint *a)
{
    return (vbt_coll_vec_t){a, VBT_COLL_VEC_AINT};
}

static inline int vbt_coll_vec_set(vbt_coll_vec_t v)
{
    return v.p != NULL;
}

static inline MPI_Count vbt_coll_vec_at(vbt_coll_vec_t v, int i)
{
    switch (v.kind) {
    case VBT_COLL_VEC_COUNT:
        return ((const MPI_Count *)v.p)[i];
    case VBT_COLL_VEC_AINT:
        return (MPI_Count)((const MPI_Aint *)v.p)[i];
    default:
        return ((const int *)v.p)[i];
    }
}

/* Check the VBT_COLL_* knobs (MPI_Init): VBT_ERR_INVALID_PARAM, logged, for an unknown name. */
vbt_status_t vbt_coll_init(void);
/* Free the temporary buffers kept for reuse (vbt_coll_tmp.c): the library's teardown. */
void vbt_coll_tmp_cache_clear(void);
/* The values knob (a VBT_COLL_<NAME>) may take, "auto" first, in names[0 .. max): how many
 * (0: no such knob). For MPI_T, which writes a value into vbt_cfg and calls vbt_coll_init. */
int vbt_coll_knob_values(const char *knob, const char **names, int max);

vbt_status_t vbt_coll_barrier(vbt_comm_t *comm);
vbt_status_t vbt_coll_bcast(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt, int root);
vbt_status_t vbt_coll_reduce(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                             MPI_Datatype dt, const vbt_op_t *op, int root);
vbt_status_t vbt_coll_allreduce(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                                MPI_Datatype dt, const vbt_op_t *op);
vbt_status_t vbt_coll_gather(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                             void *rbuf, size_t rcount, MPI_Datatype rdt, int root);
vbt_status_t vbt_coll_gatherv(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                              void *rbuf, vbt_coll_vec_t rcounts, vbt_coll_vec_t displs,
                              MPI_Datatype rdt, int root);
vbt_status_t vbt_coll_scatter(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                              void *rbuf, size_t rcount, MPI_Datatype rdt, int root);
vbt_status_t vbt_coll_scatterv(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                               vbt_coll_vec_t displs, MPI_Datatype sdt, void *rbuf, size_t rcount,
                               MPI_Datatype rdt, int root);
vbt_status_t vbt_coll_allgather(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                                void *rbuf, size_t rcount, MPI_Datatype rdt);
vbt_status_t vbt_coll_allgatherv(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                 MPI_Datatype sdt, void *rbuf, vbt_coll_vec_t rcounts,
                                 vbt_coll_vec_t displs, MPI_Datatype rdt);
vbt_status_t vbt_coll_alltoall(vbt_comm_t *comm, const void *sbuf, size_t scount, MPI_Datatype sdt,
                               void *rbuf, size_t rcount, MPI_Datatype rdt);
vbt_status_t vbt_coll_alltoallv(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                vbt_coll_vec_t sdispls, MPI_Datatype sdt, void *rbuf,
                                vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls, MPI_Datatype rdt);
/* Displacements in bytes, one datatype per peer (MPI_Alltoallw). */
vbt_status_t vbt_coll_alltoallw(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                vbt_coll_vec_t sdispls, const MPI_Datatype *sdts, void *rbuf,
                                vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls,
                                const MPI_Datatype *rdts);
vbt_status_t vbt_coll_reduce_scatter(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                     vbt_coll_vec_t rcounts, MPI_Datatype dt, const vbt_op_t *op);
vbt_status_t vbt_coll_reduce_scatter_block(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                           size_t rcount, MPI_Datatype dt, const vbt_op_t *op);
vbt_status_t vbt_coll_scan(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                           MPI_Datatype dt, const vbt_op_t *op);
vbt_status_t vbt_coll_exscan(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                             MPI_Datatype dt, const vbt_op_t *op);

/* Neighbourhood collectives over comm's topology (which the caller checked is there): counts
 * and datatypes per block as in MPI; displacements in bytes for alltoallw. No MPI_IN_PLACE. */
vbt_status_t vbt_coll_neighbor_allgather(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                         MPI_Datatype sdt, void *rbuf, size_t rcount,
                                         MPI_Datatype rdt);
vbt_status_t vbt_coll_neighbor_allgatherv(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                          MPI_Datatype sdt, void *rbuf, vbt_coll_vec_t rcounts,
                                          vbt_coll_vec_t displs, MPI_Datatype rdt);
vbt_status_t vbt_coll_neighbor_alltoall(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                        MPI_Datatype sdt, void *rbuf, size_t rcount,
                                        MPI_Datatype rdt);
vbt_status_t vbt_coll_neighbor_alltoallv(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                         vbt_coll_vec_t sdispls, MPI_Datatype sdt, void *rbuf,
                                         vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls,
                                         MPI_Datatype rdt);
vbt_status_t vbt_coll_neighbor_alltoallw(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                         vbt_coll_vec_t sdispls, const MPI_Datatype *sdts,
                                         void *rbuf, vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls,
                                         const MPI_Datatype *rdts);

/* ---- nonblocking and persistent collectives (vbt_coll_nb.c, on vbt_sched.c) ----------------- */

typedef enum {
    VBT_COLL_BARRIER,
    VBT_COLL_BCAST,
    VBT_COLL_GATHER,
    VBT_COLL_GATHERV,
    VBT_COLL_SCATTER,
    VBT_COLL_SCATTERV,
    VBT_COLL_ALLGATHER,
    VBT_COLL_ALLGATHERV,
    VBT_COLL_ALLTOALL,
    VBT_COLL_ALLTOALLV,
    VBT_COLL_ALLTOALLW,
    VBT_COLL_REDUCE,
    VBT_COLL_ALLREDUCE,
    VBT_COLL_REDUCE_SCATTER,
    VBT_COLL_REDUCE_SCATTER_BLOCK,
    VBT_COLL_SCAN,
    VBT_COLL_EXSCAN,
    VBT_COLL_NEIGHBOR_ALLGATHER,
    VBT_COLL_NEIGHBOR_ALLGATHERV,
    VBT_COLL_NEIGHBOR_ALLTOALL,
    VBT_COLL_NEIGHBOR_ALLTOALLV,
    VBT_COLL_NEIGHBOR_ALLTOALLW,
} vbt_coll_kind_t;

/* The arguments of any collective, as the API checked them; unused ones are 0/NULL. Counts
 * and displacements as MPI has them (int or 64-bit, vbt_coll_vec_t): displacements in elements,
 * in bytes for alltoallw and neighbor_alltoallw (those with sdts/rdts). */
typedef struct {
    const void *sbuf;
    size_t scount;
    MPI_Datatype sdt;
    void *rbuf;
    size_t rcount;
    MPI_Datatype rdt;
    vbt_coll_vec_t scounts, sdispls, rcounts, rdispls;
    const MPI_Datatype *sdts, *rdts;
    const vbt_op_t *op;
    int root;
} vbt_coll_args_t;

/* Build the schedule of a collective into a new request (kind VBT_REQ_COLL): started at once,
 * or (persistent) inactive until vbt_coll_start. The arrays of a are read here only; buffers
 * are used until the request completes, every time it is started. */
vbt_status_t vbt_coll_post(vbt_coll_kind_t kind, vbt_comm_t *comm, const vbt_coll_args_t *a,
                           int persistent, vbt_request_t **req_p);
/* Start an inactive persistent collective request (MPI_Start). */
vbt_status_t vbt_coll_start(vbt_request_t *req);

/* MPI_Comm_idup: agree on a context id with a schedule; at completion done(arg, newcomm) runs
 * (from the progress engine) with the new communicator, and its status becomes the request's
 * (VBT_OK, or a failure: the communicator is then gone). */
typedef vbt_status_t(vbt_coll_idup_done_fn)(void *arg, vbt_comm_t *newcomm);
vbt_status_t vbt_coll_idup(vbt_comm_t *comm, vbt_coll_idup_done_fn *done, void *arg,
                           vbt_request_t **req_p);

#endif
