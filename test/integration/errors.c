/* MPI error handling: a table of bad calls under MPI_ERRORS_RETURN, each checked for the error
 * class MPI specifies and for a message naming the call and the argument; then a real exchange
 * proves the library still works. Also user error handlers (called with the right communicator
 * and code, MPI_Comm_call_errhandler, inheritance by MPI_Comm_dup and MPI_Comm_split,
 * MPI_Errhandler_free) and MPI_Add_error_class/code/string.
 *
 * The message of an error under MPI_ERRORS_RETURN is logged at debug level, so errors.sh runs
 * this with VBT_LOG=debug and each bad call is made with stderr going to a file read back here.
 *
 * Modes: "all" (the above, at 2 or 3 ranks); "fatal": a bad MPI_Send under the default
 * MPI_ERRORS_ARE_FATAL; "before-init" / "after-finalize": a call outside the library's life. */
#define MPITEST_NAME "errors"
#include "mpitest.h"

#include <stdint.h>
#include <unistd.h>

static int peer, ntable;
static char msg[8192];

/* Run one call with stderr captured into msg. */
static int saved_fd = -1;
static FILE *cap;

static void capture_begin(void)
{
    fflush(stderr);
    cap = tmpfile();
    if (cap == NULL)
        FAIL("tmpfile failed");
    saved_fd = dup(2);
    dup2(fileno(cap), 2);
}

static void capture_end(void)
{
    size_t n;

    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    rewind(cap);
    n = fread(msg, 1, sizeof(msg) - 1, cap);
    msg[n] = '\0';
    fclose(cap);
}

/* One bad call: its return's class is want, and the message names call and arg. */
static void expect(int line, int rc, int want, const char *call, const char *arg)
{
    int cls = -1;
    char s[MPI_MAX_ERROR_STRING];
    int len;

    ntable++;
    if (rc == MPI_SUCCESS)
        FAIL("table line %d: %s succeeded; expected class %d", line, call, want);
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS || cls != want) {
        MPI_Error_string(cls, s, &len);
        FAIL("table line %d: %s returned class %d (%s); expected %d", line, call, cls,
             cls >= 0 ? s : "?", want);
    }
    if (strstr(msg, call) == NULL || strstr(msg, arg) == NULL)
        FAIL("table line %d: the message of %s does not name the call and \"%s\":\n%s", line, call,
             arg, msg);
}

#define BAD(_want, _call, _arg, _expr)                                                             \
    do {                                                                                           \
        int _rc;                                                                                   \
        capture_begin();                                                                           \
        _rc = (_expr);                                                                             \
        capture_end();                                                                             \
        expect(__LINE__, _rc, (_want), (_call), (_arg));                                           \
    } while (0)

