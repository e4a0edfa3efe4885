#include "run/session.h"

#include "alerts/alerts.h"
#include "events/events.h"
#include "logread/progress.h"
#include "record/csv_sink.h"
#include "record/eventlog.h"
#include "record/job.h"
#include "record/meta.h"
#include "run/python_env.h"
#include "record/rundir.h"
#include "report/report.h"
#include "run/child.h"
#include "run/output.h"
#include "run/run_table.h"
#include "sampler/sampler.h"
#include "serve/exporter.h"
#include "stall/stall.h"
#include "summary/run_summary.h"
#include "util/gw_fmt.h"
#include "util/gw_termline.h"
#include "util/gw_time.h"
#include "util/gw_wrap.h"
#include "util/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Everything a session holds, so that cleanup is one function. */
typedef struct session {
    const gw_session_config *cfg;
    int fail_status; /* 125 for run, 1 for record */
    char *cmd_path;
    int sigfd;
    sigset_t old_mask;
    gw_sampler *sampler;
    gw_events *bus;
    char *dir;
    int dirfd;    /* the run directory: every file is created relative to it */
    bool started; /* sampling began: the directory holds a recording and is kept */
    gw_csv_sink *csv;
    gw_eventlog *events;
    gw_run_summary *summary;
    gw_alerts *alerts; /* alert rules on every tick (alerts.h) */
    gw_output out;
    bool out_open;
    gw_child child;
    bool child_started;
    bool child_done;
    int child_status; /* waitpid status */
    int64_t child_done_ms;
    gw_line_splitter split_out, split_err;
    gw_epoch_matcher *epochs; /* --epoch-regex, NULL for the built-in understanding */
    gw_progress *progress;    /* the command's output: its epochs become "epoch" events */
    gw_meta meta;
    int signals_forwarded;
    gw_exporter *exporter; /* --listen (issue 7) */
    gw_stall *stall;       /* job_stalled detection (stall.h); NULL when off */
    int64_t start_ms;      /* wall time sampling began, for the status line */
    int64_t status_ms;     /* wall time of the last status line on a terminal (record) */
    gw_job job;            /* meta.json "job": identity and GPUs (record/job.h) */
    bool *job_used;        /* [devices] a process of the command held it (tick thread) */
    unsigned job_ndev;
    gw_python_env python; /* the job's PYTHONPATH with gpuwatch's sitecustomize (run) */
} session;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gw_termline_fresh(stderr);
    gw_wrap_stream w; /* 80 columns */
    FILE *f = gw_wrap_begin(&w, stderr);
    fputs("gpuwatch: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    gw_wrap_end(&w);
    va_end(ap);
}

/* Whether NVML index `gpu` is known to be another job's GPU (record/job.h; the job's processes
 * count as they show up). */
static bool other_jobs_gpu(const session *s, int gpu)
{
    const gw_job *j = &s->job;
    if (gpu < 0 || !j->gpus_source || strcmp(j->gpus_source, "all") == 0)
        return false;
    if (!j->gpus_pending)
        return !gw_job_has_gpu(j, (unsigned)gpu);
    bool known = false, used = false;
    for (unsigned i = 0; s->job_used && i < s->job_ndev; i++) {
        known |= s->job_used[i];
        used |= s->job_used[i] && s->meta.devices[i].index == (unsigned)gpu;
    }
    return known && !used;
}

/* Prints events that a person watching the job should see at once. */
static void stderr_listener(void *ctx, const gw_event *ev)
{
    const session *s = ctx;
    if (ev->kind != GW_EV_GPU_LOST)
        return;
    gw_termline_fresh(stderr);
    gw_event_print_lost(stderr, ev,
                        other_jobs_gpu(s, ev->gpu_lost.gpu)
                            ? "not this job's GPU; its cells stay empty, the job's keep recording"
                            : "its cells stay empty, the other GPUs keep recording");
}

