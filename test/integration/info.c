/* Info objects through the MPI API: every MPI_Info_* call (before MPI_Init, during, and after
 * MPI_Finalize), every error class they raise and that it goes to MPI_COMM_SELF's handler,
 * MPI_Info_get_string's buflen and truncation rules, MPI_Info_get's, key order, dup
 * independence, MPI_INFO_ENV's keys, and the communicator info calls. Usage: info TEST (or
 * "all"); rank 0 prints "info TEST: ok (N ranks) in T s" for each, then "info: after finalize
 * ok". Works at any size, 1 included. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MPITEST_NAME "info"
#include "mpitest.h"

static int main_argc;
static char **main_argv;

/* Errors of info calls must reach MPI_COMM_SELF's handler: this one counts them (the world's
 * stays fatal, so an error sent there ends the test). */
static int self_errors, last_error;

static void count_error(MPI_Comm *comm, int *code, ...)
{
    if (*comm != MPI_COMM_SELF)
        FAIL("info error %d went to a communicator other than MPI_COMM_SELF", *code);
    self_errors++;
    last_error = *code;
}

/* call must fail with errclass, through MPI_COMM_SELF's handler, once. */
#define EXPECT_ERR(_errclass, _call)                                                               \
    do {                                                                                           \
        int _before = self_errors, _rc = (_call), _cls;                                            \
        MPI_Error_class(_rc, &_cls);                                                               \
        if (_cls != (_errclass))                                                                   \
            FAIL("%s returned class %d, expected %s (%d)", #_call, _cls, #_errclass, _errclass);   \
        if (self_errors != _before + 1 || last_error != _rc)                                       \
            FAIL("%s: MPI_COMM_SELF's handler ran %d times", #_call, self_errors - _before);       \
    } while (0)
#define OK(_call)                                                                                  \
    do {                                                                                           \
        int _rc = (_call);                                                                         \
        if (_rc != MPI_SUCCESS)                                                                    \
            FAIL("%s returned %d", #_call, _rc);                                                   \
    } while (0)

static void expect_value(MPI_Info info, const char *key, const char *exp)
{
    char buf[MPI_MAX_INFO_VAL];
    int buflen = sizeof(buf), flag = -1;

    OK(MPI_Info_get_string(info, key, &buflen, buf, &flag));
    if (exp == NULL) {
        if (flag)
            FAIL("key %s is there (\"%s\"), expected none", key, buf);
        return;
    }
    if (!flag)
        FAIL("key %s is missing, expected \"%s\"", key, exp);
    if (strcmp(buf, exp) != 0 || buflen != (int)strlen(exp) + 1)
        FAIL("key %s is \"%s\" (buflen %d), expected \"%s\"", key, buf, buflen, exp);
}

static void expect_keys(MPI_Info info, int n, const char *const *keys)
{
    char key[MPI_MAX_INFO_KEY];
    int nkeys = -1;

    OK(MPI_Info_get_nkeys(info, &nkeys));
    if (nkeys != n)
        FAIL("%d keys, expected %d", nkeys, n);
    for (int k = 0; k < n; k++) {
        OK(MPI_Info_get_nthkey(info, k, key));
        if (strcmp(key, keys[k]) != 0)
            FAIL("key %d is %s, expected %s", k, key, keys[k]);
    }
}

/* ---- the tests ------------------------------------------------------------------------------ */

static void test_basic(void)
{
    MPI_Info info;
    const char *const keys[] = {"zeta", "alpha", "mid"};
    const char *const after[] = {"zeta", "mid", "alpha"};
    char key[MPI_MAX_INFO_KEY];

    OK(MPI_Info_create(&info));
    expect_keys(info, 0, keys);
    OK(MPI_Info_set(info, "zeta", "1"));
    OK(MPI_Info_set(info, "alpha", "2"));
    OK(MPI_Info_set(info, "mid", "3"));
    expect_keys(info, 3, keys);
    OK(MPI_Info_set(info, "alpha", "two")); /* replaced in place */
    expect_keys(info, 3, keys);
    expect_value(info, "alpha", "two");
    expect_value(info, "Alpha", NULL);
    OK(MPI_Info_delete(info, "alpha"));
    OK(MPI_Info_set(info, "alpha", "back"));
    expect_keys(info, 3, after);
    /* The longest key and value there may be. */
    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    {
        char *v = xmalloc(MPI_MAX_INFO_VAL);
        memset(v, 'v', MPI_MAX_INFO_VAL - 1);
        v[MPI_MAX_INFO_VAL - 1] = '\0';
        OK(MPI_Info_set(info, key, v));
        expect_value(info, key, v);
        free(v);
    }
    OK(MPI_Info_free(&info));
    if (info != MPI_INFO_NULL)
        FAIL("MPI_Info_free left the handle %p, not MPI_INFO_NULL", (void *)info);
}

static void test_get_string(void)
{
    MPI_Info info;
    char buf[16];
    int buflen, flag;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "k", "abcdef"));
    /* A buffer just large enough. */
    buflen = 7;
    OK(MPI_Info_get_string(info, "k", &buflen, buf, &flag));
    if (!flag || buflen != 7 || strcmp(buf, "abcdef") != 0)
        FAIL("buflen 7: flag %d buflen %d \"%s\"", flag, buflen, buf);
    /* One short: cut to buflen - 1 characters, terminated; buflen says what is needed. */
    memset(buf, 'X', sizeof(buf));
    buflen = 6;
    OK(MPI_Info_get_string(info, "k", &buflen, buf, &flag));
    if (!flag || buflen != 7 || strcmp(buf, "abcde") != 0 || buf[6] != 'X')
        FAIL("buflen 6: flag %d buflen %d \"%s\"", flag, buflen, buf);
    buflen = 1;
    OK(MPI_Info_get_string(info, "k", &buflen, buf, &flag));
    if (!flag || buflen != 7 || buf[0] != '\0' || buf[1] != 'b')
        FAIL("buflen 1: flag %d buflen %d", flag, buflen);
    /* buflen 0: only the length, value untouched (NULL allowed). */
    buflen = 0;
    OK(MPI_Info_get_string(info, "k", &buflen, NULL, &flag));
    if (!flag || buflen != 7)
        FAIL("buflen 0: flag %d buflen %d", flag, buflen);
    /* A missing key: flag false, value and buflen unchanged. */
    strcpy(buf, "keep");
    buflen = 16;
    flag = 1;
    OK(MPI_Info_get_string(info, "missing", &buflen, buf, &flag));
    if (flag || buflen != 16 || strcmp(buf, "keep") != 0)
        FAIL("missing key: flag %d buflen %d \"%s\"", flag, buflen, buf);
    /* The empty value. */
    OK(MPI_Info_set(info, "empty", ""));
    buflen = 16;
    OK(MPI_Info_get_string(info, "empty", &buflen, buf, &flag));
    if (!flag || buflen != 1 || buf[0] != '\0')
        FAIL("empty value: flag %d buflen %d", flag, buflen);
    OK(MPI_Info_free(&info));
}

static void test_get_valuelen(void)
{
    MPI_Info info;
    char buf[16];
    int len, flag;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "k", "abcdef"));
    OK(MPI_Info_get_valuelen(info, "k", &len, &flag));
    if (!flag || len != 6)
        FAIL("valuelen: flag %d len %d", flag, len);
    len = 99;
    OK(MPI_Info_get_valuelen(info, "nope", &len, &flag));
    if (flag || len != 99)
        FAIL("valuelen of a missing key: flag %d len %d", flag, len);
    /* MPI_Info_get: valuelen counts characters, the NUL comes after them. */
    memset(buf, 'X', sizeof(buf));
    OK(MPI_Info_get(info, "k", 6, buf, &flag));
    if (!flag || strcmp(buf, "abcdef") != 0)
        FAIL("get 6: flag %d \"%s\"", flag, buf);
    memset(buf, 'X', sizeof(buf));
    OK(MPI_Info_get(info, "k", 3, buf, &flag));
    if (!flag || strcmp(buf, "abc") != 0 || buf[4] != 'X')
        FAIL("get 3: flag %d \"%s\"", flag, buf);
    OK(MPI_Info_get(info, "k", 0, buf, &flag));
    if (!flag || buf[0] != '\0')
        FAIL("get 0: flag %d", flag);
    strcpy(buf, "keep");
    OK(MPI_Info_get(info, "nope", 15, buf, &flag));
    if (flag || strcmp(buf, "keep") != 0)
        FAIL("get missing: flag %d \"%s\"", flag, buf);
    OK(MPI_Info_free(&info));
}

