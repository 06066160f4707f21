/* Derived datatypes through point-to-point, at 2 ranks: layouts that differ on the two sides
 * but match in type signature (vector / contiguous / other vector / negative stride, indexed,
 * structs laid out differently, subarrays in C and Fortran order), at eager, fragment and
 * rendezvous sizes, every element checked; truncation, Get_count/Get_elements, probes and
 * MPI_ANY_SOURCE, messages to oneself, MPI_Type_free with a pending request, Pack/Unpack,
 * the type queries, and many elements of types with a negative extent (and an overlapping send
 * type) each way. Subtests by name, as p2p.c. */
#define MPITEST_NAME "dtype"
#include "mpitest.h"

#include <stddef.h>
#include <stdint.h>

/* Doubles moved per message: 512 B (eager), 12 KiB (fragments), 2 MiB (rendezvous). */
static const int sizes[] = {64, 1536, 262144};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static const double SENTINEL = -7.5;

/* Element i of message seed: exact in a double, different for every (seed, i) used here. */
static double val(unsigned seed, size_t i)
{
    return (double)seed * 16777216.0 + (double)i;
}

static void check_val(double got, unsigned seed, size_t i, const char *what)
{
    if (got != val(seed, i))
        FAIL("%s: element %zu is %.1f, expected %.1f", what, i, got, val(seed, i));
}

static void check_sentinel(double got, size_t at, const char *what)
{
    if (got != SENTINEL)
        FAIL("%s: double %zu (outside the type map) was overwritten with %.1f", what, at, got);
}

static double *dalloc(size_t n)
{
    double *d = xmalloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        d[i] = SENTINEL;
    return d;
}

static MPI_Datatype commit(MPI_Datatype t)
{
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    return t;
}

static MPI_Datatype vector(int count, int bl, int stride)
{
    MPI_Datatype t;
    CHECK(MPI_Type_vector(count, bl, stride, MPI_DOUBLE, &t) == MPI_SUCCESS);
    return commit(t);
}

/* ---- one layout on each side ----------------------------------------------------------------- */

/* The layouts of n doubles: where element i lives, as a double index from the buffer's start,
 * the buffer's length in doubles, and where the datatype's address points. */
typedef enum { L_CONTIG, L_VEC2, L_VEC4_7, L_NEG, NLAYOUTS } layout_t;
static const char *const layout_name[] = {"contiguous", "vector(1 of 2)", "vector(4 of 7)",
                                          "negative stride"};

static size_t lay_index(layout_t l, size_t n, size_t i)
{
    switch (l) {
    case L_CONTIG:
        return i;
    case L_VEC2:
        return 2 * i;
    case L_VEC4_7:
        return i / 4 * 7 + i % 4;
    default:
        return 2 * (n - 1 - i); /* element 0 at the end, going backwards */
    }
}

static size_t lay_len(layout_t l, size_t n)
{
    return l == L_VEC4_7 ? n / 4 * 7 : 2 * n;
}

/* The type (count 1) and the address to pass for layout l. */
static MPI_Datatype lay_type(layout_t l, int n, double *buf, void **addr)
{
    MPI_Datatype t;

    *addr = buf;
    switch (l) {
    case L_CONTIG:
        CHECK(MPI_Type_contiguous(n, MPI_DOUBLE, &t) == MPI_SUCCESS);
        return commit(t);
    case L_VEC2:
        return vector(n, 1, 2);
    case L_VEC4_7:
        return vector(n / 4, 4, 7);
    default:
        *addr = buf + 2 * (n - 1);
        CHECK(MPI_Type_create_hvector(n, 1, -2 * (MPI_Aint)sizeof(double), MPI_DOUBLE, &t) ==
              MPI_SUCCESS);
        return commit(t);
    }
}

static void fill_layout(layout_t l, double *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < lay_len(l, n); i++)
        buf[i] = SENTINEL;
    for (size_t i = 0; i < n; i++)
        buf[lay_index(l, n, i)] = val(seed, i);
}

static void verify_layout(layout_t l, const double *buf, size_t n, size_t got, unsigned seed,
                          const char *what)
{
    char *mark = calloc(lay_len(l, n), 1);

    for (size_t i = 0; i < got; i++) {
        check_val(buf[lay_index(l, n, i)], seed, i, what);
        mark[lay_index(l, n, i)] = 1;
    }
    for (size_t i = 0; i < lay_len(l, n); i++)
        if (!mark[i])
            check_sentinel(buf[i], i, what);
    free(mark);
}

