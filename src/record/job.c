/* The job's identity and GPUs from the environment, and its JSON object (job.h). */
#include "record/job.h"

#include "util/gw_fmt.h"
#include "util/gw_json.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

extern char **environ;

static const char *env_get(gw_job_env env, const char *name)
{
    char *const *e = env ? env : environ;
    size_t n = strlen(name);
    for (; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* A variable's value, NULL when unset or empty (absent is null, never ""). */
static char *env_dup(gw_job_env env, const char *name)
{
    const char *v = env_get(env, name);
    return v && *v ? xstrdup(v) : NULL;
}

static void warn(gw_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(gw_job *j, const char *fmt, ...)
{
    if (j->nwarnings >= GW_JOB_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    j->warnings[j->nwarnings++] = xvasprintf(fmt, ap);
    va_end(ap);
}

/* A whole number 0 .. 1e9 (a rank, a size, a GPU index); false for anything else. */
static bool parse_count(const char *s, long *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v > 1000000000L)
        return false;
    *out = v;
    return true;
}

/* The first of names that is set (and not empty); -1 when none is. A value that is not a whole
 * number is absent too, with a warning. */
static long env_count(gw_job *j, gw_job_env env, const char *const *names, const char *what)
{
    for (; *names; names++) {
        const char *v = env_get(env, *names);
        if (!v || !*v)
            continue;
        long n;
        if (parse_count(v, &n))
            return n;
        warn(j,
             "%s='%.40s' is not a whole number: the %s is recorded as null (fix the "
             "launcher's variable)",
             *names, v, what);
        return -1;
    }
    return -1;
}

static char *user_name(gw_job_env env, bool slurm)
{
    char *u = slurm ? env_dup(env, "SLURM_JOB_USER") : NULL;
    if (u)
        return u;
    struct passwd *pw = getpwuid(getuid());
    if (pw && pw->pw_name && *pw->pw_name)
        return xstrdup(pw->pw_name);
    if ((u = env_dup(env, "USER")))
        return u;
    return xasprintf("%u", (unsigned)getuid());
}

void gw_job_identity(gw_job *j, gw_job_env env)
{
    static const char *const rank_vars[] = {"RANK",     "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
                                            "PMI_RANK", "PMIX_RANK",    NULL};
    static const char *const local_vars[] = {"LOCAL_RANK", "SLURM_LOCALID",
                                             "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", NULL};
    static const char *const size_vars[] = {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE",
                                            "PMI_SIZE", NULL};
    bool slurm = false;
    if ((j->job_id = env_dup(env, "SLURM_JOB_ID"))) {
        slurm = true;
        j->scheduler = "slurm";
        j->step = env_dup(env, "SLURM_STEP_ID");
        j->array_job_id = env_dup(env, "SLURM_ARRAY_JOB_ID");
        j->array_task = env_dup(env, "SLURM_ARRAY_TASK_ID");
    } else if ((j->job_id = env_dup(env, "TORCHELASTIC_RUN_ID"))) {
        j->scheduler = "torchrun";
    } else if (env_get(env, "OMPI_COMM_WORLD_SIZE") || env_get(env, "PMI_RANK") ||
               env_get(env, "PMIX_RANK") || env_get(env, "PMI_SIZE")) {
        j->scheduler = "mpi";
        j->job_id = env_dup(env, "OMPI_MCA_orte_ess_jobid");
        if (!j->job_id)
            j->job_id = env_dup(env, "PMIX_NAMESPACE");
    } else if (env_get(env, "KUBERNETES_SERVICE_HOST")) {
        j->scheduler = "kubernetes";
        j->job_id = env_dup(env, "POD_NAME"); /* the downward API's usual name */
        if (!j->job_id)
            j->job_id = env_dup(env, "HOSTNAME"); /* a pod's host name is its name */
    } else {
        j->scheduler = "none";
    }
    j->rank = env_count(j, env, rank_vars, "rank");
    j->local_rank = env_count(j, env, local_vars, "local rank");
    j->world_size = env_count(j, env, size_vars, "world size");
    if (j->world_size == 0) {
        warn(j, "the world size is 0: recorded as null (a job has at least one rank)");
        j->world_size = -1;
    }
    if (j->rank >= 0 && j->world_size > 0 && j->rank >= j->world_size)
        warn(j, "rank %ld is not below the world size %ld: check RANK and WORLD_SIZE", j->rank,
             j->world_size);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    j->node = xstrdup(host);
    if (!j->job_id && strcmp(j->scheduler, "kubernetes") == 0)
        j->job_id = xstrdup(host);
    j->user = user_name(env, slurm);
}

/* ---- the run's GPUs ---- */

typedef struct devset {
    const gw_device_info *devs;
    unsigned n;
    const gw_mig_device *migs;
    unsigned nmigs;
    bool *sel; /* [n] by position in devs */
} devset;

static int pos_of_index(const devset *d, unsigned index)
{
    for (unsigned i = 0; i < d->n; i++)
        if (d->devs[i].index == index)
            return (int)i;
    return -1;
}

/* The device whose UUID starts with tok (case-insensitive, as CUDA compares): its position, -1
 * when none, -2 when several do. */
static int by_uuid(const devset *d, const char *tok, size_t len)
{
    int found = -1;
    for (unsigned i = 0; i < d->n; i++) {
        if (strlen(d->devs[i].uuid) >= len && strncasecmp(d->devs[i].uuid, tok, len) == 0) {
            if (found >= 0)
                return -2;
            found = (int)i;
        }
    }
    return found;
}

/* A MIG device's parent: "MIG-<uuid>" (or a unique prefix) among the instances, or the old form
 * "MIG-GPU-<parent uuid>/GI/CI". */
static int by_mig(const devset *d, const char *tok, size_t len)
{
    if (len > 8 && strncasecmp(tok, "MIG-GPU-", 8) == 0) {
        const char *slash = memchr(tok, '/', len);
        return slash ? by_uuid(d, tok + 4, (size_t)(slash - tok) - 4) : -1;
    }
    int found = -1;
    for (unsigned k = 0; k < d->nmigs; k++) {
        if (strlen(d->migs[k].uuid) >= len && strncasecmp(d->migs[k].uuid, tok, len) == 0) {
            int p = pos_of_index(d, d->migs[k].gpu);
            if (found >= 0 && found != p)
                return -2;
            found = p;
        }
    }
    return found;
}

/* The position of the device CUDA numbers `cuda` in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID).
 */
static int by_pci_rank(const devset *d, unsigned cuda)
{
    for (unsigned i = 0; i < d->n; i++) {
        unsigned below = 0;
        for (unsigned k = 0; k < d->n; k++) {
            int c = strcasecmp(d->devs[k].pci_bus_id, d->devs[i].pci_bus_id);
            below += c < 0 || (c == 0 && k < i); /* ties: NVML's order */
        }
        if (below == cuda)
            return (int)i;
    }
    return -1;
}

/* Splits value at commas into trimmed tokens; calls fn until it returns false. */
static void each_token(const char *value, bool (*fn)(void *ctx, const char *tok, size_t len),
                       void *ctx)
{
    const char *p = value;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *t = p;
        while (len && isspace((unsigned char)*t))
            t++, len--;
        while (len && isspace((unsigned char)t[len - 1]))
            len--;
        if (!fn(ctx, t, len) || !end)
            return;
        p = end + 1;
    }
}

static bool token_count(const char *tok, size_t len, long *out)
{
    char buf[24];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, tok, len);
    buf[len] = '\0';
    return parse_count(buf, out);
}

typedef struct cuda_walk {
    devset *d;
    bool pci_order;
    size_t valid;       /* entries CUDA takes before the first invalid one */
    bool order_unknown; /* an index under FASTEST_FIRST on a node of several GPUs */
    bool *index_seen;   /* [n]: indices named under an unknown order */
    char bad[64];       /* the first invalid entry */
} cuda_walk;

static bool cuda_token(void *ctx, const char *tok, size_t len)
{
    cuda_walk *w = ctx;
    long idx;
    int pos = -1;
    if (token_count(tok, len, &idx)) {
        if (idx < (long)w->d->n && !w->pci_order && w->d->n > 1) {
            w->order_unknown = true;
            w->index_seen[idx] = true;
            w->valid++;
            return true;
        }
        pos = idx < (long)w->d->n ? (w->d->n == 1 ? 0 : by_pci_rank(w->d, (unsigned)idx)) : -1;
    } else if (len > 4 && strncasecmp(tok, "GPU-", 4) == 0) {
        pos = by_uuid(w->d, tok, len);
    } else if (len > 4 && strncasecmp(tok, "MIG-", 4) == 0) {
        pos = by_mig(w->d, tok, len);
    }
    if (pos < 0) {
        if (len)
            snprintf(w->bad, sizeof w->bad, "%.*s", (int)(len < 60 ? len : 60), tok);
        else /* ",1" or " ,": CUDA stops at the empty entry too */
            snprintf(w->bad, sizeof w->bad, "(empty entry)");
        return false; /* CUDA stops at the first entry it cannot use */
    }
    w->d->sel[pos] = true;
    w->valid++;
    return true;
}

static void add_note(gw_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(gw_job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = xvasprintf(fmt, ap);
    va_end(ap);
    if (j->gpus_note) {
        char *both = xasprintf("%s; %s", j->gpus_note, line);
        free(line);
        line = both;
    }
    free(j->gpus_note);
    j->gpus_note = line;
}

static bool is_word(const char *v, const char *w)
{
    return strcasecmp(v, w) == 0;
}

/* CUDA_VISIBLE_DEVICES as CUDA reads it. Returns true when it decides the GPUs. */
static bool from_cuda(gw_job *j, const char *v, gw_job_env env, devset *d)
{
    if (!*v) {
        add_note(j, "CUDA_VISIBLE_DEVICES is empty: the command sees no GPU");
        return true;
    }
    if (is_word(v, "all") || is_word(v, "none") || is_word(v, "void") || is_word(v, "NoDevFiles")) {
        warn(j,
             "CUDA_VISIBLE_DEVICES=%s is not a list CUDA reads (indices or UUIDs; '%s' is a "
             "word of NVIDIA_VISIBLE_DEVICES): ignored",
             v, v);
        return false;
    }
    const char *order = env_get(env, "CUDA_DEVICE_ORDER");
    cuda_walk w = {.d = d, .pci_order = order && is_word(order, "PCI_BUS_ID")};
    w.index_seen = xcalloc(d->n + 1, sizeof *w.index_seen);
    each_token(v, cuda_token, &w);
    if (w.bad[0] && w.valid)
        warn(j,
             "CUDA_VISIBLE_DEVICES=%.80s: '%s' names no GPU of this node (NVML sees %u): CUDA "
             "ignores it and every entry after it",
             v, w.bad, d->n);
    else if (w.bad[0]) /* said once, as the note that stays in meta.json */
        add_note(j,
                 "CUDA_VISIBLE_DEVICES=%.80s: '%s' names no GPU of this node (NVML sees %u), so "
                 "the command sees no GPU (CUDA stops at the first entry it cannot use)",
                 v, w.bad, d->n);
    bool decided = true;
    if (w.order_unknown) {
        unsigned seen = 0;
        for (unsigned i = 0; i < d->n; i++)
            seen += w.index_seen[i];
        if (seen == d->n) { /* every GPU, whatever the order */
            for (unsigned i = 0; i < d->n; i++)
                d->sel[i] = true;
        } else {
            add_note(j,
                     "CUDA_VISIBLE_DEVICES=%.80s names GPUs by CUDA index, and CUDA's default "
                     "order (FASTEST_FIRST) cannot be known from NVML: taken from the next "
                     "source instead; set CUDA_DEVICE_ORDER=PCI_BUS_ID or name GPUs by UUID",
                     v);
            memset(d->sel, 0, d->n * sizeof *d->sel);
            decided = false;
        }
    }
    free(w.index_seen);
    return decided;
}

typedef struct index_walk {
    gw_job *j;
    const char *var;
    const char *value;
    devset *d;
    long *idx; /* the indices named, in order */
    size_t n, cap;
    bool all; /* "all" */
} index_walk;

static bool index_token(void *ctx, const char *tok, size_t len)
{
    index_walk *w = ctx;
    long a, b;
    const char *dash = memchr(tok, '-', len);
    const char *colon = memchr(tok, ':', len);
    if (len == 0)
        return true;
    if (len == 3 && strncasecmp(tok, "all", 3) == 0) {
        w->all = true;
        return true;
    }
    bool uuid = len > 4 && (strncasecmp(tok, "GPU-", 4) == 0 || strncasecmp(tok, "MIG-", 4) == 0);
    if (uuid) {
        int pos = toupper((unsigned char)tok[0]) == 'G' ? by_uuid(w->d, tok, len)
                                                        : by_mig(w->d, tok, len);
        if (pos >= 0)
            w->d->sel[pos] = true;
        else
            warn(w->j, "%s=%.80s: '%.*s' names no GPU of this node: left out", w->var, w->value,
                 (int)(len < 60 ? len : 60), tok);
        return true;
    }
    if (token_count(tok, len, &a)) {
        b = a;
    } else if (colon && token_count(tok, (size_t)(colon - tok), &a)) {
        b = a; /* NVIDIA_VISIBLE_DEVICES' "GPU:MIG" index form: the parent */
    } else if (!(dash && token_count(tok, (size_t)(dash - tok), &a) &&
                 token_count(dash + 1, len - (size_t)(dash - tok) - 1, &b) && b >= a &&
                 b - a < 1024)) { /* else a range, as Slurm may write "0-3" */
        warn(w->j, "%s=%.80s: '%.*s' is neither a GPU index nor a UUID: left out", w->var, w->value,
             (int)(len < 60 ? len : 60), tok);
        return true;
    }
    for (long k = a; k <= b; k++) {
        if (w->n == w->cap)
            w->idx = xrealloc(w->idx, (w->cap = w->cap ? 2 * w->cap : 8) * sizeof *w->idx);
        w->idx[w->n++] = k;
    }
    return true;
}

/* NVIDIA_VISIBLE_DEVICES, SLURM_STEP_GPUS, SLURM_JOB_GPUS: the node's GPU indices (or UUIDs). When
 * NVML sees exactly as many GPUs as are named and some index is beyond them, the job's view is
 * constrained (a container, Slurm's device cgroup): every GPU NVML sees is the job's. */
static bool from_index_list(gw_job *j, const char *var, const char *v, devset *d)
{
    index_walk w = {.j = j, .var = var, .value = v, .d = d};
    each_token(v, index_token, &w);
    bool beyond = false;
    for (size_t k = 0; k < w.n; k++)
        beyond |= pos_of_index(d, (unsigned)w.idx[k]) < 0;
    if (w.all || (beyond && w.n == d->n)) {
        for (unsigned i = 0; i < d->n; i++)
            d->sel[i] = true;
        if (!w.all)
            add_note(j,
                     "%s=%.80s names more GPUs than NVML shows; NVML sees only the job's %u "
                     "GPU%s (renumbered), all taken",
                     var, v, d->n, d->n == 1 ? "" : "s");
    } else {
        for (size_t k = 0; k < w.n; k++) {
            int pos = pos_of_index(d, (unsigned)w.idx[k]);
            if (pos >= 0)
                d->sel[pos] = true;
            else
                warn(j, "%s=%.80s: there is no GPU %ld on this node (NVML sees %u): left out", var,
                     v, w.idx[k], d->n);
        }
    }
    free(w.idx);
    for (unsigned i = 0; i < d->n; i++)
        if (d->sel[i])
            return true;
    return false;
}

static void set_gpus(gw_job *j, const char *source, const devset *d)
{
    for (size_t k = 0; k < j->ngpus; k++)
        free(j->gpu_uuids[k]);
    free(j->gpus);
    free(j->gpu_uuids);
    j->ngpus = 0;
    j->gpus = xcalloc(d->n + 1, sizeof *j->gpus);
    j->gpu_uuids = xcalloc(d->n + 1, sizeof *j->gpu_uuids);
    /* ascending NVML index */
    for (unsigned want = 0, done = 0; done < d->n; want++) {
        int pos = pos_of_index(d, want);
        if (pos < 0)
            continue;
        done++;
        if (d->sel[pos]) {
            j->gpus[j->ngpus] = d->devs[pos].index;
            j->gpu_uuids[j->ngpus++] = xstrdup(d->devs[pos].uuid);
        }
    }
    j->gpus_source = source;
    j->gpus_pending = false;
}

void gw_job_choose_gpus(gw_job *j, gw_job_env env, const gw_device_info *devs, unsigned ndevs,
                        const gw_mig_device *migs, unsigned nmigs, bool have_job)
{
    static const char *const lists[] = {"NVIDIA_VISIBLE_DEVICES", "SLURM_STEP_GPUS",
                                        "SLURM_JOB_GPUS"};
    devset d = {.devs = devs, .n = ndevs, .migs = migs, .nmigs = nmigs};
    d.sel = xcalloc(ndevs + 1, sizeof *d.sel);
    const char *v = env_get(env, "CUDA_VISIBLE_DEVICES");
    bool decided = false;
    if (v && from_cuda(j, v, env, &d)) {
        set_gpus(j, "CUDA_VISIBLE_DEVICES", &d);
        decided = true;
    }
    for (size_t i = 0; !decided && i < sizeof lists / sizeof lists[0]; i++) {
        v = env_get(env, lists[i]);
        /* NVIDIA_VISIBLE_DEVICES none, void or empty: the container runtime gave no GPU list */
        if (!v || !*v || is_word(v, "none") || is_word(v, "void"))
            continue;
        memset(d.sel, 0, ndevs * sizeof *d.sel);
        if (from_index_list(j, lists[i], v, &d)) {
            set_gpus(j, lists[i], &d);
            decided = true;
        }
    }
    if (!decided) {
        memset(d.sel, 0, ndevs * sizeof *d.sel);
        if (have_job) {
            set_gpus(j, "processes", &d);
            j->gpus_pending = true;
        } else {
            for (unsigned i = 0; i < ndevs; i++)
                d.sel[i] = true;
            set_gpus(j, "all", &d);
        }
    }
    free(d.sel);
}

void gw_job_set_from_procs(gw_job *j, const bool *used, const gw_device_info *devs, unsigned ndevs)
{
    if (!j->gpus_pending)
        return;
    devset d = {.devs = devs, .n = ndevs};
    d.sel = xcalloc(ndevs + 1, sizeof *d.sel);
    bool any = false;
    for (unsigned i = 0; i < ndevs; i++)
        any |= d.sel[i] = used[i];
    if (!any) {
        for (unsigned i = 0; i < ndevs; i++)
            d.sel[i] = true;
        add_note(j, "no process of the command held a GPU: every GPU is taken as the job's");
    }
    set_gpus(j, any ? "processes" : "all", &d);
    free(d.sel);
}

bool gw_job_has_gpu(const gw_job *j, unsigned index)
{
    for (size_t k = 0; k < j->ngpus; k++)
        if (j->gpus[k] == index)
            return true;
    return false;
}

/* ---- JSON ---- */

static void add_count(cJSON *o, const char *key, long v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, key, (double)v);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *gw_job_json(const gw_job *j)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scheduler", j->scheduler ? j->scheduler : "none");
    gw_json_add_str(o, "job_id", j->job_id);
    gw_json_add_str(o, "step", j->step);
    gw_json_add_str(o, "array_job_id", j->array_job_id);
    gw_json_add_str(o, "array_task", j->array_task);
    add_count(o, "rank", j->rank);
    add_count(o, "local_rank", j->local_rank);
    add_count(o, "world_size", j->world_size);
    cJSON_AddStringToObject(o, "node", j->node ? j->node : "");
    cJSON_AddStringToObject(o, "user", j->user ? j->user : "");
    cJSON *g = cJSON_AddArrayToObject(o, "gpus");
    cJSON *u = cJSON_AddArrayToObject(o, "gpu_uuids");
    for (size_t k = 0; k < j->ngpus; k++) {
        cJSON_AddItemToArray(g, cJSON_CreateNumber(j->gpus[k]));
        cJSON_AddItemToArray(u, cJSON_CreateString(j->gpu_uuids[k] ? j->gpu_uuids[k] : ""));
    }
    cJSON_AddStringToObject(o, "gpus_source", j->gpus_source ? j->gpus_source : "all");
    if (j->gpus_pending)
        gw_json_add_str(o, "gpus_note",
                        "chosen from the command's processes when it ends (a recording that was "
                        "not finalised: from processes.csv)");
    else
        gw_json_add_str(o, "gpus_note", j->gpus_note);
    cJSON_AddStringToObject(o, "scope", j->scope_node ? "node" : "job");
    return o;
}

/* A string member, NULL when absent or empty; a job id written as a number is taken as its text. */
static char *json_dup(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsString(v) && v->valuestring[0])
        return xstrdup(v->valuestring);
    if (cJSON_IsNumber(v) && gw_fmt_sane(v->valuedouble))
        return xstrdup(GW_FIXED(v->valuedouble, 0));
    return NULL;
}

