/* Job-level verdicts: job_stalled (from the stall alerts of `gpuwatch run`), and oom_crash or
 * job_failed for a job that exited non-zero — with the cause the recording proves: the end of
 * output.log (crash.h), XID and gpu_lost events, the signal, the last samples. */
#include "analysis/checks.h"
#include "analysis/crash.h"

#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/gw_time.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { LAST_SAMPLES_MS = 5000 }; /* "at the time": the samples this long before the job ended */

static const char *source_of(const gw_series *s, const gw_series_event *e)
{
    return s->inputs[e->input].source;
}

static bool is_event(const gw_series *s, const gw_series_event *e, gw_event_kind kind,
                     const char *source)
{
    return e->kind == (int)kind && strcmp(source_of(s, e), source) == 0;
}

static bool is_stall(const gw_series_event *e, gw_event_kind kind)
{
    return e->kind == (int)kind && strcmp(e->rule, "job_stalled") == 0;
}

/* The first job_exit of source after event index `from`, or NULL. */
static const gw_series_event *exit_after(const gw_series *s, size_t from, const char *source)
{
    for (size_t i = from; i < s->nevents; i++)
        if (is_event(s, &s->events[i], GW_EV_JOB_EXIT, source))
            return &s->events[i];
    return NULL;
}

/* The resolution of the stall alert at index i: the next job_stalled event of its source, when
 * that is an alert_resolved. */
static const gw_series_event *resolution_of(const gw_series *s, size_t i)
{
    const char *source = source_of(s, &s->events[i]);
    for (size_t k = i + 1; k < s->nevents; k++) {
        const gw_series_event *e = &s->events[k];
        if (strcmp(source_of(s, e), source) != 0)
            continue;
        if (is_stall(e, GW_EV_ALERT_RESOLVED))
            return e;
        if (is_stall(e, GW_EV_ALERT))
            return NULL;
    }
    return NULL;
}

/* A verdict about a whole job names its node when recordings of several nodes are read. */
static void add_node(gw_verdict *v, const gw_series *s, const char *source)
{
    for (size_t i = 0; i < s->ninputs; i++)
        if (strcmp(s->inputs[i].source, source) != 0) {
            gw_verdict_text(v, "node", source);
            return;
        }
}

static const char *signal_name(const gw_series_event *exit, char *buf, size_t len)
{
    const char *abbrev = *exit->detail ? exit->detail : sigabbrev_np(exit->signal);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", exit->signal);
    return buf;
}

/* Up to three processes of a detail list, for the one-line message. */
static void first_processes(gw_buf *b, const char *detail)
{
    const char *p = detail;
    for (int n = 0; n < 3 && p && *p; n++) {
        const char *sep = strstr(p, "; ");
        int len = sep ? (int)(sep - p) : (int)strlen(p);
        gw_buf_printf(b, "%s%.*s", n ? "; " : "", len, p);
        p = sep ? sep + 2 : NULL;
    }
    if (p && *p)
        gw_buf_puts(b, "; ...");
}

