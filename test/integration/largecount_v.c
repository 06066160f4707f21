/* MPI-4 large counts of the v and w collectives (MPI_Gatherv_c, Scatterv_c, Allgatherv_c,
 * Alltoallv_c, Alltoallw_c, Reduce_scatter_c, Neighbor_allgatherv_c, Neighbor_alltoallv_c,
 * Neighbor_alltoallw_c; each blocking, nonblocking and persistent). "small": at 1 to 7 ranks,
 * on MPI_COMM_WORLD and on a split communicator, blocks of different sizes at displacements
 * in reverse rank order with gaps, every element checked and the gaps seen untouched, in
 * place where MPI allows it; the int forms on the same data next to them; an intercommunicator
 * case. "errors": a negative count refused with an error naming the _c call. "huge": at 2
 * ranks, MPI_Gatherv_c/MPI_Scatterv_c of a block of 2^31 + 4096 bytes at a displacement of
 * more than 2^31 elements, and MPI_Alltoallw_c/MPI_Allgatherv_c with displacements beyond
 * 2^31 bytes (about 2.1 GiB touched a rank), checked at both ends and on a sparse sample. */
#define MPITEST_NAME "largecount_v"
#include "mpitest_stderr.h"

#include <stdint.h>
#include <unistd.h>

#define GAP (-7) /* what the gaps between blocks hold, and must still hold afterwards */

/* Element i of the block of test t from (or for) the pair or rank r. */
static int val(int t, int r, MPI_Count i)
{
    return t * 1000003 + r * 7919 + (int)i;
}

/* How the v/w call of a test runs: 0 blocking, 1 nonblocking, 2 persistent (started twice, the
 * receive buffer reset in between by reset(), so the second run is what gets checked). */
static const char *form_name[3] = {"blocking", "nonblocking", "persistent"};

