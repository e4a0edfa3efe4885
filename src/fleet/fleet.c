/* fleet: per-job summaries -> GPU-hours by user and job, split by what the GPUs did (fleet.h). */
#include "fleet/fleet.h"
#include "sampler/sample.h"

#include "util/gw_file.h"
#include "util/gw_fmt.h"
#include "util/gw_json.h"
#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { SUMMARY_MAX_BYTES = 64 << 20 };

const char *gw_fleet_class_name(gw_fleet_class c)
{
    static const char *const names[GW_FLEET_NCLASS] = {"idle_holding_memory", "underfilled",
                                                       "starved", "saturated", "other"};
    return c < GW_FLEET_NCLASS ? names[c] : "?";
}

void gw_fleet_init(gw_fleet *f)
{
    memset(f, 0, sizeof *f);
}

void gw_fleet_free(gw_fleet *f)
{
    for (size_t i = 0; i < f->njobs; i++) {
        free(f->jobs[i].job_id);
        free(f->jobs[i].user);
        free(f->jobs[i].source);
    }
    free(f->jobs);
    free(f->slots);
    free(f->file_slots);
    free(f->first_skipped);
    free(f->first_subdir);
    memset(f, 0, sizeof *f);
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static size_t hash_of(const char *job_id, const char *user)
{
    size_t h = 2166136261u; /* FNV-1a over "job_id\0user" ("\1" for no user) */
    for (const char *p = job_id;; p++) {
        h = (h ^ (unsigned char)*p) * 16777619u;
        if (!*p)
            break;
    }
    for (const char *p = user ? user : "\1"; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

/* The slot of (job_id, user): where it is, or the empty slot where it goes. */
static size_t *slot_of(gw_fleet *f, const char *job_id, const char *user)
{
    size_t mask = f->nslots - 1, i = hash_of(job_id, user) & mask;
    while (f->slots[i]) {
        const gw_fleet_job *j = &f->jobs[f->slots[i] - 1];
        if (strcmp(j->job_id, job_id) == 0 && same(j->user, user))
            break;
        i = (i + 1) & mask;
    }
    return &f->slots[i];
}

/* Keeps the table at most half full (thousands of jobs a day on a site: no linear search). */
static void grow_slots(gw_fleet *f)
{
    if (2 * (f->njobs + 1) <= f->nslots)
        return;
    free(f->slots);
    f->nslots = f->nslots ? 2 * f->nslots : 64;
    f->slots = xcalloc(f->nslots, sizeof *f->slots);
    for (size_t k = 0; k < f->njobs; k++)
        *slot_of(f, f->jobs[k].job_id, f->jobs[k].user) = k + 1;
}

gw_fleet_job *gw_fleet_job_find(gw_fleet *f, const char *job_id, const char *user)
{
    if (!f->nslots)
        return NULL;
    char *id = gw_utf8_clean_dup(job_id), *u = user ? gw_utf8_clean_dup(user) : NULL;
    size_t slot = *slot_of(f, id, u);
    free(id);
    free(u);
    return slot ? &f->jobs[slot - 1] : NULL;
}

gw_fleet_job *gw_fleet_job_of(gw_fleet *f, const char *job_id, const char *user, const char *source)
{
    /* compared as they are kept: sanitised (a non-UTF-8 id matches itself in the next file) */
    char *id = gw_utf8_clean_dup(job_id), *u = user ? gw_utf8_clean_dup(user) : NULL;
    grow_slots(f);
    size_t *slot = slot_of(f, id, u);
    if (*slot) {
        free(id);
        free(u);
        return &f->jobs[*slot - 1];
    }
    if (f->njobs == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        f->jobs = xrealloc(f->jobs, f->cap * sizeof *f->jobs);
    }
    gw_fleet_job *j = &f->jobs[f->njobs++];
    memset(j, 0, sizeof *j);
    j->job_id = id;
    j->user = u;
    j->source = gw_utf8_clean_dup(source);
    *slot = f->njobs;
    return j;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring && *v->valuestring ? v->valuestring : NULL;
}

static double num_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && gw_fmt_sane(v->valuedouble) ? v->valuedouble : NAN;
}

/* Whether verdict v is about GPU g of the same summary (index and node). */
static bool verdict_of(const cJSON *v, const cJSON *g)
{
    double vi = num_of(v, "gpu"), gi = num_of(g, "index");
    return !isnan(vi) && vi == gi && same(str_of(v, "source"), str_of(g, "source"));
}

/* Seconds of GPU g in each class from the summary's verdicts; they add up to its duration. */
static void classify_gpu(const cJSON *g, const cJSON *verdicts, double dur, double s[])
{
    static const struct {
        const char *id;
        gw_fleet_class c;
        const char *evidence; /* the seconds it covers, when the span is wider */
    } map[] = {
        {"idle_holding_memory", GW_FLEET_IDLE, "idle_total_s"},
        {"underfilled_kernels", GW_FLEET_UNDERFILLED, NULL},
        {"gpu_starved", GW_FLEET_STARVED, NULL},
        {"gpu_saturated", GW_FLEET_SATURATED, NULL},
    };
    double found[GW_FLEET_NCLASS] = {0};
    const cJSON *v;
    cJSON_ArrayForEach(v, verdicts)
    {
        if (!verdict_of(v, g))
            continue;
        const char *id = str_of(v, "id");
        for (size_t m = 0; id && m < sizeof map / sizeof map[0]; m++) {
            if (strcmp(id, map[m].id) != 0)
                continue;
            double t = map[m].evidence ? num_of(cJSON_GetObjectItemCaseSensitive(v, "evidence"),
                                                map[m].evidence)
                                       : NAN;
            if (isnan(t) && map[m].c == GW_FLEET_IDLE) /* a summary before idle_total_s */
                t = num_of(cJSON_GetObjectItemCaseSensitive(v, "evidence"), "idle_s");
            if (isnan(t))
                t = num_of(v, "duration_s");
            if (t > 0)
                found[map[m].c] += t;
        }
    }
    /* in this order of precedence when verdicts overlap: a GPU that is underfilled is not
     * saturated, whatever GPU-Util says */
    double left = dur;
    for (int c = 0; c < GW_FLEET_OTHER; c++) {
        s[c] = found[c] < left ? found[c] : left;
        left -= s[c];
    }
    s[GW_FLEET_OTHER] = left;
}

/* GPUs already counted for a job report's job ("node|uuid" or "node|index"): ranks that shared a
 * GPU count it once, as the job report's totals do. NULL outside a job report. */
typedef struct seen_gpus {
    cJSON *keys;
} seen_gpus;

static bool seen_before(seen_gpus *seen, const cJSON *g)
{
    if (!seen)
        return false;
    const char *uuid = str_of(g, "uuid"), *src = str_of(g, "source");
    char key[512];
    snprintf(key, sizeof key, "%s|%s|%s", src ? src : "", uuid ? uuid : "",
             GW_FIXED(uuid ? 0.0 : num_of(g, "index"), 0));
    if (cJSON_GetObjectItemCaseSensitive(seen->keys, key))
        return true;
    cJSON_AddTrueToObject(seen->keys, key);
    return false;
}

static void add_one_summary(gw_fleet *f, const cJSON *doc, const cJSON *job, const char *source,
                            const char *stem, seen_gpus *seen)
{
    const char *job_id = str_of(job, "job_id");
    char num_id[32];
    const cJSON *jv = cJSON_GetObjectItemCaseSensitive(job, "job_id");
    if (!job_id && cJSON_IsNumber(jv) && gw_fmt_sane(jv->valuedouble)) {
        snprintf(num_id, sizeof num_id, "%s", GW_FIXED(jv->valuedouble, 0));
        job_id = num_id;
    }
    gw_fleet_job *j = NULL; /* made at its first GPU: a job without GPU time is no row */
    const cJSON *verdicts = cJSON_GetObjectItemCaseSensitive(doc, "verdicts");
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(doc, "gpus"))
    {
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(g, "in_job")))
            continue; /* recorded, not this job's GPU */
        double dur = num_of(g, "duration_s");
        if (!(dur > 0) || seen_before(seen, g))
            continue;
        double s[GW_FLEET_NCLASS];
        classify_gpu(g, verdicts, dur, s);
        if (!j)
            j = gw_fleet_job_of(f, job_id ? job_id : stem, str_of(job, "user"), source);
        j->ngpus++;
        j->gpu_hours += dur / 3600.0;
        for (int c = 0; c < GW_FLEET_NCLASS; c++)
            j->hours[c] += s[c] / 3600.0;
        double sm =
            num_of(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g, "stats"),
                                                    gw_fields[GW_F_GPM_SM_ACTIVE_PCT].csv_header),
                   "mean");
        if (!isnan(sm)) {
            j->sm_hours += dur / 3600.0;
            j->sm_weight += sm * dur / 3600.0;
        }
    }
}