static void stall_verdict(gw_analysis *a, size_t i)
{
    const gw_series *s = a->series;
    const gw_series_event *e = &s->events[i];
    const gw_series_event *res = resolution_of(s, i);
    const gw_series_event *exit = exit_after(s, i + 1, source_of(s, e));
    int64_t start = isnan(e->value) ? e->t_ms : e->t_ms - (int64_t)(e->value * 1000.0);
    int64_t end = res ? res->t_ms : exit ? exit->t_ms : a->end_ms;
    if (end < e->t_ms)
        end = e->t_ms;
    bool killed = !res && exit && exit->signal > 0;
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_JOB_STALLED,
                                   killed ? GW_SEV_CRITICAL : GW_SEV_WARNING, -1, start, end);
    add_node(v, s, source_of(s, e));
    gw_verdict_num(v, "stalled_s", (double)(end - start) / 1000.0);
    gw_verdict_num(v, "quiet_s_at_alert", e->value);
    gw_verdict_num(v, "stall_timeout_s", e->threshold);
    char sig[32];
    gw_buf until = {0};
    if (res)
        gw_buf_printf(&until, "activity returned (%s)", *res->detail ? res->detail : "unknown");
    else if (killed)
        gw_buf_printf(&until, "the job was ended by %s", signal_name(exit, sig, sizeof sig));
    else
        gw_buf_puts(&until, exit ? "the job ended" : "the end of the recording");
    gw_verdict_text(v, "until", until.data);
    gw_verdict_text(v, "processes", *e->detail ? e->detail : "unknown");
    gw_buf procs = {0};
    first_processes(&procs, e->detail);
    gw_verdict_say(v,
                   "Find where it waits: the processes above show each one's state and the "
                   "system call it sleeps in (py-spy dump --pid PID shows the Python stack). A "
                   "DataLoader worker blocked in futex/read points at the dataset (a corrupt "
                   "file, a dead network mount): DataLoader(timeout=...) makes it fail instead of "
                   "hang. For distributed jobs, set a timeout in init_process_group.",
                   "no output, GPU idle and CPU idle for %s s until %s; processes: %s",
                   GW_FIXED((double)(end - start) / 1000.0, 0), until.data,
                   procs.len ? procs.data : "unknown");
    gw_buf_free(&until);
    gw_buf_free(&procs);
}

void gw_check_job_stalled(gw_analysis *a)
{
    const gw_series *s = a->series;
    for (size_t i = 0; i < s->nevents; i++)
        if (is_stall(&s->events[i], GW_EV_ALERT))
            stall_verdict(a, i);
}

/* ---- why a job died ---- */

typedef struct exit_facts {
    const gw_series_event *exit;
    const char *source;
    int64_t from_ms, to_ms; /* the last samples */
    gw_crash_text text;
} exit_facts;

static const gw_series_tail *tail_of(const gw_series *s, const char *source)
{
    for (size_t i = 0; i < s->ntails; i++)
        if (strcmp(s->tails[i].source, source) == 0)
            return &s->tails[i];
    return NULL;
}

/* The last event of that kind from source up to 2 s after the exit (the XID may be logged later).
 */
static const gw_series_event *last_event(const gw_series *s, gw_event_kind kind, const char *source,
                                         int64_t until_ms)
{
    const gw_series_event *found = NULL;
    for (size_t i = 0; i < s->nevents && s->events[i].t_ms <= until_ms + 2000; i++)
        if (is_event(s, &s->events[i], kind, source))
            found = &s->events[i];
    return found;
}

/* The largest value of v on rows of g inside [from, to], else the last one before to. */
static double value_at_end(const gw_series_table *t, const double *v, int64_t from, int64_t to)
{
    double best = NAN, last = NAN;
    for (size_t r = 0; v && r < t->n && t->t_ms[r] <= to; r++) {
        if (isnan(v[r]))
            continue;
        last = v[r];
        if (t->t_ms[r] >= from && (isnan(best) || v[r] > best))
            best = v[r];
    }
    return isnan(best) ? last : best;
}

static void add_size(gw_verdict *v, const char *key, double mib)
{
    if (!isnan(mib))
        gw_verdict_num(v, key, mib);
}

static void size_text(gw_buf *b, const char *before, double mib)
{
    if (isnan(mib))
        return;
    if (mib >= 1024)
        gw_buf_printf(b, "%s%s GiB", before, GW_FIXED(mib / 1024.0, 1));
    else
        gw_buf_printf(b, "%s%s MiB", before, GW_FIXED(mib, 0));
}

/* The GPU that was fullest at the end among the job's GPUs of the source (all of the source when
 * processes.csv names none); -1 when the source has no memory values. */
