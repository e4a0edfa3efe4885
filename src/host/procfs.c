#include "host/procfs.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { GW_MAX_EXCLUDED = 16 };
/* Members whose /proc files stay open between ticks (two descriptors each): a read through an
 * open descriptor costs a third of an open + read + close, and stays bound to that process (a
 * dead one reads ESRCH, never a reused pid). Members beyond this are read by path. */
enum { GW_MAX_HELD = 128 };

/* A member of the job tree as of the last sample, with the CPU time seen then. */
typedef struct member {
    pid_t pid;
    unsigned long long starttime; /* tells a reused pid from the process we saw before */
    unsigned long long cpu_ticks; /* utime + stime */
    long rss_pages;
    pid_t ppid;
    int fd_stat, fd_children; /* held open between ticks, -1 when not */
    char state;               /* R, S, D, ... at this sample */
    bool seen;                /* found in this sample */
} member;

struct gw_procfs {
    char *root;
    pid_t job_root;
    pid_t self;
    pid_t excluded[GW_MAX_EXCLUDED];
    int64_t rescan_ns;
    int64_t last_scan_ns;
    long clk_tck;
    long page_size;
    /* host CPU counters from the previous sample */
    bool have_cpu;
    unsigned long long cpu_total, cpu_idle, cpu_iowait, cpu_steal;
    double ncpu; /* CPUs counted in /proc/stat */
    /* pids holding a GPU context (the sampler's last process list) */
    pid_t *gpu_pids;
    size_t n_gpu_pids, cap_gpu_pids;
    /* job members: previous sample's and the one being built */
    member *members;
    size_t n_members, cap_members;
    member *next;
    size_t n_next, cap_next;
    double *cpu; /* CPU % of each member of next, this sample */
    size_t cap_cpu;
    int64_t last_mono_ns;
    bool have_job_cpu;
    int fd_host_stat, fd_meminfo; /* /proc/stat and /proc/meminfo, held open on the real /proc
                                     (-1: not open); an open + close cost more than the read */
    size_t held;                  /* members with a stat descriptor held open (fd_stat >= 0) */
    size_t max_held; /* GW_MAX_HELD on the real /proc; 0 on a fake tree (tests), whose files
                        read on after their process "dies" */
};

/* Closes the descriptors still held by the n members of m. */
static void close_members(gw_procfs *p, member *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (m[i].fd_stat >= 0) {
            close(m[i].fd_stat);
            p->held--;
        }
        if (m[i].fd_children >= 0)
            close(m[i].fd_children);
        m[i].fd_stat = m[i].fd_children = -1;
    }
}