/* A real exchange: allreduce and a send/recv ring with payload checks. */
static void still_works(const char *after)
{
    int in = rank + 1, out = 0, want = size * (size + 1) / 2;
    unsigned char sbuf[1000], rbuf[1000];
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    CHECK(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (out != want)
        FAIL("after %s: allreduce gave %d, expected %d", after, out, want);
    fill(sbuf, sizeof(sbuf), (unsigned)rank);
    memset(rbuf, 0, sizeof(rbuf));
    CHECK(MPI_Sendrecv(sbuf, (int)sizeof(sbuf), MPI_BYTE, to, 5, rbuf, (int)sizeof(rbuf), MPI_BYTE,
                       from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    verify(rbuf, sizeof(rbuf), (unsigned)from, after);
}

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void handler_noop(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
}

/* Each kind of bad argument the MPI entry points check: invalid communicator, group, datatype
 * (null, uncommitted, freed), op, request (garbage, freed), rank, count, tag, buffer, root,
 * MPI_IN_PLACE where it is not allowed, error handlers and codes. Freed handles must be caught
 * without crashing. */
static void test_table(void)
{
    int buf[16] = {0}, rbuf[16] = {0}, flag, n, keyval = 12345;
    MPI_Comm wc = MPI_COMM_WORLD, nc = MPI_COMM_NULL, junk_comm = (MPI_Comm)(void *)0x7;
    MPI_Comm freed_comm, newcomm;
    MPI_Datatype uncommitted, freed_type, t = MPI_INT;
    MPI_Request req = MPI_REQUEST_NULL, junk_req = (MPI_Request)(void *)0x9, stale_req;
    MPI_Group g, junk_group = MPI_GROUP_NULL, stale_group;
    MPI_Op op_sum = MPI_SUM, stale_op;
    MPI_Status st;
    MPI_Errhandler eh;
    MPI_Count cnt;
    const int ranks_bad[1] = {size};
    int dims[2] = {0, 0}, periods[2] = {0, 0};

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &uncommitted) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &freed_type) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&freed_type) == MPI_SUCCESS);
    t = freed_type;
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &freed_comm) == MPI_SUCCESS);
    newcomm = freed_comm;
    CHECK(MPI_Comm_free(&newcomm) == MPI_SUCCESS);
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &g) == MPI_SUCCESS);
    (void)cnt;

    /* Point-to-point. */
    BAD(MPI_ERR_COUNT, "MPI_Send", "count", MPI_Send(buf, -1, MPI_INT, peer, 0, wc));
    BAD(MPI_ERR_TYPE, "MPI_Send", "datatype", MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 0, wc));
    BAD(MPI_ERR_TYPE, "MPI_Send", "not committed", MPI_Send(buf, 1, uncommitted, peer, 0, wc));
    BAD(MPI_ERR_TYPE, "MPI_Send", "datatype", MPI_Send(buf, 1, freed_type, peer, 0, wc));
    BAD(MPI_ERR_TYPE, "MPI_Send", "datatype", MPI_Send(buf, 1, (MPI_Datatype)0x2f8, peer, 0, wc));
    BAD(MPI_ERR_RANK, "MPI_Send", "dest", MPI_Send(buf, 1, MPI_INT, size, 0, wc));
    BAD(MPI_ERR_RANK, "MPI_Send", "dest", MPI_Send(buf, 1, MPI_INT, -5, 0, wc));
    BAD(MPI_ERR_RANK, "MPI_Send", "dest", MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, wc));
    BAD(MPI_ERR_TAG, "MPI_Send", "tag", MPI_Send(buf, 1, MPI_INT, peer, -2, wc));
    BAD(MPI_ERR_TAG, "MPI_Send", "tag", MPI_Send(buf, 1, MPI_INT, peer, MPI_ANY_TAG, wc));
    BAD(MPI_ERR_COMM, "MPI_Send", "comm", MPI_Send(buf, 1, MPI_INT, peer, 0, nc));
    BAD(MPI_ERR_COMM, "MPI_Send", "comm", MPI_Send(buf, 1, MPI_INT, peer, 0, junk_comm));
    BAD(MPI_ERR_COMM, "MPI_Send", "comm", MPI_Send(buf, 1, MPI_INT, peer, 0, freed_comm));
    /* Unmapped memory: must be refused without being read. */
    BAD(MPI_ERR_COMM, "MPI_Send", "comm",
        MPI_Send(buf, 1, MPI_INT, peer, 0, (MPI_Comm)(void *)(uintptr_t)0xdead0000beefull));
    BAD(MPI_ERR_BUFFER, "MPI_Send", "buf", MPI_Send(NULL, 4, MPI_INT, peer, 0, wc));
    BAD(MPI_ERR_BUFFER, "MPI_Send", "MPI_IN_PLACE",
        MPI_Send(MPI_IN_PLACE, 4, MPI_INT, peer, 0, wc));
    BAD(MPI_ERR_RANK, "MPI_Recv", "source", MPI_Recv(buf, 1, MPI_INT, size, 0, wc, &st));
    BAD(MPI_ERR_TAG, "MPI_Recv", "tag", MPI_Recv(buf, 1, MPI_INT, peer, -7, wc, &st));
    BAD(MPI_ERR_COUNT, "MPI_Recv", "count", MPI_Recv(buf, -1, MPI_INT, peer, 0, wc, &st));
    BAD(MPI_ERR_TYPE, "MPI_Recv", "datatype",
        MPI_Recv(buf, 1, MPI_DATATYPE_NULL, peer, 0, wc, &st));
    BAD(MPI_ERR_BUFFER, "MPI_Recv", "buf", MPI_Recv(NULL, 3, MPI_INT, peer, 0, wc, &st));
    BAD(MPI_ERR_ARG, "MPI_Isend", "request", MPI_Isend(buf, 1, MPI_INT, peer, 0, wc, NULL));
    BAD(MPI_ERR_ARG, "MPI_Irecv", "request", MPI_Irecv(buf, 1, MPI_INT, peer, 0, wc, NULL));
    BAD(MPI_ERR_RANK, "MPI_Ssend", "dest", MPI_Ssend(buf, 1, MPI_INT, size + 3, 0, wc));
    BAD(MPI_ERR_TAG, "MPI_Rsend", "tag", MPI_Rsend(buf, 1, MPI_INT, peer, -1, wc));
    BAD(MPI_ERR_COUNT, "MPI_Issend", "count", MPI_Issend(buf, -3, MPI_INT, peer, 0, wc, &req));
    BAD(MPI_ERR_TAG, "MPI_Sendrecv", "tag",
        MPI_Sendrecv(buf, 1, MPI_INT, peer, 0, rbuf, 1, MPI_INT, peer, -9, wc, &st));
    BAD(MPI_ERR_COUNT, "MPI_Sendrecv_replace", "count",
        MPI_Sendrecv_replace(buf, -1, MPI_INT, peer, 0, peer, 0, wc, &st));
    BAD(MPI_ERR_RANK, "MPI_Probe", "source", MPI_Probe(size, 0, wc, &st));
    BAD(MPI_ERR_ARG, "MPI_Iprobe", "flag", MPI_Iprobe(peer, 0, wc, NULL, &st));
    BAD(MPI_ERR_ARG, "MPI_Wait", "request", MPI_Wait(NULL, &st));
    BAD(MPI_ERR_REQUEST, "MPI_Wait", "request", MPI_Wait(&junk_req, &st));
    BAD(MPI_ERR_ARG, "MPI_Test", "flag", MPI_Test(&req, NULL, &st));
    BAD(MPI_ERR_COUNT, "MPI_Waitall", "count", MPI_Waitall(-1, &req, MPI_STATUSES_IGNORE));
    BAD(MPI_ERR_REQUEST, "MPI_Request_free", "request", MPI_Request_free(&req));
    BAD(MPI_ERR_REQUEST, "MPI_Cancel", "request", MPI_Cancel(&junk_req));
    CHECK(MPI_Irecv(rbuf, 1, MPI_INT, MPI_PROC_NULL, 0, wc, &req) == MPI_SUCCESS);
    stale_req = req;
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && req == MPI_REQUEST_NULL);
    BAD(MPI_ERR_REQUEST, "MPI_Wait", "request", MPI_Wait(&stale_req, &st));
    BAD(MPI_ERR_ARG, "MPI_Get_count", "status", MPI_Get_count(NULL, MPI_INT, &n));
    BAD(MPI_ERR_TYPE, "MPI_Get_count", "datatype", MPI_Get_count(&st, MPI_DATATYPE_NULL, &n));

    /* Collectives (root-only arguments on MPI_COMM_SELF, so no peer enters the operation). */
    BAD(MPI_ERR_ROOT, "MPI_Bcast", "root", MPI_Bcast(buf, 1, MPI_INT, size, wc));
    BAD(MPI_ERR_ROOT, "MPI_Bcast", "root", MPI_Bcast(buf, 1, MPI_INT, -1, wc));
    BAD(MPI_ERR_COUNT, "MPI_Bcast", "count", MPI_Bcast(buf, -1, MPI_INT, 0, wc));
    BAD(MPI_ERR_TYPE, "MPI_Bcast", "datatype", MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, wc));
    BAD(MPI_ERR_COMM, "MPI_Bcast", "comm", MPI_Bcast(buf, 1, MPI_INT, 0, nc));
    BAD(MPI_ERR_OP, "MPI_Reduce", "op", MPI_Reduce(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, 0, wc));
    BAD(MPI_ERR_OP, "MPI_Reduce", "op",
        MPI_Reduce(buf, rbuf, 1, MPI_INT, (MPI_Op)(void *)0x3f, 0, wc));
    BAD(MPI_ERR_ROOT, "MPI_Reduce", "root", MPI_Reduce(buf, rbuf, 1, MPI_INT, op_sum, 7, wc));
    BAD(MPI_ERR_OP, "MPI_Allreduce", "op", MPI_Allreduce(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, wc));
    BAD(MPI_ERR_OP, "MPI_Allreduce", "MPI_LAND",
        MPI_Allreduce(buf, rbuf, 1, MPI_DOUBLE, MPI_LAND, wc));
    BAD(MPI_ERR_COUNT, "MPI_Allreduce", "count", MPI_Allreduce(buf, rbuf, -1, MPI_INT, op_sum, wc));
    BAD(MPI_ERR_BUFFER, "MPI_Allreduce", "recvbuf",
        MPI_Allreduce(buf, MPI_IN_PLACE, 1, MPI_INT, op_sum, wc));
    BAD(MPI_ERR_COUNT, "MPI_Gather", "recvcount",
        MPI_Gather(buf, 1, MPI_INT, rbuf, -1, MPI_INT, 0, MPI_COMM_SELF));
    BAD(MPI_ERR_ROOT, "MPI_Gather", "root",
        MPI_Gather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, size, wc));
    BAD(MPI_ERR_TYPE, "MPI_Scatter", "sendtype",
        MPI_Scatter(buf, 1, MPI_DATATYPE_NULL, rbuf, 1, MPI_INT, 0, MPI_COMM_SELF));
    BAD(MPI_ERR_BUFFER, "MPI_Scatter", "recvbuf",
        MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_SELF));
    BAD(MPI_ERR_COUNT, "MPI_Alltoall", "sendcount",
        MPI_Alltoall(buf, -1, MPI_INT, rbuf, 1, MPI_INT, wc));
    BAD(MPI_ERR_BUFFER, "MPI_Allgather", "recvbuf",
        MPI_Allgather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, wc));
    BAD(MPI_ERR_ARG, "MPI_Gatherv", "recvcounts",
        MPI_Gatherv(buf, 1, MPI_INT, rbuf, NULL, NULL, MPI_INT, 0, MPI_COMM_SELF));
    BAD(MPI_ERR_COMM, "MPI_Barrier", "comm", MPI_Barrier(junk_comm));
    BAD(MPI_ERR_OP, "MPI_Scan", "op", MPI_Scan(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, wc));

    /* Communicators and groups. */
    BAD(MPI_ERR_COMM, "MPI_Comm_split", "comm", MPI_Comm_split(nc, 0, 0, &newcomm));
    BAD(MPI_ERR_ARG, "MPI_Comm_dup", "newcomm", MPI_Comm_dup(wc, NULL));
    BAD(MPI_ERR_GROUP, "MPI_Comm_create", "group", MPI_Comm_create(wc, junk_group, &newcomm));
    BAD(MPI_ERR_RANK, "MPI_Group_incl", "ranks", MPI_Group_incl(g, 1, ranks_bad, &junk_group));
    BAD(MPI_ERR_GROUP, "MPI_Group_size", "group", MPI_Group_size(MPI_GROUP_NULL, &n));
    CHECK(MPI_Group_incl(g, 1, &rank, &stale_group) == MPI_SUCCESS);
    junk_group = stale_group;
    CHECK(MPI_Group_free(&junk_group) == MPI_SUCCESS);
    BAD(MPI_ERR_GROUP, "MPI_Group_rank", "group", MPI_Group_rank(stale_group, &n));
    BAD(MPI_ERR_COMM, "MPI_Comm_free", "comm", MPI_Comm_free(&wc));
    BAD(MPI_ERR_COMM, "MPI_Comm_free", "comm", MPI_Comm_free(&freed_comm));
    BAD(MPI_ERR_ARG, "MPI_Comm_rank", "rank", MPI_Comm_rank(wc, NULL));
    BAD(MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "keyval", MPI_Comm_get_attr(wc, keyval, &n, &flag));
    BAD(MPI_ERR_TOPOLOGY, "MPI_Cart_coords", "comm", MPI_Cart_coords(wc, 0, 2, dims));
    BAD(MPI_ERR_DIMS, "MPI_Cart_create", "ndims",
        MPI_Cart_create(wc, -1, dims, periods, 0, &newcomm));

    /* Datatypes and ops. */
    BAD(MPI_ERR_COUNT, "MPI_Type_contiguous", "count", MPI_Type_contiguous(-1, MPI_INT, &t));
    BAD(MPI_ERR_TYPE, "MPI_Type_vector", "oldtype",
        MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t));
    t = MPI_DATATYPE_NULL;
    BAD(MPI_ERR_TYPE, "MPI_Type_commit", "datatype", MPI_Type_commit(&t));
    t = MPI_INT;
    BAD(MPI_ERR_TYPE, "MPI_Type_free", "datatype", MPI_Type_free(&t));
    BAD(MPI_ERR_ARG, "MPI_Type_size", "size", MPI_Type_size(MPI_INT, NULL));
    BAD(MPI_ERR_OP, "MPI_Op_free", "op", MPI_Op_free(&op_sum));
    CHECK(MPI_Op_create(user_op, 1, &stale_op) == MPI_SUCCESS);
    op_sum = stale_op;
    CHECK(MPI_Op_free(&op_sum) == MPI_SUCCESS);
    BAD(MPI_ERR_OP, "MPI_Allreduce", "op", MPI_Allreduce(buf, rbuf, 1, MPI_INT, stale_op, wc));
    BAD(MPI_ERR_ARG, "MPI_Op_create", "user_fn", MPI_Op_create(NULL, 1, &op_sum));

    /* Error handlers and codes. */
    BAD(MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler", "errhandler",
        MPI_Comm_set_errhandler(wc, MPI_ERRHANDLER_NULL));
    BAD(MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler", "errhandler",
        MPI_Comm_set_errhandler(wc, (MPI_Errhandler)(void *)&n));
    BAD(MPI_ERR_ARG, "MPI_Errhandler_free", "errhandler", MPI_Errhandler_free(NULL));
    eh = MPI_ERRHANDLER_NULL;
    BAD(MPI_ERR_ERRHANDLER, "MPI_Errhandler_free", "errhandler", MPI_Errhandler_free(&eh));
    BAD(MPI_ERR_ARG, "MPI_Error_class", "errorcode", MPI_Error_class(-3, &n));
    BAD(MPI_ERR_ARG, "MPI_Error_string", "errorcode", MPI_Error_string(99999, msg + 4096, &n));
    BAD(MPI_ERR_ARG, "MPI_Add_error_code", "errorclass", MPI_Add_error_code(MPI_SUCCESS, &n));
    BAD(MPI_ERR_ARG, "MPI_Add_error_string", "errorcode",
        MPI_Add_error_string(MPI_ERR_TAG, "mine"));
    BAD(MPI_ERR_COMM, "MPI_Comm_call_errhandler", "comm",
        MPI_Comm_call_errhandler(nc, MPI_ERR_OTHER));

    still_works("the table");

    /* One-sided: the window error classes, under the window's own MPI_ERRORS_RETURN. */
    {
        int wbuf[8] = {0}, x = 1;
        MPI_Win win, dwin, junk_win = (MPI_Win)(void *)0x7;
        MPI_Aint sz;
        void *b;

        BAD(MPI_ERR_WIN, "MPI_Win_fence", "MPI_WIN_NULL", MPI_Win_fence(0, MPI_WIN_NULL));
        BAD(MPI_ERR_WIN, "MPI_Put", "win", MPI_Put(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, junk_win));
        BAD(MPI_ERR_DISP, "MPI_Win_create", "disp_unit",
            MPI_Win_create(wbuf, sizeof(wbuf), 0, MPI_INFO_NULL, wc, &win));
        BAD(MPI_ERR_BASE, "MPI_Free_mem", "base", MPI_Free_mem(wbuf));
        CHECK(MPI_Win_create(wbuf, sizeof(wbuf), sizeof(int), MPI_INFO_NULL, wc, &win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
        BAD(MPI_ERR_RMA_SYNC, "MPI_Put", "epoch",
            MPI_Put(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
        BAD(MPI_ERR_RMA_SYNC, "MPI_Win_unlock", "lock", MPI_Win_unlock(peer, win));
        BAD(MPI_ERR_RMA_SYNC, "MPI_Win_complete", "MPI_Win_start", MPI_Win_complete(win));
        BAD(MPI_ERR_RMA_SYNC, "MPI_Win_wait", "MPI_Win_post", MPI_Win_wait(win));
        BAD(MPI_ERR_RMA_SYNC, "MPI_Win_flush", "passive", MPI_Win_flush(peer, win));
        BAD(MPI_ERR_ASSERT, "MPI_Win_fence", "assert", MPI_Win_fence(MPI_MODE_NOCHECK, win));
        BAD(MPI_ERR_LOCKTYPE, "MPI_Win_lock", "lock_type", MPI_Win_lock(0, peer, 0, win));
        BAD(MPI_ERR_RANK, "MPI_Win_lock", "rank", MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win));
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win) == MPI_SUCCESS);
        BAD(MPI_ERR_RMA_RANGE, "MPI_Put", "target_disp",
            MPI_Put(&x, 1, MPI_INT, peer, 8, 1, MPI_INT, win));
        BAD(MPI_ERR_RMA_RANGE, "MPI_Get", "target_disp",
            MPI_Get(&x, 1, MPI_INT, peer, -1, 1, MPI_INT, win));
        BAD(MPI_ERR_RMA_SYNC, "MPI_Win_lock", "already",
            MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
        BAD(MPI_ERR_OP, "MPI_Accumulate", "op",
            MPI_Accumulate(&x, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_OP_NULL, win));
        BAD(MPI_ERR_TYPE, "MPI_Put", "target_datatype",
            MPI_Put(&x, 1, MPI_INT, peer, 0, 1, MPI_DATATYPE_NULL, win));
        CHECK(MPI_Win_unlock(peer, win) == MPI_SUCCESS);
        BAD(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach", "dynamic", MPI_Win_attach(win, &x, sizeof(x)));
        CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, wc, &dwin) == MPI_SUCCESS);
        CHECK(MPI_Win_set_errhandler(dwin, MPI_ERRORS_RETURN) == MPI_SUCCESS);
        /* MPI-4.1 allows the query on every flavor but dynamic. */
        BAD(MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query", "MPI_Win_create_dynamic",
            MPI_Win_shared_query(dwin, 0, &sz, &n, &b));
        CHECK(MPI_Win_attach(dwin, wbuf, sizeof(wbuf)) == MPI_SUCCESS);
        BAD(MPI_ERR_RMA_ATTACH, "MPI_Win_attach", "overlaps",
            MPI_Win_attach(dwin, wbuf + 2, sizeof(int)));
        BAD(MPI_ERR_RMA_ATTACH, "MPI_Win_detach", "base", MPI_Win_detach(dwin, wbuf + 1));
        CHECK(MPI_Win_detach(dwin, wbuf) == MPI_SUCCESS);
        CHECK(MPI_Win_free(&dwin) == MPI_SUCCESS);
        CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
        for (int i = 0; i < 8; i++)
            if (wbuf[i] != 0)
                FAIL("a refused one-sided call wrote element %d of the window (%d)", i, wbuf[i]);
    }
    still_works("one-sided errors");

    /* Truncation: rank 0 sends 4 ints, rank 1 receives room for 2. */
    if (rank == 0) {
        CHECK(MPI_Send(buf, 4, MPI_INT, 1, 9, wc) == MPI_SUCCESS);
    } else if (rank == 1) {
        BAD(MPI_ERR_TRUNCATE, "MPI_Recv", "trunc", MPI_Recv(rbuf, 2, MPI_INT, 0, 9, wc, &st));
    }
    still_works("a truncated receive");

    CHECK(MPI_Group_free(&g) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&uncommitted) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    if (rank == 0)
        printf("errors: %d bad calls returned the right class\n", ntable);
}