static void finish(int form, MPI_Request *req, void (*reset)(void *), void *arg)
{
    if (form == 0)
        return;
    if (form == 2) {
        CHECK(MPI_Start(req) == MPI_SUCCESS);
        CHECK(MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (reset != NULL)
            reset(arg);
        CHECK(MPI_Start(req) == MPI_SUCCESS);
    }
    CHECK(MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (form == 2)
        CHECK(MPI_Request_free(req) == MPI_SUCCESS);
}

typedef struct {
    int *buf;
    MPI_Count n;
} gaps_t;

static void reset_gaps(void *arg)
{
    gaps_t *g = arg;
    for (MPI_Count i = 0; i < g->n; i++)
        g->buf[i] = GAP;
}

/* Blocks of counts[q] at displs[q] (elements) in reverse order of q with a gap of q + 1 after
 * each: returns the length of the whole buffer. */
static MPI_Count layout(int np, const MPI_Count *counts, MPI_Aint *displs)
{
    MPI_Count off = 1;
    for (int q = np - 1; q >= 0; q--) {
        displs[q] = (MPI_Aint)off;
        off += counts[q] + q + 1;
    }
    return off;
}

/* Every element of buf (n long): block q (counts[q] at displs[q]) holds want(q, i), the rest
 * GAP. */
static void check_blocks(const int *buf, MPI_Count n, int np, const MPI_Count *counts,
                         const MPI_Aint *displs, int t, int (*who)(int q, int t, MPI_Count i),
                         const char *what, int form)
{
    char *owner = xmalloc((size_t)n);

    memset(owner, 0, (size_t)n);
    for (int q = 0; q < np; q++)
        for (MPI_Count i = 0; i < counts[q]; i++) {
            MPI_Count at = displs[q] + i;
            owner[at] = 1;
            if (buf[at] != who(q, t, i))
                FAIL("%s (%s): block %d element %lld is %d, expected %d", what, form_name[form], q,
                     (long long)i, buf[at], who(q, t, i));
        }
    for (MPI_Count i = 0; i < n; i++)
        if (!owner[i] && buf[i] != GAP)
            FAIL("%s (%s): element %lld outside every block is %d (overwritten)", what,
                 form_name[form], (long long)i, buf[i]);
    free(owner);
}

static int from_rank(int q, int t, MPI_Count i)
{
    return val(t, q, i);
}

static void to_int(int np, const MPI_Count *c, const MPI_Aint *d, int *ci, int *di)
{
    for (int q = 0; q < np; q++) {
        ci[q] = (int)c[q];
        di[q] = (int)d[q];
    }
}

/* ---- rooted: Gatherv_c, Scatterv_c ---------------------------------------------------------- */

static void test_rooted(MPI_Comm comm, int me, int np)
{
    MPI_Count *cnt = xmalloc(np * sizeof(MPI_Count)), n;
    MPI_Aint *dsp = xmalloc(np * sizeof(MPI_Aint));
    int *ci = xmalloc(np * sizeof(int)), *di = xmalloc(np * sizeof(int)), root = np / 2;
    int *s, *r;
    MPI_Request req;

    for (int q = 0; q < np; q++)
        cnt[q] = q % 3 + 2 * q + 1;
    n = layout(np, cnt, dsp);
    to_int(np, cnt, dsp, ci, di);
    s = xmalloc((size_t)n * sizeof(int));
    r = xmalloc((size_t)n * sizeof(int));
    for (int form = 0; form < 4; form++) {
        gaps_t g = {r, n};
        int t = 10 + form;
        for (MPI_Count i = 0; i < cnt[me]; i++)
            s[i] = val(t, me, i);
        reset_gaps(&g);
        if (form == 0)
            CHECK(MPI_Gatherv_c(s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, root, comm) ==
                  MPI_SUCCESS);
        else if (form == 1)
            CHECK(MPI_Igatherv_c(s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, root, comm, &req) ==
                  MPI_SUCCESS);
        else if (form == 2)
            CHECK(MPI_Gatherv_init_c(s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, root, comm,
                                     MPI_INFO_NULL, &req) == MPI_SUCCESS);
        else /* the int form on the same data */
            CHECK(MPI_Gatherv(s, ci[me], MPI_INT, r, ci, di, MPI_INT, root, comm) == MPI_SUCCESS);
        finish(form % 3, &req, me == root ? reset_gaps : NULL, &g);
        if (me == root)
            check_blocks(r, n, np, cnt, dsp, t, from_rank, "MPI_Gatherv_c", form % 3);
    }
    /* In place at the root: its block is already where it belongs. */
    {
        gaps_t g = {r, n};
        reset_gaps(&g);
        for (MPI_Count i = 0; i < cnt[me]; i++)
            (me == root ? r + dsp[me] : s)[i] = val(14, me, i);
        CHECK(MPI_Gatherv_c(me == root ? MPI_IN_PLACE : s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT,
                            root, comm) == MPI_SUCCESS);
        if (me == root)
            check_blocks(r, n, np, cnt, dsp, 14, from_rank, "MPI_Gatherv_c in place", 0);
    }
    /* Scatterv_c: the root's blocks out, each rank's counted exactly. */
    for (int form = 0; form < 4; form++) {
        int t = 20 + form, *mine = xmalloc((size_t)(cnt[me] + 2) * sizeof(int));
        gaps_t g = {mine, cnt[me] + 2};
        reset_gaps(&g);
        for (int q = 0; q < np; q++)
            for (MPI_Count i = 0; i < cnt[q]; i++)
                s[dsp[q] + i] = val(t, q, i);
        if (form == 0)
            CHECK(MPI_Scatterv_c(s, cnt, dsp, MPI_INT, mine, cnt[me], MPI_INT, root, comm) ==
                  MPI_SUCCESS);
        else if (form == 1)
            CHECK(MPI_Iscatterv_c(s, cnt, dsp, MPI_INT, mine, cnt[me], MPI_INT, root, comm, &req) ==
                  MPI_SUCCESS);
        else if (form == 2)
            CHECK(MPI_Scatterv_init_c(s, cnt, dsp, MPI_INT, mine, cnt[me], MPI_INT, root, comm,
                                      MPI_INFO_NULL, &req) == MPI_SUCCESS);
        else
            CHECK(MPI_Scatterv(s, ci, di, MPI_INT, mine, ci[me], MPI_INT, root, comm) ==
                  MPI_SUCCESS);
        finish(form % 3, &req, reset_gaps, &g);
        for (MPI_Count i = 0; i < cnt[me]; i++)
            if (mine[i] != val(t, me, i))
                FAIL("MPI_Scatterv_c (%s): element %lld is %d, expected %d", form_name[form % 3],
                     (long long)i, mine[i], val(t, me, i));
        CHECK(mine[cnt[me]] == GAP && mine[cnt[me] + 1] == GAP);
        free(mine);
    }
    free(s);
    free(r);
    free(cnt);
    free(dsp);
    free(ci);
    free(di);
}

/* ---- Allgatherv_c ---------------------------------------------------------------------------- */

static void test_allgatherv(MPI_Comm comm, int me, int np)
{
    MPI_Count *cnt = xmalloc(np * sizeof(MPI_Count)), n;
    MPI_Aint *dsp = xmalloc(np * sizeof(MPI_Aint));
    int *ci = xmalloc(np * sizeof(int)), *di = xmalloc(np * sizeof(int)), *s, *r;
    MPI_Request req;

    for (int q = 0; q < np; q++)
        cnt[q] = (q * 5) % 4 + q + 1;
    n = layout(np, cnt, dsp);
    to_int(np, cnt, dsp, ci, di);
    s = xmalloc((size_t)cnt[me] * sizeof(int));
    r = xmalloc((size_t)n * sizeof(int));
    for (int form = 0; form < 5; form++) {
        gaps_t g = {r, n};
        int t = 30 + form, in_place = form == 4;
        reset_gaps(&g);
        for (MPI_Count i = 0; i < cnt[me]; i++)
            (in_place ? r + dsp[me] : s)[i] = val(t, me, i);
        if (form == 0)
            CHECK(MPI_Allgatherv_c(s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, comm) == MPI_SUCCESS);
        else if (form == 1)
            CHECK(MPI_Iallgatherv_c(s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, comm, &req) ==
                  MPI_SUCCESS);
        else if (form == 2)
            CHECK(MPI_Allgatherv_init_c(s, cnt[me], MPI_INT, r, cnt, dsp, MPI_INT, comm,
                                        MPI_INFO_NULL, &req) == MPI_SUCCESS);
        else if (form == 3)
            CHECK(MPI_Allgatherv(s, ci[me], MPI_INT, r, ci, di, MPI_INT, comm) == MPI_SUCCESS);
        else
            CHECK(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, dsp, MPI_INT,
                                   comm) == MPI_SUCCESS);
        finish(form < 3 ? form : 0, &req, reset_gaps, &g);
        check_blocks(r, n, np, cnt, dsp, t, from_rank, "MPI_Allgatherv_c", form < 3 ? form : 0);
    }
    free(s);
    free(r);
    free(cnt);
    free(dsp);
    free(ci);
    free(di);
}

/* ---- Alltoallv_c, Alltoallw_c ---------------------------------------------------------------- */

/* Elements a sends to b. */
static MPI_Count a2a_count(int a, int b)
{
    return (a + 2 * b) % 4 + 1;
}

static int a2a_me; /* this rank in the communicator from_pair() works on */

/* What rank q sent this rank in test t. */
static int from_pair(int q, int t, MPI_Count i)
{
    return val(t, q * 64 + a2a_me, i);
}

static void test_alltoall(MPI_Comm comm, int me, int np)
{
    MPI_Count *sc = xmalloc(np * sizeof(MPI_Count)), *rc = xmalloc(np * sizeof(MPI_Count)), sn, rn;
    MPI_Aint *sd = xmalloc(np * sizeof(MPI_Aint)), *rd = xmalloc(np * sizeof(MPI_Aint));
    MPI_Aint *sb = xmalloc(np * sizeof(MPI_Aint)), *rb = xmalloc(np * sizeof(MPI_Aint));
    MPI_Count *rcw = xmalloc(np * sizeof(MPI_Count)), *scw = xmalloc(np * sizeof(MPI_Count));
    MPI_Datatype *st = xmalloc(np * sizeof(MPI_Datatype)), *rt = xmalloc(np * sizeof(MPI_Datatype));
    int *sci = xmalloc(np * sizeof(int)), *sdi = xmalloc(np * sizeof(int));
    int *rci = xmalloc(np * sizeof(int)), *rdi = xmalloc(np * sizeof(int));
    int *s, *r;
    MPI_Datatype pair;
    MPI_Request req;

    a2a_me = me;
    CHECK(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&pair) == MPI_SUCCESS);
    for (int q = 0; q < np; q++) {
        sc[q] = 2 * a2a_count(me, q); /* even, so that a pair type can receive them */
        rc[q] = 2 * a2a_count(q, me);
    }
    /* Send blocks in rank order with one-element gaps, receive blocks in reverse order. */
    sn = 0;
    for (int q = 0; q < np; q++) {
        sd[q] = (MPI_Aint)sn;
        sn += sc[q] + 1;
    }
    rn = layout(np, rc, rd);
    to_int(np, sc, sd, sci, sdi);
    to_int(np, rc, rd, rci, rdi);
    s = xmalloc((size_t)sn * sizeof(int));
    r = xmalloc((size_t)rn * sizeof(int));
    for (int form = 0; form < 4; form++) {
        gaps_t g = {r, rn};
        int t = 40 + form;
        reset_gaps(&g);
        for (int q = 0; q < np; q++)
            for (MPI_Count i = 0; i < sc[q]; i++)
                s[sd[q] + i] = val(t, me * 64 + q, i);
        if (form == 0)
            CHECK(MPI_Alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm) == MPI_SUCCESS);
        else if (form == 1)
            CHECK(MPI_Ialltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, &req) ==
                  MPI_SUCCESS);
        else if (form == 2)
            CHECK(MPI_Alltoallv_init_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, MPI_INFO_NULL,
                                       &req) == MPI_SUCCESS);
        else
            CHECK(MPI_Alltoallv(s, sci, sdi, MPI_INT, r, rci, rdi, MPI_INT, comm) == MPI_SUCCESS);
        finish(form < 3 ? form : 0, &req, reset_gaps, &g);
        check_blocks(r, rn, np, rc, rd, t, from_pair, "MPI_Alltoallv_c", form < 3 ? form : 0);
    }
    /* Alltoallw_c: byte displacements; block q goes out as sc[q] MPI_INTs and comes in as pairs
     * from odd ranks, as MPI_INTs from even ones. */
    for (int q = 0; q < np; q++) {
        sb[q] = sd[q] * (MPI_Aint)sizeof(int);
        rb[q] = rd[q] * (MPI_Aint)sizeof(int);
        st[q] = MPI_INT;
        scw[q] = sc[q];
        rt[q] = q % 2 ? pair : MPI_INT;
        rcw[q] = q % 2 ? rc[q] / 2 : rc[q];
    }
    for (int form = 0; form < 3; form++) {
        gaps_t g = {r, rn};
        int t = 50 + form;
        reset_gaps(&g);
        for (int q = 0; q < np; q++)
            for (MPI_Count i = 0; i < sc[q]; i++)
                s[sd[q] + i] = val(t, me * 64 + q, i);
        if (form == 0)
            CHECK(MPI_Alltoallw_c(s, scw, sb, st, r, rcw, rb, rt, comm) == MPI_SUCCESS);
        else if (form == 1)
            CHECK(MPI_Ialltoallw_c(s, scw, sb, st, r, rcw, rb, rt, comm, &req) == MPI_SUCCESS);
        else
            CHECK(MPI_Alltoallw_init_c(s, scw, sb, st, r, rcw, rb, rt, comm, MPI_INFO_NULL, &req) ==
                  MPI_SUCCESS);
        finish(form, &req, reset_gaps, &g);
        check_blocks(r, rn, np, rc, rd, t, from_pair, "MPI_Alltoallw_c", form);
    }
    /* In place (Alltoallv_c): symmetric counts, q's block of me replaced by me's block of q. */
    {
        MPI_Count *c = xmalloc(np * sizeof(MPI_Count)), n;
        MPI_Aint *d = xmalloc(np * sizeof(MPI_Aint));
        int *buf;
        for (int q = 0; q < np; q++)
            c[q] = (me + q) % 3 + 1;
        n = layout(np, c, d);
        buf = xmalloc((size_t)n * sizeof(int));
        gaps_t g = {buf, n};
        reset_gaps(&g);
        for (int q = 0; q < np; q++)
            for (MPI_Count i = 0; i < c[q]; i++)
                buf[d[q] + i] = val(45, me * 64 + q, i);
        CHECK(MPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, c, d, MPI_INT,
                              comm) == MPI_SUCCESS);
        check_blocks(buf, n, np, c, d, 45, from_pair, "MPI_Alltoallv_c in place", 0);
        free(buf);
        free(c);
        free(d);
    }
    CHECK(MPI_Type_free(&pair) == MPI_SUCCESS);
    free(s);
    free(r);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(sb);
    free(rb);
    free(scw);
    free(rcw);
    free(st);
    free(rt);
    free(sci);
    free(sdi);
    free(rci);
    free(rdi);
}