/* A whole number 0 .. 1e9, as a number or as text ("3" copied from an environment); -1 else. */
static long json_count_of(const cJSON *v)
{
    long n;
    if (cJSON_IsString(v))
        return parse_count(v->valuestring, &n) ? n : -1;
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 1e9 ? (long)v->valuedouble
                                                                             : -1;
}

static long json_count(const cJSON *o, const char *key)
{
    return json_count_of(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* One of the static words, or fallback. */
static const char *json_word(const cJSON *o, const char *key, const char *const *words,
                             const char *fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    for (; cJSON_IsString(v) && *words; words++)
        if (strcmp(v->valuestring, *words) == 0)
            return *words;
    return fallback;
}

bool gw_job_from_json(gw_job *j, const cJSON *o)
{
    static const char *const scheds[] = {"slurm", "torchrun", "mpi", "kubernetes", "none", NULL};
    static const char *const sources[] = {"CUDA_VISIBLE_DEVICES",
                                          "NVIDIA_VISIBLE_DEVICES",
                                          "SLURM_STEP_GPUS",
                                          "SLURM_JOB_GPUS",
                                          "processes",
                                          "all",
                                          NULL};
    memset(j, 0, sizeof *j);
    j->rank = j->local_rank = j->world_size = -1;
    j->gpus_source = "all";
    j->gpus_unlisted = true;
    if (!cJSON_IsObject(o))
        return false;
    j->scheduler = json_word(o, "scheduler", scheds, NULL);
    j->job_id = json_dup(o, "job_id");
    j->step = json_dup(o, "step");
    j->array_job_id = json_dup(o, "array_job_id");
    j->array_task = json_dup(o, "array_task");
    j->rank = json_count(o, "rank");
    j->local_rank = json_count(o, "local_rank");
    j->world_size = json_count(o, "world_size");
    if (j->world_size == 0)
        j->world_size = -1; /* no job has 0 ranks: absent */
    j->node = json_dup(o, "node");
    j->user = json_dup(o, "user");
    j->gpus_source = json_word(o, "gpus_source", sources, "all");
    j->gpus_note = json_dup(o, "gpus_note");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "gpus");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "gpu_uuids");
    j->gpus_unlisted = !cJSON_IsArray(g);
    int n = cJSON_IsArray(g) ? cJSON_GetArraySize(g) : 0;
    j->gpus = xcalloc((size_t)n + 1, sizeof *j->gpus);
    j->gpu_uuids = xcalloc((size_t)n + 1, sizeof *j->gpu_uuids);
    for (int k = 0; k < n; k++) {
        long x = json_count_of(cJSON_GetArrayItem(g, k));
        if (x < 0 || x > 1000000)
            continue;
        const cJSON *id = cJSON_IsArray(u) ? cJSON_GetArrayItem(u, k) : NULL;
        j->gpus[j->ngpus] = (unsigned)x;
        j->gpu_uuids[j->ngpus++] = xstrdup(cJSON_IsString(id) ? id->valuestring : "");
    }
    /* a recording that ended before the command's processes decided */
    j->gpus_pending = strcmp(j->gpus_source, "processes") == 0 && j->ngpus == 0;
    j->scope_node = json_word(o, "scope", (const char *const[]){"node", NULL}, NULL) != NULL;
    return true;
}

