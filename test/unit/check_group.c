/* Group set operations against a naive reference (quadratic loops over the rank lists), on fixed
 * cases and on random groups: incl, excl, range_incl/excl, union, intersection, difference,
 * translate_ranks, compare, and the argument checks behind MPI_ERR_RANK. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_group.h"

static vbt_group_t *mk(int n, const int *ranks)
{
    vbt_group_t *g;
    ck_assert_int_eq(vbt_group_create(n, ranks, &g), VBT_OK);
    return g;
}

static void expect(const vbt_group_t *g, int n, const int *ranks)
{
    ck_assert_int_eq(g->size, n);
    for (int i = 0; i < n; i++)
        ck_assert_msg(g->ranks[i] == ranks[i], "member %d is world rank %d, expected %d", i,
                      g->ranks[i], ranks[i]);
}

/* ---- the reference ------------------------------------------------------------------------- */

static int ref_has(int n, const int *r, int w)
{
    for (int i = 0; i < n; i++) {
        if (r[i] == w)
            return 1;
    }
    return 0;
}

/* op: 'u' union, 'i' intersection, 'd' difference; out has room for na + nb. */
static int ref_set(char op, int na, const int *a, int nb, const int *b, int *out)
{
    int k = 0;
    for (int i = 0; i < na; i++) {
        int in_b = ref_has(nb, b, a[i]);
        if (op == 'u' || (op == 'i' && in_b) || (op == 'd' && !in_b))
            out[k++] = a[i];
    }
    if (op == 'u') {
        for (int i = 0; i < nb; i++) {
            if (!ref_has(na, a, b[i]))
                out[k++] = b[i];
        }
    }
    return k;
}