/* ---- Reduce_scatter_c ------------------------------------------------------------------------ */

static void test_reduce_scatter(MPI_Comm comm, int me, int np)
{
    MPI_Count *cnt = xmalloc(np * sizeof(MPI_Count)), total = 0, off = 0;
    int *ci = xmalloc(np * sizeof(int)), *s, *r;
    MPI_Request req;

    for (int q = 0; q < np; q++) {
        cnt[q] = (q * 3) % 5 + 1;
        ci[q] = (int)cnt[q];
        if (q < me)
            off += cnt[q];
        total += cnt[q];
    }
    s = xmalloc((size_t)total * sizeof(int));
    r = xmalloc((size_t)total * sizeof(int));
    for (int form = 0; form < 5; form++) {
        int t = 60 + form, in_place = form == 4;
        gaps_t g = {r, total};
        reset_gaps(&g);
        for (MPI_Count i = 0; i < total; i++)
            (in_place ? r : s)[i] = val(t, me, i);
        if (form == 0)
            CHECK(MPI_Reduce_scatter_c(s, r, cnt, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
        else if (form == 1)
            CHECK(MPI_Ireduce_scatter_c(s, r, cnt, MPI_INT, MPI_SUM, comm, &req) == MPI_SUCCESS);
        else if (form == 2)
            CHECK(MPI_Reduce_scatter_init_c(s, r, cnt, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                            &req) == MPI_SUCCESS);
        else if (form == 3)
            CHECK(MPI_Reduce_scatter(s, r, ci, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
        else
            CHECK(MPI_Reduce_scatter_c(MPI_IN_PLACE, r, cnt, MPI_INT, MPI_SUM, comm) ==
                  MPI_SUCCESS);
        finish(form < 3 ? form : 0, &req, reset_gaps, &g);
        for (MPI_Count i = 0; i < cnt[me]; i++) {
            int want = 0;
            for (int q = 0; q < np; q++)
                want += val(t, q, off + i);
            if (r[i] != want)
                FAIL("MPI_Reduce_scatter_c (form %d): element %lld is %d, expected %d", form,
                     (long long)i, r[i], want);
        }
        if (!in_place)
            for (MPI_Count i = cnt[me]; i < total; i++)
                CHECK(r[i] == GAP);
    }
    free(s);
    free(r);
    free(cnt);
    free(ci);
}

/* ---- neighbourhood v/w on a periodic ring ---------------------------------------------------- */

/* Elements rank a sends to its neighbour j (0: left, 1: right). */
static MPI_Count nb_count(int a, int j)
{
    return 2 * ((a + j) % 3 + 1);
}

static int nb_left, nb_right;

static int from_nb(int q, int t, MPI_Count i)
{
    /* In-neighbour 0 is the left one, which sent us its block 1; in-neighbour 1 its block 0. */
    return q == 0 ? val(t, nb_left * 2 + 1, i) : val(t, nb_right * 2, i);
}

static int from_nb_gather(int q, int t, MPI_Count i)
{
    return val(t, q == 0 ? nb_left : nb_right, i);
}

static void test_neighbor(MPI_Comm comm, int np)
{
    int dims[1] = {np}, periods[1] = {1}, me, *s, *r;
    MPI_Count sc[2], rc[2], rcw[2], rn, sn;
    MPI_Aint sd[2], rd[2], sb[2], rb[2];
    MPI_Datatype st[2] = {MPI_INT, MPI_INT}, rt[2], pair;
    MPI_Comm ring;
    MPI_Request req;

    CHECK(MPI_Cart_create(comm, 1, dims, periods, 0, &ring) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(ring, &me) == MPI_SUCCESS);
    CHECK(MPI_Cart_shift(ring, 0, 1, &nb_left, &nb_right) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&pair) == MPI_SUCCESS);
    /* Neighbor_allgatherv_c: my one block (nb_count(me, 0)) to both; theirs in reverse order. */
    rc[0] = nb_count(nb_left, 0);
    rc[1] = nb_count(nb_right, 0);
    rn = layout(2, rc, rd);
    s = xmalloc(64 * sizeof(int));
    r = xmalloc(64 * sizeof(int));
    CHECK(rn <= 64);
    for (int form = 0; form < 3; form++) {
        int t = 70 + form;
        gaps_t g = {r, rn};
        reset_gaps(&g);
        for (MPI_Count i = 0; i < nb_count(me, 0); i++)
            s[i] = val(t, me, i);
        if (form == 0)
            CHECK(MPI_Neighbor_allgatherv_c(s, nb_count(me, 0), MPI_INT, r, rc, rd, MPI_INT,
                                            ring) == MPI_SUCCESS);
        else if (form == 1)
            CHECK(MPI_Ineighbor_allgatherv_c(s, nb_count(me, 0), MPI_INT, r, rc, rd, MPI_INT, ring,
                                             &req) == MPI_SUCCESS);
        else
            CHECK(MPI_Neighbor_allgatherv_init_c(s, nb_count(me, 0), MPI_INT, r, rc, rd, MPI_INT,
                                                 ring, MPI_INFO_NULL, &req) == MPI_SUCCESS);
        finish(form, &req, reset_gaps, &g);
        check_blocks(r, rn, 2, rc, rd, t, from_nb_gather, "MPI_Neighbor_allgatherv_c", form);
    }
    /* Neighbor_alltoallv_c / alltoallw_c: block j to neighbour j. */
    sc[0] = nb_count(me, 0);
    sc[1] = nb_count(me, 1);
    sd[0] = 0;
    sd[1] = (MPI_Aint)sc[0] + 3;
    sn = sd[1] + sc[1];
    CHECK(sn <= 64);
    rc[0] = nb_count(nb_left, 1);
    rc[1] = nb_count(nb_right, 0);
    rn = layout(2, rc, rd);
    CHECK(rn <= 64);
    for (int j = 0; j < 2; j++) {
        sb[j] = sd[j] * (MPI_Aint)sizeof(int);
        rb[j] = rd[j] * (MPI_Aint)sizeof(int);
        rt[j] = j ? pair : MPI_INT;
        rcw[j] = j ? rc[j] / 2 : rc[j];
    }
    for (int form = 0; form < 6; form++) {
        int t = 80 + form, w = form >= 3, f = form % 3;
        gaps_t g = {r, rn};
        reset_gaps(&g);
        for (int j = 0; j < 2; j++)
            for (MPI_Count i = 0; i < sc[j]; i++)
                s[sd[j] + i] = val(t, me * 2 + j, i);
        if (!w && f == 0)
            CHECK(MPI_Neighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring) ==
                  MPI_SUCCESS);
        else if (!w && f == 1)
            CHECK(MPI_Ineighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring, &req) ==
                  MPI_SUCCESS);
        else if (!w)
            CHECK(MPI_Neighbor_alltoallv_init_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring,
                                                MPI_INFO_NULL, &req) == MPI_SUCCESS);
        else if (f == 0)
            CHECK(MPI_Neighbor_alltoallw_c(s, sc, sb, st, r, rcw, rb, rt, ring) == MPI_SUCCESS);
        else if (f == 1)
            CHECK(MPI_Ineighbor_alltoallw_c(s, sc, sb, st, r, rcw, rb, rt, ring, &req) ==
                  MPI_SUCCESS);
        else
            CHECK(MPI_Neighbor_alltoallw_init_c(s, sc, sb, st, r, rcw, rb, rt, ring, MPI_INFO_NULL,
                                                &req) == MPI_SUCCESS);
        finish(f, &req, reset_gaps, &g);
        check_blocks(r, rn, 2, rc, rd, t, from_nb,
                     w ? "MPI_Neighbor_alltoallw_c" : "MPI_Neighbor_alltoallv_c", f);
    }
    CHECK(MPI_Type_free(&pair) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&ring) == MPI_SUCCESS);
    free(s);
    free(r);
}