static void test_dup(void)
{
    MPI_Info a, b;
    const char *const keys[] = {"x", "y", "z"};
    const char *const keys_b[] = {"y", "z", "w"};

    OK(MPI_Info_create(&a));
    OK(MPI_Info_set(a, "x", "1"));
    OK(MPI_Info_set(a, "y", "2"));
    OK(MPI_Info_set(a, "z", "3"));
    OK(MPI_Info_dup(a, &b));
    if (a == b)
        FAIL("MPI_Info_dup gave the same handle");
    expect_keys(b, 3, keys);
    OK(MPI_Info_delete(b, "x"));
    OK(MPI_Info_set(b, "y", "changed"));
    OK(MPI_Info_set(b, "w", "4"));
    expect_keys(a, 3, keys);
    expect_value(a, "y", "2");
    expect_keys(b, 3, keys_b);
    OK(MPI_Info_free(&a));
    expect_value(b, "y", "changed");
    OK(MPI_Info_free(&b));
}

static void test_errors(void)
{
    MPI_Info info, freed, env_copy, null = MPI_INFO_NULL, env = MPI_INFO_ENV;
    MPI_Info bogus = (MPI_Info)(uintptr_t)&main_argc; /* never made by MPI_Info_create */
    char buf[MPI_MAX_INFO_VAL + 2], key[MPI_MAX_INFO_KEY];
    int flag, n, buflen;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_create(&freed));
    OK(MPI_Info_free(&freed));
    freed = info == MPI_INFO_NULL ? MPI_INFO_NULL : freed; /* keep the compiler quiet */
    OK(MPI_Info_create(&freed));
    {
        MPI_Info tmp = freed;
        OK(MPI_Info_free(&tmp));
    }
    /* Invalid handles: MPI_ERR_INFO. */
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_NULL, "k", "v"));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_set(freed, "k", "v"));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_set(bogus, "k", "v"));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_get_nkeys(freed, &n));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_get_nthkey(bogus, 0, key));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_get_string(freed, "k", &buflen, buf, &flag));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_get(bogus, "k", 1, buf, &flag));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_get_valuelen(freed, "k", &n, &flag));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_delete(freed, "k"));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_dup(bogus, &env_copy));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_free(&freed));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_free(&null));
    /* MPI_INFO_ENV is read-only and cannot be freed. */
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_free(&env));
    if (env != MPI_INFO_ENV)
        FAIL("a failed MPI_Info_free changed the handle");
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_ENV, "k", "v"));
    EXPECT_ERR(MPI_ERR_INFO, MPI_Info_delete(MPI_INFO_ENV, "command"));
    /* Keys: too long, empty, NULL. */
    memset(key, 'k', sizeof(key));
    {
        char longkey[MPI_MAX_INFO_KEY + 1];
        memset(longkey, 'k', MPI_MAX_INFO_KEY);
        longkey[MPI_MAX_INFO_KEY] = '\0';
        EXPECT_ERR(MPI_ERR_INFO_KEY, MPI_Info_set(info, longkey, "v"));
        EXPECT_ERR(MPI_ERR_INFO_KEY, MPI_Info_get_string(info, longkey, &buflen, buf, &flag));
        EXPECT_ERR(MPI_ERR_INFO_KEY, MPI_Info_delete(info, longkey));
    }
    EXPECT_ERR(MPI_ERR_INFO_KEY, MPI_Info_set(info, "", "v"));
    EXPECT_ERR(MPI_ERR_INFO_KEY, MPI_Info_set(info, NULL, "v"));
    /* Values: too long. */
    memset(buf, 'v', MPI_MAX_INFO_VAL);
    buf[MPI_MAX_INFO_VAL] = '\0';
    EXPECT_ERR(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", buf));
    EXPECT_ERR(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", NULL));
    /* A missing key in delete. */
    EXPECT_ERR(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "absent"));
    /* n out of range, negative lengths, NULL outputs: MPI_ERR_ARG. */
    OK(MPI_Info_set(info, "only", "1"));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 1, key));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Info_get_nthkey(info, -1, key));
    buflen = -1;
    EXPECT_ERR(MPI_ERR_ARG, MPI_Info_get_string(info, "only", &buflen, buf, &flag));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Info_get(info, "only", -1, buf, &flag));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Info_get_nkeys(info, NULL));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Info_create(NULL));
    EXPECT_ERR(MPI_ERR_ARG, MPI_Info_create_env(-1, NULL, &env_copy));
    /* Nothing changed by the failures. */
    {
        const char *const keys[] = {"only"};
        expect_keys(info, 1, keys);
    }
    OK(MPI_Info_free(&info));
}

