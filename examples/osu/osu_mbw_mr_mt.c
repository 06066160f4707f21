/* vbt_osu_mbw_mr_mt: vbt_osu_mbw_mr from several threads per rank at once: n/2 pairs of ranks
 * (i, i + n/2), and -t threads in each rank; thread k of a sending rank sends windows of -W
 * MPI_Isends to thread k of its peer, which acks each window. -s says how the threads' messages
 * are kept apart: tag (default: one communicator, MPI_COMM_WORLD, a tag pair per thread) or comm
 * (a communicator per thread, MPI_Comm_dup), the two ways a library can spread threads over its
 * resources. Reports the aggregate bandwidth in MB/s (10^6 bytes) and message rate over every
 * pair and thread: pairs * threads * bytes (messages) / the sending ranks' average time, a
 * rank's time running from its threads' first timed window to its last thread's last ack; -f
 * adds the aggregate as if every rank took the slowest / the fastest rank's time (-c: the
 * times include the filling of the messages, which overlaps other threads' sends). Needs
 * MPI_THREAD_MULTIPLE: with less it says so and exits 77. See -h and README.md. */
#define _POSIX_C_SOURCE 200809L
#include "osu_mt.h"

#include <stdio.h>
#include <stdlib.h>

/* -s tag: thread k's data and ack tags (above osu_common's 99 for figures). */
#define TAG_DATA(k) (100 + 2 * (k))
#define TAG_ACK(k)  (101 + 2 * (k))

typedef struct {
    const osu_opts_t *o;
    pthread_barrier_t *start; /* the rank's threads begin a size together */
    int id, peer, window;
    MPI_Comm comm;
    int tag_data, tag_ack;
    size_t size;
    int warmup, iters;
    unsigned char *buf; /* a sender's message, or a receiver's window of slots */
    MPI_Request *reqs;
    MPI_Status *stats; /* not MPI_STATUSES_IGNORE: MPICH's mpi.h makes GCC warn of it */
    double t0, t1;     /* a sender's first timed window and last ack */
} mr_thread_t;

static void *sender(void *arg)
{
    mr_thread_t *t = arg;
    const osu_opts_t *o = t->o;
    int ack = 0;
    double ti;

    t->t0 = t->t1 = 0;
    pthread_barrier_wait(t->start);
    for (int i = 0; i < t->warmup + t->iters; i++) {
        if (o->validate)
            osu_fill(t->buf, t->size, osu_mt_seed(t->size, i, o->rank, t->id));
        ti = MPI_Wtime();
        if (i == t->warmup)
            t->t0 = ti;
        for (int w = 0; w < t->window; w++)
            MPI_Isend(t->buf, (int)t->size, MPI_CHAR, t->peer, t->tag_data, t->comm, &t->reqs[w]);
        MPI_Waitall(t->window, t->reqs, t->stats);
        MPI_Recv(&ack, 1, MPI_INT, t->peer, t->tag_ack, t->comm, MPI_STATUS_IGNORE);
        if (i >= t->warmup)
            t->t1 = MPI_Wtime();
    }
    return NULL;
}

static void *receiver(void *arg)
{
    mr_thread_t *t = arg;
    const osu_opts_t *o = t->o;
    size_t stride = osu_slot_stride(t->size);
    int ack = 0;

    pthread_barrier_wait(t->start);
    for (int i = 0; i < t->warmup + t->iters; i++) {
        for (int w = 0; w < t->window; w++)
            MPI_Irecv(t->buf + stride * (size_t)w, (int)t->size, MPI_CHAR, t->peer, t->tag_data,
                      t->comm, &t->reqs[w]);
        MPI_Waitall(t->window, t->reqs, t->stats);
        MPI_Send(&ack, 1, MPI_INT, t->peer, t->tag_ack, t->comm);
        for (int w = 0; o->validate && w < t->window; w++)
            osu_check(o, t->buf + stride * (size_t)w, t->size,
                      osu_mt_seed(t->size, i, t->peer, t->id), t->size, i, t->peer);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    osu_opts_t o;
    osu_mt_opts_t m;
    mr_thread_t *th;
    MPI_Comm *comms = NULL;
    pthread_barrier_t start;
    int rc, pairs, is_sender, peer, nthreads, provided;

    provided = osu_mt_init_thread(&argc, &argv);
    rc = osu_mt_init(&o, &m, OSU_MBW_MR, "vbt_osu_mbw_mr_mt",
                     "Multi-threaded Multiple Bandwidth / Message Rate Test", provided, 2, 2, 0, 1,
                     argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    pairs = o.nranks / 2;
    is_sender = o.rank < pairs;
    peer = is_sender ? o.rank + pairs : o.rank - pairs;
    nthreads = m.send;
    if (m.sep == OSU_MT_SEP_COMM) {
        /* Collective: every rank dups in the same order, before any thread runs. */
        comms = osu_alloc(&o, sizeof(*comms) * (size_t)nthreads);
        for (int k = 0; k < nthreads; k++)
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
    }
    th = osu_alloc(&o, sizeof(*th) * (size_t)nthreads);
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    for (int k = 0; k < nthreads; k++) {
        th[k].o = &o;
        th[k].start = &start;
        th[k].id = k;
        th[k].peer = peer;
        th[k].window = o.window;
        th[k].comm = comms ? comms[k] : MPI_COMM_WORLD;
        th[k].tag_data = comms ? 1 : TAG_DATA(k);
        th[k].tag_ack = comms ? 2 : TAG_ACK(k);
        th[k].buf = is_sender ? osu_alloc(&o, o.max_size)
                              : osu_alloc(&o, osu_slot_stride(o.max_size) * (size_t)o.window);
        th[k].reqs = osu_alloc(&o, sizeof(MPI_Request) * (size_t)o.window);
        th[k].stats = osu_alloc(&o, sizeof(MPI_Status) * (size_t)o.window);
    }
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup);
        double t0 = 0, t1 = 0, busy = 0, msgs, bytes;
        osu_stat_t all;

        for (int k = 0; k < nthreads; k++) {
            th[k].size = size;
            th[k].warmup = warmup;
            th[k].iters = iters;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        osu_mt_run(&o, nthreads, is_sender ? sender : receiver, th, sizeof(*th));
        /* A sending rank's time: from its threads' first timed window to its last thread's last
         * ack. With -c it includes the filling: the threads overlap, so the filling cannot be
         * subtracted the way vbt_osu_mbw_mr does it. */
        for (int k = 0; is_sender && k < nthreads; k++) {
            if (k == 0 || th[k].t0 < t0)
                t0 = th[k].t0;
            if (k == 0 || th[k].t1 > t1)
                t1 = th[k].t1;
        }
        busy = t1 - t0;
        osu_gather(&o, is_sender, busy, &all);
        msgs = (double)pairs * nthreads * o.window * iters;
        bytes = msgs * (double)size;
        osu_print_row(&o, size, bytes / (all.sum / all.n) / 1e6, bytes / all.max / 1e6,
                      bytes / all.min / 1e6, msgs / (all.sum / all.n));
    }
    for (int k = 0; k < nthreads; k++) {
        free(th[k].buf);
        free(th[k].reqs);
        free(th[k].stats);
        if (comms)
            MPI_Comm_free(&comms[k]);
    }
    pthread_barrier_destroy(&start);
    free(th);
    free(comms);
    MPI_Finalize();
    return 0;
}
