/* top's process details from /proc: user, CPU %, host memory, elapsed time, command, role and
 * recorded run of every GPU process (top.h). Reads through src/host. */
#include "top/top.h"

#include "host/procfs.h"
#include "host/procinfo.h"
#include "util/gw_time.h"
#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cpu_mark {
    unsigned pid;
    unsigned long long starttime; /* tells a reused pid apart */
    unsigned long long ticks;     /* utime + stime */
} cpu_mark;

struct gw_top_procs {
    char root[256];
    cpu_mark *prev;
    size_t nprev;
    int64_t prev_ns;
    double hz, page_mib;
};

gw_top_procs *gw_top_procs_new(const char *proc_root)
{
    gw_top_procs *p = xcalloc(1, sizeof *p);
    snprintf(p->root, sizeof p->root, "%s", proc_root ? proc_root : "/proc");
    long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    p->hz = hz > 0 ? (double)hz : 100.0;
    p->page_mib = (page > 0 ? (double)page : 4096.0) / (1024.0 * 1024.0);
    return p;
}

void gw_top_procs_free(gw_top_procs *p)
{
    if (!p)
        return;
    free(p->prev);
    free(p);
}

static bool read_stat(const gw_top_procs *p, unsigned pid, gw_proc_stat *st)
{
    char path[300], line[1024];
    snprintf(path, sizeof path, "%s/%u/stat", p->root, pid);
    return gw_procfs_read_small(path, line, sizeof line) > 0 && gw_proc_stat_parse(line, st);
}

bool gw_top_env_run_dir(const char *env, size_t n, char *buf, size_t len)
{
    static const char key[] = "GPUWATCH_RUN_DIR=";
    size_t k = sizeof key - 1;
    for (size_t i = 0; i < n;) {
        size_t end = i;
        while (end < n && env[end])
            end++;
        if (end - i > k && memcmp(env + i, key, k) == 0) {
            gw_utf8_clean(buf, len, env + i + k, end - i - k);
            return true;
        }
        i = end + 1;
    }
    if (len)
        buf[0] = '\0';
    return false;
}

/* GPUWATCH_RUN_DIR of pid or its nearest ancestor that has it (a DataLoader worker inherits it;
 * a process started under `gpuwatch run` has it). Environments of other users' processes are not
 * readable: "" then. */
static void run_dir_of(const gw_top_procs *p, unsigned pid, char *buf, size_t len)
{
    static char env[65536];
    buf[0] = '\0';
    for (int level = 0; pid > 1 && level < 8; level++) {
        char path[300];
        snprintf(path, sizeof path, "%s/%u/environ", p->root, pid);
        ssize_t n = gw_procfs_read_small(path, env, sizeof env);
        if (n > 0 && gw_top_env_run_dir(env, (size_t)n, buf, len))
            return;
        gw_proc_stat st;
        if (!read_stat(p, pid, &st))
            return;
        pid = (unsigned)st.ppid;
    }
}

/* True when an ancestor of pid is one of the GPU processes of s. */
static bool has_gpu_ancestor(const gw_top_procs *p, const gw_sample *s, unsigned ppid)
{
    for (int level = 0; ppid > 1 && level < 16; level++) {
        for (unsigned i = 0; i < s->proc_count; i++)
            if (s->procs[i].pid == ppid)
                return true;
        gw_proc_stat st;
        if (!read_stat(p, ppid, &st))
            return false;
        ppid = (unsigned)st.ppid;
    }
    return false;
}

static double uptime_s(const gw_top_procs *p)
{
    char path[300], buf[128];
    snprintf(path, sizeof path, "%s/uptime", p->root);
    if (gw_procfs_read_small(path, buf, sizeof buf) <= 0)
        return NAN;
    return strtod(buf, NULL);
}

static void fill_one(gw_top_procs *p, const gw_sample *s, const gw_gpu_process *g, double up,
                     double dt_s, cpu_mark *mark, gw_top_proc *out)
{
    memset(out, 0, sizeof *out);
    out->pid = g->pid;
    out->gpu = g->gpu;
    out->gpu_mib = g->used_valid ? g->used_mib : NAN;
    out->cpu_pct = out->rss_mib = out->elapsed_s = NAN;
    gw_proc_stat st;
    if (!read_stat(p, g->pid, &st)) {
        snprintf(out->cmd, sizeof out->cmd, "%s", g->name[0] ? g->name : "(another container)");
        return;
    }
    out->visible = true;
    out->ppid = (unsigned)st.ppid;
    out->rss_mib = (double)st.rss_pages * p->page_mib;
    if (!isnan(up))
        out->elapsed_s = fmax(0.0, up - (double)st.starttime / p->hz);
    mark->pid = g->pid;
    mark->starttime = st.starttime;
    mark->ticks = st.utime + st.stime;
    for (size_t i = 0; i < p->nprev && dt_s > 0; i++)
        if (p->prev[i].pid == g->pid && p->prev[i].starttime == st.starttime &&
            mark->ticks >= p->prev[i].ticks)
            out->cpu_pct = 100.0 * (double)(mark->ticks - p->prev[i].ticks) / p->hz / dt_s;
    unsigned uid;
    if (gw_procinfo_uid(p->root, g->pid, &uid))
        gw_procinfo_user_name(uid, out->user, sizeof out->user);
    char raw[1024];
    size_t n = 0;
    if (gw_procinfo_cmdline(p->root, g->pid, raw, sizeof raw, &n) && n > 0) {
        /* the program without its directory: "python3 train.py", not 40 columns of a venv path */
        const char *end0 = memchr(raw, '\0', n);
        size_t prog = 0, len0 = end0 ? (size_t)(end0 - raw) : n;
        for (size_t i = 0; i + 1 < len0; i++)
            if (raw[i] == '/')
                prog = i + 1;
        for (size_t i = prog; i < n; i++)
            if (raw[i] == '\0')
                raw[i] = ' ';
        gw_utf8_clean(out->cmd, sizeof out->cmd, raw + prog, n - prog);
    } else {
        gw_utf8_clean(out->cmd, sizeof out->cmd, g->name, strlen(g->name));
    }
    out->role = has_gpu_ancestor(p, s, out->ppid) ? GW_TOP_ROLE_WORKER : GW_TOP_ROLE_TRAIN;
    run_dir_of(p, g->pid, out->run, sizeof out->run);
}

void gw_top_procs_update(gw_top_procs *p, gw_top_model *m, const gw_sample *s)
{
    unsigned n = s->proc_count;
    gw_top_proc *rows = n ? xcalloc(n, sizeof *rows) : NULL;
    cpu_mark *marks = n ? xcalloc(n, sizeof *marks) : NULL;
    int64_t now = gw_mono_ns();
    double dt = p->prev_ns ? (double)(now - p->prev_ns) / 1e9 : 0.0;
    double up = uptime_s(p);
    for (unsigned i = 0; i < n; i++)
        fill_one(p, s, &s->procs[i], up, dt, &marks[i], &rows[i]);
    gw_top_model_set_procs(m, rows, n);
    free(p->prev);
    p->prev = marks;
    p->nprev = n;
    p->prev_ns = now;
    free(rows);
}