/* ---- an intercommunicator: the even and the odd ranks of comm -------------------------------- */

static void test_inter(void)
{
    MPI_Comm half, inter;
    int color = rank % 2, me, nloc, nrem, *s, *r;
    MPI_Count *cnt;
    MPI_Aint *dsp;
    MPI_Count n;

    if (size < 2)
        return;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(inter, &me) == MPI_SUCCESS && MPI_Comm_size(inter, &nloc) == MPI_SUCCESS);
    CHECK(MPI_Comm_remote_size(inter, &nrem) == MPI_SUCCESS);
    /* Allgatherv_c: everyone gets the remote group's blocks; remote rank q sends q + 2. */
    cnt = xmalloc(nrem * sizeof(MPI_Count));
    dsp = xmalloc(nrem * sizeof(MPI_Aint));
    for (int q = 0; q < nrem; q++)
        cnt[q] = q + 2;
    n = layout(nrem, cnt, dsp);
    s = xmalloc((size_t)(me + 2) * sizeof(int));
    r = xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < me + 2; i++)
        s[i] = val(90 + color, me, i);
    gaps_t g = {r, n};
    reset_gaps(&g);
    CHECK(MPI_Allgatherv_c(s, me + 2, MPI_INT, r, cnt, dsp, MPI_INT, inter) == MPI_SUCCESS);
    check_blocks(r, n, nrem, cnt, dsp, 90 + (1 - color), from_rank, "MPI_Allgatherv_c (inter)", 0);
    free(s);
    free(r);
    free(cnt);
    free(dsp);
    CHECK(MPI_Comm_free(&inter) == MPI_SUCCESS && MPI_Comm_free(&half) == MPI_SUCCESS);
}