static int block_signals(session *s)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGWINCH);
    sigaddset(&set, SIGUSR1); /* a status line (status_line) */
    /* Blocked before any thread starts, so every thread inherits the mask and only the
     * signalfd sees these signals. */
    pthread_sigmask(SIG_BLOCK, &set, &s->old_mask);
    signal(SIGPIPE, SIG_IGN);
    /* A file-size limit then fails writes with EFBIG, handled like a full disk, instead of
     * killing gpuwatch (the command gets default dispositions back). */
    signal(SIGXFSZ, SIG_IGN);
    s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    return s->sigfd;
}

/* The command's processes as NVML lists them: which GPUs they hold, for a choice of the job's
 * GPUs from its processes (record/job.h). Matched by NVML index: a device that could not be
 * opened is missing from the list, so positions and indices may differ. */
static void job_gpus_on_sample(void *ctx, const gw_sample *smp)
{
    session *s = ctx;
    bool more = false;
    for (unsigned k = 0; k < smp->proc_count; k++)
        for (unsigned i = 0; smp->procs[k].in_job && i < s->job_ndev; i++)
            if (s->meta.devices[i].index == smp->procs[k].gpu && !s->job_used[i])
                s->job_used[i] = more = true;
    if (!more) /* alerts and --listen follow the GPUs the job's processes have shown so far */
        return;
    unsigned *gpus = xcalloc(s->job_ndev + 1, sizeof *gpus);
    size_t n = 0;
    for (unsigned i = 0; i < s->job_ndev; i++)
        if (s->job_used[i])
            gpus[n++] = s->meta.devices[i].index;
    if (s->alerts)
        gw_alerts_set_job_gpus(s->alerts, gpus, n, s->cfg->scope_node);
    if (s->exporter && !s->cfg->scope_node)
        gw_exporter_set_gpus(s->exporter, gpus, n);
    free(gpus);
}

static bool names_mig(const char *var)
{
    const char *v = getenv(var);
    return v && (strstr(v, "MIG-") || strstr(v, "mig-"));
}

/* Who runs this and on which GPUs (meta.json "job"); says each problem in one line. */
static void choose_job(session *s)
{
    unsigned n = 0;
    const gw_device_info *devs = gw_sampler_devices(s->sampler, &n);
    unsigned nmigs = 0;
    gw_mig_device *migs = NULL;
    if (names_mig("CUDA_VISIBLE_DEVICES") || names_mig("NVIDIA_VISIBLE_DEVICES"))
        migs = gw_sampler_read_migs(s->sampler, &nmigs);
    gw_job_identity(&s->job, NULL);
    gw_job_choose_gpus(&s->job, NULL, devs, n, migs, nmigs, s->cfg->is_run);
    free(migs);
    s->job.scope_node = s->cfg->scope_node;
    for (size_t k = 0; k < s->job.nwarnings; k++)
        say("%s", s->job.warnings[k]);
    s->job_ndev = n;
    s->job_used = xcalloc(n + 1, sizeof *s->job_used);
    s->meta.job = &s->job;
    /* Named by the job's variables: alerts and job_stalled judge those GPUs from the start (from
     * the job's processes: as they show up, job_gpus_on_sample; every GPU: nothing to choose). */
    if (!s->job.gpus_pending && strcmp(s->job.gpus_source, "all") != 0) {
        if (s->alerts)
            gw_alerts_set_job_gpus(s->alerts, s->job.gpus, s->job.ngpus, s->cfg->scope_node);
        gw_stall_set_gpus(s->stall, s->job.gpus, s->job.ngpus);
        if (s->exporter && !s->cfg->scope_node)
            gw_exporter_set_gpus(s->exporter, s->job.gpus, s->job.ngpus);
    }
}

static void fill_versions(session *s)
{
    const gw_system_info *sys = gw_sampler_system(s->sampler); /* lives as long as the sampler */
    s->meta.cuda_driver_version = sys->cuda_driver_version;
    s->meta.driver_version = sys->driver_version;
    s->meta.nvml_version = sys->nvml_version;
    s->meta.nvml_library = sys->library;
}

/* meta.json as written when recording starts; for run, the job's PYTHONPATH with gpuwatch's
 * sitecustomize first, and meta.json's word on it (docs/inproc.md). */
