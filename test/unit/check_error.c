/* Error classes: every class has a name and description, statuses map to the right class. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "vbt_errhandler.h"
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

/* MPI_Add_error_class/code/string's registry: codes above MPI_ERR_LASTCODE, classes of their
 * own, strings only for added codes. */
START_TEST(test_user_codes)
{
    int cls = -1, code = -1, code2 = -1;

    ck_assert_int_eq(vbt_error_last_used(), MPI_ERR_LASTCODE);
    ck_assert_int_eq(vbt_error_add(-1, &cls), VBT_OK);
    ck_assert_int_eq(cls, VBT_ERR_FIRST_USER);
    ck_assert_int_eq(vbt_error_add(cls, &code), VBT_OK);
    ck_assert_int_eq(vbt_error_add(MPI_ERR_RANK, &code2), VBT_OK);
    ck_assert_int_eq(vbt_error_last_used(), code2);
    ck_assert_int_eq(vbt_error_class_of(code), cls);
    ck_assert_int_eq(vbt_error_class_of(code2), MPI_ERR_RANK);
    ck_assert_int_eq(vbt_error_class_of(code2 + 1), -1);
    ck_assert_int_eq(vbt_error_class_of(MPI_ERR_TAG), MPI_ERR_TAG);
    ck_assert(vbt_error_is_class(cls));
    ck_assert(!vbt_error_is_class(code));
    ck_assert_str_eq(vbt_error_user_string(code), "");
    ck_assert_ptr_null(vbt_error_user_string(MPI_ERR_TAG));
    ck_assert_int_eq(vbt_error_set_string(code, "mine"), VBT_OK);
    ck_assert_str_eq(vbt_error_user_string(code), "mine");
    ck_assert_int_eq(vbt_error_set_string(MPI_ERR_TAG, "no"), VBT_ERR_INVALID_PARAM);
}
END_TEST

static void noop_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
}

/* User error handlers are found through the registry, so a released one is refused. */
START_TEST(test_errhandler_registry)
{
    MPI_Errhandler h;
    int local;

    ck_assert(vbt_errhandler_valid(MPI_ERRORS_RETURN));
    ck_assert(!vbt_errhandler_valid(MPI_ERRHANDLER_NULL));
    ck_assert(!vbt_errhandler_valid((MPI_Errhandler)(void *)&local));
    ck_assert_int_eq(vbt_errhandler_create(noop_handler, &h), VBT_OK);
    ck_assert(vbt_errhandler_valid(h));
    ck_assert_ptr_eq(vbt_errhandler_get(h)->fn, noop_handler);
    vbt_errhandler_retain(h);
    vbt_errhandler_release(h);
    ck_assert(vbt_errhandler_valid(h));
    vbt_errhandler_release(h);
    ck_assert(!vbt_errhandler_valid(h));
    vbt_errhandler_release(MPI_ERRORS_RETURN); /* a no-op */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("classes");

    tcase_add_test(tc, test_every_class_named);
    tcase_add_test(tc, test_error_string_api);
    tcase_add_test(tc, test_status_mapping);
    tcase_add_test(tc, test_user_codes);
    tcase_add_test(tc, test_errhandler_registry);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
