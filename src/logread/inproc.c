/* In-job data reader: RUN/python/PID.jsonl records into the model of inproc.h. */
#include "logread/inproc.h"

#include "util/gw_fmt.h"
#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The largest count or duration a record may hold: beyond it the record is absurd. */
#define MAX_VALUE 1e12
/* Unix seconds of a sane record: 2001 .. 2286. */
#define T_MIN 1e9
#define T_MAX 1e10

static const char *const role_names[GW_INPROC_ROLES] = {"main", "worker", "other"};

const char *gw_inproc_role_name(gw_inproc_role r)
{
    return (unsigned)r < GW_INPROC_ROLES ? role_names[r] : "other";
}

/* A number member; NAN when absent, null, not a number or absurd (*bad set then). */
static double num(const cJSON *o, const char *key, bool *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        return NAN;
    if (!gw_fmt_sane(v->valuedouble) || fabs(v->valuedouble) > MAX_VALUE) {
        if (bad)
            *bad = true;
        return NAN;
    }
    return v->valuedouble;
}

/* A count or duration: >= 0 or the record is absurd. */
static double amount(const cJSON *o, const char *key, bool *bad)
{
    double x = num(o, key, bad);
    if (x < 0) {
        *bad = true;
        return NAN;
    }
    return x;
}

static double when(const cJSON *o, const char *key, bool *bad)
{
    double t = num(o, key, bad);
    if (!isnan(t) && (t < T_MIN || t > T_MAX))
        *bad = true;
    return t;
}

static long id_of(double x, long fallback)
{
    return x >= -1e9 && x <= 1e9 ? (long)x : fallback;
}

