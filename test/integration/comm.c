/* Groups, communicators and topologies, each result checked against a reference computed here
 * from MPI_COMM_WORLD ranks. Usage: comm TEST [TEST...] (or "all"); rank 0 prints
 * "comm TEST: ok (N ranks) in T s" for each. Works at any size, 1 included. The program uses
 * only point-to-point besides the calls under test (no collectives but MPI_Barrier). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPITEST_NAME "comm"
#include "mpitest.h"

#define TAG 42

/* ---- helpers -------------------------------------------------------------------------------- */

/* comm has exactly the world ranks exp[0..n) in that order, this process being rank me in it:
 * checked through Comm_size/rank, the group, and a ring of messages over comm itself (each rank
 * sends its world rank to the next; sources and payloads must be the comm's, not the world's). */
static void expect_comm(MPI_Comm comm, int n, const int *exp, int me, const char *what)
{
    int csize, crank, *cr, *wr, v, left, right;
    MPI_Group cg, wg;
    MPI_Status st;
    MPI_Request req;

    if (comm == MPI_COMM_NULL)
        FAIL("%s: got MPI_COMM_NULL", what);
    MPI_Comm_size(comm, &csize);
    MPI_Comm_rank(comm, &crank);
    if (csize != n || crank != me)
        FAIL("%s: size %d rank %d, expected size %d rank %d", what, csize, crank, n, me);
    cr = xmalloc(sizeof(int) * (size_t)n);
    wr = xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        cr[i] = i;
    MPI_Comm_group(comm, &cg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(cg, n, cr, wg, wr);
    for (int i = 0; i < n; i++) {
        if (wr[i] != exp[i])
            FAIL("%s: rank %d is world rank %d, expected %d", what, i, wr[i], exp[i]);
    }
    MPI_Group_free(&cg);
    MPI_Group_free(&wg);
    right = (me + 1) % n;
    left = (me - 1 + n) % n;
    MPI_Irecv(&v, 1, MPI_INT, left, TAG, comm, &req);
    MPI_Send(&rank, 1, MPI_INT, right, TAG, comm);
    MPI_Wait(&req, &st);
    if (v != exp[left] || st.MPI_SOURCE != left)
        FAIL("%s: ring message from comm rank %d carried world rank %d (source %d), expected "
             "%d",
             what, left, v, st.MPI_SOURCE, exp[left]);
    free(cr);
    free(wr);
}

/* Gather an int from every world rank with point-to-point (all[i] = rank i's v). */
static void p2p_allgather(int v, int *all)
{
    MPI_Request *reqs = xmalloc(sizeof(MPI_Request) * (size_t)size);
    for (int i = 0; i < size; i++)
        MPI_Irecv(&all[i], 1, MPI_INT, i, TAG + 1, MPI_COMM_WORLD, &reqs[i]);
    for (int i = 0; i < size; i++)
        MPI_Send(&v, 1, MPI_INT, i, TAG + 1, MPI_COMM_WORLD);
    MPI_Waitall(size, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
}

static int error_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* ---- groups --------------------------------------------------------------------------------- */

static int ref_has(int n, const int *r, int w)
{
    for (int i = 0; i < n; i++) {
        if (r[i] == w)
            return 1;
    }
    return 0;
}

/* group g holds world ranks exp[0..n) in order, and this process's rank in it is right. */
static void expect_group(MPI_Group g, int n, const int *exp, const char *what)
{
    int gs, gr, *idx = xmalloc(sizeof(int) * (size_t)(n + 1)),
                *wr = xmalloc(sizeof(int) * (size_t)(n + 1)), want_rank = MPI_UNDEFINED;
    MPI_Group wg;

    MPI_Group_size(g, &gs);
    if (gs != n)
        FAIL("%s: group size %d, expected %d", what, gs, n);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(g, n, idx, wg, wr);
    for (int i = 0; i < n; i++) {
        if (wr[i] != exp[i])
            FAIL("%s: member %d is world rank %d, expected %d", what, i, wr[i], exp[i]);
        if (exp[i] == rank)
            want_rank = i;
    }
    MPI_Group_rank(g, &gr);
    if (gr != want_rank)
        FAIL("%s: MPI_Group_rank %d, expected %d", what, gr, want_rank);
    MPI_Group_free(&wg);
    free(idx);
    free(wr);
}

static int random_subset(int *out, unsigned *seed)
{
    int n = 0, perm[1024];
    for (int i = 0; i < size; i++)
        perm[i] = i;
    for (int i = size - 1; i > 0; i--) {
        int j = (int)(rand_r(seed) % (unsigned)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < size; i++) {
        if (rand_r(seed) % 3 != 0)
            out[n++] = perm[i];
    }
    return n;
}

static void test_groups(void)
{
    MPI_Group world, a, b, out;
    int wa[1024], wb[1024], ref[2048], n, na, nb, r;
    unsigned seed = 7;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < size; i++)
        ref[i] = i;
    expect_group(world, size, ref, "world group");
    expect_group(MPI_GROUP_EMPTY, 0, ref, "MPI_GROUP_EMPTY");
    MPI_Group_compare(world, world, &r);
    CHECK(r == MPI_IDENT);
    MPI_Group_compare(world, MPI_GROUP_EMPTY, &r);
    CHECK(r == MPI_UNEQUAL);

    for (int iter = 0; iter < 300; iter++) {
        na = random_subset(wa, &seed);
        nb = random_subset(wb, &seed);
        MPI_Group_incl(world, na, wa, &a);
        MPI_Group_incl(world, nb, wb, &b);
        expect_group(a, na, wa, "Group_incl");
        /* union, intersection, difference */
        n = 0;
        for (int i = 0; i < na; i++)
            ref[n++] = wa[i];
        for (int i = 0; i < nb; i++) {
            if (!ref_has(na, wa, wb[i]))
                ref[n++] = wb[i];
        }
        MPI_Group_union(a, b, &out);
        expect_group(out, n, ref, "Group_union");
        MPI_Group_free(&out);
        CHECK(out == MPI_GROUP_NULL);
        n = 0;
        for (int i = 0; i < na; i++) {
            if (ref_has(nb, wb, wa[i]))
                ref[n++] = wa[i];
        }
        MPI_Group_intersection(a, b, &out);
        expect_group(out, n, ref, "Group_intersection");
        if (n == 0)
            CHECK(out == MPI_GROUP_EMPTY);
        MPI_Group_free(&out);
        n = 0;
        for (int i = 0; i < na; i++) {
            if (!ref_has(nb, wb, wa[i]))
                ref[n++] = wa[i];
        }
        MPI_Group_difference(a, b, &out);
        expect_group(out, n, ref, "Group_difference");
        MPI_Group_free(&out);
        /* translate a -> b */
        int ia[1024], tb[1024];
        for (int i = 0; i < na; i++)
            ia[i] = i;
        MPI_Group_translate_ranks(a, na, ia, b, tb);
        for (int i = 0; i < na; i++) {
            int want = MPI_UNDEFINED;
            for (int j = 0; j < nb; j++) {
                if (wb[j] == wa[i])
                    want = j;
            }
            if (tb[i] != want)
                FAIL("Group_translate_ranks: member %d -> %d, expected %d", i, tb[i], want);
        }
        /* excl: a without its even members */
        int ex[1024], nex = 0;
        n = 0;
        for (int i = 0; i < na; i++) {
            if (i % 2 == 0)
                ex[nex++] = i;
            else
                ref[n++] = wa[i];
        }
        MPI_Group_excl(a, nex, ex, &out);
        expect_group(out, n, ref, "Group_excl");
        MPI_Group_free(&out);
        /* compare: a with itself reversed */
        int rev[1024];
        for (int i = 0; i < na; i++)
            rev[i] = wa[na - 1 - i];
        MPI_Group g2;
        MPI_Group_incl(world, na, rev, &g2);
        MPI_Group_compare(a, g2, &r);
        CHECK(r == (na <= 1 ? MPI_IDENT : MPI_SIMILAR));
        MPI_Group_compare(a, b, &r);
        {
            int want = MPI_UNEQUAL;
            if (na == nb) {
                int same = 1, set = 1;
                for (int i = 0; i < na; i++) {
                    same &= wa[i] == wb[i];
                    set &= ref_has(nb, wb, wa[i]);
                }
                want = same ? MPI_IDENT : set ? MPI_SIMILAR : MPI_UNEQUAL;
            }
            CHECK(r == want);
        }
        MPI_Group_free(&g2);
        MPI_Group_free(&a);
        MPI_Group_free(&b);
    }

    /* range_incl / range_excl: every third rank from the top, and the rest */
    int ranges[1][3] = {{size - 1, 0, -3}};
    n = 0;
    for (int i = size - 1; i >= 0; i -= 3)
        ref[n++] = i;
    MPI_Group_range_incl(world, 1, ranges, &out);
    expect_group(out, n, ref, "Group_range_incl");
    MPI_Group_free(&out);
    n = 0;
    for (int i = 0; i < size; i++) {
        if ((size - 1 - i) % 3 != 0)
            ref[n++] = i;
    }
    MPI_Group_range_excl(world, 1, ranges, &out);
    expect_group(out, n, ref, "Group_range_excl");
    MPI_Group_free(&out);

    /* Bad arguments: MPI_ERR_RANK / MPI_ERR_GROUP / MPI_ERR_ARG, through MPI_ERRORS_RETURN. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {0, size};
    CHECK(error_class(MPI_Group_incl(world, 2, bad, &out)) == MPI_ERR_RANK);
    int dup[2] = {0, 0};
    if (size >= 2)
        CHECK(error_class(MPI_Group_incl(world, 2, dup, &out)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Group_excl(world, -1, bad, &out)) == MPI_ERR_ARG);
    int zero_stride[1][3] = {{0, 0, 0}};
    CHECK(error_class(MPI_Group_range_incl(world, 1, zero_stride, &out)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Group_size(MPI_GROUP_NULL, &n)) == MPI_ERR_GROUP);
    out = MPI_GROUP_NULL;
    CHECK(error_class(MPI_Group_free(&out)) == MPI_ERR_GROUP);
    int badr[1] = {size + 5}, tr[1];
    CHECK(error_class(MPI_Group_translate_ranks(world, 1, badr, world, tr)) == MPI_ERR_RANK);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* MPI_GROUP_EMPTY can be freed; MPI_PROC_NULL translates to itself. */
    out = MPI_GROUP_EMPTY;
    MPI_Group_free(&out);
    CHECK(out == MPI_GROUP_NULL);
    badr[0] = MPI_PROC_NULL;
    MPI_Group_translate_ranks(world, 1, badr, world, tr);
    CHECK(tr[0] == MPI_PROC_NULL);
    MPI_Group_free(&world);
}

/* ---- split, split_type, create, create_group ------------------------------------------------ */

static void test_split(void)
{
    MPI_Comm c, c2;
    int exp[1024], n = 0, me = -1;

    /* by parity, keyed by rank */
    for (int i = rank % 2; i < size; i += 2) {
        if (i == rank)
            me = n;
        exp[n++] = i;
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
    expect_comm(c, n, exp, me, "split by parity");
    /* split of the split: halves again by its own parity, reversed key */
    {
        int crank, csize, e2[1024], n2 = 0, me2 = -1;
        MPI_Comm_rank(c, &crank);
        MPI_Comm_size(c, &csize);
        for (int i = csize - 1; i >= 0; i--) {
            if (i % 2 == crank % 2) {
                if (i == crank)
                    me2 = n2;
                e2[n2++] = exp[i];
            }
        }
        MPI_Comm_split(c, crank % 2, -crank, &c2);
        expect_comm(c2, n2, e2, me2, "split of a split, reversed");
        MPI_Comm_free(&c2);
    }
    MPI_Comm_free(&c);
    CHECK(c == MPI_COMM_NULL);

    /* reversed key: one communicator, world order reversed */
    for (int i = 0; i < size; i++)
        exp[i] = size - 1 - i;
    MPI_Comm_split(MPI_COMM_WORLD, 5, size - rank, &c);
    expect_comm(c, size, exp, size - 1 - rank, "split by reversed key");
    MPI_Comm_free(&c);

    /* equal keys: parent order; MPI_UNDEFINED: no communicator */
    n = 0;
    for (int i = 0; i < size; i++) {
        if (i % 3 != 1) {
            if (i == rank)
                me = n;
            exp[n++] = i;
        }
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 1 ? MPI_UNDEFINED : 0, 0, &c);
    if (rank % 3 == 1)
        CHECK(c == MPI_COMM_NULL);
    else {
        expect_comm(c, n, exp, me, "split with MPI_UNDEFINED");
        MPI_Comm_free(&c);
    }
}

static void test_split_type(void)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len, *hash = xmalloc(sizeof(int) * (size_t)size), mine = 0, exp[1024], n = 0, me = -1;
    MPI_Comm c;

    /* The reference: ranks whose processor name hashes alike share a node. */
    MPI_Get_processor_name(name, &len);
    for (int i = 0; i < len; i++)
        mine = mine * 31 + (unsigned char)name[i];
    p2p_allgather(mine & 0x7fffffff, hash);
    for (int i = 0; i < size; i++) {
        if (hash[i] == (mine & 0x7fffffff)) {
            if (i == rank)
                me = n;
            exp[n++] = i;
        }
    }
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
    expect_comm(c, n, exp, me, "split_type shared");
    MPI_Comm_free(&c);
    /* MPI_UNDEFINED from some ranks: those get MPI_COMM_NULL */
    MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, rank,
                        MPI_INFO_NULL, &c);
    if (rank == 0)
        CHECK(c == MPI_COMM_NULL);
    else
        MPI_Comm_free(&c);
    free(hash);
}

static void test_create(void)
{
    MPI_Group world, g;
    MPI_Comm c;
    int exp[1024], n = 0, me = -1;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    /* the even ranks, from the top */
    for (int i = size - 1; i >= 0; i--) {
        if (i % 2 == 0) {
            if (i == rank)
                me = n;
            exp[n++] = i;
        }
    }
    MPI_Group_incl(world, n, exp, &g);
    MPI_Comm_create(MPI_COMM_WORLD, g, &c);
    if (rank % 2)
        CHECK(c == MPI_COMM_NULL);
    else {
        expect_comm(c, n, exp, me, "create (even ranks, reversed)");
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&g);

    /* disjoint groups per process (MPI-2.2): evens and odds each get theirs */
    n = 0;
    for (int i = rank % 2; i < size; i += 2) {
        if (i == rank)
            me = n;
        exp[n++] = i;
    }
    MPI_Group_incl(world, n, exp, &g);
    MPI_Comm_create(MPI_COMM_WORLD, g, &c);
    expect_comm(c, n, exp, me, "create with disjoint groups");
    MPI_Comm_free(&c);
    MPI_Group_free(&g);

    /* create_group: only the first half (rounded up) calls */
    n = (size + 1) / 2;
    for (int i = 0; i < n; i++)
        exp[i] = i;
    if (rank < n) {
        MPI_Group_incl(world, n, exp, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c);
        expect_comm(c, n, exp, rank, "create_group (first half)");
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
    }
    /* and the second half at the same time, with another tag, in reverse order */
    if (rank >= n) {
        int m = 0;
        for (int i = size - 1; i >= n; i--) {
            if (i == rank)
                me = m;
            exp[m++] = i;
        }
        MPI_Group_incl(world, m, exp, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 8, &c);
        expect_comm(c, m, exp, me, "create_group (second half)");
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
    }
    /* a group from a sub-communicator's parent that is not inside it: MPI_ERR_GROUP */
    if (size > 1) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
        CHECK(error_class(MPI_Comm_create(half, world, &c)) == MPI_ERR_GROUP);
        MPI_Comm_free(&half);
    }
    MPI_Group_free(&world);
}