bool gw_fleet_add_summary(gw_fleet *f, const cJSON *doc, const char *source, const char *stem)
{
    const char *kind = str_of(doc, "kind");
    if (kind && strcmp(kind, "jobs") == 0) { /* a job report of several ranks */
        const cJSON *grp, *m;
        bool any = false;
        cJSON_ArrayForEach(grp, cJSON_GetObjectItemCaseSensitive(doc, "jobs"))
        {
            seen_gpus seen = {cJSON_CreateObject()};
            cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(grp, "members"))
            {
                const cJSON *sum = cJSON_GetObjectItemCaseSensitive(m, "summary");
                const cJSON *job = cJSON_GetObjectItemCaseSensitive(sum, "job");
                if (!cJSON_IsObject(job))
                    job = cJSON_GetObjectItemCaseSensitive(m, "job");
                if (cJSON_IsObject(sum)) {
                    add_one_summary(f, sum, job, source, stem, &seen);
                    any = true;
                }
            }
            cJSON_Delete(seen.keys);
        }
        if (any)
            f->nsources++;
        return any;
    }
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "gpus")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "verdicts")))
        return false;
    add_one_summary(f, doc, cJSON_GetObjectItemCaseSensitive(doc, "job"), source, stem, NULL);
    f->nsources++;
    return true;
}

