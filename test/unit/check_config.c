/* Knob parsing: values of every type, bad values rejected, unknown names get a suggestion. */
#include <check.h>
#include "vbt_check.h"
#include <stdlib.h>
#include <string.h>

#include "vbt_config.h"
#include "vbt_log.h"

START_TEST(test_parse_sizes)
{
    int64_t v;
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "4096", &v), VBT_OK);
    ck_assert_int_eq(v, 4096);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "64k", &v), VBT_OK);
    ck_assert_int_eq(v, 65536);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "2M", &v), VBT_OK);
    ck_assert_int_eq(v, 2 << 20);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "1gb", &v), VBT_OK);
    ck_assert_int_eq(v, 1 << 30);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "0x100", &v), VBT_OK);
    ck_assert_int_eq(v, 256);
}
END_TEST

START_TEST(test_parse_rejects)
{
    int64_t v = 42;
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "", &v), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "12q", &v), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "-1", &v), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_SIZE, "99999999999g", &v),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_INT, "5k", &v), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_BOOL, "maybe", &v), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_LOG_LEVEL, "loud", &v), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(v, 42); /* outputs are set only on success */
}
END_TEST

START_TEST(test_parse_bool_and_level)
{
    int64_t v;
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_BOOL, "yes", &v), VBT_OK);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_BOOL, "0", &v), VBT_OK);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(vbt_config_parse_value(VBT_KNOB_LOG_LEVEL, "DEBUG", &v), VBT_OK);
    ck_assert_int_eq(v, VBT_LOG_DEBUG);
}
END_TEST

START_TEST(test_closest)
{
    ck_assert_str_eq(vbt_config_closest("VBT_LOGG"), "VBT_LOG");
    ck_assert_str_eq(vbt_config_closest("VBT_CCC"), "VBT_CC");
    ck_assert_ptr_null(vbt_config_closest("VBT_SOMETHING_ELSE_ENTIRELY"));
}
END_TEST

START_TEST(test_load_env)
{
    setenv("VBT_LOG", "info", 1);
    ck_assert_int_eq(vbt_config_load(), VBT_OK);
    ck_assert_int_eq(vbt_cfg.log_level, VBT_LOG_INFO);
    ck_assert_int_eq(vbt_log_level, VBT_LOG_INFO);
    setenv("VBT_LOG", "shouting", 1);
    ck_assert_int_eq(vbt_config_load(), VBT_ERR_INVALID_PARAM);
    unsetenv("VBT_LOG");
    ck_assert_int_eq(vbt_config_load(), VBT_OK);
    ck_assert_int_eq(vbt_cfg.log_level, VBT_LOG_WARN);
}
END_TEST

START_TEST(test_table_is_sane)
{
    size_t n;
    const vbt_knob_t *k = vbt_config_knobs(&n);
    ck_assert_uint_gt(n, 0);
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        ck_assert_msg(strncmp(k[i].name, "VBT_", 4) == 0, "%s lacks the VBT_ prefix", k[i].name);
        ck_assert_msg(k[i].help && *k[i].help, "%s has no help", k[i].name);
        ck_assert_msg(vbt_config_parse_value(k[i].type, k[i].default_value, &v) == VBT_OK,
                      "default of %s does not parse", k[i].name);
        for (size_t j = i + 1; j < n; j++)
            ck_assert_str_ne(k[i].name, k[j].name);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("parse");

    tcase_add_test(tc, test_parse_sizes);
    tcase_add_test(tc, test_parse_rejects);
    tcase_add_test(tc, test_parse_bool_and_level);
    tcase_add_test(tc, test_closest);
    tcase_add_test(tc, test_load_env);
    tcase_add_test(tc, test_table_is_sane);
    suite_add_tcase(s, tc);
    return vbt_check_run(s);
}
