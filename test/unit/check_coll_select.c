/* The collectives' algorithm choice (collectives/vbt_coll_select.c): the automatic switch points
 * README documents, knobs forcing an algorithm, unknown names refused, and the rule that
 * non-commutative ops never get an algorithm that combines out of rank order, for groups of 1
 * to 64 ranks. */
#include <check.h>
#include "vbt_check.h"

#include "vbt_coll_int.h"
#include "vbt_config.h"

static void set_knobs(const char *value)
{
    vbt_cfg.coll_bcast = value;
    vbt_cfg.coll_allreduce = value;
    vbt_cfg.coll_gather = value;
    vbt_cfg.coll_scatter = value;
    vbt_cfg.coll_allgather = value;
    vbt_cfg.coll_alltoall = value;
    vbt_cfg.coll_reduce_scatter = value;
}

START_TEST(test_auto)
{
    set_knobs("auto");
    ck_assert_int_eq(vbt_coll_init(), VBT_OK);
    /* Bcast: binomial below 12 KiB or 8 ranks. */
    ck_assert_int_eq(vbt_coll_select_bcast(16, 12287), VBT_COLL_ALG_BINOMIAL);
    ck_assert_int_eq(vbt_coll_select_bcast(16, 12288), VBT_COLL_ALG_SCATTER_ALLGATHER);
    ck_assert_int_eq(vbt_coll_select_bcast(7, 1 << 20), VBT_COLL_ALG_BINOMIAL);
    /* Allreduce: recursive doubling up to 2 KiB or fewer elements than pof2, ring above
     * 512 KiB off powers of two, Rabenseifner between. */
    ck_assert_int_eq(vbt_coll_select_allreduce(4, 512, 2048, 1), VBT_COLL_ALG_RECURSIVE_DOUBLING);
    ck_assert_int_eq(vbt_coll_select_allreduce(4, 513, 2052, 1), VBT_COLL_ALG_RABENSEIFNER);
    ck_assert_int_eq(vbt_coll_select_allreduce(64, 40, 4096, 1), VBT_COLL_ALG_RECURSIVE_DOUBLING);
    ck_assert_int_eq(vbt_coll_select_allreduce(6, 1 << 18, 1 << 20, 1), VBT_COLL_ALG_RING);
    ck_assert_int_eq(vbt_coll_select_allreduce(8, 1 << 18, 1 << 20, 1), VBT_COLL_ALG_RABENSEIFNER);
    /* Gather/scatter: binomial below 4 KiB blocks. */
    ck_assert_int_eq(vbt_coll_select_gather(5, 4095), VBT_COLL_ALG_BINOMIAL);
    ck_assert_int_eq(vbt_coll_select_gather(5, 4096), VBT_COLL_ALG_LINEAR);
    ck_assert_int_eq(vbt_coll_select_scatter(5, 4095), VBT_COLL_ALG_BINOMIAL);
    ck_assert_int_eq(vbt_coll_select_scatter(5, 4096), VBT_COLL_ALG_LINEAR);
    /* Allgather: by the whole result's size and whether n is a power of two. */
    ck_assert_int_eq(vbt_coll_select_allgather(8, 1024), VBT_COLL_ALG_RECURSIVE_DOUBLING);
    ck_assert_int_eq(vbt_coll_select_allgather(8, 65536), VBT_COLL_ALG_RING);
    ck_assert_int_eq(vbt_coll_select_allgather(7, 1024), VBT_COLL_ALG_BRUCK);
    ck_assert_int_eq(vbt_coll_select_allgather(7, 12288), VBT_COLL_ALG_RING);
    /* Alltoall: Bruck for tiny blocks on 8 ranks or more. */
    ck_assert_int_eq(vbt_coll_select_alltoall(8, 256), VBT_COLL_ALG_BRUCK);
    ck_assert_int_eq(vbt_coll_select_alltoall(8, 257), VBT_COLL_ALG_PAIRWISE);
    ck_assert_int_eq(vbt_coll_select_alltoall(7, 8), VBT_COLL_ALG_PAIRWISE);
    /* Reduce-scatter. */
    ck_assert_int_eq(vbt_coll_select_reduce_scatter(4, 2048, 1), VBT_COLL_ALG_REDUCE_SCATTERV);
    ck_assert_int_eq(vbt_coll_select_reduce_scatter(4, 2049, 1), VBT_COLL_ALG_RING);
    /* At 2 ranks the ring (one exchange) at every size, unless the op is not commutative. */
    ck_assert_int_eq(vbt_coll_select_reduce_scatter(2, 8, 1), VBT_COLL_ALG_RING);
    ck_assert_int_eq(vbt_coll_select_reduce_scatter(2, 2048, 1), VBT_COLL_ALG_RING);
    ck_assert_int_eq(vbt_coll_select_reduce_scatter(2, 8, 0), VBT_COLL_ALG_REDUCE_SCATTERV);
    ck_assert_int_eq(vbt_coll_select_reduce_scatter(3, 8, 1), VBT_COLL_ALG_REDUCE_SCATTERV);
}
END_TEST