static void test_layouts(void)
{
    unsigned seed = 1;

    for (int s = 0; s < NSIZES; s++)
        for (int from = 0; from < NLAYOUTS; from++)
            for (int to = 0; to < NLAYOUTS; to++) {
                int n = sizes[s], sender = seed % 2, receiver = 1 - sender;
                layout_t l = rank == sender ? (layout_t)from : (layout_t)to;
                double *buf = dalloc(lay_len(l, (size_t)n));
                void *addr;
                MPI_Datatype t = lay_type(l, n, buf, &addr);
                char what[128];
                MPI_Status st;
                int count;

                snprintf(what, sizeof(what), "%d doubles, %s -> %s", n, layout_name[from],
                         layout_name[to]);
                if (rank == sender) {
                    fill_layout(l, buf, (size_t)n, seed);
                    /* Synchronous every other time: the ack / CTS paths with packing. */
                    if (seed % 3 == 0)
                        CHECK(MPI_Ssend(addr, 1, t, receiver, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
                    else
                        CHECK(MPI_Send(addr, 1, t, receiver, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
                } else if (rank == receiver) {
                    CHECK(MPI_Recv(addr, 1, t, sender, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
                    verify_layout(l, buf, (size_t)n, (size_t)n, seed, what);
                    CHECK(MPI_Get_count(&st, t, &count) == MPI_SUCCESS && count == 1);
                    CHECK(MPI_Get_count(&st, MPI_DOUBLE, &count) == MPI_SUCCESS && count == n);
                    CHECK(MPI_Get_elements(&st, t, &count) == MPI_SUCCESS && count == n);
                }
                MPI_Type_free(&t);
                CHECK(t == MPI_DATATYPE_NULL);
                free(buf);
                seed++;
            }
}

/* ---- indexed --------------------------------------------------------------------------------- */

/* Blocks of 1, 2, 3, 4, 1, 2, ... doubles with a gap of one after each, n doubles in all. */
static MPI_Datatype indexed_type(int n, size_t *span_p, size_t **where_p)
{
    int nb = 0, total = 0, pos = 0;
    int *bl = xmalloc((size_t)n * sizeof(int)), *disp = xmalloc((size_t)n * sizeof(int));
    size_t *where = xmalloc((size_t)n * sizeof(size_t));
    MPI_Datatype t;

    while (total < n) {
        int len = 1 + nb % 4;
        if (len > n - total)
            len = n - total;
        bl[nb] = len;
        disp[nb] = pos;
        for (int k = 0; k < len; k++)
            where[total + k] = (size_t)(pos + k);
        total += len;
        pos += len + 1;
        nb++;
    }
    CHECK(MPI_Type_indexed(nb, bl, disp, MPI_DOUBLE, &t) == MPI_SUCCESS);
    free(bl);
    free(disp);
    *span_p = (size_t)pos;
    *where_p = where;
    return commit(t);
}

static void test_indexed(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        size_t span, *where;
        MPI_Datatype idx = indexed_type(n, &span, &where), blk;
        int *disp = xmalloc((size_t)n / 2 * sizeof(int));
        double *buf;

        /* The other side: blocks of 2 every 3 doubles. */
        for (int i = 0; i < n / 2; i++)
            disp[i] = 3 * i;
        CHECK(MPI_Type_create_indexed_block(n / 2, 2, disp, MPI_DOUBLE, &blk) == MPI_SUCCESS);
        blk = commit(blk);
        if (rank == 0) {
            buf = dalloc(span);
            for (int i = 0; i < n; i++)
                buf[where[i]] = val(100 + (unsigned)s, (size_t)i);
            CHECK(MPI_Send(buf, 1, idx, 1, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
            free(buf);
            /* And back: indexed_block to indexed. */
            buf = dalloc(span);
            CHECK(MPI_Recv(buf, 1, idx, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            for (int i = 0; i < n; i++)
                check_val(buf[where[i]], 200 + (unsigned)s, (size_t)i, "indexed_block -> indexed");
            free(buf);
        } else if (rank == 1) {
            buf = dalloc((size_t)n / 2 * 3);
            CHECK(MPI_Recv(buf, 1, blk, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            for (int i = 0; i < n; i++) {
                check_val(buf[i / 2 * 3 + i % 2], 100 + (unsigned)s, (size_t)i,
                          "indexed -> indexed_block");
                if (i % 2 == 0)
                    check_sentinel(buf[i / 2 * 3 + 2], (size_t)(i / 2 * 3 + 2), "indexed_block");
            }
            for (int i = 0; i < n; i++)
                buf[i / 2 * 3 + i % 2] = val(200 + (unsigned)s, (size_t)i);
            CHECK(MPI_Send(buf, 1, blk, 0, 2, MPI_COMM_WORLD) == MPI_SUCCESS);
            free(buf);
        }
        MPI_Type_free(&idx);
        MPI_Type_free(&blk);
        free(where);
        free(disp);
    }
}

/* ---- structs --------------------------------------------------------------------------------- */

typedef struct {
    int a;
    double b;
    char c[3];
} rec_t;

typedef struct { /* the same fields, another layout */
    char c[3];
    double b;
    int a;
} rec2_t;

static void test_struct(void)
{
    static const int counts[] = {20, 800, 100000};
    const int bl[] = {1, 1, 3};
    const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    const MPI_Aint d1[] = {offsetof(rec_t, a), offsetof(rec_t, b), offsetof(rec_t, c)};
    const MPI_Aint d2[] = {offsetof(rec2_t, a), offsetof(rec2_t, b), offsetof(rec2_t, c)};
    MPI_Datatype t1, t2;
    MPI_Aint lb, extent;

    CHECK(MPI_Type_create_struct(3, bl, d1, types, &t1) == MPI_SUCCESS);
    CHECK(MPI_Type_create_struct(3, bl, d2, types, &t2) == MPI_SUCCESS);
    t1 = commit(t1);
    t2 = commit(t2);
    /* The extent is the C struct's: arrays of them work with count > 1. */
    CHECK(MPI_Type_get_extent(t1, &lb, &extent) == MPI_SUCCESS);
    CHECK(lb == 0 && extent == (MPI_Aint)sizeof(rec_t));
    CHECK(MPI_Type_get_extent(t2, &lb, &extent) == MPI_SUCCESS);
    CHECK(lb == 0 && extent == (MPI_Aint)sizeof(rec2_t));
    for (int s = 0; s < 3; s++) {
        int m = counts[s];
        if (rank == 0) {
            rec_t *r = xmalloc((size_t)m * sizeof(*r));
            memset(r, 0x5a, (size_t)m * sizeof(*r));
            for (int i = 0; i < m; i++) {
                r[i].a = i * 3 + s;
                r[i].b = val(300 + (unsigned)s, (size_t)i);
                r[i].c[0] = (char)i;
                r[i].c[1] = (char)(i >> 8);
                r[i].c[2] = (char)(s + 1);
            }
            CHECK(MPI_Send(r, m, t1, 1, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
            free(r);
        } else if (rank == 1) {
            rec2_t *r = xmalloc((size_t)m * sizeof(*r));
            MPI_Status st;
            int count;
            memset(r, 0x5a, (size_t)m * sizeof(*r));
            CHECK(MPI_Recv(r, m, t2, 0, 3, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            for (int i = 0; i < m; i++) {
                if (r[i].a != i * 3 + s || r[i].c[0] != (char)i || r[i].c[1] != (char)(i >> 8) ||
                    r[i].c[2] != (char)(s + 1))
                    FAIL("struct %d of %d: fields a=%d c=%d,%d,%d wrong", i, m, r[i].a, r[i].c[0],
                         r[i].c[1], r[i].c[2]);
                check_val(r[i].b, 300 + (unsigned)s, (size_t)i, "struct field b");
            }
            CHECK(MPI_Get_count(&st, t2, &count) == MPI_SUCCESS && count == m);
            CHECK(MPI_Get_elements(&st, t2, &count) == MPI_SUCCESS && count == 5 * m);
            free(r);
        }
    }
    MPI_Type_free(&t1);
    MPI_Type_free(&t2);
}

/* ---- subarrays ------------------------------------------------------------------------------- */

static void test_subarray(void)
{
    static const int dims[3][3] = {{4, 5, 6}, {16, 16, 16}, {64, 64, 64}};
    static const int subs[3][3] = {{2, 3, 4}, {12, 11, 12}, {40, 50, 60}};
    static const int starts[3][3] = {{1, 2, 1}, {3, 0, 4}, {24, 7, 2}};

    for (int s = 0; s < 3; s++) {
        const int *d = dims[s], *sub = subs[s], *st = starts[s];
        size_t total = (size_t)d[0] * d[1] * d[2], n = (size_t)sub[0] * sub[1] * sub[2];
        int rd[3] = {d[2], d[1], d[0]}, rsub[3] = {sub[2], sub[1], sub[0]};
        int rst[3] = {st[2], st[1], st[0]};
        MPI_Datatype c, f;
        double *a = dalloc(total);

        CHECK(MPI_Type_create_subarray(3, d, sub, st, MPI_ORDER_C, MPI_DOUBLE, &c) == MPI_SUCCESS);
        /* The same elements described in Fortran order: dimensions reversed. */
        CHECK(MPI_Type_create_subarray(3, rd, rsub, rst, MPI_ORDER_FORTRAN, MPI_DOUBLE, &f) ==
              MPI_SUCCESS);
        c = commit(c);
        f = commit(f);
        if (rank == 0) {
            for (size_t i = 0; i < total; i++)
                a[i] = val(400 + (unsigned)s, i);
            CHECK(MPI_Send(a, 1, c, 1, 4, MPI_COMM_WORLD) == MPI_SUCCESS);
            CHECK(MPI_Send(a, 1, c, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        } else if (rank == 1) {
            double *packed = dalloc(n);
            size_t k = 0;
            /* Into the Fortran view of an array of the same shape: the same elements, in place. */
            CHECK(MPI_Recv(a, 1, f, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(MPI_Recv(packed, (int)n, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
            for (int i = 0; i < d[0]; i++)
                for (int j = 0; j < d[1]; j++)
                    for (int l = 0; l < d[2]; l++) {
                        size_t at = ((size_t)i * d[1] + j) * d[2] + l;
                        int in = i >= st[0] && i < st[0] + sub[0] && j >= st[1] &&
                                 j < st[1] + sub[1] && l >= st[2] && l < st[2] + sub[2];
                        if (in) {
                            check_val(a[at], 400 + (unsigned)s, at, "subarray C -> Fortran");
                            check_val(packed[k++], 400 + (unsigned)s, at, "subarray -> contig");
                        } else {
                            check_sentinel(a[at], at, "subarray C -> Fortran");
                        }
                    }
            CHECK(k == n);
            free(packed);
        }
        MPI_Type_free(&c);
        MPI_Type_free(&f);
        free(a);
    }
}

/* ---- truncation and counts ------------------------------------------------------------------- */

static void test_truncate(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], m = n / 2 - 3;
        if (rank == 0) {
            double *buf = dalloc((size_t)n);
            for (int i = 0; i < n; i++)
                buf[i] = val(500 + (unsigned)s, (size_t)i);
            CHECK(MPI_Send(buf, n, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
            free(buf);
        } else if (rank == 1) {
            /* Room for m elements of a stride-2 vector, in a buffer twice as long. */
            MPI_Datatype v = vector(m, 1, 2);
            double *buf = dalloc(4 * (size_t)n);
            MPI_Status st;
            int rc = MPI_Recv(buf, 1, v, 0, 6, MPI_COMM_WORLD, &st), cls, count;
            MPI_Error_class(rc, &cls);
            if (cls != MPI_ERR_TRUNCATE)
                FAIL("%d doubles into room for %d: error class %d, expected MPI_ERR_TRUNCATE", n, m,
                     cls);
            for (int i = 0; i < m; i++) {
                check_val(buf[2 * i], 500 + (unsigned)s, (size_t)i, "truncated");
                check_sentinel(buf[2 * i + 1], (size_t)(2 * i + 1), "truncated");
            }
            for (size_t i = 2 * (size_t)m; i < 4 * (size_t)n; i++)
                check_sentinel(buf[i], i, "past the truncated receive");
            CHECK(MPI_Get_elements(&st, MPI_DOUBLE, &count) == MPI_SUCCESS && count == m);
            MPI_Type_free(&v);
            free(buf);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_counts(void)
{
    /* {int, double} pairs, but the message is {int, double, int}: one and a half. */
    const int bl[] = {1, 1, 1};
    const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_INT};
    const MPI_Aint d3[] = {0, 8, 16};
    MPI_Datatype s2, s3, v4;
    MPI_Count ex;

    CHECK(MPI_Type_create_struct(2, bl, d3, types, &s2) == MPI_SUCCESS);
    CHECK(MPI_Type_create_struct(3, bl, d3, types, &s3) == MPI_SUCCESS);
    s2 = commit(s2);
    s3 = commit(s3);
    v4 = vector(4, 1, 3);
    if (rank == 0) {
        char buf[64] = {0};
        double d[10] = {0};
        CHECK(MPI_Send(buf, 1, s3, 1, 8, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Send(d, 10, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (rank == 1) {
        char buf[64];
        double *d = dalloc(3 * 4 * 3);
        MPI_Status st;
        int count;
        /* Probe first: the counts of a status from a probe, with a derived type. */
        CHECK(MPI_Probe(0, 8, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, s2, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
        CHECK(MPI_Get_elements(&st, s2, &count) == MPI_SUCCESS && count == 3);
        CHECK(MPI_Recv(buf, 2, s2, 0, 8, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, s2, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
        CHECK(MPI_Get_elements(&st, s2, &count) == MPI_SUCCESS && count == 3);
        CHECK(MPI_Get_elements_x(&st, s2, &ex) == MPI_SUCCESS && ex == 3);
        CHECK(MPI_Get_count(&st, s3, &count) == MPI_SUCCESS && count == 1);
        /* 10 doubles into vectors of 4: two and a half. */
        CHECK(MPI_Recv(d, 3, v4, 0, 9, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, v4, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
        CHECK(MPI_Get_elements(&st, v4, &count) == MPI_SUCCESS && count == 10);
        free(d);
    }
    MPI_Type_free(&s2);
    MPI_Type_free(&s3);
    MPI_Type_free(&v4);
}

/* ---- unexpected messages, probes, MPI_ANY_SOURCE --------------------------------------------- */

static void test_unexpected(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        unsigned seed = 600 + (unsigned)s;
        if (rank == 0) {
            double *buf = dalloc(2 * (size_t)n);
            MPI_Datatype v = vector(n, 1, 2);
            MPI_Request r[2];
            fill_layout(L_VEC2, buf, (size_t)n, seed);
            /* Two messages that arrive before their receives are posted. */
            CHECK(MPI_Isend(buf, 1, v, 1, 10, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
            CHECK(MPI_Isend(buf, 1, v, 1, 11, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            MPI_Type_free(&v);
            free(buf);
        } else if (rank == 1) {
            double *buf = dalloc(2 * (size_t)n);
            void *addr;
            MPI_Datatype t = lay_type(L_NEG, n, buf, &addr), v4 = vector(n / 4, 4, 7);
            MPI_Message msg;
            MPI_Status st;
            int count;
            MPI_Barrier(MPI_COMM_WORLD);
            sleep_ms(50); /* let the eager data land unexpected */
            CHECK(MPI_Probe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == 0);
            CHECK(MPI_Get_count(&st, t, &count) == MPI_SUCCESS && count == 1);
            CHECK(MPI_Recv(addr, 1, t, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 10);
            verify_layout(L_NEG, buf, (size_t)n, (size_t)n, seed, "unexpected, ANY_SOURCE");
            free(buf);
            buf = dalloc(lay_len(L_VEC4_7, (size_t)n));
            CHECK(MPI_Mprobe(0, 11, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
            CHECK(MPI_Mrecv(buf, 1, v4, &msg, &st) == MPI_SUCCESS);
            verify_layout(L_VEC4_7, buf, (size_t)n, (size_t)n, seed, "Mprobe/Mrecv");
            MPI_Type_free(&t);
            MPI_Type_free(&v4);
            free(buf);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
}

/* ---- to oneself, and MPI_Type_free while pending --------------------------------------------- */

static void test_self(void)
{
    static const int n_self[] = {64, 1536, 262144, 524288};

    for (int s = 0; s < 4; s++) {
        int n = n_self[s];
        unsigned seed = 700 + (unsigned)s;
        double *src = dalloc(2 * (size_t)n), *dst = dalloc(lay_len(L_VEC4_7, (size_t)n));
        MPI_Datatype v = vector(n, 1, 2), w = vector(n / 4, 4, 7);
        MPI_Request r;
        fill_layout(L_VEC2, src, (size_t)n, seed);
        CHECK((s % 2 ? MPI_Issend : MPI_Isend)(src, 1, v, rank, 12, MPI_COMM_WORLD, &r) ==
              MPI_SUCCESS);
        MPI_Type_free(&v);
        CHECK(MPI_Recv(dst, 1, w, rank, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        verify_layout(L_VEC4_7, dst, (size_t)n, (size_t)n, seed, "to oneself");
        MPI_Type_free(&w);
        free(src);
        free(dst);
    }
}

static void test_free_pending(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        unsigned seed = 800 + (unsigned)s;
        double *buf = dalloc(2 * (size_t)n);
        MPI_Datatype v = vector(n, 1, 2);
        MPI_Request r = MPI_REQUEST_NULL;

        if (rank == 0) {
            fill_layout(L_VEC2, buf, (size_t)n, seed);
            CHECK(MPI_Isend(buf, 1, v, 1, 13, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        } else if (rank == 1) {
            CHECK(MPI_Irecv(buf, 1, v, 0, 13, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        }
        /* The standard: freeing a type in use by a pending operation is allowed. */
        CHECK(MPI_Type_free(&v) == MPI_SUCCESS);
        CHECK(v == MPI_DATATYPE_NULL);
        /* Other types come and go meanwhile: the pending one must not be reused or freed. */
        for (int k = 0; k < 4; k++) {
            MPI_Datatype junk = vector(3, 1, 5);
            MPI_Type_free(&junk);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (rank == 1)
            verify_layout(L_VEC2, buf, (size_t)n, (size_t)n, seed, "type freed while pending");
        free(buf);
    }
}

/* ---- Pack / Unpack, buffered and replace ----------------------------------------------------- */

static void test_pack(void)
{
    int n = 1000, psize, pos = 0;
    MPI_Datatype v = vector(n, 1, 2), w = vector(n / 4, 4, 7);

    CHECK(MPI_Pack_size(1, v, MPI_COMM_WORLD, &psize) == MPI_SUCCESS);
    CHECK(psize == n * 8);
    if (rank == 0) {
        double *buf = dalloc(2 * (size_t)n);
        char *packed = xmalloc((size_t)psize + 16);
        fill_layout(L_VEC2, buf, (size_t)n, 900);
        *(int *)packed = 42;
        pos = (int)sizeof(int);
        CHECK(MPI_Pack(buf, 1, v, packed, psize + 16, &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pos == psize + (int)sizeof(int));
        /* Sent as packed bytes, received with a datatype, and the other way round. */
        CHECK(MPI_Send(packed + sizeof(int), psize, MPI_PACKED, 1, 14, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        CHECK(MPI_Send(buf, 1, v, 1, 15, MPI_COMM_WORLD) == MPI_SUCCESS);
        free(buf);
        free(packed);
    } else if (rank == 1) {
        double *buf = dalloc(lay_len(L_VEC4_7, (size_t)n));
        char *packed = xmalloc((size_t)psize);
        CHECK(MPI_Recv(buf, 1, w, 0, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        verify_layout(L_VEC4_7, buf, (size_t)n, (size_t)n, 900, "MPI_PACKED -> vector");
        CHECK(MPI_Recv(packed, psize, MPI_PACKED, 0, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        free(buf);
        buf = dalloc(lay_len(L_VEC4_7, (size_t)n));
        pos = 0;
        CHECK(MPI_Unpack(packed, psize, &pos, buf, 1, w, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pos == psize);
        verify_layout(L_VEC4_7, buf, (size_t)n, (size_t)n, 900, "vector -> MPI_PACKED, Unpack");
        free(buf);
        free(packed);
    }
    /* Sendrecv_replace and Bsend of non-contiguous data. */
    if (rank < 2) {
        int peer = 1 - rank, bsize;
        double *buf = dalloc(2 * (size_t)n);
        void *attach, *old;
        fill_layout(L_VEC2, buf, (size_t)n, 910 + (unsigned)rank);
        CHECK(MPI_Sendrecv_replace(buf, 1, v, peer, 16, peer, 16, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS);
        verify_layout(L_VEC2, buf, (size_t)n, (size_t)n, 910 + (unsigned)peer, "Sendrecv_replace");
        bsize = psize + MPI_BSEND_OVERHEAD;
        attach = xmalloc((size_t)bsize);
        CHECK(MPI_Buffer_attach(attach, bsize) == MPI_SUCCESS);
        fill_layout(L_VEC2, buf, (size_t)n, 920 + (unsigned)rank);
        CHECK(MPI_Bsend(buf, 1, v, peer, 17, MPI_COMM_WORLD) == MPI_SUCCESS);
        memset(buf, 0, 2 * (size_t)n * sizeof(double)); /* buffered: ours again at once */
        free(buf);
        buf = dalloc(lay_len(L_VEC4_7, (size_t)n));
        CHECK(MPI_Recv(buf, 1, w, peer, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        verify_layout(L_VEC4_7, buf, (size_t)n, (size_t)n, 920 + (unsigned)peer, "Bsend");
        CHECK(MPI_Buffer_detach(&old, &bsize) == MPI_SUCCESS);
        free(attach);
        free(buf);
    }
    MPI_Type_free(&v);
    MPI_Type_free(&w);
}

/* ---- absolute addresses: MPI_BOTTOM --------------------------------------------------------- */

/* A struct type of absolute addresses (MPI_Get_address) over separate arrays, used with
 * MPI_BOTTOM on both sides, large enough for a rendezvous. */
static void test_bottom(void)
{
    enum { NI = 1000, ND = 40000 };
    int *ia = xmalloc(NI * sizeof(int));
    double *da = dalloc(ND);
    const int bl[] = {NI, ND};
    const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
    MPI_Aint disp[2];
    MPI_Datatype t;

    CHECK(MPI_Get_address(ia, &disp[0]) == MPI_SUCCESS);
    CHECK(MPI_Get_address(da, &disp[1]) == MPI_SUCCESS);
    CHECK(MPI_Type_create_struct(2, bl, disp, types, &t) == MPI_SUCCESS);
    t = commit(t);
    if (rank == 0) {
        for (int i = 0; i < NI; i++)
            ia[i] = i * 7 + 1;
        for (int i = 0; i < ND; i++)
            da[i] = val(950, (size_t)i);
        CHECK(MPI_Send(MPI_BOTTOM, 1, t, 1, 18, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (rank == 1) {
        memset(ia, 0, NI * sizeof(int));
        CHECK(MPI_Recv(MPI_BOTTOM, 1, t, 0, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < NI; i++)
            if (ia[i] != i * 7 + 1)
                FAIL("MPI_BOTTOM: int %d is %d, expected %d", i, ia[i], i * 7 + 1);
        for (int i = 0; i < ND; i++)
            check_val(da[i], 950, (size_t)i, "MPI_BOTTOM doubles");
    }
    MPI_Type_free(&t);
    free(ia);
    free(da);
}

/* ---- queries and errors ---------------------------------------------------------------------- */

static void test_queries(void)
{
    MPI_Datatype v = vector(5, 2, 3), r, d, s, got[2], bad;
    int ni, na, nt, comb, ints[8], len, size, rc, cls;
    MPI_Aint aints[4], lb, extent;
    MPI_Count xlb, xext, xsize;
    char name[MPI_MAX_OBJECT_NAME];
    double x[4];

    /* Extents: a vector of 5 blocks of 2 doubles, 3 apart: 14 doubles from 0. */
    CHECK(MPI_Type_get_extent(v, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 14 * 8);
    CHECK(MPI_Type_get_true_extent(v, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 14 * 8);
    CHECK(MPI_Type_size(v, &size) == MPI_SUCCESS && size == 80);
    CHECK(MPI_Type_size_x(v, &xsize) == MPI_SUCCESS && xsize == 80);
    CHECK(MPI_Type_create_resized(v, -16, 200, &r) == MPI_SUCCESS);
    CHECK(MPI_Type_get_extent_x(r, &xlb, &xext) == MPI_SUCCESS && xlb == -16 && xext == 200);
    CHECK(MPI_Type_get_true_extent_x(r, &xlb, &xext) == MPI_SUCCESS && xlb == 0 && xext == 14 * 8);
    /* Envelope and contents. */
    CHECK(MPI_Type_get_envelope(v, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1);
    CHECK(MPI_Type_get_contents(v, 8, 4, 2, ints, aints, got) == MPI_SUCCESS);
    CHECK(ints[0] == 5 && ints[1] == 2 && ints[2] == 3 && got[0] == MPI_DOUBLE);
    CHECK(MPI_Type_get_envelope(r, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nt == 1);
    CHECK(MPI_Type_get_contents(r, 8, 4, 2, ints, aints, got) == MPI_SUCCESS);
    CHECK(aints[0] == -16 && aints[1] == 200);
    /* A derived type in the contents comes back as a handle to free, valid even after the
     * original handle is freed. */
    MPI_Type_free(&v);
    CHECK(MPI_Type_get_envelope(got[0], &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_VECTOR);
    CHECK(MPI_Type_size(got[0], &size) == MPI_SUCCESS && size == 80);
    MPI_Type_free(&got[0]);
    CHECK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0);
    CHECK(MPI_Type_dup(r, &d) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(d, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_DUP && nt == 1);
    CHECK(MPI_Type_get_extent(d, &lb, &extent) == MPI_SUCCESS && lb == -16 && extent == 200);
    {
        const int bl[] = {1, 2};
        const MPI_Aint disp[] = {0, 16};
        const MPI_Datatype types[] = {MPI_INT, r};
        CHECK(MPI_Type_create_struct(2, bl, disp, types, &s) == MPI_SUCCESS);
        CHECK(MPI_Type_get_envelope(s, &ni, &na, &nt, &comb) == MPI_SUCCESS);
        CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nt == 2);
        CHECK(MPI_Type_get_contents(s, 8, 4, 2, ints, aints, got) == MPI_SUCCESS);
        CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && aints[1] == 16);
        CHECK(got[0] == MPI_INT && got[1] == r);
        MPI_Type_free(&got[1]);
    }
    /* Names. */
    CHECK(MPI_Type_get_name(MPI_DOUBLE, name, &len) == MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10);
    CHECK(MPI_Type_set_name(d, "my dup") == MPI_SUCCESS);
    CHECK(MPI_Type_get_name(d, name, &len) == MPI_SUCCESS && strcmp(name, "my dup") == 0);
    /* Addresses. */
    {
        MPI_Aint a0, a2;
        CHECK(MPI_Get_address(&x[0], &a0) == MPI_SUCCESS);
        CHECK(MPI_Get_address(&x[2], &a2) == MPI_SUCCESS && a2 - a0 == 16);
    }
    /* Errors: bad, freed and uncommitted handles; freeing a predefined type. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Type_size((MPI_Datatype)(uintptr_t)0x12345678, &size);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    bad = s;
    MPI_Type_free(&s);
    rc = MPI_Type_size(bad, &size);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    rc = MPI_Send(x, 1, bad, rank, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    CHECK(MPI_Type_contiguous(2, MPI_DOUBLE, &bad) == MPI_SUCCESS);
    rc = MPI_Send(x, 1, bad, rank, 0, MPI_COMM_WORLD); /* not committed */
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    MPI_Type_free(&bad);
    bad = MPI_INT;
    rc = MPI_Type_free(&bad);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    rc = MPI_Type_vector(-1, 1, 1, MPI_INT, &bad);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&r);
    MPI_Type_free(&d);
}

/* ---- negative extents ------------------------------------------------------------------------ */

/* count elements of a type whose element e has its double k at e * ext + first + k * stride
 * doubles from the address: below it for a negative extent. ovl: elements share doubles (a
 * send type only). */
typedef struct {
    const char *name;
    MPI_Datatype dt;
    int per, ext, first, stride, ovl;
} neg_t;

static long neg_pos(const neg_t *t, long e, int k)
{
    return e * t->ext + t->first + (long)k * t->stride;
}

/* A buffer for n elements of t, SENTINEL everywhere, one double to spare each side; *addr_p is
 * the address to pass, *len_p the doubles allocated. */
static double *neg_alloc(const neg_t *t, long n, double **addr_p, long *len_p)
{
    long lo = 0, hi = 0;
    double *mem;

    for (int c = 0; n > 0 && c < 4; c++) {
        long p = neg_pos(t, c & 1 ? n - 1 : 0, c & 2 ? t->per - 1 : 0);
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    *len_p = hi - lo + 3;
    mem = dalloc((size_t)*len_p);
    *addr_p = mem + 1 - lo;
    return mem;
}

/* Data double j of element e, k (j = e * per + k) is val(seed, j), written in element order
 * (an overlapping type's later elements win). */
static void neg_fill(const neg_t *t, double *addr, long n, unsigned seed)
{
    for (long e = 0; e < n; e++)
        for (int k = 0; k < t->per; k++)
            addr[neg_pos(t, e, k)] = val(seed, (size_t)(e * t->per + k));
}

/* What n elements of t filled with seed carry, in type-map order: val(seed, j), or for an
 * overlapping type whatever its buffer ends up holding there. */
static double neg_sent(const neg_t *t, long n, unsigned seed, long j)
{
    long e = j / t->per;
    int k = (int)(j % t->per);

    if (t->ovl) {
        /* The last element written to that double: elements e' with the same position. */
        long p = neg_pos(t, e, k), best = e * t->per + k;
        for (long e2 = e + 1; e2 < n && e2 <= e + t->per; e2++)
            for (int k2 = 0; k2 < t->per; k2++)
                if (neg_pos(t, e2, k2) == p)
                    best = e2 * t->per + k2;
        return val(seed, (size_t)best);
    }
    return val(seed, (size_t)j);
}

/* Every double of a buffer of n elements of t: data from the sender (n_s elements of s filled
 * with seed), SENTINEL elsewhere. */
static void neg_verify(const neg_t *t, const double *mem, const double *addr, long len, long n,
                       const neg_t *s, long n_s, unsigned seed, const char *what)
{
    char *mark = calloc((size_t)len, 1);

    for (long e = 0; e < n; e++)
        for (int k = 0; k < t->per; k++) {
            long j = e * t->per + k, x = neg_pos(t, e, k) + (addr - mem);
            double want = neg_sent(s, n_s, seed, j);
            if (mem[x] != want)
                FAIL("%s: element %ld double %d is %.1f, expected %.1f", what, e, k, mem[x], want);
            mark[x] = 1;
        }
    for (long x = 0; x < len; x++)
        if (!mark[x])
            check_sentinel(mem[x], (size_t)x, what);
    free(mark);
}

static void test_negext(void)
{
    neg_t types[5] = {
        {"double at extent -8", MPI_DATATYPE_NULL, 1, -1, 0, 0, 0},
        {"hvector(2, stride -2) at extent -24", MPI_DATATYPE_NULL, 2, -3, 0, -2, 0},
        {"hvector(2, stride -2)", MPI_DATATYPE_NULL, 2, 3, 0, -2, 0},
        {"double", MPI_DOUBLE, 1, 1, 0, 0, 0},
        {"2 doubles at extent -8 (overlapping)", MPI_DATATYPE_NULL, 2, -1, 0, 1, 1},
    };
    const MPI_Aint d = (MPI_Aint)sizeof(double);
    MPI_Datatype hv, pair;
    unsigned seed = 900;

    CHECK(MPI_Type_create_resized(MPI_DOUBLE, 0, -d, &types[0].dt) == MPI_SUCCESS);
    CHECK(MPI_Type_create_hvector(2, 1, -2 * d, MPI_DOUBLE, &hv) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(hv, -2 * d, -3 * d, &types[1].dt) == MPI_SUCCESS);
    types[2].dt = hv;
    CHECK(MPI_Type_contiguous(2, MPI_DOUBLE, &pair) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(pair, 0, -d, &types[4].dt) == MPI_SUCCESS);
    MPI_Type_free(&pair);
    for (int t = 0; t < 5; t++)
        if (t != 3)
            commit(types[t].dt);

    /* Every sending type to every receiving one (the overlapping type sends only), at eager,
     * fragment and rendezvous sizes, blocking and nonblocking. */
    for (int s = 0; s < NSIZES; s++)
        for (int from = 0; from < 5; from++)
            for (int to = 0; to < 4; to++) {
                const neg_t *ts = &types[from], *tr = &types[to];
                long nd = sizes[s], ns = nd / ts->per, nr = nd / tr->per, len;
                int sender = seed % 2, receiver = 1 - sender;
                const neg_t *mine = rank == sender ? ts : tr;
                double *addr, *mem = neg_alloc(mine, rank == sender ? ns : nr, &addr, &len);
                char what[160];
                MPI_Status st;
                int count;

                snprintf(what, sizeof(what), "%ld doubles, %s -> %s", nd, ts->name, tr->name);
                if (rank == sender) {
                    MPI_Request r;
                    neg_fill(ts, addr, ns, seed);
                    if (seed % 2)
                        CHECK(MPI_Send(addr, (int)ns, ts->dt, receiver, 14, MPI_COMM_WORLD) ==
                              MPI_SUCCESS);
                    else
                        CHECK(MPI_Isend(addr, (int)ns, ts->dt, receiver, 14, MPI_COMM_WORLD, &r) ==
                                  MPI_SUCCESS &&
                              MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                } else if (rank == receiver) {
                    CHECK(MPI_Recv(addr, (int)nr, tr->dt, sender, 14, MPI_COMM_WORLD, &st) ==
                          MPI_SUCCESS);
                    neg_verify(tr, mem, addr, len, nr, ts, ns, seed, what);
                    CHECK(MPI_Get_count(&st, tr->dt, &count) == MPI_SUCCESS && count == nr);
                }
                free(mem);
                seed++;
            }

    /* To oneself, and Pack/Unpack: the downward type both ways. */
    for (int s = 0; s < NSIZES; s++) {
        const neg_t *t = &types[1];
        long n = sizes[s] / t->per, len1, len2;
        double *a1, *a2, *m1 = neg_alloc(t, n, &a1, &len1), *m2 = neg_alloc(t, n, &a2, &len2);
        int psize, pos = 0;
        char *packed;

        neg_fill(t, a1, n, seed);
        CHECK(MPI_Sendrecv(a1, (int)n, t->dt, rank, 15, a2, (int)n, t->dt, rank, 15, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
        neg_verify(t, m2, a2, len2, n, t, n, seed, "to oneself");
        CHECK(MPI_Pack_size((int)n, t->dt, MPI_COMM_WORLD, &psize) == MPI_SUCCESS);
        packed = xmalloc((size_t)psize);
        CHECK(MPI_Pack(a1, (int)n, t->dt, packed, psize, &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pos == (int)(n * t->per * (long)sizeof(double)));
        for (long j = 0; j < n * t->per; j++) {
            double v;
            memcpy(&v, packed + j * (long)sizeof(double), sizeof(v));
            if (v != val(seed, (size_t)j))
                FAIL("MPI_Pack of %s: double %ld is %.1f", t->name, j, v);
        }
        free(m2);
        m2 = neg_alloc(t, n, &a2, &len2);
        pos = 0;
        CHECK(MPI_Unpack(packed, psize, &pos, a2, (int)n, t->dt, MPI_COMM_WORLD) == MPI_SUCCESS);
        neg_verify(t, m2, a2, len2, n, t, n, seed, "MPI_Unpack");
        free(packed);
        free(m1);
        free(m2);
        seed++;
    }
    /* Sendrecv_replace and Bsend of the downward types between the two ranks. */
    if (rank < 2) {
        const neg_t *t = &types[1], *u = &types[0];
        long n = 1000, len, ulen;
        double *addr, *mem = neg_alloc(t, n, &addr, &len), *uaddr, *umem;
        int peer = 1 - rank, bsize = (int)(2 * n * sizeof(double)) + MPI_BSEND_OVERHEAD;
        char *attach = xmalloc((size_t)bsize);
        void *detached;

        neg_fill(t, addr, n, seed + (unsigned)rank);
        CHECK(MPI_Sendrecv_replace(addr, (int)n, t->dt, peer, 16, peer, 16, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS);
        neg_verify(t, mem, addr, len, n, t, n, seed + (unsigned)peer, "MPI_Sendrecv_replace");
        umem = neg_alloc(u, 2 * n, &uaddr, &ulen);
        CHECK(MPI_Buffer_attach(attach, bsize) == MPI_SUCCESS);
        if (rank == 0) {
            neg_fill(u, uaddr, 2 * n, seed + 2);
            CHECK(MPI_Bsend(uaddr, (int)(2 * n), u->dt, 1, 17, MPI_COMM_WORLD) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Recv(addr, (int)n, t->dt, 0, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
            neg_verify(t, mem, addr, len, n, u, 2 * n, seed + 2, "MPI_Bsend");
        }
        CHECK(MPI_Buffer_detach(&detached, &bsize) == MPI_SUCCESS);
        free(attach);
        free(umem);
        free(mem);
    }
    for (int t = 0; t < 5; t++)
        if (t != 3)
            MPI_Type_free(&types[t].dt);
}

static const mpitest_t tests[] = {
    {"layouts", test_layouts},
    {"indexed", test_indexed},
    {"struct", test_struct},
    {"subarray", test_subarray},
    {"truncate", test_truncate},
    {"counts", test_counts},
    {"unexpected", test_unexpected},
    {"self", test_self},
    {"free_pending", test_free_pending},
    {"pack", test_pack},
    {"bottom", test_bottom},
    {"queries", test_queries},
    {"negext", test_negext},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            printf("dtype: needs 2 ranks\n");
        MPI_Finalize();
        return 77;
    }
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    MPI_Finalize();
    return 0;
}