static int fullest_gpu(const gw_analysis *a, const exit_facts *f, double *used, double *total)
{
    bool any_participant = false;
    for (size_t k = 0; k < a->ngpus; k++)
        any_participant |= a->gpus[k].participant && strcmp(a->gpus[k].gpu->source, f->source) == 0;
    int best = -1;
    double best_ratio = -1;
    for (size_t k = 0; k < a->ngpus; k++) {
        const gw_series_gpu *g = a->gpus[k].gpu;
        if (strcmp(g->source, f->source) != 0 || (any_participant && !a->gpus[k].participant))
            continue;
        double u =
            value_at_end(&g->tab, gw_series_gpu_values(g, GW_F_MEM_USED_MIB), f->from_ms, f->to_ms);
        double t = value_at_end(&g->tab, gw_series_gpu_values(g, GW_F_MEM_TOTAL_MIB), f->from_ms,
                                f->to_ms);
        if (isnan(t))
            t = g->memory_total_mib;
        double ratio = t > 0 ? u / t : u / 1e12;
        if (!isnan(u) && ratio > best_ratio) {
            best = (int)k;
            best_ratio = ratio;
            *used = u;
            *total = t;
        }
    }
    return best;
}

static void exit_evidence(gw_verdict *v, const exit_facts *f)
{
    gw_verdict_num(v, "exit_status", f->exit->code);
    if (f->exit->signal > 0) {
        char sig[32];
        gw_verdict_text(v, "signal", signal_name(f->exit, sig, sizeof sig));
    }
}

static void oom_verdict(gw_analysis *a, const exit_facts *f)
{
    const gw_crash_text *c = &f->text;
    double used = NAN, total = NAN;
    int slot = fullest_gpu(a, f, &used, &total);
    gw_verdict *v =
        gw_verdict_add(&a->verdicts, GW_V_OOM_CRASH, GW_SEV_CRITICAL, slot, f->from_ms, f->to_ms);
    gw_verdict_text(v, "reported_by", c->oom_source);
    add_size(v, "tried_to_allocate_mib", c->tried_mib);
    add_size(v, "capacity_mib", c->capacity_mib);
    add_size(v, "allocated_mib", c->allocated_mib);
    add_size(v, "free_mib", c->free_mib);
    add_size(v, "reserved_mib", c->reserved_mib);
    add_size(v, "reserved_unallocated_mib", c->reserved_unallocated_mib);
    add_size(v, "process_in_use_mib", c->process_mib);
    if (c->cuda_device >= 0)
        gw_verdict_num(v, "cuda_device", c->cuda_device);
    gw_verdict_num(v, "memory_used_mib", used);
    gw_verdict_num(v, "memory_total_mib", total);
    gw_verdict_num(v, "memory_used_pct", total > 0 ? 100.0 * used / total : NAN);
    exit_evidence(v, f);
    gw_verdict_text(v, "message", c->oom_line);
    gw_buf m = {0};
    gw_buf_puts(&m, "out of GPU memory");
    size_text(&m, ": tried to allocate ", c->tried_mib);
    size_text(&m, isnan(c->tried_mib) ? ": " : " with ", c->free_mib);
    if (!isnan(c->free_mib))
        gw_buf_puts(&m, " free");
    size_text(&m, " of ", c->capacity_mib);
    if (!isnan(used))
        gw_buf_printf(&m, "; memory.used %s MiB%s", GW_FIXED(used, 0),
                      total > 0 ? "" : " at the end");
    if (!isnan(used) && total > 0)
        gw_buf_printf(&m, " of %s (%s%%) at the end", GW_FIXED(total, 0),
                      GW_FIXED(100.0 * used / total, 0));
    gw_verdict_say(v,
                   "Make a step need less memory: a smaller batch (with gradient accumulation to "
                   "keep the effective batch), bf16 autocast, activation checkpointing "
                   "(torch.utils.checkpoint). When reserved memory far exceeds allocated, set "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation; when "
                   "memory grew step after step, look for tensors kept across steps (a loss "
                   "history without .item()).",
                   "%s", m.data);
    gw_buf_free(&m);
}

typedef struct xid_info {
    int xid;
    const char *meaning;
} xid_info;

