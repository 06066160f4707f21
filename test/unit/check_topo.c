/* Topology arithmetic: Cartesian coords/rank/shift against a reference written from the
 * standard's row-major definition, MPI_Dims_create against known answers and a brute-force
 * search, and the neighbour lists handed to the neighbourhood collectives. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_topo.h"

static const int grids[][5] = {
    /* ndims, dims... */
    {1, 5}, {2, 2, 3}, {2, 4, 1}, {3, 3, 1, 4}, {4, 2, 2, 2, 2}, {3, 2, 5, 3},
};

/* Row-major: the last dimension varies fastest. */
static int ref_rank(int nd, const int *dims, const int *c)
{
    int r = 0, stride = 1;
    for (int i = nd - 1; i >= 0; i--) {
        r += c[i] * stride;
        stride *= dims[i];
    }
    return r;
}

static int ref_shift(int nd, const int *dims, const int *periods, const int *c, int dir, int d)
{
    int x[8];
    memcpy(x, c, sizeof(int) * (size_t)nd);
    x[dir] += d;
    if (x[dir] < 0 || x[dir] >= dims[dir]) {
        if (!periods[dir])
            return MPI_PROC_NULL;
        x[dir] = ((x[dir] % dims[dir]) + dims[dir]) % dims[dir];
    }
    return ref_rank(nd, dims, x);
}

START_TEST(test_cart_arith)
{
    for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) {
        int nd = grids[g][0];
        const int *dims = &grids[g][1];
        int n = vbt_cart_size(nd, dims);
        for (int pmask = 0; pmask < (1 << nd); pmask++) {
            int periods[8];
            for (int i = 0; i < nd; i++)
                periods[i] = (pmask >> i) & 1;
            for (int r = 0; r < n; r++) {
                int c[8], back;
                vbt_cart_coords(nd, dims, r, c);
                for (int i = 0; i < nd; i++)
                    ck_assert(c[i] >= 0 && c[i] < dims[i]);
                ck_assert_int_eq(ref_rank(nd, dims, c), r);
                ck_assert_int_eq(vbt_cart_rank(nd, dims, periods, c, &back), VBT_OK);
                ck_assert_int_eq(back, r);
                for (int dir = 0; dir < nd; dir++) {
                    for (int d = -7; d <= 7; d++) {
                        int src, dst;
                        vbt_cart_shift(nd, dims, periods, c, dir, d, &src, &dst);
                        ck_assert_int_eq(dst, ref_shift(nd, dims, periods, c, dir, d));
                        ck_assert_int_eq(src, ref_shift(nd, dims, periods, c, dir, -d));
                    }
                }
            }
        }
    }
}
END_TEST

START_TEST(test_cart_rank_bounds)
{
    int dims[] = {3, 4}, periodic[] = {1, 1}, open[] = {0, 1}, r;
    int c1[] = {-1, 5}, c2[] = {3, 0}, c3[] = {2, -9};

    ck_assert_int_eq(vbt_cart_rank(2, dims, periodic, c1, &r), VBT_OK);
    ck_assert_int_eq(r, 2 * 4 + 1);
    ck_assert_int_eq(vbt_cart_rank(2, dims, open, c2, &r), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_cart_rank(2, dims, open, c3, &r), VBT_OK);
    ck_assert_int_eq(r, 2 * 4 + 3);
}
END_TEST

static void dims_case(int nnodes, int nd, const int *in, const int *want)
{
    int d[8];
    memcpy(d, in, sizeof(int) * (size_t)nd);
    ck_assert_int_eq(vbt_dims_create(nnodes, nd, d), VBT_OK);
    for (int i = 0; i < nd; i++)
        ck_assert_msg(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes,
                      nd, i, d[i], want[i]);
}