/* pread of a held /proc file from its start, NUL-terminated; -1 when the process is gone. */
static ssize_t read_held(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

gw_procfs *gw_procfs_new(const char *proc_root)
{
    gw_procfs *p = xcalloc(1, sizeof *p);
    p->root = xstrdup(proc_root ? proc_root : "/proc");
    p->max_held = strcmp(p->root, "/proc") == 0 ? GW_MAX_HELD : 0;
    p->fd_host_stat = p->fd_meminfo = -1;
    p->rescan_ns = INT64_C(2000000000);
    p->clk_tck = sysconf(_SC_CLK_TCK);
    p->page_size = sysconf(_SC_PAGESIZE);
    if (p->clk_tck <= 0)
        p->clk_tck = 100;
    if (p->page_size <= 0)
        p->page_size = 4096;
    return p;
}

void gw_procfs_free(gw_procfs *p)
{
    if (!p)
        return;
    free(p->root);
    if (p->fd_host_stat >= 0)
        close(p->fd_host_stat);
    if (p->fd_meminfo >= 0)
        close(p->fd_meminfo);
    close_members(p, p->members, p->n_members);
    free(p->members);
    free(p->next);
    free(p->gpu_pids);
    free(p->cpu);
    free(p);
}

void gw_procfs_set_gpu_pids(gw_procfs *p, const unsigned *pids, size_t n)
{
    p->gpu_pids = xgrow(p->gpu_pids, &p->cap_gpu_pids, n ? n : 1, sizeof *p->gpu_pids);
    for (size_t i = 0; i < n; i++)
        p->gpu_pids[i] = (pid_t)pids[i];
    p->n_gpu_pids = n;
}

void gw_procfs_set_job(gw_procfs *p, pid_t root, pid_t self)
{
    p->job_root = root;
    p->self = self;
    close_members(p, p->members, p->n_members);
    p->n_members = 0;
    p->have_job_cpu = false;
    p->last_scan_ns = 0;
}

void gw_procfs_set_excluded(gw_procfs *p, const pid_t *pids, size_t n)
{
    memset(p->excluded, 0, sizeof p->excluded);
    for (size_t i = 0, k = 0; i < n && k < GW_MAX_EXCLUDED; i++)
        if (pids[i] > 0)
            p->excluded[k++] = pids[i];
}

void gw_procfs_set_rescan_ms(gw_procfs *p, int64_t rescan_ms)
{
    p->rescan_ns = rescan_ms * INT64_C(1000000);
}

ssize_t gw_procfs_read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

bool gw_proc_stat_parse(const char *line, gw_proc_stat *out)
{
    /* "pid (comm) state ppid ..." where comm may contain ") ": the last ')' ends it. */
    char *end = NULL;
    long pid = strtol(line, &end, 10);
    const char *rp = strrchr(line, ')');
    if (end == line || pid <= 0 || !rp || rp < end)
        return false;
    const char *s = rp + 1;
    char state = 0;
    long ppid = 0, pgrp = 0, session = 0;
    unsigned long long utime = 0, stime = 0, starttime = 0;
    long rss = 0;
    /* fields 3.. : state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
     * stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss */
    int n = sscanf(s,
                   " %c %ld %ld %ld %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d "
                   "%llu %*u %ld",
                   &state, &ppid, &pgrp, &session, &utime, &stime, &starttime, &rss);
    if (n != 8)
        return false;
    out->pid = (pid_t)pid;
    out->ppid = (pid_t)ppid;
    out->pgrp = (pid_t)pgrp;
    out->session = (pid_t)session;
    out->state = state;
    out->utime = utime;
    out->stime = stime;
    out->starttime = starttime;
    out->rss_pages = rss;
    return true;
}

static bool read_stat(const gw_procfs *p, pid_t pid, gw_proc_stat *st)
{
    char path[256], buf[1024];
    snprintf(path, sizeof path, "%s/%d/stat", p->root, (int)pid);
    if (gw_procfs_read_small(path, buf, sizeof buf) <= 0)
        return false;
    return gw_proc_stat_parse(buf, st);
}

bool gw_procfs_comm(const char *proc_root, unsigned pid, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%u/comm", proc_root ? proc_root : "/proc", pid);
    char tmp[128];
    if (gw_procfs_read_small(path, tmp, sizeof tmp) < 0) {
        if (len)
            buf[0] = '\0';
        return false;
    }
    tmp[strcspn(tmp, "\n")] = '\0';
    snprintf(buf, len, "%s", tmp);
    return true;
}

bool gw_procfs_may_use_gpu(const char *proc_root, unsigned pid)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/%u/fd", proc_root ? proc_root : "/proc", pid);
    DIR *d = opendir(dir);
    if (!d)
        return true;
    bool found = false, any = false;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char target[128];
        ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
        if (n <= 0)
            continue;
        any = true;
        target[n] = '\0';
        found = strncmp(target, "/dev/nvidia", 11) == 0;
    }
    closedir(d);
    return found || !any;
}

/* An excluded pid, or a process in the group one of them leads (a hook and what it left). */
static bool is_excluded(const gw_procfs *p, const gw_proc_stat *st)
{
    for (int i = 0; i < GW_MAX_EXCLUDED; i++)
        if (p->excluded[i] && (p->excluded[i] == st->pid || p->excluded[i] == st->pgrp))
            return true;
    return false;
}

