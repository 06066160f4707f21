/* One-sided accumulates: every predefined op on the types it applies to (int, unsigned char,
 * int64_t, float, double; MAXLOC and MINLOC on MPI_2INT and MPI_DOUBLE_INT), from every process
 * into every process at once, under fence, PSCW, shared and exclusive locks, lock_all and
 * flush; MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Raccumulate and
 * MPI_Rget_accumulate with their fetched values checked; the ordering of accumulates from one
 * origin to one place (REPLACE then SUM is defined); counters from N ranks x K fetch-and-adds
 * (64-bit) and compare-and-swap loops that must come out exact, every fetched value seen once;
 * replaces racing on the same words, none lost;
 * large accumulates. Values are small integers, exact in every type, so floating results are
 * exact too. Usage: rma_acc TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_acc"
#include "mpitest.h"
#include "rma_common.h"

enum { K_INT, K_UCHAR, K_I64, K_FLOAT, K_DOUBLE, K_NKINDS };

static const struct {
    const char *name;
    size_t size;
    int floating;
} kinds[K_NKINDS] = {{"int", sizeof(int), 0},
                     {"unsigned char", 1, 0},
                     {"int64_t", 8, 0},
                     {"float", sizeof(float), 1},
                     {"double", sizeof(double), 1}};

static MPI_Datatype kind_type(int k)
{
    MPI_Datatype t[K_NKINDS] = {MPI_INT, MPI_UNSIGNED_CHAR, MPI_INT64_T, MPI_FLOAT, MPI_DOUBLE};
    return t[k];
}

static void store(int k, void *p, size_t i, int64_t v)
{
    switch (k) {
    case K_INT:
        ((int *)p)[i] = (int)v;
        break;
    case K_UCHAR:
        ((unsigned char *)p)[i] = (unsigned char)v;
        break;
    case K_I64:
        ((int64_t *)p)[i] = v;
        break;
    case K_FLOAT:
        ((float *)p)[i] = (float)v;
        break;
    default:
        ((double *)p)[i] = (double)v;
        break;
    }
}

static int64_t load(int k, const void *p, size_t i)
{
    switch (k) {
    case K_INT:
        return ((const int *)p)[i];
    case K_UCHAR:
        return ((const unsigned char *)p)[i];
    case K_I64:
        return ((const int64_t *)p)[i];
    case K_FLOAT:
        return (int64_t)((const float *)p)[i];
    default:
        return (int64_t)((const double *)p)[i];
    }
}

static const struct {
    const char *name;
    MPI_Op op;
    int ints_only; /* logical and bitwise ops: not on floating types */
} ops[] = {
    {"SUM", MPI_SUM, 0},   {"PROD", MPI_PROD, 0},       {"MAX", MPI_MAX, 0},
    {"MIN", MPI_MIN, 0},   {"LAND", MPI_LAND, 1},       {"LOR", MPI_LOR, 1},
    {"LXOR", MPI_LXOR, 1}, {"BAND", MPI_BAND, 1},       {"BOR", MPI_BOR, 1},
    {"BXOR", MPI_BXOR, 1}, {"REPLACE", MPI_REPLACE, 0}, {"NO_OP", MPI_NO_OP, 0},
};
#define NOPS (int)(sizeof(ops) / sizeof(ops[0]))

/* a op b in int64 arithmetic; the caller wraps the result to the type through store/load. */
static int64_t apply(MPI_Op op, int64_t a, int64_t b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_PROD)
        return a * b;
    if (op == MPI_MAX)
        return a > b ? a : b;
    if (op == MPI_MIN)
        return a < b ? a : b;
    if (op == MPI_LAND)
        return (a != 0) && (b != 0);
    if (op == MPI_LOR)
        return (a != 0) || (b != 0);
    if (op == MPI_LXOR)
        return (a != 0) != (b != 0);
    if (op == MPI_BAND)
        return a & b;
    if (op == MPI_BOR)
        return a | b;
    if (op == MPI_BXOR)
        return a ^ b;
    if (op == MPI_REPLACE)
        return b;
    return a; /* MPI_NO_OP */
}

/* Element i contributed by origin r for op (r = -1 - t: target t's initial value). Small, with
 * zeros for the logical ops, negatives for MAX/MIN on signed types, products that stay exact. */
