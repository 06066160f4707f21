/* Reduction ops through the MPI API, each subtest verifying values against a local reference.
 * Usage:
 *   op TEST [TEST...]   (or "all"); each prints "op TEST: ok (N ranks) in T s" on rank 0
 * Subtests: predefined (MPI_Reduce_local with predefined ops), user (MPI_Op_create(_c),
 * MPI_Op_commutative, MPI_Op_free), errors (every error class under MPI_ERRORS_RETURN), ranks
 * (a reduction done by hand: partial results sent to rank 0 and combined there in rank order),
 * derived (derived datatypes, contiguous or not).
 * "fatal" (not in "all") applies MPI_BAND to MPI_DOUBLE under MPI_ERRORS_ARE_FATAL: the job
 * must die with a message naming the call, the op and the type. */
#include <complex.h>
#include <limits.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPITEST_NAME "op"
#include "mpitest.h"

#define N 100

static void test_predefined(void)
{
    int ia[N], ib[N];
    double da[N], db[N];
    uint64_t ua[N], ub[N];
    bool ba[4] = {0, 1, 0, 1}, bb[4] = {0, 0, 1, 1};
    struct {
        double v;
        int i;
    } pa[3] = {{1.5, 7}, {2.0, 3}, {-1.0, 2}}, pb[3] = {{1.5, 4}, {1.0, 1}, {-1.0, 9}};
    double complex ca[2] = {1.0 + 2.0 * I, -0.5 + 1.0 * I}, cb[2] = {3.0 - 1.0 * I, 2.0 + 2.0 * I};
    char sa[6] = "hello", sb[6] = "world";

    for (int i = 0; i < N; i++) {
        ia[i] = i - 50 + rank;
        ib[i] = 3 * i - 7;
        da[i] = 0.5 * i - 20;
        db[i] = 10.0 - 0.25 * i;
        ua[i] = 0xf0f0f0f0f0f0f0f0ull + (uint64_t)i;
        ub[i] = 0x0ff00ff00ff00ff0ull * (uint64_t)(i + 1);
    }
    CHECK(MPI_Reduce_local(ia, ib, N, MPI_INT, MPI_SUM) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(ib[i] == i - 50 + rank + 3 * i - 7);
    CHECK(MPI_Reduce_local(da, db, N, MPI_DOUBLE, MPI_MAX) == MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        double a = 0.5 * i - 20, b = 10.0 - 0.25 * i;
        CHECK(db[i] == (a > b ? a : b));
    }
    CHECK(MPI_Reduce_local(ia, ib, N, MPI_INT, MPI_MIN) == MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        int sum = ia[i] + 3 * i - 7; /* what ib holds after the MPI_SUM */
        CHECK(ib[i] == (ia[i] < sum ? ia[i] : sum));
    }
    CHECK(MPI_Reduce_local_c(ua, ub, N, MPI_UINT64_T, MPI_BXOR) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(ub[i] == ((0xf0f0f0f0f0f0f0f0ull + (uint64_t)i) ^
                        (0x0ff00ff00ff00ff0ull * (uint64_t)(i + 1))));
    CHECK(MPI_Reduce_local(ba, bb, 4, MPI_C_BOOL, MPI_LXOR) == MPI_SUCCESS);
    CHECK(!bb[0] && bb[1] && bb[2] && !bb[3]);
    /* MAXLOC: a larger value wins; equal values keep the smaller index. */
    CHECK(MPI_Reduce_local(pa, pb, 3, MPI_DOUBLE_INT, MPI_MAXLOC) == MPI_SUCCESS);
    CHECK(pb[0].v == 1.5 && pb[0].i == 4 && pb[1].v == 2.0 && pb[1].i == 3);
    CHECK(pb[2].v == -1.0 && pb[2].i == 2);
    CHECK(MPI_Reduce_local(ca, cb, 2, MPI_C_DOUBLE_COMPLEX, MPI_PROD) == MPI_SUCCESS);
    CHECK(cb[0] == (1.0 + 2.0 * I) * (3.0 - 1.0 * I) &&
          cb[1] == (-0.5 + 1.0 * I) * (2.0 + 2.0 * I));
    /* REPLACE and NO_OP take any type, MPI_CHAR included. */
    CHECK(MPI_Reduce_local(sa, sb, 6, MPI_CHAR, MPI_NO_OP) == MPI_SUCCESS);
    CHECK(strcmp(sb, "world") == 0);
    CHECK(MPI_Reduce_local(sa, sb, 6, MPI_CHAR, MPI_REPLACE) == MPI_SUCCESS);
    CHECK(strcmp(sb, "hello") == 0);
    /* Zero elements: nothing happens, and no buffer is needed. */
    CHECK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM) == MPI_SUCCESS);
}

