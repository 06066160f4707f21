/* The attached-buffer allocator behind MPI_Bsend: blocks fit, never overlap, free space is
 * reused, and a full buffer says how much room is left. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "vbt_bsend.h"

START_TEST(test_alloc_release)
{
    size_t size = 3 * (1000 + MPI_BSEND_OVERHEAD), largest = 0;
    char *buf = malloc(size);
    void *a, *b, *c, *d, *out;
    size_t outsize;

    ck_assert_int_eq(vbt_bsend_attach(buf, size), VBT_OK);
    ck_assert_int_eq(vbt_bsend_attach(buf, size), VBT_ERR_INVALID_PARAM);
    a = vbt_bsend_alloc(1000, &largest);
    b = vbt_bsend_alloc(1000, &largest);
    c = vbt_bsend_alloc(1000, &largest);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    /* Inside the user's buffer and not overlapping. */
    ck_assert((char *)a >= buf && (char *)c + 1000 <= buf + size);
    ck_assert((char *)b >= (char *)a + 1000 && (char *)c >= (char *)b + 1000);
    /* MPI's rule: n messages fit in n * (size + MPI_BSEND_OVERHEAD). Fill up the rest. */
    void *extra[8];
    int nextra = 0;
    while ((extra[nextra] = vbt_bsend_alloc(1000, &largest)) != NULL)
        ck_assert_int_lt(++nextra, 8);
    ck_assert_uint_lt(largest, 1000);
    for (int i = 0; i < nextra; i++)
        vbt_bsend_release(extra[i]);
    vbt_bsend_release(b);
    d = vbt_bsend_alloc(900, &largest);
    ck_assert_ptr_eq(d, b);
    vbt_bsend_release(a);
    vbt_bsend_release(c);
    vbt_bsend_release(d);
    a = vbt_bsend_alloc(2500, &largest);
    ck_assert_ptr_nonnull(a);
    vbt_bsend_release(a);
    ck_assert_int_eq(vbt_bsend_detach(&out, &outsize), VBT_OK);
    ck_assert_ptr_eq(out, buf);
    ck_assert_uint_eq(outsize, size);
    ck_assert_int_eq(vbt_bsend_attached(), 0);
    free(buf);
}
END_TEST

START_TEST(test_unaligned_and_tiny)
{
    char *raw = malloc(4096);
    size_t largest = 1;
    void *out;
    size_t outsize;

    ck_assert_int_eq(vbt_bsend_attach(raw + 3, 10), VBT_OK);
    ck_assert_ptr_null(vbt_bsend_alloc(1, &largest));
    ck_assert_uint_eq(largest, 0);
    vbt_bsend_detach(&out, &outsize);
    ck_assert_int_eq(vbt_bsend_attach(raw + 3, 4000), VBT_OK);
    void *p = vbt_bsend_alloc(100, &largest);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 16, 0);
    vbt_bsend_release(p);
    vbt_bsend_detach(&out, &outsize);
    free(raw);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bsend");
    TCase *tc = tcase_create("allocator");

    tcase_add_test(tc, test_alloc_release);
    tcase_add_test(tc, test_unaligned_and_tiny);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