START_TEST(test_dims_known)
{
    dims_case(6, 2, (int[]){0, 0}, (int[]){3, 2});
    dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
    dims_case(12, 3, (int[]){0, 0, 0}, (int[]){3, 2, 2});
    dims_case(16, 4, (int[]){0, 0, 0, 0}, (int[]){2, 2, 2, 2});
    dims_case(72, 2, (int[]){0, 0}, (int[]){9, 8});
    dims_case(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    dims_case(24, 3, (int[]){0, 3, 0}, (int[]){4, 3, 2});
    dims_case(60, 3, (int[]){0, 0, 0}, (int[]){5, 4, 3});
    dims_case(8, 3, (int[]){2, 0, 0}, (int[]){2, 2, 2});
    dims_case(100, 2, (int[]){0, 0}, (int[]){10, 10});
    dims_case(30, 3, (int[]){5, 0, 3}, (int[]){5, 2, 3});
    dims_case(30, 3, (int[]){5, 2, 3}, (int[]){5, 2, 3});
    /* Ties in max - min: MPICH's choice (the larger smallest entries). */
    dims_case(5616, 4, (int[]){0, 0, 0, 0}, (int[]){13, 9, 8, 6});
    dims_case(360, 3, (int[]){0, 0, 0}, (int[]){10, 6, 6});
    dims_case(2160, 4, (int[]){0, 0, 0, 0}, (int[]){10, 6, 6, 6});
    dims_case(5616, 5, (int[]){0, 0, 2, 0, 0}, (int[]){13, 6, 2, 6, 6});
    int bad[] = {3, 0};
    ck_assert_int_eq(vbt_dims_create(10, 2, bad), VBT_ERR_INVALID_PARAM);
    int full[] = {2, 2};
    ck_assert_int_eq(vbt_dims_create(5, 2, full), VBT_ERR_INVALID_PARAM);
}
END_TEST

/* Brute force: every non-increasing k-tuple of positive ints multiplying to n (t[0..depth) so
 * far, each at most maxd), best kept as the standard and MPICH want it: the smallest max - min,
 * then the largest smallest entry, then the largest second smallest, and so on. */
static void brute_dims(int k, int *t, int depth, int rem, int maxd, int *best, int *have)
{
    if (depth == k) {
        int better;
        if (rem != 1)
            return;
        better = !*have || t[0] - t[k - 1] < best[0] - best[k - 1];
        if (*have && t[0] - t[k - 1] == best[0] - best[k - 1]) {
            for (int i = k - 1; i >= 0; i--) {
                if (t[i] != best[i]) {
                    better = t[i] > best[i];
                    break;
                }
            }
        }
        if (better)
            memcpy(best, t, sizeof(int) * (size_t)k);
        *have |= better;
        return;
    }
    for (int d = rem < maxd ? rem : maxd; d >= 1; d--) {
        if (rem % d)
            continue;
        t[depth] = d;
        brute_dims(k, t, depth + 1, rem / d, d, best, have);
    }
}

START_TEST(test_dims_brute)
{
    for (int k = 1; k <= 6; k++) {
        for (int n = 1; n <= 3000; n++) {
            int d[6] = {0}, t[6], best[6], have = 0;
            ck_assert_int_eq(vbt_dims_create(n, k, d), VBT_OK);
            brute_dims(k, t, 0, n, n, best, &have);
            ck_assert(have);
            for (int i = 0; i < k; i++)
                ck_assert_msg(d[i] == best[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", n,
                              k, i, d[i], best[i]);
        }
    }
}
END_TEST

static vbt_comm_t comm_with(vbt_topo_t *t)
{
    vbt_comm_t c;
    memset(&c, 0, sizeof(c));
    c.topo = t;
    return c;
}

START_TEST(test_neighbors)
{
    int dims[] = {3, 4}, periods[] = {0, 1}, in, out;
    const int *src, *dst;
    vbt_topo_t *t;

    /* rank 4 = (1, 0): dim 0 open: 0 and 8; dim 1 periodic: 7 and 5 */
    ck_assert_int_eq(vbt_topo_cart(2, dims, periods, 4, &t), VBT_OK);
    vbt_comm_t c = comm_with(t);
    ck_assert_int_eq(vbt_topo_neighbors(&c, &in, &src, &out, &dst), VBT_OK);
    int want[] = {0, 8, 7, 5};
    ck_assert_int_eq(in, 4);
    ck_assert_int_eq(out, 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(src[i], want[i]);
        ck_assert_int_eq(dst[i], want[i]);
    }
    vbt_topo_free(t);
    /* rank 9 = (2, 1): the row below is off the open edge */
    ck_assert_int_eq(vbt_topo_cart(2, dims, periods, 9, &t), VBT_OK);
    c = comm_with(t);
    ck_assert_int_eq(vbt_topo_neighbors(&c, &in, &src, &out, &dst), VBT_OK);
    int want9[] = {5, MPI_PROC_NULL, 8, 10};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(src[i], want9[i]);
    vbt_topo_free(t);

    int index[] = {2, 3, 4, 6}, edges[] = {1, 3, 0, 3, 0, 2};
    ck_assert_int_eq(vbt_topo_graph(4, index, edges, 3, &t), VBT_OK);
    c = comm_with(t);
    ck_assert_int_eq(vbt_topo_neighbors(&c, &in, &src, &out, &dst), VBT_OK);
    ck_assert_int_eq(in, 2);
    ck_assert_int_eq(src[0], 0);
    ck_assert_int_eq(src[1], 2);
    ck_assert_int_eq(dst[1], 2);
    vbt_topo_free(t);

    int s[] = {4, 2, 4}, sw[] = {1, 2, 3}, d[] = {0}, dw[] = {9};
    ck_assert_int_eq(vbt_topo_dist_graph(3, s, sw, 1, d, dw, &t), VBT_OK);
    c = comm_with(t);
    ck_assert_int_eq(vbt_topo_neighbors(&c, &in, &src, &out, &dst), VBT_OK);
    ck_assert_int_eq(in, 3);
    ck_assert_int_eq(out, 1);
    ck_assert_int_eq(src[2], 4);
    ck_assert_int_eq(dst[0], 0);
    ck_assert(t->weighted);
    ck_assert_int_eq(t->sourceweights[1], 2);
    vbt_topo_free(t);
    ck_assert_int_eq(vbt_topo_dist_graph(0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, &t),
                     VBT_OK);
    ck_assert(!t->weighted);
    vbt_topo_free(t);

    c = comm_with(NULL);
    ck_assert_int_eq(vbt_topo_neighbors(&c, &in, &src, &out, &dst), VBT_ERR_INVALID_PARAM);
}
END_TEST

static Suite *topo_suite(void)
{
    Suite *s = suite_create("topo");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_cart_arith);
    tcase_add_test(tc, test_cart_rank_bounds);
    tcase_add_test(tc, test_dims_known);
    tcase_add_test(tc, test_dims_brute);
    tcase_add_test(tc, test_neighbors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vbt_check_run(topo_suite());
}