/* ---- compare, names ------------------------------------------------------------------------- */

static void test_compare(void)
{
    MPI_Comm dup, rev, par;
    int r, len;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &par);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &r);
    CHECK(r == MPI_IDENT);
    MPI_Comm_compare(dup, dup, &r);
    CHECK(r == MPI_IDENT);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &r);
    CHECK(r == MPI_CONGRUENT);
    MPI_Comm_compare(MPI_COMM_WORLD, rev, &r);
    CHECK(r == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR));
    MPI_Comm_compare(MPI_COMM_WORLD, par, &r);
    CHECK(r == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
    MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &r);
    CHECK(r == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));

    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
    MPI_Comm_get_name(dup, name, &len);
    CHECK(len == 0 && name[0] == '\0');
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my dup") == 0 && len == 6);
    MPI_Comm_test_inter(dup, &r);
    CHECK(r == 0);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&par);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK(error_class(MPI_Comm_free(&w)) == MPI_ERR_COMM);
    CHECK(error_class(MPI_Comm_free(&dup)) == MPI_ERR_COMM); /* MPI_COMM_NULL now */
    CHECK(error_class(MPI_Comm_size(dup, &r)) == MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- attributes ----------------------------------------------------------------------------- */

static int copies, deletes, last_deleted;

static int copy_plus_one(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    CHECK(extra == &copies);
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_refuse(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    copies++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    deletes++;
    last_deleted = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval;
    (void)extra;
    if (comm == MPI_COMM_SELF && (intptr_t)val == 4242 && rank == 0)
        printf("comm: MPI_COMM_SELF attribute deleted at MPI_Finalize\n");
    return MPI_SUCCESS;
}

static void test_attr(void)
{
    MPI_Comm a, b, c;
    int kplus, knull, kdup, krefuse, flag, *ip;
    void *v;

    MPI_Comm_create_keyval(copy_plus_one, count_delete, &kplus, &copies);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &knull, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL);
    MPI_Comm_create_keyval(copy_refuse, count_delete, &krefuse, NULL);
    CHECK(kplus != knull && knull != kdup && kdup != krefuse);
    copies = deletes = 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_get_attr(a, kplus, &v, &flag);
    CHECK(flag == 0);
    MPI_Comm_set_attr(a, kplus, (void *)(intptr_t)100);
    MPI_Comm_set_attr(a, knull, (void *)(intptr_t)200);
    MPI_Comm_set_attr(a, kdup, (void *)(intptr_t)300);
    MPI_Comm_set_attr(a, krefuse, (void *)(intptr_t)400);
    /* replacing a value deletes the old one */
    MPI_Comm_set_attr(a, knull, (void *)(intptr_t)201);
    CHECK(deletes == 1 && last_deleted == 200);
    MPI_Comm_get_attr(a, knull, &v, &flag);
    CHECK(flag && (intptr_t)v == 201);

    /* dup: plus_one copies 101, null copy drops, DUP_FN keeps 300, refuse drops */
    MPI_Comm_dup(a, &b);
    CHECK(copies == 2);
    MPI_Comm_get_attr(b, kplus, &v, &flag);
    CHECK(flag && (intptr_t)v == 101);
    MPI_Comm_get_attr(b, knull, &v, &flag);
    CHECK(!flag);
    MPI_Comm_get_attr(b, kdup, &v, &flag);
    CHECK(flag && (intptr_t)v == 300);
    MPI_Comm_get_attr(b, krefuse, &v, &flag);
    CHECK(!flag);
    /* the original keeps its own */
    MPI_Comm_get_attr(a, kplus, &v, &flag);
    CHECK(flag && (intptr_t)v == 100);
    /* and a dup of the dup: 102 */
    MPI_Comm_dup(b, &c);
    MPI_Comm_get_attr(c, kplus, &v, &flag);
    CHECK(flag && (intptr_t)v == 102);

    /* delete_attr calls the delete callback once; a second delete finds nothing */
    deletes = 0;
    MPI_Comm_delete_attr(b, kplus);
    CHECK(deletes == 1 && last_deleted == 101);
    MPI_Comm_get_attr(b, kplus, &v, &flag);
    CHECK(!flag);

    /* a freed keyval lives on in attributes that use it: freeing c calls its callback */
    MPI_Comm_free_keyval(&kplus);
    CHECK(kplus == MPI_KEYVAL_INVALID);
    deletes = 0;
    MPI_Comm_free(&c);
    CHECK(deletes == 1 && last_deleted == 102);
    /* free: a has kplus (100), knull (201), krefuse (400) with counting deletes; kdup none */
    deletes = 0;
    MPI_Comm_free(&a);
    CHECK(deletes == 3);
    deletes = 0;
    MPI_Comm_free(&b);
    CHECK(deletes == 0);
    MPI_Comm_free_keyval(&knull);
    MPI_Comm_free_keyval(&kdup);
    MPI_Comm_free_keyval(&krefuse);

    /* predefined attributes */
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag);
    CHECK(flag && *ip >= 32767);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &ip, &flag);
    CHECK(flag && (*ip == MPI_PROC_NULL || (*ip >= 0 && *ip < size)));
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &ip, &flag);
    CHECK(flag && (*ip == MPI_ANY_SOURCE || *ip == MPI_PROC_NULL || (*ip >= 0 && *ip < size)));
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag);
    CHECK(flag && (*ip == 0 || *ip == 1));
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ip, &flag);
    CHECK(flag && *ip == 0);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &ip, &flag);
    CHECK(flag && *ip >= size);

    /* errors: predefined keys cannot be set, freed keyvals are invalid */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL)) == MPI_ERR_KEYVAL);
    CHECK(error_class(MPI_Comm_get_attr(MPI_COMM_WORLD, knull, &v, &flag)) == MPI_ERR_KEYVAL);
    int kinv = MPI_KEYVAL_INVALID;
    CHECK(error_class(MPI_Comm_free_keyval(&kinv)) == MPI_ERR_KEYVAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* an attribute on MPI_COMM_SELF is deleted at MPI_Finalize (the script checks the line) */
    int kself;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kself, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, kself, (void *)(intptr_t)4242);
}

