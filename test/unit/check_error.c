/* Error classes: every class has a name and description, statuses map to the right class. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_error.h"

START_TEST(test_every_class_named)
{
    /* MPI_SUCCESS .. MPI_ERR_ERRHANDLER are the standard's classes. */
    static const int classes[] = {
        MPI_SUCCESS,       MPI_ERR_BUFFER,       MPI_ERR_COUNT,     MPI_ERR_TYPE,     MPI_ERR_TAG,
        MPI_ERR_COMM,      MPI_ERR_RANK,         MPI_ERR_REQUEST,   MPI_ERR_TRUNCATE, MPI_ERR_OTHER,
        MPI_ERR_IN_STATUS, MPI_ERR_PROC_ABORTED, MPI_ERR_ERRHANDLER};
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
        ck_assert_ptr_nonnull(vbt_errclass_name(classes[i]));
        ck_assert_ptr_nonnull(vbt_errclass_description(classes[i]));
    }
    ck_assert_str_eq(vbt_errclass_name(MPI_ERR_RANK), "MPI_ERR_RANK");
    ck_assert_ptr_null(vbt_errclass_name(-5));
    ck_assert_ptr_null(vbt_errclass_name(MPI_ERR_LASTCODE));
}
END_TEST

START_TEST(test_error_string_api)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1, cls = -1;
    ck_assert_int_eq(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, (int)strlen(s));
    ck_assert_ptr_nonnull(strstr(s, "MPI_ERR_TRUNCATE"));
    ck_assert_int_eq(MPI_Error_class(MPI_ERR_TAG, &cls), MPI_SUCCESS);
    ck_assert_int_eq(cls, MPI_ERR_TAG);
}
END_TEST

START_TEST(test_status_mapping)
{
    ck_assert_int_eq(vbt_status_to_errclass(VBT_OK), MPI_SUCCESS);
    ck_assert_int_eq(vbt_status_to_errclass(VBT_ERR_TRUNCATE), MPI_ERR_TRUNCATE);
    ck_assert_int_eq(vbt_status_to_errclass(VBT_ERR_NO_MEMORY), MPI_ERR_NO_MEM);
    ck_assert_int_eq(vbt_status_to_errclass(VBT_ERR_PEER_FAILED), MPI_ERR_PROC_ABORTED);
    ck_assert_int_eq(vbt_status_to_errclass(VBT_ERR_PMIX), MPI_ERR_OTHER);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("classes");

    tcase_add_test(tc, test_every_class_named);
    tcase_add_test(tc, test_error_string_api);
    tcase_add_test(tc, test_status_mapping);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
