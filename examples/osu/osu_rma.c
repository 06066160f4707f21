/* osu_rma.c: options, windows and timing loops of the one-sided vbt_osu_* benchmarks (see
 * osu_rma.h and README.md). Standard MPI-3 and POSIX only.
 *
 * The loops are OSU's: passive target (lock, lock_all, flush, flush_local) has rank 0 act alone
 * while rank 1 waits in the barrier that ends the size; active target (fence, pscw) has both
 * ranks open and close every epoch. A window is created per size, as OSU does, so that a
 * library that registers window memory pays for it at the size it is used with. */
#define _POSIX_C_SOURCE 200809L
#include "osu_rma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define OSU_TAG_DISP 98 /* the exchange of dynamic windows' addresses */

static const char *const win_names[] = {"create", "allocate", "dynamic"};
static const char *const win_calls[] = {"MPI_Win_create", "MPI_Win_allocate",
                                        "MPI_Win_create_dynamic"};
static const char *const sync_names[] = {"lock",  "pscw",        "fence",
                                         "flush", "flush_local", "lock_all"};
static const char *const sync_calls[] = {"MPI_Win_lock/unlock", "MPI_Win_post/start/complete/wait",
                                         "MPI_Win_fence",       "MPI_Win_flush",
                                         "MPI_Win_flush_local", "MPI_Win_lock_all/unlock_all"};

#define N_WIN  ((int)(sizeof(win_names) / sizeof(win_names[0])))
#define N_SYNC ((int)(sizeof(sync_names) / sizeof(sync_names[0])))

/* "-w X", "-wX", "--win-option X", "--win-option=X"; the same for -s, --sync-option. Returns the
 * value, or NULL (with *i unchanged) when arg is not that option. */
static const char *opt_arg(int argc, char **argv, int *i, char c, const char *lng, int *missing)
{
    const char *arg = argv[*i];
    size_t l = strlen(lng);

    *missing = 0;
    if (arg[0] == '-' && arg[1] == c) {
        if (arg[2] != '\0')
            return arg + 2;
    } else if (strncmp(arg, lng, l) == 0 && arg[l] == '=') {
        return arg + l + 1;
    } else if (strcmp(arg, lng) != 0) {
        return NULL;
    }
    if (*i + 1 >= argc) {
        *missing = 1;
        return "";
    }
    return argv[++*i];
}

static int lookup(const char *v, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (strcasecmp(v, names[k]) == 0)
            return k;
    return -1;
}

static int parse(void *ctx, int argc, char **argv, int *i, char *msg, size_t msg_len)
{
    osu_rma_opts_t *r = ctx;
    const char *v;
    int k, missing;

    if ((v = opt_arg(argc, argv, i, 'w', "--win-option", &missing)) != NULL) {
        k = missing ? -1 : lookup(v, win_names, N_WIN);
        if (k < 0) {
            snprintf(msg, msg_len, "bad window creation '%s': expected create, allocate or dynamic",
                     v);
            return -1;
        }
        r->win = (osu_win_kind_t)k;
        return 1;
    }
    if ((v = opt_arg(argc, argv, i, 's', "--sync-option", &missing)) != NULL) {
        k = missing ? -1 : lookup(v, sync_names, N_SYNC);
        if (k < 0 || !(r->syncs & (1u << k))) {
            size_t n = (size_t)snprintf(msg, msg_len, "bad synchronization '%s': expected", v);
            const char *sep = " ";
            for (k = 0; k < N_SYNC && n < msg_len; k++)
                if (r->syncs & (1u << k)) {
                    n += (size_t)snprintf(msg + n, msg_len - n, "%s%s", sep, sync_names[k]);
                    sep = ", ";
                }
            return -1;
        }
        r->sync = (osu_sync_t)k;
        return 1;
    }
    return 0;
}

