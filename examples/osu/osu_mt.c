/* osu_mt.c: thread level, options and threads of the multi-threaded vbt_osu_*_mt benchmarks
 * (see osu_mt.h and README.md). Standard MPI-3, POSIX threads. */
#define _POSIX_C_SOURCE 200809L
#include "osu_mt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int osu_mt_init_thread(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE;

    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    return provided;
}

const char *osu_mt_level_name(int level)
{
    if (level == MPI_THREAD_SINGLE)
        return "MPI_THREAD_SINGLE";
    if (level == MPI_THREAD_FUNNELED)
        return "MPI_THREAD_FUNNELED";
    if (level == MPI_THREAD_SERIALIZED)
        return "MPI_THREAD_SERIALIZED";
    if (level == MPI_THREAD_MULTIPLE)
        return "MPI_THREAD_MULTIPLE";
    return "an unknown thread level";
}

/* "-t X", "-tX", "--num-threads X", "--num-threads=X" (and OSU's spelling --num_threads); the
 * same for -s, --separation. Returns the value, or NULL (with *i unchanged) when arg is not that
 * option; *missing when the value is. */
static const char *opt_arg(int argc, char **argv, int *i, char c, const char *const *lngs,
                           int *missing)
{
    const char *arg = argv[*i];

    *missing = 0;
    if (arg[0] == '-' && arg[1] == c) {
        if (arg[2] != '\0')
            return arg + 2;
    } else {
        const char *const *lng;
        for (lng = lngs; *lng; lng++) {
            size_t l = strlen(*lng);
            if (strncmp(arg, *lng, l) == 0 && arg[l] == '=')
                return arg + l + 1;
            if (strcmp(arg, *lng) == 0)
                break;
        }
        if (*lng == NULL)
            return NULL;
    }
    if (*i + 1 >= argc) {
        *missing = 1;
        return "";
    }
    return argv[++*i];
}

/* A thread count from 1 to OSU_MT_MAX_THREADS; *end past its digits. */
static int parse_threads(const char *s, const char **end)
{
    char *e;
    long v;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtol(s, &e, 10);
    if (errno || v < 1 || v > OSU_MT_MAX_THREADS)
        return -1;
    *end = e;
    return (int)v;
}

