/* The matching engine: MPI's matching rules and non-overtaking order, on bare queues. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdlib.h>

#include "vbt_match.h"

static vbt_request_t reqs[16];
static vbt_unexp_t msgs[16];

static vbt_request_t *recv_req(int i, int src, int tag)
{
    reqs[i].peer = src;
    reqs[i].tag = tag;
    return &reqs[i];
}

static vbt_unexp_t *msg(int i, int src, int tag)
{
    msgs[i].src = src;
    msgs[i].tag = tag;
    return &msgs[i];
}

START_TEST(test_accepts)
{
    ck_assert(vbt_match_accepts(3, 7, 3, 7));
    ck_assert(!vbt_match_accepts(3, 7, 4, 7));
    ck_assert(!vbt_match_accepts(3, 7, 3, 8));
    ck_assert(vbt_match_accepts(MPI_ANY_SOURCE, 7, 9, 7));
    ck_assert(vbt_match_accepts(3, MPI_ANY_TAG, 3, 0));
    ck_assert(vbt_match_accepts(MPI_ANY_SOURCE, MPI_ANY_TAG, 5, 12345));
    /* Negative tags are internal: a wildcard never takes them. */
    ck_assert(!vbt_match_accepts(3, MPI_ANY_TAG, 3, -5));
    ck_assert(vbt_match_accepts(3, -5, 3, -5));
}
END_TEST

START_TEST(test_posted_order)
{
    vbt_match_queue_t q = {0};
    vbt_match_append_posted(&q, recv_req(0, MPI_ANY_SOURCE, 1));
    vbt_match_append_posted(&q, recv_req(1, 2, 1));
    vbt_match_append_posted(&q, recv_req(2, 2, MPI_ANY_TAG));
    vbt_match_append_posted(&q, recv_req(3, 2, 1));
    /* The oldest receive that accepts the message wins. */
    ck_assert_ptr_eq(vbt_match_take_posted(&q, 2, 1), &reqs[0]);
    ck_assert_ptr_eq(vbt_match_take_posted(&q, 2, 9), &reqs[2]);
    ck_assert_ptr_eq(vbt_match_take_posted(&q, 2, 1), &reqs[1]);
    ck_assert_ptr_null(vbt_match_take_posted(&q, 5, 1));
    ck_assert_ptr_eq(vbt_match_take_posted(&q, 2, 1), &reqs[3]);
    ck_assert_ptr_null(q.posted_head);
    ck_assert_ptr_null(q.posted_tail);
    /* The queue works again after being emptied. */
    vbt_match_append_posted(&q, recv_req(4, 1, 1));
    ck_assert_ptr_eq(vbt_match_take_posted(&q, 1, 1), &reqs[4]);
}
END_TEST

START_TEST(test_unexpected_order)
{
    vbt_match_queue_t q = {0};
    vbt_match_append_unexpected(&q, msg(0, 1, 5));
    vbt_match_append_unexpected(&q, msg(1, 2, 5));
    vbt_match_append_unexpected(&q, msg(2, 1, 6));
    vbt_match_append_unexpected(&q, msg(3, 1, 5));
    /* A probe does not take. */
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, 5, 0), &msgs[0]);
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, 5, 0), &msgs[0]);
    /* Same source and tag: in arrival order (non-overtaking). */
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, 5, 1), &msgs[0]);
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, 5, 1), &msgs[3]);
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, MPI_ANY_SOURCE, MPI_ANY_TAG, 1), &msgs[1]);
    ck_assert_ptr_null(vbt_match_find_unexpected(&q, 2, MPI_ANY_TAG, 1));
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, MPI_ANY_TAG, 1), &msgs[2]);
    ck_assert_ptr_null(q.unexp_head);
    ck_assert_ptr_null(q.unexp_tail);
    /* Taking the tail keeps the tail pointer right for the next append. */
    vbt_match_append_unexpected(&q, msg(4, 1, 1));
    vbt_match_append_unexpected(&q, msg(5, 1, 2));
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, 2, 1), &msgs[5]);
    vbt_match_append_unexpected(&q, msg(6, 1, 3));
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, 1, 1), &msgs[4]);
    ck_assert_ptr_eq(vbt_match_find_unexpected(&q, 1, 3, 1), &msgs[6]);
}
END_TEST

START_TEST(test_remove_posted)
{
    vbt_match_queue_t q = {0};
    vbt_match_append_posted(&q, recv_req(0, 1, 1));
    vbt_match_append_posted(&q, recv_req(1, 1, 1));
    vbt_match_append_posted(&q, recv_req(2, 1, 1));
    ck_assert_int_eq(vbt_match_remove_posted(&q, &reqs[2]), 1);
    ck_assert_int_eq(vbt_match_remove_posted(&q, &reqs[2]), 0);
    vbt_match_append_posted(&q, recv_req(3, 1, 1));
    ck_assert_int_eq(vbt_match_remove_posted(&q, &reqs[0]), 1);
    ck_assert_ptr_eq(vbt_match_take_posted(&q, 1, 1), &reqs[1]);
    ck_assert_ptr_eq(vbt_match_take_posted(&q, 1, 1), &reqs[3]);
    ck_assert_ptr_null(vbt_match_take_posted(&q, 1, 1));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("match");
    TCase *tc = tcase_create("queues");

    tcase_add_test(tc, test_accepts);
    tcase_add_test(tc, test_posted_order);
    tcase_add_test(tc, test_unexpected_order);
    tcase_add_test(tc, test_remove_posted);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
