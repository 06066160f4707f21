/* vbt_osu_latency_mt: ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv) from several threads
 * at once: -t SEND:RECV threads on rank 0 and on rank 1 (default 1:2, as OSU's osu_latency_mt).
 * The iterations of a size are dealt round robin: iteration i is sent by thread i % SEND of
 * rank 0 and answered by thread i % RECV of rank 1. The latency is half a round trip, averaged
 * over every timed iteration of every sending thread (-f: also the fastest and slowest
 * iteration). Needs MPI_THREAD_MULTIPLE: with less it says so and exits 77. Options and output
 * as OSU's osu_latency_mt: see -h and README.md.
 *
 * Tags: iteration i travels with tag 1 + i mod lcm(SEND, RECV), both ways. Two iterations with
 * the same tag then share their sending and their receiving thread, which handle them in turn,
 * so a receive can only match its own iteration's message (MPI orders one thread's messages on
 * one tag and communicator); the threads' iterations overlap freely otherwise. So -c can check
 * every payload against its iteration, whatever SEND and RECV are (OSU's needs them equal). */
#define _POSIX_C_SOURCE 200809L
#include "osu_mt.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    const osu_opts_t *o;
    pthread_barrier_t *start; /* the rank's threads begin a size together */
    int id, nthreads, ntags;
    size_t size;
    int warmup, iters;
    unsigned char *sbuf, *rbuf;
    osu_stat_t st; /* per iteration (-f, -c) */
    double busy;   /* seconds from the first timed iteration to the last one's end */
    long timed;    /* timed iterations of this thread */
} lat_thread_t;

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void *sender(void *arg)
{
    lat_thread_t *t = arg;
    const osu_opts_t *o = t->o;
    int per_iter = o->full || o->validate, n = t->warmup + t->iters;
    double t0 = 0, ti;

    osu_stat_reset(&t->st);
    t->busy = 0;
    t->timed = 0;
    pthread_barrier_wait(t->start);
    for (int i = t->id; i < n; i += t->nthreads) {
        int tag = 1 + i % t->ntags;

        if (o->validate)
            osu_fill(t->sbuf, t->size, osu_seed(t->size, i, 0));
        ti = MPI_Wtime();
        if (i >= t->warmup && t->timed == 0)
            t0 = ti;
        MPI_Send(t->sbuf, (int)t->size, MPI_CHAR, 1, tag, MPI_COMM_WORLD);
        MPI_Recv(t->rbuf, (int)t->size, MPI_CHAR, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (i >= t->warmup) {
            double now = MPI_Wtime();
            if (per_iter) {
                osu_stat_add(&t->st, (now - ti) / 2 * 1e6);
                t->busy += now - ti; /* the filling and checking left out */
            } else {
                t->busy = now - t0;
            }
            t->timed++;
        }
        if (o->validate)
            osu_check(o, t->rbuf, t->size, osu_seed(t->size, i, 1), t->size, i, 1);
    }
    return NULL;
}

static void *receiver(void *arg)
{
    lat_thread_t *t = arg;
    const osu_opts_t *o = t->o;
    int n = t->warmup + t->iters;

    pthread_barrier_wait(t->start);
    for (int i = t->id; i < n; i += t->nthreads) {
        int tag = 1 + i % t->ntags;

        if (o->validate)
            osu_fill(t->sbuf, t->size, osu_seed(t->size, i, 1));
        MPI_Recv(t->rbuf, (int)t->size, MPI_CHAR, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(t->sbuf, (int)t->size, MPI_CHAR, 0, tag, MPI_COMM_WORLD);
        if (o->validate)
            osu_check(o, t->rbuf, t->size, osu_seed(t->size, i, 0), t->size, i, 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    osu_opts_t o;
    osu_mt_opts_t m;
    lat_thread_t *th;
    pthread_barrier_t start;
    int rc, nthreads, ntags, provided;

    provided = osu_mt_init_thread(&argc, &argv);
    rc = osu_mt_init(&o, &m, OSU_LATENCY, "vbt_osu_latency_mt", "Multi-threaded Latency Test",
                     provided, 1, 2, 1, 0, argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    nthreads = o.rank == 0 ? m.send : m.recv;
    ntags = m.send / gcd(m.send, m.recv) * m.recv;
    th = osu_alloc(&o, sizeof(*th) * (size_t)nthreads);
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    for (int k = 0; k < nthreads; k++) {
        th[k].o = &o;
        th[k].start = &start;
        th[k].id = k;
        th[k].nthreads = nthreads;
        th[k].ntags = ntags;
        th[k].sbuf = osu_alloc(&o, o.max_size);
        th[k].rbuf = osu_alloc(&o, o.max_size);
    }
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup);
        osu_stat_t all, per_thread;

        for (int k = 0; k < nthreads; k++) {
            th[k].size = size;
            th[k].warmup = warmup;
            th[k].iters = iters;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        osu_mt_run(&o, nthreads, o.rank == 0 ? sender : receiver, th, sizeof(*th));
        if (o.rank != 0)
            continue;
        /* The mean over every timed iteration of every thread; -f: the fastest and slowest
         * iteration (-c: the same), else the fastest and slowest thread's mean. */
        osu_stat_reset(&all);
        osu_stat_reset(&per_thread);
        for (int k = 0; k < nthreads; k++) {
            if (th[k].timed == 0)
                continue;
            all.sum += th[k].busy / 2 * 1e6;
            all.n += th[k].timed;
            osu_stat_add(&per_thread, th[k].busy / 2 * 1e6 / (double)th[k].timed);
            if (o.full || o.validate) {
                if (per_thread.n == 1 || th[k].st.min < all.min)
                    all.min = th[k].st.min;
                if (per_thread.n == 1 || th[k].st.max > all.max)
                    all.max = th[k].st.max;
            }
        }
        if (!(o.full || o.validate)) {
            all.min = per_thread.min;
            all.max = per_thread.max;
        }
        osu_print_row(&o, size, all.n ? all.sum / (double)all.n : 0, all.min, all.max, 0);
    }
    for (int k = 0; k < nthreads; k++) {
        free(th[k].sbuf);
        free(th[k].rbuf);
    }
    pthread_barrier_destroy(&start);
    free(th);
    MPI_Finalize();
    return 0;
}