static int ref_compare(int na, const int *a, int nb, const int *b)
{
    if (na != nb)
        return MPI_UNEQUAL;
    if (na == 0 || memcmp(a, b, (size_t)na * sizeof(int)) == 0)
        return MPI_IDENT;
    for (int i = 0; i < na; i++) {
        if (!ref_has(nb, b, a[i]))
            return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

/* A random group: a random subset of 0..world-1 in random order. */
static int random_group(int world, int *out)
{
    int n = 0, perm[64];
    for (int i = 0; i < world; i++)
        perm[i] = i;
    for (int i = world - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < world; i++) {
        if (rand() % 3 != 0)
            out[n++] = perm[i];
    }
    return n;
}

/* ---- fixed cases ---------------------------------------------------------------------------- */

START_TEST(test_incl_excl)
{
    int w[] = {7, 3, 9, 1, 5};
    vbt_group_t *g = mk(5, w), *out;
    int r1[] = {4, 0, 2}, e1[] = {5, 7, 9};
    int r2[] = {1, 3}, e2[] = {7, 9, 5};

    ck_assert_int_eq(vbt_group_incl(g, 3, r1, &out), VBT_OK);
    expect(out, 3, e1);
    vbt_group_release(out);
    ck_assert_int_eq(vbt_group_excl(g, 2, r2, &out), VBT_OK);
    expect(out, 3, e2);
    vbt_group_release(out);
    /* Empty results are MPI_GROUP_EMPTY itself. */
    ck_assert_int_eq(vbt_group_incl(g, 0, NULL, &out), VBT_OK);
    ck_assert_ptr_eq(out, &vbt_group_empty);
    int all[] = {0, 1, 2, 3, 4};
    ck_assert_int_eq(vbt_group_excl(g, 5, all, &out), VBT_OK);
    ck_assert_ptr_eq(out, &vbt_group_empty);
    ck_assert_int_eq(vbt_group_rank_of(g, 9), 2);
    ck_assert_int_eq(vbt_group_rank_of(g, 2), MPI_UNDEFINED);
    vbt_group_release(g);
}
END_TEST

START_TEST(test_check_ranks)
{
    int w[] = {0, 1, 2, 3};
    vbt_group_t *g = mk(4, w);
    char why[200];
    int ok[] = {3, 1}, out_of_range[] = {1, 4}, negative[] = {-1}, dup[] = {2, 0, 2};

    ck_assert_int_eq(vbt_group_check_ranks(g, 2, ok, why, sizeof(why)), -1);
    ck_assert_int_eq(vbt_group_check_ranks(g, 2, out_of_range, why, sizeof(why)), 1);
    ck_assert_ptr_nonnull(strstr(why, "ranks[1] is 4"));
    ck_assert_int_eq(vbt_group_check_ranks(g, 1, negative, why, sizeof(why)), 0);
    ck_assert_int_eq(vbt_group_check_ranks(g, 3, dup, why, sizeof(why)), 2);
    ck_assert_ptr_nonnull(strstr(why, "appears earlier"));
    vbt_group_release(g);
}
END_TEST

START_TEST(test_ranges)
{
    int w[10];
    for (int i = 0; i < 10; i++)
        w[i] = 100 + i;
    vbt_group_t *g = mk(10, w);
    char why[200];
    int *list, n;
    int r1[][3] = {{0, 9, 3}, {8, 1, -3}, {4, 4, 1}};
    int e1[] = {0, 3, 6, 9, 8, 5, 2, 4};

    ck_assert_int_eq(vbt_group_expand_ranges(g, 3, r1, &list, &n, why, sizeof(why)), VBT_OK);
    ck_assert_int_eq(n, 8);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(list[i], e1[i]);
    free(list);
    /* last is not reached exactly: the stride stops before it. */
    int r2[][3] = {{1, 8, 4}};
    ck_assert_int_eq(vbt_group_expand_ranges(g, 1, r2, &list, &n, why, sizeof(why)), VBT_OK);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(list[0], 1);
    ck_assert_int_eq(list[1], 5);
    free(list);
    int zero[][3] = {{0, 3, 0}}, out[][3] = {{0, 10, 1}}, dup[][3] = {{0, 4, 2}, {4, 6, 1}};
    ck_assert_int_eq(vbt_group_expand_ranges(g, 1, zero, &list, &n, why, sizeof(why)),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(why, "stride 0"));
    ck_assert_int_eq(vbt_group_expand_ranges(g, 1, out, &list, &n, why, sizeof(why)),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_group_expand_ranges(g, 2, dup, &list, &n, why, sizeof(why)),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(why, "rank 4"));
    vbt_group_release(g);
}
END_TEST

START_TEST(test_set_ops_fixed)
{
    int a[] = {5, 1, 8, 3}, b[] = {3, 9, 5, 0};
    vbt_group_t *ga = mk(4, a), *gb = mk(4, b), *out;
    int u[] = {5, 1, 8, 3, 9, 0}, in[] = {5, 3}, d[] = {1, 8};

    ck_assert_int_eq(vbt_group_union(ga, gb, &out), VBT_OK);
    expect(out, 6, u);
    vbt_group_release(out);
    ck_assert_int_eq(vbt_group_intersection(ga, gb, &out), VBT_OK);
    expect(out, 2, in);
    vbt_group_release(out);
    ck_assert_int_eq(vbt_group_difference(ga, gb, &out), VBT_OK);
    expect(out, 2, d);
    vbt_group_release(out);
    ck_assert_int_eq(vbt_group_difference(ga, ga, &out), VBT_OK);
    ck_assert_ptr_eq(out, &vbt_group_empty);
    ck_assert_int_eq(vbt_group_union(&vbt_group_empty, &vbt_group_empty, &out), VBT_OK);
    ck_assert_ptr_eq(out, &vbt_group_empty);

    int r1[] = {0, 1, 2, 3, MPI_PROC_NULL}, r2[5];
    int e[] = {2, MPI_UNDEFINED, MPI_UNDEFINED, 0, MPI_PROC_NULL};
    ck_assert_int_eq(vbt_group_translate(ga, 5, r1, gb, r2), VBT_OK);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(r2[i], e[i]);

    int a2[] = {3, 8, 1, 5}, a3[] = {5, 1, 8, 4};
    vbt_group_t *g2 = mk(4, a2), *g3 = mk(4, a3), *g4 = mk(4, a);
    ck_assert_int_eq(vbt_group_compare(ga, g4), MPI_IDENT);
    ck_assert_int_eq(vbt_group_compare(ga, g2), MPI_SIMILAR);
    ck_assert_int_eq(vbt_group_compare(ga, g3), MPI_UNEQUAL);
    ck_assert_int_eq(vbt_group_compare(ga, &vbt_group_empty), MPI_UNEQUAL);
    ck_assert_int_eq(vbt_group_compare(&vbt_group_empty, &vbt_group_empty), MPI_IDENT);
    ck_assert(vbt_group_is_subset(g2, ga));
    ck_assert(!vbt_group_is_subset(g3, ga));
    vbt_group_release(ga);
    vbt_group_release(gb);
    vbt_group_release(g2);
    vbt_group_release(g3);
    vbt_group_release(g4);
}
END_TEST

START_TEST(test_refcount)
{
    int w[] = {1, 2};
    vbt_group_t *g = mk(2, w);

    vbt_group_retain(g);
    vbt_group_release(g);
    ck_assert_int_eq(g->magic, VBT_GROUP_MAGIC);
    ck_assert_ptr_eq(vbt_group_get((MPI_Group)g), g);
    vbt_group_release(g);
    /* The empty group is never freed, and the null handle is no group. */
    vbt_group_release(&vbt_group_empty);
    ck_assert_ptr_eq(vbt_group_get(MPI_GROUP_EMPTY), &vbt_group_empty);
    ck_assert_ptr_null(vbt_group_get(MPI_GROUP_NULL));
}
END_TEST

/* ---- random groups against the reference ---------------------------------------------------- */

START_TEST(test_set_ops_random)
{
    srand(12345);
    for (int iter = 0; iter < 2000; iter++) {
        int world = 1 + rand() % 40, a[64], b[64], ref[128], na, nb, n;
        na = random_group(world, a);
        nb = random_group(world, b);
        vbt_group_t *ga, *gb, *out;
        ck_assert_int_eq(vbt_group_create(na, a, &ga), VBT_OK);
        ck_assert_int_eq(vbt_group_create(nb, b, &gb), VBT_OK);
        const char ops[] = "uid";
        for (int k = 0; k < 3; k++) {
            n = ref_set(ops[k], na, a, nb, b, ref);
            vbt_status_t st = ops[k] == 'u'   ? vbt_group_union(ga, gb, &out)
                              : ops[k] == 'i' ? vbt_group_intersection(ga, gb, &out)
                                              : vbt_group_difference(ga, gb, &out);
            ck_assert_int_eq(st, VBT_OK);
            expect(out, n, ref);
            ck_assert(n > 0 || out == &vbt_group_empty);
            vbt_group_release(out);
        }
        /* translate every rank of a into b */
        int ra[64], rb[64];
        for (int i = 0; i < na; i++)
            ra[i] = i;
        ck_assert_int_eq(vbt_group_translate(ga, na, ra, gb, rb), VBT_OK);
        for (int i = 0; i < na; i++) {
            int want = MPI_UNDEFINED;
            for (int j = 0; j < nb; j++) {
                if (b[j] == a[i])
                    want = j;
            }
            ck_assert_int_eq(rb[i], want);
        }
        ck_assert_int_eq(vbt_group_compare(ga, gb), ref_compare(na, a, nb, b));
        /* a shuffled copy of a is SIMILAR (or IDENT when the shuffle changed nothing) */
        int s[64];
        memcpy(s, a, sizeof(int) * (size_t)na);
        for (int i = na - 1; i > 0; i--) {
            int j = rand() % (i + 1), t = s[i];
            s[i] = s[j];
            s[j] = t;
        }
        vbt_group_t *gs;
        ck_assert_int_eq(vbt_group_create(na, s, &gs), VBT_OK);
        ck_assert_int_eq(vbt_group_compare(ga, gs), ref_compare(na, a, na, s));
        vbt_group_release(gs);
        /* incl of a random subset in random order; excl of the same keeps the rest in order */
        if (na > 0) {
            int pick[64], np = 0, keep[64], nk = 0, want[64];
            for (int i = 0; i < na; i++) {
                if (rand() % 2)
                    pick[np++] = i;
            }
            for (int i = np - 1; i > 0; i--) {
                int j = rand() % (i + 1), t = pick[i];
                pick[i] = pick[j];
                pick[j] = t;
            }
            for (int i = 0; i < np; i++)
                want[i] = a[pick[i]];
            ck_assert_int_eq(vbt_group_incl(ga, np, pick, &out), VBT_OK);
            expect(out, np, want);
            vbt_group_release(out);
            for (int i = 0; i < na; i++) {
                int picked = 0;
                for (int j = 0; j < np; j++)
                    picked |= pick[j] == i;
                if (!picked)
                    keep[nk++] = a[i];
            }
            ck_assert_int_eq(vbt_group_excl(ga, np, pick, &out), VBT_OK);
            expect(out, nk, keep);
            vbt_group_release(out);
        }
        vbt_group_release(ga);
        vbt_group_release(gb);
    }
}
END_TEST

static Suite *group_suite(void)
{
    Suite *s = suite_create("group");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_incl_excl);
    tcase_add_test(tc, test_check_ranks);
    tcase_add_test(tc, test_ranges);
    tcase_add_test(tc, test_set_ops_fixed);
    tcase_add_test(tc, test_refcount);
    tcase_add_test(tc, test_set_ops_random);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vbt_check_run(group_suite());
}