static int parse(void *ctx, int argc, char **argv, int *i, char *msg, size_t msg_len)
{
    static const char *const t_names[] = {"--num-threads", "--num_threads", NULL};
    static const char *const s_names[] = {"--separation", NULL};
    osu_mt_opts_t *m = ctx;
    const char *v, *end = NULL;
    int missing, send, recv;

    if ((v = opt_arg(argc, argv, i, 't', t_names, &missing)) != NULL) {
        send = missing ? -1 : parse_threads(v, &end);
        recv = send;
        if (send > 0 && *end == ':' && m->recv_opt)
            recv = parse_threads(end + 1, &end);
        if (send < 0 || recv < 0 || *end != '\0') {
            snprintf(msg, msg_len, "bad thread count '%s': expected %s, each 1 to %d", v,
                     m->recv_opt ? "SEND or SEND:RECV" : "a number", OSU_MT_MAX_THREADS);
            return -1;
        }
        m->send = send;
        m->recv = recv;
        return 1;
    }
    if (m->sep_opt && (v = opt_arg(argc, argv, i, 's', s_names, &missing)) != NULL) {
        if (strcmp(v, "tag") == 0) {
            m->sep = OSU_MT_SEP_TAG;
        } else if (strcmp(v, "comm") == 0) {
            m->sep = OSU_MT_SEP_COMM;
        } else {
            snprintf(msg, msg_len, "bad separation '%s': expected tag or comm", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

static void make_usage(osu_mt_opts_t *m)
{
    size_t n;

    if (m->recv_opt)
        n = (size_t)snprintf(m->usage, sizeof(m->usage),
                             "  -t, --num-threads SEND[:RECV]  threads of rank 0 (sending) and of "
                             "rank 1 (receiving;\n"
                             "                            default %d:%d; SEND alone: as many on "
                             "both), 1 to %d\n",
                             m->send, m->recv, OSU_MT_MAX_THREADS);
    else
        n = (size_t)snprintf(m->usage, sizeof(m->usage),
                             "  -t, --num-threads THREADS  threads per rank (default %d, 1 to %d);"
                             " thread k of a\n"
                             "                            sender sends to thread k of its peer\n",
                             m->send, OSU_MT_MAX_THREADS);
    if (m->sep_opt && n < sizeof(m->usage))
        snprintf(m->usage + n, sizeof(m->usage) - n,
                 "  -s, --separation tag|comm  how the threads' messages are kept apart (default "
                 "tag):\n"
                 "                            tag: a tag pair per thread on MPI_COMM_WORLD; comm:"
                 " a\n"
                 "                            communicator per thread (MPI_Comm_dup)\n");
}

int osu_mt_init(osu_opts_t *o, osu_mt_opts_t *m, osu_kind_t kind, const char *prog,
                const char *title, int provided, int send, int recv, int recv_opt, int sep_opt,
                int argc, char **argv)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->provided = provided;
    m->send = send;
    m->recv = recv;
    m->recv_opt = recv_opt;
    m->sep_opt = sep_opt;
    m->sep = OSU_MT_SEP_TAG;
    make_usage(m); /* with the defaults, before the options change them */
    m->extra.parse = parse;
    m->extra.ctx = m;
    m->extra.usage = m->usage;
    rc = osu_init_extra(o, kind, prog, title, &m->extra, argc, argv);
    if (rc >= 0)
        return rc;
    if (provided < MPI_THREAD_MULTIPLE) {
        /* Every rank got the same level; rank 0 says it once. */
        if (o->rank == 0) {
            printf("%s: SKIP: the MPI library (%s) provided %s; this benchmark's threads call "
                   "MPI at the same time,\n"
                   "which needs MPI_THREAD_MULTIPLE. With Verbatim, ask for it: "
                   "VBT_THREAD_LEVEL=multiple in the environment\n"
                   "of mpirun. Other MPIs grant it to MPI_Init_thread when built with thread "
                   "support.\n",
                   prog, o->label, osu_mt_level_name(provided));
            fflush(stdout);
        }
        return OSU_MT_SKIP;
    }
    if (recv_opt)
        snprintf(m->header, sizeof(m->header),
                 "# Threads: %d sending (rank 0), %d receiving (rank 1)\n", m->send, m->recv);
    else
        snprintf(m->header, sizeof(m->header), "# Threads: %d per rank (%d streams), %s\n", m->send,
                 m->send * (o->nranks / 2),
                 m->sep == OSU_MT_SEP_TAG ? "a tag pair per thread on MPI_COMM_WORLD"
                                          : "a communicator per thread (MPI_Comm_dup)");
    o->header_extra = m->header;
    return -1;
}

void osu_mt_run(const osu_opts_t *o, int n, void *(*fn)(void *), void *args, size_t stride)
{
    pthread_t th[OSU_MT_MAX_THREADS];
    int k, rc;

    for (k = 0; k < n; k++) {
        rc = pthread_create(&th[k], NULL, fn, (char *)args + stride * (size_t)k);
        if (rc != 0) {
            fprintf(stderr, "%s: rank %d: cannot start thread %d of %d: %s\n", o->prog, o->rank,
                    k + 1, n, strerror(rc));
            fflush(stderr);
            sleep(1); /* launchers drop the output of a job that aborts at once */
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (k = 0; k < n; k++)
        pthread_join(th[k], NULL);
}

unsigned osu_mt_seed(size_t size, int iter, int src, int thread)
{
    return osu_seed(size, iter, src) ^ (unsigned)(thread + 1) * 0x27d4eb2du;
}
