#include "serve/jobmap.h"

#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* MAX_JOBS_PER_GPU (its file and its index.MIG files together): more job ids than any GPU's shards
 * or oversubscription give, few enough that junk cannot multiply every series of a GPU by
 * thousands; MAX_ENTRIES bounds a directory of thousands of such files. */
enum {
    MAX_FILE_BYTES = 65536,
    MAX_ID = 128,
    MAX_FILES = 4096,
    MAX_JOBS_PER_GPU = 256,
    MAX_ENTRIES = 16384
};

/* One job on one GPU (or MIG instance). */
typedef struct job_entry {
    unsigned gpu;
    int mig; /* GPU instance, -1 for the whole GPU */
    char *job;
    char *user; /* NULL when unknown */
} job_entry;

struct gw_jobmap {
    char *dir;
    gw_jobmap_warn_fn warn;
    void *ctx;
    bool warned;
    bool warned_junk; /* a line that is not a job id was reported */
    gw_buf seen;      /* what the last read found, to tell a change */
    job_entry *entries;
    unsigned nentries;
    /* gw_jobmap_jobs' answer */
    const char **ids;
    unsigned nids;
    /* gw_jobmap_apply's view */
    gw_prom_snapshot view;
    char **view_labels;
    unsigned nview_labels;
};

gw_jobmap *gw_jobmap_new(const char *dir, gw_jobmap_warn_fn warn, void *ctx)
{
    gw_jobmap *m = xcalloc(1, sizeof *m);
    m->dir = xstrdup(dir);
    m->warn = warn;
    m->ctx = ctx;
    return m;
}

static void free_entries(gw_jobmap *m)
{
    for (unsigned i = 0; i < m->nentries; i++) {
        free(m->entries[i].job);
        free(m->entries[i].user);
    }
    free(m->entries);
    m->entries = NULL;
    m->nentries = 0;
}

static void free_view(gw_jobmap *m)
{
    free(m->view.devs);
    free(m->view.gpus);
    free(m->view.last_xid);
    free(m->view.xid_count);
    free(m->view.procs);
    memset(&m->view, 0, sizeof m->view);
    for (unsigned i = 0; i < m->nview_labels; i++)
        free(m->view_labels[i]);
    free(m->view_labels);
    m->view_labels = NULL;
    m->nview_labels = 0;
}

void gw_jobmap_free(gw_jobmap *m)
{
    if (!m)
        return;
    free_entries(m);
    free_view(m);
    free(m->ids);
    gw_buf_free(&m->seen);
    free(m->dir);
    free(m);
}

/* "3" -> gpu 3, mig -1; "3.1" -> gpu 3, mig 1; false for any other name. */
static bool parse_name(const char *name, unsigned *gpu, int *mig)
{
    char *end = NULL;
    if (name[0] < '0' || name[0] > '9')
        return false;
    unsigned long g = strtoul(name, &end, 10);
    if (g > 65535)
        return false;
    *gpu = (unsigned)g;
    *mig = -1;
    if (*end == '\0')
        return true;
    if (*end != '.' || end[1] < '0' || end[1] > '9')
        return false;
    unsigned long i = strtoul(end + 1, &end, 10);
    if (*end != '\0' || i > 65535)
        return false;
    *mig = (int)i;
    return true;
}

/* Reads at most MAX_FILE_BYTES of path into b (NUL-terminated); false when it cannot be read or
 * is not a regular file. A symlink is not followed (a link to /etc/shadow must not become labels)
 * and a FIFO is not waited on (it would hang every scrape). */
static bool read_small(const char *path, gw_buf *b)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    char chunk[4096];
    size_t total = 0;
    while (total < MAX_FILE_BYTES) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        gw_buf_append(b, chunk, (size_t)n);
        total += (size_t)n;
    }
    close(fd);
    return true;
}

/* A job id or user name as schedulers write them: 1 to MAX_ID of [A-Za-z0-9._+@-] ("123",
 * "123_4" array task, "123+1" heterogeneous component, "123.server" PBS, "ann@site"). Anything
 * else (binary junk, another file's text) is no id: Prometheus would refuse a scrape whose label
 * is not UTF-8, and the exporter must not publish what a file holds besides job ids. */