static void make_usage(osu_rma_opts_t *r)
{
    size_t n;

    n = (size_t)snprintf(r->usage, sizeof(r->usage),
                         "  -w, --win-option WIN      window creation (default %s):\n"
                         "                            create (MPI_Win_create), allocate "
                         "(MPI_Win_allocate),\n"
                         "                            dynamic (MPI_Win_create_dynamic and "
                         "MPI_Win_attach)\n"
                         "  -s, --sync-option SYNC    synchronization (default %s):",
                         win_names[r->win], sync_names[r->sync]);
    for (int k = 0; k < N_SYNC && n < sizeof(r->usage); k++)
        if (r->syncs & (1u << k))
            n += (size_t)snprintf(r->usage + n, sizeof(r->usage) - n, "\n%28s%-12s (%s)", "",
                                  sync_names[k], sync_calls[k]);
    if (n < sizeof(r->usage))
        snprintf(r->usage + n, sizeof(r->usage) - n, "\n");
}

int osu_rma_init(osu_opts_t *o, osu_rma_opts_t *r, const osu_rma_desc_t *d, int argc, char **argv)
{
    int rc;

    memset(r, 0, sizeof(*r));
    r->win = d->win;
    r->sync = d->sync;
    r->syncs = d->syncs;
    r->lock_kind = d->lock_kind;
    r->flush_kind = d->flush_kind;
    make_usage(r); /* with the defaults, before the options change them */
    r->extra.parse = parse;
    r->extra.ctx = r;
    r->extra.usage = r->usage;
    rc = osu_init_extra(o, d->kind, d->prog, d->title, &r->extra, argc, argv);
    if (rc >= 0)
        return rc;
    snprintf(r->header, sizeof(r->header), "# Window creation: %s\n# Synchronization: %s\n",
             win_calls[r->win], sync_calls[r->sync]);
    o->header_extra = r->header;
    return -1;
}

void osu_win_create(const osu_opts_t *o, const osu_rma_opts_t *r, size_t bytes, osu_win_t *w)
{
    MPI_Aint mine;
    int peer = 1 - o->rank;

    memset(w, 0, sizeof(*w));
    if (bytes == 0)
        bytes = 1;
    switch (r->win) {
    case OSU_WIN_ALLOCATE:
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win);
        memset(w->base, 0, bytes); /* fault the pages in now, not while timing */
        break;
    case OSU_WIN_CREATE:
        w->own = w->base = osu_alloc(o, bytes);
        MPI_Win_create(w->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        break;
    case OSU_WIN_DYNAMIC:
        w->own = w->base = osu_alloc(o, bytes);
        w->dynamic = 1;
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        MPI_Win_attach(w->win, w->base, (MPI_Aint)bytes);
        /* The target displacement of a dynamic window is the peer's address. */
        MPI_Get_address(w->base, &mine);
        MPI_Sendrecv(&mine, 1, MPI_AINT, peer, OSU_TAG_DISP, &w->disp, 1, MPI_AINT, peer,
                     OSU_TAG_DISP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    }
}

void osu_win_free(osu_win_t *w)
{
    if (w->dynamic)
        MPI_Win_detach(w->win, w->base);
    MPI_Win_free(&w->win);
    free(w->own);
    w->own = NULL;
    w->base = NULL;
}

int osu_rma_two_way(const osu_rma_opts_t *r)
{
    return r->sync == OSU_SYNC_FENCE || r->sync == OSU_SYNC_PSCW;
}

/* The group of the other rank, for post and start. */
static MPI_Group peer_group(const osu_opts_t *o)
{
    MPI_Group world, g;
    int peer = 1 - o->rank;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &g);
    MPI_Group_free(&world);
    return g;
}

/* Rank 0's passive-target loop: n operations per iteration (the latency tests 1, the bandwidth
 * tests -W), the epoch around each iteration or, for flush and flush_local, around all. */
