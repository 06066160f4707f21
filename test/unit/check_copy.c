/* vbt_copy: every length from 0 to 80 (the inline widths, their edges and libc's memcpy above),
 * at every alignment of source and destination, copies exactly n bytes and touches nothing
 * around them. */
#include <check.h>
#include "vbt_check.h"
#include <stdint.h>
#include <string.h>

#include "vbt_copy.h"

#define MAXN  80
#define GUARD 16

START_TEST(test_lengths_and_alignments)
{
    unsigned char src[MAXN + 2 * GUARD], dst[MAXN + 2 * GUARD];

    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (unsigned char)(i * 7 + 1);
    for (size_t n = 0; n <= MAXN; n++) {
        for (size_t so = 0; so < 8; so++) {
            for (size_t dof = 0; dof < 8; dof++) {
                memset(dst, 0xa5, sizeof(dst));
                vbt_copy(dst + GUARD + dof, src + GUARD + so, n);
                for (size_t i = 0; i < sizeof(dst); i++) {
                    size_t k = i - GUARD - dof; /* wraps below the copy: then >= n */
                    unsigned char want = k < n ? src[GUARD + so + k] : 0xa5;
                    if (dst[i] != want)
                        ck_abort_msg("n %zu, source offset %zu, destination offset %zu: byte %zd "
                                     "is %#x, not %#x",
                                     n, so, dof, (ssize_t)i - (ssize_t)(GUARD + dof), dst[i], want);
                }
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy");
    TCase *tc = tcase_create("copy");

    tcase_add_test(tc, test_lengths_and_alignments);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