static int64_t contrib(MPI_Op op, int k, int r, size_t i)
{
    int64_t h = (int64_t)((unsigned)(r + 11) * 2654435761u ^ (unsigned)(i * 40503u)) & 0xffff;
    if (op == MPI_PROD)
        return h % 3 + 1;
    if (op == MPI_MAX || op == MPI_MIN)
        return k == K_UCHAR ? h % 251 : h % 201 - 100;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return h % 3 == 0 ? 0 : h % 7 + 1;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return k == K_UCHAR ? h & 0xff : h;
    return h % 1000 - (k == K_UCHAR ? 0 : 300);
}

#define NELEM 37

/* Window sizes rounded to 4 KiB: MPICH 4.0.2 misplaces MPI_Win_allocate memory of other sizes
 * (rma_basic odd_window tests that on its own). */
#define WROUND(_n) ((((MPI_Aint)(_n)) + 4095) / 4096 * 4096)

/* Epochs towards every process at once, for many-origins-to-every-target rounds. */
enum { A_FENCE, A_PSCW, A_LOCK_SHARED, A_LOCK_EXCL, A_LOCK_ALL, A_FLUSH, A_NMODES };
static const char *const amode_name[A_NMODES] = {"fence",     "pscw",     "lock_shared",
                                                 "lock_excl", "lock_all", "flush"};

static void all_open(MPI_Win win, int m)
{
    MPI_Group g;
    if (m == A_FENCE)
        CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    else if (m == A_PSCW) {
        MPI_Win_get_group(win, &g);
        CHECK(MPI_Win_post(g, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Win_start(g, 0, win) == MPI_SUCCESS);
        MPI_Group_free(&g);
    } else if (m == A_LOCK_ALL || m == A_FLUSH)
        CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
}

/* Around the operations to target t, for the per-target lock modes. */
static void all_target_begin(MPI_Win win, int m, int t)
{
    if (m == A_LOCK_SHARED)
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win) == MPI_SUCCESS);
    else if (m == A_LOCK_EXCL)
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win) == MPI_SUCCESS);
}

static void all_target_end(MPI_Win win, int m, int t)
{
    if (m == A_LOCK_SHARED || m == A_LOCK_EXCL)
        CHECK(MPI_Win_unlock(t, win) == MPI_SUCCESS);
    else if (m == A_FLUSH)
        CHECK(MPI_Win_flush(t, win) == MPI_SUCCESS);
}

static void all_close(MPI_Win win, int m)
{
    if (m == A_FENCE)
        CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    else if (m == A_PSCW) {
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS);
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS);
    } else if (m == A_LOCK_ALL || m == A_FLUSH)
        CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
}

/* v wrapped to kind k (unsigned char arithmetic is modulo 256). */
static int64_t wrap(int k, int64_t v)
{
    unsigned char tmp[8];
    store(k, tmp, 0, v);
    return load(k, tmp, 0);
}

static int acc_applies(int o, int k)
{
    /* NO_OP: MPI-4.1 12.3.4 allows it in the fetching calls only. */
    return !(ops[o].ints_only && kinds[k].floating) && ops[o].op != MPI_NO_OP;
}

/* Every op on type k in one epoch of mode m, op o on elements [o NELEM, (o+1) NELEM) of every
 * process, from every process (REPLACE only from the left neighbour: from several at once it
 * leaves any one of them). */
static void acc_round(rma_win_t *w, int m, int k)
{
    size_t sz = kinds[k].size;
    unsigned char *src = xmalloc(NOPS * NELEM * sz);
    char what[128];

    rma_local_begin(w);
    for (int o = 0; o < NOPS; o++)
        for (size_t i = 0; i < NELEM; i++)
            store(k, w->base, o * NELEM + i, contrib(ops[o].op, k, -1 - rank, i));
    rma_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 0; o < NOPS; o++)
        for (size_t i = 0; i < NELEM; i++)
            store(k, src, o * NELEM + i, contrib(ops[o].op, k, rank, i));
    all_open(w->win, m);
    for (int j = 0; j < size; j++) {
        int t = (rank + j + k) % size; /* everybody starts at a different target */
        all_target_begin(w->win, m, t);
        for (int o = 0; o < NOPS; o++) {
            if (!acc_applies(o, k) || (ops[o].op == MPI_REPLACE && t != (rank + 1) % size))
                continue;
            CHECK(MPI_Accumulate(src + o * NELEM * sz, NELEM, kind_type(k), t,
                                 rma_disp(w, t, (MPI_Aint)(o * NELEM * sz)), NELEM, kind_type(k),
                                 ops[o].op, w->win) == MPI_SUCCESS);
        }
        all_target_end(w->win, m, t);
    }
    all_close(w->win, m);
    MPI_Barrier(MPI_COMM_WORLD);
    rma_local_begin(w);
    for (int o = 0; o < NOPS; o++) {
        MPI_Op op = ops[o].op;
        snprintf(what, sizeof(what), "MPI_Accumulate %s on %s, %s, %s", ops[o].name, kinds[k].name,
                 amode_name[m], rma_flavor_name[w->flavor]);
        for (size_t i = 0; i < NELEM; i++) {
            int64_t want = wrap(k, contrib(op, k, -1 - rank, i));
            for (int r = 0; r < size && acc_applies(o, k); r++) {
                if (op == MPI_REPLACE && r != (rank - 1 + size) % size)
                    continue;
                want = wrap(k, apply(op, want, contrib(op, k, r, i))); /* wrap at every step */
            }
            if (load(k, w->base, o * NELEM + i) != want)
                FAIL("%s at %d ranks: element %zu is %lld, expected %lld", what, size, i,
                     (long long)load(k, w->base, o * NELEM + i), (long long)want);
        }
    }
    rma_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
    free(src);
}