/* "/var/lib/gpuwatch/jobs/4242.json" -> "4242"; a run's "runs/20261130-train/summary.json" ->
 * "20261130-train" (its run directory: every run's file has that name) */
static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(base, "summary.json") == 0 && base > path) {
        const char *end = base - 1; /* the '/' before it, and any more of them */
        while (end > path && end[-1] == '/')
            end--;
        const char *dir = end;
        while (dir > path && dir[-1] != '/')
            dir--;
        if (end > dir && !(end - dir == 1 && *dir == '.') &&
            !(end - dir == 2 && dir[0] == '.' && dir[1] == '.'))
            return xstrndup(dir, (size_t)(end - dir));
    }
    char *s = xstrdup(base);
    char *dot = strrchr(s, '.');
    if (dot && dot != s)
        *dot = '\0';
    return s;
}

/* Whether the file (device, inode) was read before; notes it when not. */
static bool read_before(gw_fleet *f, const struct stat *st)
{
    if (2 * (f->nfiles + 1) > f->nfile_slots) { /* at most half full */
        size_t old_n = f->nfile_slots;
        gw_fleet_file *old = f->file_slots;
        f->nfile_slots = old_n ? 2 * old_n : 256;
        f->file_slots = xcalloc(f->nfile_slots, sizeof *f->file_slots);
        f->nfiles = 0;
        for (size_t i = 0; i < old_n; i++)
            if (old[i].used) {
                struct stat o = {.st_dev = old[i].dev, .st_ino = old[i].ino};
                (void)read_before(f, &o);
            }
        free(old);
    }
    size_t mask = f->nfile_slots - 1;
    size_t i = (size_t)((st->st_ino * 0x9E3779B97F4A7C15ull) ^ st->st_dev) & mask;
    for (; f->file_slots[i].used; i = (i + 1) & mask)
        if (f->file_slots[i].dev == st->st_dev && f->file_slots[i].ino == st->st_ino)
            return true;
    f->file_slots[i] = (gw_fleet_file){true, st->st_dev, st->st_ino};
    f->nfiles++;
    return false;
}