static double passive(const osu_opts_t *o, const osu_rma_opts_t *r, const osu_win_t *w,
                      const osu_rma_bufs_t *b, size_t size, int n, int warmup, int iters,
                      osu_rma_op_t op)
{
    double t0 = 0;
    int flush = r->sync == OSU_SYNC_FLUSH || r->sync == OSU_SYNC_FLUSH_LOCAL;

    if (o->rank != 0)
        return 0;
    if (flush)
        MPI_Win_lock(r->flush_kind, 1, 0, w->win);
    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (r->sync == OSU_SYNC_LOCK)
            MPI_Win_lock(r->lock_kind, 1, 0, w->win);
        else if (r->sync == OSU_SYNC_LOCK_ALL)
            MPI_Win_lock_all(0, w->win);
        for (int j = 0; j < n; j++)
            op(b, size, j, 1, w->disp, w->win);
        switch (r->sync) {
        case OSU_SYNC_LOCK:
            MPI_Win_unlock(1, w->win);
            break;
        case OSU_SYNC_LOCK_ALL:
            MPI_Win_unlock_all(w->win);
            break;
        case OSU_SYNC_FLUSH:
            MPI_Win_flush(1, w->win);
            break;
        default:
            MPI_Win_flush_local(1, w->win);
            break;
        }
    }
    t0 = MPI_Wtime() - t0;
    if (flush)
        MPI_Win_unlock(1, w->win);
    return t0;
}

double osu_rma_latency(const osu_opts_t *o, const osu_rma_opts_t *r, const osu_win_t *w,
                       const osu_rma_bufs_t *b, size_t size, int warmup, int iters, osu_rma_op_t op)
{
    int me = o->rank, peer = 1 - o->rank;
    double t0 = 0;
    MPI_Group g;

    if (!osu_rma_two_way(r))
        return passive(o, r, w, b, size, 1, warmup, iters, op);
    /* A ping-pong: rank 0's operation in the first epoch, rank 1's in the second. */
    if (r->sync == OSU_SYNC_FENCE) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            MPI_Win_fence(0, w->win);
            if (me == 0)
                op(b, size, 0, peer, w->disp, w->win);
            MPI_Win_fence(0, w->win);
            if (me == 1)
                op(b, size, 0, peer, w->disp, w->win);
        }
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win);
    } else {
        g = peer_group(o);
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            if (me == 0) {
                MPI_Win_start(g, 0, w->win);
                op(b, size, 0, peer, w->disp, w->win);
                MPI_Win_complete(w->win);
                MPI_Win_post(g, 0, w->win);
                MPI_Win_wait(w->win);
            } else {
                MPI_Win_post(g, 0, w->win);
                MPI_Win_wait(w->win);
                MPI_Win_start(g, 0, w->win);
                op(b, size, 0, peer, w->disp, w->win);
                MPI_Win_complete(w->win);
            }
        }
        MPI_Group_free(&g);
    }
    return me == 0 ? MPI_Wtime() - t0 : 0;
}

double osu_rma_bw(const osu_opts_t *o, const osu_rma_opts_t *r, const osu_win_t *w,
                  const osu_rma_bufs_t *b, size_t size, int warmup, int iters, osu_rma_op_t op)
{
    int me = o->rank;
    double t0 = 0;
    MPI_Group g;

    if (!osu_rma_two_way(r))
        return passive(o, r, w, b, size, o->window, warmup, iters, op);
    /* Rank 0 is the only origin; rank 1 only exposes its window. */
    if (r->sync == OSU_SYNC_FENCE) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            MPI_Win_fence(0, w->win);
            for (int j = 0; me == 0 && j < o->window; j++)
                op(b, size, j, 1, w->disp, w->win);
            MPI_Win_fence(0, w->win);
        }
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win);
    } else {
        g = peer_group(o);
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            if (me == 0) {
                MPI_Win_start(g, 0, w->win);
                for (int j = 0; j < o->window; j++)
                    op(b, size, j, 1, w->disp, w->win);
                MPI_Win_complete(w->win);
            } else {
                MPI_Win_post(g, 0, w->win);
                MPI_Win_wait(w->win);
            }
        }
        MPI_Group_free(&g);
    }
    return me == 0 ? MPI_Wtime() - t0 : 0;
}