/* Made-up and freed handles of every kind the library hands out as an address (requests,
 * messages, groups, user ops, derived datatypes, user error handlers) and of communicators: each
 * must be refused with its kind's class, without the handle being read (an unmapped address
 * would crash; under AddressSanitizer a read of a freed object or of a stack buffer is a
 * report), and the library must still work afterwards. */
static void test_bad_handles(void)
{
    /* A number, a mapped buffer that is no object, an address that is not mapped. */
    long stackbuf[64] = {0};
    void *const made_up[3] = {(void *)(uintptr_t)0x12345678u, (void *)stackbuf,
                              (void *)(uintptr_t)0xdead0000beefull};
    int buf[4] = {0}, rbuf[4] = {0}, n, flag, idx;
    MPI_Request req, live, freed_req, reqs[2];
    MPI_Message m, freed_msg;
    MPI_Group g, freed_group, h;
    MPI_Op freed_op, o;
    MPI_Datatype freed_type, t;
    MPI_Errhandler freed_eh, e;
    MPI_Comm newcomm;
    MPI_Status st;
    MPI_Win freed_win, wn;

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Win_create(buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_SELF, &freed_win) ==
          MPI_SUCCESS);
    wn = freed_win;
    CHECK(MPI_Win_free(&wn) == MPI_SUCCESS && wn == MPI_WIN_NULL);

    /* A live request, for pointers into its middle: a receive nobody sends to. First, so that it
     * does not reuse the freed request below (objects are reused, and a stale handle then names
     * the new one, as with any pointer handle). */
    CHECK(MPI_Irecv(rbuf, 1, MPI_INT, peer, 4242, MPI_COMM_WORLD, &live) == MPI_SUCCESS);
    /* Freed objects of each kind, their handle kept. */
    CHECK(MPI_Irecv(rbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    freed_req = req;
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &g) == MPI_SUCCESS);
    CHECK(MPI_Group_incl(g, 1, &rank, &freed_group) == MPI_SUCCESS);
    h = freed_group;
    CHECK(MPI_Group_free(&h) == MPI_SUCCESS && h == MPI_GROUP_NULL);
    CHECK(MPI_Op_create(user_op, 1, &freed_op) == MPI_SUCCESS);
    o = freed_op;
    CHECK(MPI_Op_free(&o) == MPI_SUCCESS && o == MPI_OP_NULL);
    CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &freed_type) == MPI_SUCCESS);
    t = freed_type;
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS && t == MPI_DATATYPE_NULL);
    CHECK(MPI_Comm_create_errhandler(handler_noop, &freed_eh) == MPI_SUCCESS);
    e = freed_eh;
    CHECK(MPI_Errhandler_free(&e) == MPI_SUCCESS && e == MPI_ERRHANDLER_NULL);
    /* A message received already: send ourselves one on MPI_COMM_SELF, probe it, receive it. */
    CHECK(MPI_Send(buf, 1, MPI_INT, 0, 3, MPI_COMM_SELF) == MPI_SUCCESS);
    CHECK(MPI_Mprobe(0, 3, MPI_COMM_SELF, &m, &st) == MPI_SUCCESS && m != MPI_MESSAGE_NULL);
    freed_msg = m;
    CHECK(MPI_Mrecv(rbuf, 1, MPI_INT, &m, &st) == MPI_SUCCESS && m == MPI_MESSAGE_NULL);

    for (int i = 0; i < 4; i++) {
        void *p = i < 3 ? made_up[i] : NULL;

        /* Requests. */
        req = i < 3 ? (MPI_Request)p : freed_req;
        BAD(MPI_ERR_REQUEST, "MPI_Wait", "request", MPI_Wait(&req, &st));
        BAD(MPI_ERR_REQUEST, "MPI_Test", "request", MPI_Test(&req, &flag, &st));
        BAD(MPI_ERR_REQUEST, "MPI_Request_free", "request", MPI_Request_free(&req));
        BAD(MPI_ERR_REQUEST, "MPI_Cancel", "request", MPI_Cancel(&req));
        reqs[0] = MPI_REQUEST_NULL;
        reqs[1] = req;
        BAD(MPI_ERR_REQUEST, "MPI_Waitall", "array_of_requests[1]",
            MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        BAD(MPI_ERR_REQUEST, "MPI_Testany", "array_of_requests[1]",
            MPI_Testany(2, reqs, &idx, &flag, &st));
        CHECK(req == reqs[1]); /* a refused call leaves the handle as it was */

        /* Messages (a bad message is a request error, MPI-4.1 Sec. 3.8.3). */
        m = i < 3 ? (MPI_Message)p : freed_msg;
        BAD(MPI_ERR_REQUEST, "MPI_Mrecv", "message", MPI_Mrecv(rbuf, 1, MPI_INT, &m, &st));
        BAD(MPI_ERR_REQUEST, "MPI_Imrecv", "message", MPI_Imrecv(rbuf, 1, MPI_INT, &m, &req));

        /* Windows. */
        wn = i < 3 ? (MPI_Win)p : freed_win;
        BAD(MPI_ERR_WIN, "MPI_Win_fence", "win", MPI_Win_fence(0, wn));
        BAD(MPI_ERR_WIN, "MPI_Put", "win", MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, wn));
        BAD(MPI_ERR_WIN, "MPI_Win_free", "win", MPI_Win_free(&wn));
        CHECK(wn == (i < 3 ? (MPI_Win)p : freed_win));

        /* Groups. */
        h = i < 3 ? (MPI_Group)p : freed_group;
        BAD(MPI_ERR_GROUP, "MPI_Group_size", "group", MPI_Group_size(h, &n));
        BAD(MPI_ERR_GROUP, "MPI_Group_rank", "group", MPI_Group_rank(h, &n));
        BAD(MPI_ERR_GROUP, "MPI_Group_compare", "group2", MPI_Group_compare(g, h, &n));
        BAD(MPI_ERR_GROUP, "MPI_Comm_create", "group", MPI_Comm_create(MPI_COMM_SELF, h, &newcomm));
        BAD(MPI_ERR_GROUP, "MPI_Group_free", "group", MPI_Group_free(&h));

        /* Ops. */
        o = i < 3 ? (MPI_Op)p : freed_op;
        BAD(MPI_ERR_OP, "MPI_Allreduce", "op",
            MPI_Allreduce(buf, rbuf, 1, MPI_INT, o, MPI_COMM_SELF));
        BAD(MPI_ERR_OP, "MPI_Reduce_local", "op", MPI_Reduce_local(buf, rbuf, 1, MPI_INT, o));
        BAD(MPI_ERR_OP, "MPI_Op_commutative", "op", MPI_Op_commutative(o, &n));
        BAD(MPI_ERR_OP, "MPI_Op_free", "op", MPI_Op_free(&o));

        /* Datatypes. */
        t = i < 3 ? (MPI_Datatype)p : freed_type;
        BAD(MPI_ERR_TYPE, "MPI_Send", "datatype", MPI_Send(buf, 1, t, peer, 0, MPI_COMM_WORLD));
        BAD(MPI_ERR_TYPE, "MPI_Type_size", "datatype", MPI_Type_size(t, &n));
        BAD(MPI_ERR_TYPE, "MPI_Type_commit", "datatype", MPI_Type_commit(&t));
        BAD(MPI_ERR_TYPE, "MPI_Type_free", "datatype", MPI_Type_free(&t));

        /* Error handlers. */
        e = i < 3 ? (MPI_Errhandler)p : freed_eh;
        BAD(MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler", "errhandler",
            MPI_Comm_set_errhandler(MPI_COMM_SELF, e));
        BAD(MPI_ERR_ERRHANDLER, "MPI_Errhandler_free", "errhandler", MPI_Errhandler_free(&e));

        /* Communicators (a freed one is in test_table). */
        if (i < 3) {
            BAD(MPI_ERR_COMM, "MPI_Send", "comm", MPI_Send(buf, 1, MPI_INT, peer, 0, (MPI_Comm)p));
            BAD(MPI_ERR_COMM, "MPI_Comm_size", "comm", MPI_Comm_size((MPI_Comm)p, &n));
        }
    }
    /* Inside a live request, not at its start. */
    req = (MPI_Request)(void *)((char *)live + 8);
    BAD(MPI_ERR_REQUEST, "MPI_Wait", "request", MPI_Wait(&req, &st));
    req = (MPI_Request)(void *)((char *)live + sizeof(void *) * 3);
    BAD(MPI_ERR_REQUEST, "MPI_Test", "request", MPI_Test(&req, &flag, &st));

    /* The live objects were not disturbed. */
    CHECK(MPI_Test(&live, &flag, &st) == MPI_SUCCESS && !flag);
    CHECK(MPI_Cancel(&live) == MPI_SUCCESS);
    CHECK(MPI_Wait(&live, &st) == MPI_SUCCESS && live == MPI_REQUEST_NULL);
    CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Group_size(g, &n) == MPI_SUCCESS && n == size);
    CHECK(MPI_Group_free(&g) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    still_works("made-up and freed handles");
    if (rank == 0)
        printf("errors: made-up and freed handles of every kind refused\n");
}