/* Reads one file; returns 1 added, 0 not a summary, -1 unreadable (err set), 2 read before. */
static int add_file(gw_fleet *f, const char *path, gw_error *err)
{
    FILE *in = gw_file_open_regular(path, "r");
    if (!in) {
        if (errno == GW_FILE_NOT_REGULAR) /* a pipe, a device, /dev/stdin */
            gw_error_set(err, GW_E_IO,
                         "cannot read %s: not a regular file: save the summary.json to a file "
                         "and give its path",
                         path);
        else
            gw_error_set(err, GW_E_IO, "cannot read %s: %s: check the path and its permissions",
                         path, strerror(errno));
        return -1;
    }
    struct stat st; /* a buffer of the file's size: 100,000 small files, not 100,000 x 64 MiB */
    bool known = fstat(fileno(in), &st) == 0;
    if (known && read_before(f, &st)) { /* "jobs/ jobs/4242.json", or a directory twice */
        fclose(in);
        f->files_repeated++;
        return 2;
    }
    size_t want = known && st.st_size >= 0 && st.st_size < SUMMARY_MAX_BYTES
                      ? (size_t)st.st_size + 1
                      : SUMMARY_MAX_BYTES;
    char *buf = gw_file_read_all(in, want);
    cJSON *doc = cJSON_Parse(buf);
    free(buf);
    char *stem = stem_of(path);
    bool ok = doc && gw_fleet_add_summary(f, doc, path, stem);
    free(stem);
    cJSON_Delete(doc);
    return ok ? 1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static gw_rc add_dir(gw_fleet *f, const char *path, gw_error *err)
{
    DIR *d = opendir(path);
    if (!d)
        return gw_error_set(err, GW_E_IO, "cannot read the directory %s: %s", path,
                            strerror(errno));
    size_t n = 0, cap = 0;
    char **names = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) {
            /* a directory of run directories (gpuwatch run's): said, not read (fleet.h) */
            char *sub = xasprintf("%s/%s/summary.json", path, e->d_name);
            struct stat st;
            if (stat(sub, &st) == 0 && S_ISREG(st.st_mode) && f->subdir_summaries++ == 0)
                f->first_subdir = xasprintf("%s/%s", path, e->d_name);
            free(sub);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            names = xrealloc(names, cap * sizeof *names);
        }
        names[n++] = xasprintf("%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        gw_error ignored = {0};
        int r = add_file(f, names[i], &ignored);
        if (r == 0 || r < 0) { /* one bad file does not hide the others */
            if (f->files_skipped++ == 0)
                f->first_skipped = xstrdup(names[i]);
        }
        free(names[i]);
    }
    free(names);
    return GW_OK;
}

gw_rc gw_fleet_add_path(gw_fleet *f, const char *path, gw_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return gw_error_set(err, GW_E_NOTFOUND,
                            "%s does not exist: give a directory of per-job summary.json files, "
                            "a summary.json, or a Prometheus URL (http://host:9090)",
                            path);
    if (S_ISDIR(st.st_mode))
        return add_dir(f, path, err);
    int r = add_file(f, path, err);
    if (r < 0)
        return err ? err->rc : GW_E_IO;
    if (r == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s is no summary.json (no \"gpus\" and \"verdicts\"): give the "
                            "summary.json that gpuwatch report --json or the Slurm epilog writes",
                            path);
    return GW_OK;
}
