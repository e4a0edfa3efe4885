/* `gpuwatch serve`: argument parsing and the daemon's life; the pages are in serve/exporter.c. */
#include "cli/args.h"
#include "cli/commands.h"
#include "util/gw_fmt.h"
#include "util/gw_wrap.h"
#include "events/events.h"
#include "k8s/pod_watch.h"
#include "prom/prom_text.h"
#include "sampler/sampler.h"
#include "serve/exporter.h"

#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_PER_PROCESS = 1000,
    OPT_CMDLINE,
    OPT_MAX_CONN,
    OPT_PER_IP,
    OPT_TIMEOUT,
    OPT_KUBERNETES,
    OPT_PODRES_SOCKET,
    OPT_JOB_DIR
};

static const gw_opt serve_opts[] = {
    {.name = "listen",
     .letter = 'l',
     .arg = "ADDR",
     .help = "HOST:PORT to serve on (default 127.0.0.1:9400, this host only; :9400 for every "
             "interface, [::1]:9400 for IPv6, port 0 picks one)"},
    {.name = "interval",
     .letter = 'i',
     .arg = "SEC",
     .help = "sampling interval, 0.05 s to 24 h (default 1; 500ms, 2s, 1m work)"},
    {.name = "per-process",
     .key = OPT_PER_PROCESS,
     .help = "also GPU memory per process name (gpuwatch_process_memory_used_bytes)"},
    {.name = "cmdline",
     .key = OPT_CMDLINE,
     .help = "label those series with the command line too (may expose arguments)"},
    {.name = "max-connections",
     .key = OPT_MAX_CONN,
     .arg = "N",
     .help = "connections at once (512); a new one beyond closes the one idle longest"},
    {.name = "max-connections-per-ip",
     .key = OPT_PER_IP,
     .arg = "N",
     .help = "the same, for one client address (half of --max-connections: 256)"},
    {.name = "client-timeout",
     .key = OPT_TIMEOUT,
     .arg = "SEC",
     .help = "deadline to send a request and get the answer (10)"},
    {.name = "kubernetes",
     .key = OPT_KUBERNETES,
     .help = "label each GPU's series with the pod, namespace and container the kubelet gave it "
             "to, and serve gpuwatch_gpu_allocated (docs/kubernetes.md)"},
    {.name = "pod-resources-socket",
     .key = OPT_PODRES_SOCKET,
     .arg = "PATH",
     .complete = GW_COMPL_FILE,
     .help = "the kubelet's pod-resources socket (default "
             "/var/lib/kubelet/pod-resources/kubelet.sock; unix://PATH also)"},
    {.name = "hpc-job-mapping-dir",
     .key = OPT_JOB_DIR,
     .arg = "DIR",
     .complete = GW_COMPL_DIR,
     .help = "label each GPU's series with hpc_job from DIR's file per GPU index (as "
             "dcgm-exporter; also DCGM_HPC_JOB_MAPPING_DIR), and serve gpuwatch_job_info "
             "(docs/slurm.md)"},
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_serve = {
    .name = "serve",
    .summary = "serve every GPU's values to Prometheus (dcgm-exporter's names)",
    .synopsis = "gpuwatch serve [--listen ADDR] [-i SEC] [--per-process [--cmdline]]\n"
                "               [--max-connections N] [--max-connections-per-ip N]\n"
                "               [--client-timeout SEC] [--hpc-job-mapping-dir DIR]\n"
                "               [--kubernetes [--pod-resources-socket PATH]]",
    .description =
        "Serves every GPU's values to Prometheus on http://ADDR/metrics, with dcgm-exporter's "
        "metric\nnames and labels (Grafana dashboard 12239 works unchanged), until SIGTERM or "
        "Ctrl-C.\nSampling runs on its own schedule; a scrape reads the latest sample and never "
        "calls NVML.",
    .opts = serve_opts,
    .notes = "Pages: /metrics (Prometheus text, or OpenMetrics when asked), /healthz (200 while "
             "samples\nare fresh, else 503), / (links).",
    .exit_status = "0 stopped by a signal, 1 could not serve\n(address in use, NVML), 2 usage "
                   "error.",
    .examples = "gpuwatch serve --listen :9400 -i 1\ngpuwatch serve --per-process",
    .help_example = 1,
    .environment = GW_ENV_NVML "DCGM_HPC_JOB_MAPPING_DIR\tthe job mapping directory when "
                               "--hpc-job-mapping-dir is not given\n",
    .files = "/usr/lib/systemd/system/gpuwatch.service\tthe unit that runs `gpuwatch serve` (from "
             "the package; /usr/local/lib/... from `cmake --install`)\n",
};

static int usage_error(const char *msg, bool show_usage)
{
    fprintf(stderr, "gpuwatch serve: %s%s\n", msg, show_usage ? "; see gpuwatch serve --help" : "");
    return 2;
}

/* Parses a positive whole number no larger than max; false when s is not one. */
static bool parse_count(const char *s, unsigned max, unsigned *out)
{
    char *end = NULL;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v == 0 || v > max || s[0] == '-')
        return false;
    *out = (unsigned)v;
    return true;
}