static int boolean(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

static char *text(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return gw_utf8_clean_dup(cJSON_IsString(v) ? v->valuestring : "");
}

static gw_inproc_proc *proc_get(gw_inproc *in, long pid)
{
    for (size_t i = 0; i < in->nprocs; i++)
        if (in->procs[i].pid == pid)
            return &in->procs[i];
    in->procs = xgrow(in->procs, &in->procs_cap, in->nprocs + 1, sizeof *in->procs);
    gw_inproc_proc *p = &in->procs[in->nprocs++];
    *p = (gw_inproc_proc){.pid = pid,
                          .ppid = -1,
                          .role = GW_INPROC_OTHER,
                          .worker_id = -1,
                          .python = xstrdup(""),
                          .torch = xstrdup(""),
                          .start_method = xstrdup(""),
                          .rank = -1,
                          .local_rank = -1,
                          .world_size = -1,
                          .t_first = NAN,
                          .t_last = NAN,
                          .samples = NAN,
                          .interval_s = NAN,
                          .sampler_cpu_s = NAN};
    return p;
}

gw_inproc_role gw_inproc_role_of(const gw_inproc *in, const gw_inproc_proc *p)
{
    if (p->role != GW_INPROC_MAIN || in->nloaders == 0)
        return p->role;
    for (size_t i = 0; i < in->nloaders; i++)
        if (in->loaders[i].pid == p->pid)
            return GW_INPROC_MAIN;
    return GW_INPROC_OTHER;
}

const gw_inproc_proc *gw_inproc_proc_of(const gw_inproc *in, long pid)
{
    for (size_t i = 0; in && i < in->nprocs; i++)
        if (in->procs[i].pid == pid)
            return &in->procs[i];
    return NULL;
}

/* The loader (pid, id), created when new. */
static size_t loader_get(gw_inproc *in, long pid, long id)
{
    for (size_t i = 0; i < in->nloaders; i++)
        if (in->loaders[i].pid == pid && in->loaders[i].id == id)
            return i;
    in->loaders = xgrow(in->loaders, &in->loaders_cap, in->nloaders + 1, sizeof *in->loaders);
    in->loaders[in->nloaders] = (gw_inproc_loader){.pid = pid,
                                                   .id = id,
                                                   .num_workers = NAN,
                                                   .batch_size = NAN,
                                                   .prefetch_factor = NAN,
                                                   .batches = NAN,
                                                   .pin_memory = -1,
                                                   .persistent_workers = -1,
                                                   .drop_last = -1,
                                                   .dataset = xstrdup(""),
                                                   .sampler = xstrdup(""),
                                                   .created_at = xstrdup(""),
                                                   .objects = 1};
    return in->nloaders++;
}

static void set_text(char **dst, char *src)
{
    free(*dst);
    *dst = src;
}

static bool read_process(gw_inproc_proc *p, const cJSON *o)
{
    const cJSON *role = cJSON_GetObjectItemCaseSensitive(o, "role");
    if (cJSON_IsString(role))
        p->role = strcmp(role->valuestring, "main") == 0     ? GW_INPROC_MAIN
                  : strcmp(role->valuestring, "worker") == 0 ? GW_INPROC_WORKER
                                                             : GW_INPROC_OTHER;
    bool bad = false;
    p->ppid = id_of(num(o, "ppid", &bad), -1);
    p->worker_id = id_of(num(o, "worker_id", &bad), -1);
    p->rank = id_of(num(o, "rank", &bad), -1);
    p->local_rank = id_of(num(o, "local_rank", &bad), -1);
    p->world_size = id_of(num(o, "world_size", &bad), -1);
    set_text(&p->python, text(o, "python"));
    set_text(&p->torch, text(o, "torch"));
    set_text(&p->start_method, text(o, "start_method"));
    return !bad;
}

static bool read_settings(gw_inproc_proc *p, const cJSON *o)
{
    bool bad = false;
    gw_inproc_settings *s = &p->settings;
    s->present = true;
    s->torch_num_threads = amount(o, "torch_num_threads", &bad);
    s->torch_num_interop_threads = amount(o, "torch_num_interop_threads", &bad);
    s->cv2_num_threads = num(o, "cv2_num_threads", &bad); /* cv2: -1 and 0 are settings too */
    s->cudnn_benchmark = boolean(o, "cudnn_benchmark");
    s->autocast_used = boolean(o, "autocast_used");
    s->torch_compile_used = boolean(o, "torch_compile_used");
    s->affinity_cores = amount(o, "affinity_cores", &bad);
    s->cgroup_cpu_limit_cores = amount(o, "cgroup_cpu_limit_cores", &bad);
    s->os_cpu_count = amount(o, "os_cpu_count", &bad);
    return !bad;
}

static bool read_loader(gw_inproc *in, long pid, const cJSON *o)
{
    bool bad = false;
    long id = id_of(num(o, "loader", &bad), -1);
    if (id < 0)
        return false;
    size_t at = loader_get(in, pid, id); /* may move the array */
    gw_inproc_loader *l = &in->loaders[at];
    l->num_workers = amount(o, "num_workers", &bad);
    l->batch_size = amount(o, "batch_size", &bad);
    l->prefetch_factor = amount(o, "prefetch_factor", &bad);
    l->batches = amount(o, "batches", &bad);
    l->pin_memory = boolean(o, "pin_memory");
    l->persistent_workers = boolean(o, "persistent_workers");
    l->drop_last = boolean(o, "drop_last");
    set_text(&l->dataset, text(o, "dataset"));
    set_text(&l->sampler, text(o, "sampler"));
    set_text(&l->created_at, text(o, "created_at"));
    return !bad;
}

/* loader, pass, and the amounts shared by "pass" and "steps". */
static bool read_interval(gw_inproc *in, long pid, const cJSON *o, const char *t0, const char *t1,
                          size_t *loader, long *pass, double v[5])
{
    bool bad = false;
    long id = id_of(num(o, "loader", &bad), -1);
    *pass = id_of(num(o, "pass", &bad), -1);
    v[0] = when(o, t0, &bad);
    v[1] = when(o, t1, &bad);
    v[2] = amount(o, "steps", &bad);
    v[3] = amount(o, "wait_s", &bad);
    v[4] = amount(o, "between_s", &bad);
    if (bad || id < 0 || *pass < 0 || isnan(v[0]) || isnan(v[1]) || v[1] < v[0] || isnan(v[2]))
        return false;
    for (int k = 3; k < 5; k++)
        if (isnan(v[k]))
            return false;
    *loader = loader_get(in, pid, id);
    return true;
}

static bool read_pass(gw_inproc *in, long pid, const cJSON *o)
{
    size_t loader;
    long pass;
    double v[5];
    if (!read_interval(in, pid, o, "t_start", "t_end", &loader, &pass, v))
        return false;
    bool bad = false;
    double first = amount(o, "first_wait_s", &bad);
    in->passes = xgrow(in->passes, &in->passes_cap, in->npasses + 1, sizeof *in->passes);
    in->passes[in->npasses++] = (gw_inproc_pass){.loader = loader,
                                                 .pass = pass,
                                                 .t_start = v[0],
                                                 .t_end = v[1],
                                                 .steps = v[2],
                                                 .wait_s = v[3],
                                                 .between_s = v[4],
                                                 .first_wait_s = first,
                                                 .complete = boolean(o, "complete") == 1};
    return !bad;
}

static bool read_steps(gw_inproc *in, long pid, const cJSON *o)
{
    size_t loader;
    long pass;
    double v[5];
    if (!read_interval(in, pid, o, "t0", "t1", &loader, &pass, v))
        return false;
    in->steps = xgrow(in->steps, &in->steps_cap, in->nsteps + 1, sizeof *in->steps);
    in->steps[in->nsteps++] = (gw_inproc_steps){loader, pass, v[0], v[1], v[2], v[3], v[4]};
    return true;
}

static bool read_memory(gw_inproc *in, long pid, const cJSON *o, double t)
{
    bool bad = false;
    gw_inproc_memory m = {.pid = pid,
                          .device = id_of(num(o, "device", &bad), -1),
                          .t = t,
                          .allocated_bytes = amount(o, "allocated_bytes", &bad),
                          .reserved_bytes = amount(o, "reserved_bytes", &bad),
                          .max_allocated_bytes = amount(o, "max_allocated_bytes", &bad)};
    if (bad)
        return false;
    in->memory = xgrow(in->memory, &in->memory_cap, in->nmemory + 1, sizeof *in->memory);
    in->memory[in->nmemory++] = m;
    return true;
}

static bool read_record(gw_inproc *in, long pid, const cJSON *o)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    bool bad = false;
    double t = when(o, "t", &bad);
    if (!cJSON_IsString(kind) || isnan(t) || bad)
        return false;
    gw_inproc_proc *p = proc_get(in, pid);
    if (isnan(p->t_first) || t < p->t_first)
        p->t_first = t;
    if (isnan(p->t_last) || t > p->t_last)
        p->t_last = t;
    const char *k = kind->valuestring;
    if (strcmp(k, "process") == 0)
        return read_process(p, o);
    if (strcmp(k, "settings") == 0)
        return read_settings(p, o);
    if (strcmp(k, "loader") == 0)
        return read_loader(in, pid, o);
    if (strcmp(k, "pass") == 0)
        return read_pass(in, pid, o);
    if (strcmp(k, "steps") == 0)
        return read_steps(in, pid, o);
    if (strcmp(k, "memory") == 0)
        return read_memory(in, pid, o, t);
    if (strcmp(k, "stacks") == 0) {
        p->samples = amount(o, "samples", &bad);
        p->interval_s = amount(o, "interval_s", &bad);
        p->sampler_cpu_s = amount(o, "sampler_cpu_s", &bad);
        return !bad;
    }
    if (strcmp(k, "warning") == 0) {
        if (in->warnings++ == 0) {
            char *hook = text(o, "hook"), *msg = text(o, "message");
            set_text(&in->first_warning, *hook ? xasprintf("%s: %s", hook, msg) : xstrdup(msg));
            free(hook);
            free(msg);
        }
        return true;
    }
    if (strcmp(k, "exit") == 0)
        p->exited = true;
    return true; /* "exit" and kinds of a later format */
}

