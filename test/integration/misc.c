/* Small rules of the MPI object model, each a defect once: "status" (single-completion calls
 * leave status.MPI_ERROR alone; the multiple-completion calls write it only when they return
 * MPI_ERR_IN_STATUS), "dims" (MPI_Dims_create's most balanced grid), "nullname" (MPI-4.1's
 * names of the null handles), "charops" (reductions on MPI_CHAR, MPI_WCHAR and MPI_CHARACTER,
 * computed as the platform's character types, as MPICH does), "errclass" (MPI-4.1's
 * MPI_Remove_error_class/code/string), "abi" (the MPI-5.0 ABI queries and Fortran registration,
 * also before MPI_Init), "misc-calls" (MPI_Pcontrol, MPI_Aint_add/diff), "attr-legacy" (MPI-1's
 * MPI_Attr_* and MPI_Keyval_*). Messages go around a
 * ring, so every subtest runs at any size, 1 included. */
#define MPITEST_NAME "misc"
#include "mpitest.h"

#include <wchar.h>

#define MAGIC 4711 /* what the program keeps in MPI_ERROR */

static int right(void)
{
    return (rank + 1) % size;
}

static int left(void)
{
    return (rank + size - 1) % size;
}

static void status_keep(MPI_Status *st)
{
    memset(st, 0, sizeof(*st));
    st->MPI_ERROR = MAGIC;
}

#define KEPT(_st, _what)                                                                           \
    do {                                                                                           \
        if ((_st).MPI_ERROR != MAGIC)                                                              \
            FAIL("%s wrote status.MPI_ERROR (%d); only the multiple-completion calls may, and "    \
                 "only when they return MPI_ERR_IN_STATUS",                                        \
                 _what, (_st).MPI_ERROR);                                                          \
    } while (0)

