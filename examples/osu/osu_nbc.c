/* osu_nbc.c: see osu_nbc.h. */
#define _POSIX_C_SOURCE 200809L
#include "osu_nbc.h"
#include "osu_coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT 0

/* The dummy compute: OSU's small dense kernel, repeated until the target time has passed. DIM
 * keeps one pass short (a few µs at most), so the compute ends close to its target. */
#define DIM 25

typedef struct {
    float a[DIM][DIM], x[DIM], y[DIM];
    volatile float sink; /* the result is stored, so the compiler keeps the work */
} compute_t;

static void compute_init(compute_t *c)
{
    for (int i = 0; i < DIM; i++) {
        c->x[i] = c->y[i] = 1.0f;
        for (int j = 0; j < DIM; j++)
            c->a[i][j] = 2.0f;
    }
}

static void compute_pass(compute_t *c)
{
    for (int i = 0; i < DIM; i++)
        for (int j = 0; j < DIM; j++)
            c->x[i] = c->x[i] + c->a[i][j] * c->a[j][i] + c->y[j];
    c->sink = c->x[0];
    /* keep x finite over millions of passes */
    if (c->x[0] > 1e30f)
        for (int i = 0; i < DIM; i++)
            c->x[i] = 1.0f;
}

static void compute_for(compute_t *c, double seconds)
{
    double t0 = MPI_Wtime();

    while (MPI_Wtime() - t0 < seconds)
        compute_pass(c);
}

/* Computes for seconds, in o->test_calls slices with an MPI_Test after each (none when 0, as
 * OSU's default); returns the time spent in MPI_Test. */
static double compute_and_test(const osu_opts_t *o, compute_t *c, double seconds, MPI_Request *req)
{
    double test = 0, t;
    int flag;

    if (o->test_calls == 0) {
        compute_for(c, seconds);
        return 0;
    }
    for (int k = 0; k < o->test_calls; k++) {
        compute_for(c, seconds / o->test_calls);
        t = MPI_Wtime();
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        test += MPI_Wtime() - t;
    }
    return test;
}

static void post(osu_coll_t *b, size_t size, MPI_Request *req)
{
    const osu_opts_t *o = b->o;
    int c = (int)size, fc = (int)(size / sizeof(float));

    switch (o->kind) {
    case OSU_BARRIER:
        MPI_Ibarrier(MPI_COMM_WORLD, req);
        break;
    case OSU_BCAST:
        MPI_Ibcast(b->rbuf, c, MPI_CHAR, ROOT, MPI_COMM_WORLD, req);
        break;
    case OSU_REDUCE:
        MPI_Ireduce(b->sbuf, b->rbuf, fc, MPI_FLOAT, MPI_SUM, ROOT, MPI_COMM_WORLD, req);
        break;
    case OSU_ALLREDUCE:
        MPI_Iallreduce(b->sbuf, b->rbuf, fc, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req);
        break;
    case OSU_REDUCE_SCATTER:
        MPI_Ireduce_scatter(b->sbuf, b->rbuf, b->counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req);
        break;
    case OSU_GATHER:
        MPI_Igather(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, ROOT, MPI_COMM_WORLD, req);
        break;
    case OSU_SCATTER:
        MPI_Iscatter(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, ROOT, MPI_COMM_WORLD, req);
        break;
    case OSU_ALLGATHER:
        MPI_Iallgather(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, MPI_COMM_WORLD, req);
        break;
    case OSU_ALLTOALL:
        MPI_Ialltoall(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, MPI_COMM_WORLD, req);
        break;
    case OSU_GATHERV:
        MPI_Igatherv(b->sbuf, c, MPI_CHAR, b->rbuf, b->counts, b->displs, MPI_CHAR, ROOT,
                     MPI_COMM_WORLD, req);
        break;
    case OSU_SCATTERV:
        MPI_Iscatterv(b->sbuf, b->counts, b->displs, MPI_CHAR, b->rbuf, c, MPI_CHAR, ROOT,
                      MPI_COMM_WORLD, req);
        break;
    case OSU_ALLGATHERV:
        MPI_Iallgatherv(b->sbuf, c, MPI_CHAR, b->rbuf, b->counts, b->displs, MPI_CHAR,
                        MPI_COMM_WORLD, req);
        break;
    case OSU_ALLTOALLV:
        MPI_Ialltoallv(b->sbuf, b->counts, b->displs, MPI_CHAR, b->rbuf, b->counts, b->displs,
                       MPI_CHAR, MPI_COMM_WORLD, req);
        break;
    default:
        *req = MPI_REQUEST_NULL;
        break;
    }
}

