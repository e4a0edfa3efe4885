/* `gpuwatch run` and `gpuwatch record`: argument parsing; the work is in run/session.c. */
#include "analysis/epochs.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_args.h"
#include "http/http_server.h"
#include "run/session.h"
#include "stall/stall.h"
#include "util/gw_file.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum {
    OPT_NO_REPORT = 1000,
    OPT_EPOCH_REGEX,
    OPT_STALL_TIMEOUT,
    OPT_LISTEN,
    OPT_SCOPE,
    OPT_NO_PYTHON
};

#define RUN_CONFIG_OPTS                                                                            \
    GW_CONFIG_OPTS("alert rules and hook from FILE, after /etc/gpuwatch/gpuwatch.ini and "         \
                   "~/.config/gpuwatch/gpuwatch.ini (docs/alerts.md)",                             \
                   "RULE.KEY=VALUE", "change one setting (--set memory_warning.threshold=50)"),    \
        GW_ALERT_OPTS
#define RUN_ENV                                                                                    \
    GW_ENV_NVML GW_ENV_CONFIG "TZ\tthe zone of the times printed (the recording is UTC)\n"
#define RUN_FILES                                                                                  \
    GW_FILES_CONFIG "DIR/gpu.csv\tone row per GPU and sample (docs/run-directory.md)\n"            \
                    "DIR/meta.json\tthe run: command, host, GPUs, times, exit status\n"            \
                    "DIR/summary.json, DIR/report.html\tthe report written when it ends\n"

/* The options run and record share, each with its own help (the meaning differs a little). */
#define RUN_OPT_OUTPUT(what)                                                                       \
    {                                                                                              \
        .name = "output", .letter = 'o', .arg = "DIR", .complete = GW_COMPL_DIR,                   \
        .help = "where to record (must not exist; default runs/<UTC time>-" what ")"               \
    }
#define RUN_OPT_INTERVAL(examples)                                                                 \
    {                                                                                              \
        .name = "interval", .letter = 'i', .arg = "SEC",                                           \
        .help = "sampling interval, 0.05 s to 24 h (default 0.5" examples ")"                      \
    }
#define RUN_OPT_NO_REPORT(text)                                                                    \
    {                                                                                              \
        .name = "no-report", .key = OPT_NO_REPORT, .help = text                                    \
    }
#define RUN_OPT_SCOPE(text)                                                                        \
    {                                                                                              \
        .name = "scope", .key = OPT_SCOPE, .arg = "job|node", .complete = GW_COMPL_VALUES,         \
        .values = "job node", .help = text                                                         \
    }
#define RUN_OPT_LISTEN(text)                                                                       \
    {                                                                                              \
        .name = "listen", .key = OPT_LISTEN, .arg = "ADDR", .help = text                           \
    }

