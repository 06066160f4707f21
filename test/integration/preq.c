/* Persistent, combined, generalized and partitioned requests: every payload checked element by
 * element, many requests outstanding and restarted with new data, eager and rendezvous sizes,
 * derived datatypes, several communicators, and the error cases under MPI_ERRORS_RETURN. */
#define MPITEST_NAME         "preq"
#define MPITEST_THREAD_LEVEL MPI_THREAD_SERIALIZED /* part_eager readies from threads */
#include "mpitest.h"

#include <pthread.h>

/* Sizes in ints: eager, fragmented, and above every rendezvous threshold. */
static const int sizes[] = {0, 1, 7, 333, 4099, 40013};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static int value(int seed, int src, int dst, int i)
{
    return seed * 1000003 + src * 10007 + dst * 101 + i;
}

static void fill_ints(int *buf, int n, int seed, int src, int dst)
{
    for (int i = 0; i < n; i++)
        buf[i] = value(seed, src, dst, i);
}

static void check_ints(const int *buf, int n, int seed, int src, int dst, const char *what)
{
    for (int i = 0; i < n; i++) {
        if (buf[i] != value(seed, src, dst, i))
            FAIL("%s: element %d of %d from %d to %d (seed %d) is %d, expected %d", what, i, n, src,
                 dst, seed, buf[i], value(seed, src, dst, i));
    }
}

static void check_empty(const MPI_Status *st, const char *what)
{
    int count;
    MPI_Get_count(st, MPI_INT, &count);
    if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG || count != 0)
        FAIL("%s: status not empty (source %d, tag %d, count %d)", what, st->MPI_SOURCE,
             st->MPI_TAG, count);
}

/* Every rank sends to every rank (itself too) with persistent requests of each size, all
 * outstanding at once, restarted with new data; on two communicators. */