void gw_inproc_add_line(gw_inproc *in, long pid, const char *line, bool last)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (!*line || *line == '\n')
        return;
    in->lines++;
    cJSON *o = cJSON_Parse(line);
    if (!cJSON_IsObject(o)) {
        if (last)
            in->torn_lines++;
        else
            in->bad_lines++;
    } else if (!read_record(in, pid, o)) {
        in->absurd_records++;
    }
    cJSON_Delete(o);
}

static int by_start(const void *x, const void *y)
{
    const gw_inproc_pass *a = x, *b = y;
    return (a->t_start > b->t_start) - (a->t_start < b->t_start);
}

static int by_t0(const void *x, const void *y)
{
    const gw_inproc_steps *a = x, *b = y;
    return (a->t0 > b->t0) - (a->t0 < b->t0);
}

static int by_t(const void *x, const void *y)
{
    const gw_inproc_memory *a = x, *b = y;
    return (a->t > b->t) - (a->t < b->t);
}

static bool has_pass(const gw_inproc *in, size_t loader, long pass)
{
    for (size_t i = 0; i < in->npasses; i++)
        if (in->passes[i].loader == loader && in->passes[i].pass == pass)
            return true;
    return false;
}

/* A pass whose process died before it wrote its "pass" record: the sum of its "steps". */
static void passes_from_steps(gw_inproc *in)
{
    for (size_t i = 0; i < in->nsteps; i++) {
        const gw_inproc_steps *s = &in->steps[i];
        if (has_pass(in, s->loader, s->pass)) {
            bool mine = false;
            for (size_t j = 0; j < in->npasses && !mine; j++)
                mine = in->passes[j].from_steps && in->passes[j].loader == s->loader &&
                       in->passes[j].pass == s->pass;
            if (!mine)
                continue;
            for (size_t j = 0; j < in->npasses; j++) {
                gw_inproc_pass *p = &in->passes[j];
                if (!p->from_steps || p->loader != s->loader || p->pass != s->pass)
                    continue;
                p->t_start = fmin(p->t_start, s->t0);
                p->t_end = fmax(p->t_end, s->t1);
                p->steps += s->steps;
                p->wait_s += s->wait_s;
                p->between_s += s->between_s;
            }
            continue;
        }
        in->passes = xgrow(in->passes, &in->passes_cap, in->npasses + 1, sizeof *in->passes);
        in->passes[in->npasses++] = (gw_inproc_pass){.loader = s->loader,
                                                     .pass = s->pass,
                                                     .t_start = s->t0,
                                                     .t_end = s->t1,
                                                     .steps = s->steps,
                                                     .wait_s = s->wait_s,
                                                     .between_s = s->between_s,
                                                     .first_wait_s = NAN,
                                                     .from_steps = true};
    }
}

