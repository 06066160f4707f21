/* MPI-4 large counts (the _c procedures). "small": every family's _c form at 1-4 ranks with
 * small payloads checked element by element, the int forms' answers next to them, and a
 * negative count refused with an error naming the call. "huge": at 2 ranks, messages of more
 * than 2^31 bytes (MPI_Send_c/MPI_Recv_c, a large contiguous derived type, MPI_Bcast_c,
 * MPI_Allreduce_c of MPI_BYTE with MPI_BOR), checked at both ends and on a sparse sample;
 * MPI_Get_count answers MPI_UNDEFINED where MPI_Get_count_c gives the count. "wide": a count
 * of more than 2^31 bytes of a 16-byte type, for guests too small for "huge" (about 2 GiB a
 * rank less). */
#define MPITEST_NAME "largecount"
#include "mpitest.h"

#include <stdint.h>
#include <unistd.h>

#define HUGE_BYTES (((MPI_Count)1 << 31) + 4096)
#define BIG_ELEMS  2049 /* of a 1 MiB contiguous type: 2^31 + 2^20 bytes */

/* The first and last 64 KiB, and every 4093rd byte between. */
static void verify_sparse(const unsigned char *buf, size_t len, unsigned seed, const char *what)
{
    size_t edge = len < 65536 ? len : 65536;

    for (size_t i = 0; i < edge; i++)
        if (buf[i] != pattern(seed, i))
            FAIL("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, len, buf[i],
                 pattern(seed, i));
    for (size_t i = len - edge; i < len; i++)
        if (buf[i] != pattern(seed, i))
            FAIL("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, len, buf[i],
                 pattern(seed, i));
    for (size_t i = edge; i < len - edge; i += 4093)
        if (buf[i] != pattern(seed, i))
            FAIL("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, len, buf[i],
                 pattern(seed, i));
}

static void *big_alloc(size_t len)
{
    void *p = malloc(len);
    if (p == NULL) {
        if (rank == 0)
            printf("largecount: SKIP: no memory for %zu bytes\n", len);
        MPI_Finalize();
        exit(77);
    }
    return p;
}