/* The XIDs a training job meets most (NVIDIA's XID catalogue). */
static const xid_info xids[] = {
    {13, "graphics engine exception, often an out-of-range access in a kernel"},
    {31, "GPU memory page fault, often an application bug"},
    {43, "the GPU stopped processing"},
    {45, "preemptive cleanup after an earlier error"},
    {48, "double-bit ECC error"},
    {61, "internal micro-controller breakpoint"},
    {62, "internal micro-controller halt"},
    {63, "ECC page retirement or row remapping"},
    {64, "ECC page retirement or row remapping failure"},
    {74, "NVLink error"},
    {79, "the GPU fell off the bus"},
    {92, "high single-bit ECC error rate"},
    {94, "contained ECC error"},
    {95, "uncontained ECC error"},
    {119, "GSP RPC timeout"},
    {120, "GSP error"},
};

static const char *xid_meaning(double xid)
{
    for (size_t i = 0; i < sizeof xids / sizeof xids[0]; i++)
        if (xids[i].xid == xid)
            return xids[i].meaning;
    return "see NVIDIA's XID catalogue";
}

static int slot_of_event(const gw_analysis *a, const gw_series_event *e, const char *source)
{
    for (size_t k = 0; k < a->ngpus; k++)
        if (a->gpus[k].gpu->index == e->gpu_index && strcmp(a->gpus[k].gpu->source, source) == 0)
            return (int)k;
    return -1;
}

static gw_verdict *failed(gw_analysis *a, const exit_facts *f, gw_severity sev, int slot,
                          const char *cause)
{
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_JOB_FAILED, sev, slot, f->from_ms, f->to_ms);
    gw_verdict_set_cause(v, cause);
    add_node(v, a->series, f->source);
    exit_evidence(v, f);
    if (*f->text.last_error)
        gw_verdict_text(v, "last_error", f->text.last_error);
    return v;
}

static bool gpu_failed(gw_analysis *a, const exit_facts *f)
{
    const gw_series *s = a->series;
    const gw_series_event *x = last_event(s, GW_EV_XID, f->source, f->exit->t_ms);
    const gw_series_event *lost = last_event(s, GW_EV_GPU_LOST, f->source, f->exit->t_ms);
    const gw_series_event *e = x ? x : lost;
    int slot = e ? slot_of_event(a, e, f->source) : -1;
    if (!e || (slot >= 0 && a->gpus[slot].gpu->in_job == 0)) /* another job's GPU */
        return false;
    gw_verdict *v = failed(a, f, GW_SEV_CRITICAL, slot, x ? "xid" : "gpu_lost");
    gw_verdict_num(v, "gpu", e->gpu_index);
    if (x) {
        gw_verdict_num(v, "xid", x->code);
        gw_verdict_say(v,
                       "A GPU error, not the script: check `dmesg` / `nvidia-smi -q` on the "
                       "node, drain it if the error repeats, and restart from the last "
                       "checkpoint elsewhere.",
                       "GPU %d reported Xid %s (%s) before the job died", e->gpu_index,
                       GW_FIXED(x->code, 0), xid_meaning(x->code));
    } else {
        gw_verdict_say(v,
                       "The GPU fell off the bus: the node needs its administrator (check "
                       "`dmesg` for Xid 79); restart from the last checkpoint on another node.",
                       "GPU %d was lost before the job died", e->gpu_index);
    }
    return true;
}

static void nccl_failed(gw_analysis *a, const exit_facts *f)
{
    const gw_crash_text *c = &f->text;
    gw_verdict *v = failed(a, f, GW_SEV_CRITICAL, -1, "nccl_timeout");
    if (!isnan(c->nccl_timeout_ms))
        gw_verdict_num(v, "nccl_timeout_s", c->nccl_timeout_ms / 1000.0);
    if (*c->nccl_op)
        gw_verdict_text(v, "operation", c->nccl_op);
    gw_verdict_text(v, "message", c->nccl_line);
    gw_verdict_say(v,
                   "One rank stopped taking part in a collective: look at the other ranks' "
                   "output for the first error (an OOM, an exception, a hang in data loading), "
                   "and check that every rank runs the same collectives in the same order.",
                   "an NCCL collective%s%s timed out%s", *c->nccl_op ? " " : "", c->nccl_op,
                   isnan(c->nccl_timeout_ms) ? "" : " (watchdog)");
}