static bool valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MAX_ID)
        return false;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '.' || c == '_' || c == '+' || c == '@' || c == '-'))
            return false;
    }
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The user of a job: DIR/.jobs/JOB's "user=" line, else NULL. Appends what it read to seen. */
static char *job_user(gw_jobmap *m, const char *job)
{
    if (strchr(job, '/') || job[0] == '.')
        return NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/.jobs/%s", m->dir, job);
    gw_buf b = {0};
    char *user = NULL;
    if (read_small(path, &b) && b.data) {
        gw_buf_printf(&m->seen, ".jobs/%s\n%s\n", job, b.data);
        for (char *save = NULL, *line = strtok_r(b.data, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            if (strncmp(line, "user=", 5) == 0 && valid_id(line + 5)) {
                user = xstrdup(line + 5);
                break;
            }
        }
    }
    gw_buf_free(&b);
    return user;
}

static void warn_junk(gw_jobmap *m, const char *name, const char *why)
{
    if (m->warned_junk || !m->warn)
        return;
    m->warned_junk = true;
    char msg[4400];
    snprintf(msg, sizeof msg,
             "job mapping file %s/%s: %s; ignored (each line must be a job id of at most %d "
             "characters [A-Za-z0-9._+@-], optionally followed by a user); said once",
             m->dir, name, why, MAX_ID);
    m->warn(m->ctx, msg);
}

/* Adds the lines of one mapping file (len bytes of text, NUL-terminated). */
static void add_file(gw_jobmap *m, const char *name, unsigned gpu, int mig, char *text, size_t len,
                     unsigned *cap)
{
    if (memchr(text, '\0', len)) {
        warn_junk(m, name, "binary content");
        return;
    }
    /* names are sorted ("1" < "1.2" < "10"): a GPU's entries so far are the last ones */
    unsigned start = m->nentries;
    while (start > 0 && m->entries[start - 1].gpu == gpu)
        start--;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char job[MAX_ID + 2] = "", second[MAX_ID + 2] = "";
        if (sscanf(line, "%129s %129s", job, second) < 1 || !job[0])
            continue;
        if (!valid_id(job)) {
            warn_junk(m, name, "a line that is not a job id");
            continue;
        }
        if (second[0] && !valid_id(second))
            second[0] = '\0';
        bool dup = false;
        for (unsigned i = start; i < m->nentries && !dup; i++)
            dup = m->entries[i].mig == mig && strcmp(m->entries[i].job, job) == 0;
        if (dup)
            continue;
        if (m->nentries - start == MAX_JOBS_PER_GPU || m->nentries == MAX_ENTRIES) {
            warn_junk(m, name, "more than 256 job ids for one GPU (or 16384 in all), the rest");
            break;
        }
        if (m->nentries == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            m->entries = xrealloc(m->entries, *cap * sizeof *m->entries);
        }
        char *user = job_user(m, job);
        if (!user && second[0])
            user = xstrdup(second);
        m->entries[m->nentries++] = (job_entry){gpu, mig, xstrdup(job), user};
    }
}