/* Every op on every type (kinds only_kind, or all but unsigned char when -1). */
static void ops_matrix(int only_kind)
{
    int flavors[] = {RMA_ALLOCATE, RMA_CREATE, RMA_DYNAMIC, RMA_SHARED};
    for (int fi = 0; fi < 4; fi++) {
        rma_win_t w;
        if (!rma_win_make(&w, flavors[fi], WROUND(NOPS * NELEM * 8), 1, MPI_COMM_WORLD))
            continue;
        for (int m = 0; m < A_NMODES; m++) {
            /* Every mode on the allocate window; two each on the others. */
            if (fi > 0 && m != (fi * 2) % A_NMODES && m != (fi * 2 + 3) % A_NMODES)
                continue;
            for (int k = 0; k < K_NKINDS; k++)
                if (only_kind < 0 ? k != K_UCHAR : k == only_kind)
                    acc_round(&w, m, k);
        }
        rma_win_free(&w);
    }
}

static void test_ops(void)
{
    ops_matrix(-1);
}

/* Unsigned char on its own: MPICH 4.0.2 compares MPI_UNSIGNED_CHAR as signed in MPI_MAX and
 * MPI_MIN (MPI_Reduce_local too), Open MPI 4.1 osc/sm saturates MPI_SUM at 255 instead of
 * wrapping; MPI-4.1 5.9.2 defines them on C integers, with C's unsigned arithmetic. */
static void fetch_matrix(int only_kind);
static void test_ops_uchar(void)
{
    ops_matrix(K_UCHAR);
    fetch_matrix(K_UCHAR);
}

/* MAXLOC and MINLOC on value-index pairs, ties included (the lower index wins). */
typedef struct {
    int v, loc;
} int2_t;
typedef struct {
    double v;
    int loc;
} dblint_t;

static void test_loc(void)
{
    rma_win_t w;
    int2_t a[NELEM];
    dblint_t d[NELEM];
    MPI_Op lops[2] = {MPI_MAXLOC, MPI_MINLOC};

    CHECK(rma_win_make(&w, RMA_ALLOCATE, WROUND(NELEM * (sizeof(int2_t) + sizeof(dblint_t))), 1,
                       MPI_COMM_WORLD));
    int2_t *wa = (int2_t *)w.base;
    dblint_t *wd = (dblint_t *)(w.base + NELEM * sizeof(int2_t));
    for (int li = 0; li < 2; li++) {
        int max = li == 0;
        rma_local_begin(&w);
        for (int i = 0; i < NELEM; i++) {
            wa[i].v = (i * 5) % 7 - 3; /* the initial pair carries loc = 1000 */
            wa[i].loc = 1000;
            wd[i].v = (double)((i * 3) % 5) - 2.5;
            wd[i].loc = 1000;
        }
        rma_local_end(&w);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < NELEM; i++) {
            a[i].v = (rank * 3 + i) % 7 - 3; /* many ties across ranks */
            a[i].loc = rank;
            d[i].v = (double)((rank + i * 2) % 5) - 2.5;
            d[i].loc = rank;
        }
        MPI_Win_lock_all(0, w.win);
        for (int t = 0; t < size; t++) {
            MPI_Accumulate(a, NELEM, MPI_2INT, t, 0, NELEM, MPI_2INT, lops[li], w.win);
            MPI_Accumulate(d, NELEM, MPI_DOUBLE_INT, t, NELEM * sizeof(int2_t), NELEM,
                           MPI_DOUBLE_INT, lops[li], w.win);
        }
        MPI_Win_unlock_all(w.win);
        MPI_Barrier(MPI_COMM_WORLD);
        rma_local_begin(&w);
        for (int i = 0; i < NELEM; i++) {
            int2_t ea = {(i * 5) % 7 - 3, 1000};
            dblint_t ed = {(double)((i * 3) % 5) - 2.5, 1000};
            for (int r = 0; r < size; r++) {
                int v = (r * 3 + i) % 7 - 3;
                double dv = (double)((r + i * 2) % 5) - 2.5;
                if ((max ? v > ea.v : v < ea.v) || (v == ea.v && r < ea.loc)) {
                    ea.v = v;
                    ea.loc = r;
                }
                if ((max ? dv > ed.v : dv < ed.v) || (dv == ed.v && r < ed.loc)) {
                    ed.v = dv;
                    ed.loc = r;
                }
            }
            if (wa[i].v != ea.v || wa[i].loc != ea.loc)
                FAIL("%s on MPI_2INT: element %d is (%d, %d), expected (%d, %d)",
                     max ? "MAXLOC" : "MINLOC", i, wa[i].v, wa[i].loc, ea.v, ea.loc);
            if (wd[i].v != ed.v || wd[i].loc != ed.loc)
                FAIL("%s on MPI_DOUBLE_INT: element %d is (%g, %d), expected (%g, %d)",
                     max ? "MAXLOC" : "MINLOC", i, wd[i].v, wd[i].loc, ed.v, ed.loc);
        }
        rma_local_end(&w);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    rma_win_free(&w);
}