/* Send v to the right neighbour (nonblocking, so it works at one rank too). */
static MPI_Request send_right(const int *v, int tag)
{
    MPI_Request r;
    CHECK(MPI_Isend(v, 1, MPI_INT, right(), tag, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    return r;
}

static void test_status_single(void)
{
    MPI_Status st;
    MPI_Request sr, rr;
    MPI_Message msg;
    int v = rank, got = -1, flag = 0, idx = -1;

    /* MPI_Recv */
    sr = send_right(&v, 1);
    status_keep(&st);
    CHECK(MPI_Recv(&got, 1, MPI_INT, left(), 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    CHECK(got == left() && st.MPI_SOURCE == left() && st.MPI_TAG == 1);
    KEPT(st, "MPI_Recv");
    status_keep(&st);
    CHECK(MPI_Wait(&sr, &st) == MPI_SUCCESS);
    KEPT(st, "MPI_Wait (send)");

    /* MPI_Irecv + MPI_Wait, MPI_Test */
    sr = send_right(&v, 2);
    CHECK(MPI_Irecv(&got, 1, MPI_INT, left(), 2, MPI_COMM_WORLD, &rr) == MPI_SUCCESS);
    status_keep(&st);
    CHECK(MPI_Wait(&rr, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == left() && st.MPI_TAG == 2);
    KEPT(st, "MPI_Wait");
    CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    sr = send_right(&v, 3);
    CHECK(MPI_Irecv(&got, 1, MPI_INT, left(), 3, MPI_COMM_WORLD, &rr) == MPI_SUCCESS);
    do {
        status_keep(&st);
        CHECK(MPI_Test(&rr, &flag, &st) == MPI_SUCCESS);
    } while (!flag);
    CHECK(st.MPI_TAG == 3);
    KEPT(st, "MPI_Test");
    CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE) == MPI_SUCCESS);

    /* MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv */
    sr = send_right(&v, 4);
    status_keep(&st);
    CHECK(MPI_Probe(left(), 4, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    CHECK(st.MPI_TAG == 4);
    KEPT(st, "MPI_Probe");
    flag = 0;
    status_keep(&st);
    CHECK(MPI_Iprobe(left(), 4, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag);
    KEPT(st, "MPI_Iprobe");
    status_keep(&st);
    CHECK(MPI_Mprobe(left(), 4, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
    KEPT(st, "MPI_Mprobe");
    status_keep(&st);
    CHECK(MPI_Mrecv(&got, 1, MPI_INT, &msg, &st) == MPI_SUCCESS && got == left());
    KEPT(st, "MPI_Mrecv");
    CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    sr = send_right(&v, 5);
    flag = 0;
    while (!flag) {
        status_keep(&st);
        CHECK(MPI_Improbe(left(), 5, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS);
    }
    KEPT(st, "MPI_Improbe");
    CHECK(MPI_Imrecv(&got, 1, MPI_INT, &msg, &rr) == MPI_SUCCESS);
    status_keep(&st);
    CHECK(MPI_Wait(&rr, &st) == MPI_SUCCESS && got == left());
    KEPT(st, "MPI_Wait (Imrecv)");
    CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE) == MPI_SUCCESS);

    /* MPI_Sendrecv, MPI_Waitany, MPI_Testany, MPI_Request_get_status */
    status_keep(&st);
    CHECK(MPI_Sendrecv(&v, 1, MPI_INT, right(), 6, &got, 1, MPI_INT, left(), 6, MPI_COMM_WORLD,
                       &st) == MPI_SUCCESS);
    KEPT(st, "MPI_Sendrecv");
    sr = send_right(&v, 7);
    CHECK(MPI_Irecv(&got, 1, MPI_INT, left(), 7, MPI_COMM_WORLD, &rr) == MPI_SUCCESS);
    do {
        status_keep(&st);
        CHECK(MPI_Request_get_status(rr, &flag, &st) == MPI_SUCCESS);
    } while (!flag);
    KEPT(st, "MPI_Request_get_status");
    MPI_Request two[2] = {MPI_REQUEST_NULL, rr};
    status_keep(&st);
    CHECK(MPI_Waitany(2, two, &idx, &st) == MPI_SUCCESS && idx == 1);
    KEPT(st, "MPI_Waitany");
    CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    sr = send_right(&v, 8);
    CHECK(MPI_Irecv(&got, 1, MPI_INT, left(), 8, MPI_COMM_WORLD, &two[0]) == MPI_SUCCESS);
    flag = 0;
    while (!flag) {
        status_keep(&st);
        CHECK(MPI_Testany(2, two, &idx, &flag, &st) == MPI_SUCCESS);
    }
    CHECK(idx == 0);
    KEPT(st, "MPI_Testany");
    CHECK(MPI_Wait(&sr, MPI_STATUS_IGNORE) == MPI_SUCCESS);

    /* Empty statuses: MPI_PROC_NULL, a null request. */
    status_keep(&st);
    CHECK(MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
    KEPT(st, "MPI_Recv from MPI_PROC_NULL");
    rr = MPI_REQUEST_NULL;
    status_keep(&st);
    CHECK(MPI_Wait(&rr, &st) == MPI_SUCCESS && st.MPI_TAG == MPI_ANY_TAG);
    KEPT(st, "MPI_Wait on MPI_REQUEST_NULL");
}

static void test_status_multi(void)
{
    MPI_Status st[3];
    MPI_Request r[3];
    int v[2] = {rank, rank + 100}, got[3] = {-1, -1, -1}, rc, outcount, idx[3];

    /* All succeed: MPI_SUCCESS returned, no MPI_ERROR written. */
    r[0] = MPI_REQUEST_NULL;
    CHECK(MPI_Irecv(&got[1], 1, MPI_INT, left(), 10, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    r[2] = send_right(&v[0], 10);
    for (int i = 0; i < 3; i++)
        status_keep(&st[i]);
    CHECK(MPI_Waitall(3, r, st) == MPI_SUCCESS && got[1] == left());
    for (int i = 0; i < 3; i++)
        KEPT(st[i], "MPI_Waitall returning MPI_SUCCESS");
    CHECK(MPI_Irecv(&got[0], 1, MPI_INT, left(), 11, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    r[1] = send_right(&v[0], 11);
    outcount = 0;
    for (int done = 0; done < 2;) {
        for (int i = 0; i < 2; i++)
            status_keep(&st[i]);
        CHECK(MPI_Waitsome(2, r, &outcount, idx, st) == MPI_SUCCESS);
        for (int i = 0; i < outcount; i++)
            KEPT(st[i], "MPI_Waitsome returning MPI_SUCCESS");
        done += outcount;
    }

    /* One fails (truncation) after a null request and before a good one: MPI_ERR_IN_STATUS,
     * and every status of the call has its MPI_ERROR. */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    r[0] = MPI_REQUEST_NULL;
    CHECK(MPI_Irecv(&got[1], 0, MPI_INT, left(), 12, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Irecv(&got[2], 1, MPI_INT, left(), 13, MPI_COMM_WORLD, &r[2]) == MPI_SUCCESS);
    MPI_Request s[2] = {send_right(&v[0], 12), send_right(&v[1], 13)};
    for (int i = 0; i < 3; i++)
        status_keep(&st[i]);
    rc = MPI_Waitall(3, r, st);
    CHECK(rc == MPI_ERR_IN_STATUS);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS);
    CHECK(st[1].MPI_ERROR == MPI_ERR_TRUNCATE);
    CHECK(st[2].MPI_ERROR == MPI_SUCCESS && got[2] == left() + 100);
    CHECK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE) == MPI_SUCCESS);

    /* The same through MPI_Testall. */
    CHECK(MPI_Irecv(&got[0], 1, MPI_INT, left(), 14, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Irecv(&got[1], 0, MPI_INT, left(), 15, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    s[0] = send_right(&v[0], 14);
    s[1] = send_right(&v[1], 15);
    for (int flag = 0; !flag;) {
        for (int i = 0; i < 2; i++)
            status_keep(&st[i]);
        rc = MPI_Testall(2, r, &flag, st);
        CHECK(rc == (flag ? MPI_ERR_IN_STATUS : MPI_SUCCESS));
        if (!flag)
            KEPT(st[0], "MPI_Testall (not complete)");
    }
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_TRUNCATE);
    CHECK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE) == MPI_SUCCESS);

    /* A failed single completion returns the error and leaves MPI_ERROR alone. */
    CHECK(MPI_Irecv(&got[0], 0, MPI_INT, left(), 16, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    s[0] = send_right(&v[0], 16);
    status_keep(&st[0]);
    CHECK(MPI_Wait(&r[0], &st[0]) == MPI_ERR_TRUNCATE);
    KEPT(st[0], "MPI_Wait returning MPI_ERR_TRUNCATE");
    CHECK(MPI_Wait(&s[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
}

/* MPICH's answers, which minimise the largest minus the smallest entry (check_topo.c compares
 * every n up to 3000 with a brute-force search). */
static void test_dims(void)
{
    static const struct {
        int n, nd, in[6], want[6];
    } cases[] = {
        {5616, 4, {0, 0, 0, 0}, {13, 9, 8, 6}},
        {360, 3, {0, 0, 0}, {10, 6, 6}},
        {5616, 5, {0, 0, 2, 0, 0}, {13, 6, 2, 6, 6}},
        {1000, 4, {0, 0, 0, 0}, {8, 5, 5, 5}},
        {240, 3, {0, 0, 0}, {8, 6, 5}},
        {24, 3, {0, 3, 0}, {4, 3, 2}},
        {7, 2, {0, 0}, {7, 1}},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        int d[6];
        memcpy(d, cases[c].in, sizeof(d));
        CHECK(MPI_Dims_create(cases[c].n, cases[c].nd, d) == MPI_SUCCESS);
        for (int i = 0; i < cases[c].nd; i++) {
            if (d[i] != cases[c].want[i])
                FAIL("MPI_Dims_create(%d, %d): dims[%d] = %d, expected %d", cases[c].n, cases[c].nd,
                     i, d[i], cases[c].want[i]);
        }
    }
}

static void test_nullname(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;

    CHECK(MPI_Comm_get_name(MPI_COMM_NULL, name, &len) == MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == (int)strlen("MPI_COMM_NULL"));
    CHECK(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len) == MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == (int)strlen("MPI_DATATYPE_NULL"));
    CHECK(MPI_Win_get_name(MPI_WIN_NULL, name, &len) == MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == (int)strlen("MPI_WIN_NULL"));
    /* Setting a name on a null handle stays an error; so does a NULL output argument. */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_name(MPI_COMM_NULL, "x") == MPI_ERR_COMM);
    CHECK(MPI_Type_set_name(MPI_DATATYPE_NULL, "x") == MPI_ERR_TYPE);
    CHECK(MPI_Win_set_name(MPI_WIN_NULL, "x") == MPI_ERR_WIN);
    CHECK(MPI_Comm_get_name(MPI_COMM_NULL, NULL, &len) == MPI_ERR_ARG);
    CHECK(MPI_Type_get_name(MPI_DATATYPE_NULL, name, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Win_get_name(MPI_WIN_NULL, NULL, &len) == MPI_ERR_ARG);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    /* The predefined objects keep their names. */
    CHECK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len) == MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
    CHECK(MPI_Type_get_name(MPI_INT, name, &len) == MPI_SUCCESS && strcmp(name, "MPI_INT") == 0);
}

/* ---- Reductions on the character types ---- */

#define NCH 37 /* elements per rank and per block */

/* Rank r's element i, as a long: wraps around the type when stored; near the top of wchar_t so
 * sums overflow. */
static long ch_value(MPI_Datatype dt, int r, int i)
{
    if (dt == MPI_WCHAR)
        return (long)WCHAR_MAX - 5 + r * 3 + i * 7;
    return 90 + r * 37 + i * 11;
}

static void ch_store(MPI_Datatype dt, void *buf, int i, long v)
{
    if (dt == MPI_WCHAR)
        ((wchar_t *)buf)[i] = (wchar_t)(unsigned long)v;
    else
        ((char *)buf)[i] = (char)(unsigned char)v;
}

static long ch_load(MPI_Datatype dt, const void *buf, int i)
{
    return dt == MPI_WCHAR ? (long)((const wchar_t *)buf)[i] : (long)((const char *)buf)[i];
}

/* v as the type holds it (truncated, then extended as the type's signedness says). */
static long ch_as(MPI_Datatype dt, long v)
{
    wchar_t w[1];
    char c[1];
    void *p = dt == MPI_WCHAR ? (void *)w : (void *)c;

    ch_store(dt, p, 0, v);
    return ch_load(dt, p, 0);
}

/* op over ranks 0..size-1 of element i, in the type's own arithmetic (wrapping, as unsigned). */
static long ch_expect(MPI_Datatype dt, MPI_Op op, int i)
{
    long acc = ch_as(dt, ch_value(dt, 0, i));

    for (int r = 1; r < size; r++) {
        long b = ch_as(dt, ch_value(dt, r, i));
        unsigned long ua = (unsigned long)acc, ub = (unsigned long)b;
        if (op == MPI_SUM)
            acc = (long)(ua + ub);
        else if (op == MPI_PROD)
            acc = (long)(ua * ub);
        else if (op == MPI_MIN)
            acc = acc < b ? acc : b;
        else if (op == MPI_MAX)
            acc = acc > b ? acc : b;
        else if (op == MPI_BAND)
            acc = (long)(ua & ub);
        else if (op == MPI_BOR)
            acc = (long)(ua | ub);
        else
            acc = (long)(ua ^ ub);
        acc = ch_as(dt, acc);
    }
    return acc;
}

static void ch_check(MPI_Datatype dt, MPI_Op op, const void *buf, int n, int first,
                     const char *what)
{
    char tn[MPI_MAX_OBJECT_NAME], on[MPI_MAX_OBJECT_NAME];
    int len;

    for (int i = 0; i < n; i++) {
        long want = ch_expect(dt, op, first + i), got = ch_load(dt, buf, i);
        if (got != want) {
            MPI_Type_get_name(dt, tn, &len);
            snprintf(on, sizeof(on), "%s",
                     op == MPI_SUM    ? "MPI_SUM"
                     : op == MPI_PROD ? "MPI_PROD"
                     : op == MPI_MIN  ? "MPI_MIN"
                     : op == MPI_MAX  ? "MPI_MAX"
                     : op == MPI_BAND ? "MPI_BAND"
                     : op == MPI_BOR  ? "MPI_BOR"
                                      : "MPI_BXOR");
            FAIL("%s %s on %s: element %d is %ld, expected %ld", what, on, tn, first + i, got,
                 want);
        }
    }
}

static void test_charops(void)
{
    const MPI_Datatype types[] = {MPI_CHAR, MPI_WCHAR, MPI_CHARACTER};
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR};
    size_t esz;
    int total = NCH * size, root = size - 1, *counts = xmalloc(sizeof(int) * (size_t)size);
    MPI_Request req;

    /* Uneven blocks for MPI_Reduce_scatter: rank r gets r + 1 elements (all within total). */
    for (int r = 0; r < size; r++)
        counts[r] = r + 1;
    int vfirst = rank * (rank + 1) / 2;

    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        MPI_Datatype dt = types[t];
        esz = dt == MPI_WCHAR ? sizeof(wchar_t) : 1;
        void *in = xmalloc(esz * (size_t)total), *out = xmalloc(esz * (size_t)total);
        for (int i = 0; i < total; i++)
            ch_store(dt, in, i, ch_value(dt, rank, i));
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            MPI_Op op = ops[o];
            for (int nb = 0; nb < 2; nb++) {
                memset(out, 0x5a, esz * (size_t)total);
                if (nb) {
                    CHECK(MPI_Ireduce(in, out, NCH, dt, op, root, MPI_COMM_WORLD, &req) ==
                          MPI_SUCCESS);
                    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                } else {
                    CHECK(MPI_Reduce(in, out, NCH, dt, op, root, MPI_COMM_WORLD) == MPI_SUCCESS);
                }
                if (rank == root)
                    ch_check(dt, op, out, NCH, 0, nb ? "MPI_Ireduce" : "MPI_Reduce");
                if (nb) {
                    CHECK(MPI_Iallreduce(in, out, total, dt, op, MPI_COMM_WORLD, &req) ==
                          MPI_SUCCESS);
                    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                } else {
                    CHECK(MPI_Allreduce(in, out, total, dt, op, MPI_COMM_WORLD) == MPI_SUCCESS);
                }
                ch_check(dt, op, out, total, 0, nb ? "MPI_Iallreduce" : "MPI_Allreduce");
                if (nb) {
                    CHECK(MPI_Ireduce_scatter_block(in, out, NCH, dt, op, MPI_COMM_WORLD, &req) ==
                          MPI_SUCCESS);
                    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                } else {
                    CHECK(MPI_Reduce_scatter_block(in, out, NCH, dt, op, MPI_COMM_WORLD) ==
                          MPI_SUCCESS);
                }
                ch_check(dt, op, out, NCH, rank * NCH,
                         nb ? "MPI_Ireduce_scatter_block" : "MPI_Reduce_scatter_block");
                if (nb) {
                    CHECK(MPI_Ireduce_scatter(in, out, counts, dt, op, MPI_COMM_WORLD, &req) ==
                          MPI_SUCCESS);
                    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                } else {
                    CHECK(MPI_Reduce_scatter(in, out, counts, dt, op, MPI_COMM_WORLD) ==
                          MPI_SUCCESS);
                }
                ch_check(dt, op, out, counts[rank], vfirst,
                         nb ? "MPI_Ireduce_scatter" : "MPI_Reduce_scatter");
            }
        }
        /* In place, and MPI_Reduce_local. */
        memcpy(out, in, esz * (size_t)total);
        CHECK(MPI_Allreduce(MPI_IN_PLACE, out, total, dt, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        ch_check(dt, MPI_SUM, out, total, 0, "MPI_Allreduce in place");
        free(in);
        free(out);
    }

    /* Sums that wrap: 100 + 100 as char is -56 where char is signed, 200 where not. */
    char a[2] = {100, (char)-128}, b[2] = {100, (char)-1};
    CHECK(MPI_Reduce_local(a, b, 2, MPI_CHAR, MPI_SUM) == MPI_SUCCESS);
    CHECK(b[0] == (char)(unsigned char)200 && b[1] == (char)(unsigned char)127);

    /* The other rules stay strict: no logical ops, MINLOC/MAXLOC on characters. */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Reduce_local(a, b, 2, MPI_CHAR, MPI_LAND) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(a, b, 2, MPI_CHAR, MPI_MAXLOC) == MPI_ERR_OP);
    CHECK(MPI_Allreduce(a, b, 2, MPI_WCHAR, MPI_LOR, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);

    /* One-sided: accumulates sum characters as the collectives do; compare-and-swap still
     * takes no characters. */
    char *base, one = 100, cmp = 0, res;
    MPI_Win win;
    CHECK(MPI_Win_allocate(1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
    *base = 0;
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(&one, 1, MPI_CHAR, 0, 0, 1, MPI_CHAR, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    if (rank == 0 && *base != (char)(unsigned char)(100u * (unsigned)size))
        FAIL("MPI_Accumulate MPI_SUM on MPI_CHAR: %d, expected %d", *base,
             (char)(unsigned char)(100u * (unsigned)size));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Compare_and_swap(&one, &cmp, &res, MPI_CHAR, 0, 0, win) == MPI_ERR_TYPE);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    free(counts);
}

/* ---- MPI-4.1's removal of error classes, codes and strings ---- */

static void test_errclass(void)
{
    int cls, cls2, code, code2, c, len;
    char str[MPI_MAX_ERROR_STRING];

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS);
    CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS);
    CHECK(MPI_Add_error_code(cls, &code2) == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(code, "misc: the first code") == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(cls, "misc: the class") == MPI_SUCCESS);

    /* Erroneous: predefined values, a class still with codes, a code still with its string, a
     * code given as a class and the other way round, a string never added. */
    CHECK(MPI_Remove_error_class(MPI_ERR_ARG) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_code(MPI_ERR_COMM) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_string(MPI_ERR_TYPE) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_class(cls) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_code(code) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_class(code2) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_code(cls) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_string(code2) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_class(-5) == MPI_ERR_ARG);

    /* Refused calls changed nothing. */
    CHECK(MPI_Error_class(code, &c) == MPI_SUCCESS && c == cls);
    CHECK(MPI_Error_string(code, str, &len) == MPI_SUCCESS &&
          strcmp(str, "misc: the first code") == 0);

    /* In order: string, code, the other code, then the class. */
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS);
    CHECK(MPI_Error_string(code, str, &len) == MPI_SUCCESS && len == 0);
    CHECK(MPI_Remove_error_string(code) == MPI_ERR_ARG); /* gone already */
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS);
    CHECK(MPI_Error_class(code, &c) == MPI_ERR_ARG); /* no longer a code */
    CHECK(MPI_Remove_error_code(code) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_string(code, "x") == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_class(cls) == MPI_ERR_ARG); /* code2 is left */
    CHECK(MPI_Remove_error_code(code2) == MPI_SUCCESS);
    CHECK(MPI_Remove_error_class(cls) == MPI_SUCCESS); /* its string goes with it */
    CHECK(MPI_Error_class(cls, &c) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_code(cls, &c) == MPI_ERR_ARG);
    CHECK(MPI_Remove_error_class(cls) == MPI_ERR_ARG);

    /* Values are not reused: a new class is a new number. */
    CHECK(MPI_Add_error_class(&cls2) == MPI_SUCCESS && cls2 > code2);
    CHECK(MPI_Remove_error_class(cls2) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
}

/* ---- The MPI-5.0 ABI calls ---- */

static int info_value(MPI_Info info, const char *key, char *value)
{
    int flag = 0, len = MPI_MAX_INFO_VAL;
    CHECK(MPI_Info_get_string(info, key, &len, value, &flag) == MPI_SUCCESS);
    return flag;
}

static void check_abi_info(MPI_Info info)
{
    char v[MPI_MAX_INFO_VAL];
    int nkeys;

    CHECK(info != MPI_INFO_NULL);
    CHECK(info_value(info, "mpi_aint_size", v) && atoi(v) == (int)sizeof(MPI_Aint));
    CHECK(info_value(info, "mpi_count_size", v) && atoi(v) == (int)sizeof(MPI_Count));
    CHECK(info_value(info, "mpi_offset_size", v) && atoi(v) == (int)sizeof(MPI_Offset));
    CHECK(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 3);
}

static void test_abi(void)
{
    int major = -9, minor = -9, is_set = -1, nkeys, tsz;
    MPI_Info info, finfo;
    char v[MPI_MAX_INFO_VAL];

    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS);
    CHECK(major == MPI_ABI_VERSION && minor == MPI_ABI_SUBVERSION && major == 1 && minor == 0);
    CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS);
    check_abi_info(info);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS);

    /* Fortran properties: the library's, every size matching MPI_Type_size. */
    CHECK(MPI_Abi_get_fortran_info(&finfo) == MPI_SUCCESS && finfo != MPI_INFO_NULL);
    CHECK(MPI_Info_get_nkeys(finfo, &nkeys) == MPI_SUCCESS && nkeys == 23);
    CHECK(MPI_Type_size(MPI_INTEGER, &tsz) == MPI_SUCCESS);
    CHECK(info_value(finfo, "mpi_integer_size", v) && atoi(v) == tsz);
    CHECK(MPI_Type_size(MPI_LOGICAL, &tsz) == MPI_SUCCESS);
    CHECK(info_value(finfo, "mpi_logical_size", v) && atoi(v) == tsz);
    CHECK(MPI_Type_size(MPI_DOUBLE_PRECISION, &tsz) == MPI_SUCCESS);
    CHECK(info_value(finfo, "mpi_double_precision_size", v) && atoi(v) == tsz);
    CHECK(info_value(finfo, "mpi_real16_supported", v) && strcmp(v, "true") == 0);

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Abi_get_version(NULL, &minor) == MPI_ERR_ARG);
    CHECK(MPI_Abi_get_info(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Abi_set_fortran_info(MPI_INFO_NULL) == MPI_ERR_INFO);
    /* Sizes the library cannot honour are refused and change nothing; then a fitting set is
     * taken once. */
    CHECK(MPI_Info_set(finfo, "mpi_integer_size", "8") == MPI_SUCCESS);
    CHECK(MPI_Abi_set_fortran_info(finfo) == MPI_ERR_ABI);
    CHECK(MPI_Info_set(finfo, "mpi_integer_size", "four") == MPI_SUCCESS);
    CHECK(MPI_Abi_set_fortran_info(finfo) == MPI_ERR_ABI);
    CHECK(MPI_Info_set(finfo, "mpi_integer_size", "4") == MPI_SUCCESS);
    CHECK(MPI_Info_set(finfo, "mpi_real16_supported", "maybe") == MPI_SUCCESS);
    CHECK(MPI_Abi_set_fortran_info(finfo) == MPI_ERR_ABI);
    CHECK(MPI_Info_set(finfo, "mpi_real16_supported", "false") == MPI_SUCCESS);
    CHECK(MPI_Info_set(finfo, "some_unknown_key", "ignored") == MPI_SUCCESS);
    CHECK(MPI_Abi_set_fortran_info(finfo) == MPI_SUCCESS);
    CHECK(MPI_Abi_set_fortran_info(finfo) == MPI_ERR_ABI); /* only once */
    CHECK(MPI_Info_free(&finfo) == MPI_SUCCESS);
    CHECK(MPI_Abi_get_fortran_info(&finfo) == MPI_SUCCESS);
    CHECK(info_value(finfo, "mpi_real16_supported", v) && strcmp(v, "false") == 0);
    CHECK(info_value(finfo, "mpi_real8_supported", v) && strcmp(v, "true") == 0);
    CHECK(!info_value(finfo, "some_unknown_key", v));
    CHECK(MPI_Info_free(&finfo) == MPI_SUCCESS);

    /* Booleans: none registered; bad sizes; then .TRUE. = -1 for 4-byte LOGICALs, once. */
    int32_t t = -1, f = 0, gt = 5, gf = 5;
    CHECK(MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set) == MPI_SUCCESS && is_set == 0);
    CHECK(MPI_Abi_get_fortran_booleans(3, &gt, &gf, &is_set) == MPI_ERR_ARG);
    CHECK(MPI_Abi_set_fortran_booleans(0, &t, &f) == MPI_ERR_ARG);
    CHECK(MPI_Abi_set_fortran_booleans(4, &t, &t) == MPI_ERR_ARG);
    CHECK(MPI_Abi_set_fortran_booleans(4, NULL, &f) == MPI_ERR_ARG);
    CHECK(MPI_Abi_set_fortran_booleans(4, &t, &f) == MPI_SUCCESS);
    CHECK(MPI_Abi_set_fortran_booleans(4, &f, &t) == MPI_ERR_ABI);
    CHECK(MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set) == MPI_SUCCESS && is_set == 1);
    CHECK(gt == -1 && gf == 0);
    CHECK(MPI_Abi_get_fortran_booleans(8, &gt, &gf, &is_set) == MPI_SUCCESS && is_set == 0);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);

    /* The logical reductions on 4-byte Fortran LOGICALs now read and write those values: rank
     * r's element i is true when bit i of r + 1 is set (and any nonzero value is true). */
    int32_t in[4], out[4];
    for (int i = 0; i < 4; i++)
        in[i] = ((rank + 1) >> i) & 1 ? (i == 3 ? 7 : -1) : 0;
    const MPI_Op lops[] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    for (int o = 0; o < 3; o++) {
        CHECK(MPI_Allreduce(in, out, 4, MPI_LOGICAL, lops[o], MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < 4; i++) {
            int all = 1, any = 0, odd = 0;
            for (int r = 0; r < size; r++) {
                int b = ((r + 1) >> i) & 1;
                all &= b;
                any |= b;
                odd ^= b;
            }
            int want = o == 0 ? all : o == 1 ? any : odd;
            if (out[i] != (want ? -1 : 0))
                FAIL("MPI_Allreduce of MPI_LOGICAL (op %d) element %d: %d, expected %d", o, i,
                     (int)out[i], want ? -1 : 0);
        }
    }
    /* 1-byte LOGICALs were not registered: C's 1 and 0. */
    int8_t b1 = 1, r1 = 0;
    CHECK(MPI_Allreduce(&b1, &r1, 1, MPI_LOGICAL1, MPI_LAND, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(r1 == 1);
}

static void test_misc_calls(void)
{
    int buf[4];
    MPI_Aint a0, a3;

    CHECK(MPI_Pcontrol(0) == MPI_SUCCESS);
    CHECK(MPI_Pcontrol(1) == MPI_SUCCESS);
    CHECK(MPI_Pcontrol(2, "extra", 3) == MPI_SUCCESS);
    CHECK(MPI_Pcontrol(-7) == MPI_SUCCESS);
    CHECK(MPI_Get_address(&buf[0], &a0) == MPI_SUCCESS);
    CHECK(MPI_Get_address(&buf[3], &a3) == MPI_SUCCESS);
    CHECK(MPI_Aint_add(a0, 3 * (MPI_Aint)sizeof(int)) == a3);
    CHECK(MPI_Aint_diff(a3, a0) == 3 * (MPI_Aint)sizeof(int));
    CHECK(MPI_Aint_diff(a0, a3) == -3 * (MPI_Aint)sizeof(int));
    CHECK(MPI_Aint_add(a3, -3 * (MPI_Aint)sizeof(int)) == a0);
}

/* MPI-1's attribute calls (deprecated, still in MPI-4.1): MPI_Keyval_create with MPI_DUP_FN
 * and MPI_NULL_COPY_FN, MPI_Attr_put/get/delete, the delete callback's calls, the predefined
 * MPI_TAG_UB, and an error naming the MPI-1 call. */
static int legacy_deletes;

static int legacy_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    if (extra == &legacy_deletes && *(int *)val == rank * 10 + 7)
        legacy_deletes++;
    return MPI_SUCCESS;
}

static void test_attr_legacy(void)
{
    int kdup = MPI_KEYVAL_INVALID, knull = MPI_KEYVAL_INVALID, val = rank * 10 + 7, flag = 0;
    int *got = NULL, *tag_ub = NULL, sum = 0, stale, cls;
    MPI_Comm dup;

    legacy_deletes = 0;
    CHECK(MPI_Keyval_create(MPI_DUP_FN, legacy_delete, &kdup, &legacy_deletes) == MPI_SUCCESS);
    CHECK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &knull, NULL) == MPI_SUCCESS);
    CHECK(kdup != MPI_KEYVAL_INVALID && knull != MPI_KEYVAL_INVALID && kdup != knull);
    CHECK(MPI_Attr_put(MPI_COMM_WORLD, kdup, &val) == MPI_SUCCESS);
    CHECK(MPI_Attr_put(MPI_COMM_WORLD, knull, &val) == MPI_SUCCESS);
    CHECK(MPI_Attr_get(MPI_COMM_WORLD, kdup, &got, &flag) == MPI_SUCCESS && flag && got == &val);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    flag = 0;
    CHECK(MPI_Attr_get(dup, kdup, &got, &flag) == MPI_SUCCESS && flag && got == &val);
    CHECK(MPI_Attr_get(dup, knull, &got, &flag) == MPI_SUCCESS && !flag);
    /* The value each rank reads is its own: their sum is known. */
    CHECK(MPI_Allreduce(got, &sum, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS);
    CHECK(sum == 10 * size * (size - 1) / 2 + 7 * size);
    CHECK(MPI_Attr_get(dup, MPI_TAG_UB, &tag_ub, &flag) == MPI_SUCCESS && flag && *tag_ub >= 32767);
    CHECK(MPI_Attr_delete(dup, kdup) == MPI_SUCCESS && legacy_deletes == 1);
    CHECK(MPI_Attr_get(dup, kdup, &got, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS && legacy_deletes == 1);
    CHECK(MPI_Attr_delete(MPI_COMM_WORLD, kdup) == MPI_SUCCESS && legacy_deletes == 2);
    stale = knull;
    CHECK(MPI_Keyval_free(&kdup) == MPI_SUCCESS && kdup == MPI_KEYVAL_INVALID);
    CHECK(MPI_Keyval_free(&knull) == MPI_SUCCESS && knull == MPI_KEYVAL_INVALID);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Error_class(MPI_Attr_put(MPI_COMM_WORLD, stale, &val), &cls) == MPI_SUCCESS &&
          cls == MPI_ERR_KEYVAL);
    CHECK(MPI_Error_class(MPI_Attr_get(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &got, &flag), &cls) ==
              MPI_SUCCESS &&
          cls == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
}

static const mpitest_t tests[] = {
    {"status", test_status_single},
    {"status-multi", test_status_multi},
    {"dims", test_dims},
    {"nullname", test_nullname},
    {"charops", test_charops},
    {"errclass", test_errclass},
    {"abi", test_abi},
    {"misc-calls", test_misc_calls},
    {"attr-legacy", test_attr_legacy},
};

int main(int argc, char **argv)
{
    int major = -1, minor = -1;
    MPI_Info info;

    /* The ABI queries work before MPI_Init (and MPI_Pcontrol at any time). */
    if (MPI_Abi_get_version(&major, &minor) != MPI_SUCCESS || major != 1 || minor != 0 ||
        MPI_Abi_get_info(&info) != MPI_SUCCESS || MPI_Pcontrol(1) != MPI_SUCCESS) {
        fprintf(stderr, "misc: the ABI queries failed before MPI_Init\n");
        return 1;
    }
    check_abi_info(info);
    MPI_Info_free(&info);
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