static const gw_opt run_opts[] = {
    RUN_OPT_OUTPUT("<name>"),
    RUN_OPT_INTERVAL("; 200ms, 2s, 1m work"),
    {.name = "epoch-regex",
     .key = OPT_EPOCH_REGEX,
     .arg = "RE",
     .help = "how epoch lines look in CMD's output (POSIX ERE, case-insensitive; first number "
             "group: the epoch); by default the bars and lines of tqdm, YOLO, Lightning, Hugging "
             "Face, timm, Keras and \"Epoch 3/100\" are understood (docs/epochs.md)"},
    {.name = "stall-timeout",
     .key = OPT_STALL_TIMEOUT,
     .arg = "SEC",
     .help = "alert job_stalled when CMD prints nothing, its GPUs are idle and its processes use "
             "almost no CPU for this long (default 300; 0 = off)"},
    RUN_OPT_NO_REPORT("skip the analysis when the command ends"),
    RUN_OPT_SCOPE("job (default): the report, the alerts and --listen keep to the job's GPUs "
                  "(CUDA_VISIBLE_DEVICES, Slurm's, or those its processes use); node: the others "
                  "are shown as not this job, never judged, their alerts marked so"),
    RUN_OPT_LISTEN("also serve /metrics for Prometheus on HOST:PORT while CMD runs, as `gpuwatch "
                   "serve` does (127.0.0.1:9400: this host; :9400: all)"),
    {.name = "no-python",
     .key = OPT_NO_PYTHON,
     .help = "leave the job's PYTHONPATH alone: no in-job data (DataLoader step times, settings, "
             "Python stacks; docs/inproc.md). GPUWATCH_PYTHON=0 and [run] python = false do the "
             "same"},
    RUN_CONFIG_OPTS,
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_run = {
    .name = "run",
    .summary = "run a command and record every GPU and its CPU side",
    .synopsis = "gpuwatch run [-o DIR] [-i SEC] [--epoch-regex RE] [--stall-timeout SEC]\n"
                "             [--no-report] [--scope job|node] [--listen ADDR]\n"
                "             [--no-python] [ALERT OPTIONS] [--] CMD [ARGS...]",
    .description =
        "Runs CMD unchanged and records every GPU and the command's CPU side until it exits:\n"
        "gpu.csv, host.csv, processes.csv, events.jsonl, output.log and meta.json in DIR.",
    .opts = run_opts,
    .notes = "When CMD ends: a table per GPU, the report's verdicts, summary.json and report.html "
             "in DIR.",
    .exit_status = "CMD's own (128+N when a signal N killed it), 2 usage error or bad\n"
                   "configuration file, 125 gpuwatch could not start, 126 CMD cannot be executed, "
                   "127 CMD\nnot found.",
    .examples = "gpuwatch run -i 0.2 -- python3 train.py --epochs 10\n"
                "gpuwatch run -o runs/exp1 --listen :9400 -- torchrun train.py",
    .help_example = 1,
    .environment = RUN_ENV "GPUWATCH_RUN_DIR\tset for CMD: the run's directory, where "
                           "`gpuwatch mark` writes\n"
                           "PYTHONPATH\tfor CMD: gpuwatch's sitecustomize directory first "
                           "(docs/inproc.md)\n"
                           "GPUWATCH_PYTHON\t0: no in-job Python data (as --no-python)\n",
    .files = RUN_FILES,
    .getopt_flags = "+", /* stop at CMD: its own flags are left alone */
    .operands = GW_COMPL_COMMAND,
};

static const gw_opt record_opts[] = {
    RUN_OPT_OUTPUT("record"),
    RUN_OPT_INTERVAL(""),
    {.name = "duration",
     .letter = 'd',
     .arg = "SEC",
     .help = "stop after this long (default: until a signal)"},
    RUN_OPT_NO_REPORT("skip the analysis at the end"),
    RUN_OPT_SCOPE("job (default): the report, the alerts and --listen keep to the job's GPUs "
                  "(CUDA_VISIBLE_DEVICES, SLURM_JOB_GPUS, ...); node: all, the others shown as "
                  "not this job and never judged, their alerts marked so"),
    RUN_OPT_LISTEN("also serve /metrics for Prometheus on HOST:PORT (as gpuwatch serve)"),
    RUN_CONFIG_OPTS,
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_record = {
    .name = "record",
    .summary = "record every GPU without a command",
    .synopsis = "gpuwatch record [-o DIR] [-i SEC] [--duration SEC] [--no-report]\n"
                "                [--scope job|node] [--listen ADDR] [ALERT OPTIONS]",
    .description =
        "Records every GPU (and the host's CPU and memory) until SIGINT/SIGTERM (Ctrl-C) "
        "or the\nduration: the same files as `gpuwatch run`, without a command. On a "
        "terminal, one status\nline (samples, duration, disk used) is kept up to date; "
        "SIGUSR1 prints it.",
    .opts = record_opts,
    .exit_status = "0 recorded, 1 gpuwatch could not record, 2 usage error or bad\nconfiguration "
                   "file.",
    .examples = "gpuwatch record -o runs/node1 --duration 1h",
    .environment = RUN_ENV,
    .files = RUN_FILES,
    .getopt_flags = "+",
};

static int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "gpuwatch %s: %s; see gpuwatch %s --help\n", cmd, msg, cmd);
    return 2;
}