/* Non-commutative: inout = in * 10 - inout; records what it was called with. */
static int user_calls, user_len;
static MPI_Datatype user_dt;

static void lin(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_calls++;
    user_len = *len;
    user_dt = *dt;
    for (int i = 0; i < *len; i++)
        ((long *)inout)[i] = ((long *)in)[i] * 10 - ((long *)inout)[i];
}

static void lin_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    user_calls++;
    user_len = (int)*len;
    user_dt = *dt;
    for (MPI_Count i = 0; i < *len; i++)
        ((long *)inout)[i] = ((long *)in)[i] * 10 - ((long *)inout)[i];
}

static void test_user(void)
{
    long a[N], b[N];
    MPI_Op op, op_c;
    int commute = -1;

    CHECK(MPI_Op_create(lin, 0, &op) == MPI_SUCCESS);
    CHECK(op != MPI_OP_NULL);
    CHECK(MPI_Op_commutative(op, &commute) == MPI_SUCCESS && commute == 0);
    CHECK(MPI_Op_create_c(lin_c, 1, &op_c) == MPI_SUCCESS);
    CHECK(MPI_Op_commutative(op_c, &commute) == MPI_SUCCESS && commute == 1);
    CHECK(MPI_Op_commutative(MPI_SUM, &commute) == MPI_SUCCESS && commute == 1);
    CHECK(MPI_Op_commutative(MPI_REPLACE, &commute) == MPI_SUCCESS && commute == 1);

    for (int i = 0; i < N; i++) {
        a[i] = i + rank;
        b[i] = 1000 - i;
    }
    user_calls = 0;
    CHECK(MPI_Reduce_local(a, b, N, MPI_LONG, op) == MPI_SUCCESS);
    CHECK(user_calls == 1 && user_len == N && user_dt == MPI_LONG);
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (i + rank) * 10 - (1000 - i));
    user_calls = 0;
    CHECK(MPI_Reduce_local_c(a, b, N, MPI_LONG, op_c) == MPI_SUCCESS);
    CHECK(user_calls == 1 && user_len == N && user_dt == MPI_LONG);
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (i + rank) * 10 - ((i + rank) * 10 - (1000 - i)));
    /* Zero elements: the function is not called. */
    user_calls = 0;
    CHECK(MPI_Reduce_local(a, b, 0, MPI_LONG, op) == MPI_SUCCESS && user_calls == 0);

    CHECK(MPI_Op_free(&op) == MPI_SUCCESS && op == MPI_OP_NULL);
    CHECK(MPI_Op_free(&op_c) == MPI_SUCCESS && op_c == MPI_OP_NULL);
}

static void expect_class(int rc, int cls, const char *what)
{
    int got = -1;
    char s[MPI_MAX_ERROR_STRING];
    int len;

    if (rc == MPI_SUCCESS)
        FAIL("%s: succeeded, expected %d", what, cls);
    CHECK(MPI_Error_class(rc, &got) == MPI_SUCCESS);
    if (got != cls) {
        MPI_Error_string(rc, s, &len);
        FAIL("%s: error class %d (%s), expected %d", what, got, s, cls);
    }
}

