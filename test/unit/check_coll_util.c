/* The collectives' typed-buffer helpers (collectives/vbt_coll_util.c) on datatypes of any
 * extent: the bytes count elements touch (negative extent, negative true lower bound, holes,
 * overlapping elements), element addresses, temporary buffers covering exactly those bytes,
 * and local copies and reductions between such types and plain ints. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "vbt_coll_int.h"
#include "vbt_config.h"
#include "vbt_datatype.h"
#include "vbt_runtime.h"

#define ISZ ((MPI_Aint)sizeof(int))

/* The types of the tests, in this order. */
enum { NEGINT, HVEC, NEGHVEC, OVL_DOWN, OVL_UP, NTYPES };
static MPI_Datatype types[NTYPES];

/* The handle of the type a constructor just made in *t_p. */
static MPI_Datatype handle(vbt_status_t st, vbt_dtype_t **t_p)
{
    ck_assert_int_eq(st, VBT_OK);
    return vbt_dtype_handle(*t_p);
}

static void setup(void)
{
    vbt_dtype_t *t, *hv, *pair;

    vbt_datatype_init();
    /* An int at extent -4: element e at -4e. */
    types[NEGINT] = handle(vbt_dtype_create_resized(vbt_dtype_get(MPI_INT), 0, -ISZ, &t), &t);
    /* Ints at 0 and -8 (a hole at -4): lb -8, extent 12, true_lb -8. */
    types[HVEC] =
        handle(vbt_dtype_create_hvector(2, 1, -2 * ISZ, vbt_dtype_get(MPI_INT), &hv), &hv);
    /* The same at extent -12: element e at -12e. */
    types[NEGHVEC] = handle(vbt_dtype_create_resized(hv, -2 * ISZ, -3 * ISZ, &t), &t);
    /* Two ints at extent -4 and 4: element e shares an int with element e + 1. */
    ck_assert_int_eq(vbt_dtype_create_contiguous(2, vbt_dtype_get(MPI_INT), &pair), VBT_OK);
    types[OVL_DOWN] = handle(vbt_dtype_create_resized(pair, 0, -ISZ, &t), &t);
    types[OVL_UP] = handle(vbt_dtype_create_resized(pair, 0, ISZ, &t), &t);
}

static void teardown(void)
{
    vbt_datatype_cleanup();
}

static void check_range(MPI_Datatype dt, size_t count, MPI_Aint lo, MPI_Aint hi)
{
    MPI_Aint l = 12345, h = 12345;

    vbt_coll_range(count, dt, &l, &h);
    ck_assert_int_eq(l, lo);
    ck_assert_int_eq(h, hi);
    ck_assert_uint_eq(vbt_coll_span(count, dt), (size_t)(hi - lo));
}

START_TEST(test_range)
{
    char buf[64];

    check_range(MPI_INT, 0, 0, 0);
    check_range(MPI_INT, 3, 0, 3 * ISZ);
    check_range(types[NEGINT], 0, 0, 0);
    check_range(types[NEGINT], 1, 0, ISZ);
    check_range(types[NEGINT], 3, -2 * ISZ, ISZ);
    check_range(types[HVEC], 1, -2 * ISZ, ISZ);
    check_range(types[HVEC], 3, -2 * ISZ, 7 * ISZ);
    check_range(types[NEGHVEC], 3, -8 * ISZ, ISZ);
    check_range(types[OVL_DOWN], 3, -2 * ISZ, 2 * ISZ);
    check_range(types[OVL_UP], 3, 0, 4 * ISZ);
    /* Element addresses go down with a negative extent. */
    ck_assert_ptr_eq(vbt_coll_at(buf + 32, 2, types[NEGINT]), buf + 32 - 2 * ISZ);
    ck_assert_ptr_eq(vbt_coll_at(buf + 32, 2, types[NEGHVEC]), buf + 32 - 6 * ISZ);
}
END_TEST

/* A temporary buffer's every byte from lo to hi is writable, and freeing it with the same count
 * and type gives back the allocation (a wrong pointer would crash free). */
START_TEST(test_tmp)
{
    static const size_t counts[] = {0, 1, 2, 5, 1000};

    for (int t = 0; t < NTYPES; t++)
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
            MPI_Aint lo, hi;
            char *p = vbt_coll_tmp_alloc(counts[c], types[t]);

            ck_assert_ptr_nonnull(p);
            vbt_coll_range(counts[c], types[t], &lo, &hi);
            memset(p + lo, 0x5a, (size_t)(hi - lo));
            vbt_coll_tmp_free(p, counts[c], types[t]);
        }
}
END_TEST

static int kept(void)
{
    int n = 0;

    for (size_t i = 0; i < sizeof(vbt_rt.coll_tmp) / sizeof(vbt_rt.coll_tmp[0]); i++)
        n += vbt_rt.coll_tmp[i] != NULL;
    return n;
}

/* Freed temporaries are kept (vbt_coll_tmp.c): the next call gets the smallest kept block that
 * fits, whatever the type (a negative extent's block starts below the element); blocks above
 * VBT_COLL_TMP_CACHE are not kept; with every slot full the oldest goes. */