/* A process re-parented to `self` belongs to the job only through the job's group or session. */
static bool adopted(const gw_procfs *p, const gw_proc_stat *st)
{
    return p->self && st->ppid == p->self &&
           (st->pgrp == p->job_root || st->session == p->job_root);
}

static member *find_next(gw_procfs *p, pid_t pid)
{
    for (size_t i = 0; i < p->n_next; i++)
        if (p->next[i].pid == pid)
            return &p->next[i];
    return NULL;
}

/* The previous sample's member with this pid, or NULL. */
static member *prev_by_pid(gw_procfs *p, pid_t pid)
{
    for (size_t i = 0; i < p->n_members; i++)
        if (p->members[i].pid == pid)
            return &p->members[i];
    return NULL;
}

/* Adds pid to the tree being built, reading its stat through the descriptor the previous sample
 * held for it when there is one (which moves to the new entry), else by path; expect_start, when
 * not 0, must be its start time. Returns false when it is gone. */
static bool add_member(gw_procfs *p, pid_t pid, unsigned long long expect_start)
{
    if (pid <= 0 || find_next(p, pid))
        return false;
    gw_proc_stat st;
    char buf[1024];
    member *prev = prev_by_pid(p, pid);
    int fd = -1, fd_children = -1;
    if (prev && prev->fd_stat >= 0) {
        if (read_held(prev->fd_stat, buf, sizeof buf) > 0 && gw_proc_stat_parse(buf, &st)) {
            fd = prev->fd_stat, fd_children = prev->fd_children;
            prev->fd_stat = prev->fd_children = -1;
        } else {
            close_members(p, prev, 1);
            return false; /* that process is gone; a new one with its pid is found by path */
        }
    } else {
        char path[256];
        snprintf(path, sizeof path, "%s/%d/stat", p->root, (int)pid);
        if (p->held < p->max_held && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
            if (read_held(fd, buf, sizeof buf) <= 0 || !gw_proc_stat_parse(buf, &st)) {
                close(fd);
                return false;
            }
            p->held++;
        } else if (gw_procfs_read_small(path, buf, sizeof buf) <= 0 ||
                   !gw_proc_stat_parse(buf, &st)) {
            return false;
        }
    }
    if (st.state == 'Z' || is_excluded(p, &st) || (expect_start && st.starttime != expect_start)) {
        member gone = {.fd_stat = fd, .fd_children = fd_children};
        close_members(p, &gone, 1);
        return false;
    }
    p->next = xgrow(p->next, &p->cap_next, p->n_next + 1, sizeof *p->next);
    p->next[p->n_next++] = (member){.pid = pid,
                                    .starttime = st.starttime,
                                    .cpu_ticks = st.utime + st.stime,
                                    .rss_pages = st.rss_pages,
                                    .ppid = st.ppid,
                                    .fd_stat = fd,
                                    .fd_children = fd_children,
                                    .state = st.state,
                                    .seen = true};
    return true;
}

/* Adds the children listed in /proc/PID/task/PID/children (main thread's children) of member i,
 * through its held descriptor when it has one. */
