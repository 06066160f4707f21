/* Info objects (runtime/vbt_info.c): insertion order, replacement in place, delete at the head,
 * middle and tail, dup independence, handle validation of freed and made-up handles, and the
 * MPI_INFO_ENV keys a process knows without MPI_Init. */
#include <check.h>
#include "vbt_check.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vbt_info.h"

static vbt_info_t *mk(void)
{
    vbt_info_t *i;
    ck_assert_int_eq(vbt_info_create(&i), VBT_OK);
    ck_assert_ptr_eq(vbt_info_get(vbt_info_handle(i)), i);
    return i;
}

static void expect_keys(const vbt_info_t *i, int n, const char *const *keys)
{
    ck_assert_int_eq(vbt_info_nkeys(i), n);
    for (int k = 0; k < n; k++)
        ck_assert_msg(strcmp(vbt_info_nthkey(i, k), keys[k]) == 0, "key %d is %s, expected %s", k,
                      vbt_info_nthkey(i, k), keys[k]);
    ck_assert_ptr_null(vbt_info_nthkey(i, n));
    ck_assert_ptr_null(vbt_info_nthkey(i, -1));
}

static const char *value_of(const vbt_info_t *i, const char *key)
{
    const char *v = NULL;
    return vbt_info_lookup(i, key, &v) ? v : NULL;
}

START_TEST(test_order_and_replace)
{
    vbt_info_t *i = mk();
    const char *const keys[] = {"c", "a", "b"};

    expect_keys(i, 0, keys);
    ck_assert_int_eq(vbt_info_set(i, "c", "3"), VBT_OK);
    ck_assert_int_eq(vbt_info_set(i, "a", "1"), VBT_OK);
    ck_assert_int_eq(vbt_info_set(i, "b", "2"), VBT_OK);
    expect_keys(i, 3, keys);
    /* Setting an existing key keeps its place and replaces its value. */
    ck_assert_int_eq(vbt_info_set(i, "a", "one"), VBT_OK);
    expect_keys(i, 3, keys);
    ck_assert_str_eq(value_of(i, "a"), "one");
    ck_assert_str_eq(value_of(i, "c"), "3");
    ck_assert_ptr_null(value_of(i, "A")); /* keys are case-sensitive */
    ck_assert_int_eq(vbt_info_lookup(i, "b", NULL), 1);
    ck_assert_int_eq(vbt_info_lookup(i, "zz", NULL), 0);
    vbt_info_release(i);
}
END_TEST

START_TEST(test_delete)
{
    vbt_info_t *i = mk();
    const char *const all[] = {"k0", "k1", "k2", "k3"};
    const char *const no_mid[] = {"k0", "k2", "k3"};
    const char *const no_ends[] = {"k2"};
    const char *const re[] = {"k2", "k0", "new"};

    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(vbt_info_set(i, all[k], "v"), VBT_OK);
    ck_assert_int_eq(vbt_info_delete(i, "k1"), VBT_OK);
    expect_keys(i, 3, no_mid);
    ck_assert_int_eq(vbt_info_delete(i, "k1"), VBT_ERR_NOT_FOUND);
    ck_assert_int_eq(vbt_info_delete(i, "k0"), VBT_OK);
    ck_assert_int_eq(vbt_info_delete(i, "k3"), VBT_OK); /* the tail: new keys still go last */
    expect_keys(i, 1, no_ends);
    ck_assert_int_eq(vbt_info_set(i, "k0", "v"), VBT_OK);
    ck_assert_int_eq(vbt_info_set(i, "new", "v"), VBT_OK);
    expect_keys(i, 3, re);
    vbt_info_clear(i);
    expect_keys(i, 0, re);
    ck_assert_int_eq(vbt_info_set(i, "after", "clear"), VBT_OK);
    ck_assert_int_eq(vbt_info_nkeys(i), 1);
    vbt_info_release(i);
}
END_TEST

