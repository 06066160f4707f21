/* The buffers behind MPI_Bsend: blocks of a user's buffer fit, never overlap, free space is
 * reused, and a full buffer says how much room is left; automatic buffers take any number of
 * messages; an iflush completes exactly when the messages started before it have left. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_bsend.h"
#include "vbt_request.h"

START_TEST(test_alloc_release)
{
    size_t size = 3 * (1000 + MPI_BSEND_OVERHEAD), largest = 0;
    char *buf = malloc(size);
    void *a, *b, *c, *d, *out;
    size_t outsize;
    vbt_bsend_buf_t bb = {0}, *B = &bb;

    ck_assert_int_eq(vbt_bsend_attach(B, buf, size), VBT_OK);
    ck_assert_int_eq(vbt_bsend_attach(B, buf, size), VBT_ERR_INVALID_PARAM);
    a = vbt_bsend_alloc(B, 1000, &largest);
    b = vbt_bsend_alloc(B, 1000, &largest);
    c = vbt_bsend_alloc(B, 1000, &largest);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    /* Inside the user's buffer and not overlapping. */
    ck_assert((char *)a >= buf && (char *)c + 1000 <= buf + size);
    ck_assert((char *)b >= (char *)a + 1000 && (char *)c >= (char *)b + 1000);
    /* MPI's rule: n messages fit in n * (size + MPI_BSEND_OVERHEAD). Fill up the rest. */
    void *extra[8];
    int nextra = 0;
    while ((extra[nextra] = vbt_bsend_alloc(B, 1000, &largest)) != NULL)
        ck_assert_int_lt(++nextra, 8);
    ck_assert_uint_lt(largest, 1000);
    for (int i = 0; i < nextra; i++)
        vbt_bsend_release(extra[i]);
    vbt_bsend_release(b);
    d = vbt_bsend_alloc(B, 900, &largest);
    ck_assert_ptr_eq(d, b);
    vbt_bsend_release(a);
    vbt_bsend_release(c);
    vbt_bsend_release(d);
    a = vbt_bsend_alloc(B, 2500, &largest);
    ck_assert_ptr_nonnull(a);
    vbt_bsend_release(a);
    ck_assert_int_eq(vbt_bsend_detach(B, &out, &outsize), VBT_OK);
    ck_assert_ptr_eq(out, buf);
    ck_assert_uint_eq(outsize, size);
    ck_assert_int_eq(vbt_bsend_attached(B), 0);
    free(buf);
}
END_TEST

START_TEST(test_unaligned_and_tiny)
{
    char *raw = malloc(4096);
    size_t largest = 1;
    void *out;
    size_t outsize;
    vbt_bsend_buf_t bb = {0}, *B = &bb;

    ck_assert_int_eq(vbt_bsend_attach(B, raw + 3, 10), VBT_OK);
    ck_assert_ptr_null(vbt_bsend_alloc(B, 1, &largest));
    ck_assert_uint_eq(largest, 0);
    vbt_bsend_detach(B, &out, &outsize);
    ck_assert_int_eq(vbt_bsend_attach(B, raw + 3, 4000), VBT_OK);
    void *p = vbt_bsend_alloc(B, 100, &largest);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 16, 0);
    vbt_bsend_release(p);
    vbt_bsend_detach(B, &out, &outsize);
    free(raw);
}
END_TEST

START_TEST(test_automatic)
{
    vbt_bsend_buf_t bb = {0}, *B = &bb;
    size_t largest = 1, sz = 1;
    void *blocks[300], *out = NULL;

    /* Nothing attached: no block. */
    ck_assert_ptr_null(vbt_bsend_alloc(B, 10, &largest));
    ck_assert_int_eq(vbt_bsend_attach(B, MPI_BUFFER_AUTOMATIC, 0), VBT_OK);
    for (int i = 0; i < 300; i++) {
        blocks[i] = vbt_bsend_alloc(B, (size_t)i * 997, &largest);
        ck_assert_ptr_nonnull(blocks[i]);
        ck_assert_uint_eq((uintptr_t)blocks[i] % 16, 0);
        memset(blocks[i], i & 0xff, (size_t)i * 997);
    }
    for (int i = 0; i < 300; i++) {
        const unsigned char *p = blocks[(i * 7) % 300];
        for (size_t k = 0; k < (size_t)((i * 7) % 300) * 997; k += 101)
            ck_assert_uint_eq(p[k], (unsigned)((i * 7) % 300) & 0xff);
        vbt_bsend_release(blocks[(i * 7) % 300]);
    }
    ck_assert_int_eq(vbt_bsend_detach(B, &out, &sz), VBT_OK);
    ck_assert_ptr_eq(out, MPI_BUFFER_AUTOMATIC);
    ck_assert_uint_eq(sz, 0);
    ck_assert_int_eq(vbt_bsend_attached(B), 0);
}
END_TEST

/* iflush waits for the messages started before it, in whatever order they leave, and not for
 * later ones. */
START_TEST(test_iflush_order)
{
    vbt_bsend_buf_t bb = {0}, *B = &bb;
    char *buf = malloc(8 * (100 + MPI_BSEND_OVERHEAD));
    size_t largest;
    vbt_request_t *r0, *r1, *r2;
    void *a, *b, *c, *d;

    ck_assert_int_eq(vbt_bsend_iflush(B, NULL, &r0), VBT_OK); /* nothing attached: done */
    ck_assert_int_eq(r0->complete, 1);
    vbt_request_release(r0);
    ck_assert_int_eq(vbt_bsend_attach(B, buf, 8 * (100 + MPI_BSEND_OVERHEAD)), VBT_OK);
    a = vbt_bsend_alloc(B, 100, &largest);
    b = vbt_bsend_alloc(B, 100, &largest);
    c = vbt_bsend_alloc(B, 100, &largest);
    ck_assert_int_eq(vbt_bsend_iflush(B, NULL, &r1), VBT_OK);
    d = vbt_bsend_alloc(B, 100, &largest);
    ck_assert_int_eq(vbt_bsend_iflush(B, NULL, &r2), VBT_OK);
    ck_assert_int_eq(r1->complete, 0);
    vbt_bsend_release(c);
    vbt_bsend_release(b);
    ck_assert_int_eq(r1->complete, 0);
    vbt_bsend_release(a);
    ck_assert_int_eq(r1->complete, 1);
    ck_assert_int_eq(r2->complete, 0);
    /* A freed incomplete iflush goes when it completes. */
    r2->flags |= VBT_REQF_FREED;
    vbt_bsend_release(d);
    ck_assert_ptr_null(B->flushes);
    vbt_request_release(r1);
    ck_assert_int_eq(vbt_bsend_iflush(B, NULL, &r0), VBT_OK);
    ck_assert_int_eq(r0->complete, 1);
    vbt_request_release(r0);
    free(buf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bsend");
    TCase *tc = tcase_create("allocator");

    tcase_add_test(tc, test_alloc_release);
    tcase_add_test(tc, test_unaligned_and_tiny);
    tcase_add_test(tc, test_automatic);
    tcase_add_test(tc, test_iflush_order);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