static void test_small(void)
{
    MPI_Comm halves;
    int me, np;

    test_rooted(MPI_COMM_WORLD, rank, size);
    test_allgatherv(MPI_COMM_WORLD, rank, size);
    test_alltoall(MPI_COMM_WORLD, rank, size);
    test_reduce_scatter(MPI_COMM_WORLD, rank, size);
    test_neighbor(MPI_COMM_WORLD, size);
    /* Again on the odd and the even ranks, in reverse order. */
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &halves) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(halves, &me) == MPI_SUCCESS && MPI_Comm_size(halves, &np) == MPI_SUCCESS);
    test_rooted(halves, me, np);
    test_allgatherv(halves, me, np);
    test_alltoall(halves, me, np);
    test_reduce_scatter(halves, me, np);
    test_neighbor(halves, np);
    CHECK(MPI_Comm_free(&halves) == MPI_SUCCESS);
    test_inter();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount_v small: ok (%d ranks)\n", size);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static int buf4[4];
static const MPI_Count neg[1] = {-5};
static const MPI_Aint zero[1] = {0};
static const MPI_Datatype ints[1] = {MPI_INT};

static int bad_gatherv(void)
{
    return MPI_Gatherv_c(buf4, 1, MPI_INT, buf4, neg, zero, MPI_INT, 0, MPI_COMM_SELF);
}

