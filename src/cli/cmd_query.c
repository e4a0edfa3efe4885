/* `gpuwatch query`: nvidia-smi's --query-gpu command line; the work is in query/query.c. */
#include "cli/args.h"
#include "cli/commands.h"
#include "query/query.h"
#include "util/gw_wrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char query_usage[] =
    "usage: gpuwatch query --query-gpu=FIELD[,FIELD...] --format=csv[,noheader][,nounits]\n"
    "                      [-l SEC | -lms MS] [-i ID[,ID...]] [-f FILE]\n"
    "\n"
    "nvidia-smi's --query-gpu mode, with nvidia-smi's output: scripts written for\n"
    "`nvidia-smi --query-gpu` work unchanged with `gpuwatch query`, at a fraction of the cost.\n"
    "\n"
    "  --query-gpu=FIELDS    what to print, one column each (--help-query-gpu lists them)\n"
    "  --format=csv[,noheader][,nounits]  csv is required; noheader drops the header line,\n"
    "                        nounits the units after values (\"98\" instead of \"98 %\")\n"
    "  -l, --loop=SEC        print a row per GPU every SEC seconds until Ctrl-C (default 5)\n"
    "  -lms, --loop-ms=MS    the same in milliseconds (50 or more)\n"
    "  -i, --id=ID,...       only these GPUs: indexes, UUIDs or PCI bus ids\n"
    "  -f, --filename=FILE   write to FILE instead of stdout\n"
    "  --help-query-gpu      the fields, with what each means\n"
    "\n"
    "Exit status: 0, 1 NVML unusable / no GPU / cannot write, 2 usage error (unknown field).\n"
    "Example: gpuwatch query --query-gpu=index,utilization.gpu --format=csv -lms 500\n";

typedef struct qargs {
    gw_query_config cfg;
    const char *fields;
    const char *format;
} qargs;

static int usage_error(const char *msg)
{
    fprintf(stderr, "gpuwatch query: %s; see gpuwatch query --help\n", msg);
    return 2;
}

/* The value of option `arg` at argv[*i] when it is `name` ("--name=V", "--name V", "-x V"), else
 * NULL. *missing is set when the option matched but had no value. */
static const char *option(int argc, char **argv, int *i, const char *lname, const char *sname,
                          bool *missing)
{
    const char *arg = argv[*i];
    size_t n = strlen(lname);
    if (strncmp(arg, lname, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    if (strcmp(arg, lname) != 0 && !(sname && strcmp(arg, sname) == 0))
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_format(const char *spec, qargs *a)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", spec);
    bool csv = false;
    char *save = NULL;
    a->format = spec;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "csv") == 0)
            csv = true;
        else if (strcmp(t, "noheader") == 0)
            a->cfg.noheader = true;
        else if (strcmp(t, "nounits") == 0)
            a->cfg.nounits = true;
        else
            return usage_error(
                "--format takes csv, noheader and nounits, e.g. --format=csv,nounits");
    }
    return csv ? 0 : usage_error("--format must include csv (the only format): --format=csv");
}

static int parse_loop_ms(const char *v, qargs *a)
{
    char *end = NULL;
    errno = 0;
    long long ms = strtoll(v, &end, 10);
    if (errno || end == v || *end || ms < GW_INTERVAL_MIN_MS || ms > GW_INTERVAL_MAX_MS)
        return usage_error("-lms takes whole milliseconds from 50 to 86400000 (e.g. -lms 100)");
    a->cfg.interval_ms = ms;
    return 0;
}

/* One argument (and its value); returns -1 when handled, else an exit status. */
static int parse_one(int argc, char **argv, int *i, qargs *a)
{
    bool missing = false;
    const char *v;
    gw_error err = {0};
    if ((v = option(argc, argv, i, "--query-gpu", NULL, &missing)))
        a->fields = v;
    else if ((v = option(argc, argv, i, "--format", NULL, &missing)))
        return parse_format(v, a) ? 2 : -1;
    else if ((v = option(argc, argv, i, "--loop-ms", "-lms", &missing)))
        return parse_loop_ms(v, a) ? 2 : -1;
    else if ((v = option(argc, argv, i, "--id", "-i", &missing)))
        a->cfg.ids = v;
    else if ((v = option(argc, argv, i, "--filename", "-f", &missing)))
        a->cfg.out_path = v;
    else if (strcmp(argv[*i], "-l") == 0 && (*i + 1 >= argc || argv[*i + 1][0] == '-'))
        a->cfg.interval_ms = 5000; /* nvidia-smi's default loop */
    else if ((v = option(argc, argv, i, "--loop", "-l", &missing))) {
        if (gw_args_interval("-l", v, &a->cfg.interval_ms, &err))
            return usage_error(err.msg);
    } else if (missing) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s needs a value", argv[*i]);
        return usage_error(msg);
    } else {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown option '%.80s'", argv[*i]);
        return usage_error(msg);
    }
    return -1;
}

int gw_cmd_query(int argc, char **argv)
{
    qargs a = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help-query-gpu") == 0) {
            gw_buf help = {0};
            gw_qfields_help(&help);
            gw_wrap_write(stdout, help.data, help.len, GW_WRAP_WIDTH);
            gw_buf_free(&help);
            return 0;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            gw_cli_help(query_usage);
            return 0;
        }
        int rc = parse_one(argc, argv, &i, &a);
        if (rc >= 0)
            return rc;
    }
    if (!a.fields)
        return usage_error("--query-gpu=FIELDS is required (gpuwatch query --help-query-gpu)");
    if (!a.format)
        return usage_error("--format=csv is required (add noheader / nounits as needed)");
    gw_error err = {0};
    if (gw_qfields_parse(a.fields, &a.cfg.fields, &a.cfg.field_count, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    int rc = gw_query_main(&a.cfg);
    free((void *)a.cfg.fields);
    return rc;
}