double osu_rma_bibw(const osu_opts_t *o, const osu_rma_opts_t *r, const osu_win_t *w,
                    const osu_rma_bufs_t *b, size_t size, int warmup, int iters, osu_rma_op_t op)
{
    int peer = 1 - o->rank;
    double t0 = 0;
    MPI_Group g = MPI_GROUP_NULL;

    /* Both ranks are origin and target of every epoch (put_bibw accepts fence and pscw only). */
    if (r->sync == OSU_SYNC_PSCW)
        g = peer_group(o);
    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (r->sync == OSU_SYNC_PSCW) {
            MPI_Win_post(g, 0, w->win);
            MPI_Win_start(g, 0, w->win);
        } else {
            MPI_Win_fence(0, w->win);
        }
        for (int j = 0; j < o->window; j++)
            op(b, size, j, peer, w->disp, w->win);
        if (r->sync == OSU_SYNC_PSCW) {
            MPI_Win_complete(w->win);
            MPI_Win_wait(w->win);
        } else {
            MPI_Win_fence(0, w->win);
        }
    }
    t0 = MPI_Wtime() - t0;
    if (r->sync == OSU_SYNC_PSCW)
        MPI_Group_free(&g);
    else
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win);
    return o->rank == 0 ? t0 : 0;
}

int osu_rma_main(const osu_rma_desc_t *d, int bidir, osu_rma_op_t op, int argc, char **argv)
{
    osu_opts_t o;
    osu_rma_opts_t r;
    osu_rma_bufs_t b;
    size_t span;
    int rc, bw = d->kind == OSU_RMA_BW;

    MPI_Init(&argc, &argv);
    rc = osu_rma_init(&o, &r, d, argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    /* A bandwidth test's window of operations goes to consecutive slots of size bytes. */
    span = o.max_size * (bw ? (size_t)o.window : 1);
    b.src = osu_alloc(&o, d->bufs & OSU_BUF_SRC ? span : 8);
    b.result = osu_alloc(&o, d->bufs & OSU_BUF_RESULT ? span : 8);
    b.compare = osu_alloc(&o, 8);
    memset(b.src, 1, d->bufs & OSU_BUF_SRC ? span : 8); /* accumulate adds 1 to every byte */
    memset(b.compare, 0, 8);
    if (d->kind == OSU_RMA_ATOMIC) {
        long long one = 1; /* fetch_and_op adds 1; compare_and_swap swaps 0 for 1 */
        memcpy(b.src, &one, sizeof(one));
    }
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup);
        double t, value;
        osu_win_t w;

        osu_win_create(&o, &r, size * (bw ? (size_t)o.window : 1), &w);
        MPI_Barrier(MPI_COMM_WORLD);
        if (!bw)
            t = osu_rma_latency(&o, &r, &w, &b, size, warmup, iters, op);
        else if (bidir)
            t = osu_rma_bibw(&o, &r, &w, &b, size, warmup, iters, op);
        else
            t = osu_rma_bw(&o, &r, &w, &b, size, warmup, iters, op);
        MPI_Barrier(MPI_COMM_WORLD);
        if (!bw) /* µs per operation: a ping-pong's iteration holds two */
            value = t * 1e6 / iters / (osu_rma_two_way(&r) ? 2 : 1);
        else /* MB/s; bibw counts both directions */
            value = (double)size * o.window * iters * (bidir ? 2 : 1) / t / 1e6;
        osu_print_row(&o, size, value, 0, 0, 0);
        osu_win_free(&w);
    }
    free(b.src);
    free(b.result);
    free(b.compare);
    MPI_Finalize();
    return 0;
}