/* Get_accumulate, Fetch_and_op and Rget_accumulate from the left neighbour only (one origin
 * per target, so what is fetched is defined): the fetched value is the old one, the new one is
 * old op contribution; NO_OP is an atomic read. */
static void fetch_matrix(int only_kind)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    rma_win_t w;
    unsigned char src[NELEM * 8], res[2 * NELEM * 8]; /* Get_accumulate's, then Rget_accumulate's */

    CHECK(rma_win_make(&w, RMA_ALLOCATE, WROUND(3 * NELEM * 8), 1, MPI_COMM_WORLD));
    for (int o = 0; o < NOPS; o++) {
        for (int k = 0; k < K_NKINDS; k++) {
            MPI_Op op = ops[o].op;
            MPI_Datatype dt = kind_type(k);
            MPI_Aint sz = (MPI_Aint)kinds[k].size;
            unsigned char fo[8], fr[8];
            MPI_Request req;
            if ((ops[o].ints_only && kinds[k].floating) ||
                (only_kind < 0 ? k == K_UCHAR : k != only_kind))
                continue;
            rma_local_begin(&w);
            for (size_t i = 0; i < 3 * NELEM; i++)
                store(k, w.base, i, contrib(op, k, -1 - rank, i));
            rma_local_end(&w);
            MPI_Barrier(MPI_COMM_WORLD);
            for (size_t i = 0; i < NELEM; i++)
                store(k, src, i, contrib(op, k, rank, i));
            memset(res, 0x5a, sizeof(res));
            store(k, fo, 0, contrib(op, k, rank, NELEM));
            MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win);
            /* Elements [0, NELEM): Get_accumulate; NELEM: Fetch_and_op; (NELEM, 2 NELEM]:
             * Rget_accumulate of the same contributions shifted by one. */
            CHECK(MPI_Get_accumulate(src, NELEM, dt, res, NELEM, dt, right, 0, NELEM, dt, op,
                                     w.win) == MPI_SUCCESS);
            CHECK(MPI_Fetch_and_op(fo, fr, dt, right, NELEM * sz, op, w.win) == MPI_SUCCESS);
            CHECK(MPI_Rget_accumulate(src, NELEM, dt, res + NELEM * sz, NELEM, dt, right,
                                      (NELEM + 1) * sz, NELEM, dt, op, w.win, &req) == MPI_SUCCESS);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            MPI_Win_unlock(right, w.win);
            for (size_t i = 0; i < NELEM; i++) {
                int64_t old = wrap(k, contrib(op, k, -1 - right, i));
                if (load(k, res, i) != old)
                    FAIL("MPI_Get_accumulate %s on %s: fetched element %zu is %lld, expected "
                         "%lld",
                         ops[o].name, kinds[k].name, i, (long long)load(k, res, i), (long long)old);
                old = wrap(k, contrib(op, k, -1 - right, NELEM + 1 + i));
                if (load(k, res + NELEM * sz, i) != old)
                    FAIL("MPI_Rget_accumulate %s on %s: fetched element %zu is %lld, expected "
                         "%lld",
                         ops[o].name, kinds[k].name, i, (long long)load(k, res + NELEM * sz, i),
                         (long long)old);
            }
            if (load(k, fr, 0) != wrap(k, contrib(op, k, -1 - right, NELEM)))
                FAIL("MPI_Fetch_and_op %s on %s: fetched %lld, expected %lld", ops[o].name,
                     kinds[k].name, (long long)load(k, fr, 0),
                     (long long)contrib(op, k, -1 - right, NELEM));
            MPI_Barrier(MPI_COMM_WORLD);
            rma_local_begin(&w);
            for (size_t i = 0; i < 2 * NELEM + 2; i++) {
                int64_t want = contrib(op, k, -1 - rank, i);
                unsigned char tmp[8];
                size_t ci = i < NELEM ? i : i == NELEM ? NELEM : i - NELEM - 1;
                if (i <= 2 * NELEM)
                    want = apply(op, want, contrib(op, k, left, ci));
                store(k, tmp, 0, want);
                want = load(k, tmp, 0);
                if (load(k, w.base, i) != want)
                    FAIL("fetching %s on %s: target element %zu is %lld, expected %lld",
                         ops[o].name, kinds[k].name, i, (long long)load(k, w.base, i),
                         (long long)want);
            }
            rma_local_end(&w);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    rma_win_free(&w);
}

