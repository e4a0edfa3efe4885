/* gpuwatch report --fleet SRC...: parses arguments and wires fleet/ (report_jobs.h). */
#include "cli/commands.h"
#include "cli/report_jobs.h"

#include "fleet/fleet.h"
#include "util/gw_time.h"
#include "util/gw_wrap.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fleet_args {
    const char *json;
    double window_s, step_s;
    long top;
    char **srcs;
    int nsrcs;
} fleet_args;

bool gw_cli_wants_fleet(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--fleet") == 0)
            return true;
    return false;
}

static bool duration_s(const char *arg, double *out)
{
    size_t n = strlen(arg);
    double ms;
    if (n > 1 && arg[n - 1] == 'd') {
        char *end;
        double d = strtod(arg, &end);
        if (end != arg + n - 1 || !(d > 0))
            return false;
        *out = d * 86400.0;
        return true;
    }
    if (!gw_parse_duration_ms(arg, &ms) || !(ms >= 1000))
        return false;
    *out = ms / 1000.0;
    return true;
}

static int parse_args(int argc, char **argv, fleet_args *a)
{
    gw_getopt g; /* report's table: --fleet's options are in it (cmd_report.c) */
    const struct option *opts = gw_getopt_build(&gw_spec_report, &g);
    memset(a, 0, sizeof *a);
    a->window_s = 86400;
    a->step_s = 60;
    a->top = 20;
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        const char *given = argv[optind - 1];
        switch (c) {
        case 'F':
            break;
        case 'j':
            a->json = optarg;
            break;
        case 't':
            a->top = strtol(optarg, &end, 10);
            if (*end || end == optarg || a->top < 0) {
                fprintf(stderr, "gpuwatch: report: --top takes a count (0: all), not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'w':
        case 's':
            if (!duration_s(optarg, c == 'w' ? &a->window_s : &a->step_s)) {
                fprintf(stderr,
                        "gpuwatch: report: %s takes a duration of a second or more such as "
                        "90s, 30m, 6h or 7d, not '%s'\n",
                        c == 'w' ? "--window" : "--step", optarg);
                return 2;
            }
            break;
        case 'h':
            gw_help_print(&gw_spec_report);
            return -1;
        case ':':
            fprintf(stderr, "gpuwatch: report: %s needs a value\n", given);
            return 2;
        case '?':
            fprintf(stderr, "gpuwatch: report: unknown option '%s': see gpuwatch report --help\n",
                    given);
            return 2;
        default:
            fprintf(stderr,
                    "gpuwatch: report: --%s does not go with --fleet: see gpuwatch report "
                    "--help\n",
                    gw_opt_name(&gw_spec_report, c));
            return 2;
        }
    }
    a->srcs = argv + optind;
    a->nsrcs = argc - optind;
    if (a->nsrcs == 0) {
        fprintf(stderr, "gpuwatch: report: --fleet needs a source: a directory of per-job "
                        "summary.json files or a Prometheus URL (http://host:9090)\n");
        return 2;
    }
    if (a->step_s > a->window_s) {
        fprintf(stderr, "gpuwatch: report: --step is longer than --window: give a step below "
                        "the window (e.g. --window 1d --step 60s)\n");
        return 2;
    }
    return 0;
}

/* Whether source i is a URL given before it ("http://p:9090" and "http://p:9090/" alike). */
static bool url_given_before(const fleet_args *a, int i)
{
    size_t n = strlen(a->srcs[i]);
    while (n > 0 && a->srcs[i][n - 1] == '/')
        n--;
    for (int k = 0; k < i; k++) {
        size_t m = strlen(a->srcs[k]);
        while (m > 0 && a->srcs[k][m - 1] == '/')
            m--;
        if (m == n && strncmp(a->srcs[k], a->srcs[i], n) == 0)
            return true;
    }
    return false;
}

int gw_cmd_report_fleet(int argc, char **argv)
{
    fleet_args a;
    int st = parse_args(argc, argv, &a);
    if (st)
        return st < 0 ? 0 : st;
    gw_fleet f;
    gw_fleet_init(&f);
    gw_error err = {0};
    for (int i = 0; i < a.nsrcs; i++) {
        const char *src = a.srcs[i];
        bool url = strstr(src, "://") != NULL;
        if (url && url_given_before(&a, i)) { /* its GPU-hours would count twice */
            fprintf(stderr, "gpuwatch: report: %s is given twice: read once\n", src);
            continue;
        }
        gw_rc rc = url ? gw_fleet_add_prometheus(&f, src, a.window_s, a.step_s, &err)
                       : gw_fleet_add_path(&f, src, &err);
        if (rc) {
            fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
            gw_fleet_free(&f);
            return rc == GW_E_USAGE ? 2 : 1;
        }
    }
    int status = 0;
    if (!a.json || strcmp(a.json, "-") != 0) {
        gw_wrap_stream w;
        gw_fleet_text(gw_wrap_begin(&w, stdout), &f, (size_t)a.top);
        gw_wrap_end(&w);
    }
    if (a.json && gw_fleet_write_json(&f, a.json, &err)) {
        fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
        status = 1;
    }
    gw_fleet_free(&f);
    return status;
}