/* Reads gpuwatch.ini and the flags that change it; a bad file is a usage error (2). */
static int run_with_config(const gw_session_config *cfg, const gw_config_args *ca, const char *name)
{
    gw_config conf;
    gw_config_init(&conf);
    gw_error err = {0};
    int status = 2;
    if (gw_config_args_load(ca, &conf, &err)) {
        fprintf(stderr, "gpuwatch %s: %s\n", name, err.msg);
    } else {
        gw_session_config with_alerts = *cfg;
        with_alerts.alerts = &conf.alerts;
        with_alerts.python_config_off = !conf.run_python;
        status = gw_session_main(&with_alerts);
    }
    gw_config_free(&conf);
    return status;
}

/* An option this command does not take: the other command's, or none at all. */
static int unknown_option(const gw_cmd_spec *spec, const gw_cmd_spec *other, const char *given)
{
    char msg[128];
    if (gw_opt_find(other, given) && !gw_opt_find(spec, given))
        snprintf(msg, sizeof msg, "%.*s is for `gpuwatch %s`", (int)strcspn(given, "="), given,
                 other->name);
    else if (optopt)
        snprintf(msg, sizeof msg, "unknown option '-%c' or missing value", optopt);
    else
        snprintf(msg, sizeof msg, "unknown option '%s' or missing value", given);
    return usage_error(spec->name, msg);
}

static int parse_and_run(int argc, char **argv, bool is_run)
{
    const gw_cmd_spec *spec = is_run ? &gw_spec_run : &gw_spec_record;
    const gw_cmd_spec *other = is_run ? &gw_spec_record : &gw_spec_run;
    const char *name = spec->name;
    gw_getopt g;
    const struct option *opts = gw_getopt_build(spec, &g);
    gw_session_config cfg = {.is_run = is_run,
                             .interval_ms = GW_INTERVAL_DEFAULT_MS,
                             .stall_timeout_ms = GW_STALL_TIMEOUT_DEFAULT_MS};
    gw_config_args ca = {0};
    gw_error err = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        int taken = gw_config_args_take(&ca, c, argc, argv, &err);
        if (taken < 0)
            return usage_error(name, err.msg);
        if (taken)
            continue;
        switch (c) {
        case 'o':
            cfg.out_dir = gw_path_tidy(optarg);
            break;
        case 'i':
            if (gw_args_interval("-i", optarg, &cfg.interval_ms, &err))
                return usage_error(name, err.msg);
            break;
        case 'd':
            if (gw_args_duration("--duration", optarg, &cfg.duration_ms, &err))
                return usage_error(name, err.msg);
            break;
        case OPT_NO_REPORT:
            cfg.no_report = true;
            break;
        case OPT_NO_PYTHON:
            cfg.no_python = true;
            break;
        case OPT_EPOCH_REGEX: {
            gw_epoch_matcher *m = NULL;
            if (gw_epoch_matcher_new(optarg, &m, &err))
                return usage_error(name, err.msg);
            gw_epoch_matcher_free(m);
            cfg.epoch_regex = optarg;
            break;
        }
        case OPT_LISTEN: {
            struct sockaddr_storage ss;
            socklen_t len = 0;
            if (gw_http_parse_listen(optarg, &ss, &len, &err))
                return usage_error(name, err.msg);
            cfg.listen = optarg;
            break;
        }
        case OPT_STALL_TIMEOUT:
            if (gw_args_timeout("--stall-timeout", optarg, &cfg.stall_timeout_ms, &err))
                return usage_error(name, err.msg);
            break;
        case OPT_SCOPE:
            if (strcmp(optarg, "job") != 0 && strcmp(optarg, "node") != 0)
                return usage_error(name, "--scope takes job or node");
            cfg.scope_node = strcmp(optarg, "node") == 0;
            break;
        case 'h':
            gw_help_print(spec);
            return 0;
        default:
            return unknown_option(spec, other, argv[optind - 1]);
        }
    }
    if (is_run) {
        if (optind >= argc)
            return usage_error(name, "no command given: gpuwatch run [OPTIONS] -- CMD [ARGS...]");
        cfg.argc = argc - optind;
        cfg.argv = argv + optind;
    } else if (optind < argc) {
        return usage_error(name, "record takes no command: use `gpuwatch run -- CMD` to wrap one");
    }
    return run_with_config(&cfg, &ca, name);
}

int gw_cmd_run(int argc, char **argv)
{
    return parse_and_run(argc, argv, true);
}

int gw_cmd_record(int argc, char **argv)
{
    return parse_and_run(argc, argv, false);
}