static int bad_alltoallv(void)
{
    return MPI_Alltoallv_c(buf4, neg, zero, MPI_INT, buf4 + 2, neg, zero, MPI_INT, MPI_COMM_SELF);
}

static int bad_ialltoallw(void)
{
    MPI_Request req;
    return MPI_Ialltoallw_c(buf4, neg, zero, ints, buf4 + 2, neg, zero, ints, MPI_COMM_SELF, &req);
}

static int bad_reduce_scatter(void)
{
    return MPI_Reduce_scatter_c(buf4, buf4 + 2, neg, MPI_INT, MPI_SUM, MPI_COMM_SELF);
}

static void test_errors(void)
{
    static const struct {
        int (*call)(void);
        const char *name, *arg;
    } bad[] = {
        {bad_gatherv, "MPI_Gatherv_c", "recvcounts[0] is -5"},
        {bad_alltoallv, "MPI_Alltoallv_c", "counts[0] is -5"},
        {bad_ialltoallw, "MPI_Ialltoallw_c", "counts[0] is -5"},
        {bad_reduce_scatter, "MPI_Reduce_scatter_c", "recvcounts[0] is -5"},
    };
    char msg[4096];

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        int rc = mpitest_capture_stderr(bad[k].call, msg, sizeof(msg)), cls;
        CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS);
        if (cls != MPI_ERR_COUNT)
            FAIL("%s with a count of -5: class %d, expected MPI_ERR_COUNT", bad[k].name, cls);
        if (strstr(msg, bad[k].name) == NULL || strstr(msg, bad[k].arg) == NULL)
            FAIL("%s: the message does not name the call and the argument (%s): %s", bad[k].name,
                 bad[k].arg, msg);
    }
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount_v errors: ok (%d ranks)\n", size);
}