static bool stopping_signal(int sig)
{
    return sig == 2 || sig == 15 || sig == 1; /* SIGINT, SIGTERM, SIGHUP: someone stopped it */
}

static void signal_failed(gw_analysis *a, const exit_facts *f)
{
    char sig[32];
    int n = f->exit->signal;
    gw_verdict *v = failed(a, f, stopping_signal(n) ? GW_SEV_INFO : GW_SEV_CRITICAL, -1, "signal");
    signal_name(f->exit, sig, sizeof sig);
    if (n == 9)
        gw_verdict_say(v,
                       "Nothing in the output says who sent SIGKILL: the kernel's OOM killer does "
                       "when the host runs out of memory (`dmesg | grep -i oom`), and so do "
                       "schedulers at their time limit.",
                       "the job was killed by %s", sig);
    else if (stopping_signal(n))
        gw_verdict_say(v, "Stopped from outside (Ctrl-C, kill, the scheduler): nothing to fix.",
                       "the job was stopped by %s", sig);
    else
        gw_verdict_say(v,
                       "A crash in native code (a CUDA extension, a data-loading library): run "
                       "with `python -X faulthandler` to see where, or look for a core dump.",
                       "the job died of %s", sig);
}

static void judge_exit(gw_analysis *a, exit_facts *f)
{
    const gw_series_tail *tail = tail_of(a->series, f->source);
    gw_crash_scan(tail ? tail->text : "", &f->text);
    if (f->text.oom) {
        oom_verdict(a, f);
    } else if (gpu_failed(a, f)) {
    } else if (f->text.nccl_timeout) {
        nccl_failed(a, f);
    } else if (f->exit->signal > 0) {
        signal_failed(a, f);
    } else if (f->text.interrupted) {
        gw_verdict *v = failed(a, f, GW_SEV_INFO, -1, "interrupted");
        gw_verdict_say(v, "Stopped with Ctrl-C (KeyboardInterrupt): nothing to fix.",
                       "the job was interrupted (KeyboardInterrupt), exit status %s",
                       GW_FIXED(f->exit->code, 0));
    } else {
        gw_verdict *v = failed(a, f, GW_SEV_WARNING, -1, "exit_status");
        gw_verdict_text(v, "last_line", f->text.last_line);
        gw_verdict_say(v, "The end of output.log in the run directory shows what went wrong.",
                       "the job exited with status %s%s%s", GW_FIXED(f->exit->code, 0),
                       *f->text.last_error ? ": " : "", f->text.last_error);
    }
}

void gw_check_job_exit(gw_analysis *a)
{
    const gw_series *s = a->series;
    double interval_s = 0;
    for (size_t k = 0; k < a->ngpus; k++)
        interval_s = fmax(interval_s, a->gpus[k].interval_s);
    int64_t window = (int64_t)fmax(LAST_SAMPLES_MS, 2000.0 * interval_s);
    for (size_t i = 0; i < s->nevents; i++) {
        const gw_series_event *e = &s->events[i];
        if (e->kind != GW_EV_JOB_EXIT || s->inputs[e->input].kind != GW_INPUT_RUN_DIR)
            continue;
        if (e->signal <= 0 && (isnan(e->code) || e->code == 0)) /* succeeded, or unknown */
            continue;
        exit_facts f = {.exit = e, .source = source_of(s, e), .to_ms = e->t_ms};
        f.from_ms = e->t_ms - window > a->start_ms ? e->t_ms - window : a->start_ms;
        if (f.from_ms > f.to_ms)
            f.from_ms = f.to_ms;
        judge_exit(a, &f);
    }
}