static void meta_start(session *s)
{
    const gw_session_config *cfg = s->cfg;
    if (cfg->is_run) {
        gw_python_env_prepare(&s->python, cfg->no_python, cfg->python_config_off);
        s->meta.python_instrumentation = s->python.state;
        if (s->python.not_found)
            say("no in-job Python data: %.*s", (int)strlen(s->python.state) - 6,
                s->python.state + 5); /* the WHY of "off (WHY)" */
    }
    s->meta.interval_ms = cfg->interval_ms;
    s->meta.start_wall_ms = gw_wall_ms();
    s->meta.exit_code = -1;
    s->meta.complete = false;
    s->meta.incomplete = "recording";
    s->meta.incomplete_detail = GW_META_NOT_FINALISED;
}

/* The run directory and the files the sinks write into. Prints and returns false on failure. */
static bool create_files(session *s)
{
    const gw_session_config *cfg = s->cfg;
    gw_error err = {0};
    char *hint = cfg->is_run ? gw_rundir_name_hint(cfg->argc, cfg->argv) : xstrdup("record");
    gw_rc rc = gw_rundir_create(cfg->out_dir, hint, gw_wall_ms(), &s->dir, &s->dirfd, &err);
    free(hint);
    if (!rc)
        rc = gw_csv_sink_open(s->dirfd, s->dir, cfg->interval_ms, &s->csv, &err);
    if (!rc) {
        char *p = xasprintf("%s/events.jsonl", s->dir);
        rc = gw_eventlog_create_at(s->dirfd, "events.jsonl", p, &s->events, &err);
        free(p);
    }
    if (!rc && cfg->is_run) {
        rc = gw_output_open(&s->out, s->dirfd, s->dir, &err);
        s->out_open = rc == GW_OK;
        if (s->out_open && cfg->epoch_regex)
            gw_output_index_note(&s->out, "epoch-regex", cfg->epoch_regex);
    }
    if (rc) {
        say("%s", err.msg);
        return false;
    }
    return true;
}

/* Events to events.jsonl and stderr; the CSV files, the summary, alerts and the stall watch as
 * sinks of the sampler. */
static void add_sinks(session *s)
{
    const gw_session_config *cfg = s->cfg;
    gw_events_listen(s->bus, gw_eventlog_listener, s->events);
    gw_events_listen(s->bus, stderr_listener, s);
    s->summary = gw_run_summary_new();
    gw_sink sink = gw_csv_sink_as_sink(s->csv);
    gw_sampler_add_sink(s->sampler, &sink);
    sink = gw_run_summary_as_sink(s->summary);
    gw_sampler_add_sink(s->sampler, &sink);
    /* alerts: rules judged on every tick; hooks run by their own thread */
    if (cfg->alerts) {
        s->alerts = gw_alerts_new(cfg->alerts, s->bus);
        gw_alerts_attach(s->alerts, s->sampler, s->dir);
        sink = gw_alerts_as_sink(s->alerts);
        gw_sampler_add_sink(s->sampler, &sink);
    }
    if (cfg->is_run && cfg->stall_timeout_ms > 0) { /* --stall-timeout */
        gw_stall_config sc_stall = gw_stall_config_default(cfg->stall_timeout_ms);
        s->stall = gw_stall_new(&sc_stall, s->bus);
        sink = gw_stall_as_sink(s->stall);
        gw_sampler_add_sink(s->sampler, &sink);
    }
}

/* Loads NVML, opens devices, creates the directory and its files. Prints and returns false on
 * failure. */