/* A user handler records what it was called with. */
static MPI_Comm seen_comm;
static int seen_code, seen_calls;
static char seen_string[MPI_MAX_ERROR_STRING];

static void handler(MPI_Comm *comm, int *code, ...)
{
    int len;

    seen_comm = *comm;
    seen_code = *code;
    seen_calls++;
    MPI_Error_string(*code, seen_string, &len);
}

static void test_user_handler(void)
{
    MPI_Errhandler eh, got, stale;
    MPI_Comm dup, split;
    int buf = 0, rc, cls;

    CHECK(MPI_Comm_create_errhandler(handler, &eh) == MPI_SUCCESS);
    stale = eh;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(dup, &got) == MPI_SUCCESS && got == eh);
    CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS && got == MPI_ERRHANDLER_NULL);
    /* The communicator keeps the handler alive after the handle is freed. */
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL);

    rc = MPI_Send(&buf, 1, MPI_INT, size, 0, dup);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_RANK);
    if (seen_calls != 1 || seen_comm != dup || seen_code != rc)
        FAIL("handler: %d calls, comm %s, code %d (returned %d)", seen_calls,
             seen_comm == dup ? "right" : "wrong", seen_code, rc);
    CHECK(strstr(seen_string, "MPI_ERR_RANK") != NULL);

    CHECK(MPI_Comm_call_errhandler(dup, MPI_ERR_TAG) == MPI_SUCCESS);
    CHECK(seen_calls == 2 && seen_code == MPI_ERR_TAG && seen_comm == dup);

    /* Inherited by communicators made from dup. */
    CHECK(MPI_Comm_split(dup, rank % 2, rank, &split) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    rc = MPI_Bcast(&buf, 1, MPI_INT, 99, split);
    CHECK(rc == MPI_ERR_ROOT && seen_calls == 3 && seen_comm == split);
    CHECK(MPI_Comm_dup(split, &dup) == MPI_SUCCESS);
    rc = MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    CHECK(rc == MPI_SUCCESS && seen_calls == 4 && seen_comm == dup);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    /* Predefined handlers: get returns them, freeing them only nulls the handle. */
    CHECK(MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(split, &got) == MPI_SUCCESS && got == MPI_ERRORS_RETURN);
    CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS && got == MPI_ERRHANDLER_NULL);
    CHECK(MPI_Comm_call_errhandler(split, MPI_ERR_OTHER) == MPI_SUCCESS && seen_calls == 4);
    CHECK(MPI_Comm_free(&split) == MPI_SUCCESS);
    /* The last communicator using it is gone: the handle is now invalid. */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, stale) == MPI_ERR_ERRHANDLER);
    still_works("user handlers");
}