bool gw_jobmap_reload(gw_jobmap *m)
{
    gw_buf old = m->seen;
    m->seen = (gw_buf){0};
    DIR *d = opendir(m->dir);
    if (!d) {
        if (!m->warned && m->warn) {
            char msg[4400];
            snprintf(msg, sizeof msg,
                     "cannot read the job mapping directory %s (%s): GPUs are served without "
                     "the hpc_job label until it can be read; create it (the Slurm prolog "
                     "does) or fix --hpc-job-mapping-dir",
                     m->dir, strerror(errno));
            m->warn(m->ctx, msg);
        }
        m->warned = true;
        free_entries(m);
        bool changed = old.len > 0;
        gw_buf_free(&old);
        return changed;
    }
    m->warned = false;
    char **names = NULL;
    size_t nnames = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL && nnames < MAX_FILES;) {
        unsigned gpu;
        int mig;
        if (!parse_name(de->d_name, &gpu, &mig))
            continue;
        names = xrealloc(names, (nnames + 1) * sizeof *names);
        names[nnames++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (names)
        qsort(names, nnames, sizeof *names, cmp_names);
    free_entries(m);
    unsigned cap = 0;
    for (size_t i = 0; i < nnames; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", m->dir, names[i]);
        gw_buf text = {0};
        if (read_small(path, &text)) { /* a directory or a vanished file is skipped */
            gw_buf_printf(&m->seen, "%s\n%s\n", names[i], text.data ? text.data : "");
            unsigned gpu;
            int mig;
            if (text.data && parse_name(names[i], &gpu, &mig))
                add_file(m, names[i], gpu, mig, text.data, text.len, &cap);
        }
        gw_buf_free(&text);
        free(names[i]);
    }
    free(names);
    bool changed =
        old.len != m->seen.len || (old.len && memcmp(old.data, m->seen.data, old.len) != 0);
    gw_buf_free(&old);
    return changed;
}

const char *const *gw_jobmap_jobs(const gw_jobmap *m, unsigned index, unsigned *n)
{
    gw_jobmap *w = (gw_jobmap *)m; /* the answer's array is a cache */
    free(w->ids);
    w->ids = xcalloc(m->nentries + 1, sizeof *w->ids);
    w->nids = 0;
    for (unsigned i = 0; i < m->nentries; i++) {
        if (m->entries[i].gpu != index)
            continue;
        bool dup = false;
        for (unsigned k = 0; k < w->nids && !dup; k++)
            dup = strcmp(w->ids[k], m->entries[i].job) == 0;
        if (!dup)
            w->ids[w->nids++] = m->entries[i].job;
    }
    *n = w->nids;
    return w->ids;
}

void gw_jobmap_apply(gw_jobmap *m, const gw_prom_snapshot *snap, const char *const *labels,
                     const gw_prom_snapshot **out_snap, const char *const **out_labels)
{
    free_view(m);
    *out_snap = snap;
    *out_labels = labels;
    if (!m->nentries || !snap->ndev)
        return;
    /* first[i]: position of GPU i's first copy in the view; count[i]: its copies */
    unsigned *first = xcalloc(snap->ndev, sizeof *first),
             *count = xcalloc(snap->ndev, sizeof *count);
    unsigned total = 0;
    for (unsigned i = 0; i < snap->ndev; i++) {
        unsigned n = 0;
        gw_jobmap_jobs(m, snap->devs[i].index, &n);
        first[i] = total;
        count[i] = n ? n : 1;
        total += count[i];
    }
    gw_prom_snapshot *v = &m->view;
    *v = *snap;
    v->ndev = total;
    v->devs = xcalloc(total, sizeof *v->devs);
    v->gpus = xcalloc(total, sizeof *v->gpus);
    v->last_xid = xcalloc(total, sizeof *v->last_xid);
    v->xid_count = xcalloc(total, sizeof *v->xid_count);
    m->view_labels = xcalloc(total, sizeof *m->view_labels);
    m->nview_labels = total;
    for (unsigned i = 0; i < snap->ndev; i++) {
        unsigned n = 0;
        const char *const *ids = gw_jobmap_jobs(m, snap->devs[i].index, &n);
        for (unsigned k = 0; k < count[i]; k++) {
            unsigned at = first[i] + k;
            v->devs[at] = snap->devs[i];
            if (snap->gpus)
                v->gpus[at] = snap->gpus[i];
            if (snap->last_xid)
                v->last_xid[at] = snap->last_xid[i];
            if (snap->xid_count)
                v->xid_count[at] = snap->xid_count[i];
            gw_buf b = {0};
            gw_buf_puts(&b, labels[i] ? labels[i] : "");
            if (n) {
                gw_buf_puts(&b, ",hpc_job=\"");
                gw_prom_escape_label(&b, ids[k]);
                gw_buf_puts(&b, "\"");
            }
            m->view_labels[at] = b.data ? b.data : xstrdup("");
        }
    }
    v->nprocs = 0;
    v->procs = NULL;
    v->procs_cap = 0;
    size_t nprocs = 0;
    for (size_t p = 0; p < snap->nprocs; p++)
        if (snap->procs[p].dev < snap->ndev)
            nprocs += count[snap->procs[p].dev];
    if (nprocs) {
        v->procs = xcalloc(nprocs, sizeof *v->procs);
        for (size_t p = 0; p < snap->nprocs; p++) {
            unsigned dev = snap->procs[p].dev;
            if (dev >= snap->ndev)
                continue;
            for (unsigned k = 0; k < count[dev]; k++) {
                v->procs[v->nprocs] = snap->procs[p];
                v->procs[v->nprocs++].dev = first[dev] + k;
            }
        }
        v->procs_cap = nprocs;
    }
    free(first);
    free(count);
    *out_snap = v;
    *out_labels = (const char *const *)m->view_labels;
}

void gw_jobmap_render_info(const gw_jobmap *m, gw_buf *b, gw_prom_format f,
                           const gw_prom_snapshot *snap, const char *const *labels)
{
    (void)f; /* a gauge reads the same in both formats */
    bool any = false;
    for (unsigned i = 0; i < snap->ndev; i++) {
        for (unsigned k = 0; k < m->nentries; k++) {
            const job_entry *j = &m->entries[k];
            if (j->gpu != snap->devs[i].index)
                continue;
            if (!any) {
                gw_buf_puts(b, "# HELP gpuwatch_job_info 1 for each GPU (or MIG instance) and "
                               "the job the mapping directory gives it; join on gpu and "
                               "Hostname.\n# TYPE gpuwatch_job_info gauge\n");
                any = true;
            }
            gw_buf_printf(b, "gpuwatch_job_info{%s,hpc_job=\"", labels[i] ? labels[i] : "");
            gw_prom_escape_label(b, j->job);
            gw_buf_puts(b, "\"");
            if (j->user) {
                gw_buf_puts(b, ",user=\"");
                gw_prom_escape_label(b, j->user);
                gw_buf_puts(b, "\"");
            }
            if (j->mig >= 0)
                gw_buf_printf(b, ",GPU_I_ID=\"%d\"", j->mig);
            gw_buf_puts(b, "} 1\n");
        }
    }
}