static void add_children_of(gw_procfs *p, size_t i)
{
    char buf[4096];
    member *m = &p->next[i];
    ssize_t n;
    if (m->fd_stat >= 0 && m->fd_children < 0) {
        char path[256];
        snprintf(path, sizeof path, "%s/%d/task/%d/children", p->root, (int)m->pid, (int)m->pid);
        m->fd_children = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (m->fd_children >= 0) {
        n = read_held(m->fd_children, buf, sizeof buf);
    } else {
        char path[256];
        snprintf(path, sizeof path, "%s/%d/task/%d/children", p->root, (int)m->pid, (int)m->pid);
        n = gw_procfs_read_small(path, buf, sizeof buf);
    }
    if (n <= 0)
        return;
    char *s = buf;
    while (*s) {
        char *end = NULL;
        long c = strtol(s, &end, 10);
        if (end == s)
            break;
        add_member(p, (pid_t)c, 0);
        s = end;
    }
}

/* Full scan: adds every process whose parent is a member, or that `self` adopted from the job's
 * group or session, repeating until the tree stops growing, so grandchildren of other threads are
 * found too. Excluded processes and groups never join. */
static void full_scan(gw_procfs *p)
{
    DIR *d = opendir(p->root);
    if (!d)
        return;
    gw_proc_stat *all = NULL;
    size_t n_all = 0, cap_all = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        gw_proc_stat st;
        if (!read_stat(p, (pid_t)atol(de->d_name), &st) || st.state == 'Z' || is_excluded(p, &st))
            continue;
        all = xgrow(all, &cap_all, n_all + 1, sizeof *all);
        all[n_all++] = st;
    }
    closedir(d);
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < n_all; i++) {
            const gw_proc_stat *st = &all[i];
            if (find_next(p, st->pid))
                continue;
            if (!adopted(p, st) && !find_next(p, st->ppid))
                continue;
            p->next = xgrow(p->next, &p->cap_next, p->n_next + 1, sizeof *p->next);
            p->next[p->n_next++] = (member){.pid = st->pid,
                                            .starttime = st->starttime,
                                            .cpu_ticks = st->utime + st->stime,
                                            .rss_pages = st->rss_pages,
                                            .ppid = st->ppid,
                                            .fd_stat = -1,
                                            .fd_children = -1,
                                            .state = st->state,
                                            .seen = true};
            grew = true;
        }
    }
    free(all);
}

static const member *find_prev(const gw_procfs *p, pid_t pid, unsigned long long starttime)
{
    for (size_t i = 0; i < p->n_members; i++)
        if (p->members[i].pid == pid && p->members[i].starttime == starttime)
            return &p->members[i];
    return NULL;
}

static bool holds_gpu(const gw_procfs *p, pid_t pid)
{
    for (size_t i = 0; i < p->n_gpu_pids; i++)
        if (p->gpu_pids[i] == pid)
            return true;
    return false;
}

/* The role of member i of p->next: a GPU context holder, one of its descendants, or the rest.
 * The parent chain is followed through members only, at most 32 levels. */
static gw_role role_of(gw_procfs *p, size_t i)
{
    if (holds_gpu(p, p->next[i].pid))
        return GW_ROLE_TRAIN;
    pid_t up = p->next[i].ppid;
    for (int depth = 0; depth < 32 && up > 0; depth++) {
        if (holds_gpu(p, up))
            return GW_ROLE_WORKERS;
        const member *m = find_next(p, up);
        if (!m)
            break;
        up = m->ppid;
    }
    return GW_ROLE_REST;
}

/* Role sums over the members of p->next; cpu[i] is member i's CPU % (NAN on the first tick). */
static void sample_roles(gw_procfs *p, const double *cpu, gw_host_sample *h)
{
    double n[GW_ROLE_COUNT] = {0}, run[GW_ROLE_COUNT] = {0}, sleep[GW_ROLE_COUNT] = {0},
           dwait[GW_ROLE_COUNT] = {0};
    for (int r = 0; r < GW_ROLE_COUNT; r++)
        h->role[r] = (gw_role_sample){0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < p->n_next; i++) {
        gw_role r = role_of(p, i);
        gw_role_sample *rs = &h->role[r];
        n[r]++;
        char st = p->next[i].state;
        run[r] += st == 'R';
        sleep[r] += st == 'S' || st == 'I';
        dwait[r] += st == 'D';
        rs->cpu_pct += cpu[i];
        rs->cpu_max_pct = fmax(rs->cpu_max_pct, cpu[i]);
        rs->saturated += cpu[i] >= GW_ROLE_SATURATED_PCT;
    }
    for (int r = 0; r < GW_ROLE_COUNT; r++) {
        gw_role_sample *rs = &h->role[r];
        rs->processes = n[r];
        bool any = n[r] > 0, timed = any && !isnan(h->job_cpu_pct);
        rs->cpu_pct = timed ? rs->cpu_pct : NAN;
        rs->cpu_max_pct = timed ? rs->cpu_max_pct : NAN;
        rs->saturated = timed ? rs->saturated : NAN;
        rs->running_pct = any ? 100.0 * run[r] / n[r] : NAN;
        rs->sleeping_pct = any ? 100.0 * sleep[r] / n[r] : NAN;
        rs->disk_wait_pct = any ? 100.0 * dwait[r] / n[r] : NAN;
    }
}