/* ---- huge: counts and displacements beyond 2^31 ---------------------------------------------- */

#define HUGE_BYTES (((MPI_Count)1 << 31) + 4096)
#define FAR        (((MPI_Aint)1 << 31) + 65536) /* a displacement beyond INT_MAX */

/* The first and last 64 KiB, and every 4093rd byte between. */
static void verify_sparse(const unsigned char *buf, size_t len, unsigned seed, const char *what)
{
    size_t edge = len < 65536 ? len : 65536;

    for (size_t i = 0; i < edge; i++)
        if (buf[i] != pattern(seed, i) || buf[len - 1 - i] != pattern(seed, len - 1 - i))
            FAIL("%s: byte %zu or %zu of %zu wrong", what, i, len - 1 - i, len);
    for (size_t i = edge; i < len - edge; i += 4093)
        if (buf[i] != pattern(seed, i))
            FAIL("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, len, buf[i],
                 pattern(seed, i));
}

/* Address space for a buffer of which only some pages are touched (the kernel backs the rest
 * by nothing until written). */
static unsigned char *big_alloc(size_t len)
{
    unsigned char *p = malloc(len);
    if (p == NULL) {
        if (rank == 0)
            printf("largecount_v: SKIP: no memory for %zu bytes\n", len);
        MPI_Finalize();
        exit(77);
    }
    return p;
}