/* ---- isolation of contexts ------------------------------------------------------------------ */

static void test_isolation(void)
{
    MPI_Comm dup, split;
    MPI_Request r[3];
    MPI_Status st;
    int v[3], to, from;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &split); /* congruent to WORLD, another context */
    to = (rank + 1) % size;
    from = (rank - 1 + size) % size;
    /* same source, destination and tag on all three; sent WORLD, dup, split; received in the
     * opposite order, the first two with wildcards */
    for (int round = 0; round < 50; round++) {
        int s[3] = {1000 * round + 1, 1000 * round + 2, 1000 * round + 3};
        MPI_Send(&s[0], 1, MPI_INT, to, TAG, MPI_COMM_WORLD);
        MPI_Send(&s[1], 1, MPI_INT, to, TAG, dup);
        MPI_Send(&s[2], 1, MPI_INT, to, TAG, split);
        MPI_Recv(&v[2], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, split, &st);
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == TAG);
        MPI_Recv(&v[1], 1, MPI_INT, from, MPI_ANY_TAG, dup, &st);
        MPI_Recv(&v[0], 1, MPI_INT, from, TAG, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 3; i++) {
            if (v[i] != 1000 * round + i + 1)
                FAIL("round %d: communicator %d received %d, which was sent on another", round, i,
                     v[i]);
        }
    }
    /* posted receives first, then the sends in the other order */
    MPI_Irecv(&v[0], 1, MPI_INT, from, TAG, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&v[1], 1, MPI_INT, MPI_ANY_SOURCE, TAG, dup, &r[1]);
    MPI_Irecv(&v[2], 1, MPI_INT, from, MPI_ANY_TAG, split, &r[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 2; i >= 0; i--) {
        int s = 7 + i;
        MPI_Send(&s, 1, MPI_INT, to, TAG, i == 0 ? MPI_COMM_WORLD : i == 1 ? dup : split);
    }
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    CHECK(v[0] == 7 && v[1] == 8 && v[2] == 9);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);

    /* A rank that finished creating a communicator sends on it at once; others may still be
     * finishing theirs (the message must wait for them, not be lost). */
    for (int round = 0; round < 100; round++) {
        MPI_Comm c;
        int x = -1;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (rank == 0) {
            for (int i = 1; i < size; i++)
                MPI_Send(&round, 1, MPI_INT, i, round, c);
        } else {
            MPI_Recv(&x, 1, MPI_INT, 0, round, c, MPI_STATUS_IGNORE);
            CHECK(x == round);
        }
        MPI_Comm_free(&c);
    }
}