static void test_fetch(void)
{
    fetch_matrix(-1);
}

/* Compare_and_swap on the integer types and MPI_BYTE: a match swaps and returns the old
 * value, a mismatch returns it and changes nothing. */
static void test_cas(void)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    rma_win_t w;
    MPI_Datatype dts[] = {MPI_INT, MPI_INT64_T, MPI_UNSIGNED_CHAR, MPI_BYTE};
    int ks[] = {K_INT, K_I64, K_UCHAR, K_UCHAR};

    CHECK(rma_win_make(&w, RMA_ALLOCATE, WROUND(64), 8, MPI_COMM_WORLD));
    for (int d = 0; d < 4; d++) {
        int k = ks[d];
        unsigned char o[8], c[8], r[8];
        rma_local_begin(&w);
        store(k, w.base, 0, 10 + rank);
        store(k, w.base + 8, 0, 20 + rank);
        rma_local_end(&w);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win);
        store(k, o, 0, 100 + rank);
        store(k, c, 0, 10 + right); /* matches element 0 */
        CHECK(MPI_Compare_and_swap(o, c, r, dts[d], right, 0, w.win) == MPI_SUCCESS);
        MPI_Win_flush(right, w.win);
        if (load(k, r, 0) != 10 + right)
            FAIL("CAS (matching) returned %lld, expected %d", (long long)load(k, r, 0), 10 + right);
        store(k, c, 0, 99); /* does not match element 1 */
        CHECK(MPI_Compare_and_swap(o, c, r, dts[d], right, 1, w.win) == MPI_SUCCESS);
        MPI_Win_unlock(right, w.win);
        if (load(k, r, 0) != 20 + right)
            FAIL("CAS (not matching) returned %lld, expected %d", (long long)load(k, r, 0),
                 20 + right);
        MPI_Barrier(MPI_COMM_WORLD);
        rma_local_begin(&w);
        if (load(k, w.base, 0) != 100 + left || load(k, w.base + 8, 0) != 20 + rank)
            FAIL("after CAS: %lld and %lld, expected %d (swapped) and %d (not)",
                 (long long)load(k, w.base, 0), (long long)load(k, w.base + 8, 0), 100 + left,
                 20 + rank);
        rma_local_end(&w);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    rma_win_free(&w);
}

/* Accumulates from one origin to one place are ordered (the default accumulate_ordering):
 * REPLACE then SUM gives replaced + added, and a long alternation with fetches in between
 * ends where program order says, in one epoch without flushes. */