static void test_huge(void)
{
    const size_t len = (size_t)1 << 31 | (size_t)1 << 20;
    const MPI_Count n = HUGE_BYTES;
    unsigned char *buf;
    MPI_Datatype mib;
    MPI_Status st;
    MPI_Count cc;
    int ci;

    if (size != 2) {
        if (rank == 0)
            printf("largecount huge: SKIP: runs at 2 ranks (memory)\n");
        return;
    }
    buf = big_alloc(len);
    /* 1. MPI_Send_c / MPI_Recv_c of 2^31 + 4096 bytes. */
    if (rank == 0) {
        fill(buf, (size_t)n, 1);
        CHECK(MPI_Send_c(buf, n, MPI_BYTE, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        memset(buf, 0, (size_t)n);
        CHECK(MPI_Recv_c(buf, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        verify_sparse(buf, (size_t)n, 1, "MPI_Recv_c");
        CHECK(MPI_Get_count(&st, MPI_BYTE, &ci) == MPI_SUCCESS);
        if (ci != MPI_UNDEFINED)
            FAIL("MPI_Get_count of %lld bytes gave %d, not MPI_UNDEFINED", (long long)n, ci);
        CHECK(MPI_Get_elements(&st, MPI_BYTE, &ci) == MPI_SUCCESS && ci == MPI_UNDEFINED);
        CHECK(MPI_Get_count_c(&st, MPI_BYTE, &cc) == MPI_SUCCESS && cc == n);
        CHECK(MPI_Get_elements_c(&st, MPI_BYTE, &cc) == MPI_SUCCESS && cc == n);
        CHECK(MPI_Get_count_c(&st, MPI_INT, &cc) == MPI_SUCCESS && cc == n / 4);
    }
    /* 2. A large contiguous type: an int count of 2049 MiB-sized elements. */
    CHECK(MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&mib) == MPI_SUCCESS);
    CHECK(MPI_Type_size_c(mib, &cc) == MPI_SUCCESS && cc == 1 << 20);
    if (rank == 1) {
        fill(buf, len, 2);
        CHECK(MPI_Send(buf, BIG_ELEMS, mib, 0, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        memset(buf, 0, len);
        CHECK(MPI_Recv(buf, BIG_ELEMS, mib, 1, 6, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        verify_sparse(buf, len, 2, "MPI_Recv of a 1 MiB contiguous type");
        CHECK(MPI_Get_count(&st, mib, &ci) == MPI_SUCCESS && ci == BIG_ELEMS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &ci) == MPI_SUCCESS && ci == MPI_UNDEFINED);
        CHECK(MPI_Get_count_c(&st, MPI_BYTE, &cc) == MPI_SUCCESS && cc == (MPI_Count)len);
    }
    CHECK(MPI_Type_free(&mib) == MPI_SUCCESS);
    /* 3. MPI_Bcast_c from rank 1. */
    if (rank == 1)
        fill(buf, (size_t)n, 3);
    else
        memset(buf, 0, (size_t)n);
    CHECK(MPI_Bcast_c(buf, n, MPI_BYTE, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    verify_sparse(buf, (size_t)n, 3, "MPI_Bcast_c");
    /* 4. MPI_Allreduce_c of MPI_BYTE with MPI_BOR, in place: each rank has half of the bits. */
    fill(buf, (size_t)n, 4);
    for (size_t i = 0; i < (size_t)n; i++)
        buf[i] &= rank == 0 ? 0x5a : 0xa5;
    CHECK(MPI_Allreduce_c(MPI_IN_PLACE, buf, n, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD) == MPI_SUCCESS);
    verify_sparse(buf, (size_t)n, 4, "MPI_Allreduce_c");
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount huge: ok (2 ranks)\n");
}

/* More than 2^31 bytes as a count of a 16-byte type (2^27 + 256 elements): rank 0 to 1. */
static void test_wide(void)
{
    const MPI_Count n = ((MPI_Count)1 << 27) + 256;
    const size_t len = (size_t)n * 16;
    MPI_Datatype t16;
    unsigned char *buf;
    MPI_Status st;
    MPI_Count cc;
    int ci;

    if (size != 2) {
        if (rank == 0)
            printf("largecount wide: SKIP: runs at 2 ranks (memory)\n");
        return;
    }
    CHECK(MPI_Type_contiguous(2, MPI_DOUBLE, &t16) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t16) == MPI_SUCCESS);
    buf = big_alloc(len);
    if (rank == 0) {
        fill(buf, len, 9);
        CHECK(MPI_Send_c(buf, n, t16, 1, 9, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        memset(buf, 0, len);
        CHECK(MPI_Recv_c(buf, n, t16, 0, 9, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        verify_sparse(buf, len, 9, "MPI_Recv_c of a 16-byte type");
        CHECK(MPI_Get_count_c(&st, t16, &cc) == MPI_SUCCESS && cc == n);
        CHECK(MPI_Get_count(&st, t16, &ci) == MPI_SUCCESS && ci == (int)n);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &ci) == MPI_SUCCESS && ci == MPI_UNDEFINED);
        CHECK(MPI_Get_elements_c(&st, t16, &cc) == MPI_SUCCESS && cc == 2 * n);
    }
    free(buf);
    CHECK(MPI_Type_free(&t16) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount wide: ok (2 ranks)\n");
}

/* Element i of rank r's contribution to test t. */
static int val(int t, int r, MPI_Count i)
{
    return t * 100000 + r * 1000 + (int)i;
}

static void test_p2p(MPI_Comm comm, int me, int np)
{
    const MPI_Count n = 37;
    int sbuf[37], rbuf[37], to = (me + 1) % np, from = (me + np - 1) % np;
    MPI_Request req[2];
    MPI_Status st;
    MPI_Message msg;
    MPI_Count cc;
    static char bsbuf[4096];
    void *detached;

    for (MPI_Count i = 0; i < n; i++)
        sbuf[i] = val(1, me, i);
    /* Blocking standard and synchronous sends, ordered so a ring never deadlocks: even ranks
     * send first. (Ready sends are below, where the receive is known to be posted.) */
    for (int mode = 0; mode < 2; mode++) {
        memset(rbuf, 0, sizeof(rbuf));
        if (me % 2 == 0 || np == 1) {
            if (np == 1) {
                CHECK(MPI_Irecv_c(rbuf, n, MPI_INT, from, mode, comm, &req[0]) == MPI_SUCCESS);
                CHECK(MPI_Isend_c(sbuf, n, MPI_INT, to, mode, comm, &req[1]) == MPI_SUCCESS);
                CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            } else {
                CHECK((mode == 0 ? MPI_Send_c(sbuf, n, MPI_INT, to, mode, comm)
                                 : MPI_Ssend_c(sbuf, n, MPI_INT, to, mode, comm)) == MPI_SUCCESS);
                CHECK(MPI_Recv_c(rbuf, n, MPI_INT, from, mode, comm, &st) == MPI_SUCCESS);
            }
        } else {
            CHECK(MPI_Recv_c(rbuf, n, MPI_INT, from, mode, comm, &st) == MPI_SUCCESS);
            CHECK(MPI_Send_c(sbuf, n, MPI_INT, to, mode, comm) == MPI_SUCCESS);
        }
        for (MPI_Count i = 0; i < n; i++)
            if (rbuf[i] != val(1, from, i))
                FAIL("p2p mode %d: element %lld is %d", mode, (long long)i, rbuf[i]);
    }
    /* Nonblocking sends of every mode and a sendrecv pair. */
    memset(rbuf, 0, sizeof(rbuf));
    CHECK(MPI_Irecv_c(rbuf, n, MPI_INT, from, 10, comm, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Issend_c(sbuf, n, MPI_INT, to, 10, comm, &req[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(rbuf[0] == val(1, from, 0) && rbuf[n - 1] == val(1, from, n - 1));
    memset(rbuf, 0, sizeof(rbuf));
    CHECK(MPI_Irecv_c(rbuf, n, MPI_INT, from, 11, comm, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
    CHECK(MPI_Irsend_c(sbuf, n, MPI_INT, to, 11, comm, &req[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(rbuf[0] == val(1, from, 0) && rbuf[n - 1] == val(1, from, n - 1));
    memset(rbuf, 0, sizeof(rbuf));
    CHECK(MPI_Irecv_c(rbuf, n, MPI_INT, from, 18, comm, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
    CHECK(MPI_Rsend_c(sbuf, n, MPI_INT, to, 18, comm) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS);
    CHECK(rbuf[2] == val(1, from, 2) && rbuf[n - 1] == val(1, from, n - 1));
    memset(rbuf, 0, sizeof(rbuf));
    CHECK(MPI_Sendrecv_c(sbuf, n, MPI_INT, to, 12, rbuf, n, MPI_INT, from, 12, comm, &st) ==
          MPI_SUCCESS);
    for (MPI_Count i = 0; i < n; i++)
        CHECK(rbuf[i] == val(1, from, i));
    CHECK(MPI_Get_count_c(&st, MPI_INT, &cc) == MPI_SUCCESS && cc == n);
    memcpy(rbuf, sbuf, sizeof(rbuf));
    CHECK(MPI_Sendrecv_replace_c(rbuf, n, MPI_INT, to, 13, from, 13, comm, &st) == MPI_SUCCESS);
    for (MPI_Count i = 0; i < n; i++)
        CHECK(rbuf[i] == val(1, from, i));
    memset(rbuf, 0, sizeof(rbuf));
    CHECK(MPI_Isendrecv_c(sbuf, n, MPI_INT, to, 14, rbuf, n, MPI_INT, from, 14, comm, &req[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS);
    CHECK(rbuf[5] == val(1, from, 5) && rbuf[n - 1] == val(1, from, n - 1));
    memcpy(rbuf, sbuf, sizeof(rbuf));
    CHECK(MPI_Isendrecv_replace_c(rbuf, n, MPI_INT, to, 15, from, 15, comm, &req[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS);
    CHECK(rbuf[7] == val(1, from, 7) && rbuf[n - 1] == val(1, from, n - 1));
    /* Buffered, with a buffer attached through the _c calls. */
    CHECK(MPI_Buffer_attach_c(bsbuf, (MPI_Count)sizeof(bsbuf)) == MPI_SUCCESS);
    memset(rbuf, 0, sizeof(rbuf));
    CHECK(MPI_Irecv_c(rbuf, n, MPI_INT, from, 16, comm, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Bsend_c(sbuf, n, MPI_INT, to, 16, comm) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS);
    CHECK(rbuf[3] == val(1, from, 3));
    CHECK(MPI_Irecv_c(rbuf, n, MPI_INT, from, 17, comm, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Ibsend_c(sbuf, n, MPI_INT, to, 17, comm, &req[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Buffer_detach_c(&detached, &cc) == MPI_SUCCESS);
    CHECK(detached == bsbuf && cc == (MPI_Count)sizeof(bsbuf));
    /* Persistent, twice. */
    for (int mode = 0; mode < 4; mode++) {
        memset(rbuf, 0, sizeof(rbuf));
        CHECK(MPI_Recv_init_c(rbuf, n, MPI_INT, from, 20, comm, &req[0]) == MPI_SUCCESS);
        CHECK((mode == 0   ? MPI_Send_init_c(sbuf, n, MPI_INT, to, 20, comm, &req[1])
               : mode == 1 ? MPI_Ssend_init_c(sbuf, n, MPI_INT, to, 20, comm, &req[1])
               : mode == 2
                   ? MPI_Rsend_init_c(sbuf, n, MPI_INT, to, 20, comm, &req[1])
                   : MPI_Bsend_init_c(sbuf, n, MPI_INT, to, 20, comm, &req[1])) == MPI_SUCCESS);
        if (mode == 3)
            CHECK(MPI_Buffer_attach_c(bsbuf, (MPI_Count)sizeof(bsbuf)) == MPI_SUCCESS);
        for (int k = 0; k < 2; k++) {
            CHECK(MPI_Start(&req[0]) == MPI_SUCCESS);
            CHECK(MPI_Barrier(comm) == MPI_SUCCESS); /* the receive is posted: Rsend is legal */
            CHECK(MPI_Start(&req[1]) == MPI_SUCCESS);
            CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            CHECK(rbuf[0] == val(1, from, 0) && rbuf[n - 1] == val(1, from, n - 1));
        }
        if (mode == 3)
            CHECK(MPI_Buffer_detach_c(&detached, &cc) == MPI_SUCCESS);
        CHECK(MPI_Request_free(&req[0]) == MPI_SUCCESS && MPI_Request_free(&req[1]) == MPI_SUCCESS);
    }
    /* Matched receives. */
    for (int k = 0; k < 2; k++) {
        memset(rbuf, 0, sizeof(rbuf));
        CHECK(MPI_Isend_c(sbuf, n, MPI_INT, to, 30, comm, &req[1]) == MPI_SUCCESS);
        CHECK(MPI_Mprobe(from, 30, comm, &msg, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count_c(&st, MPI_INT, &cc) == MPI_SUCCESS && cc == n);
        if (k == 0) {
            CHECK(MPI_Mrecv_c(rbuf, n, MPI_INT, &msg, &st) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Imrecv_c(rbuf, n, MPI_INT, &msg, &req[0]) == MPI_SUCCESS);
            CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS);
        }
        CHECK(MPI_Wait(&req[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (MPI_Count i = 0; i < n; i++)
            CHECK(rbuf[i] == val(1, from, i));
    }
}

static void check_sum(const int *buf, MPI_Count n, int t, int lo, int hi, const char *what)
{
    for (MPI_Count i = 0; i < n; i++) {
        int want = 0;
        for (int r = lo; r < hi; r++)
            want += val(t, r, i);
        if (buf[i] != want)
            FAIL("%s: element %lld is %d, expected %d", what, (long long)i, buf[i], want);
    }
}

static void test_coll(MPI_Comm comm, int me, int np)
{
    enum { N = 23 };
    int s[N * 8], r[N * 8], root = np - 1;
    MPI_Request req;
    MPI_Count n = N;

    /* Bcast: blocking, nonblocking, persistent. */
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < N; i++)
            r[i] = me == root ? val(2 + k, root, i) : -1;
        if (k == 0)
            CHECK(MPI_Bcast_c(r, n, MPI_INT, root, comm) == MPI_SUCCESS);
        else {
            CHECK((k == 1 ? MPI_Ibcast_c(r, n, MPI_INT, root, comm, &req)
                          : MPI_Bcast_init_c(r, n, MPI_INT, root, comm, MPI_INFO_NULL, &req)) ==
                  MPI_SUCCESS);
            if (k == 2)
                CHECK(MPI_Start(&req) == MPI_SUCCESS);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            if (k == 2)
                CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
        }
        for (int i = 0; i < N; i++)
            CHECK(r[i] == val(2 + k, root, i));
    }
    /* Reductions. */
    for (int i = 0; i < N * 8; i++)
        s[i] = val(3, me, i % N);
    memset(r, 0, sizeof(r));
    CHECK(MPI_Reduce_c(s, r, n, MPI_INT, MPI_SUM, root, comm) == MPI_SUCCESS);
    if (me == root)
        check_sum(r, n, 3, 0, np, "MPI_Reduce_c");
    memset(r, 0, sizeof(r));
    CHECK(MPI_Allreduce_c(s, r, n, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    check_sum(r, n, 3, 0, np, "MPI_Allreduce_c");
    memset(r, 0, sizeof(r));
    CHECK(MPI_Iallreduce_c(s, r, n, MPI_INT, MPI_SUM, comm, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    check_sum(r, n, 3, 0, np, "MPI_Iallreduce_c");
    memset(r, 0, sizeof(r));
    CHECK(MPI_Allreduce_init_c(s, r, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req) ==
          MPI_SUCCESS);
    CHECK(MPI_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
    check_sum(r, n, 3, 0, np, "MPI_Allreduce_init_c");
    memset(r, 0, sizeof(r));
    CHECK(MPI_Ireduce_c(s, r, n, MPI_INT, MPI_SUM, 0, comm, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (me == 0)
        check_sum(r, n, 3, 0, np, "MPI_Ireduce_c");
    memset(r, 0, sizeof(r));
    CHECK(MPI_Scan_c(s, r, n, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    check_sum(r, n, 3, 0, me + 1, "MPI_Scan_c");
    memset(r, 0, sizeof(r));
    CHECK(MPI_Exscan_c(s, r, n, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    if (me > 0)
        check_sum(r, n, 3, 0, me, "MPI_Exscan_c");
    /* Reduce_scatter_block: block b of everyone's sum to rank b. */
    for (int b = 0; b < np; b++)
        for (int i = 0; i < N; i++)
            s[b * N + i] = val(3, me, i);
    memset(r, 0, sizeof(r));
    CHECK(MPI_Reduce_scatter_block_c(s, r, n, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    check_sum(r, n, 3, 0, np, "MPI_Reduce_scatter_block_c");
    /* Gather / scatter / allgather / alltoall. */
    for (int i = 0; i < N; i++)
        s[i] = val(4, me, i);
    memset(r, 0, sizeof(r));
    CHECK(MPI_Gather_c(s, n, MPI_INT, r, n, MPI_INT, root, comm) == MPI_SUCCESS);
    if (me == root)
        for (int q = 0; q < np; q++)
            for (int i = 0; i < N; i++)
                CHECK(r[q * N + i] == val(4, q, i));
    memset(r, 0, sizeof(r));
    CHECK(MPI_Allgather_c(s, n, MPI_INT, r, n, MPI_INT, comm) == MPI_SUCCESS);
    for (int q = 0; q < np; q++)
        for (int i = 0; i < N; i++)
            CHECK(r[q * N + i] == val(4, q, i));
    memset(r, 0, sizeof(r));
    CHECK(MPI_Iallgather_c(s, n, MPI_INT, r, n, MPI_INT, comm, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(r[(np - 1) * N + N - 1] == val(4, np - 1, N - 1));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < N; i++)
            s[q * N + i] = val(5, me * 10 + q, i);
    memset(r, 0, sizeof(r));
    CHECK(MPI_Scatter_c(s, n, MPI_INT, r, n, MPI_INT, root, comm) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(r[i] == val(5, root * 10 + me, i));
    memset(r, 0, sizeof(r));
    CHECK(MPI_Alltoall_c(s, n, MPI_INT, r, n, MPI_INT, comm) == MPI_SUCCESS);
    for (int q = 0; q < np; q++)
        for (int i = 0; i < N; i++)
            CHECK(r[q * N + i] == val(5, q * 10 + me, i));
    memset(r, 0, sizeof(r));
    CHECK(MPI_Ialltoall_c(s, n, MPI_INT, r, n, MPI_INT, comm, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int q = 0; q < np; q++)
        CHECK(r[q * N + 1] == val(5, q * 10 + me, 1));
}

/* Neighbourhood collectives on a periodic ring (2 neighbours each). */
static void test_neighbor(MPI_Comm comm, int np)
{
    enum { N = 11 };
    int dims[1] = {np}, periods[1] = {1}, s[2 * N], r[2 * N], me, left, right;
    MPI_Comm ring;
    MPI_Request req;

    CHECK(MPI_Cart_create(comm, 1, dims, periods, 0, &ring) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(ring, &me) == MPI_SUCCESS);
    CHECK(MPI_Cart_shift(ring, 0, 1, &left, &right) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        s[i] = val(6, me, i);
    memset(r, 0, sizeof(r));
    CHECK(MPI_Neighbor_allgather_c(s, N, MPI_INT, r, N, MPI_INT, ring) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(r[i] == val(6, left, i) && r[N + i] == val(6, right, i));
    for (int i = 0; i < 2 * N; i++)
        s[i] = val(7, me * 2 + i / N, i % N);
    memset(r, 0, sizeof(r));
    CHECK(MPI_Ineighbor_alltoall_c(s, N, MPI_INT, r, N, MPI_INT, ring, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    /* From the left neighbour: its block for its right (1); from the right: its block 0. */
    for (int i = 0; i < N; i++)
        CHECK(r[i] == val(7, left * 2 + 1, i) && r[N + i] == val(7, right * 2, i));
    CHECK(MPI_Comm_free(&ring) == MPI_SUCCESS);
}

/* Run one call with stderr (where the error path writes its message) captured in *out. */
static int captured(int (*call)(MPI_Comm), MPI_Comm comm, char *out, size_t cap)
{
    FILE *f = tmpfile();
    int saved, rc;
    size_t n;

    if (f == NULL)
        FAIL("tmpfile failed");
    fflush(stderr);
    saved = dup(2);
    dup2(fileno(f), 2);
    rc = call(comm);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
    return rc;
}

static int bad_send_c(MPI_Comm comm)
{
    char b[4] = {0};
    return MPI_Send_c(b, -3, MPI_BYTE, 0, 0, comm);
}

static int bad_ibcast_c(MPI_Comm comm)
{
    char b[4] = {0};
    MPI_Request req = MPI_REQUEST_NULL;
    return MPI_Ibcast_c(b, -1, MPI_BYTE, 0, comm, &req);
}

static int bad_send_huge(MPI_Comm comm)
{
    char b[4] = {0};
    return MPI_Send_c(b, (MPI_Count)1 << 62, MPI_INT, 0, 0, comm);
}

/* 2^62 of a 2-byte type: 2^63 bytes, one more than PTRDIFF_MAX, without a 64-bit overflow. */
static int bad_send_huge_short(MPI_Comm comm)
{
    char b[4] = {0};
    return MPI_Send_c(b, (MPI_Count)1 << 62, MPI_SHORT, 0, 0, comm);
}

/* Queries, and a negative count refused with an error that names the _c call (the message is
 * logged at debug level under MPI_ERRORS_RETURN: check_msg when VBT_LOG=debug). */
static void test_queries(MPI_Comm comm, int check_msg)
{
    MPI_Datatype v;
    MPI_Count lb, extent, sz;
    char msg[4096];
    int cls, rc;

    CHECK(MPI_Type_vector(3, 2, 5, MPI_INT, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_get_extent_c(v, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 48);
    CHECK(MPI_Type_get_true_extent_c(v, &lb, &extent) == MPI_SUCCESS && extent == 48);
    CHECK(MPI_Type_size_c(v, &sz) == MPI_SUCCESS && sz == 24);
    { /* Pack_c / Unpack_c of the vector (2 of every 5 ints, 3 times) and Pack_size_c. */
        int src[15], dst[15], isz;
        char packed[64];
        MPI_Count pos = 0, psz;

        for (int i = 0; i < 15; i++)
            src[i] = 1000 + i;
        CHECK(MPI_Type_commit(&v) == MPI_SUCCESS);
        CHECK(MPI_Pack_size_c(2, v, comm, &psz) == MPI_SUCCESS && psz == 48);
        CHECK(MPI_Pack_c(src, 1, v, packed, 64, &pos, comm) == MPI_SUCCESS && pos == 24);
        CHECK(MPI_Pack_c(src, 1, MPI_INT, packed, 64, &pos, comm) == MPI_SUCCESS && pos == 28);
        memset(dst, 0, sizeof(dst));
        pos = 0;
        CHECK(MPI_Unpack_c(packed, 28, &pos, dst, 1, v, comm) == MPI_SUCCESS && pos == 24);
        for (int i = 0; i < 15; i++)
            CHECK(dst[i] == (i % 5 < 2 ? 1000 + i : 0));
        CHECK(MPI_Unpack_c(packed, 28, &pos, dst, 1, MPI_INT, comm) == MPI_SUCCESS && pos == 28);
        CHECK(dst[0] == 1000);
        CHECK(MPI_Pack_size(1 << 30, v, comm, &isz) == MPI_SUCCESS && isz == MPI_UNDEFINED);
        /* external32: big-endian ints. */
        pos = 0;
        CHECK(MPI_Pack_external_size_c("external32", 3, MPI_INT, &psz) == MPI_SUCCESS && psz == 12);
        CHECK(MPI_Pack_external_c("external32", src, 3, MPI_INT, packed, 64, &pos) == MPI_SUCCESS &&
              pos == 12);
        CHECK((unsigned char)packed[3] == (1000 & 0xff) && (unsigned char)packed[2] == 1000 >> 8);
        CHECK((unsigned char)packed[11] == (1002 & 0xff) && packed[8] == 0);
        memset(dst, 0, sizeof(dst));
        pos = 0;
        CHECK(MPI_Unpack_external_c("external32", packed, 12, &pos, dst, 3, MPI_INT) ==
                  MPI_SUCCESS &&
              pos == 12);
        CHECK(dst[0] == 1000 && dst[1] == 1001 && dst[2] == 1002);
        CHECK(MPI_Pack_size_c((MPI_Count)1 << 30, v, comm, &psz) == MPI_SUCCESS &&
              psz == (MPI_Count)24 << 30);
    }
    CHECK(MPI_Type_free(&v) == MPI_SUCCESS);
    { /* The envelope rule without 2 GiB of memory: a status that says 2^31 + 6 bytes. The int
       * queries answer MPI_UNDEFINED where the count or element count does not fit an int
       * (MPI-4.1 errata #327), the _c ones the count; in MPI_INT (not a whole number of them:
       * MPI_UNDEFINED) and in a 16-byte type (2^27 of them and 6 bytes: elements only). */
        MPI_Status st;
        MPI_Datatype t16;
        const MPI_Count n = ((MPI_Count)1 << 31) + 6;
        MPI_Count cc;
        int ci;

        CHECK(MPI_Status_set_elements_x(&st, MPI_BYTE, n) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &ci) == MPI_SUCCESS);
        if (ci != MPI_UNDEFINED)
            FAIL("MPI_Get_count of a status of %lld bytes gave %d, not MPI_UNDEFINED", (long long)n,
                 ci);
        CHECK(MPI_Get_elements(&st, MPI_BYTE, &ci) == MPI_SUCCESS && ci == MPI_UNDEFINED);
        CHECK(MPI_Get_count_c(&st, MPI_BYTE, &cc) == MPI_SUCCESS && cc == n);
        CHECK(MPI_Get_elements_c(&st, MPI_BYTE, &cc) == MPI_SUCCESS && cc == n);
        CHECK(MPI_Get_count_c(&st, MPI_INT, &cc) == MPI_SUCCESS && cc == MPI_UNDEFINED);
        CHECK(MPI_Get_count(&st, MPI_INT, &ci) == MPI_SUCCESS && ci == MPI_UNDEFINED);
        CHECK(MPI_Type_contiguous(16, MPI_BYTE, &t16) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&t16) == MPI_SUCCESS);
        CHECK(MPI_Get_count_c(&st, t16, &cc) == MPI_SUCCESS && cc == MPI_UNDEFINED);
        CHECK(MPI_Get_elements_c(&st, t16, &cc) == MPI_SUCCESS && cc == n);
        CHECK(MPI_Get_elements(&st, t16, &ci) == MPI_SUCCESS && ci == MPI_UNDEFINED);
        /* 2^31 - 16 bytes: 2^27 - 1 of the 16-byte type, and the byte count still fits. */
        CHECK(MPI_Status_set_elements_x(&st, MPI_BYTE, (((MPI_Count)1 << 27) - 1) * 16) ==
              MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, t16, &ci) == MPI_SUCCESS && ci == (1 << 27) - 1);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &ci) == MPI_SUCCESS && ci == INT32_MAX - 15);
        /* 2^31 of the 16-byte type (2^35 bytes): the count itself does not fit an int. */
        CHECK(MPI_Status_set_elements_x(&st, MPI_BYTE, (MPI_Count)1 << 35) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, t16, &ci) == MPI_SUCCESS && ci == MPI_UNDEFINED);
        CHECK(MPI_Get_count_c(&st, t16, &cc) == MPI_SUCCESS && cc == (MPI_Count)1 << 31);
        CHECK(MPI_Type_free(&t16) == MPI_SUCCESS);
    }
    CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    rc = captured(bad_send_c, comm, msg, sizeof(msg));
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_COUNT);
    if (check_msg && (strstr(msg, "MPI_Send_c") == NULL || strstr(msg, "count is -3") == NULL))
        FAIL("the error of MPI_Send_c with count -3 says \"%s\"", msg);
    rc = captured(bad_ibcast_c, comm, msg, sizeof(msg));
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_COUNT);
    if (check_msg && (strstr(msg, "MPI_Ibcast_c") == NULL || strstr(msg, "-1") == NULL))
        FAIL("the error of MPI_Ibcast_c with count -1 says \"%s\"", msg);
    rc = captured(bad_send_huge, comm, msg, sizeof(msg));
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_COUNT);
    if (check_msg && (strstr(msg, "MPI_Send_c") == NULL || strstr(msg, "address") == NULL))
        FAIL("the error of MPI_Send_c with count 2^62 says \"%s\"", msg);
    rc = captured(bad_send_huge_short, comm, msg, sizeof(msg));
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_COUNT);
    if (check_msg && (strstr(msg, "MPI_Send_c") == NULL || strstr(msg, "address") == NULL))
        FAIL("the error of MPI_Send_c with count 2^62 of MPI_SHORT says \"%s\"", msg);
    CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
}

static void test_small(void)
{
    MPI_Comm sub, halves;
    int me, np;

    test_queries(MPI_COMM_WORLD, 0);
    test_p2p(MPI_COMM_WORLD, rank, size);
    test_coll(MPI_COMM_WORLD, rank, size);
    test_neighbor(MPI_COMM_WORLD, size);
    /* Again on a communicator of the odd and even ranks, in reverse order. */
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &halves) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(halves, &me) == MPI_SUCCESS && MPI_Comm_size(halves, &np) == MPI_SUCCESS);
    test_p2p(halves, me, np);
    test_coll(halves, me, np);
    CHECK(MPI_Comm_dup(halves, &sub) == MPI_SUCCESS);
    test_neighbor(sub, np);
    CHECK(MPI_Comm_free(&sub) == MPI_SUCCESS && MPI_Comm_free(&halves) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount small: ok (%d ranks)\n", size);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "small";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(what, "small") == 0)
        test_small();
    else if (strcmp(what, "huge") == 0)
        test_huge();
    else if (strcmp(what, "errors") == 0) {
        test_queries(MPI_COMM_WORLD, 1);
        if (rank == 0)
            printf("largecount errors: ok (%d ranks)\n", size);
    } else if (strcmp(what, "wide") == 0)
        test_wide();
    else
        FAIL("unknown subtest %s (small, errors, huge, wide)", what);
    MPI_Finalize();
    return 0;
}