static bool open_recording(session *s)
{
    const gw_session_config *cfg = s->cfg;
    gw_error err = {0};
    s->bus = gw_events_new();
    /* --listen serves every dcgm-exporter series too (graphics activity, free memory), which
     * gpu.csv has no column for */
    gw_sampler_config sc = {.interval_ms = cfg->interval_ms,
                            .fields = GW_FIELDS_RECORD | (cfg->listen ? gw_prom_fields() : 0),
                            .processes = true,
                            .host = true,
                            .nvml_events = true};
    if (gw_sampler_load(&sc, s->bus, &s->sampler, &err)) {
        say("%s", err.msg);
        return false;
    }
    fill_versions(s);
    /* --listen (issue 7): the same /metrics as `gpuwatch serve`, bound before anything is made */
    if (cfg->listen) {
        gw_exporter_config ec = {.listen = cfg->listen, .interval_ms = cfg->interval_ms};
        if (gw_exporter_open(&ec, &s->exporter, &err) ||
            gw_exporter_start(s->exporter, s->sampler, s->bus, s->meta.driver_version, &err)) {
            say("%s", err.msg);
            return false;
        }
        say("serving metrics on http://%s/metrics", gw_exporter_address(s->exporter));
    }
    if (!create_files(s))
        return false;
    add_sinks(s);
    s->meta.mode = cfg->is_run ? "run" : "record";
    s->meta.argc = cfg->is_run ? cfg->argc : 0;
    s->meta.argv = cfg->argv;
    s->meta.devices = gw_sampler_devices(s->sampler, &s->meta.device_count);
    choose_job(s);
    if (s->job.gpus_pending) {
        gw_sink sink = {.ctx = s, .on_sample = job_gpus_on_sample};
        gw_sampler_add_sink(s->sampler, &sink);
    }
    meta_start(s);
    if (gw_meta_write(s->dirfd, s->dir, &s->meta, &err)) {
        say("%s", err.msg);
        return false;
    }
    return true;
}

static void announce(const session *s)
{
    unsigned n = 0;
    const gw_device_info *d = gw_sampler_devices(s->sampler, &n);
    const char *banner = gw_sampler_system(s->sampler)->banner;
    say("recording %u GPU%s%s%s%s every %s s into %s%s%s", n, n == 1 ? "" : "s", n ? " (" : "",
        n ? d[0].name : "", n ? ")" : "", GW_SIG((double)s->cfg->interval_ms / 1000.0, 6), s->dir,
        banner[0] ? " — " : "", banner);
    const gw_job *j = &s->job;
    if (strcmp(j->gpus_source, "all") != 0 && !j->gpus_pending) {
        char list[256] = "";
        size_t k = 0;
        for (size_t i = 0; i < j->ngpus && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%u", i ? ", " : "", j->gpus[i]);
        bool others = j->ngpus < n; /* the job may have every GPU */
        say("this job's GPU%s: %s (from %s)%s%s", j->ngpus == 1 ? "" : "s",
            j->ngpus ? list : "none", j->gpus_source,
            others ? "; the others are recorded as not this job" : "",
            !others              ? ""
            : s->cfg->scope_node ? " and shown"
                                 : ", left out of the report (--scope node shows them)");
    }
    if (j->gpus_note)
        say("%s", j->gpus_note);
}

/* Each line the command prints: a line or bar that starts an epoch becomes an "epoch" event
 * (logread/progress.h: progress bars redraw the same epoch many times). */
static void on_line(void *ctx, const char *line, int64_t wall_ms)
{
    session *s = ctx;
    long epoch = 0, total = -1;
    if (!s->progress || !gw_progress_feed(s->progress, line, wall_ms, &epoch, &total))
        return;
    gw_event ev = gw_event_make(GW_EV_EPOCH, wall_ms);
    ev.epoch.epoch = epoch;
    ev.epoch.total = total;
    ev.epoch.line = line; /* cut to GW_EVENT_LINE_MAX bytes when written */
    gw_events_emit(s->bus, &ev);
}

static bool start_child(session *s, int *status)
{
    gw_error err = {0};
    char absdir[PATH_MAX];
    if (!realpath(s->dir, absdir))
        snprintf(absdir, sizeof absdir, "%s", s->dir);
    char *run_dir_env = xasprintf("GPUWATCH_RUN_DIR=%s", absdir);
    /* --listen: the address really bound (port 0 picks one), so the job can find its /metrics */
    char *metrics_env = s->exporter ? xasprintf("GPUWATCH_METRICS_URL=http://%s/metrics",
                                                gw_exporter_address(s->exporter))
                                    : NULL;
    /* each may be NULL (no --listen, no in-job data): the list ends at the first NULL */
    const char *extra[4] = {run_dir_env};
    size_t nextra = 1;
    if (metrics_env)
        extra[nextra++] = metrics_env;
    if (s->python.pythonpath)
        extra[nextra++] = s->python.pythonpath;
    char **env = gw_child_env(extra);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    gw_rc rc = gw_child_spawn(&s->child, s->cmd_path, s->cfg->argv, env, gw_child_want_pty(), &err);
    gw_child_free_env(env);
    free(run_dir_env);
    free(metrics_env);
    if (rc) {
        say("%s", err.msg);
        if (s->child.pid > 0)
            waitpid(s->child.pid, NULL, 0);
        *status = rc == GW_E_NOTFOUND ? 127 : 126;
        return false;
    }
    s->child_started = true;
    s->meta.job_pid = s->child.pid;
    gw_sampler_set_job(s->sampler, s->child.pid, getpid());
    gw_stall_set_job(s->stall, s->child.pid, getpid(), gw_mono_ns());
    if (s->cfg->epoch_regex && gw_epoch_matcher_new(s->cfg->epoch_regex, &s->epochs, &err)) {
        say("%s", err.msg); /* checked by the CLI already; keep recording without epochs */
        s->epochs = NULL;
    } else {
        s->progress = gw_progress_new(s->epochs);
    }
    s->split_out.fn = s->split_err.fn = on_line;
    s->split_out.ctx = s->split_err.ctx = s;
    gw_event ev = gw_event_make(GW_EV_JOB_START, 0);
    ev.job_start.pid = s->child.pid;
    ev.job_start.argc = s->cfg->argc;
    ev.job_start.argv = s->cfg->argv;
    ev.job_start.pty = s->child.use_pty;
    gw_events_emit(s->bus, &ev);
    return true;
}

static void reap(session *s)
{
    int st;
    pid_t p;
    /* As child subreaper we also collect the job's orphans. */
    while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
        if (s->child_started && p == s->child.pid && !s->child_done) {
            s->child_done = true;
            s->child_status = st;
            s->child_done_ms = gw_wall_ms();
        }
    }
}