/* Returns -1 when parsing succeeded, else the exit status. */
static int parse(int argc, char **argv, gw_exporter_config *cfg, gw_pod_watch_config *kube,
                 bool *kubernetes)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_serve, &g);
    gw_error err = {0};
    int64_t ms = 0;
    optind = 1;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1;) {
        switch (c) {
        case 'l':
            cfg->listen = optarg;
            break;
        case 'i':
            if (gw_args_interval("-i", optarg, &cfg->interval_ms, &err))
                return usage_error(err.msg, false);
            break;
        case OPT_PER_PROCESS:
            cfg->per_process = true;
            break;
        case OPT_CMDLINE:
            cfg->cmdline = true;
            break;
        case OPT_MAX_CONN:
            if (!parse_count(optarg, 100000, &cfg->max_connections))
                return usage_error("--max-connections wants a whole number from 1 to 100000",
                                   false);
            break;
        case OPT_PER_IP:
            if (!parse_count(optarg, 100000, &cfg->max_per_ip))
                return usage_error("--max-connections-per-ip wants a whole number from 1 to 100000",
                                   false);
            break;
        case OPT_TIMEOUT:
            if (gw_args_duration("--client-timeout", optarg, &ms, &err) || ms < 1000 ||
                ms > 3600000)
                return usage_error("--client-timeout wants 1 s to 1 h, such as 10 or 30s", false);
            cfg->client_timeout_s = (unsigned)(ms / 1000);
            break;
        case OPT_KUBERNETES:
            *kubernetes = true;
            break;
        case OPT_PODRES_SOCKET: {
            /* also the endpoint notation of kubelet and containerd configurations */
            const char *path = optarg;
            if (strncmp(path, "unix://", 7) == 0)
                path += 7;
            else if (strncmp(path, "unix:", 5) == 0)
                path += 5;
            if (!path[0])
                return usage_error("--pod-resources-socket wants the path of the kubelet's "
                                   "socket",
                                   false);
            kube->socket = path;
            break;
        }
        case OPT_JOB_DIR:
            if (!optarg[0])
                return usage_error("--hpc-job-mapping-dir wants a directory, such as "
                                   "/run/gpuwatch/job-map",
                                   false);
            cfg->hpc_job_dir = optarg;
            break;
        case 'h':
            gw_help_print(&gw_spec_serve);
            return 0;
        default: {
            char msg[128];
            snprintf(msg, sizeof msg, "unknown option '%s' or missing value", argv[optind - 1]);
            return usage_error(msg, true);
        }
        }
    }
    if (optind < argc)
        return usage_error("serve takes no command: use `gpuwatch run --listen ADDR -- CMD`", true);
    if (cfg->cmdline && !cfg->per_process)
        return usage_error("--cmdline labels the --per-process series: add --per-process", false);
    if (kube->socket && !*kubernetes)
        return usage_error("--pod-resources-socket is for --kubernetes: add --kubernetes", false);
    return -1;
}

static void say_jobmap(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "gpuwatch: warning: %s\n", msg);
}

