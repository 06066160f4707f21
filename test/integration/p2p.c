/* Point-to-point semantics, each subtest verifying payloads byte for byte. Usage:
 *   p2p TEST [TEST...]   (or "all"); each prints "p2p TEST: ok (N ranks) in T s" on rank 0 or fails
 * loudly. Tests that need two ranks skip themselves at size 1; "self" needs only one. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MPITEST_NAME "p2p"
#include "mpitest.h"

static size_t eager_probe_max = 70000; /* sizes tested span eager and fragmented messages */

/* Every size from 0 to a few KiB byte by byte, then around powers of two up to beyond the
 * eager limit, both directions. */
static void test_pingpong(void)
{
    unsigned char *buf = malloc(eager_probe_max + 1);
    MPI_Status st;
    int count;
    size_t sizes[4096], n = 0;

    for (size_t s = 0; s <= 1100; s++)
        sizes[n++] = s;
    for (size_t p = 2048; p <= eager_probe_max; p *= 2) {
        sizes[n++] = p - 1;
        sizes[n++] = p;
        sizes[n++] = p + 1;
    }
    sizes[n++] = eager_probe_max;
    if (size < 2)
        return;
    for (size_t k = 0; k < n; k++) {
        size_t len = sizes[k];
        unsigned seed = (unsigned)k;
        if (rank == 0) {
            fill(buf, len, seed);
            MPI_Send(buf, (int)len, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            memset(buf, 0, len);
            MPI_Recv(buf, (int)len, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &st);
            verify(buf, len, seed + 1, "pingpong reply");
        } else if (rank == 1) {
            MPI_Recv(buf, (int)eager_probe_max, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK((size_t)count == len && st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
            verify(buf, len, seed, "pingpong");
            fill(buf, len, seed + 1);
            MPI_Send(buf, (int)len, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        }
    }
    free(buf);
}

/* ANY_SOURCE / ANY_TAG receive what was sent and report who and which tag in the status. */
static void test_wildcards(void)
{
    int v, count;
    MPI_Status st;

    if (rank != 0) {
        v = 1000 + rank;
        MPI_Send(&v, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
        return;
    }
    int seen[64] = {0};
    for (int i = 1; i < size; i++) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size && !seen[st.MPI_SOURCE]);
        CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE && v == 1000 + st.MPI_SOURCE);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 1);
        seen[st.MPI_SOURCE] = 1;
    }
}

/* Many messages with the same tag arrive in the order they were sent, also when some are
 * unexpected (sent before the receive) and some are not; ANY_TAG must not overtake either. */
static void test_ordering(void)
{
    enum { N = 2000 };
    int v;
    if (size < 2)
        return;
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            MPI_Send(&i, 1, MPI_INT, 1, i % 2 ? 5 : 6, MPI_COMM_WORLD);
    } else if (rank == 1) {
        sleep_ms(100); /* let most arrive unexpected */
        for (int i = 0; i < N; i++) {
            MPI_Recv(&v, 1, MPI_INT, 0, i % 3 == 0 ? MPI_ANY_TAG : (i % 2 ? 5 : 6), MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (v != i)
                FAIL("message %d arrived as number %d", v, i);
        }
    }
}

/* A message longer than the buffer: MPI_ERR_TRUNCATE, the buffer holds the first bytes, the
 * bytes after it are untouched, and the library keeps working. */
static void test_truncate(void)
{
    unsigned char buf[4096 + 64];
    MPI_Status st;
    int rc, count, eclass;

    if (size < 2)
        return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int round = 0; round < 2; round++) {
        size_t sent = round == 0 ? 1000 : 40000; /* eager and fragmented */
        if (rank == 0) {
            unsigned char *big = malloc(sent);
            fill(big, sent, 9);
            MPI_Send(big, (int)sent, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
            fill(big, 16, 10);
            MPI_Send(big, 16, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
            free(big);
        } else if (rank == 1) {
            memset(buf, 0xEE, sizeof(buf));
            rc = MPI_Recv(buf, 100, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
            MPI_Error_class(rc, &eclass);
            CHECK(eclass == MPI_ERR_TRUNCATE);
            verify(buf, 100, 9, "truncated prefix");
            for (size_t i = 100; i < sizeof(buf); i++)
                CHECK(buf[i] == 0xEE);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == 100);
            rc = MPI_Recv(buf, 16, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &st);
            CHECK(rc == MPI_SUCCESS);
            verify(buf, 16, 10, "message after a truncated one");
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Every rank sends a distinct message to every rank (itself included) at once. */
static void test_alltoall(void)
{
    enum { LEN = 3000 };
    unsigned char *sbuf = malloc((size_t)size * LEN), *rbuf = malloc((size_t)size * LEN);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)size);

    for (int round = 0; round < 5; round++) {
        for (int p = 0; p < size; p++) {
            MPI_Irecv(rbuf + (size_t)p * LEN, LEN, MPI_BYTE, p, round, MPI_COMM_WORLD, &reqs[p]);
        }
        for (int p = 0; p < size; p++) {
            fill(sbuf + (size_t)p * LEN, LEN, (unsigned)(rank * 100 + p + round));
            MPI_Isend(sbuf + (size_t)p * LEN, LEN, MPI_BYTE, p, round, MPI_COMM_WORLD,
                      &reqs[size + p]);
        }
        MPI_Waitall(2 * size, reqs, MPI_STATUSES_IGNORE);
        for (int p = 0; p < size; p++)
            verify(rbuf + (size_t)p * LEN, LEN, (unsigned)(p * 100 + rank + round), "alltoall");
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
}

/* 10,000 back-to-back MPI_Isend from rank 0 to rank 1, receives posted late: flow control must
 * hold the sender back instead of overrunning the receiver, and every byte must arrive. */
static void test_flood(void)
{
    enum { N = 10000, LEN = 64 };
    unsigned char *sbuf, *rbuf;
    MPI_Request *reqs;

    if (size < 2 || rank > 1)
        return;
    sbuf = malloc((size_t)N * LEN);
    rbuf = malloc((size_t)N * LEN);
    reqs = malloc(sizeof(MPI_Request) * N);
    if (rank == 0) {
        for (int i = 0; i < N; i++) {
            fill(sbuf + (size_t)i * LEN, LEN, (unsigned)i);
            MPI_Isend(sbuf + (size_t)i * LEN, LEN, MPI_BYTE, 1, 11, MPI_COMM_WORLD, &reqs[i]);
        }
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
    } else {
        sleep_ms(200);
        for (int i = 0; i < N; i++)
            MPI_Irecv(rbuf + (size_t)i * LEN, LEN, MPI_BYTE, 0, 11, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++)
            verify(rbuf + (size_t)i * LEN, LEN, (unsigned)i, "flood");
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
}

/* Probe reports size and source before the receive; Iprobe, Mprobe/Mrecv, Improbe/Imrecv. */
static void test_probe(void)
{
    unsigned char buf[50000];
    MPI_Status st;
    MPI_Message msg;
    MPI_Request req;
    int count, flag;

    if (size < 2)
        return;
    if (rank == 0) {
        size_t lens[4] = {10, 33000, 0, 777};
        for (int i = 0; i < 4; i++) {
            fill(buf, lens[i], (unsigned)(50 + i));
            MPI_Send(buf, (int)lens[i], MPI_BYTE, 1, 20 + i, MPI_COMM_WORLD);
        }
    } else if (rank == 1) {
        MPI_Probe(0, 20, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == 10 && st.MPI_SOURCE == 0 && st.MPI_TAG == 20);
        MPI_Recv(buf, count, MPI_BYTE, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        verify(buf, 10, 50, "probe+recv");

        do
            MPI_Iprobe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &flag, &st);
        while (!flag);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == 33000);
        MPI_Mprobe(0, 21, MPI_COMM_WORLD, &msg, &st);
        CHECK(msg != MPI_MESSAGE_NULL);
        MPI_Mrecv(buf, count, MPI_BYTE, &msg, &st);
        CHECK(msg == MPI_MESSAGE_NULL);
        verify(buf, 33000, 51, "mprobe+mrecv");

        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 22);
        do
            MPI_Improbe(0, 22, MPI_COMM_WORLD, &flag, &msg, &st);
        while (!flag);
        MPI_Imrecv(buf, 0, MPI_BYTE, &msg, &req);
        MPI_Wait(&req, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == 0 && st.MPI_TAG == 22);

        MPI_Recv(buf, sizeof(buf), MPI_BYTE, 0, 23, MPI_COMM_WORLD, &st);
        verify(buf, 777, 53, "recv after probes");
        /* MPI_PROC_NULL probes answer at once. */
        MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
    }
}

/* MPI_Ssend completes only once the receiver has matched it. */
static void test_ssend(void)
{
    int v = 42, go = 1, flag = 0;
    MPI_Request req;

    if (size < 2 || rank > 1)
        return;
    for (int round = 0; round < 2; round++) {
        size_t len = round == 0 ? sizeof(int) : 20000;
        unsigned char *buf = malloc(len);
        if (rank == 0) {
            fill(buf, len, 77);
            MPI_Issend(buf, (int)len, MPI_BYTE, 1, 30, MPI_COMM_WORLD, &req);
            for (int i = 0; i < 50; i++) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                if (flag)
                    FAIL("MPI_Issend completed before the receive was posted");
                sleep_ms(4);
            }
            MPI_Send(&go, 1, MPI_INT, 1, 31, MPI_COMM_WORLD);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            MPI_Ssend(&v, 1, MPI_INT, 1, 32, MPI_COMM_WORLD); /* blocking form */
        } else {
            MPI_Recv(&go, 1, MPI_INT, 0, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(buf, (int)len, MPI_BYTE, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            verify(buf, len, 77, "ssend");
            MPI_Recv(&v, 1, MPI_INT, 0, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == 42);
        }
        free(buf);
    }
}

/* Messages to oneself, in every mode, need no NIC. */
static void test_self(void)
{
    unsigned char s[5000], r[5000];
    MPI_Request rq, sq;
    MPI_Status st;
    int count, flag;

    fill(s, sizeof(s), 60);
    MPI_Isend(s, sizeof(s), MPI_BYTE, rank, 40, MPI_COMM_WORLD, &sq); /* unexpected first */
    MPI_Recv(r, sizeof(r), MPI_BYTE, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &st);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);
    CHECK(st.MPI_SOURCE == rank);
    verify(r, sizeof(r), 60, "self unexpected");

    MPI_Irecv(r, sizeof(r), MPI_BYTE, rank, 41, MPI_COMM_WORLD, &rq); /* posted first */
    fill(s, 100, 61);
    MPI_Ssend(s, 100, MPI_BYTE, rank, 41, MPI_COMM_WORLD);
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 100);
    verify(r, 100, 61, "self ssend");

    /* MPI_COMM_SELF: rank 0 of 1. */
    fill(s, 10, 62);
    MPI_Sendrecv(s, 10, MPI_BYTE, 0, 42, r, 10, MPI_BYTE, 0, 42, MPI_COMM_SELF, &st);
    verify(r, 10, 62, "comm_self sendrecv");

    /* An Issend to self stays incomplete until the receive is posted. */
    MPI_Issend(s, 10, MPI_BYTE, rank, 43, MPI_COMM_WORLD, &sq);
    MPI_Test(&sq, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag);
    MPI_Recv(r, 10, MPI_BYTE, rank, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);

    /* MPI_PROC_NULL sends and receives complete at once. */
    MPI_Send(s, 10, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(r, 10, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
}

/* The rest of the API: Bsend, Sendrecv(_replace), Wait/Test families, Cancel, Request_free,
 * counts of typed and pair data, Barrier. */
static void test_misc(void)
{
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    double d[100], e[100];
    struct {
        double v;
        int i;
    } pairs[10], pin[10];
    MPI_Request reqs[4];
    MPI_Status st, sts[4];
    int count, idx, flag, outcount, indices[4];
    MPI_Count xcount;
    void *bbuf, *det;
    int bsize;

    /* Typed data and counts. */
    for (int i = 0; i < 100; i++)
        d[i] = rank * 1000.0 + i + 0.25;
    MPI_Sendrecv(d, 100, MPI_DOUBLE, peer, 50, e, 100, MPI_DOUBLE, from, 50, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 100; i++)
        CHECK(e[i] == from * 1000.0 + i + 0.25);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 100);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 200);
    MPI_Get_elements_x(&st, MPI_DOUBLE, &xcount);
    CHECK(xcount == 100);
    for (int i = 0; i < 10; i++) {
        pairs[i].v = rank + i * 0.5;
        pairs[i].i = i;
    }
    MPI_Sendrecv(pairs, 10, MPI_DOUBLE_INT, peer, 51, pin, 10, MPI_DOUBLE_INT, from, 51,
                 MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE_INT, &count);
    CHECK(count == 10);
    MPI_Get_elements(&st, MPI_DOUBLE_INT, &count);
    CHECK(count == 20);
    for (int i = 0; i < 10; i++)
        CHECK(pin[i].v == from + i * 0.5 && pin[i].i == i);
    MPI_Type_size(MPI_DOUBLE_INT, &count);
    CHECK(count == (int)(sizeof(double) + sizeof(int)));

    /* Sendrecv_replace. */
    for (int i = 0; i < 100; i++)
        d[i] = rank + i;
    MPI_Sendrecv_replace(d, 100, MPI_DOUBLE, peer, 52, from, 52, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 100; i++)
        CHECK(d[i] == from + i);

    /* Buffered sends: the buffer may be reused as soon as Bsend returns. */
    bsize = 3 * (800 + MPI_BSEND_OVERHEAD);
    bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 100; k++)
            d[k] = i * 10000 + rank * 100 + k;
        MPI_Bsend(d, 100, MPI_DOUBLE, peer, 53, MPI_COMM_WORLD);
        memset(d, 0, sizeof(d));
    }
    for (int i = 0; i < 3; i++) {
        MPI_Recv(e, 100, MPI_DOUBLE, from, 53, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < 100; k++)
            CHECK(e[k] == i * 10000 + from * 100 + k);
    }
    MPI_Buffer_detach(&det, &bsize);
    CHECK(det == bbuf && bsize == 3 * (800 + MPI_BSEND_OVERHEAD));
    free(bbuf);

    /* Waitany / Testsome / Testall / Testany over mixed requests. */
    MPI_Irecv(&count, 1, MPI_INT, from, 54, MPI_COMM_WORLD, &reqs[0]);
    reqs[1] = MPI_REQUEST_NULL;
    idx = rank;
    MPI_Isend(&idx, 1, MPI_INT, peer, 54, MPI_COMM_WORLD, &reqs[2]);
    for (int done = 0; done < 2; done++) {
        MPI_Waitany(3, reqs, &idx, &st);
        CHECK(idx == 0 || idx == 2);
        if (idx == 0)
            CHECK(count == from && st.MPI_SOURCE == from);
    }
    MPI_Waitany(3, reqs, &idx, &st);
    CHECK(idx == MPI_UNDEFINED);
    MPI_Testall(3, reqs, &flag, MPI_STATUSES_IGNORE);
    CHECK(flag);
    MPI_Testany(3, reqs, &idx, &flag, &st);
    CHECK(flag && idx == MPI_UNDEFINED);

    MPI_Irecv(&count, 1, MPI_INT, from, 55, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&rank, 1, MPI_INT, peer, 55, MPI_COMM_WORLD, &reqs[1]);
    for (int got = 0; got < 2;) {
        MPI_Testsome(2, reqs, &outcount, indices, sts);
        CHECK(outcount != MPI_UNDEFINED);
        got += outcount;
    }
    CHECK(count == from);
    MPI_Waitsome(2, reqs, &outcount, indices, sts);
    CHECK(outcount == MPI_UNDEFINED);

    /* Cancel an unmatched receive; a matched one is not cancelled. */
    MPI_Irecv(&count, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &reqs[0]);
    MPI_Cancel(&reqs[0]);
    MPI_Wait(&reqs[0], &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag);

    /* A freed send still delivers. */
    idx = rank + 500;
    MPI_Isend(&idx, 1, MPI_INT, peer, 56, MPI_COMM_WORLD, &reqs[0]);
    MPI_Request_free(&reqs[0]);
    CHECK(reqs[0] == MPI_REQUEST_NULL);
    MPI_Recv(&count, 1, MPI_INT, from, 56, MPI_COMM_WORLD, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(count == from + 500 && !flag);

    for (int i = 0; i < 20; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

/* Barrier really waits for everyone: the slow rank notes when it arrives (all ranks share the
 * node's monotonic clock), and nobody may have left before that. */
static void test_barrier(void)
{
    for (int round = 0; round < 3; round++) {
        int slow = round % size;
        double arrived = 0, left;
        if (rank == slow) {
            sleep_ms(150);
            arrived = MPI_Wtime();
        }
        MPI_Barrier(MPI_COMM_WORLD);
        left = MPI_Wtime();
        if (rank == slow) {
            for (int p = 0; p < size; p++) {
                if (p != rank)
                    MPI_Send(&arrived, 1, MPI_DOUBLE, p, 60, MPI_COMM_WORLD);
            }
        } else {
            MPI_Recv(&arrived, 1, MPI_DOUBLE, slow, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (left < arrived)
            FAIL("left barrier %d %.6f s before rank %d arrived", round, arrived - left, slow);
    }
}

static const mpitest_t tests[] = {
    {"pingpong", test_pingpong}, {"wildcards", test_wildcards}, {"ordering", test_ordering},
    {"truncate", test_truncate}, {"alltoall", test_alltoall},   {"flood", test_flood},
    {"probe", test_probe},       {"ssend", test_ssend},         {"self", test_self},
    {"misc", test_misc},         {"barrier", test_barrier},
};

int main(int argc, char **argv)
{
    const char *max = getenv("P2P_MAX_SIZE");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (max != NULL)
        eager_probe_max = strtoull(max, NULL, 0);
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    MPI_Finalize();
    return 0;
}