static void test_env(void)
{
    char cwd[4096], host[256], num[16], *last;
    MPI_Info copy;
    int flag, buflen = sizeof(cwd);
    char *args[] = {"/bin/some_prog", "a", "b c", NULL};

    /* command and argv from main's argc/argv, given to MPI_Init. */
    expect_value(MPI_INFO_ENV, "command", main_argv[0]);
    {
        char joined[MPI_MAX_INFO_VAL] = "";
        for (int i = 1; i < main_argc; i++) {
            if (i > 1)
                strcat(joined, " ");
            strcat(joined, main_argv[i]);
        }
        expect_value(MPI_INFO_ENV, "argv", main_argc > 1 ? joined : NULL);
    }
    snprintf(num, sizeof(num), "%d", size);
    expect_value(MPI_INFO_ENV, "maxprocs", num);
    expect_value(MPI_INFO_ENV, "thread_level", "MPI_THREAD_SINGLE");
    if (getcwd(cwd, sizeof(cwd)) == NULL || gethostname(host, sizeof(host)) != 0)
        FAIL("getcwd or gethostname failed");
    expect_value(MPI_INFO_ENV, "wdir", cwd);
    expect_value(MPI_INFO_ENV, "host", host);
    OK(MPI_Info_get_string(MPI_INFO_ENV, "arch", &buflen, cwd, &flag));
    if (!flag)
        FAIL("MPI_INFO_ENV has no arch");
    last = strrchr(main_argv[0], '/');
    if (strstr(last ? last : main_argv[0], "info") == NULL)
        FAIL("command is %s", main_argv[0]);
    /* MPI_Info_create_env: the same construction from other arguments, a new object. */
    OK(MPI_Info_create_env(3, args, &copy));
    expect_value(copy, "command", "/bin/some_prog");
    expect_value(copy, "argv", "a b c");
    expect_value(copy, "maxprocs", num);
    OK(MPI_Info_set(copy, "extra", "1")); /* writable, unlike MPI_INFO_ENV */
    OK(MPI_Info_free(&copy));
    /* A dup of MPI_INFO_ENV is an ordinary object. */
    OK(MPI_Info_dup(MPI_INFO_ENV, &copy));
    expect_value(copy, "maxprocs", num);
    OK(MPI_Info_delete(copy, "maxprocs"));
    OK(MPI_Info_free(&copy));
    expect_value(MPI_INFO_ENV, "maxprocs", num);
}