static void test_errors(void)
{
    double d[4] = {1, 2, 3, 4}, e[4] = {0};
    int x[4] = {0}, y[4] = {0}, commute;
    MPI_Op op, stale, sum = MPI_SUM, null = MPI_OP_NULL;
    struct {
        uint64_t junk[8];
    } not_an_op = {{0x1234, 0x5678}};

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);

    /* Forbidden combinations. */
    expect_class(MPI_Reduce_local(d, e, 4, MPI_DOUBLE, MPI_BAND), MPI_ERR_OP, "BAND on DOUBLE");
    expect_class(MPI_Reduce_local(x, y, 2, MPI_INT, MPI_MAXLOC), MPI_ERR_OP, "MAXLOC on INT");
    expect_class(MPI_Reduce_local(d, e, 4, MPI_DOUBLE, MPI_LOR), MPI_ERR_OP, "LOR on DOUBLE");
    expect_class(MPI_Reduce_local(x, y, 4, MPI_CHAR, MPI_LAND), MPI_ERR_OP, "LAND on CHAR");
    expect_class(MPI_Reduce_local(x, y, 4, MPI_C_BOOL, MPI_MAX), MPI_ERR_OP, "MAX on C_BOOL");
    expect_class(MPI_Reduce_local(d, e, 2, MPI_C_DOUBLE_COMPLEX, MPI_MIN), MPI_ERR_OP,
                 "MIN on C_DOUBLE_COMPLEX");
    CHECK(e[0] == 0 && e[3] == 0 && y[0] == 0); /* refused calls leave inoutbuf alone */

    /* Bad op handles: null, freed, never made. */
    expect_class(MPI_Reduce_local(x, y, 4, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, "MPI_OP_NULL");
    CHECK(MPI_Op_create(lin, 1, &op) == MPI_SUCCESS);
    stale = op;
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
    expect_class(MPI_Reduce_local(x, y, 4, MPI_INT, stale), MPI_ERR_OP, "freed op");
    expect_class(MPI_Op_free(&stale), MPI_ERR_OP, "freeing twice");
    expect_class(MPI_Op_commutative(stale, &commute), MPI_ERR_OP, "commutative of a freed op");
    expect_class(MPI_Reduce_local(x, y, 4, MPI_INT, (MPI_Op)&not_an_op), MPI_ERR_OP,
                 "random handle");
    expect_class(MPI_Reduce_local(x, y, 4, MPI_INT, (MPI_Op)0x25), MPI_ERR_OP,
                 "unused predefined slot");
    /* Predefined ops cannot be freed. */
    expect_class(MPI_Op_free(&sum), MPI_ERR_OP, "freeing MPI_SUM");
    CHECK(sum == MPI_SUM);
    expect_class(MPI_Op_free(&null), MPI_ERR_OP, "freeing MPI_OP_NULL");

    /* Other arguments. */
    expect_class(MPI_Reduce_local(MPI_IN_PLACE, y, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "MPI_IN_PLACE as inbuf");
    expect_class(MPI_Reduce_local(x, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "MPI_IN_PLACE as inoutbuf");
    expect_class(MPI_Reduce_local(NULL, y, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "NULL inbuf");
    expect_class(MPI_Reduce_local(x, y, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "count -1");
    expect_class(MPI_Reduce_local_c(x, y, -5, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "count_c -5");
    expect_class(MPI_Reduce_local(x, y, 4, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE,
                 "MPI_DATATYPE_NULL");
    expect_class(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG, "Op_create with NULL function");
    expect_class(MPI_Op_create_c(NULL, 1, &op), MPI_ERR_ARG, "Op_create_c with NULL function");
    expect_class(MPI_Op_create(lin, 1, NULL), MPI_ERR_ARG, "Op_create with NULL op");
    expect_class(MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG, "NULL commute");
    expect_class(MPI_Op_free(NULL), MPI_ERR_ARG, "Op_free(NULL)");

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
}

/* f(a, b) = 3a + b is not commutative: folding in any order but rank order gives a different
 * number. */
static void three_a_plus_b(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        ((int64_t *)inout)[i] = 3 * ((int64_t *)in)[i] + ((int64_t *)inout)[i];
}

/* A reduction by hand: every rank sends its vector to rank 0, which folds them in rank order,
 * x_0 op x_1 op ..., with MPI_Reduce_local; a sum over doubles the same way. */
static void test_ranks(void)
{
    int64_t mine[N], acc[N], got[N];
    double dmine[N], dacc[N], dgot[N];
    MPI_Op op;

    CHECK(MPI_Op_create(three_a_plus_b, 0, &op) == MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        mine[i] = (int64_t)rank * 1000 + i;
        dmine[i] = rank + 0.5 * i;
    }
    if (rank != 0) {
        MPI_Send(mine, N, MPI_INT64_T, 0, 1, MPI_COMM_WORLD);
        MPI_Send(dmine, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    } else {
        memcpy(acc, mine, sizeof(acc));
        memcpy(dacc, dmine, sizeof(dacc));
        for (int r = 1; r < size; r++) {
            MPI_Recv(got, N, MPI_INT64_T, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(dgot, N, MPI_DOUBLE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            /* acc op got, left to right: the result lands in got. */
            CHECK(MPI_Reduce_local(acc, got, N, MPI_INT64_T, op) == MPI_SUCCESS);
            memcpy(acc, got, sizeof(acc));
            CHECK(MPI_Reduce_local(dgot, dacc, N, MPI_DOUBLE, MPI_SUM) == MPI_SUCCESS);
        }
        for (int i = 0; i < N; i++) {
            int64_t ref = i; /* rank 0's element */
            double dref = 0.5 * i;
            for (int r = 1; r < size; r++) {
                ref = 3 * ref + (int64_t)r * 1000 + i;
                dref += r + 0.5 * i;
            }
            CHECK(acc[i] == ref);
            CHECK(dacc[i] == dref);
        }
    }
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
}

/* Derived datatypes: a vector of ints (non-contiguous: packed, reduced, unpacked; the gaps stay
 * as they were), a contiguous run of doubles, a user op that sees the derived type, and a
 * struct mixing types, which no predefined op is defined on. */
static void test_derived(void)
{
    int a[24], b[24], orig[24], blocklens[2] = {1, 1};
    double da[12], db[12];
    MPI_Aint disps[2] = {0, sizeof(double)};
    MPI_Datatype vec, run, mixed, types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Op op;

    CHECK(MPI_Type_vector(4, 2, 3, MPI_INT, &vec) == MPI_SUCCESS); /* 2 of every 3 ints */
    CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
    for (int i = 0; i < 24; i++) {
        a[i] = i + 1;
        b[i] = orig[i] = 100 * i;
    }
    /* Two elements: the vector's extent is 11 ints, so they cover ints 0..21. */
    CHECK(MPI_Reduce_local(a, b, 2, vec, MPI_SUM) == MPI_SUCCESS);
    for (int i = 0; i < 24; i++) {
        int k = i < 11 ? i : i - 11, covered = i < 22 && k % 3 != 2;
        if (b[i] != (covered ? orig[i] + i + 1 : orig[i]))
            FAIL("vector SUM: int %d is %d, expected %d", i, b[i],
                 covered ? orig[i] + i + 1 : orig[i]);
    }
    CHECK(MPI_Reduce_local(a, b, 2, vec, MPI_REPLACE) == MPI_SUCCESS);
    for (int i = 0; i < 24; i++) {
        int k = i < 11 ? i : i - 11, covered = i < 22 && k % 3 != 2;
        CHECK(b[i] == (covered ? a[i] : orig[i]));
    }
    user_calls = 0;
    CHECK(MPI_Op_create(lin, 0, &op) == MPI_SUCCESS);
    CHECK(MPI_Reduce_local(a, b, 1, vec, op) == MPI_SUCCESS);
    CHECK(user_calls == 1 && user_len == 1 && user_dt == vec);
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&vec) == MPI_SUCCESS);

    CHECK(MPI_Type_contiguous(3, MPI_DOUBLE, &run) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&run) == MPI_SUCCESS);
    for (int i = 0; i < 12; i++) {
        da[i] = (i % 2) ? i : -i;
        db[i] = 4.5;
    }
    CHECK(MPI_Reduce_local(da, db, 4, run, MPI_MAX) == MPI_SUCCESS);
    for (int i = 0; i < 12; i++)
        CHECK(db[i] == (da[i] > 4.5 ? da[i] : 4.5));
    CHECK(MPI_Type_free(&run) == MPI_SUCCESS);

    CHECK(MPI_Type_create_struct(2, blocklens, disps, types, &mixed) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&mixed) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    expect_class(MPI_Reduce_local(da, db, 1, mixed, MPI_SUM), MPI_ERR_OP, "SUM on a struct");
    /* The rules of the basic type hold for types built from it. */
    CHECK(MPI_Type_contiguous(3, MPI_DOUBLE, &run) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&run) == MPI_SUCCESS);
    expect_class(MPI_Reduce_local(da, db, 1, run, MPI_BAND), MPI_ERR_OP, "BAND on doubles");
    CHECK(MPI_Type_free(&run) == MPI_SUCCESS);
    /* Packed, MPI_DOUBLE_INT loses the padding its C struct has: not supported yet. */
    CHECK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &run) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&run) == MPI_SUCCESS);
    expect_class(MPI_Reduce_local(da, db, 1, run, MPI_MAXLOC), MPI_ERR_UNSUPPORTED_OPERATION,
                 "MAXLOC on pairs of MPI_DOUBLE_INT");
    CHECK(MPI_Type_free(&run) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&mixed) == MPI_SUCCESS);
}

/* Dies: MPI_ERRORS_ARE_FATAL is the default handler. */
static void test_fatal(void)
{
    double d[2] = {1, 2}, e[2] = {3, 4};
    MPI_Reduce_local(d, e, 2, MPI_DOUBLE, MPI_BAND);
    FAIL("MPI_Reduce_local with MPI_BAND on MPI_DOUBLE returned under MPI_ERRORS_ARE_FATAL");
}

int main(int argc, char **argv)
{
    static const mpitest_t tests[] = {
        {"predefined", test_predefined}, {"user", test_user},       {"errors", test_errors},
        {"ranks", test_ranks},           {"derived", test_derived},
    };

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "fatal") == 0)
            test_fatal();
        else
            mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    }
    MPI_Finalize();
    return 0;
}