enum { STATUS_EVERY_MS = 1000 }; /* `record` on a terminal: the status line's refresh */

/* "recording: 1234 samples over 20:31, 12.3 MiB in DIR": on SIGUSR1 a line of its own; on a
 * terminal every second from the start (record), rewritten in place so that hours of recording
 * stay one line, without the directory (announce named it) and with how to stop. */
static void status_line(session *s, bool in_place)
{
    static const char *const files[] = {"gpu.csv",   "host.csv",   "processes.csv", "events.jsonl",
                                        "meta.json", "output.log", "output.idx"};
    double bytes = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct stat st;
        if (s->dirfd >= 0 && fstatat(s->dirfd, files[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
            bytes += (double)st.st_size;
    }
    gw_sampler_stats ss;
    gw_sampler_get_stats(s->sampler, &ss);
    int64_t secs = s->start_ms ? (gw_wall_ms() - s->start_ms) / 1000 : 0;
    char line[512];
    int n = snprintf(line, sizeof line,
                     "%sgpuwatch: recording: %llu sample%s over %lld:%02lld:%02lld, %s MiB%s%s%s",
                     in_place ? "\r" : "", (unsigned long long)ss.ticks, ss.ticks == 1 ? "" : "s",
                     (long long)(secs / 3600), (long long)(secs / 60 % 60), (long long)(secs % 60),
                     GW_FIXED(bytes / 1048576.0, 1), in_place ? "" : " in ", in_place ? "" : s->dir,
                     in_place ? "; Ctrl-C to stop\033[K" : "\n");
    if (n <= 0)
        return;
    if (!in_place)
        gw_termline_fresh(stderr);
    ssize_t ignored =
        write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)ignored;
    if (in_place) /* the next line of gpuwatch's starts below it */
        gw_termline_note(STDERR_FILENO, line,
                         (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Returns true when a stop was requested (record). */
static bool handle_signals(session *s)
{
    struct signalfd_siginfo si;
    bool stop = false;
    while (read(s->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(s);
        } else if (sig == SIGWINCH) {
            if (s->child_started)
                gw_child_resize(&s->child);
        } else if (sig == SIGUSR1) {
            status_line(s, false);
        } else if (s->cfg->is_run && s->child_started && !s->child_done) {
            gw_child_signal(&s->child, sig);
            s->signals_forwarded++;
        } else {
            stop = true;
            s->meta.end_reason = "signal";
        }
    }
    return stop;
}

/* Reads what is there on fd; false at end of file (or EIO from a pty whose slave closed). */
static bool relay(session *s, int fd, bool to_stderr, gw_line_splitter *ls)
{
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    int64_t now = gw_wall_ms();
    gw_output_write(&s->out, buf, (size_t)n, to_stderr, now);
    gw_stall_note_output(s->stall, gw_mono_ns(), now);
    gw_line_splitter_feed(ls, buf, (size_t)n, now);
    return true;
}

static void report_errors(session *s)
{
    gw_error err = {0};
    if (s->csv && gw_csv_sink_take_error(s->csv, &err))
        say("%s", err.msg);
    if (s->out_open && gw_output_take_error(&s->out, &err))
        say("%s", err.msg);
    if (gw_eventlog_take_error(s->events, &err))
        say("%s", err.msg);
}

/* Polls signals, the command's output and our stdin until the session should end. */
static void main_loop(session *s)
{
    int out_fd = s->child.use_pty ? s->child.pty_master : s->child.out_fd;
    int err_fd = s->child.use_pty ? -1 : s->child.err_fd;
    int in_fd = (s->child_started && s->child.use_pty) ? STDIN_FILENO : -1;
    if (!s->child_started)
        out_fd = err_fd = -1;
    int64_t end_ms = s->cfg->duration_ms > 0 ? gw_wall_ms() + s->cfg->duration_ms : 0;
    for (;;) {
        struct pollfd fds[4];
        int n = 0;
        fds[n++] = (struct pollfd){.fd = s->sigfd, .events = POLLIN};
        int i_out = out_fd >= 0 ? n : -1;
        if (out_fd >= 0)
            fds[n++] = (struct pollfd){.fd = out_fd, .events = POLLIN};
        int i_err = err_fd >= 0 ? n : -1;
        if (err_fd >= 0)
            fds[n++] = (struct pollfd){.fd = err_fd, .events = POLLIN};
        int i_in = in_fd >= 0 && !s->child_done ? n : -1;
        if (i_in >= 0)
            fds[n++] = (struct pollfd){.fd = in_fd, .events = POLLIN};
        int r = poll(fds, (nfds_t)n, 200);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && (fds[0].revents & POLLIN) && handle_signals(s))
            break;
        if (i_out >= 0 && fds[i_out].revents && !relay(s, out_fd, false, &s->split_out))
            out_fd = -1;
        if (i_err >= 0 && fds[i_err].revents && !relay(s, err_fd, true, &s->split_err))
            err_fd = -1;
        if (i_in >= 0 && fds[i_in].revents) {
            char buf[4096];
            ssize_t k = read(in_fd, buf, sizeof buf);
            if (k <= 0)
                in_fd = -1;
            else if (write(s->child.pty_master, buf, (size_t)k) < 0)
                in_fd = -1;
        }
        report_errors(s);
        if (s->cfg->is_run && !s->child_done)
            reap(s); /* a SIGCHLD merged with another may leave a zombie */
        if (s->child_done) {
            /* Drain what the command left in the pipes; descendants that keep them open do
             * not hold gpuwatch for more than two seconds. */
            if ((out_fd < 0 && err_fd < 0) || gw_wall_ms() - s->child_done_ms > 2000)
                break;
        }
        if (!s->cfg->is_run && s->status_ms && gw_wall_ms() - s->status_ms >= STATUS_EVERY_MS) {
            status_line(s, true);
            s->status_ms = gw_wall_ms();
        }
        if (!s->cfg->is_run && end_ms && gw_wall_ms() >= end_ms) {
            s->meta.end_reason = "duration";
            break;
        }
    }
    gw_line_splitter_finish(&s->split_out, gw_wall_ms());
    gw_line_splitter_finish(&s->split_err, gw_wall_ms());
}

static int exit_status_of(const session *s)
{
    if (WIFEXITED(s->child_status))
        return WEXITSTATUS(s->child_status);
    if (WIFSIGNALED(s->child_status))
        return 128 + WTERMSIG(s->child_status);
    return s->fail_status;
}

/* Says in meta.json whether every file was written whole (detail: room for the one line). */
static void mark_complete(session *s, char *detail, size_t n)
{
    const char *csv_path = NULL;
    int csv_e = s->csv ? gw_csv_sink_failed(s->csv, &csv_path) : 0;
    int ev_e = s->events ? gw_eventlog_errno(s->events) : 0;
    int out_e = s->out_open ? s->out.log_errno : 0;
    s->meta.complete = !csv_e && !ev_e && !out_e;
    s->meta.incomplete = s->meta.complete ? NULL : "write_error";
    s->meta.incomplete_detail = detail;
    int k = snprintf(detail, n, "ended early: ");
    if (csv_e) {
        const char *base = strrchr(csv_path, '/');
        k += snprintf(detail + k, n - (size_t)k, "%s: %s; ", base ? base + 1 : csv_path,
                      strerror(csv_e));
    }
    if (ev_e && (size_t)k < n)
        k += snprintf(detail + k, n - (size_t)k, "events.jsonl: %s; ", strerror(ev_e));
    if (out_e && (size_t)k < n)
        k += snprintf(detail + k, n - (size_t)k, "output.log: %s; ", strerror(out_e));
    if ((size_t)k < n && k >= 2)
        detail[k - 2] = '\0'; /* the last "; " */
}

static void finish(session *s, int status)
{
    gw_sampler_stop(s->sampler);
    if (s->child_started) {
        gw_event ev = gw_event_make(GW_EV_JOB_EXIT, s->child_done_ms);
        ev.job_exit.pid = s->child.pid;
        if (WIFEXITED(s->child_status))
            ev.job_exit.code = WEXITSTATUS(s->child_status);
        if (WIFSIGNALED(s->child_status)) {
            ev.job_exit.signal = WTERMSIG(s->child_status);
            ev.job_exit.signal_name = sigabbrev_np(WTERMSIG(s->child_status))
                                          ? sigabbrev_np(WTERMSIG(s->child_status))
                                          : "";
        }
        ev.job_exit.status = status;
        gw_events_emit(s->bus, &ev);
        s->meta.exit_code = WIFEXITED(s->child_status) ? WEXITSTATUS(s->child_status) : -1;
        s->meta.exit_signal = WIFSIGNALED(s->child_status) ? WTERMSIG(s->child_status) : 0;
        if (!s->meta.end_reason)
            s->meta.end_reason = "job_exit";
    }
    if (!s->meta.end_reason)
        s->meta.end_reason = "signal";
    gw_sampler_stats st;
    gw_sampler_get_stats(s->sampler, &st);
    s->meta.ticks = st.ticks;
    s->meta.ticks_skipped = st.ticks_skipped;
    s->meta.max_tick_read_ms = (double)st.max_read_ns / 1e6;
    s->meta.end_wall_ms = gw_wall_ms();
    if (s->job.gpus_pending) {
        gw_job_set_from_procs(&s->job, s->job_used, s->meta.devices, s->meta.device_count);
        char list[256] = "";
        for (size_t i = 0, k = 0; i < s->job.ngpus && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%u", i ? ", " : "", s->job.gpus[i]);
        if (strcmp(s->job.gpus_source, "processes") == 0 && s->meta.device_count > 1)
            say("this job's GPU%s: %s (its processes used %s)", s->job.ngpus == 1 ? "" : "s", list,
                s->job.ngpus == 1 ? "it" : "them");
        else if (s->job.gpus_note && s->meta.device_count > 1) /* one GPU: nothing chosen */
            say("%s", s->job.gpus_note);
    }
    char detail[700];
    mark_complete(s, detail, sizeof detail);
    gw_error err = {0};
    if (gw_meta_write(s->dirfd, s->dir, &s->meta, &err))
        say("%s; it still says that the recording was not finalised", err.msg);
    /* The sampler's stop flushed the files: a write that failed there (the disk filled up at the
     * end) is reported before the writer goes away. */
    report_errors(s);
    gw_csv_sink_close(s->csv);
    s->csv = NULL;
    if (s->child_started)
        gw_child_restore_tty(&s->child);
    /* The table's figures come from the recorded run, analysed once with the report's engine
     * (src/run/run_table.h); without GPU rows, the job's line from host.csv alone. */
    gw_termline_fresh(stderr); /* the job's last line may not have ended */
    gw_run_table table = {.rs = s->summary, .to = stderr};
    gw_wrap_stream w; /* the verdict lines, 80 columns */
    gw_rc rc = gw_report_finish_run_with(s->dir, s->dirfd, !s->cfg->no_report, gw_run_table_hook,
                                         &table, gw_wrap_begin(&w, stderr), &err);
    gw_wrap_end(&w);
    gw_run_table_finish(&table, s->dir);
    if (rc)
        say("%s", err.msg);
    say("recording saved in %s", s->dir);
}

static void cleanup(session *s)
{
    /* A failure at start: nothing was recorded, so the directory goes (a retry can use the
     * name). The files are closed first. */
    bool remove_dir = s->dirfd >= 0 && !s->started;
    if (s->child_started)
        gw_child_close(&s->child);
    if (s->out_open)
        gw_output_close(&s->out);
    if (s->exporter) { /* --listen (issue 7): it reads the sampler's counters, so it goes first */
        gw_sampler_stop(s->sampler);
        gw_exporter_close(s->exporter);
    }
    gw_sampler_close(s->sampler);
    gw_stall_free(s->stall);
    gw_csv_sink_close(s->csv);
    gw_alerts_free(s->alerts); /* before the bus it listens on */
    gw_eventlog_close(s->events);
    gw_events_free(s->bus);
    gw_run_summary_free(s->summary);
    gw_progress_free(s->progress);
    gw_epoch_matcher_free(s->epochs);
    if (s->sigfd >= 0)
        close(s->sigfd);
    pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
    if (remove_dir && gw_rundir_remove_new(s->dirfd, s->dir))
        say("nothing was recorded: %s was removed, so the same -o DIR works again", s->dir);
    if (s->dirfd >= 0)
        close(s->dirfd);
    free(s->dir);
    gw_python_env_free(&s->python);
    free(s->cmd_path);
    gw_job_clear(&s->job);
    free(s->job_used);
}

int gw_session_main(const gw_session_config *cfg)
{
    session s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.fail_status = cfg->is_run ? 125 : 1;
    s.sigfd = -1;
    s.dirfd = -1;
    gw_error err = {0};
    if (cfg->is_run) {
        gw_rc rc = gw_child_resolve(cfg->argv[0], &s.cmd_path, &err);
        if (rc) {
            say("%s", err.msg);
            return rc == GW_E_NOTFOUND ? 127 : 126;
        }
    }
    int status = s.fail_status;
    if (block_signals(&s) < 0) {
        say("cannot watch signals: %s", strerror(errno));
        cleanup(&s);
        return status;
    }
    if (!open_recording(&s)) {
        cleanup(&s);
        return status;
    }
    if (gw_sampler_start(s.sampler, &err)) {
        say("%s", err.msg);
        cleanup(&s);
        return status;
    }
    s.started = true;
    s.start_ms = gw_wall_ms();
    announce(&s);
    if (cfg->is_run && isatty(STDERR_FILENO)) /* the command's output follows: no line in place */
        say("Ctrl-C stops the command; the report follows its end");
    if (!cfg->is_run && isatty(STDERR_FILENO)) { /* record: a status line from the first second */
        status_line(&s, true);
        s.status_ms = s.start_ms;
    }
    if (cfg->is_run && !start_child(&s, &status)) {
        s.meta.end_reason = "exec_failed";
        finish(&s, status);
        cleanup(&s);
        return status;
    }
    main_loop(&s);
    status = cfg->is_run ? (s.child_done ? exit_status_of(&s) : s.fail_status) : 0;
    finish(&s, status);
    cleanup(&s);
    return status;
}