static void sample_job(gw_procfs *p, int64_t mono_ns, gw_host_sample *h)
{
    p->n_next = 0;
    /* When the root is gone, orphans adopted by `self` may still be running: keep going. */
    (void)add_member(p, p->job_root, 0);
    /* Walk the known members' children (the array grows while we walk it). */
    for (size_t i = 0; i < p->n_next; i++)
        add_children_of(p, i);
    /* Previous members whose parent link we did not follow this time (children of non-main
     * threads) stay members while they live. */
    for (size_t i = 0; i < p->n_members; i++)
        if (!find_next(p, p->members[i].pid))
            add_member(p, p->members[i].pid, p->members[i].starttime);
    if (mono_ns - p->last_scan_ns >= p->rescan_ns) {
        full_scan(p);
        p->last_scan_ns = mono_ns;
    }
    double dt_s = (double)(mono_ns - p->last_mono_ns) / 1e9;
    bool timed = p->have_job_cpu && dt_s > 0;
    unsigned long long delta_ticks = 0;
    long rss_pages = 0;
    p->cpu = xgrow(p->cpu, &p->cap_cpu, p->n_next ? p->n_next : 1, sizeof *p->cpu);
    for (size_t i = 0; i < p->n_next; i++) {
        const member *m = &p->next[i];
        const member *prev = find_prev(p, m->pid, m->starttime);
        /* A process born since the last sample contributes all its CPU time so far. */
        unsigned long long d =
            prev ? (m->cpu_ticks >= prev->cpu_ticks ? m->cpu_ticks - prev->cpu_ticks : 0)
                 : m->cpu_ticks;
        delta_ticks += d;
        p->cpu[i] = timed ? 100.0 * (double)d / (double)p->clk_tck / dt_s : NAN;
        rss_pages += m->rss_pages;
    }
    h->job_processes = (double)p->n_next;
    h->job_rss_mib = (double)rss_pages * (double)p->page_size / (1024.0 * 1024.0);
    h->job_cpu_pct = timed ? 100.0 * (double)delta_ticks / (double)p->clk_tck / dt_s : NAN;
    sample_roles(p, p->cpu, h);
    if (!isnan(h->cpu_util_pct) && !isnan(h->job_cpu_pct) && p->ncpu > 0)
        h->others_pct = fmax(0.0, h->cpu_util_pct - h->job_cpu_pct / p->ncpu);
    /* Swap the arrays: next becomes the current member list; what the old one still holds is
     * of processes that left the job. */
    close_members(p, p->members, p->n_members);
    member *tm = p->members;
    size_t tc = p->cap_members;
    p->members = p->next;
    p->cap_members = p->cap_next;
    p->n_members = p->n_next;
    p->next = tm;
    p->cap_next = tc;
    p->n_next = 0;
    p->have_job_cpu = true;
}

/* The "cpuN" lines of /proc/stat; when the read was cut short, the online CPUs instead. */
static double count_cpus(const char *stat, bool truncated)
{
    double n = 0;
    for (const char *s = strstr(stat, "\ncpu"); s; s = strstr(s + 1, "\ncpu"))
        n += isdigit((unsigned char)s[4]) != 0;
    if (truncated || n < 1) {
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        n = on > 0 ? (double)on : n;
    }
    return n;
}

/* A host file (NAME under the root) into buf: through the descriptor *fd, held open between
 * ticks on the real /proc (opened at the first read), by path on a fake tree (tests rewrite
 * its files). -1 when unreadable. */