START_TEST(test_forced)
{
    vbt_cfg.coll_allreduce = "ring";
    vbt_cfg.coll_bcast = "scatter_allgather";
    vbt_cfg.coll_alltoall = "bruck";
    vbt_cfg.coll_reduce_scatter = "ring";
    ck_assert_int_eq(vbt_coll_init(), VBT_OK);
    ck_assert_int_eq(vbt_coll_select_allreduce(4, 1, 4, 1), VBT_COLL_ALG_RING);
    ck_assert_int_eq(vbt_coll_select_bcast(2, 1), VBT_COLL_ALG_SCATTER_ALLGATHER);
    ck_assert_int_eq(vbt_coll_select_alltoall(2, 1 << 20), VBT_COLL_ALG_BRUCK);
    /* Never out of rank order for a non-commutative op, whatever the knob says. */
    for (int n = 1; n <= 64; n++) {
        for (size_t bytes = 1; bytes <= (1u << 22); bytes <<= 3) {
            ck_assert_int_eq(vbt_coll_select_allreduce(n, bytes, bytes, 0),
                             VBT_COLL_ALG_RECURSIVE_DOUBLING);
            ck_assert_int_eq(vbt_coll_select_reduce_scatter(n, bytes, 0),
                             VBT_COLL_ALG_REDUCE_SCATTERV);
        }
    }
    set_knobs("auto");
    ck_assert_int_eq(vbt_coll_init(), VBT_OK);
    for (int n = 1; n <= 64; n++) {
        for (size_t bytes = 1; bytes <= (1u << 22); bytes <<= 3) {
            ck_assert_int_eq(vbt_coll_select_allreduce(n, bytes, bytes, 0),
                             VBT_COLL_ALG_RECURSIVE_DOUBLING);
            ck_assert_int_eq(vbt_coll_select_reduce_scatter(n, bytes, 0),
                             VBT_COLL_ALG_REDUCE_SCATTERV);
        }
    }
}
END_TEST

START_TEST(test_unknown)
{
    set_knobs("auto");
    vbt_cfg.coll_gather = "bruck"; /* an algorithm, but not one of gather's */
    ck_assert_int_eq(vbt_coll_init(), VBT_ERR_INVALID_PARAM);
    vbt_cfg.coll_gather = "auto";
    vbt_cfg.coll_allreduce = "Ring";
    ck_assert_int_eq(vbt_coll_init(), VBT_ERR_INVALID_PARAM);
    set_knobs("auto");
    ck_assert_int_eq(vbt_coll_init(), VBT_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_select");
    TCase *tc = tcase_create("select");

    tcase_add_test(tc, test_auto);
    tcase_add_test(tc, test_forced);
    tcase_add_test(tc, test_unknown);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
