/* osu_coll.c: see osu_coll.h. With -c, every call's result is checked: byte patterns that no
 * two (size, iteration, rank) share for the collectives that move data, and for the reductions
 * (MPI_FLOAT, MPI_SUM) small integers of (rank, iteration, element), which add exactly, against
 * the exact sum. The v-variants (gatherv, scatterv, allgatherv, alltoallv) move the same data as
 * the plain ones, with counts of SIZE bytes and displacements of one block per rank, as OSU's, and
 * are filled and checked the same way. */
#define _POSIX_C_SOURCE 200809L
#include "osu_coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROOT 0

static float element(int rank, int iter, size_t j)
{
    return (float)(((unsigned)rank * 7u + (unsigned)iter * 3u + (unsigned)j) % 251u);
}

static int is_reduction(osu_kind_t k)
{
    return k == OSU_ALLREDUCE || k == OSU_REDUCE || k == OSU_REDUCE_SCATTER;
}

/* The collective whose data a v-variant moves (the kind itself for the others). */
static osu_kind_t plain(osu_kind_t k)
{
    switch (k) {
    case OSU_GATHERV:
        return OSU_GATHER;
    case OSU_SCATTERV:
        return OSU_SCATTER;
    case OSU_ALLGATHERV:
        return OSU_ALLGATHER;
    case OSU_ALLTOALLV:
        return OSU_ALLTOALL;
    default:
        return k;
    }
}

/* Bytes per rank's block for the collectives with one block per rank, else 0. */
static int per_rank(osu_kind_t k)
{
    k = plain(k);
    return k == OSU_GATHER || k == OSU_SCATTER || k == OSU_ALLGATHER || k == OSU_ALLTOALL;
}

