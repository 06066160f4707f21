/* The datatype calls programs expect besides the constructors: attributes on datatypes
 * (keyvals, copy callbacks on MPI_Type_dup, delete callbacks on MPI_Type_free), and the rest
 * added with them below. Every value is checked; run at 1 to 7 ranks (types_extra.sh). */
#define MPITEST_NAME "types_extra"
#include "mpitest.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* ---- attributes ------------------------------------------------------------------------------ */

/* What the callbacks saw, for the checks. */
typedef struct {
    int copies, deletes;
    int last_keyval;
    intptr_t last_deleted;
    MPI_Datatype last_type;
} calls_t;

static int copy_plus_one(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                         int *flag)
{
    calls_t *c = extra;
    c->copies++;
    c->last_keyval = keyval;
    c->last_type = oldtype;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_refuse(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                       int *flag)
{
    (void)oldtype, (void)keyval, (void)in, (void)out;
    ((calls_t *)extra)->copies++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int copy_fail(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldtype, (void)keyval, (void)in, (void)out, (void)flag;
    ((calls_t *)extra)->copies++;
    return MPI_ERR_OTHER;
}

static int delete_count(MPI_Datatype type, int keyval, void *val, void *extra)
{
    calls_t *c = extra;
    c->deletes++;
    c->last_keyval = keyval;
    c->last_deleted = (intptr_t)val;
    c->last_type = type;
    return MPI_SUCCESS;
}

static int delete_fail(MPI_Datatype type, int keyval, void *val, void *extra)
{
    (void)type, (void)keyval, (void)val;
    ((calls_t *)extra)->deletes++;
    return MPI_ERR_OTHER;
}

static void *get(MPI_Datatype t, int kv, int expect_flag)
{
    void *v = NULL;
    int flag = -1;
    CHECK(MPI_Type_get_attr(t, kv, &v, &flag) == MPI_SUCCESS);
    if (flag != expect_flag)
        FAIL("MPI_Type_get_attr(keyval %d): flag %d, expected %d", kv, flag, expect_flag);
    return v;
}

static void test_type_attr(void)
{
    calls_t c1 = {0}, c2 = {0}, c3 = {0};
    int kv1, kv2, kv3, kvnull, kvdup, kvcomm, rc;
    MPI_Datatype vec, dup, dup2;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Type_create_keyval(copy_plus_one, delete_count, &kv1, &c1) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(copy_refuse, delete_count, &kv2, &c2) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kvnull, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_count, &kvdup, &c3) == MPI_SUCCESS);
    CHECK(kv1 != MPI_KEYVAL_INVALID && kv1 != kv2 && kv2 != kvnull && kvnull != kvdup);

    CHECK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec) == MPI_SUCCESS);
    get(vec, kv1, 0);
    CHECK(MPI_Type_set_attr(vec, kv1, (void *)(intptr_t)(100 + rank)) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kv2, (void *)(intptr_t)200) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kvnull, (void *)(intptr_t)300) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kvdup, (void *)(intptr_t)400) == MPI_SUCCESS);
    CHECK((intptr_t)get(vec, kv1, 1) == 100 + rank);
    CHECK((intptr_t)get(vec, kv2, 1) == 200);
    CHECK((intptr_t)get(vec, kvnull, 1) == 300);
    CHECK((intptr_t)get(vec, kvdup, 1) == 400);

    /* Replacing a value runs the delete callback on the old one. */
    CHECK(MPI_Type_set_attr(vec, kv2, (void *)(intptr_t)201) == MPI_SUCCESS);
    CHECK(c2.deletes == 1 && c2.last_deleted == 200 && c2.last_type == vec &&
          c2.last_keyval == kv2);
    CHECK((intptr_t)get(vec, kv2, 1) == 201);

    /* MPI_Type_dup: kv1 copies value + 1, kv2 refuses, kvnull is not copied, kvdup copies. */
    CHECK(MPI_Type_dup(vec, &dup) == MPI_SUCCESS);
    CHECK(c1.copies == 1 && c1.last_type == vec && c1.last_keyval == kv1);
    CHECK(c2.copies == 1);
    CHECK((intptr_t)get(dup, kv1, 1) == 101 + rank);
    get(dup, kv2, 0);
    get(dup, kvnull, 0);
    CHECK((intptr_t)get(dup, kvdup, 1) == 400);
    /* The original is untouched. */
    CHECK((intptr_t)get(vec, kv1, 1) == 100 + rank);

    /* Delete: the callback sees the value; deleting again is no error and no callback. */
    CHECK(MPI_Type_delete_attr(dup, kv1) == MPI_SUCCESS);
    CHECK(c1.deletes == 1 && c1.last_deleted == 101 + rank && c1.last_type == dup);
    get(dup, kv1, 0);
    CHECK(MPI_Type_delete_attr(dup, kv1) == MPI_SUCCESS);
    CHECK(c1.deletes == 1);

    /* Free runs the delete callbacks of what is left: dup has kvdup only. */
    CHECK(MPI_Type_free(&dup) == MPI_SUCCESS && dup == MPI_DATATYPE_NULL);
    CHECK(c3.deletes == 1 && c3.last_deleted == 400);
    CHECK(c1.deletes == 1 && c2.deletes == 1);

    /* A keyval freed while in use stays valid for the attributes that have it. */
    CHECK(MPI_Type_free_keyval(&kv1) == MPI_SUCCESS && kv1 == MPI_KEYVAL_INVALID);
    CHECK(MPI_Type_free(&vec) == MPI_SUCCESS);
    CHECK(c1.deletes == 2 && c1.last_deleted == 100 + rank);
    CHECK(c2.deletes == 2 && c2.last_deleted == 201);
    CHECK(c3.deletes == 2);

    /* Predefined types carry attributes too. */
    CHECK(MPI_Type_set_attr(MPI_DOUBLE, kv2, (void *)(intptr_t)7) == MPI_SUCCESS);
    CHECK((intptr_t)get(MPI_DOUBLE, kv2, 1) == 7);
    get(MPI_INT, kv2, 0);
    CHECK(MPI_Type_delete_attr(MPI_DOUBLE, kv2) == MPI_SUCCESS);
    CHECK(c2.deletes == 3 && c2.last_type == MPI_DOUBLE && c2.last_deleted == 7);

    /* A failing copy callback fails MPI_Type_dup and leaves no type. */
    CHECK(MPI_Type_create_keyval(copy_fail, delete_count, &kv3, &c3) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kv3, (void *)(intptr_t)9) == MPI_SUCCESS);
    dup = MPI_INT;
    rc = MPI_Type_dup(vec, &dup);
    CHECK(rc != MPI_SUCCESS && dup == MPI_DATATYPE_NULL);
    CHECK(MPI_Type_delete_attr(vec, kv3) == MPI_SUCCESS);
    CHECK(MPI_Type_dup(vec, &dup2) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&dup2) == MPI_SUCCESS);

    /* A failing delete callback fails MPI_Type_free and MPI_Type_delete_attr; the type stays. */
    CHECK(MPI_Type_free_keyval(&kv3) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fail, &kv3, &c3) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(vec, kv3, (void *)(intptr_t)10) == MPI_SUCCESS);
    CHECK(MPI_Type_delete_attr(vec, kv3) != MPI_SUCCESS);
    CHECK((intptr_t)get(vec, kv3, 1) == 10);
    CHECK(MPI_Type_free(&vec) != MPI_SUCCESS);
    CHECK(vec != MPI_DATATYPE_NULL);
    {
        int sz;
        CHECK(MPI_Type_size(vec, &sz) == MPI_SUCCESS && sz == 2 * (int)sizeof(int));
    }

    /* Wrong keyvals: invalid, freed, a communicator's. */
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kvcomm, NULL) ==
          MPI_SUCCESS);
    {
        void *v;
        int flag, cls, bad = kv2;
        CHECK(MPI_Type_free_keyval(&bad) == MPI_SUCCESS);
        rc = MPI_Type_set_attr(MPI_INT, kvcomm, NULL);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_get_attr(MPI_INT, MPI_KEYVAL_INVALID, &v, &flag);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_get_attr(MPI_INT, kv2, &v, &flag); /* freed above */
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_free_keyval(&kvcomm);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Comm_free_keyval(&kvdup);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL);
        rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, kvdup, NULL);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TYPE);
    }
    CHECK(MPI_Comm_free_keyval(&kvcomm) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&kvnull) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&kvdup) == MPI_SUCCESS);
    /* vec keeps its attribute with the failing callback: MPI_Finalize drops it quietly. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- darray ---------------------------------------------------------------------------------- */

