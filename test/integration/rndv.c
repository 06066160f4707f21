/* Large messages: the rendezvous protocols (over ib: RTS, CTS, RDMA WRITE, FIN; over shm: RTS,
 * a CMA read and DONE, or CTS and RDATA through the rings) and the registration cache, each
 * subtest verifying payloads byte for byte. Usage:
 *   rndv TEST [TEST...]   (or "all"); each prints "rndv TEST: ok (N ranks) in T s" on rank 0 or
 *                         fails loudly (exit 2 through MPI_Abort).
 * Sizes around the eager limit and the rendezvous threshold follow VBT_EAGER_LIMIT and
 * VBT_RNDV_THRESHOLD when set (VBT_SHM_RNDV_THRESHOLD when VBT_TRANSPORTS has no ib; else the
 * defaults); RNDV_MAX_SIZE caps "sizes" (16 MiB);
 * RNDV_KEEP_GOING=1 makes "stale" report every wrong transfer before failing. Tests that need
 * two ranks skip themselves at size 1; "evict" expects a small VBT_RCACHE_MAX (suite_rndv.sh
 * sets it). */
#define _GNU_SOURCE
#include <ctype.h>
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MPITEST_NAME "rndv"
#include "mpitest.h"

static size_t eager_limit = 8192;     /* VBT_EAGER_LIMIT's default */
static size_t rndv_threshold = 32768; /* VBT_RNDV_THRESHOLD's default */
static size_t max_size;               /* "sizes" goes up to this (RNDV_MAX_SIZE, 16 MiB) */

#define MIB       ((size_t)1 << 20)
#define MAX_SIZE  (16 * MIB)
#define GUARD     64
#define GUARD_VAL 0xEE

static void guard_set(unsigned char *p)
{
    memset(p, GUARD_VAL, GUARD);
}

static void guard_check(const unsigned char *p, const char *what)
{
    for (int i = 0; i < GUARD; i++) {
        if (p[i] != GUARD_VAL)
            FAIL("%s: byte %d past the buffer was overwritten", what, i);
    }
}

static size_t get_count(const MPI_Status *st)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    return (size_t)n;
}