/* ---- context ids are reused ----------------------------------------------------------------- */

static void test_many(void)
{
    /* More communicators than there are context ids, one after another. */
    for (int i = 0; i < 5000; i++) {
        MPI_Comm c;
        if (i % 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        else
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
        MPI_Comm_free(&c);
    }
    /* And a few hundred alive at once. */
    MPI_Comm live[300];
    for (int i = 0; i < 300; i++)
        MPI_Comm_dup(i == 0 ? MPI_COMM_WORLD : live[i - 1], &live[i]);
    for (int i = 299; i >= 0; i--) {
        int v = rank, w = -1;
        MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, i, &w, 1, MPI_INT, (rank - 1 + size) % size,
                     i, live[i], MPI_STATUS_IGNORE);
        CHECK(w == (rank - 1 + size) % size);
        MPI_Comm_free(&live[i]);
    }

    /* Freed with a receive pending: the receive still completes (the communicator is only
     * marked for deletion), and communicators made after it do not see its message. */
    if (size >= 2) {
        MPI_Comm c, d;
        MPI_Request req;
        int v = -1, x = -1;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (rank == 1) {
            MPI_Irecv(&v, 1, MPI_INT, 0, 5, c, &req);
            MPI_Comm_free(&c);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        if (rank == 0) {
            int a = 77, b = 88;
            MPI_Send(&b, 1, MPI_INT, 1, 5, d);
            MPI_Send(&a, 1, MPI_INT, 1, 5, c);
            MPI_Comm_free(&c);
        } else if (rank == 1) {
            MPI_Recv(&x, 1, MPI_INT, 0, 5, d, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            CHECK(v == 77 && x == 88);
        } else {
            MPI_Comm_free(&c);
        }
        MPI_Comm_free(&d);

        /* The same with a large message (rendezvous: the data moves after the free). */
        enum { BIG = 1 << 20 };
        unsigned char *buf = xmalloc(BIG);
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (rank == 1) {
            memset(buf, 0, BIG);
            MPI_Irecv(buf, BIG, MPI_BYTE, 0, 6, c, &req);
            MPI_Comm_free(&c);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            verify(buf, BIG, 11, "large message on a freed communicator");
        } else if (rank == 0) {
            fill(buf, BIG, 11);
            MPI_Send(buf, BIG, MPI_BYTE, 1, 6, c);
            MPI_Comm_free(&c);
        } else {
            MPI_Comm_free(&c);
        }
        free(buf);
    }
}

/* ---- topologies ----------------------------------------------------------------------------- */

static void test_dims(void)
{
    struct {
        int nnodes, ndims, in[4], out[4];
    } cases[] = {
        {6, 2, {0, 0}, {3, 2}},        {7, 2, {0, 0}, {7, 1}},
        {12, 3, {0, 0, 0}, {3, 2, 2}}, {16, 4, {0, 0, 0, 0}, {2, 2, 2, 2}},
        {72, 2, {0, 0}, {9, 8}},       {24, 3, {0, 3, 0}, {4, 3, 2}},
        {30, 3, {5, 0, 3}, {5, 2, 3}}, {1, 2, {0, 0}, {1, 1}},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        int d[4];
        memcpy(d, cases[k].in, sizeof(d));
        MPI_Dims_create(cases[k].nnodes, cases[k].ndims, d);
        for (int i = 0; i < cases[k].ndims; i++) {
            if (d[i] != cases[k].out[i])
                FAIL("Dims_create(%d, %d): dims[%d] = %d, expected %d", cases[k].nnodes,
                     cases[k].ndims, i, d[i], cases[k].out[i]);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {4, 0}, neg[2] = {-1, 0};
    CHECK(error_class(MPI_Dims_create(10, 2, bad)) == MPI_ERR_DIMS);
    CHECK(error_class(MPI_Dims_create(10, 2, neg)) == MPI_ERR_DIMS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static int ref_rank(int nd, const int *dims, const int *c)
{
    int r = 0;
    for (int i = 0; i < nd; i++)
        r = r * dims[i] + c[i];
    return r;
}

static void test_cart(void)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], c2[2], r, t, nd;
    MPI_Comm cart, sub;

    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Topo_test(cart, &t);
    CHECK(t == MPI_CART);
    MPI_Topo_test(MPI_COMM_WORLD, &t);
    CHECK(t == MPI_UNDEFINED);
    MPI_Cartdim_get(cart, &nd);
    CHECK(nd == 2);
    {
        int gd[2], gp[2], gc[2];
        MPI_Cart_get(cart, 2, gd, gp, gc);
        CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0);
        CHECK(gc[0] == rank / dims[1] && gc[1] == rank % dims[1]);
    }
    for (int q = 0; q < size; q++) {
        MPI_Cart_coords(cart, q, 2, coords);
        CHECK(coords[0] == q / dims[1] && coords[1] == q % dims[1]);
        MPI_Cart_rank(cart, coords, &r);
        CHECK(r == q);
    }
    /* periodic dimension 0 wraps */
    c2[0] = -1;
    c2[1] = 0;
    MPI_Cart_rank(cart, c2, &r);
    CHECK(r == ref_rank(2, dims, (int[]){dims[0] - 1, 0}));

    /* shifts, and a halo exchange with the four neighbours carrying their ranks */
    MPI_Cart_coords(cart, rank, 2, coords);
    for (int dir = 0; dir < 2; dir++) {
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst, want_src = -9, want_dst = -9, x[2];
            MPI_Cart_shift(cart, dir, disp, &src, &dst);
            for (int s = -1; s <= 1; s += 2) {
                memcpy(x, coords, sizeof(x));
                x[dir] += s * disp;
                int w;
                if (x[dir] < 0 || x[dir] >= dims[dir]) {
                    if (!periods[dir])
                        w = MPI_PROC_NULL;
                    else {
                        x[dir] = ((x[dir] % dims[dir]) + dims[dir]) % dims[dir];
                        w = ref_rank(2, dims, x);
                    }
                } else
                    w = ref_rank(2, dims, x);
                if (s < 0)
                    want_src = w;
                else
                    want_dst = w;
            }
            if (src != want_src || dst != want_dst)
                FAIL("Cart_shift(%d, %d) at (%d,%d): %d/%d, expected %d/%d", dir, disp, coords[0],
                     coords[1], src, dst, want_src, want_dst);
            int got = -5;
            MPI_Sendrecv(&rank, 1, MPI_INT, dst, 9, &got, 1, MPI_INT, src, 9, cart,
                         MPI_STATUS_IGNORE);
            CHECK(got == (src == MPI_PROC_NULL ? -5 : src));
        }
    }

    /* Cart_sub keeping dimension 1: the rows */
    MPI_Cart_sub(cart, (int[]){0, 1}, &sub);
    {
        int exp[1024];
        for (int j = 0; j < dims[1]; j++)
            exp[j] = coords[0] * dims[1] + j;
        expect_comm(sub, dims[1], exp, coords[1], "Cart_sub rows");
        MPI_Cartdim_get(sub, &nd);
        CHECK(nd == 1);
        int gd, gp, gc;
        MPI_Cart_get(sub, 1, &gd, &gp, &gc);
        CHECK(gd == dims[1] && gp == 0 && gc == coords[1]);
    }
    MPI_Comm_free(&sub);
    /* ... and keeping dimension 0: the columns, periodic */
    MPI_Cart_sub(cart, (int[]){1, 0}, &sub);
    {
        int exp[1024], gd, gp, gc;
        for (int i = 0; i < dims[0]; i++)
            exp[i] = i * dims[1] + coords[1];
        expect_comm(sub, dims[0], exp, coords[0], "Cart_sub columns");
        MPI_Cart_get(sub, 1, &gd, &gp, &gc);
        CHECK(gd == dims[0] && gp == 1 && gc == coords[0]);
    }
    MPI_Comm_free(&sub);
    /* dup keeps the topology */
    {
        MPI_Comm d;
        int gd[2], gp[2], gc[2];
        MPI_Comm_dup(cart, &d);
        MPI_Topo_test(d, &t);
        CHECK(t == MPI_CART);
        MPI_Cart_get(d, 2, gd, gp, gc);
        CHECK(gc[0] == coords[0] && gc[1] == coords[1]);
        MPI_Comm_free(&d);
    }
    MPI_Comm_free(&cart);

    /* a grid smaller than the communicator: the last rank is left out */
    int n1 = size > 1 ? size - 1 : 1, p1 = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n1, &p1, 0, &cart);
    if (rank >= n1)
        CHECK(cart == MPI_COMM_NULL);
    else {
        int exp[1024];
        for (int i = 0; i < n1; i++)
            exp[i] = i;
        expect_comm(cart, n1, exp, rank, "Cart_create smaller grid");
        MPI_Comm_free(&cart);
    }
    /* errors */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int big = size + 1, zero = 0, per = 0;
    CHECK(error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, &per, 0, &cart)) ==
          MPI_ERR_TOPOLOGY);
    CHECK(error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &zero, &per, 0, &cart)) == MPI_ERR_DIMS);
    CHECK(error_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &r, &t)) == MPI_ERR_TOPOLOGY);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_graph(void)
{
    MPI_Comm g;
    int left = (rank - 1 + size) % size, right = (rank + 1) % size, right2 = (rank + 2) % size;
    int src[1] = {left}, sw[1] = {10 + left}, dst[2] = {right, right2},
        dw[2] = {20 + right, 30 + right2};
    int in, out, weighted, s[4], w1[4], d[4], w2[4], t;

    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, sw, 2, dst, dw, MPI_INFO_NULL, 0, &g);
    MPI_Topo_test(g, &t);
    CHECK(t == MPI_DIST_GRAPH);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
    CHECK(in == 1 && out == 2 && weighted);
    MPI_Dist_graph_neighbors(g, 4, s, w1, 4, d, w2);
    CHECK(s[0] == left && w1[0] == 10 + left);
    CHECK(d[0] == right && d[1] == right2 && w2[0] == 20 + right && w2[1] == 30 + right2);
    {
        int exp[1024];
        for (int i = 0; i < size; i++)
            exp[i] = i;
        expect_comm(g, size, exp, rank, "dist graph communicator");
    }
    MPI_Comm_free(&g);
    /* unweighted, no neighbours at all */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
    CHECK(in == 0 && out == 0 && !weighted);
    MPI_Comm_free(&g);

    /* MPI_Dist_graph_create: each rank names its edge to the next rank, and rank 0 also names
     * every rank's edge two ahead; each rank must end up with both kinds (any order). */
    {
        int n = rank == 0 ? 1 + size : 1, *gs = xmalloc(sizeof(int) * (size_t)n),
            *gdeg = xmalloc(sizeof(int) * (size_t)n), *gd = xmalloc(sizeof(int) * (size_t)n),
            *gw = xmalloc(sizeof(int) * (size_t)n);
        gs[0] = rank;
        gdeg[0] = 1;
        gd[0] = right;
        gw[0] = 100 * rank + right;
        for (int i = 1; i < n; i++) {
            gs[i] = i - 1;
            gdeg[i] = 1;
            gd[i] = (i - 1 + 2) % size;
            gw[i] = 1000 + i - 1;
        }
        MPI_Dist_graph_create(MPI_COMM_WORLD, n, gs, gdeg, gd, gw, MPI_INFO_NULL, 0, &g);
        MPI_Topo_test(g, &t);
        CHECK(t == MPI_DIST_GRAPH);
        MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
        CHECK(in == 2 && out == 2 && weighted);
        MPI_Dist_graph_neighbors(g, 4, s, w1, 4, d, w2);
        /* as sets of (neighbour, weight) */
        int left2 = (rank - 2 + 2 * size) % size;
        int okin =
            (s[0] == left && w1[0] == 100 * left + rank && s[1] == left2 &&
             w1[1] == 1000 + left2) ||
            (s[1] == left && w1[1] == 100 * left + rank && s[0] == left2 && w1[0] == 1000 + left2);
        int okout = (d[0] == right && w2[0] == 100 * rank + right && d[1] == right2 &&
                     w2[1] == 1000 + rank) ||
                    (d[1] == right && w2[1] == 100 * rank + right && d[0] == right2 &&
                     w2[0] == 1000 + rank);
        if (!okin || !okout)
            FAIL("Dist_graph_create: in (%d:%d, %d:%d), out (%d:%d, %d:%d)", s[0], w1[0], s[1],
                 w1[1], d[0], w2[0], d[1], w2[1]);
        MPI_Comm_free(&g);
        /* unweighted, and ranks naming nothing */
        MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? 1 : 0, gs, gdeg, gd, MPI_UNWEIGHTED,
                              MPI_INFO_NULL, 0, &g);
        MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
        CHECK(!weighted && in == (rank == 1 % size) && out == (rank == 0));
        MPI_Comm_free(&g);
        free(gs);
        free(gdeg);
        free(gd);
        free(gw);
    }

    /* MPI_Graph_create: a ring over every rank */
    int *index = xmalloc(sizeof(int) * (size_t)size), *edges = xmalloc(sizeof(int) * 2 * size);
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i - 1 + size) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
    MPI_Topo_test(g, &t);
    CHECK(t == MPI_GRAPH);
    int nn, ne, nb[2];
    MPI_Graphdims_get(g, &nn, &ne);
    CHECK(nn == size && ne == 2 * size);
    MPI_Graph_neighbors_count(g, rank, &nn);
    CHECK(nn == 2);
    MPI_Graph_neighbors(g, rank, 2, nb);
    CHECK(nb[0] == left && nb[1] == right);
    MPI_Comm_free(&g);
    free(index);
    free(edges);
}

static const mpitest_t tests[] = {
    {"groups", test_groups},       {"split", test_split},     {"split_type", test_split_type},
    {"create", test_create},       {"compare", test_compare}, {"attr", test_attr},
    {"isolation", test_isolation}, {"many", test_many},       {"dims", test_dims},
    {"cart", test_cart},           {"graph", test_graph},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1024) {
        if (rank == 0)
            printf("comm: at most 1024 ranks\n");
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