static void test_ordering(void)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    rma_win_t w;
    int64_t v, got, exp = 0;
    int64_t fetched[200];

    CHECK(rma_win_make(&w, RMA_ALLOCATE, WROUND(64), 8, MPI_COMM_WORLD));
    for (int m = 0; m < 3; m++) {
        if (m == 0)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win);
        else if (m == 1)
            MPI_Win_lock_all(0, w.win);
        else
            MPI_Win_fence(0, w.win);
        v = 1000 + rank;
        MPI_Accumulate(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_REPLACE, w.win);
        v = 7;
        MPI_Accumulate(&v, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_SUM, w.win);
        /* 200 alternating REPLACE (i) and SUM (i) on element 1, each fetching the old value. */
        for (int i = 0; i < 200; i++) {
            v = i;
            MPI_Get_accumulate(&v, 1, MPI_INT64_T, &fetched[i], 1, MPI_INT64_T, right, 1, 1,
                               MPI_INT64_T, i % 2 ? MPI_SUM : MPI_REPLACE, w.win);
        }
        v = 0;
        MPI_Get_accumulate(&v, 1, MPI_INT64_T, &got, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T,
                           MPI_NO_OP, w.win);
        if (m == 0)
            MPI_Win_unlock(right, w.win);
        else if (m == 1)
            MPI_Win_unlock_all(w.win);
        else
            MPI_Win_fence(0, w.win);
        if (got != 1000 + rank + 7)
            FAIL("mode %d: REPLACE %d then SUM 7 then a NO_OP read gave %lld", m, 1000 + rank,
                 (long long)got);
        for (int i = 1; i < 200; i++) {
            /* Before op i: op i-1's result. REPLACE(i-1) when i-1 is even: i-1; SUM(i-1) on
             * top of REPLACE(i-2): (i-2) + (i-1). */
            exp = (i - 1) % 2 ? (i - 2) + (i - 1) : i - 1;
            if (fetched[i] != exp)
                FAIL("mode %d: Get_accumulate %d fetched %lld, expected %lld (program order)", m, i,
                     (long long)fetched[i], (long long)exp);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        rma_local_begin(&w);
        if (((int64_t *)w.base)[0] != 1000 + left + 7 || ((int64_t *)w.base)[1] != 198 + 199)
            FAIL("mode %d: memory after the ordered accumulates: %lld, %lld", m,
                 (long long)((int64_t *)w.base)[0], (long long)((int64_t *)w.base)[1]);
        rma_local_end(&w);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    (void)exp;
    rma_win_free(&w);
}

/* N ranks x K increments of one 64-bit counter at rank 0 (and one at the last rank), by
 * Fetch_and_op SUM under lock_all and under shared locks, and by Compare_and_swap loops: the
 * counter ends at N*K exactly and the fetched values are 0..N*K-1, each once. */