/* ---- every size ------------------------------------------------------------------------------ */

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* 0 B to 16 MiB: powers of two, their neighbours up to 1 MiB, every size around the eager
 * limit (the header's size is not known here) and the threshold, and a few odd large ones;
 * buffers at odd offsets so registrations start and end inside pages. Both directions. */
static void test_sizes(void)
{
    size_t sizes[400], n = 0;
    unsigned char *sbuf, *rbuf;

    if (size < 2 || rank > 1)
        return;
    sizes[n++] = 0;
    for (size_t p = 1; p <= max_size; p *= 2) {
        sizes[n++] = p;
        if (p >= 4096 && p <= MIB) {
            sizes[n++] = p - 1;
            sizes[n++] = p + 1;
        }
    }
    for (size_t s = eager_limit - 72; s <= eager_limit + 8; s++)
        sizes[n++] = s;
    for (size_t s = rndv_threshold - 2; s <= rndv_threshold + 2; s++)
        sizes[n++] = s;
    if (max_size > 4 * MIB) {
        sizes[n++] = 3 * MIB + 5;
        sizes[n++] = max_size - 1;
    }
    qsort(sizes, n, sizeof(sizes[0]), cmp_size);

    sbuf = xmalloc(max_size + 8);
    rbuf = xmalloc(max_size + 8 + GUARD);
    for (size_t k = 0; k < n; k++) {
        size_t len = sizes[k];
        unsigned seed = (unsigned)k;
        unsigned char *s = sbuf + k % 8, *r = rbuf + (k * 3) % 8;
        MPI_Status st;

        if (k > 0 && len == sizes[k - 1])
            continue;
        guard_set(r + len);
        if (rank == 0) {
            fill(s, len, seed);
            MPI_Send(s, (int)len, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(r, (int)len, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &st);
            CHECK(get_count(&st) == len && st.MPI_SOURCE == 1 && st.MPI_TAG == 8);
            verify(r, len, seed + 1000, "sizes (reply)");
        } else {
            MPI_Recv(r, (int)len, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
            CHECK(get_count(&st) == len && st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
            verify(r, len, seed, "sizes");
            fill(s, len, seed + 1000);
            MPI_Send(s, (int)len, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        }
        guard_check(r + len, "sizes");
    }
    free(sbuf);
    free(rbuf);
}

/* ---- many at once ---------------------------------------------------------------------------- */

/* Ranks 0 and 1 each post NMSG receives and NMSG sends of mixed sizes (large and small,
 * interleaved) towards each other at once; then several large messages with one tag must
 * match in the order sent. */
static void test_concurrent(void)
{
    enum { NMSG = 12 };
    size_t lens[NMSG], total = 0, off[NMSG];
    unsigned char *sbuf, *rbuf, *big[4];
    MPI_Request reqs[2 * NMSG];
    MPI_Status sts[2 * NMSG];
    int peer = 1 - rank;

    if (size < 2 || rank > 1)
        return;
    for (int i = 0; i < NMSG; i++) {
        lens[i] = i % 3 == 2 ? (size_t)(100 + i) : (size_t)(64 * 1024) << (i % 6);
        off[i] = total;
        total += lens[i];
    }
    sbuf = xmalloc(total);
    rbuf = xmalloc(total);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < NMSG; i++)
            MPI_Irecv(rbuf + off[i], (int)lens[i], MPI_BYTE, peer, 100 + i, MPI_COMM_WORLD,
                      &reqs[i]);
        for (int i = 0; i < NMSG; i++) {
            fill(sbuf + off[i], lens[i], (unsigned)(rank * 100 + i + round * 7));
            MPI_Isend(sbuf + off[i], (int)lens[i], MPI_BYTE, peer, 100 + i, MPI_COMM_WORLD,
                      &reqs[NMSG + i]);
        }
        MPI_Waitall(2 * NMSG, reqs, sts);
        for (int i = 0; i < NMSG; i++) {
            CHECK(get_count(&sts[i]) == lens[i]);
            verify(rbuf + off[i], lens[i], (unsigned)(peer * 100 + i + round * 7), "concurrent");
        }
    }
    /* Non-overtaking: same source, same tag, large and small mixed. */
    for (int i = 0; i < 4; i++)
        big[i] = xmalloc(2 * MIB);
    if (rank == 0) {
        size_t l[4] = {2 * MIB, 300, MIB + 3, 200 * 1024};
        for (int i = 0; i < 4; i++) {
            fill(big[i], l[i], (unsigned)(50 + i));
            MPI_Isend(big[i], (int)l[i], MPI_BYTE, 1, 99, MPI_COMM_WORLD, &reqs[i]);
        }
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    } else {
        size_t l[4] = {2 * MIB, 300, MIB + 3, 200 * 1024};
        for (int i = 0; i < 4; i++)
            MPI_Irecv(big[i], (int)(2 * MIB), MPI_BYTE, 0, 99, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(4, reqs, sts);
        for (int i = 0; i < 4; i++) {
            CHECK(get_count(&sts[i]) == l[i]);
            verify(big[i], l[i], (unsigned)(50 + i), "same-tag order");
        }
    }
    for (int i = 0; i < 4; i++)
        free(big[i]);
    free(sbuf);
    free(rbuf);
}

/* ---- the receive after the RTS --------------------------------------------------------------- */

static void test_late(void)
{
    size_t len = 3 * MIB + 17;
    unsigned char *a, *b;
    MPI_Request reqs[2];
    MPI_Status st;

    if (size < 2 || rank > 1)
        return;
    a = xmalloc(len);
    b = xmalloc(len);
    if (rank == 0) {
        fill(a, len, 31);
        fill(b, len, 32);
        /* Both RTSs go at once, long before the receives. */
        MPI_Isend(a, (int)len, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(b, (int)len, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        fill(a, len, 33);
        MPI_Send(a, (int)len, MPI_BYTE, 1, 7, MPI_COMM_WORLD); /* blocking, receive late */
    } else {
        sleep_ms(300);
        memset(a, 0, len);
        MPI_Recv(a, (int)len, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
        CHECK(get_count(&st) == len);
        verify(a, len, 31, "late receive");
        memset(b, 0, len);
        MPI_Irecv(b, (int)len, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]);
        MPI_Wait(&reqs[0], &st);
        CHECK(st.MPI_TAG == 6 && st.MPI_SOURCE == 0 && get_count(&st) == len);
        verify(b, len, 32, "late receive (any source, any tag)");
        sleep_ms(200);
        MPI_Recv(a, (int)len, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
        verify(a, len, 33, "late receive (blocking send)");
    }
    free(a);
    free(b);
}

/* ---- MPI_ANY_SOURCE -------------------------------------------------------------------------- */

/* Every other rank sends rank 0 a large message of its own size; rank 0 takes them with
 * MPI_ANY_SOURCE, first posted before they arrive, then after (unexpected). */
static void test_anysrc(void)
{
    size_t maxlen = 2 * MIB;
    unsigned char *buf = xmalloc(maxlen);
    MPI_Status st;

    if (size < 2) {
        free(buf);
        return;
    }
    for (int round = 0; round < 2; round++) {
        if (rank != 0) {
            size_t len = MIB / 2 + (size_t)rank * 100003;
            MPI_Request req;
            fill(buf, len, (unsigned)(rank + 10 * round));
            if (round == 0)
                MPI_Barrier(MPI_COMM_WORLD); /* rank 0's receives are posted */
            /* A large send completes only once received: not before the barrier. */
            MPI_Isend(buf, (int)len, MPI_BYTE, 0, 40 + round, MPI_COMM_WORLD, &req);
            if (round == 1)
                MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            int seen[64] = {0};
            MPI_Request reqs[64];
            unsigned char *rb[64];
            if (round == 0) {
                for (int i = 1; i < size; i++) {
                    rb[i] = xmalloc(maxlen);
                    MPI_Irecv(rb[i], (int)maxlen, MPI_BYTE, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD,
                              &reqs[i]);
                }
                MPI_Barrier(MPI_COMM_WORLD);
                for (int i = 1; i < size; i++) {
                    MPI_Wait(&reqs[i], &st);
                    CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size && !seen[st.MPI_SOURCE]);
                    seen[st.MPI_SOURCE] = 1;
                    CHECK(get_count(&st) == MIB / 2 + (size_t)st.MPI_SOURCE * 100003);
                    verify(rb[i], get_count(&st), (unsigned)st.MPI_SOURCE, "any-source posted");
                    free(rb[i]);
                }
            } else {
                MPI_Barrier(MPI_COMM_WORLD); /* every RTS was sent before: unexpected */
                sleep_ms(100);
                for (int i = 1; i < size; i++) {
                    MPI_Recv(buf, (int)maxlen, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                             MPI_COMM_WORLD, &st);
                    CHECK(st.MPI_TAG == 41 && !seen[st.MPI_SOURCE]);
                    seen[st.MPI_SOURCE] = 1;
                    CHECK(get_count(&st) == MIB / 2 + (size_t)st.MPI_SOURCE * 100003);
                    verify(buf, get_count(&st), (unsigned)(st.MPI_SOURCE + 10),
                           "any-source unexpected");
                }
            }
        }
    }
    free(buf);
}

/* ---- probes ---------------------------------------------------------------------------------- */

static void test_probe(void)
{
    size_t lens[4] = {2 * MIB + 1, MIB, 700 * 1024, 5 * MIB};
    unsigned char *buf = xmalloc(5 * MIB);
    MPI_Message msg;
    MPI_Request req;
    MPI_Status st;
    int flag;

    if (size < 2 || rank > 1) {
        free(buf);
        return;
    }
    if (rank == 0) {
        /* Non-blocking: a large MPI_Send would wait for its receive, which waits for probes of
         * the later messages. */
        unsigned char *sb[4];
        MPI_Request reqs[4];
        for (int i = 0; i < 4; i++) {
            sb[i] = xmalloc(lens[i]);
            fill(sb[i], lens[i], (unsigned)(60 + i));
            MPI_Isend(sb[i], (int)lens[i], MPI_BYTE, 1, 20 + i, MPI_COMM_WORLD, &reqs[i]);
        }
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 4; i++)
            free(sb[i]);
    } else {
        /* Probe reports the full size of a message still at the sender. */
        MPI_Probe(0, 20, MPI_COMM_WORLD, &st);
        CHECK(get_count(&st) == lens[0] && st.MPI_SOURCE == 0 && st.MPI_TAG == 20);
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* still the same one */
        CHECK(st.MPI_TAG == 20 && get_count(&st) == lens[0]);
        MPI_Recv(buf, (int)get_count(&st), MPI_BYTE, 0, 20, MPI_COMM_WORLD, &st);
        verify(buf, lens[0], 60, "probe + recv");

        do
            MPI_Iprobe(0, 21, MPI_COMM_WORLD, &flag, &st);
        while (!flag);
        CHECK(get_count(&st) == lens[1]);
        MPI_Mprobe(0, 21, MPI_COMM_WORLD, &msg, &st);
        CHECK(get_count(&st) == lens[1]);
        /* Another probe must not see a message taken by MPI_Mprobe. */
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 22);
        MPI_Mrecv(buf, (int)lens[1], MPI_BYTE, &msg, &st);
        CHECK(msg == MPI_MESSAGE_NULL && get_count(&st) == lens[1]);
        verify(buf, lens[1], 61, "mprobe + mrecv");

        do
            MPI_Improbe(0, 22, MPI_COMM_WORLD, &flag, &msg, &st);
        while (!flag);
        CHECK(get_count(&st) == lens[2]);
        MPI_Imrecv(buf, (int)lens[2], MPI_BYTE, &msg, &req);
        MPI_Wait(&req, &st);
        CHECK(get_count(&st) == lens[2]);
        verify(buf, lens[2], 62, "improbe + imrecv");

        MPI_Mprobe(0, 23, MPI_COMM_WORLD, &msg, &st);
        CHECK(get_count(&st) == lens[3]);
        MPI_Mrecv(buf, (int)lens[3], MPI_BYTE, &msg, &st);
        verify(buf, lens[3], 63, "mprobe + mrecv (5 MiB)");
    }
    free(buf);
}

/* ---- synchronous sends ----------------------------------------------------------------------- */

static void test_ssend(void)
{
    size_t len = 2 * MIB + 3;
    unsigned char *buf;
    MPI_Request req;
    int go = 1, flag = 0;

    if (size < 2 || rank > 1)
        return;
    buf = xmalloc(len);
    if (rank == 0) {
        fill(buf, len, 71);
        MPI_Issend(buf, (int)len, MPI_BYTE, 1, 30, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 60; i++) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            if (flag)
                FAIL("a large MPI_Issend completed before the receive was posted");
            sleep_ms(5);
        }
        MPI_Send(&go, 1, MPI_INT, 1, 31, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        fill(buf, len, 72);
        MPI_Ssend(buf, (int)len, MPI_BYTE, 1, 32, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, (int)len, MPI_BYTE, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        verify(buf, len, 71, "issend");
        sleep_ms(100);
        MPI_Recv(buf, (int)len, MPI_BYTE, 0, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        verify(buf, len, 72, "ssend");
    }
    free(buf);
}

/* ---- truncation ------------------------------------------------------------------------------ */

/* A large message into a smaller buffer (tiny, large, empty; receive posted first and late):
 * MPI_ERR_TRUNCATE, the buffer holds the message's first bytes, nothing past it is written,
 * and the next message arrives intact. */
static void test_truncate(void)
{
    size_t sent = 3 * MIB, caps[4] = {100, MIB + 5, 0, 200 * 1024};
    unsigned char *buf;
    MPI_Status st;
    int rc, eclass;

    if (size < 2 || rank > 1)
        return;
    buf = xmalloc(sent + GUARD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < 4; i++) {
        if (rank == 0) {
            fill(buf, sent, (unsigned)(80 + i));
            MPI_Send(buf, (int)sent, MPI_BYTE, 1, 50, MPI_COMM_WORLD);
            fill(buf, 1000, (unsigned)(90 + i));
            MPI_Send(buf, 1000, MPI_BYTE, 1, 51, MPI_COMM_WORLD);
        } else {
            MPI_Request req;
            memset(buf, GUARD_VAL, caps[i] + GUARD);
            if (i % 2 == 0) {
                MPI_Irecv(buf, (int)caps[i], MPI_BYTE, 0, 50, MPI_COMM_WORLD, &req);
                rc = MPI_Wait(&req, &st);
            } else {
                sleep_ms(100); /* unexpected */
                rc = MPI_Recv(buf, (int)caps[i], MPI_BYTE, 0, 50, MPI_COMM_WORLD, &st);
            }
            MPI_Error_class(rc, &eclass);
            CHECK(eclass == MPI_ERR_TRUNCATE);
            CHECK(get_count(&st) == caps[i]);
            verify(buf, caps[i], (unsigned)(80 + i), "truncated prefix");
            guard_check(buf + caps[i], "truncation");
            rc = MPI_Recv(buf, 1000, MPI_BYTE, 0, 51, MPI_COMM_WORLD, &st);
            CHECK(rc == MPI_SUCCESS);
            verify(buf, 1000, (unsigned)(90 + i), "message after a truncated one");
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(buf);
}

/* ---- cancel ---------------------------------------------------------------------------------- */

static void test_cancel(void)
{
    size_t len = MIB;
    unsigned char *buf, *other;
    MPI_Request req;
    MPI_Status st;
    int flag;

    if (size < 2 || rank > 1)
        return;
    buf = xmalloc(len);
    other = xmalloc(len);
    if (rank == 1) {
        MPI_Irecv(other, (int)len, MPI_BYTE, MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(buf, len, 101);
        MPI_Send(buf, (int)len, MPI_BYTE, 1, 60, MPI_COMM_WORLD);
    } else {
        /* The cancelled receive took nothing: this one gets the message. */
        MPI_Recv(buf, (int)len, MPI_BYTE, 0, 60, MPI_COMM_WORLD, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag && get_count(&st) == len);
        verify(buf, len, 101, "after cancel");
    }
    free(buf);
    free(other);
}

/* ---- stale registrations --------------------------------------------------------------------- */

/* The buffer on one side dies and new memory appears at the same address between two
 * transfers; the second must carry (send side) or land in (receive side) the new memory. */
enum { V_MUNMAP, V_MAP_FIXED, V_MADVISE, V_MALLOC, V_HEAP, NVARIANT };
static const char *const vname[NVARIANT] = {
    "munmap + mmap at the same address", "mmap MAP_FIXED over the buffer", "madvise(MADV_DONTNEED)",
    "free + malloc of an mmap-backed block", "free + malloc of a heap block (trimmed)"};
#define STALE_LEN MIB

static unsigned char *variant_alloc(int v)
{
    unsigned char *p;

    if (v == V_MALLOC || v == V_HEAP) {
        /* Fixing the thresholds also stops glibc's dynamic mmap threshold from moving. */
        mallopt(M_MMAP_THRESHOLD, v == V_MALLOC ? 128 * 1024 : 64 * 1024 * 1024);
        mallopt(M_TRIM_THRESHOLD, 128 * 1024);
        p = xmalloc(STALE_LEN);
    } else {
        p = mmap(NULL, STALE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            FAIL("mmap: %m");
    }
    return p;
}

/* The old memory at p goes; new memory at the same address comes. */
static void variant_replace(int v, unsigned char *p)
{
    void *q = p;

    switch (v) {
    case V_MUNMAP:
        if (munmap(p, STALE_LEN) != 0)
            FAIL("munmap: %m");
        q = mmap(p, STALE_LEN, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        break;
    case V_MAP_FIXED:
        q = mmap(p, STALE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0);
        break;
    case V_MADVISE:
        if (madvise(p, STALE_LEN, MADV_DONTNEED) != 0)
            FAIL("madvise: %m");
        break;
    default:
        free(p);
        q = xmalloc(STALE_LEN);
        break;
    }
    if (q != p)
        FAIL("%s: new memory at %p, not at the old address %p: the test would prove nothing",
             vname[v], q, (void *)p);
}

static void variant_free(int v, unsigned char *p)
{
    if (v == V_MALLOC || v == V_HEAP) {
        free(p);
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    } else {
        munmap(p, STALE_LEN);
    }
}

/* RNDV_KEEP_GOING=1: report every wrong transfer of "stale" and fail at the end, instead of
 * stopping at the first (to see that each case fails when invalidation is switched off). */
static int keep_going, stale_wrong;

/* One transfer 0 -> 1 of STALE_LEN bytes, verified at rank 1. */
static void stale_transfer(unsigned char *buf, unsigned seed, const char *what)
{
    if (rank == 0) {
        fill(buf, STALE_LEN, seed);
        MPI_Send(buf, (int)STALE_LEN, MPI_BYTE, 1, 70, MPI_COMM_WORLD);
    } else {
        memset(buf, 0x5A, STALE_LEN);
        MPI_Recv(buf, (int)STALE_LEN, MPI_BYTE, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!keep_going) {
            verify(buf, STALE_LEN, seed, what);
            return;
        }
        for (size_t i = 0; i < STALE_LEN; i++) {
            if (buf[i] != pattern(seed, i)) {
                printf("rndv: WRONG: %s: byte %zu is 0x%02x, expected 0x%02x\n", what, i, buf[i],
                       pattern(seed, i));
                stale_wrong++;
                break;
            }
        }
    }
}

static void test_stale(void)
{
    unsigned char *fixed;
    char what[160];

    if (size < 2 || rank > 1)
        return;
    fixed = xmalloc(STALE_LEN);
    stale_transfer(fixed, 1, "stale warm-up"); /* the library's own allocations happen now */
    for (int side = 0; side < 2; side++) {
        for (int v = 0; v < NVARIANT; v++) {
            int mine = rank == side; /* side 0: the sender's buffer changes; 1: the receiver's */
            unsigned char *buf;
            unsigned seed = (unsigned)(side * 20 + v * 2 + 2);

#ifdef __SANITIZE_ADDRESS__
            /* test/integration/sanitizers.sh: ASan's allocator keeps freed blocks in
             * quarantine, so a new block never lands where the old one was. */
            if (v == V_MALLOC || v == V_HEAP)
                continue;
#endif
            buf = mine ? variant_alloc(v) : fixed;
            snprintf(what, sizeof(what), "%s side, %s, before", side ? "receive" : "send",
                     vname[v]);
            stale_transfer(buf, seed, what);
            if (mine)
                variant_replace(v, buf);
            snprintf(what, sizeof(what), "%s side, %s, after", side ? "receive" : "send", vname[v]);
            stale_transfer(buf, seed + 1, what);
            if (mine)
                variant_free(v, buf);
        }
    }
    free(fixed);
    if (stale_wrong > 0)
        FAIL("stale: %d of %d transfers carried the wrong bytes", stale_wrong, 1 + 4 * NVARIANT);
}

/* ---- eviction -------------------------------------------------------------------------------- */

/* Run with a small VBT_RCACHE_MAX: cycling through more buffers than the cache holds, on both
 * sides, evicts and re-registers, and every byte stays right. */
static void test_evict(void)
{
    enum { NBUF = 6 };
    size_t len = MIB;
    unsigned char *bufs[NBUF];

    if (size < 2 || rank > 1)
        return;
    for (int i = 0; i < NBUF; i++)
        bufs[i] = xmalloc(len);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < NBUF; i++) {
            unsigned seed = (unsigned)(round * NBUF + i);
            unsigned char *b = bufs[(i * 5 + round) % NBUF];
            if (rank == (round & 1)) {
                fill(b, len, seed);
                MPI_Send(b, (int)len, MPI_BYTE, 1 - rank, 80, MPI_COMM_WORLD);
            } else {
                memset(b, 0, len);
                MPI_Recv(b, (int)len, MPI_BYTE, 1 - rank, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                verify(b, len, seed, "evict");
            }
        }
    }
    for (int i = 0; i < NBUF; i++)
        free(bufs[i]);
}

/* ---- the rest -------------------------------------------------------------------------------- */

/* Large messages to oneself use the self path; read-only memory can be sent from; Bsend and
 * Sendrecv_replace of large messages. */
static void test_misc(void)
{
    size_t len = 4 * MIB + 1;
    unsigned char *s = xmalloc(len), *r = xmalloc(len), *ro;
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Request rq, sq;
    MPI_Status st;
    void *bbuf;
    int bsize;

    fill(s, len, 110);
    MPI_Isend(s, (int)len, MPI_BYTE, rank, 90, MPI_COMM_WORLD, &sq); /* self, unexpected */
    MPI_Recv(r, (int)len, MPI_BYTE, MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, &st);
    MPI_Wait(&sq, MPI_STATUS_IGNORE);
    CHECK(st.MPI_SOURCE == rank && get_count(&st) == len);
    verify(r, len, 110, "self");
    MPI_Irecv(r, (int)len, MPI_BYTE, rank, 91, MPI_COMM_WORLD, &rq); /* self, posted, sync */
    fill(s, len, 111);
    MPI_Ssend(s, (int)len, MPI_BYTE, rank, 91, MPI_COMM_WORLD);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    verify(r, len, 111, "self ssend");

    if (size >= 2) {
        /* Read-only memory: registered without write access. */
        size_t rolen = 512 * 1024;
        ro = mmap(NULL, rolen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(ro != MAP_FAILED);
        fill(ro, rolen, (unsigned)(112 + rank));
        CHECK(mprotect(ro, rolen, PROT_READ) == 0);
        MPI_Sendrecv(ro, (int)rolen, MPI_BYTE, peer, 92, r, (int)rolen, MPI_BYTE, from, 92,
                     MPI_COMM_WORLD, &st);
        verify(r, rolen, (unsigned)(112 + from), "from read-only memory");
        munmap(ro, rolen);

        fill(s, len, (unsigned)(120 + rank));
        MPI_Sendrecv_replace(s, (int)len, MPI_BYTE, peer, 93, from, 93, MPI_COMM_WORLD, &st);
        verify(s, len, (unsigned)(120 + from), "sendrecv_replace");

        bsize = (int)(len + MPI_BSEND_OVERHEAD);
        bbuf = xmalloc((size_t)bsize);
        MPI_Buffer_attach(bbuf, bsize);
        fill(s, len, (unsigned)(130 + rank));
        MPI_Bsend(s, (int)len, MPI_BYTE, peer, 94, MPI_COMM_WORLD);
        memset(s, 0, len); /* the attached buffer holds it now */
        MPI_Recv(r, (int)len, MPI_BYTE, from, 94, MPI_COMM_WORLD, &st);
        verify(r, len, (unsigned)(130 + from), "bsend");
        MPI_Buffer_detach(&bbuf, &bsize);
        free(bbuf);
    }
    free(s);
    free(r);
}

static const mpitest_t tests[] = {
    {"sizes", test_sizes},       {"concurrent", test_concurrent},
    {"late", test_late},         {"anysrc", test_anysrc},
    {"probe", test_probe},       {"ssend", test_ssend},
    {"truncate", test_truncate}, {"cancel", test_cancel},
    {"stale", test_stale},       {"evict", test_evict},
    {"misc", test_misc},
};

/* A size knob's value the way Verbatim parses it (k, m, g suffixes). */
static size_t size_env(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long n;

    if (v == NULL || *v == '\0')
        return dflt;
    n = strtoull(v, &end, 0);
    switch (tolower((unsigned char)*end)) {
    case 'k':
        n <<= 10;
        break;
    case 'm':
        n <<= 20;
        break;
    case 'g':
        n <<= 30;
        break;
    }
    return (size_t)n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    eager_limit = size_env("VBT_EAGER_LIMIT", eager_limit);
    /* Without ib every peer is on this node: shm's threshold is the one in force. */
    if (getenv("VBT_TRANSPORTS") != NULL && strstr(getenv("VBT_TRANSPORTS"), "ib") == NULL)
        rndv_threshold = size_env("VBT_SHM_RNDV_THRESHOLD", 16384);
    else
        rndv_threshold = size_env("VBT_RNDV_THRESHOLD", rndv_threshold);
    max_size = size_env("RNDV_MAX_SIZE", MAX_SIZE);
    keep_going = getenv("RNDV_KEEP_GOING") != NULL && atoi(getenv("RNDV_KEEP_GOING")) != 0;
    if (max_size > MAX_SIZE || max_size < 8 * eager_limit)
        max_size = MAX_SIZE;
    if (rndv_threshold > MAX_SIZE || rndv_threshold < 4)
        rndv_threshold = MAX_SIZE / 2;
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    MPI_Finalize();
    return 0;
}
