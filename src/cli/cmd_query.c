/* `gpuwatch query`: nvidia-smi's --query-gpu command line; the work is in query/query.c. */
#include "cli/args.h"
#include "cli/commands.h"
#include "query/query.h"
#include "util/gw_wrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_QUERY_GPU = 1000, OPT_FORMAT, OPT_LOOP_MS, OPT_HELP_QUERY_GPU };

/* nvidia-smi's spellings: "--query-gpu=F" or "--query-gpu F", "-l SEC", "-lms MS" (parse_one). */
static const gw_opt query_opts[] = {
    {.name = "query-gpu",
     .key = OPT_QUERY_GPU,
     .arg = "=FIELDS",
     .complete = GW_COMPL_FIELDS,
     .help = "what to print, one column each (--help-query-gpu lists them)"},
    {.name = "format",
     .key = OPT_FORMAT,
     .arg = "=FORMAT",
     .complete = GW_COMPL_LIST,
     .values = "csv noheader nounits",
     .help = "csv[,noheader][,nounits]: csv is required; noheader drops the header line, nounits "
             "the units after values "
             "(\"98\" instead of \"98 %\")"},
    {.name = "loop",
     .letter = 'l',
     .arg = "=SEC",
     .help = "print a row per GPU every SEC seconds until Ctrl-C (default 5)"},
    {.name = "loop-ms",
     .key = OPT_LOOP_MS,
     .alt = "-lms",
     .arg = "=MS",
     .help = "the same in milliseconds (50 or more)"},
    {.name = "id",
     .letter = 'i',
     .arg = "=ID,...",
     .help = "only these GPUs: indexes, UUIDs or PCI bus ids"},
    {.name = "filename",
     .letter = 'f',
     .arg = "=FILE",
     .complete = GW_COMPL_FILE,
     .help = "write to FILE instead of stdout"},
    {.name = "help-query-gpu",
     .key = OPT_HELP_QUERY_GPU,
     .help = "the fields, with what each means"},
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_query = {
    .name = "query",
    .summary = "nvidia-smi --query-gpu compatible CSV (gpuwatch query --help)",
    .synopsis = "gpuwatch query --query-gpu=FIELD[,FIELD...]\n"
                "               --format=csv[,noheader][,nounits]\n"
                "               [-l SEC | -lms MS] [-i ID[,ID...]] [-f FILE]",
    .description =
        "nvidia-smi's --query-gpu mode, with nvidia-smi's output: scripts written for\n"
        "`nvidia-smi --query-gpu` work unchanged with `gpuwatch query`, at a fraction of the cost.",
    .opts = query_opts,
    .exit_status = "0, 1 NVML unusable / no GPU / cannot write, 2 usage error (unknown field).",
    .examples = "gpuwatch query --query-gpu=index,utilization.gpu --format=csv -lms 500\n"
                "gpuwatch query --query-gpu=name,memory.used --format=csv,noheader,nounits",
    .help_example = 1,
    .environment = GW_ENV_NVML,
};

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

static int print_fields(void)
{
    gw_buf help = {0};
    gw_qfields_help(&help);
    gw_wrap_write(stdout, help.data, help.len, GW_WRAP_WIDTH);
    gw_buf_free(&help);
    return 0;
}

/* One argument (and its value); returns -1 when handled, else an exit status. */
static int parse_one(int argc, char **argv, int *i, qargs *a)
{
    const char *arg = argv[*i];
    const gw_opt *o = gw_opt_find(&gw_spec_query, arg);
    char msg[160];
    if (!o) {
        snprintf(msg, sizeof msg, "unknown option '%.80s'", arg);
        return usage_error(msg);
    }
    const char *v = NULL;
    const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
    if (!o->arg) {
        v = NULL;
    } else if (eq) {
        v = eq + 1;
    } else if (strcmp(arg, "-l") == 0 && (*i + 1 >= argc || argv[*i + 1][0] == '-')) {
        a->cfg.interval_ms = 5000; /* nvidia-smi's default loop */
        return -1;
    } else if (*i + 1 < argc) {
        v = argv[++*i];
    } else {
        snprintf(msg, sizeof msg, "%s needs a value", arg);
        return usage_error(msg);
    }
    gw_error err = {0};
    switch (gw_opt_key(o)) {
    case OPT_QUERY_GPU:
        a->fields = v;
        return -1;
    case OPT_FORMAT:
        return parse_format(v, a) ? 2 : -1;
    case OPT_LOOP_MS:
        return parse_loop_ms(v, a) ? 2 : -1;
    case 'l':
        return gw_args_interval("-l", v, &a->cfg.interval_ms, &err) ? usage_error(err.msg) : -1;
    case 'i':
        a->cfg.ids = v;
        return -1;
    case 'f':
        a->cfg.out_path = v;
        return -1;
    case OPT_HELP_QUERY_GPU:
        return print_fields();
    default: /* 'h' */
        gw_help_print(&gw_spec_query);
        return 0;
    }
}

int gw_cmd_query(int argc, char **argv)
{
    qargs a = {0};
    for (int i = 1; i < argc; i++) {
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