static bool same_num(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* Is b, made after a, the same loader made anew (a job that makes its DataLoader in the epoch
 * loop)? */
static bool same_loader(const gw_inproc_loader *a, const gw_inproc_loader *b)
{
    return a->pid == b->pid && *a->created_at && strcmp(a->created_at, b->created_at) == 0 &&
           strcmp(a->dataset, b->dataset) == 0 && same_num(a->batch_size, b->batch_size) &&
           same_num(a->num_workers, b->num_workers) && same_num(a->batches, b->batches);
}

/* Renumbers the passes of the loaders that others were merged into (root[l] != l), in time
 * order, and the "steps" records with them. Passes are sorted by t_start. */
static void renumber_merged(gw_inproc *in, const size_t *root)
{
    size_t n = in->npasses;
    size_t *old_loader = xmalloc((n ? n : 1) * sizeof *old_loader);
    long *old_pass = xmalloc((n ? n : 1) * sizeof *old_pass);
    long *next = xcalloc(in->nloaders, sizeof *next);
    for (size_t i = 0; i < n; i++) {
        gw_inproc_pass *p = &in->passes[i];
        old_loader[i] = p->loader;
        old_pass[i] = p->pass;
        p->loader = root[p->loader];
        if (in->loaders[p->loader].objects > 1)
            p->pass = next[p->loader]++;
    }
    for (size_t j = 0; j < in->nsteps; j++) {
        gw_inproc_steps *s = &in->steps[j];
        if (in->loaders[root[s->loader]].objects <= 1)
            continue;
        for (size_t i = 0; i < n; i++)
            if (old_loader[i] == s->loader && old_pass[i] == s->pass) {
                s->loader = in->passes[i].loader;
                s->pass = in->passes[i].pass;
                break;
            }
    }
    free(old_loader);
    free(old_pass);
    free(next);
}

/* A loader made anew at the same place once the previous one's passes ended is that one. */
static void merge_recreated(gw_inproc *in)
{
    size_t nl = in->nloaders;
    if (nl < 2)
        return;
    size_t *root = xmalloc(nl * sizeof *root);
    double *first = xmalloc(nl * sizeof *first), *last = xmalloc(nl * sizeof *last);
    for (size_t l = 0; l < nl; l++) {
        root[l] = l;
        first[l] = INFINITY;
        last[l] = -INFINITY;
    }
    for (size_t i = 0; i < in->npasses; i++) {
        const gw_inproc_pass *p = &in->passes[i];
        first[p->loader] = fmin(first[p->loader], p->t_start);
        last[p->loader] = fmax(last[p->loader], p->t_end);
    }
    bool any = false;
    for (size_t l = 1; l < nl; l++) {
        if (isinf(first[l]))
            continue;
        for (size_t k = l; k-- > 0;) { /* the latest loader made at the same place */
            if (root[k] != k || isinf(first[k]) || !same_loader(&in->loaders[k], &in->loaders[l]))
                continue;
            if (last[k] <= first[l]) {
                root[l] = k;
                last[k] = fmax(last[k], last[l]);
                in->loaders[k].objects += in->loaders[l].objects;
                in->loaders[l].objects = 0;
                any = true;
            }
            break;
        }
    }
    if (any)
        renumber_merged(in, root);
    free(root);
    free(first);
    free(last);
}

void gw_inproc_finish(gw_inproc *in)
{
    if (in->nsteps)
        qsort(in->steps, in->nsteps, sizeof *in->steps, by_t0);
    passes_from_steps(in);
    if (in->npasses)
        qsort(in->passes, in->npasses, sizeof *in->passes, by_start);
    merge_recreated(in);
    if (in->nmemory)
        qsort(in->memory, in->nmemory, sizeof *in->memory, by_t);
}

void gw_inproc_free(gw_inproc *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nprocs; i++) {
        free(in->procs[i].python);
        free(in->procs[i].torch);
        free(in->procs[i].start_method);
    }
    for (size_t i = 0; i < in->nloaders; i++) {
        free(in->loaders[i].dataset);
        free(in->loaders[i].sampler);
        free(in->loaders[i].created_at);
    }
    for (int r = 0; r < GW_INPROC_ROLES; r++) {
        for (size_t i = 0; i < in->stacks[r].n; i++)
            free(in->stacks[r].v[i].frames);
        free(in->stacks[r].v);
        free(in->stacks[r].slots);
    }
    free(in->procs);
    free(in->loaders);
    free(in->passes);
    free(in->steps);
    free(in->memory);
    free(in->instrumentation);
    free(in->first_warning);
    free(in);
}