static ssize_t read_host_file(gw_procfs *p, const char *name, int *fd, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", p->root, name);
    if (p->max_held == 0)
        return gw_procfs_read_small(path, buf, len);
    if (*fd < 0)
        *fd = open(path, O_RDONLY | O_CLOEXEC);
    return *fd < 0 ? -1 : read_held(*fd, buf, len);
}

/* The counters of /proc/stat's first line ("cpu  user nice system idle iowait irq softirq
 * steal ..."), up to 8 into v; how many were read. */
static int parse_cpu_line(const char *s, unsigned long long v[8])
{
    if (strncmp(s, "cpu ", 4) != 0)
        return 0;
    s += 4;
    int n = 0;
    while (n < 8) {
        while (*s == ' ')
            s++;
        if (!isdigit((unsigned char)*s))
            break;
        unsigned long long x = 0;
        while (isdigit((unsigned char)*s))
            x = x * 10 + (unsigned long long)(*s++ - '0');
        v[n++] = x;
    }
    return n;
}

static void sample_host(gw_procfs *p, gw_host_sample *h)
{
    char buf[4096];
    unsigned long long v[8] = {0};
    ssize_t got = read_host_file(p, "stat", &p->fd_host_stat, buf, sizeof buf);
    if (got > 0 && parse_cpu_line(buf, v) >= 4) {
        unsigned long long total = 0;
        for (int i = 0; i < 8; i++)
            total += v[i];
        unsigned long long idle = v[3] + v[4];
        if (p->have_cpu && total > p->cpu_total) {
            double dt = (double)(total - p->cpu_total);
            double di = idle >= p->cpu_idle ? (double)(idle - p->cpu_idle) : 0;
            h->cpu_util_pct = fmax(0.0, fmin(100.0, 100.0 * (1.0 - di / dt)));
            double dw = v[4] >= p->cpu_iowait ? (double)(v[4] - p->cpu_iowait) : 0;
            double ds = v[7] >= p->cpu_steal ? (double)(v[7] - p->cpu_steal) : 0;
            h->iowait_pct = fmin(100.0, 100.0 * dw / dt);
            h->steal_pct = fmin(100.0, 100.0 * ds / dt);
        }
        if (!p->have_cpu)
            p->ncpu = count_cpus(buf, (size_t)got + 1 >= sizeof buf);
        p->cpu_total = total;
        p->cpu_idle = idle;
        p->cpu_iowait = v[4];
        p->cpu_steal = v[7];
        p->have_cpu = true;
    }
    if (read_host_file(p, "meminfo", &p->fd_meminfo, buf, sizeof buf) > 0) {
        /* Two keys of ~50 lines: compare prefixes instead of sscanf on every line. */
        double total_kb = NAN, avail_kb = NAN;
        for (char *line = buf; line && *line;) {
            if (strncmp(line, "MemTotal:", 9) == 0)
                total_kb = strtod(line + 9, NULL);
            else if (strncmp(line, "MemAvailable:", 13) == 0)
                avail_kb = strtod(line + 13, NULL);
            line = strchr(line, '\n');
            if (line)
                line++;
        }
        if (!isnan(total_kb)) {
            h->mem_total_mib = total_kb / 1024.0;
            if (!isnan(avail_kb))
                h->mem_used_mib = (total_kb - avail_kb) / 1024.0;
        }
    }
}

void gw_procfs_sample(gw_procfs *p, int64_t mono_ns, gw_host_sample *h)
{
    *h = gw_host_sample_absent();
    sample_host(p, h);
    if (p->job_root > 0)
        sample_job(p, mono_ns, h);
    p->last_mono_ns = mono_ns;
}

bool gw_procfs_in_job(const gw_procfs *p, unsigned pid)
{
    for (size_t i = 0; i < p->n_members; i++)
        if ((unsigned)p->members[i].pid == pid)
            return true;
    return false;
}

size_t gw_procfs_job_pids(const gw_procfs *p, pid_t *out, size_t cap)
{
    size_t n = p->n_members < cap ? p->n_members : cap;
    for (size_t i = 0; i < n; i++)
        out[i] = p->members[i].pid;
    return n;
}
