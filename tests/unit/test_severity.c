/* Unit tests for the one severity scale (util/gw_severity.h): its words, that check and the
 * report use them, that the config parser takes an alert's severity as one of them, and the one
 * mapping between live alerts and the report (docs/alerts.md, "One scale, one set of levels"). */
#include "test_helpers.h"

#include "alerts/rules.h"
#include "analysis/registry.h"
#include "analysis/thresholds.h"
#include "config/config.h"
#include "health/health.h"

static void test_words_and_order(void **state)
{
    (void)state;
    assert_true(GW_SEV_INFO < GW_SEV_WARNING && GW_SEV_WARNING < GW_SEV_CRITICAL);
    const char *words[] = {"info", "warning", "critical"};
    for (int i = 0; i < 3; i++) {
        assert_string_equal(gw_severity_name((gw_severity)i), words[i]);
        assert_int_equal(gw_severity_parse(words[i]), i);
    }
    assert_string_equal(gw_severity_name((gw_severity)3), "unknown");
    assert_int_equal(gw_severity_parse("Critical"), -1);
    assert_int_equal(gw_severity_parse("ok"), -1);
}

/* check's findings are the scale's warning and critical; its other states are no finding. */
static void test_check_speaks_the_scale(void **state)
{
    (void)state;
    assert_int_equal(gw_health_severity(GW_HEALTH_WARNING), GW_SEV_WARNING);
    assert_int_equal(gw_health_severity(GW_HEALTH_CRITICAL), GW_SEV_CRITICAL);
    assert_string_equal(gw_health_state_name(GW_HEALTH_WARNING), "warning");
    assert_string_equal(gw_health_state_name(GW_HEALTH_CRITICAL), "critical");
    gw_health_state none[] = {GW_HEALTH_OK, GW_HEALTH_NA, GW_HEALTH_UNKNOWN};
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(gw_health_severity(none[i]), GW_SEV_INFO);
    assert_string_equal(gw_health_state_name(GW_HEALTH_UNKNOWN), "unknown");
}

/* memory_warning / memory_critical fire where memory_near_capacity turns warning / critical,
 * and resolve where the level below begins. */
static void test_memory_alerts_use_the_reports_levels(void **state)
{
    (void)state;
    gw_alerts_config cfg;
    gw_alerts_config_defaults(&cfg);
    const gw_alert_rule *w = gw_alerts_config_find(&cfg, "memory_warning");
    const gw_alert_rule *c = gw_alerts_config_find(&cfg, "memory_critical");
    assert_non_null(w);
    assert_non_null(c);
    assert_int_equal(w->severity, GW_SEV_WARNING);
    assert_int_equal(c->severity, GW_SEV_CRITICAL);
    assert_true(w->threshold == GW_TH(GW_TH_MEM_CAPACITY_PCT) && w->threshold == 92);
    assert_true(c->threshold == GW_TH(GW_TH_MEM_CAPACITY_CRIT_PCT) && c->threshold == 98);
    assert_true(c->clear == w->threshold);
    assert_int_equal(c->trend, GW_TREND_NONE);
    assert_int_equal(c->duration_ms, 0);
    /* the verdict's default severity in the registry is the warning rule's */
    assert_int_equal(gw_verdict_def_of(GW_V_MEMORY_NEAR_CAPACITY)->severity, w->severity);
    gw_alerts_config_clear(&cfg);
}

/* An alert is for action: a rule may be warning or critical, not info. */
static void test_a_rule_is_warning_or_critical(void **state)
{
    (void)state;
    gw_config c;
    gw_error err = {0};
    gw_config_init(&c);
    assert_int_equal(gw_config_set(&c, "temp_warning.severity=critical", &err), GW_OK);
    assert_int_equal(gw_alerts_config_find(&c.alerts, "temp_warning")->severity, GW_SEV_CRITICAL);
    assert_int_equal(gw_config_set(&c, "temp_warning.severity=info", &err), GW_E_FORMAT);
    assert_non_null(strstr(err.msg, "give warning or critical"));
    gw_config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_and_order),
        cmocka_unit_test(test_check_speaks_the_scale),
        cmocka_unit_test(test_memory_alerts_use_the_reports_levels),
        cmocka_unit_test(test_a_rule_is_warning_or_critical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