static void check_sum(const osu_opts_t *o, const float *res, size_t first, size_t count,
                      size_t size, int iter)
{
    for (size_t j = 0; j < count; j++) {
        float want = 0;

        for (int r = 0; r < o->nranks; r++)
            want += element(r, iter, first + j);
        if (res[j] == want)
            continue;
        fprintf(stderr,
                "%s: validation failed on rank %d: size %zu, iteration %d, element %zu: got %g, "
                "expected %g\n",
                o->prog, o->rank, size, iter, first + j, (double)res[j], (double)want);
        fflush(stderr);
        sleep(1); /* launchers drop the output of a job that aborts at once */
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

void osu_coll_prepare(osu_coll_t *b, size_t size, int iter)
{
    const osu_opts_t *o = b->o;
    int n = o->nranks;

    if (is_reduction(o->kind)) {
        float *s = (float *)b->sbuf;
        size_t count = size / sizeof(float);
        for (size_t j = 0; j < count; j++)
            s[j] = element(o->rank, iter, j);
        return;
    }
    switch (plain(o->kind)) {
    case OSU_BCAST:
        if (o->rank == ROOT)
            osu_fill(b->rbuf, size, osu_seed(size, iter, ROOT));
        else
            memset(b->rbuf, 0, size);
        break;
    case OSU_GATHER:
    case OSU_ALLGATHER:
        osu_fill(b->sbuf, size, osu_seed(size, iter, o->rank));
        memset(b->rbuf, 0, size * (size_t)n);
        break;
    case OSU_SCATTER:
    case OSU_ALLTOALL:
        /* Block d of rank s: seeded by (size, iter, s * n + d). */
        for (int d = 0; d < n; d++)
            osu_fill(b->sbuf + (size_t)d * size, size, osu_seed(size, iter, o->rank * n + d));
        memset(b->rbuf, 0, plain(o->kind) == OSU_ALLTOALL ? size * (size_t)n : size);
        break;
    default:
        break;
    }
}

static void call(osu_coll_t *b, size_t size)
{
    const osu_opts_t *o = b->o;
    int c = (int)size, fc = (int)(size / sizeof(float));

    switch (o->kind) {
    case OSU_BCAST:
        MPI_Bcast(b->rbuf, c, MPI_CHAR, ROOT, MPI_COMM_WORLD);
        break;
    case OSU_REDUCE:
        MPI_Reduce(b->sbuf, b->rbuf, fc, MPI_FLOAT, MPI_SUM, ROOT, MPI_COMM_WORLD);
        break;
    case OSU_ALLREDUCE:
        MPI_Allreduce(b->sbuf, b->rbuf, fc, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OSU_REDUCE_SCATTER:
        MPI_Reduce_scatter(b->sbuf, b->rbuf, b->counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OSU_GATHER:
        MPI_Gather(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, ROOT, MPI_COMM_WORLD);
        break;
    case OSU_SCATTER:
        MPI_Scatter(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, ROOT, MPI_COMM_WORLD);
        break;
    case OSU_ALLGATHER:
        MPI_Allgather(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case OSU_ALLTOALL:
        MPI_Alltoall(b->sbuf, c, MPI_CHAR, b->rbuf, c, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case OSU_GATHERV:
        MPI_Gatherv(b->sbuf, c, MPI_CHAR, b->rbuf, b->counts, b->displs, MPI_CHAR, ROOT,
                    MPI_COMM_WORLD);
        break;
    case OSU_SCATTERV:
        MPI_Scatterv(b->sbuf, b->counts, b->displs, MPI_CHAR, b->rbuf, c, MPI_CHAR, ROOT,
                     MPI_COMM_WORLD);
        break;
    case OSU_ALLGATHERV:
        MPI_Allgatherv(b->sbuf, c, MPI_CHAR, b->rbuf, b->counts, b->displs, MPI_CHAR,
                       MPI_COMM_WORLD);
        break;
    case OSU_ALLTOALLV:
        MPI_Alltoallv(b->sbuf, b->counts, b->displs, MPI_CHAR, b->rbuf, b->counts, b->displs,
                      MPI_CHAR, MPI_COMM_WORLD);
        break;
    default:
        break;
    }
}

void osu_coll_verify(const osu_coll_t *b, size_t size, int iter)
{
    const osu_opts_t *o = b->o;
    int n = o->nranks, me = o->rank;
    size_t count = size / sizeof(float);

    switch (plain(o->kind)) {
    case OSU_BCAST:
        osu_check(o, b->rbuf, size, osu_seed(size, iter, ROOT), size, iter, ROOT);
        break;
    case OSU_REDUCE:
        if (me == ROOT)
            check_sum(o, (const float *)b->rbuf, 0, count, size, iter);
        break;
    case OSU_ALLREDUCE:
        check_sum(o, (const float *)b->rbuf, 0, count, size, iter);
        break;
    case OSU_REDUCE_SCATTER:
        check_sum(o, (const float *)b->rbuf, (size_t)b->displs[me], (size_t)b->counts[me], size,
                  iter);
        break;
    case OSU_GATHER:
        for (int s = 0; me == ROOT && s < n; s++)
            osu_check(o, b->rbuf + (size_t)s * size, size, osu_seed(size, iter, s), size, iter, s);
        break;
    case OSU_ALLGATHER:
        for (int s = 0; s < n; s++)
            osu_check(o, b->rbuf + (size_t)s * size, size, osu_seed(size, iter, s), size, iter, s);
        break;
    case OSU_SCATTER:
        osu_check(o, b->rbuf, size, osu_seed(size, iter, ROOT * n + me), size, iter, ROOT);
        break;
    case OSU_ALLTOALL:
        for (int s = 0; s < n; s++)
            osu_check(o, b->rbuf + (size_t)s * size, size, osu_seed(size, iter, s * n + me), size,
                      iter, s);
        break;
    default:
        break;
    }
}

void osu_coll_alloc(osu_coll_t *b, const osu_opts_t *o)
{
    osu_kind_t kind = o->kind;
    /* Per-rank blocks: the buffer holding every rank's is n times the size. */
    size_t scale = per_rank(kind) ? (size_t)o->nranks : 1;

    memset(b, 0, sizeof(*b));
    b->o = o;
    b->sbuf = osu_alloc(
        o, o->max_size * (plain(kind) == OSU_GATHER || plain(kind) == OSU_ALLGATHER ? 1 : scale));
    b->rbuf = osu_alloc(o, o->max_size * (plain(kind) == OSU_SCATTER ? 1 : scale));
    b->counts = calloc((size_t)o->nranks, sizeof(int));
    b->displs = calloc((size_t)o->nranks, sizeof(int));
    if (b->counts == NULL || b->displs == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

void osu_coll_free(osu_coll_t *b)
{
    free(b->counts);
    free(b->displs);
    free(b->sbuf);
    free(b->rbuf);
}

int osu_coll_size(osu_coll_t *b, size_t size)
{
    const osu_opts_t *o = b->o;
    size_t count = size / sizeof(float);

    if (is_reduction(o->kind) && count == 0)
        return 0; /* as OSU: sizes below one float are skipped */
    if (o->kind == OSU_REDUCE_SCATTER) {
        for (int r = 0, d = 0; r < o->nranks; r++) {
            b->counts[r] =
                (int)(count / (size_t)o->nranks + ((size_t)r < count % (size_t)o->nranks));
            b->displs[r] = d;
            d += b->counts[r];
        }
    } else if (plain(o->kind) != o->kind) {
        for (int r = 0; r < o->nranks; r++) {
            b->counts[r] = (int)size;
            b->displs[r] = (int)((size_t)r * size);
        }
    }
    return 1;
}

int osu_coll_main(int argc, char **argv, osu_kind_t kind, const char *prog, const char *title)
{
    osu_opts_t o;
    osu_coll_t b;
    int rc;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, kind, prog, title, argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    osu_coll_alloc(&b, &o);
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup);
        double busy = 0, t;
        osu_stat_t all;

        if (!osu_coll_size(&b, size))
            continue;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (o.validate)
                osu_coll_prepare(&b, size, i);
            t = MPI_Wtime();
            call(&b, size);
            if (i >= warmup)
                busy += MPI_Wtime() - t;
            if (o.validate)
                osu_coll_verify(&b, size, i);
        }
        osu_gather(&o, 1, busy / iters * 1e6, &all);
        osu_print_row(&o, size, all.sum / (double)all.n, all.min, all.max, 0);
    }
    osu_coll_free(&b);
    MPI_Finalize();
    return 0;
}