static void test_add_error(void)
{
    int cls, code, code2, cls2, len, *last, flag;
    char s[MPI_MAX_ERROR_STRING], big[MPI_MAX_ERROR_STRING + 10];

    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS && cls > MPI_ERR_LASTCODE);
    CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS && code != cls);
    CHECK(MPI_Add_error_code(MPI_ERR_TAG, &code2) == MPI_SUCCESS);
    CHECK(MPI_Error_class(code, &cls2) == MPI_SUCCESS && cls2 == cls);
    CHECK(MPI_Error_class(cls, &cls2) == MPI_SUCCESS && cls2 == cls);
    CHECK(MPI_Error_class(code2, &cls2) == MPI_SUCCESS && cls2 == MPI_ERR_TAG);
    CHECK(MPI_Error_string(code, s, &len) == MPI_SUCCESS && len == 0 && s[0] == '\0');
    CHECK(MPI_Add_error_string(cls, "my class") == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(code, "my code, first") == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(code, "my code") == MPI_SUCCESS);
    CHECK(MPI_Error_string(cls, s, &len) == MPI_SUCCESS && strcmp(s, "my class") == 0 && len == 8);
    CHECK(MPI_Error_string(code, s, &len) == MPI_SUCCESS && strcmp(s, "my code") == 0);
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(code, big) == MPI_ERR_ARG);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS);
    CHECK(flag && *last == code2 && code2 > code);
    /* A user code raised through a handler keeps its class. */
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    still_works("added error codes");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    int flag = -1, v, sv, len;
    char s[MPI_MAX_ERROR_STRING];

    if (strcmp(mode, "before-init") == 0) {
        /* Allowed before MPI_Init. */
        CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 0);
        CHECK(MPI_Get_version(&v, &sv) == MPI_SUCCESS && v == 5);
        CHECK(MPI_Error_string(MPI_ERR_RANK, s, &len) == MPI_SUCCESS);
        CHECK(MPI_Error_class(MPI_ERR_RANK, &v) == MPI_SUCCESS && v == MPI_ERR_RANK);
        printf("errors: before-init allowed calls ok\n");
        fflush(stdout);
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        printf("errors: MPI_Send before MPI_Init returned\n");
        return 0;
    }
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    peer = (rank + 1) % size;

    if (strcmp(mode, "fatal") == 0) {
        int buf = 0;
        if (rank == size - 1)
            MPI_Send(&buf, -4, MPI_INT, peer, 0, MPI_COMM_WORLD);
        else
            sleep(30); /* the job must end because of the other rank, long before this */
        printf("errors: rank %d: MPI_Send returned under MPI_ERRORS_ARE_FATAL\n", rank);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "after-finalize") == 0) {
        CHECK(MPI_Finalize() == MPI_SUCCESS);
        CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 1);
        CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 1);
        CHECK(MPI_Get_version(&v, &sv) == MPI_SUCCESS && v == 5);
        CHECK(MPI_Error_string(MPI_ERR_TAG, s, &len) == MPI_SUCCESS);
        printf("errors: after-finalize allowed calls ok\n");
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        printf("errors: MPI_Barrier after MPI_Finalize returned\n");
        return 0;
    }
    if (size < 2)
        FAIL("needs 2 or more ranks");

    test_table();
    MPI_Barrier(MPI_COMM_WORLD);
    test_bad_handles();
    MPI_Barrier(MPI_COMM_WORLD);
    test_user_handler();
    test_add_error();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("errors: all passed (%d ranks)\n", size);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