/* The figures each rank sends to rank 0, in this order (osu_gather_vec). */
enum { F_OVERALL, F_COMPUTE, F_INIT, F_TEST, F_WAIT, F_COMM, F_COUNT };

/* One size: the pure communication time, then the overlapped iterations; prints the row. The
 * ibarrier, as OSU's, has no barrier between the iterations of its pure phase. */
static void run_size(osu_coll_t *b, compute_t *c, size_t size)
{
    const osu_opts_t *o = b->o;
    int warmup, iters = osu_iterations(o, size, &warmup), sync = o->kind != OSU_BARRIER;
    double f[F_COUNT] = {0}, comm = 0, t0, t1, t2, t3, test;
    osu_stat_t all[F_COUNT];
    osu_nbc_row_t row;
    MPI_Request req;

    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warmup + iters; i++) {
        if (o->validate) {
            osu_coll_prepare(b, size, i);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        t0 = MPI_Wtime();
        post(b, size, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        t1 = MPI_Wtime();
        if (sync)
            MPI_Barrier(MPI_COMM_WORLD);
        if (o->validate)
            osu_coll_verify(b, size, i);
        if (i >= warmup)
            comm += t1 - t0;
    }
    comm /= iters; /* this rank's pure time: its compute target */
    MPI_Barrier(MPI_COMM_WORLD);

    for (int i = 0; i < warmup + iters; i++) {
        /* Iterations numbered after the pure phase's, so no pattern of it can pass a check. */
        int it = warmup + iters + i;

        if (o->validate) {
            osu_coll_prepare(b, size, it);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        t0 = MPI_Wtime();
        post(b, size, &req);
        t1 = MPI_Wtime();
        test = compute_and_test(o, c, comm, &req);
        t2 = MPI_Wtime();
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        t3 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        if (o->validate)
            osu_coll_verify(b, size, it);
        if (i >= warmup) {
            f[F_OVERALL] += t3 - t0;
            f[F_INIT] += t1 - t0;
            f[F_COMPUTE] += t2 - t1 - test;
            f[F_TEST] += test;
            f[F_WAIT] += t3 - t2;
        }
    }
    for (int k = 0; k < F_COUNT; k++)
        f[k] = f[k] / iters * 1e6;
    f[F_COMM] = comm * 1e6;
    osu_gather_vec(o, F_COUNT, f, all);
    if (o->rank != 0)
        return;
    row.overall = all[F_OVERALL].sum / all[F_OVERALL].n;
    row.compute = all[F_COMPUTE].sum / all[F_COMPUTE].n;
    row.init = all[F_INIT].sum / all[F_INIT].n;
    row.test = all[F_TEST].sum / all[F_TEST].n;
    row.wait = all[F_WAIT].sum / all[F_WAIT].n;
    row.comm = all[F_COMM].sum / all[F_COMM].n;
    row.comm_min = all[F_COMM].min;
    row.comm_max = all[F_COMM].max;
    osu_print_nbc_row(o, size, &row);
}

int osu_nbc_main(int argc, char **argv, osu_kind_t kind, const char *prog, const char *title)
{
    osu_opts_t o;
    osu_coll_t b;
    compute_t *c;
    int rc;

    MPI_Init(&argc, &argv);
    rc = osu_init_nbc(&o, kind, prog, title, argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    c = malloc(sizeof(*c));
    if (c == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    compute_init(c);
    osu_coll_alloc(&b, &o);
    osu_print_header(&o);
    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        if (osu_coll_size(&b, size))
            run_size(&b, c, size);
    }
    osu_coll_free(&b);
    free(c);
    MPI_Finalize();
    return 0;
}