START_TEST(test_tmp_cache)
{
    size_t limit = vbt_cfg.coll_tmp_cache;
    char *a, *b, *c;
    MPI_Aint lo, hi;

    vbt_coll_tmp_cache_clear();
    vbt_cfg.coll_tmp_cache = 1 << 20;
    a = vbt_coll_tmp_alloc(1000, MPI_INT);
    b = vbt_coll_tmp_alloc(3000, MPI_INT);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    vbt_coll_tmp_free(b, 3000, MPI_INT);
    vbt_coll_tmp_free(a, 1000, MPI_INT);
    ck_assert_int_eq(kept(), 2);
    /* 1500 ints fit b only; 900 fit both and get a, the smaller. */
    ck_assert_ptr_eq(vbt_coll_tmp_alloc(1500, MPI_INT), b);
    ck_assert_ptr_eq(vbt_coll_tmp_alloc(900, MPI_INT), a);
    ck_assert_int_eq(kept(), 0);
    vbt_coll_tmp_free(a, 900, MPI_INT);
    /* The same block for 900 elements of NEGINT: element 0 at its last int. */
    c = vbt_coll_tmp_alloc(900, types[NEGINT]);
    vbt_coll_range(900, types[NEGINT], &lo, &hi);
    ck_assert_ptr_eq(c + lo, a);
    memset(c + lo, 0x5a, (size_t)(hi - lo));
    vbt_coll_tmp_free(c, 900, types[NEGINT]);
    vbt_coll_tmp_free(b, 1500, MPI_INT);
    ck_assert_int_eq(kept(), 2);
    /* Six more: four slots, the newest kept. */
    for (int i = 0; i < 6; i++) {
        char *p[6];

        for (int j = 0; j < 6; j++)
            p[j] = vbt_coll_tmp_alloc(10, MPI_INT);
        for (int j = 0; j < 6; j++)
            vbt_coll_tmp_free(p[j], 10, MPI_INT);
    }
    ck_assert_int_eq(kept(), 4);
    /* Too large: allocated and freed. */
    vbt_coll_tmp_cache_clear();
    vbt_cfg.coll_tmp_cache = 4096;
    a = vbt_coll_tmp_alloc(2000, MPI_INT);
    ck_assert_ptr_nonnull(a);
    vbt_coll_tmp_free(a, 2000, MPI_INT);
    ck_assert_int_eq(kept(), 0);
    a = vbt_coll_tmp_alloc(1024, MPI_INT);
    vbt_coll_tmp_free(a, 1024, MPI_INT);
    ck_assert_int_eq(kept(), 1);
    vbt_cfg.coll_tmp_cache = 0;
    vbt_coll_tmp_cache_clear();
    a = vbt_coll_tmp_alloc(1, MPI_INT);
    vbt_coll_tmp_free(a, 1, MPI_INT);
    ck_assert_int_eq(kept(), 0);
    vbt_cfg.coll_tmp_cache = limit;
}
END_TEST

/* Element e of NEGHVEC: ints at -3e and -3e - 2 from its address, a hole at -3e - 1. */
START_TEST(test_copy_reduce)
{
    int flat[10], back[10], mem[40], neg[9];
    int *a = mem + 30, *n = neg + 7;

    for (int j = 0; j < 10; j++)
        flat[j] = 100 + j;
    for (int x = 0; x < 40; x++)
        mem[x] = -1;
    ck_assert_int_eq(vbt_coll_copy(flat, 10, MPI_INT, a, 5, types[NEGHVEC]), VBT_OK);
    for (int e = 0; e < 5; e++) {
        ck_assert_int_eq(a[-3 * e], 100 + 2 * e);
        ck_assert_int_eq(a[-3 * e - 2], 100 + 2 * e + 1);
        ck_assert_int_eq(a[-3 * e - 1], -1);
    }
    ck_assert_int_eq(a[1], -1);
    ck_assert_int_eq(a[-15], -1);
    ck_assert_int_eq(vbt_coll_copy(a, 5, types[NEGHVEC], back, 10, MPI_INT), VBT_OK);
    ck_assert_mem_eq(back, flat, sizeof(flat));
    /* Into the downward int type and back, then summed into itself. */
    ck_assert_int_eq(vbt_coll_copy(a, 4, types[NEGHVEC], n, 8, types[NEGINT]), VBT_OK);
    for (int e = 0; e < 8; e++)
        ck_assert_int_eq(n[-e], 100 + e);
    ck_assert_int_eq(vbt_coll_reduce_local(vbt_op_get(MPI_SUM), n, a, 8, types[NEGINT]), VBT_OK);
    /* The sum, int by int in the downward layout, where a[-e] held NEGHVEC data or a hole. */
    for (int e = 0; e < 8; e++) {
        int before = e % 3 == 1 ? -1 : 100 + 2 * (e / 3) + (e % 3 == 2);
        ck_assert_int_eq(a[-e], before + 100 + e);
    }
    /* An overlapping send type packs what its elements read: 2e and 2e + 1 of the data are
     * ints -e and -e + 1. */
    for (int x = 0; x < 9; x++)
        neg[x] = x;
    ck_assert_int_eq(vbt_coll_copy(n, 3, types[OVL_DOWN], back, 6, MPI_INT), VBT_OK);
    for (int e = 0; e < 3; e++) {
        ck_assert_int_eq(back[2 * e], n[-e]);
        ck_assert_int_eq(back[2 * e + 1], n[-e + 1]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_util");
    TCase *tc = tcase_create("util");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_range);
    tcase_add_test(tc, test_tmp);
    tcase_add_test(tc, test_tmp_cache);
    tcase_add_test(tc, test_copy_reduce);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