/* A message around comm's ring: the communicator works. */
static void ring(MPI_Comm comm)
{
    int n, me, v = -1;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % n, 5, &v, 1, MPI_INT, (me - 1 + n) % n, 5, comm,
                 MPI_STATUS_IGNORE);
    if (v != (me - 1 + n) % n)
        FAIL("ring over the new communicator gave %d", v);
}

static void test_comm_info(void)
{
    MPI_Info hints, used;
    MPI_Comm dup, dup2, split;
    MPI_Info bogus = (MPI_Info)(uintptr_t)&main_argc;
    int nkeys, rc, cls;
    const char *const none[] = {NULL};
    const char *const kept[] = {"mpi_assert_no_any_tag", "mpi_assert_exact_length"};

    OK(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
    expect_keys(used, 0, none);
    OK(MPI_Info_free(&used));
    OK(MPI_Info_create(&hints));
    OK(MPI_Info_set(hints, "mpi_assert_no_any_tag", "true"));
    OK(MPI_Info_set(hints, "unknown_hint", "x"));                 /* ignored, so not returned */
    OK(MPI_Info_set(hints, "mpi_assert_no_any_source", "maybe")); /* not a boolean: ignored */
    OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &dup));
    ring(dup);
    OK(MPI_Comm_get_info(dup, &used));
    expect_keys(used, 1, kept);
    expect_value(used, "mpi_assert_no_any_tag", "true");
    OK(MPI_Info_free(&used));
    /* set_info updates: keys absent from info keep their value. */
    OK(MPI_Info_delete(hints, "mpi_assert_no_any_tag"));
    OK(MPI_Info_set(hints, "mpi_assert_exact_length", "false"));
    OK(MPI_Comm_set_info(dup, hints));
    OK(MPI_Comm_get_info(dup, &used));
    expect_keys(used, 2, kept);
    expect_value(used, "mpi_assert_exact_length", "false");
    OK(MPI_Info_free(&used));
    /* The user's object is independent of the communicator's hints. */
    OK(MPI_Info_free(&hints));
    /* MPI_Comm_dup keeps the hints; get_info gives a new object each time. */
    OK(MPI_Comm_dup(dup, &dup2));
    OK(MPI_Comm_get_info(dup2, &used));
    expect_keys(used, 2, kept);
    OK(MPI_Info_set(used, "mpi_assert_no_any_tag", "false"));
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_get_info(dup2, &used));
    expect_value(used, "mpi_assert_no_any_tag", "true");
    OK(MPI_Info_free(&used));
    ring(dup2);
    /* MPI_INFO_NULL is a valid info argument everywhere. */
    OK(MPI_Comm_set_info(dup2, MPI_INFO_NULL));
    OK(MPI_Comm_dup_with_info(dup2, MPI_INFO_NULL, &split));
    OK(MPI_Comm_get_info(split, &used));
    expect_keys(used, 0, none);
    OK(MPI_Info_free(&used));
    OK(MPI_Comm_free(&split));
    OK(MPI_Comm_split_type(dup2, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &split));
    ring(split);
    OK(MPI_Comm_free(&split));
    OK(MPI_Comm_split_type(dup2, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_ENV, &split));
    OK(MPI_Comm_free(&split));
    /* A handle that is no info object: MPI_ERR_INFO on the communicator of the call. */
    OK(MPI_Comm_set_errhandler(dup2, MPI_ERRORS_RETURN));
    rc = MPI_Comm_split_type(dup2, MPI_COMM_TYPE_SHARED, 0, bogus, &split);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_INFO)
        FAIL("MPI_Comm_split_type with a bogus info gave class %d", cls);
    rc = MPI_Comm_set_info(dup2, bogus);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_INFO)
        FAIL("MPI_Comm_set_info with a bogus info gave class %d", cls);
    rc = MPI_Comm_dup_with_info(dup2, bogus, &split);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_INFO)
        FAIL("MPI_Comm_dup_with_info with a bogus info gave class %d", cls);
    {
        int src = rank, dst = rank, w = 1;
        MPI_Comm g;
        rc = MPI_Dist_graph_create_adjacent(dup2, 1, &src, &w, 1, &dst, &w, bogus, 0, &g);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_INFO)
            FAIL("MPI_Dist_graph_create_adjacent with a bogus info gave class %d", cls);
        rc = MPI_Dist_graph_create(dup2, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, bogus, 0, &g);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_INFO)
            FAIL("MPI_Dist_graph_create with a bogus info gave class %d", cls);
        OK(MPI_Dist_graph_create_adjacent(dup2, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0, &g));
        OK(MPI_Comm_free(&g));
    }
    OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    OK(MPI_Comm_free(&dup2));
    OK(MPI_Comm_free(&dup));
}