static void test_counters(void)
{
    enum { K = 300 };
    rma_win_t w;
    int64_t *mine = xmalloc(sizeof(int64_t) * K), *all = NULL, one = 1, zero = 0;
    int last = size - 1;

    CHECK(rma_win_make(&w, RMA_ALLOCATE, WROUND(16), 8, MPI_COMM_WORLD));
    if (rank == 0)
        all = xmalloc(sizeof(int64_t) * K * (size_t)size);
    for (int m = 0; m < 3; m++) {
        int64_t *cnt = (int64_t *)w.base;
        if (m == 0)
            MPI_Win_lock_all(0, w.win);
        for (int i = 0; i < K; i++) {
            if (m == 1) {
                MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
                if (last != 0)
                    MPI_Win_lock(MPI_LOCK_SHARED, last, 0, w.win);
            }
            if (m < 2) {
                CHECK(MPI_Fetch_and_op(&one, &mine[i], MPI_INT64_T, 0, 0, MPI_SUM, w.win) ==
                      MPI_SUCCESS);
                /* The one at the last rank, to have two targets in the epoch. */
                MPI_Accumulate(&one, 1, MPI_INT64_T, last, 1, 1, MPI_INT64_T, MPI_SUM, w.win);
            } else {
                int64_t seen, next;
                MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
                MPI_Fetch_and_op(&zero, &seen, MPI_INT64_T, 0, 0, MPI_NO_OP, w.win);
                MPI_Win_flush(0, w.win);
                for (;;) {
                    int64_t old;
                    next = seen + 1;
                    MPI_Compare_and_swap(&next, &seen, &old, MPI_INT64_T, 0, 0, w.win);
                    MPI_Win_flush(0, w.win);
                    if (old == seen)
                        break;
                    seen = old;
                }
                mine[i] = seen;
                MPI_Win_unlock(0, w.win);
                MPI_Win_lock(MPI_LOCK_SHARED, last, 0, w.win);
                MPI_Accumulate(&one, 1, MPI_INT64_T, last, 1, 1, MPI_INT64_T, MPI_SUM, w.win);
                MPI_Win_unlock(last, w.win);
                continue;
            }
            if (m == 1) {
                MPI_Win_unlock(0, w.win);
                if (last != 0)
                    MPI_Win_unlock(last, w.win);
            }
        }
        if (m == 0)
            MPI_Win_unlock_all(w.win);
        /* Each rank's own fetches are increasing (one origin, program order). */
        for (int i = 1; i < K; i++)
            if (mine[i] <= mine[i - 1])
                FAIL("counter mode %d: fetch %d gave %lld after %lld", m, i, (long long)mine[i],
                     (long long)mine[i - 1]);
        MPI_Gather(mine, K, MPI_INT64_T, all, K, MPI_INT64_T, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        rma_local_begin(&w);
        if (rank == 0) {
            unsigned char *seen = xmalloc((size_t)K * (size_t)size);
            memset(seen, 0, (size_t)K * (size_t)size);
            if (cnt[0] != (int64_t)m * K * size + (int64_t)K * size)
                FAIL("counter mode %d: %lld after %d ranks x %d increments, expected %lld", m,
                     (long long)cnt[0], size, K, (long long)(m + 1) * K * size);
            for (int i = 0; i < K * size; i++) {
                int64_t v = all[i] - (int64_t)m * K * size;
                if (v < 0 || v >= (int64_t)K * size || seen[v]++)
                    FAIL("counter mode %d: fetched value %lld twice or out of range", m,
                         (long long)all[i]);
            }
            free(seen);
        }
        if (rank == last && cnt[1] != (int64_t)(m + 1) * K * size)
            FAIL("second counter mode %d: %lld, expected %lld", m, (long long)cnt[1],
                 (long long)(m + 1) * K * size);
        rma_local_end(&w);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(all);
    free(mine);
    rma_win_free(&w);
}

/* Swaps racing on the same words: every rank replaces one 64-bit word at rank 0 K times by
 * MPI_Fetch_and_op (MPI_REPLACE), and the 600 words of a vector at the last rank (stride 2:
 * scattered on the target) by MPI_Get_accumulate (MPI_REPLACE), all at once under lock_all,
 * each time with values no one else writes. A replace is atomic when no value is lost or seen
 * twice: per word, the values fetched by all ranks and the one left at the end are the initial
 * value and every value written, each exactly once. */
static void test_swap(void)
{
    enum { K = 100, NW = 600, R = 3 };
    rma_win_t w;
    int last = size - 1;
    int64_t *put = xmalloc(sizeof(int64_t) * NW), *got = xmalloc(sizeof(int64_t) * NW * R);
    int64_t *mine = xmalloc(sizeof(int64_t) * K), *all = NULL, *allv = NULL;
    MPI_Datatype vec;

    CHECK(rma_win_make(&w, RMA_ALLOCATE, WROUND(8 + 16 * NW), 8, MPI_COMM_WORLD));
    CHECK(MPI_Type_vector(NW, 1, 2, MPI_INT64_T, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
    rma_local_begin(&w);
    memset(w.base, 0, (size_t)(8 + 16 * NW));
    rma_local_end(&w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, w.win);
    for (int i = 0; i < K || i < R; i++) {
        if (i < K) {
            int64_t v = (int64_t)rank * K + i + 1;
            CHECK(MPI_Fetch_and_op(&v, &mine[i], MPI_INT64_T, 0, 0, MPI_REPLACE, w.win) ==
                  MPI_SUCCESS);
        }
        if (i < R) {
            for (int j = 0; j < NW; j++)
                put[j] = ((int64_t)(rank * R + i + 1) << 32) | j;
            CHECK(MPI_Get_accumulate(put, NW, MPI_INT64_T, got + (size_t)i * NW, NW, MPI_INT64_T,
                                     last, 1, 1, vec, MPI_REPLACE, w.win) == MPI_SUCCESS);
        }
        MPI_Win_flush_all(w.win);
    }
    MPI_Win_unlock_all(w.win);
    MPI_Type_free(&vec);
    if (rank == 0) {
        all = xmalloc(sizeof(int64_t) * K * (size_t)size);
        allv = xmalloc(sizeof(int64_t) * NW * R * (size_t)size);
    }
    MPI_Gather(mine, K, MPI_INT64_T, all, K, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(got, NW * R, MPI_INT64_T, allv, NW * R, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    rma_local_begin(&w);
    int64_t left0 = 0, *leftv = xmalloc(sizeof(int64_t) * NW);
    if (rank == 0)
        memcpy(&left0, w.base, 8);
    if (rank == last)
        for (int j = 0; j < NW; j++)
            memcpy(&leftv[j], w.base + 8 + 16 * (size_t)j, 8);
    rma_local_end(&w);
    MPI_Bcast(leftv, NW, MPI_INT64_T, last, MPI_COMM_WORLD);
    if (rank == 0) {
        /* The counter word: values 0 (initial) .. K * size, each once. */
        int n = K * size;
        unsigned char *seen = xmalloc((size_t)n + 1);
        memset(seen, 0, (size_t)n + 1);
        for (int i = 0; i <= n; i++) {
            int64_t v = i < n ? all[i] : left0;
            if (v < 0 || v > n || seen[v]++)
                FAIL("Fetch_and_op REPLACE race: value %lld %s", (long long)v,
                     v < 0 || v > n ? "never written" : "seen twice (a replace was lost)");
        }
        free(seen);
        /* Each vector word j: 0 and (s << 32 | j) for s = 1 .. R * size, each once. */
        n = R * size;
        seen = xmalloc((size_t)n + 1);
        for (int j = 0; j < NW; j++) {
            memset(seen, 0, (size_t)n + 1);
            for (int k = 0; k <= n; k++) {
                int64_t v = k < n ? allv[(size_t)k * NW + (size_t)j] : leftv[j];
                int64_t s = v >> 32;
                if (v != 0 && ((v & 0xffffffff) != j || s < 1 || s > n))
                    FAIL("Get_accumulate REPLACE race, word %d: value 0x%llx never written", j,
                         (long long)v);
                if (seen[s]++)
                    FAIL("Get_accumulate REPLACE race, word %d: value 0x%llx seen twice (a "
                         "replace was lost)",
                         j, (long long)v);
            }
        }
        free(seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(leftv);
    free(all);
    free(allv);
    free(mine);
    free(got);
    free(put);
    rma_win_free(&w);
}

/* Large accumulates from every process to every process: 65537 ints SUM and 1 MiB + 3 bytes
 * BXOR, Raccumulate in lock_all. */
static void test_large(void)
{
    const int n = 65537, nb = (1 << 20) + 3;
    rma_win_t w;
    int *src = xmalloc(sizeof(int) * (size_t)n);
    unsigned char *bsrc = xmalloc((size_t)nb);
    MPI_Request *reqs = xmalloc(sizeof(MPI_Request) * 2 * (size_t)size + 1);

    CHECK(rma_win_make(&w, RMA_ALLOCATE, WROUND((MPI_Aint)n * 4 + nb + 1), 1, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        src[i] = rank * 100000 + i;
    fill(bsrc, (size_t)nb, (unsigned)rank);
    MPI_Win_lock_all(0, w.win);
    for (int t = 0; t < size; t++) {
        CHECK(MPI_Raccumulate(src, n, MPI_INT, t, 0, n, MPI_INT, MPI_SUM, w.win, &reqs[2 * t]) ==
              MPI_SUCCESS);
        CHECK(MPI_Raccumulate(bsrc, nb, MPI_UNSIGNED_CHAR, t, (MPI_Aint)n * 4, nb,
                              MPI_UNSIGNED_CHAR, MPI_BXOR, w.win, &reqs[2 * t + 1]) == MPI_SUCCESS);
    }
    CHECK(MPI_Waitall(2 * size, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    MPI_Win_unlock_all(w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    rma_local_begin(&w);
    for (int i = 0; i < n; i++) {
        int got, want = 0;
        memcpy(&got, w.base + 4 * (size_t)i, 4);
        for (int r = 0; r < size; r++)
            want += r * 100000 + i;
        if (got != want)
            FAIL("65537-int SUM: element %d is %d, expected %d", i, got, want);
    }
    for (int i = 0; i < nb; i++) {
        unsigned char want = 0;
        for (int r = 0; r < size; r++)
            want ^= pattern((unsigned)r, (size_t)i);
        if (w.base[(size_t)n * 4 + (size_t)i] != want)
            FAIL("1 MiB + 3 BXOR: byte %d is 0x%02x, expected 0x%02x", i,
                 w.base[(size_t)n * 4 + (size_t)i], want);
    }
    rma_local_end(&w);
    MPI_Barrier(MPI_COMM_WORLD);
    free(reqs);
    free(bsrc);
    free(src);
    rma_win_free(&w);
}

static const mpitest_t tests[] = {
    {"ops", test_ops},           {"ops_uchar", test_ops_uchar},
    {"loc", test_loc},           {"fetch", test_fetch},
    {"cas", test_cas},           {"ordering", test_ordering},
    {"counters", test_counters}, {"swap", test_swap},
    {"large", test_large},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
