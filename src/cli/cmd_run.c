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

#define ALERT_USAGE                                                                                \
    "      --config FILE   alert rules and hook from FILE, after /etc/gpuwatch/gpuwatch.ini\n"     \
    "                    and ~/.config/gpuwatch/gpuwatch.ini (docs/alerts.md)\n"                   \
    "      --set RULE.KEY=VALUE  change one setting (--set memory_warning.threshold=50)\n"         \
    "      --no-alerts     no alert rules\n"                                                       \
    "      --on-alert CMD [ARGS...] ';'  run CMD (no shell) when an alert fires or resolves,\n"    \
    "                    with GPUWATCH_ALERT, _SEVERITY, _GPU, _VALUE, _THRESHOLD, _STATE set\n"   \
    "      --on-alert-timeout SEC  kill the hook after this long (default 10)\n"

static const char run_usage[] =
    "usage: gpuwatch run [-o DIR] [-i SEC] [--epoch-regex RE] [--stall-timeout SEC]\n"
    "                    [--no-report] [--scope job|node] [--listen ADDR] [ALERT OPTIONS]\n"
    "                    [--] CMD [ARGS...]\n"
    "\n"
    "Runs CMD unchanged and records every GPU and the command's CPU side until it exits:\n"
    "gpu.csv, host.csv, processes.csv, events.jsonl, output.log and meta.json in DIR.\n"
    "\n"
    "  -o, --output DIR    where to record (must not exist; default runs/<UTC time>-<name>)\n"
    "  -i, --interval SEC  sampling interval, 0.05 s to 24 h (default 0.5; 200ms, 2s, 1m work)\n"
    "      --epoch-regex RE  how epoch lines look in CMD's output (POSIX ERE, case-insensitive;\n"
    "                    first number group: the epoch); by default the bars and\n"
    "                    lines of tqdm, YOLO, Lightning, Hugging Face, timm, Keras\n"
    "                    and \"Epoch 3/100\" are understood (docs/epochs.md)\n"
    "      --stall-timeout SEC  alert job_stalled when CMD prints nothing, its GPUs are idle and\n"
    "                    its processes use almost no CPU for this long (default 300; 0 = off)\n"
    "      --no-report     skip the analysis when the command ends\n"
    "      --scope job|node  job (default): the report judges and shows only the job's GPUs\n"
    "                    (CUDA_VISIBLE_DEVICES, Slurm's, or those its processes use);\n"
    "                    node: the others are shown as not this job, never judged\n"
    "      --listen ADDR   also serve /metrics for Prometheus on HOST:PORT while CMD runs,\n"
    "                    as `gpuwatch serve` does (127.0.0.1:9400: this host; :9400: "
    "all)\n" ALERT_USAGE "  -h, --help          this text\n"
    "\n"
    "When CMD ends: a table per GPU, the report's verdicts, summary.json and report.html in DIR.\n"
    "Exit status: CMD's own (128+N when a signal N killed it), 2 usage error or bad\n"
    "configuration file, 125 gpuwatch could not start, 126 CMD cannot be executed, 127 CMD\n"
    "not found.\n"
    "Example: gpuwatch run -i 0.2 -- python3 train.py --epochs 10\n";

static const char record_usage[] =
    "usage: gpuwatch record [-o DIR] [-i SEC] [--duration SEC] [--no-report] [--listen ADDR]\n"
    "                       [--scope job|node] [ALERT OPTIONS]\n"
    "\n"
    "Records every GPU (and the host's CPU and memory) until SIGINT/SIGTERM (Ctrl-C) or the\n"
    "duration: the same files as `gpuwatch run`, without a command. On a terminal, one status\n"
    "line (samples, duration, disk used) is kept up to date; SIGUSR1 prints it.\n"
    "\n"
    "  -o, --output DIR    where to record (must not exist; default runs/<UTC time>-record)\n"
    "  -i, --interval SEC  sampling interval, 0.05 s to 24 h (default 0.5)\n"
    "  -d, --duration SEC  stop after this long (default: until a signal)\n"
    "      --no-report     skip the analysis at the end\n"
    "      --scope job|node  job (default): the report keeps to the job's GPUs\n"
    "                    (CUDA_VISIBLE_DEVICES, SLURM_JOB_GPUS, ...); node: all, the\n"
    "                    others shown as not this job and never judged\n"
    "      --listen ADDR   also serve /metrics for Prometheus on HOST:PORT (as gpuwatch "
    "serve)\n" ALERT_USAGE "  -h, --help          this text\n"
    "\n"
    "Exit status: 0 recorded, 1 gpuwatch could not record, 2 usage error or bad\n"
    "configuration file.\n";

enum { OPT_NO_REPORT = 1000, OPT_EPOCH_REGEX, OPT_STALL_TIMEOUT, OPT_LISTEN, OPT_SCOPE };

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
        status = gw_session_main(&with_alerts);
    }
    gw_config_free(&conf);
    return status;
}

static int parse_and_run(int argc, char **argv, bool is_run)
{
    const char *usage = is_run ? run_usage : record_usage;
    const char *name = is_run ? "run" : "record";
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"interval", required_argument, NULL, 'i'},
        {"duration", required_argument, NULL, 'd'},
        {"no-report", no_argument, NULL, OPT_NO_REPORT},
        {"epoch-regex", required_argument, NULL, OPT_EPOCH_REGEX},
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"stall-timeout", required_argument, NULL, OPT_STALL_TIMEOUT},
        {"scope", required_argument, NULL, OPT_SCOPE},
        {"help", no_argument, NULL, 'h'},
        GW_CONFIG_LONG_OPTIONS,
        GW_ALERT_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    gw_session_config cfg = {.is_run = is_run,
                             .interval_ms = GW_INTERVAL_DEFAULT_MS,
                             .stall_timeout_ms = GW_STALL_TIMEOUT_DEFAULT_MS};
    gw_config_args ca = {0};
    gw_error err = {0};
    optind = 1;
    opterr = 0;
    int c;
    /* '+': stop at the first non-option, so CMD's own flags are left alone. */
    while ((c = getopt_long(argc, argv, is_run ? "+o:i:h" : "+o:i:d:h", opts, NULL)) != -1) {
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
            if (is_run)
                return usage_error(name, "--duration is for `gpuwatch record`");
            if (gw_args_duration("--duration", optarg, &cfg.duration_ms, &err))
                return usage_error(name, err.msg);
            break;
        case OPT_NO_REPORT:
            cfg.no_report = true;
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
            if (!is_run)
                return usage_error(name, "--stall-timeout is for `gpuwatch run`");
            if (gw_args_timeout("--stall-timeout", optarg, &cfg.stall_timeout_ms, &err))
                return usage_error(name, err.msg);
            break;
        case OPT_SCOPE:
            if (strcmp(optarg, "job") != 0 && strcmp(optarg, "node") != 0)
                return usage_error(name, "--scope takes job or node");
            cfg.scope_node = strcmp(optarg, "node") == 0;
            break;
        case 'h':
            gw_cli_help(usage);
            return 0;
        default: {
            char msg[128];
            if (optopt)
                snprintf(msg, sizeof msg, "unknown option '-%c' or missing value", optopt);
            else
                snprintf(msg, sizeof msg, "unknown option '%s' or missing value", argv[optind - 1]);
            return usage_error(name, msg);
        }
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