/* Many objects, each with rank-specific contents, freed out of order. */
static void test_many(void)
{
    enum { N = 200 };
    MPI_Info infos[N];
    char key[32], val[32];

    for (int i = 0; i < N; i++) {
        OK(MPI_Info_create(&infos[i]));
        for (int k = 0; k <= i % 7; k++) {
            snprintf(key, sizeof(key), "key%d", k);
            snprintf(val, sizeof(val), "%d.%d.%d", rank, i, k);
            OK(MPI_Info_set(infos[i], key, val));
        }
    }
    for (int i = N - 1; i >= 0; i -= 2)
        OK(MPI_Info_free(&infos[i]));
    for (int i = 0; i < N; i += 2) {
        int nkeys;
        OK(MPI_Info_get_nkeys(infos[i], &nkeys));
        if (nkeys != i % 7 + 1)
            FAIL("info %d has %d keys", i, nkeys);
        snprintf(val, sizeof(val), "%d.%d.%d", rank, i, i % 7);
        snprintf(key, sizeof(key), "key%d", i % 7);
        expect_value(infos[i], key, val);
        OK(MPI_Info_free(&infos[i]));
    }
}

static const mpitest_t tests[] = {
    {"basic", test_basic},
    {"get_string", test_get_string},
    {"get_valuelen", test_get_valuelen},
    {"dup", test_dup},
    {"errors", test_errors},
    {"env", test_env},
    {"comm_info", test_comm_info},
    {"many", test_many},
};

int main(int argc, char **argv)
{
    MPI_Info early, leaked;
    MPI_Errhandler eh;

    /* Before MPI_Init (MPI-4.1 Sec. 11.4.1): the object works, and survives MPI_Finalize. */
    OK(MPI_Info_create(&early));
    OK(MPI_Info_set(early, "made", "before init"));
    main_argc = argc;
    main_argv = argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_create_errhandler(count_error, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    expect_value(early, "made", "before init");
    mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argc > 1 ? argv[1] : "all");
    /* Left for MPI_Finalize to free (a leak checker run sees none). */
    OK(MPI_Info_create(&leaked));
    OK(MPI_Info_set(leaked, "leaked", "yes"));
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    /* After MPI_Finalize: the early object is still there; new ones work. */
    expect_value(early, "made", "before init");
    {
        MPI_Info late;
        OK(MPI_Info_create(&late));
        OK(MPI_Info_set(late, "made", "after finalize"));
        expect_value(late, "made", "after finalize");
        OK(MPI_Info_free(&late));
    }
    OK(MPI_Info_free(&early));
    if (rank == 0)
        printf("info: after finalize ok\n");
    return 0;
}