static void test_persist(void)
{
    MPI_Comm comms[2];
    int n = sizes[NSIZES - 1];
    int nreq = 2 * 2 * size * NSIZES;
    MPI_Request *reqs = xmalloc(sizeof(*reqs) * (size_t)nreq);
    MPI_Status *st = xmalloc(sizeof(*st) * (size_t)nreq);
    int **bufs = xmalloc(sizeof(*bufs) * (size_t)nreq);
    int k = 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[1]); /* reversed ranks */
    for (int c = 0; c < 2; c++) {
        int me;
        MPI_Comm_rank(comms[c], &me);
        for (int p = 0; p < size; p++) {
            for (int s = 0; s < NSIZES; s++) {
                bufs[k] = xmalloc(sizeof(int) * (size_t)(n + 1));
                MPI_Recv_init(bufs[k], sizes[s], MPI_INT, p, s, comms[c], &reqs[k]);
                k++;
                bufs[k] = xmalloc(sizeof(int) * (size_t)(n + 1));
                MPI_Send_init(bufs[k], sizes[s], MPI_INT, p, s, comms[c], &reqs[k]);
                k++;
            }
        }
    }
    CHECK(k == nreq);
    /* Inactive: Wait and Test return at once, empty. */
    MPI_Wait(&reqs[0], &st[0]);
    CHECK(reqs[0] != MPI_REQUEST_NULL);
    check_empty(&st[0], "inactive wait");
    for (int iter = 0; iter < 12; iter++) {
        k = 0;
        for (int c = 0; c < 2; c++) {
            int me;
            MPI_Comm_rank(comms[c], &me);
            for (int p = 0; p < size; p++) {
                for (int s = 0; s < NSIZES; s++) {
                    memset(bufs[k], 0xee, sizeof(int) * (size_t)(sizes[s] + 1));
                    fill_ints(bufs[k + 1], sizes[s], iter * 7 + c, me, p);
                    k += 2;
                }
            }
        }
        if (iter % 3 == 0) {
            MPI_Startall(nreq, reqs);
        } else {
            for (int i = nreq - 1; i >= 0; i--)
                MPI_Start(&reqs[i]);
        }
        if (iter % 2 == 0) {
            MPI_Waitall(nreq, reqs, st);
        } else {
            int done = 0, outcount, idx[4096];
            CHECK(nreq <= 4096);
            while (done < nreq) {
                MPI_Testsome(nreq, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
                CHECK(outcount != MPI_UNDEFINED);
                done += outcount;
            }
            /* All inactive now: like null requests. */
            MPI_Testsome(nreq, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
            CHECK(outcount == MPI_UNDEFINED);
            for (int i = 0; i < nreq; i++)
                st[i].MPI_SOURCE = -99;
        }
        k = 0;
        for (int c = 0; c < 2; c++) {
            int me;
            MPI_Comm_rank(comms[c], &me);
            for (int p = 0; p < size; p++) {
                for (int s = 0; s < NSIZES; s++) {
                    CHECK(reqs[k] != MPI_REQUEST_NULL && reqs[k + 1] != MPI_REQUEST_NULL);
                    check_ints(bufs[k], sizes[s], iter * 7 + c, p, me, "persistent receive");
                    CHECK(((unsigned *)bufs[k])[sizes[s]] == 0xeeeeeeeeu); /* nothing beyond */
                    if (st[k].MPI_SOURCE != -99) {
                        int count;
                        MPI_Get_count(&st[k], MPI_INT, &count);
                        CHECK(st[k].MPI_SOURCE == p && st[k].MPI_TAG == s && count == sizes[s]);
                    }
                    k += 2;
                }
            }
        }
    }
    /* Inactive requests are like null ones for the any/some calls. */
    {
        int idx, flag;
        MPI_Waitany(nreq, reqs, &idx, &st[0]);
        CHECK(idx == MPI_UNDEFINED);
        check_empty(&st[0], "waitany of inactive requests");
        MPI_Testany(nreq, reqs, &idx, &flag, MPI_STATUS_IGNORE);
        CHECK(idx == MPI_UNDEFINED && flag);
        MPI_Testall(nreq, reqs, &flag, st);
        CHECK(flag);
        check_empty(&st[nreq - 1], "testall of inactive requests");
    }
    for (int i = 0; i < nreq; i++) {
        MPI_Request_free(&reqs[i]);
        CHECK(reqs[i] == MPI_REQUEST_NULL);
        free(bufs[i]);
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    free(reqs);
    free(st);
    free(bufs);
}

/* The modes: synchronous, ready (receive posted first), buffered; with ordinary messages of
 * the same envelope in between, which must keep their order. */
static void test_modes(void)
{
    int n = 5001, right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = xmalloc(sizeof(int) * (size_t)n), *rbuf = xmalloc(sizeof(int) * (size_t)n);
    int *obuf = xmalloc(sizeof(int) * (size_t)n), *orbuf = xmalloc(sizeof(int) * (size_t)n);
    int bsize = (int)(sizeof(int) * (size_t)n * 2 + 2 * MPI_BSEND_OVERHEAD);
    void *battach = xmalloc((size_t)bsize);
    MPI_Request s[3], r;

    MPI_Buffer_attach(battach, bsize);
    MPI_Ssend_init(sbuf, n, MPI_INT, right, 5, MPI_COMM_WORLD, &s[0]);
    MPI_Rsend_init(sbuf, n, MPI_INT, right, 5, MPI_COMM_WORLD, &s[1]);
    MPI_Bsend_init(sbuf, n, MPI_INT, right, 5, MPI_COMM_WORLD, &s[2]);
    MPI_Recv_init(rbuf, n, MPI_INT, left, 5, MPI_COMM_WORLD, &r);
    for (int iter = 0; iter < 9; iter++) {
        int m = iter % 3;
        MPI_Request o[2];
        MPI_Start(&r);
        MPI_Irecv(orbuf, n, MPI_INT, left, 5, MPI_COMM_WORLD, &o[0]);
        MPI_Barrier(MPI_COMM_WORLD); /* receives posted: the ready send is legal */
        fill_ints(sbuf, n, iter, rank, right);
        MPI_Start(&s[m]);
        if (m == 2)
            fill_ints(sbuf, n, 999, 0, 0); /* buffered: the data was copied at the start */
        fill_ints(obuf, n, iter + 100, rank, right);
        MPI_Isend(obuf, n, MPI_INT, right, 5, MPI_COMM_WORLD, &o[1]);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Wait(&s[m], MPI_STATUS_IGNORE);
        MPI_Waitall(2, o, MPI_STATUSES_IGNORE);
        check_ints(rbuf, n, iter, left, rank, "persistent mode send");
        check_ints(orbuf, n, iter + 100, left, rank, "ordinary send after a persistent one");
    }
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&s[i]);
    MPI_Request_free(&r);
    MPI_Buffer_detach(&battach, &bsize);
    free(battach);
    free(sbuf);
    free(rbuf);
    free(obuf);
    free(orbuf);
}

/* A derived type (strided, freed right after the init: the request keeps it) on both sides. */
static void test_dtype(void)
{
    int n = 3001, right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = xmalloc(sizeof(int) * (size_t)n * 3), *rbuf = xmalloc(sizeof(int) * (size_t)n * 2);
    int *packed = xmalloc(sizeof(int) * (size_t)n);
    MPI_Datatype vec, pair;
    MPI_Request req[2];
    MPI_Status st;

    MPI_Type_vector(n, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_vector(n, 1, 2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Send_init(sbuf, 1, vec, right, 9, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(rbuf, 1, pair, left, 9, MPI_COMM_WORLD, &req[1]);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    for (int iter = 0; iter < 10; iter++) {
        fill_ints(packed, n, iter, rank, right);
        for (int i = 0; i < n; i++) {
            sbuf[3 * i] = packed[i];
            sbuf[3 * i + 1] = sbuf[3 * i + 2] = -1;
        }
        for (int i = 0; i < 2 * n; i++)
            rbuf[i] = -7;
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i++) {
            packed[i] = rbuf[2 * i];
            if (i + 1 < n && rbuf[2 * i + 1] != -7)
                FAIL("the gap after element %d was written", i);
        }
        check_ints(packed, n, iter, left, rank, "persistent derived type");
    }
    /* Cancel a started receive that nothing matches: cancelled, then it works again. */
    MPI_Request c;
    MPI_Recv_init(rbuf, 1, MPI_INT, left, 12345, MPI_COMM_WORLD, &c);
    MPI_Start(&c);
    MPI_Cancel(&c);
    MPI_Wait(&c, &st);
    int flag;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag);
    CHECK(c != MPI_REQUEST_NULL);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive cancelled before any send */
    rbuf[0] = -1;
    MPI_Start(&c);
    MPI_Send(&rank, 1, MPI_INT, right, 12345, MPI_COMM_WORLD);
    MPI_Wait(&c, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag && rbuf[0] == left && st.MPI_SOURCE == left);
    MPI_Request_free(&c);
    /* Freeing an active persistent send: the message still arrives. */
    MPI_Request f;
    fill_ints(packed, n, 77, rank, right);
    MPI_Send_init(packed, n, MPI_INT, right, 13, MPI_COMM_WORLD, &f);
    MPI_Start(&f);
    MPI_Request_free(&f);
    CHECK(f == MPI_REQUEST_NULL);
    MPI_Recv(rbuf, n, MPI_INT, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check_ints(rbuf, n, 77, left, rank, "send of a freed active request");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    free(sbuf);
    free(rbuf);
    free(packed);
}

/* MPI_Isendrecv and _replace with every peer at once, all sizes; replace with a derived type. */
static void test_isendrecv(void)
{
    int n = sizes[NSIZES - 1];
    int nreq = 2 * size * NSIZES;
    MPI_Request *reqs = xmalloc(sizeof(*reqs) * (size_t)nreq);
    MPI_Status *st = xmalloc(sizeof(*st) * (size_t)nreq);
    int **sb = xmalloc(sizeof(*sb) * (size_t)nreq), **rb = xmalloc(sizeof(*rb) * (size_t)nreq);
    MPI_Datatype vec;

    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int iter = 0; iter < 4; iter++) {
        int k = 0;
        for (int p = 0; p < size; p++) {
            for (int s = 0; s < NSIZES; s++) {
                sb[k] = xmalloc(sizeof(int) * (size_t)n);
                rb[k] = xmalloc(sizeof(int) * (size_t)(n + 1));
                fill_ints(sb[k], sizes[s], iter, rank, p);
                memset(rb[k], 0xee, sizeof(int) * (size_t)(sizes[s] + 1));
                MPI_Isendrecv(sb[k], sizes[s], MPI_INT, p, s, rb[k], sizes[s], MPI_INT, p, s,
                              MPI_COMM_WORLD, &reqs[k]);
                k++;
                /* replace: buf holds what goes, then what came */
                sb[k] = NULL;
                rb[k] = xmalloc(sizeof(int) * (size_t)(n + 1));
                fill_ints(rb[k], sizes[s], iter + 50, rank, p);
                rb[k][sizes[s]] = -5;
                MPI_Isendrecv_replace(rb[k], sizes[s], MPI_INT, p, 100 + s, p, 100 + s,
                                      MPI_COMM_WORLD, &reqs[k]);
                k++;
            }
        }
        if (iter % 2)
            MPI_Waitall(nreq, reqs, st);
        else
            for (int i = 0; i < nreq; i++) {
                int idx;
                MPI_Waitany(nreq, reqs, &idx, &st[0]);
                CHECK(idx != MPI_UNDEFINED && reqs[idx] == MPI_REQUEST_NULL);
            }
        k = 0;
        for (int p = 0; p < size; p++) {
            for (int s = 0; s < NSIZES; s++) {
                CHECK(reqs[k] == MPI_REQUEST_NULL);
                check_ints(rb[k], sizes[s], iter, p, rank, "isendrecv");
                CHECK(((unsigned *)rb[k])[sizes[s]] == 0xeeeeeeeeu);
                if (iter % 2) {
                    int count;
                    MPI_Get_count(&st[k], MPI_INT, &count);
                    CHECK(st[k].MPI_SOURCE == p && st[k].MPI_TAG == s && count == sizes[s]);
                }
                check_ints(rb[k + 1], sizes[s], iter + 50, p, rank, "isendrecv_replace");
                CHECK(rb[k + 1][sizes[s]] == -5);
                free(sb[k]);
                free(rb[k]);
                free(rb[k + 1]);
                k += 2;
            }
        }
    }
    /* Replace with a strided type, to the right and from the left. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *buf = xmalloc(sizeof(int) * (size_t)n * 2);
    for (int i = 0; i < n; i++) {
        buf[2 * i] = value(9, rank, right, i);
        buf[2 * i + 1] = -3;
    }
    MPI_Isendrecv_replace(buf, 1, vec, right, 3, left, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        CHECK(buf[2 * i] == value(9, left, rank, i) && buf[2 * i + 1] == -3);
    free(buf);
    MPI_Type_free(&vec);
    free(reqs);
    free(st);
    free(sb);
    free(rb);
}

/* MPI_Request_get_status and its array forms leave requests as they are. */
static void test_get_status(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, n = 20011;
    int *rbuf = xmalloc(sizeof(int) * (size_t)n), *sbuf = xmalloc(sizeof(int) * (size_t)n);
    MPI_Request r[3], ps;
    MPI_Status st[3];
    int flag, idx, outcount, indices[3];

    MPI_Irecv(rbuf, n, MPI_INT, left, 21, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    MPI_Recv_init(sbuf, 1, MPI_INT, left, 22, MPI_COMM_WORLD, &r[2]); /* inactive */
    MPI_Request_get_status(r[0], &flag, &st[0]);
    CHECK(!flag); /* the sender waits for the barrier */
    MPI_Request_get_status_any(3, r, &idx, &flag, &st[0]);
    CHECK(!flag && idx == MPI_UNDEFINED);
    MPI_Request_get_status_all(3, r, &flag, st);
    CHECK(!flag);
    MPI_Request_get_status_some(3, r, &outcount, indices, st);
    CHECK(outcount == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    fill_ints(sbuf, n, 3, rank, right);
    MPI_Send(sbuf, n, MPI_INT, right, 21, MPI_COMM_WORLD);
    do
        MPI_Request_get_status(r[0], &flag, &st[0]);
    while (!flag);
    CHECK(r[0] != MPI_REQUEST_NULL && st[0].MPI_SOURCE == left && st[0].MPI_TAG == 21);
    MPI_Request_get_status(r[0], &flag, &st[1]); /* again: the same */
    CHECK(flag && st[1].MPI_SOURCE == left);
    MPI_Request_get_status_any(3, r, &idx, &flag, &st[0]);
    CHECK(flag && idx == 0);
    MPI_Request_get_status_all(3, r, &flag, st);
    CHECK(flag && st[0].MPI_SOURCE == left);
    check_empty(&st[1], "get_status_all of a null request");
    check_empty(&st[2], "get_status_all of an inactive request");
    MPI_Request_get_status_some(3, r, &outcount, indices, st);
    CHECK(outcount == 1 && indices[0] == 0);
    MPI_Wait(&r[0], &st[0]);
    CHECK(r[0] == MPI_REQUEST_NULL);
    check_ints(rbuf, n, 3, left, rank, "get_status then wait");
    MPI_Request_get_status_some(3, r, &outcount, indices, st);
    CHECK(outcount == MPI_UNDEFINED);
    MPI_Request_get_status_any(3, r, &idx, &flag, &st[0]);
    CHECK(flag && idx == MPI_UNDEFINED);
    /* A persistent one stays active until Wait. */
    MPI_Send_init(sbuf, 1, MPI_INT, rank, 23, MPI_COMM_WORLD, &ps);
    MPI_Start(&ps);
    MPI_Recv(rbuf, 1, MPI_INT, rank, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    do
        MPI_Request_get_status(ps, &flag, MPI_STATUS_IGNORE);
    while (!flag);
    MPI_Wait(&ps, MPI_STATUS_IGNORE);
    MPI_Request_free(&ps);
    MPI_Request_free(&r[2]);
    free(rbuf);
    free(sbuf);
}

/* ---- generalized requests ---- */
typedef struct {
    int queries, frees, cancels, cancel_complete;
    int query_error, free_error;
    int elements;
    MPI_Datatype type;
} greq_state_t;

static int g_query(void *extra, MPI_Status *st)
{
    greq_state_t *g = extra;
    g->queries++;
    MPI_Status_set_elements(st, g->type, g->elements);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 4;
    st->MPI_TAG = 44;
    return g->query_error;
}

static int g_free(void *extra)
{
    greq_state_t *g = extra;
    g->frees++;
    return g->free_error;
}

static int g_cancel(void *extra, int complete)
{
    greq_state_t *g = extra;
    g->cancels++;
    g->cancel_complete = complete;
    return MPI_SUCCESS;
}

static void test_greq(void)
{
    greq_state_t g[4];
    MPI_Request r[4];
    MPI_Status st[4];
    MPI_Datatype stype;
    int flag, count, blens[2] = {2, 1};
    MPI_Aint disps[2] = {0, 16};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Count cx;

    MPI_Type_create_struct(2, blens, disps, types, &stype);
    MPI_Type_commit(&stype);
    memset(g, 0, sizeof(g));
    for (int i = 0; i < 4; i++) {
        g[i].type = stype;
        g[i].elements = 3 * i + 2; /* i whole structs (3 basic elements each) and 2 ints */
        MPI_Grequest_start(g_query, g_free, g_cancel, &g[i], &r[i]);
    }
    /* Nothing completes before MPI_Grequest_complete; Test calls no callback. */
    MPI_Test(&r[0], &flag, &st[0]);
    CHECK(!flag && g[0].queries == 0 && g[0].frees == 0);
    MPI_Cancel(&r[1]);
    CHECK(g[1].cancels == 1 && g[1].cancel_complete == 0);
    /* Completed from a later call: the status comes from query_fn, then free_fn runs. */
    MPI_Grequest_complete(r[0]);
    MPI_Request_get_status(r[0], &flag, &st[0]);
    CHECK(flag && g[0].queries == 1 && g[0].frees == 0 && st[0].MPI_TAG == 44);
    MPI_Wait(&r[0], &st[0]);
    CHECK(r[0] == MPI_REQUEST_NULL && g[0].queries == 2 && g[0].frees == 1);
    MPI_Get_elements(&st[0], stype, &count);
    CHECK(count == 2);
    MPI_Get_count(&st[0], stype, &count);
    CHECK(count == MPI_UNDEFINED);
    MPI_Get_count(&st[0], MPI_INT, &count);
    CHECK(count == 2);
    MPI_Grequest_complete(r[2]);
    MPI_Cancel(&r[2]);
    CHECK(g[2].cancel_complete == 1);
    MPI_Wait(&r[2], &st[2]);
    MPI_Get_elements_x(&st[2], stype, &cx);
    CHECK(cx == 8);
    MPI_Get_count(&st[2], stype, &count);
    CHECK(count == MPI_UNDEFINED);
    MPI_Status_set_elements(&st[2], stype, 6); /* two whole structs */
    MPI_Get_count(&st[2], stype, &count);
    CHECK(count == 2);
    MPI_Get_elements(&st[2], stype, &count);
    CHECK(count == 6);
    MPI_Status_set_elements_x(&st[2], stype, 4); /* a struct and one int */
    MPI_Get_elements_x(&st[2], stype, &cx);
    CHECK(cx == 4);
    MPI_Get_count(&st[2], MPI_INT, &count);
    CHECK(count == 5); /* 8 + 8 + 4 bytes */
    MPI_Status_set_cancelled(&st[2], 1);
    MPI_Test_cancelled(&st[2], &flag);
    CHECK(flag);
    /* Freed before completion: free_fn runs at MPI_Grequest_complete. */
    MPI_Request kept = r[1];
    MPI_Request_free(&r[1]);
    CHECK(r[1] == MPI_REQUEST_NULL && g[1].frees == 0);
    MPI_Grequest_complete(kept); /* the handle value the user kept */
    CHECK(g[1].frees == 1 && g[1].queries == 0);
    /* An error from query_fn: MPI_ERR_IN_STATUS from Waitall, the error in the status. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    g[3].query_error = MPI_ERR_OTHER;
    MPI_Grequest_complete(r[3]);
    MPI_Request two[2];
    MPI_Irecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &two[0]);
    two[1] = r[3];
    int rc = MPI_Waitall(2, two, st);
    int eclass;
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_IN_STATUS);
    CHECK(st[1].MPI_ERROR == MPI_ERR_OTHER && st[0].MPI_ERROR == MPI_SUCCESS);
    CHECK(g[3].frees == 1 && two[1] == MPI_REQUEST_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&stype);
}

/* ---- partitioned communication ---- */
static unsigned rng_state;
static unsigned rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (unsigned)(i + 1)), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Send to the right, receive from the left: pair c has the sender's and the receiver's
 * partition counts of geom[c] (they differ), restarted with new data, partitions readied in
 * random order by single, range and list calls, arrivals polled. */
static void test_part(void)
{
    static const int geom[][3] = {
        /* send partitions, receive partitions, total ints */
        {8, 4, 8000},  {4, 8, 8000},   {1, 1, 1}, {3, 7, 21 * 5},
        {6, 2, 60000}, {2, 6, 120006}, {5, 5, 0}, {7, 1, 7 * 3333},
    };
    enum { NPAIR = sizeof(geom) / sizeof(geom[0]) };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request sreq[NPAIR], rreq[NPAIR], all[2 * NPAIR];
    int *sbuf[NPAIR], *rbuf[NPAIR];
    MPI_Comm comm;

    rng_state = 12345u + (unsigned)rank;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int c = 0; c < NPAIR; c++) {
        int total = geom[c][2];
        /* pairs 0 and 2 share tag and communicator: they match in the order of their first
         * starts */
        int tag = c == 0 || c == 2 ? 1 : c + 10; /* 0 and 2 on one comm */
        MPI_Comm pc = c % 2 ? comm : MPI_COMM_WORLD;
        sbuf[c] = xmalloc(sizeof(int) * (size_t)total);
        rbuf[c] = xmalloc(sizeof(int) * (size_t)(total + 1));
        MPI_Psend_init(sbuf[c], geom[c][0], total / geom[c][0], MPI_INT, right, tag, pc,
                       MPI_INFO_NULL, &sreq[c]);
        MPI_Precv_init(rbuf[c], geom[c][1], total / geom[c][1], MPI_INT, left, tag, pc,
                       MPI_INFO_NULL, &rreq[c]);
    }
    for (int iter = 0; iter < 10; iter++) {
        for (int c = 0; c < NPAIR; c++) {
            fill_ints(sbuf[c], geom[c][2], iter * 10 + c, rank, right);
            memset(rbuf[c], 0xee, sizeof(int) * (size_t)(geom[c][2] + 1));
            all[2 * c] = rreq[c];
            all[2 * c + 1] = sreq[c];
        }
        if (iter % 2)
            MPI_Startall(2 * NPAIR, all);
        else
            for (int c = 0; c < NPAIR; c++) {
                MPI_Start(&rreq[c]);
                MPI_Start(&sreq[c]);
            }
        for (int c = 0; c < NPAIR; c++) {
            int np = geom[c][0], order[8];
            for (int i = 0; i < np; i++)
                order[i] = i;
            shuffle(order, np);
            switch ((iter + c) % 3) {
            case 0:
                for (int i = 0; i < np; i++)
                    MPI_Pready(order[i], sreq[c]);
                break;
            case 1:
                MPI_Pready_list(np, order, sreq[c]);
                break;
            default:
                if (np > 1) {
                    MPI_Pready_range(np / 2, np - 1, sreq[c]);
                    MPI_Pready_range(0, np / 2 - 1, sreq[c]);
                } else {
                    MPI_Pready_range(0, 0, sreq[c]);
                }
                break;
            }
        }
        /* Arrivals, partition by partition; each partition's data is all there once it has
         * arrived. */
        for (int c = 0; c < NPAIR; c++) {
            int nr = geom[c][1], per = geom[c][2] / nr, seen = 0;
            char got[8] = {0};
            while (seen < nr) {
                for (int p = 0; p < nr; p++) {
                    int flag;
                    if (got[p])
                        continue;
                    MPI_Parrived(rreq[c], p, &flag);
                    if (flag) {
                        got[p] = 1;
                        seen++;
                        for (int i = p * per; i < (p + 1) * per; i++)
                            if (rbuf[c][i] != value(iter * 10 + c, left, rank, i))
                                FAIL("pair %d partition %d arrived but element %d is %d", c, p, i,
                                     rbuf[c][i]);
                    }
                }
            }
        }
        if (iter % 2) {
            MPI_Status st[2 * NPAIR];
            MPI_Waitall(2 * NPAIR, all, st);
            for (int c = 0; c < NPAIR; c++) {
                int count;
                MPI_Get_count(&st[2 * c], MPI_INT, &count);
                CHECK(count == geom[c][2] && st[2 * c].MPI_SOURCE == left);
            }
        } else {
            for (int c = 0; c < NPAIR; c++) {
                MPI_Wait(&sreq[c], MPI_STATUS_IGNORE);
                MPI_Wait(&rreq[c], MPI_STATUS_IGNORE);
            }
        }
        for (int c = 0; c < NPAIR; c++) {
            CHECK(sreq[c] != MPI_REQUEST_NULL && rreq[c] != MPI_REQUEST_NULL);
            check_ints(rbuf[c], geom[c][2], iter * 10 + c, left, rank, "partitioned");
            CHECK(((unsigned *)rbuf[c])[geom[c][2]] == 0xeeeeeeeeu);
        }
    }
    for (int c = 0; c < NPAIR; c++) {
        MPI_Request_free(&sreq[c]);
        MPI_Request_free(&rreq[c]);
        free(sbuf[c]);
        free(rbuf[c]);
    }
    MPI_Comm_free(&comm);
}

/* A derived type on each side (different ones, the same signature), big partitions, mixed
 * with ordinary messages of the same tag, and MPI_PROC_NULL. */
static void test_part_dtype(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int n = 30011 * 2, sp = 2, rp = 1; /* ints in all */
    int *sbuf = xmalloc(sizeof(int) * (size_t)n * 2), *rbuf = xmalloc(sizeof(int) * (size_t)n * 3);
    int ordinary[4], got[4];
    MPI_Datatype s2, r3;
    MPI_Request s, r, pn[2], o[2];

    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &s2);
    MPI_Type_commit(&s2);
    MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &r3);
    MPI_Type_commit(&r3);
    MPI_Psend_init(sbuf, sp, n / sp, s2, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Precv_init(rbuf, rp, n / rp, r3, left, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Psend_init(sbuf, 3, 2, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &pn[0]);
    MPI_Precv_init(rbuf, 3, 2, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &pn[1]);
    for (int iter = 0; iter < 6; iter++) {
        for (int i = 0; i < n; i++) {
            sbuf[2 * i] = value(iter, rank, right, i);
            sbuf[2 * i + 1] = -1;
        }
        for (int i = 0; i < 3 * n; i++)
            rbuf[i] = -9;
        MPI_Irecv(got, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &o[0]);
        MPI_Start(&r);
        MPI_Start(&s);
        MPI_Startall(2, pn);
        fill_ints(ordinary, 4, iter, rank, right);
        MPI_Isend(ordinary, 4, MPI_INT, right, 7, MPI_COMM_WORLD, &o[1]);
        MPI_Pready(1, s);
        MPI_Pready(0, s);
        MPI_Pready_range(0, 2, pn[0]);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Waitall(2, pn, MPI_STATUSES_IGNORE);
        MPI_Waitall(2, o, MPI_STATUSES_IGNORE);
        check_ints(got, 4, iter, left, rank, "ordinary message beside a partitioned one");
        for (int i = 0; i < n; i++) {
            if (rbuf[3 * i] != value(iter, left, rank, i) || rbuf[3 * i + 1] != -9 ||
                rbuf[3 * i + 2] != -9)
                FAIL("partitioned derived type: element %d is %d (gaps %d %d)", i, rbuf[3 * i],
                     rbuf[3 * i + 1], rbuf[3 * i + 2]);
        }
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    MPI_Request_free(&pn[0]);
    MPI_Request_free(&pn[1]);
    MPI_Type_free(&s2);
    MPI_Type_free(&r3);
    free(sbuf);
    free(rbuf);
}

/* A partition readied arrives while the sender holds the others back: the receiver sees it
 * (and only it), then tells the sender to go on. */
static void test_part_early(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, n = 8 * 4501;
    int *sbuf = xmalloc(sizeof(int) * (size_t)n), *rbuf = xmalloc(sizeof(int) * (size_t)n);
    MPI_Request s, r, go[2];
    int token = 0, flag;

    MPI_Psend_init(sbuf, 4, n / 4, MPI_INT, right, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Precv_init(rbuf, 8, n / 8, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int iter = 0; iter < 5; iter++) {
        fill_ints(sbuf, n, iter, rank, right);
        memset(rbuf, 0, sizeof(int) * (size_t)n);
        MPI_Start(&r);
        MPI_Start(&s);
        MPI_Irecv(&token, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &go[0]);
        MPI_Pready(0, s);
        do
            MPI_Parrived(r, 1, &flag); /* receiver partitions 0 and 1: sender partition 0 */
        while (!flag);
        check_ints(rbuf, n / 4, iter, left, rank, "early partition");
        MPI_Parrived(r, 2, &flag);
        CHECK(!flag);
        MPI_Isend(&token, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &go[1]);
        MPI_Waitall(2, go, MPI_STATUSES_IGNORE);
        MPI_Pready_range(1, 3, s);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        check_ints(rbuf, n, iter, left, rank, "partitioned after the early one");
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    free(sbuf);
    free(rbuf);
}

/* Pairs match in the order of their initialization calls (MPI-4.1 4.2), not of their starts:
 * two sends to one (communicator, tag) started in the reverse order of their inits, the
 * receives in the order of theirs, each data set landing in the receive initialized alongside.
 * Before them, a receive initialized and freed without a start, whose peer never comes, must take
 * nothing of the pairs after it. */
static void test_part_order(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, n = 3 * 1237;
    int *sa = xmalloc(sizeof(int) * (size_t)n), *sb = xmalloc(sizeof(int) * (size_t)n);
    int *ra = xmalloc(sizeof(int) * (size_t)n), *rb = xmalloc(sizeof(int) * (size_t)n);
    int *junk = xmalloc(sizeof(int) * (size_t)n);
    MPI_Request s[2], r[2], lone, all[4];

    MPI_Precv_init(junk, 3, n / 3, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &lone);
    CHECK(MPI_Request_free(&lone) == MPI_SUCCESS);
    CHECK(lone == MPI_REQUEST_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Psend_init(sa, 3, n / 3, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s[0]);
    MPI_Precv_init(ra, 1, n, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Psend_init(sb, 1, n, MPI_INT, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s[1]);
    MPI_Precv_init(rb, 3, n / 3, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    for (int iter = 0; iter < 4; iter++) {
        fill_ints(sa, n, 100 + iter, rank, right);
        fill_ints(sb, n, 200 + iter, rank, right);
        memset(ra, 0, sizeof(int) * (size_t)n);
        memset(rb, 0, sizeof(int) * (size_t)n);
        if (iter % 2 == 0) {
            MPI_Start(&s[1]);
            MPI_Pready(0, s[1]);
            MPI_Start(&s[0]);
            MPI_Start(&r[0]);
            MPI_Start(&r[1]);
        } else {
            MPI_Startall(2, r);
            MPI_Start(&s[1]);
            MPI_Start(&s[0]);
            MPI_Pready(0, s[1]);
        }
        MPI_Pready_range(0, 2, s[0]);
        all[0] = r[0];
        all[1] = r[1];
        all[2] = s[0];
        all[3] = s[1];
        CHECK(MPI_Waitall(4, all, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        check_ints(ra, n, 100 + iter, left, rank, "the first initialized pair");
        check_ints(rb, n, 200 + iter, left, rank, "the second initialized pair");
    }
    for (int i = 0; i < 2; i++) {
        MPI_Request_free(&s[i]);
        MPI_Request_free(&r[i]);
    }
    free(sa);
    free(sb);
    free(ra);
    free(rb);
    free(junk);
}

/* Partitions go as they are readied, not in partition order: partitions 100..127 of 200 are
 * readied (in random order) while 0..99 are not, and must arrive so (the receiver polls
 * MPI_Parrived for them before it lets its sender go on: waiting for partition 0 first would
 * hang here and fail on the time limit); the rest are readied in random order by 4 threads
 * (MPI_Pready under a mutex, as MPI_THREAD_SERIALIZED allows; from this thread at a lower
 * level), lanes wrapping at 128 included. Every element checked, restarted with new data. */
enum { EAGER_NP = 200, EAGER_PER = 1001, EAGER_THREADS = 4 };

typedef struct {
    MPI_Request req;
    const int *parts;
    int n;
    pthread_mutex_t *lock;
} ready_job_t;

static void *ready_thread(void *arg)
{
    ready_job_t *j = arg;

    for (int i = 0; i < j->n; i++) {
        pthread_mutex_lock(j->lock);
        if (MPI_Pready(j->parts[i], j->req) != MPI_SUCCESS)
            FAIL("MPI_Pready(%d) from a thread failed", j->parts[i]);
        pthread_mutex_unlock(j->lock);
    }
    return NULL;
}

static void test_part_eager(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, provided;
    int total = EAGER_NP * EAGER_PER, first[28], rest[EAGER_NP - 28];
    int *sbuf = xmalloc(sizeof(int) * (size_t)total), *rbuf = xmalloc(sizeof(int) * (size_t)total);
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    MPI_Request s, r;

    MPI_Query_thread(&provided);
    rng_state = 777u + (unsigned)rank;
    MPI_Psend_init(sbuf, EAGER_NP, EAGER_PER, MPI_INT, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Precv_init(rbuf, EAGER_NP, EAGER_PER, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int iter = 0; iter < 3; iter++) {
        double t0;
        int nf = 0, nr = 0, token = 0;
        fill_ints(sbuf, total, 300 + iter, rank, right);
        memset(rbuf, 0, sizeof(int) * (size_t)total);
        for (int u = 0; u < EAGER_NP; u++) {
            if (u >= 100 && u < 128)
                first[nf++] = u;
            else
                rest[nr++] = u;
        }
        shuffle(first, nf);
        shuffle(rest, nr);
        MPI_Start(&r);
        MPI_Start(&s);
        for (int i = 0; i < nf; i++)
            MPI_Pready(first[i], s);
        /* Our receiver's partitions 100..127 must come though 0..99 are not ready. */
        t0 = MPI_Wtime();
        for (int i = 0; i < nf; i++) {
            int flag = 0;
            while (!flag) {
                MPI_Parrived(r, first[i], &flag);
                if (!flag && MPI_Wtime() - t0 > 60)
                    FAIL("partition %d readied alone did not arrive in 60 s: partitions wait "
                         "for those before them",
                         first[i]);
            }
            for (int k = first[i] * EAGER_PER; k < (first[i] + 1) * EAGER_PER; k++)
                if (rbuf[k] != value(300 + iter, left, rank, k))
                    FAIL("partition %d arrived early but element %d is %d", first[i], k, rbuf[k]);
        }
        MPI_Sendrecv(&token, 1, MPI_INT, left, 6, &token, 1, MPI_INT, right, 6, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (provided >= MPI_THREAD_SERIALIZED) {
            pthread_t th[EAGER_THREADS];
            ready_job_t jobs[EAGER_THREADS];
            for (int t = 0; t < EAGER_THREADS; t++) {
                int lo = nr * t / EAGER_THREADS, hi = nr * (t + 1) / EAGER_THREADS;
                jobs[t] = (ready_job_t){s, rest + lo, hi - lo, &lock};
                CHECK(pthread_create(&th[t], NULL, ready_thread, &jobs[t]) == 0);
            }
            for (int t = 0; t < EAGER_THREADS; t++)
                pthread_join(th[t], NULL);
        } else {
            for (int i = 0; i < nr; i++)
                MPI_Pready(rest[i], s);
        }
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        check_ints(rbuf, total, 300 + iter, left, rank, "partitions readied out of order");
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    free(sbuf);
    free(rbuf);
}

/* ---- errors ---- */
#define EXPECT(_call, _class)                                                                      \
    do {                                                                                           \
        int _rc = (_call), _ec;                                                                    \
        MPI_Error_class(_rc, &_ec);                                                                \
        if (_ec != (_class))                                                                       \
            FAIL("%s: error class %d, expected %s (%d)", #_call, _ec, #_class, (_class));          \
    } while (0)

static void test_errors(void)
{
    MPI_Request r, p, s2[2], bogus = (MPI_Request)0x1234, g;
    int buf[8] = {0}, flag;
    MPI_Status st;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* Init calls refuse bad arguments and leave the handle alone. */
    r = bogus;
    EXPECT(MPI_Send_init(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
    EXPECT(MPI_Recv_init(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Ssend_init(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    EXPECT(MPI_Psend_init(buf, 2, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_RANK);
    EXPECT(MPI_Precv_init(buf, 2, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_TAG);
    EXPECT(MPI_Precv_init(buf, -1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_ARG);
    EXPECT(
        MPI_Isendrecv(buf, 1, MPI_INT, 0, 0, buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &r),
        MPI_ERR_TYPE);
    CHECK(r == bogus);
    /* Start: null, not persistent, active already. */
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    r = MPI_REQUEST_NULL;
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    MPI_Irecv(buf, 1, MPI_INT, rank, 31, MPI_COMM_WORLD, &r);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    MPI_Send_init(buf, 1, MPI_INT, rank, 31, MPI_COMM_WORLD, &p);
    MPI_Start(&p);
    EXPECT(MPI_Start(&p), MPI_ERR_REQUEST);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    /* Startall with one bad request starts none: the good one stays inactive. */
    MPI_Recv_init(buf, 1, MPI_INT, rank, 32, MPI_COMM_WORLD, &s2[0]);
    s2[1] = MPI_REQUEST_NULL;
    EXPECT(MPI_Startall(2, s2), MPI_ERR_REQUEST);
    s2[1] = s2[0];
    EXPECT(MPI_Startall(2, s2), MPI_ERR_REQUEST);
    MPI_Send(buf, 1, MPI_INT, rank, 32, MPI_COMM_WORLD);
    MPI_Iprobe(rank, 32, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    for (int i = 0; i < 100 && !flag; i++)
        MPI_Iprobe(rank, 32, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(flag); /* not taken by the receive: it never started */
    MPI_Recv(buf, 1, MPI_INT, rank, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(MPI_Cancel(&s2[0]), MPI_ERR_REQUEST); /* inactive */
    MPI_Request_free(&s2[0]);
    /* A persistent receive that truncates: MPI_ERR_IN_STATUS, the error in its status, the
     * request kept (inactive) and good for the next start; nothing past its buffer written. */
    {
        int two[2] = {11, 12}, small[3] = {0, -4, -4};
        MPI_Request pr2[2];
        MPI_Status st2[2];
        int idx;
        MPI_Recv_init(small, 1, MPI_INT, rank, 33, MPI_COMM_WORLD, &pr2[0]);
        MPI_Send_init(two, 2, MPI_INT, rank, 33, MPI_COMM_WORLD, &pr2[1]);
        MPI_Startall(2, pr2);
        EXPECT(MPI_Waitall(2, pr2, st2), MPI_ERR_IN_STATUS);
        CHECK(st2[0].MPI_ERROR == MPI_ERR_TRUNCATE && st2[1].MPI_ERROR == MPI_SUCCESS);
        CHECK(pr2[0] != MPI_REQUEST_NULL && small[0] == 11 && small[1] == -4);
        MPI_Start(&pr2[0]);
        MPI_Send(two, 1, MPI_INT, rank, 33, MPI_COMM_WORLD);
        MPI_Waitany(2, pr2, &idx, &st2[0]); /* pr2[1] is inactive: only pr2[0] counts */
        CHECK(idx == 0 && pr2[0] != MPI_REQUEST_NULL && st2[0].MPI_SOURCE == rank);
        MPI_Waitany(2, pr2, &idx, &st2[0]);
        CHECK(idx == MPI_UNDEFINED);
        MPI_Request_free(&pr2[0]);
        MPI_Request_free(&pr2[1]);
    }
    /* Partitioned: range, twice, inactive, wrong side. */
    MPI_Request ps, pr;
    int data[6], into[6];
    fill_ints(data, 6, 1, rank, rank);
    MPI_Psend_init(data, 3, 2, MPI_INT, rank, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &ps);
    MPI_Precv_init(into, 2, 3, MPI_INT, rank, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
    EXPECT(MPI_Pready(0, ps), MPI_ERR_REQUEST); /* inactive */
    MPI_Start(&ps);
    MPI_Start(&pr);
    EXPECT(MPI_Pready(3, ps), MPI_ERR_ARG);
    EXPECT(MPI_Pready(-1, ps), MPI_ERR_ARG);
    EXPECT(MPI_Pready(0, pr), MPI_ERR_REQUEST);
    EXPECT(MPI_Parrived(ps, 0, &flag), MPI_ERR_REQUEST);
    EXPECT(MPI_Parrived(pr, 2, &flag), MPI_ERR_ARG);
    EXPECT(MPI_Pready_range(2, 1, ps), MPI_ERR_ARG);
    EXPECT(MPI_Pready_range(1, 3, ps), MPI_ERR_ARG);
    int dup[3] = {2, 0, 2};
    EXPECT(MPI_Pready_list(3, dup, ps), MPI_ERR_ARG); /* 2 twice: none marked */
    MPI_Pready(2, ps);
    EXPECT(MPI_Pready(2, ps), MPI_ERR_ARG);
    EXPECT(MPI_Request_free(&ps), MPI_ERR_REQUEST); /* active */
    MPI_Parrived(pr, 0, &flag);
    CHECK(!flag); /* partition 0 of the receiver needs the sender's partition 0 and 1 */
    MPI_Pready_range(0, 1, ps);
    MPI_Wait(&ps, MPI_STATUS_IGNORE);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
    check_ints(into, 6, 1, rank, rank, "partitioned to self");
    MPI_Parrived(pr, 1, &flag);
    CHECK(flag); /* inactive */
    flag = 0;
    MPI_Parrived(MPI_REQUEST_NULL, 5, &flag);
    CHECK(flag);
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    /* Mismatched sizes: the receive fails and nothing of its buffer is written; the send
     * completes (its messages were drained). */
    int big[8], small[5] = {0, 0, 0, 0, 0};
    MPI_Psend_init(big, 2, 4, MPI_INT, rank, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &ps);
    MPI_Precv_init(small, 2, 2, MPI_INT, rank, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
    MPI_Start(&pr);
    MPI_Start(&ps);
    MPI_Pready_range(0, 1, ps);
    EXPECT(MPI_Wait(&pr, &st), MPI_ERR_TRUNCATE);
    EXPECT(MPI_Wait(&ps, &st), MPI_SUCCESS);
    for (int i = 0; i < 5; i++)
        CHECK(small[i] == 0);
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    /* Generalized requests and status setters. */
    greq_state_t gs;
    memset(&gs, 0, sizeof(gs));
    gs.type = MPI_INT;
    EXPECT(MPI_Grequest_start(NULL, g_free, g_cancel, &gs, &g), MPI_ERR_ARG);
    MPI_Grequest_start(g_query, g_free, g_cancel, &gs, &g);
    MPI_Grequest_complete(g);
    EXPECT(MPI_Grequest_complete(g), MPI_ERR_REQUEST);
    EXPECT(MPI_Start(&g), MPI_ERR_REQUEST);
    gs.free_error = MPI_ERR_OTHER;
    EXPECT(MPI_Wait(&g, &st), MPI_ERR_OTHER); /* free_fn's error */
    CHECK(g == MPI_REQUEST_NULL && gs.frees == 1);
    EXPECT(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    EXPECT(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    EXPECT(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE);
    EXPECT(MPI_Request_get_status(bogus, &flag, &st), MPI_ERR_REQUEST);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static const mpitest_t tests[] = {
    {"persist", test_persist},
    {"modes", test_modes},
    {"dtype", test_dtype},
    {"isendrecv", test_isendrecv},
    {"get_status", test_get_status},
    {"greq", test_greq},
    {"part", test_part},
    {"part_dtype", test_part_dtype},
    {"part_early", test_part_early},
    {"part_order", test_part_order},
    {"part_eager", test_part_eager},
    {"errors", test_errors},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