START_TEST(test_dup_independent)
{
    vbt_info_t *a = mk(), *b;
    const char *const keys[] = {"x", "y"};
    const char *const keys_b[] = {"y", "z"};

    ck_assert_int_eq(vbt_info_set(a, "x", "1"), VBT_OK);
    ck_assert_int_eq(vbt_info_set(a, "y", "2"), VBT_OK);
    ck_assert_int_eq(vbt_info_dup(a, &b), VBT_OK);
    ck_assert_ptr_ne(a, b);
    expect_keys(b, 2, keys);
    ck_assert_int_eq(vbt_info_set(b, "y", "changed"), VBT_OK);
    ck_assert_int_eq(vbt_info_delete(b, "x"), VBT_OK);
    ck_assert_int_eq(vbt_info_set(b, "z", "3"), VBT_OK);
    expect_keys(a, 2, keys);
    ck_assert_str_eq(value_of(a, "y"), "2");
    expect_keys(b, 2, keys_b);
    vbt_info_release(a);
    ck_assert_str_eq(value_of(b, "y"), "changed"); /* b outlives a */
    vbt_info_release(b);
}
END_TEST

START_TEST(test_handles)
{
    vbt_info_t *a = mk(), *b = mk();
    MPI_Info ha = vbt_info_handle(a), hb = vbt_info_handle(b);
    char on_stack[64];

    ck_assert_ptr_null(vbt_info_get(MPI_INFO_NULL));
    ck_assert_ptr_null(vbt_info_get((MPI_Info)0));
    ck_assert_ptr_null(vbt_info_get((MPI_Info)0x132));
    ck_assert_ptr_null(vbt_info_get((MPI_Info)(void *)on_stack)); /* never read */
    ck_assert_ptr_eq(vbt_info_get(MPI_INFO_ENV), &vbt_info_env);
    ck_assert_ptr_eq(vbt_info_handle(&vbt_info_env), MPI_INFO_ENV);
    vbt_info_release(a);
    ck_assert_ptr_null(vbt_info_get(ha));
    ck_assert_ptr_eq(vbt_info_get(hb), b);
    vbt_info_release(&vbt_info_env); /* the predefined one is never freed */
    ck_assert_ptr_eq(vbt_info_get(MPI_INFO_ENV), &vbt_info_env);
    vbt_info_release(b);
    ck_assert_ptr_null(vbt_info_get(hb));
    vbt_info_release(NULL);
}
END_TEST

START_TEST(test_env_fill)
{
    vbt_info_t *i = mk();
    char *argv[] = {"prog", "-x", "two words", NULL};
    char cwd[4096], host[256];

    ck_assert_int_eq(vbt_info_env_fill(i, 3, argv), VBT_OK);
    ck_assert_str_eq(value_of(i, "command"), "prog");
    ck_assert_str_eq(value_of(i, "argv"), "-x two words");
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_str_eq(value_of(i, "wdir"), cwd);
    ck_assert_int_eq(gethostname(host, sizeof(host)), 0);
    ck_assert_str_eq(value_of(i, "host"), host);
    ck_assert_ptr_nonnull(value_of(i, "arch"));
    /* Not initialised: no world size or thread level to tell. */
    ck_assert_ptr_null(value_of(i, "maxprocs"));
    ck_assert_ptr_null(value_of(i, "thread_level"));
    vbt_info_release(i);

    /* Without argv: this process's own command line. */
    i = mk();
    ck_assert_int_eq(vbt_info_env_fill(i, 0, NULL), VBT_OK);
    ck_assert_ptr_nonnull(value_of(i, "command"));
    ck_assert_ptr_nonnull(strstr(value_of(i, "command"), "check_info"));
    vbt_info_release(i);
}
END_TEST

START_TEST(test_env_argv_too_long)
{
    vbt_info_t *i = mk();
    char *big = malloc(MPI_MAX_INFO_VAL + 10);
    char *argv[] = {"prog", big, NULL};

    memset(big, 'a', MPI_MAX_INFO_VAL + 9);
    big[MPI_MAX_INFO_VAL + 9] = '\0';
    ck_assert_int_eq(vbt_info_env_fill(i, 2, argv), VBT_OK);
    ck_assert_str_eq(value_of(i, "command"), "prog");
    ck_assert_ptr_null(value_of(i, "argv")); /* left out, not cut */
    vbt_info_release(i);
    free(big);
}
END_TEST

static Suite *info_suite(void)
{
    Suite *s = suite_create("info");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_order_and_replace);
    tcase_add_test(tc, test_delete);
    tcase_add_test(tc, test_dup_independent);
    tcase_add_test(tc, test_handles);
    tcase_add_test(tc, test_env_fill);
    tcase_add_test(tc, test_env_argv_too_long);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vbt_check_run(info_suite());
}