const char *gw_job_line(const gw_job *j, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (k < n)                                                                                 \
            k += (size_t)snprintf(buf + k, n - k, __VA_ARGS__);                                    \
    } while (0)
    if (j->job_id) {
        if (j->scheduler && strcmp(j->scheduler, "none") != 0)
            PUT("%s ", j->scheduler);
        PUT("job %s", j->job_id);
        if (j->array_task)
            PUT(" (array %s_%s)", j->array_job_id ? j->array_job_id : "?", j->array_task);
        if (j->step)
            PUT(" step %s", j->step);
    }
    if (j->rank >= 0) {
        PUT("%srank %ld", k ? ", " : "", j->rank);
        if (j->world_size > 0)
            PUT(" of %ld", j->world_size);
    }
    if (k == 0)
        return buf;
    if (j->node)
        PUT(", %s", j->node);
#undef PUT
    return buf;
}

void gw_job_clear(gw_job *j)
{
    free(j->job_id);
    free(j->step);
    free(j->array_job_id);
    free(j->array_task);
    free(j->node);
    free(j->user);
    for (size_t k = 0; k < j->ngpus; k++)
        free(j->gpu_uuids[k]);
    free(j->gpus);
    free(j->gpu_uuids);
    free(j->gpus_note);
    for (size_t k = 0; k < j->nwarnings; k++)
        free(j->warnings[k]);
    memset(j, 0, sizeof *j);
}