static int err_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* The owner coordinate of index i in a dimension, from the standard's definitions. */
static int owner(int i, int g, int distrib, int darg, int p)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return i / blk;
    }
    return (i / (darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg)) % p;
}

/* Build the darray of one case, pack an array whose element k holds k, and compare with the
 * owned elements in memory order; add to covered[] how often each element was packed. */
static void darray_case(int nd, const int *g, const int *dist, const int *darg, const int *ps,
                        int order, MPI_Datatype old, int *covered)
{
    int total = 1, coords[3], r = rank, esize, pos = 0, tsize, n = 0;
    MPI_Aint lb, ext, oext, olb;
    MPI_Datatype t;
    char *arr, *packed, *expect;

    for (int d = 0; d < nd; d++)
        total *= g[d];
    for (int d = nd - 1; d >= 0; d--) {
        coords[d] = r % ps[d];
        r /= ps[d];
    }
    MPI_Type_size(old, &esize);
    MPI_Type_get_extent(old, &olb, &oext);
    CHECK(MPI_Type_create_darray(size, rank, nd, g, dist, darg, ps, order, old, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    MPI_Type_get_extent(t, &lb, &ext);
    if (lb != 0 || ext != (MPI_Aint)total * oext)
        FAIL("darray: lb %ld extent %ld, expected 0 and %ld", (long)lb, (long)ext,
             (long)total * oext);
    arr = xmalloc((size_t)total * (size_t)oext);
    for (int k = 0; k < total; k++) {
        if (old == MPI_INT)
            ((int *)arr)[k] = k;
        else
            ((double *)arr)[k] = k + 0.5;
    }
    expect = xmalloc((size_t)total * (size_t)esize);
    packed = xmalloc((size_t)total * (size_t)esize + 1);
    /* Memory order: element k has index idx[d] in each dimension. */
    for (int k = 0; k < total; k++) {
        int rest = k, mine = 1;
        for (int j = 0; j < nd; j++) {
            int d = order == MPI_ORDER_C ? nd - 1 - j : j; /* fastest first */
            int i = rest % g[d];
            rest /= g[d];
            mine &= owner(i, g[d], dist[d], darg[d], ps[d]) == coords[d];
        }
        if (mine) {
            memcpy(expect + (size_t)n * (size_t)esize, arr + (size_t)k * (size_t)oext,
                   (size_t)esize);
            n++;
            covered[k]++;
        }
    }
    MPI_Type_size(t, &tsize);
    if (tsize != n * esize)
        FAIL("darray: size %d, expected %d elements of %d", tsize, n, esize);
    CHECK(MPI_Pack(arr, 1, t, packed, total * esize + 1, &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(pos == n * esize);
    if (memcmp(packed, expect, (size_t)n * (size_t)esize) != 0)
        FAIL("darray: packed elements differ (nd %d order %s, g[0] %d dist[0] %d darg[0] %d "
             "ps[0] %d)",
             nd, order == MPI_ORDER_C ? "C" : "Fortran", g[0], dist[0], darg[0], ps[0]);
    /* Unpack into a zeroed array: exactly the owned elements come back. */
    {
        char *back = xmalloc((size_t)total * (size_t)oext);
        memset(back, 0, (size_t)total * (size_t)oext);
        pos = 0;
        CHECK(MPI_Unpack(packed, n * esize, &pos, back, 1, t, MPI_COMM_WORLD) == MPI_SUCCESS);
        pos = 0;
        memset(expect, 0x5a, (size_t)n * (size_t)esize);
        CHECK(MPI_Pack(back, 1, t, expect, n * esize, &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(memcmp(packed, expect, (size_t)n * (size_t)esize) == 0);
        free(back);
    }
    /* The contents say what built it. */
    {
        int ni, na, nt, comb, ints[4 * 3 + 4];
        MPI_Aint a[1];
        MPI_Datatype types[1];
        CHECK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb) == MPI_SUCCESS);
        CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * nd + 4 && na == 0 && nt == 1);
        CHECK(MPI_Type_get_contents(t, ni, na, nt, ints, a, types) == MPI_SUCCESS);
        CHECK(ints[0] == size && ints[1] == rank && ints[2] == nd && ints[3 + 4 * nd] == order);
        for (int d = 0; d < nd; d++)
            CHECK(ints[3 + d] == g[d] && ints[3 + nd + d] == dist[d] &&
                  ints[3 + 2 * nd + d] == darg[d] && ints[3 + 3 * nd + d] == ps[d]);
        CHECK(types[0] == old);
    }
    MPI_Type_free(&t);
    free(arr), free(packed), free(expect);
}

/* Every element is owned by exactly one process. */
static void check_covered(int *covered, int total)
{
    MPI_Allreduce(MPI_IN_PLACE, covered, total, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < total; k++)
        if (covered[k] != 1)
            FAIL("darray: element %d packed by %d processes, expected 1", k, covered[k]);
    memset(covered, 0, (size_t)total * sizeof(int));
}

static void test_darray(void)
{
    static int covered[4096];
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    const int orders[2] = {MPI_ORDER_C, MPI_ORDER_FORTRAN};
    int cases = 0;

    /* Hand-computed at 3 processes: 10 elements in blocks (4, 4, 2) and cyclic(2). */
    if (size == 3) {
        static const int blk[3][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}};
        static const int cyc[3][4] = {{0, 1, 6, 7}, {2, 3, 8, 9}, {4, 5}};
        int g = 10, ps = 3, d, arr[10], out[4], pos, n = rank == 2 ? 2 : 4;
        MPI_Datatype t;
        for (int k = 0; k < 10; k++)
            arr[k] = 100 + k;
        for (int which = 0; which < 2; which++) {
            int dist = which ? C : B;
            d = which ? 2 : D;
            CHECK(MPI_Type_create_darray(3, rank, 1, &g, &dist, &d, &ps, MPI_ORDER_C, MPI_INT,
                                         &t) == MPI_SUCCESS);
            MPI_Type_commit(&t);
            pos = 0;
            CHECK(MPI_Pack(arr, 1, t, out, sizeof(out), &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
            CHECK(pos == n * (int)sizeof(int));
            for (int i = 0; i < n; i++)
                if (out[i] != 100 + (which ? cyc : blk)[rank][i])
                    FAIL("darray 1-d %s: element %d is %d", which ? "cyclic(2)" : "block", i,
                         out[i]);
            MPI_Type_free(&t);
        }
    }

    for (int oi = 0; oi < 2; oi++) {
        int o = orders[oi];
        /* 1-d: block, cyclic, cyclic(k), block(k) over all processes. */
        for (int g = 1; g <= 23; g += 11) {
            int dists[][2] = {{B, D}, {C, D}, {C, 1},
                              {C, 2}, {C, 3}, {B, (g + size - 1) / size + 1}};
            for (size_t i = 0; i < sizeof(dists) / sizeof(dists[0]); i++) {
                darray_case(1, &g, &dists[i][0], &dists[i][1], &size, o, MPI_INT, covered);
                check_covered(covered, g);
                cases++;
            }
        }
        /* 2-d on grids size x 1, 1 x size and (for even sizes) 2 x size/2. */
        {
            int grids[3][2] = {{size, 1}, {1, size}, {2, size / 2}};
            int ngrids = size % 2 == 0 ? 3 : 2;
            int g[2] = {7, 9};
            int dd[][4] = {{B, D, B, D}, {C, D, C, 2}, {B, D, C, 3},
                           {C, 2, B, D}, {N, D, C, D}, {C, D, N, D}};
            for (int gi = 0; gi < ngrids; gi++)
                for (size_t i = 0; i < sizeof(dd) / sizeof(dd[0]); i++) {
                    int dist[2] = {dd[i][0], dd[i][2]}, darg[2] = {dd[i][1], dd[i][3]};
                    if ((dist[0] == N && grids[gi][0] != 1) || (dist[1] == N && grids[gi][1] != 1))
                        continue;
                    darray_case(2, g, dist, darg, grids[gi], o, i % 2 ? MPI_DOUBLE : MPI_INT,
                                covered);
                    check_covered(covered, g[0] * g[1]);
                    cases++;
                }
        }
        /* 3-d: 5 x 4 x 6 on 1 x size x 1, cyclic in the middle, block and none around it. */
        {
            int g[3] = {5, 4, 6}, ps[3] = {1, size, 1}, dist[3] = {B, C, N}, darg[3] = {D, 1, D};
            darray_case(3, g, dist, darg, ps, o, MPI_INT, covered);
            check_covered(covered, 5 * 4 * 6);
            cases++;
        }
    }
    CHECK(cases > 20);

    /* Errors: the grid does not match size, a block too small, NONE on several processes. */
    {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int g = 10, dist = B, darg = 1, ps = size + 1, two = 2;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        CHECK(err_class(MPI_Type_create_darray(size, rank, 1, &g, &dist, &darg, &ps, MPI_ORDER_C,
                                               MPI_INT, &t)) == MPI_ERR_ARG);
        ps = size;
        darg = 1;
        if (size < 10)
            CHECK(err_class(MPI_Type_create_darray(size, rank, 1, &g, &dist, &darg, &ps,
                                                   MPI_ORDER_C, MPI_INT, &t)) == MPI_ERR_ARG);
        dist = N;
        ps = 2;
        CHECK(err_class(MPI_Type_create_darray(2, 0, 1, &g, &dist, &darg, &two, MPI_ORDER_C,
                                               MPI_INT, &t)) == MPI_ERR_ARG);
        dist = C;
        darg = 0;
        CHECK(err_class(MPI_Type_create_darray(1, 0, 1, &g, &dist, &darg, &ps, MPI_ORDER_C, MPI_INT,
                                               &t)) == MPI_ERR_ARG);
        darg = D;
        ps = 1;
        CHECK(err_class(MPI_Type_create_darray(1, 1, 1, &g, &dist, &darg, &ps, MPI_ORDER_C, MPI_INT,
                                               &t)) == MPI_ERR_ARG);
        CHECK(err_class(MPI_Type_create_darray(1, 0, 1, &g, &dist, &darg, &ps, 99, MPI_INT, &t)) ==
              MPI_ERR_ARG);
        CHECK(t == MPI_DATATYPE_NULL);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
}

/* ---- Fortran 90 types and MPI_Type_match_size ------------------------------------------------ */

static void check_f90(MPI_Datatype t, int combiner, int p, int r, int bytes)
{
    int ni, na, nt, comb, ints[2], sz;
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    if (comb != combiner)
        FAIL("f90 (p %d, r %d): combiner %d, expected %d", p, r, comb, combiner);
    CHECK(na == 0 && nt == 0 && ni == (combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2));
    CHECK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL) == MPI_SUCCESS);
    if (combiner == MPI_COMBINER_F90_INTEGER)
        CHECK(ints[0] == r);
    else
        CHECK(ints[0] == p && ints[1] == r);
    MPI_Type_size(t, &sz);
    if (sz != bytes)
        FAIL("f90 (p %d, r %d): size %d, expected %d", p, r, sz, bytes);
}

static void test_f90(void)
{
    const int U = MPI_UNDEFINED;
    MPI_Datatype t, t2, c;
    int rc;

    static const int int_r[][2] = {{1, 1}, {2, 1},  {3, 2},  {4, 2},   {5, 4},
                                   {9, 4}, {10, 8}, {18, 8}, {19, 16}, {38, 16}};
    for (size_t i = 0; i < sizeof(int_r) / sizeof(int_r[0]); i++) {
        CHECK(MPI_Type_create_f90_integer(int_r[i][0], &t) == MPI_SUCCESS);
        check_f90(t, MPI_COMBINER_F90_INTEGER, 0, int_r[i][0], int_r[i][1]);
        /* Asking again gives the same handle. */
        CHECK(MPI_Type_create_f90_integer(int_r[i][0], &t2) == MPI_SUCCESS && t2 == t);
    }
    static const int real_pr[][3] = {{6, U, 4},   {U, 37, 4},   {6, 37, 4},
                                     {7, U, 8},   {U, 38, 8},   {15, 307, 8},
                                     {16, U, 16}, {U, 308, 16}, {33, 4931, 16}};
    for (size_t i = 0; i < sizeof(real_pr) / sizeof(real_pr[0]); i++) {
        int p = real_pr[i][0], r = real_pr[i][1];
        CHECK(MPI_Type_create_f90_real(p, r, &t) == MPI_SUCCESS);
        check_f90(t, MPI_COMBINER_F90_REAL, p, r, real_pr[i][2]);
        CHECK(MPI_Type_create_f90_complex(p, r, &c) == MPI_SUCCESS);
        check_f90(c, MPI_COMBINER_F90_COMPLEX, p, r, 2 * real_pr[i][2]);
        CHECK(c != t);
    }
    /* (6, U) and (6, 37) are both REAL(4) but distinct types, as the envelopes differ. */
    CHECK(MPI_Type_create_f90_real(6, U, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_create_f90_real(6, 37, &t2) == MPI_SUCCESS && t != t2);

    /* They carry data as the named type: pack an INTEGER(8) and a REAL(8). */
    {
        long long v = 0x0102030405060708LL, out = 0;
        double dv = 3.25, dout = 0;
        int pos = 0;
        char buf[16];
        CHECK(MPI_Type_create_f90_integer(15, &t) == MPI_SUCCESS);
        CHECK(MPI_Pack(&v, 1, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Type_create_f90_real(12, U, &t2) == MPI_SUCCESS);
        CHECK(MPI_Pack(&dv, 1, t2, buf, sizeof(buf), &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pos == 16);
        pos = 0;
        CHECK(MPI_Unpack(buf, 16, &pos, &out, 1, MPI_INTEGER8, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Unpack(buf, 16, &pos, &dout, 1, MPI_REAL8, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(out == v && dout == dv);
        /* Reductions take them as the named type. */
        long long sum = 0, mine = rank + 1;
        CHECK(MPI_Allreduce(&mine, &sum, 1, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(sum == (long long)size * (size + 1) / 2);
        /* Derived types may be built on them. */
        CHECK(MPI_Type_contiguous(3, t, &c) == MPI_SUCCESS);
        CHECK(MPI_Type_free(&c) == MPI_SUCCESS);
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Type_create_f90_integer(4, &t) == MPI_SUCCESS);
    rc = MPI_Type_free(&t); /* predefined: may not be freed */
    CHECK(err_class(rc) == MPI_ERR_TYPE && t != MPI_DATATYPE_NULL);
    CHECK(err_class(MPI_Type_create_f90_integer(39, &t)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Type_create_f90_real(34, U, &t)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Type_create_f90_real(U, 4932, &t)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Type_create_f90_complex(U, U, &t)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Type_create_f90_real(6, 37, NULL)) == MPI_ERR_ARG);

    /* MPI_Type_match_size: the named types by class and size. */
    {
        static const struct {
            int cls, bytes;
            MPI_Datatype want;
        } m[] = {
            {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},   {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
            {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},   {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
            {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, 2, MPI_REAL2},
            {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
            {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4},
            {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},   {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
            {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
        };
        for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
            t = MPI_DATATYPE_NULL;
            CHECK(MPI_Type_match_size(m[i].cls, m[i].bytes, &t) == MPI_SUCCESS);
            if (t != m[i].want)
                FAIL("MPI_Type_match_size(%d, %d) gave the wrong type", m[i].cls, m[i].bytes);
        }
        CHECK(err_class(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t)) == MPI_ERR_ARG);
        CHECK(err_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 32, &t)) == MPI_ERR_ARG);
        CHECK(err_class(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 0, &t)) == MPI_ERR_ARG);
        CHECK(err_class(MPI_Type_match_size(77, 4, &t)) == MPI_ERR_ARG);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- topology maps --------------------------------------------------------------------------- */

static void test_topo_map(void)
{
    int newrank, crank;
    MPI_Comm cart;

    for (int d0 = 1; d0 <= size; d0++) {
        for (int d1 = 1; d0 * d1 <= size; d1++) {
            int dims[2] = {d0, d1}, periods[2] = {0, 1};
            CHECK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank) == MPI_SUCCESS);
            if (newrank != (rank < d0 * d1 ? rank : MPI_UNDEFINED))
                FAIL("MPI_Cart_map(%d x %d): newrank %d", d0, d1, newrank);
            /* The rank MPI_Cart_create then gives. */
            CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart) == MPI_SUCCESS);
            if (newrank == MPI_UNDEFINED) {
                CHECK(cart == MPI_COMM_NULL);
            } else {
                MPI_Comm_rank(cart, &crank);
                CHECK(crank == newrank);
                MPI_Comm_free(&cart);
            }
        }
    }
    /* A ring of n nodes. */
    for (int n = 1; n <= size; n++) {
        int index[7], edges[14], e = 0;
        for (int i = 0; i < n; i++) {
            if (n > 1) {
                edges[e++] = (i + n - 1) % n;
                edges[e++] = (i + 1) % n;
            }
            index[i] = e;
        }
        CHECK(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &newrank) == MPI_SUCCESS);
        if (newrank != (rank < n ? rank : MPI_UNDEFINED))
            FAIL("MPI_Graph_map(ring of %d): newrank %d", n, newrank);
        CHECK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &cart) == MPI_SUCCESS);
        if (newrank == MPI_UNDEFINED) {
            CHECK(cart == MPI_COMM_NULL);
        } else {
            MPI_Comm_rank(cart, &crank);
            CHECK(crank == newrank);
            MPI_Comm_free(&cart);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        int dims[2] = {size + 1, 1}, periods[2] = {0, 0}, index[2] = {1, 0}, edges[1] = {1};
        CHECK(err_class(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank)) ==
              MPI_ERR_TOPOLOGY);
        dims[0] = 0;
        CHECK(err_class(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank)) == MPI_ERR_DIMS);
        CHECK(err_class(MPI_Graph_map(MPI_COMM_WORLD, size + 1, index, edges, &newrank)) ==
              MPI_ERR_ARG);
        if (size >= 2)
            CHECK(err_class(MPI_Graph_map(MPI_COMM_WORLD, 2, index, edges, &newrank)) ==
                  MPI_ERR_ARG); /* index decreases */
        index[1] = 1;
        edges[0] = 5;
        if (size >= 2)
            CHECK(err_class(MPI_Graph_map(MPI_COMM_WORLD, 2, index, edges, &newrank)) ==
                  MPI_ERR_ARG); /* edge to a node that is not there */
        CHECK(err_class(MPI_Cart_map(MPI_COMM_NULL, 1, dims, periods, &newrank)) == MPI_ERR_COMM);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- external32 ------------------------------------------------------------------------------ */

/* Pack count of dt at buf in external32 and compare with the bytes expected (n of them), then
 * unpack them into out and compare out with buf over len bytes. */
static void ext_case(const char *what, const void *buf, int count, MPI_Datatype dt,
                     const unsigned char *want, int n, void *out, size_t len)
{
    unsigned char packed[256];
    MPI_Aint pos = 0, sz = -1;

    CHECK(MPI_Pack_external_size("external32", count, dt, &sz) == MPI_SUCCESS);
    if (sz != n)
        FAIL("external32 %s: MPI_Pack_external_size says %ld, expected %d", what, (long)sz, n);
    memset(packed, 0xee, sizeof(packed));
    CHECK(MPI_Pack_external("external32", buf, count, dt, packed, sizeof(packed), &pos) ==
          MPI_SUCCESS);
    CHECK(pos == n && packed[n] == 0xee);
    for (int i = 0; i < n; i++)
        if (packed[i] != want[i])
            FAIL("external32 %s: byte %d is 0x%02x, expected 0x%02x", what, i, packed[i], want[i]);
    if (out != NULL) {
        pos = 0;
        CHECK(MPI_Unpack_external("external32", packed, n, &pos, out, count, dt) == MPI_SUCCESS);
        CHECK(pos == n);
        if (memcmp(out, buf, len) != 0)
            FAIL("external32 %s: the round trip changed the data", what);
    }
}

static void test_external32(void)
{
    {
        int v[2] = {0x01020304, -2}, o[2];
        static const unsigned char w[] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
        ext_case("int", v, 2, MPI_INT, w, 8, o, sizeof(v));
    }
    {
        long v[2] = {0x12345678L, -5L}, o[2];
        static const unsigned char w[] = {0x12, 0x34, 0x56, 0x78, 0xff, 0xff, 0xff, 0xfb};
        ext_case("long", v, 2, MPI_LONG, w, 8, o, sizeof(v));
        unsigned long u = 0xfffffffful, uo;
        static const unsigned char wu[] = {0xff, 0xff, 0xff, 0xff};
        ext_case("unsigned long", &u, 1, MPI_UNSIGNED_LONG, wu, 4, &uo, sizeof(u));
    }
    {
        short v = 0x0102, o;
        static const unsigned char w[] = {1, 2};
        ext_case("short", &v, 1, MPI_SHORT, w, 2, &o, sizeof(v));
        long long ll = -0x0102030405060708LL, llo;
        static const unsigned char wl[] = {0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8, 0xf8};
        ext_case("long long", &ll, 1, MPI_LONG_LONG, wl, 8, &llo, sizeof(ll));
    }
    {
        float f = 1.0f, fo;
        double d[2] = {1.0, -2.5}, dout[2];
        static const unsigned char wf[] = {0x3f, 0x80, 0, 0};
        static const unsigned char wd[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 4, 0, 0, 0, 0, 0, 0};
        ext_case("float", &f, 1, MPI_FLOAT, wf, 4, &fo, sizeof(f));
        ext_case("double", d, 2, MPI_DOUBLE, wd, 16, dout, sizeof(d));
        double z[2] = {1.0, 2.0}, zo[2];
        static const unsigned char wz[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0};
        ext_case("double complex", z, 1, MPI_C_DOUBLE_COMPLEX, wz, 16, zo, sizeof(z));
    }
    {
        /* long double goes as the 16-byte IEEE quad: 1.0 and -2.5. */
        long double v[2] = {1.0L, -2.5L}, o[2];
        unsigned char w[32] = {0x3f, 0xff};
        w[16] = 0xc0;
        w[17] = 0x00;
        w[18] = 0x40;
        ext_case("long double", v, 2, MPI_LONG_DOUBLE, w, 32, NULL, 0);
        MPI_Aint pos = 0;
        unsigned char packed[32];
        CHECK(MPI_Pack_external("external32", v, 2, MPI_LONG_DOUBLE, packed, 32, &pos) ==
              MPI_SUCCESS);
        pos = 0;
        CHECK(MPI_Unpack_external("external32", packed, 32, &pos, o, 2, MPI_LONG_DOUBLE) ==
              MPI_SUCCESS);
        CHECK(o[0] == 1.0L && o[1] == -2.5L);
        /* Round trips of values with every significand bit used, tiny and huge ones. */
        long double r[6] = {1.0L / 3.0L, -LDBL_MAX, LDBL_MIN, LDBL_MIN / 1024.0L, 0.0L, -0.0L};
        long double ro[6];
        unsigned char p6[96];
        pos = 0;
        CHECK(MPI_Pack_external("external32", r, 6, MPI_LONG_DOUBLE, p6, 96, &pos) == MPI_SUCCESS);
        pos = 0;
        CHECK(MPI_Unpack_external("external32", p6, 96, &pos, ro, 6, MPI_LONG_DOUBLE) ==
              MPI_SUCCESS);
        for (int i = 0; i < 6; i++)
            if (ro[i] != r[i] || signbit(ro[i]) != signbit(r[i]))
                FAIL("external32 long double: value %d changed in the round trip", i);
        CHECK(p6[80] == 0x80 && p6[81] == 0); /* -0.0 */
        /* A quad with more precision than x87 rounds to nearest: 1 + 2^-100 is 1. */
        unsigned char q[16] = {0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0};
        long double one;
        pos = 0;
        CHECK(MPI_Unpack_external("external32", q, 16, &pos, &one, 1, MPI_LONG_DOUBLE) ==
              MPI_SUCCESS);
        CHECK(one == 1.0L);
        /* 1.5 */
        q[2] = 0x80;
        q[12] = 0;
        pos = 0;
        CHECK(MPI_Unpack_external("external32", q, 16, &pos, &one, 1, MPI_LONG_DOUBLE) ==
              MPI_SUCCESS);
        CHECK(one == 1.5L);
    }
    {
        _Bool b[2] = {1, 0}, bo[2];
        static const unsigned char wb[] = {1, 0};
        ext_case("bool", b, 2, MPI_C_BOOL, wb, 2, bo, sizeof(b));
        wchar_t wc = L'A', wco;
        static const unsigned char ww[] = {0, 0x41};
        ext_case("wchar_t", &wc, 1, MPI_WCHAR, ww, 2, &wco, sizeof(wc));
    }
    {
        /* MPI_DOUBLE_INT: 8 + 4 bytes, no padding. */
        struct {
            double d;
            int i;
        } v = {1.0, 7}, o;
        static const unsigned char w[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
        memset(&o, 0, sizeof(o));
        ext_case("double_int", &v, 1, MPI_DOUBLE_INT, w, 12, NULL, 0);
        MPI_Aint pos = 0;
        CHECK(MPI_Unpack_external("external32", w, 12, &pos, &o, 1, MPI_DOUBLE_INT) == MPI_SUCCESS);
        CHECK(o.d == 1.0 && o.i == 7);
    }
    {
        /* A struct of char, long, double (13 bytes in external32), two of them. */
        struct s {
            char c;
            long l;
            double d;
        } v[2] = {{'x', -1, 0.5}, {'y', 0x7fffffff, -0.0}}, o[2];
        int bl[3] = {1, 1, 1};
        MPI_Aint disp[3] = {offsetof(struct s, c), offsetof(struct s, l), offsetof(struct s, d)};
        MPI_Datatype types[3] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE}, st, vec;
        static const unsigned char w[] = {'x',  0xff, 0xff, 0xff, 0xff, 0x3f, 0xe0, 0,    0,
                                          0,    0,    0,    0,    'y',  0x7f, 0xff, 0xff, 0xff,
                                          0x80, 0,    0,    0,    0,    0,    0,    0};
        CHECK(MPI_Type_create_struct(3, bl, disp, types, &st) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&st) == MPI_SUCCESS);
        memset(o, 0, sizeof(o));
        ext_case("struct", v, 2, st, w, 26, NULL, 0);
        MPI_Aint pos = 0;
        CHECK(MPI_Unpack_external("external32", w, 26, &pos, o, 2, st) == MPI_SUCCESS);
        for (int i = 0; i < 2; i++)
            CHECK(o[i].c == v[i].c && o[i].l == v[i].l && o[i].d == v[i].d &&
                  signbit(o[i].d) == signbit(v[i].d));
        MPI_Type_free(&st);
        /* A vector of ints: the gaps are skipped both ways. */
        int iv[10], io[10];
        unsigned char wv[24];
        for (int i = 0; i < 10; i++)
            iv[i] = 0x10203000 + i + rank;
        CHECK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
        for (int b = 0, k = 0; b < 3; b++)
            for (int j = 0; j < 2; j++, k++) {
                int x = iv[4 * b + j];
                wv[4 * k] = (unsigned char)(x >> 24), wv[4 * k + 1] = (unsigned char)(x >> 16);
                wv[4 * k + 2] = (unsigned char)(x >> 8), wv[4 * k + 3] = (unsigned char)x;
            }
        ext_case("vector", iv, 1, vec, wv, 24, NULL, 0);
        memset(io, 0x33, sizeof(io));
        MPI_Aint p2 = 0;
        CHECK(MPI_Unpack_external("external32", wv, 24, &p2, io, 1, vec) == MPI_SUCCESS);
        for (int i = 0; i < 10; i++)
            CHECK(io[i] == (i % 4 < 2 ? iv[i] : 0x33333333));
        MPI_Type_free(&vec);
    }
    {
        /* Sizes of the standard's table. */
        static const struct {
            MPI_Datatype t;
            int n;
        } sz[] = {{MPI_LONG, 4},
                  {MPI_UNSIGNED_LONG, 4},
                  {MPI_WCHAR, 2},
                  {MPI_LONG_DOUBLE, 16},
                  {MPI_C_LONG_DOUBLE_COMPLEX, 32},
                  {MPI_C_BOOL, 1},
                  {MPI_AINT, 8},
                  {MPI_COUNT, 8},
                  {MPI_INTEGER16, 16},
                  {MPI_COMPLEX4, 4},
                  {MPI_LONG_INT, 8},
                  {MPI_SHORT_INT, 6}};
        for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
            MPI_Aint n;
            CHECK(MPI_Pack_external_size("external32", 3, sz[i].t, &n) == MPI_SUCCESS);
            if (n != 3 * sz[i].n)
                FAIL("MPI_Pack_external_size of type %zu: %ld, expected %d", i, (long)n,
                     3 * sz[i].n);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        long big = 0x100000000L;
        wchar_t wbig = 0x10000;
        unsigned char out[16];
        MPI_Aint pos = 0, n;
        int v = 1;
        CHECK(err_class(MPI_Pack_external("external32", &big, 1, MPI_LONG, out, 16, &pos)) ==
              MPI_ERR_CONVERSION);
        CHECK(pos == 0);
        CHECK(err_class(MPI_Pack_external("external32", &wbig, 1, MPI_WCHAR, out, 16, &pos)) ==
              MPI_ERR_CONVERSION);
        CHECK(err_class(MPI_Pack_external("native", &v, 1, MPI_INT, out, 16, &pos)) == MPI_ERR_ARG);
        CHECK(err_class(MPI_Pack_external_size("external64", 1, MPI_INT, &n)) == MPI_ERR_ARG);
        CHECK(err_class(MPI_Unpack_external("internal", out, 16, &pos, &v, 1, MPI_INT)) ==
              MPI_ERR_ARG);
        pos = 14;
        CHECK(err_class(MPI_Pack_external("external32", &v, 1, MPI_INT, out, 16, &pos)) ==
              MPI_ERR_TRUNCATE);
        CHECK(err_class(MPI_Unpack_external("external32", out, 16, &pos, &v, 1, MPI_INT)) ==
              MPI_ERR_TRUNCATE);
        CHECK(pos == 14);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static const mpitest_t tests[] = {
    {"type_attr", test_type_attr}, {"darray", test_darray},         {"f90", test_f90},
    {"topo_map", test_topo_map},   {"external32", test_external32},
};

int main(int argc, char **argv)
{
    /* types_extra.sh asks how many "ok" lines to expect. */
    if (argc == 2 && strcmp(argv[1], "--count") == 0) {
        printf("%zu\n", sizeof(tests) / sizeof(tests[0]));
        return 0;
    }
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
