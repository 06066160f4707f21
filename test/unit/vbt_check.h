/* Shared by the Check suites: run one suite the way the house style asks (CK_ENV, so
 * CK_RUN_SUITE/CK_RUN_CASE and CK_FORK=no work) and turn the result into an exit status. */
#ifndef VBT_CHECK_H
#define VBT_CHECK_H

#include <check.h>
#include <stdlib.h>

static inline int vbt_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