static void say_lost(void *ctx, const gw_event *ev)
{
    (void)ctx;
    gw_event_print_lost(stderr, ev, "its series are gone, gpuwatch_gpu_lost is 1");
}

static void announce(gw_exporter *e, gw_sampler *s, int64_t interval_ms)
{
    unsigned n = 0;
    const gw_device_info *d = gw_sampler_devices(s, &n);
    const char *banner = gw_sampler_system(s)->banner;
    gw_wrap_stream w; /* 80 columns */
    fprintf(gw_wrap_begin(&w, stderr),
            "gpuwatch: serving %u GPU%s%s%s%s on http://%s/metrics, sampling every %s s%s%s\n", n,
            n == 1 ? "" : "s", n ? " (" : "", n ? d[0].name : "", n ? ")" : "",
            gw_exporter_address(e), GW_SIG((double)interval_ms / 1000.0, 6), banner[0] ? " — " : "",
            banner);
    gw_wrap_end(&w);
}

/* Loads NVML and serves until SIGINT/SIGTERM/SIGHUP. Returns the exit status. */
static int serve(gw_exporter *e, const gw_exporter_config *cfg, const sigset_t *stop)
{
    gw_error err = {0};
    gw_sampler *s = NULL;
    gw_events *bus = gw_events_new();
    int status = 1;
    gw_sampler_config sc = {.interval_ms = cfg->interval_ms,
                            .fields = gw_prom_fields(),
                            .processes = cfg->per_process,
                            .migs = cfg->pods != NULL, /* the kubelet's MIG device ids */
                            .nvml_events = true};
    if (gw_sampler_load(&sc, bus, &s, &err))
        goto out;
    gw_events_listen(bus, say_lost, NULL);
    if (gw_exporter_start(e, s, bus, gw_sampler_system(s)->driver_version, &err) ||
        gw_sampler_start(s, &err))
        goto out;
    announce(e, s, cfg->interval_ms);
    int sig = 0;
    sigwait(stop, &sig);
    fprintf(stderr, "gpuwatch: stopping (%s)\n", sigabbrev_np(sig) ? sigabbrev_np(sig) : "signal");
    status = 0;
out:
    if (status)
        fprintf(stderr, "gpuwatch: %s\n", err.msg);
    if (s)
        gw_sampler_stop(s);
    gw_exporter_close(e);
    gw_sampler_close(s);
    gw_events_free(bus);
    return status;
}

/* The kubelet watcher's warnings: one line each, on stderr. */
static void say_kube(void *ctx, const char *line)
{
    (void)ctx;
    gw_wrap_stream w; /* 80 columns */
    fprintf(gw_wrap_begin(&w, stderr), "gpuwatch: %s\n", line);
    gw_wrap_end(&w);
}

int gw_cmd_serve(int argc, char **argv)
{
    gw_exporter_config cfg = {.interval_ms = 1000, .warn = say_jobmap};
    const char *job_dir = getenv("DCGM_HPC_JOB_MAPPING_DIR"); /* the option wins */
    cfg.hpc_job_dir = job_dir && *job_dir ? job_dir : NULL;
    gw_pod_watch_config kube = {.say = say_kube};
    bool kubernetes = false;
    int rc = parse(argc, argv, &cfg, &kube, &kubernetes);
    if (rc >= 0)
        return rc;
    /* Blocked before any thread starts, so that only sigwait sees them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    gw_error err = {0};
    gw_exporter *e = NULL;
    gw_pod_watch *pods = NULL;
    if (kubernetes && gw_pod_watch_start(&kube, &pods, &err)) {
        fprintf(stderr, "gpuwatch: %s\n", err.msg);
        return 1;
    }
    cfg.pods = pods;
    if (gw_exporter_open(&cfg, &e, &err)) {
        fprintf(stderr, "gpuwatch%s: %s\n", err.rc == GW_E_USAGE ? " serve" : "", err.msg);
        gw_pod_watch_stop(pods);
        return err.rc == GW_E_USAGE ? 2 : 1;
    }
    rc = serve(e, &cfg, &stop);
    gw_pod_watch_stop(pods);
    return rc;
}