static void test_huge(void)
{
    MPI_Count cnt[2] = {4096, HUGE_BYTES};
    MPI_Aint dsp[2] = {0, FAR};
    unsigned char *mine, *all;

    if (size != 2) {
        if (rank == 0)
            printf("largecount_v: SKIP: huge needs 2 ranks\n");
        MPI_Finalize();
        exit(77);
    }
    /* Gatherv_c: rank 1's 2^31 + 4096 bytes land at byte FAR of the root's buffer. */
    mine = big_alloc((size_t)HUGE_BYTES);
    all = rank == 0 ? big_alloc((size_t)(FAR + HUGE_BYTES)) : NULL;
    fill(mine, (size_t)cnt[rank], 100 + rank);
    CHECK(MPI_Gatherv_c(mine, cnt[rank], MPI_BYTE, all, cnt, dsp, MPI_BYTE, 0, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    if (rank == 0) {
        verify(all, 4096, 100, "MPI_Gatherv_c (rank 0's block)");
        verify_sparse(all + FAR, (size_t)HUGE_BYTES, 101, "MPI_Gatherv_c (2^31 + 4096 bytes)");
        /* Back with Scatterv_c, changed: every 4093rd byte of the big block flipped. */
        for (size_t i = 0; i < (size_t)HUGE_BYTES; i += 4093)
            all[FAR + i] = (unsigned char)~all[FAR + i];
    }
    memset(mine, 0, (size_t)cnt[rank]); /* rank 0 touches only its 4096 bytes */
    CHECK(MPI_Scatterv_c(all, cnt, dsp, MPI_BYTE, mine, cnt[rank], MPI_BYTE, 0, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    if (rank == 0)
        verify(mine, 4096, 100, "MPI_Scatterv_c (rank 0's block)");
    if (rank == 1) {
        /* Every flipped byte, and every byte of both 64 KiB ends. */
        for (size_t i = 0; i < (size_t)HUGE_BYTES; i += 4093)
            if (mine[i] != (unsigned char)~pattern(101, i))
                FAIL("MPI_Scatterv_c: byte %zu is 0x%02x, expected 0x%02x", i, mine[i],
                     (unsigned char)~pattern(101, i));
        for (size_t k = 0; k < 2 * 65536; k++) {
            size_t i = k < 65536 ? k : (size_t)HUGE_BYTES - 1 - (k - 65536);
            unsigned char want = i % 4093 ? pattern(101, i) : (unsigned char)~pattern(101, i);
            if (mine[i] != want)
                FAIL("MPI_Scatterv_c: byte %zu is 0x%02x, expected 0x%02x", i, mine[i], want);
        }
    }
    free(all);
    free(mine);
    /* Alltoallw_c and Allgatherv_c with displacements beyond 2^31 bytes (small blocks: only the
     * pages they touch are memory). */
    {
        size_t len = (size_t)FAR * 2 + 4096;
        unsigned char *s = big_alloc(len), *r = big_alloc(len);
        MPI_Count c[2] = {1000, 3000};
        MPI_Aint sd[2] = {(MPI_Aint)rank * FAR, FAR + 4096 - (MPI_Aint)rank * FAR},
                 rd[2] = {FAR * 2, FAR + 17};
        MPI_Datatype t[2] = {MPI_BYTE, MPI_BYTE};
        MPI_Count sc[2] = {c[rank], c[rank]}, rc[2] = {c[0], c[1]};

        for (int q = 0; q < 2; q++)
            fill(s + sd[q], (size_t)c[rank], 200 + rank * 2 + q);
        memset(r + rd[0], 0, (size_t)c[0]);
        memset(r + rd[1], 0, (size_t)c[1]);
        CHECK(MPI_Alltoallw_c(s, sc, sd, t, r, rc, rd, t, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int q = 0; q < 2; q++)
            verify(r + rd[q], (size_t)c[q], 200 + q * 2 + rank, "MPI_Alltoallw_c (far)");
        /* Allgatherv_c of MPI_BYTE: displacements in elements beyond INT_MAX. */
        fill(s, (size_t)c[rank], 300 + rank);
        memset(r + rd[0], 0, (size_t)c[0]);
        memset(r + rd[1], 0, (size_t)c[1]);
        CHECK(MPI_Allgatherv_c(s, c[rank], MPI_BYTE, r, c, rd, MPI_BYTE, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        for (int q = 0; q < 2; q++)
            verify(r + rd[q], (size_t)c[q], 300 + q, "MPI_Allgatherv_c (far)");
        free(s);
        free(r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("largecount_v huge: ok (%d ranks)\n", size);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "small";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(what, "small") == 0)
        test_small();
    else if (strcmp(what, "errors") == 0)
        test_errors();
    else if (strcmp(what, "huge") == 0)
        test_huge();
    else
        FAIL("unknown subtest %s (small, errors, huge)", what);
    MPI_Finalize();
    return 0;
}
