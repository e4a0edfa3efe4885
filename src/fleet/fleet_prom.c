/* fleet_prom: the fleet from a Prometheus server's HTTP API (/api/v1/query, PromQL) over
 * dcgm-exporter's or gpuwatch serve's series labelled hpc_job (fleet.h). */
#include "fleet/curl_dl.h"
#include "fleet/fleet.h"

#include "analysis/thresholds.h"
#include "sampler/sample.h"
#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* An answer's bytes: parsed, a JSON answer takes about ten times its size (a 60 MiB one took
 * 897 MB), so 16 MiB (some 100,000 jobs) bounds a query near 200 MB. */
enum { PROM_MAX_BYTES = 16 << 20, PROM_TIMEOUT_S = 30 };

typedef struct body_ctx {
    gw_buf b;
    bool too_large;
} body_ctx;

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    body_ctx *b = ctx;
    if (b->b.len + size * n > PROM_MAX_BYTES) {
        b->too_large = true;
        return 0; /* the transfer fails */
    }
    gw_buf_append(&b->b, data, size * n);
    return size * n;
}

/* url as error messages show it: a password in it ("https://user:pw@host") becomes "***". */
static char *shown(const char *url)
{
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t auth = strcspn(host, "/?#"); /* the authority: [user[:password]@]host[:port] */
    const char *at = NULL, *colon = memchr(host, ':', auth);
    for (size_t i = 0; i < auth; i++) /* the last '@': a password may hold one unescaped */
        if (host[i] == '@')
            at = host + i;
    if (!at || !colon || colon > at)
        return xstrdup(url);
    return xasprintf("%.*s***%s", (int)(colon + 1 - url), url, at);
}

/* GETs url?query=...; *doc is the parsed answer's "data". */
static gw_rc query(const char *base, const char *promql, cJSON **doc, gw_error *err)
{
    *doc = NULL;
    CURL *c = curl_easy_init();
    if (!c)
        return gw_error_set(err, GW_E_SYSTEM, "libcurl could not start a transfer");
    char *q = curl_easy_escape(c, promql, 0);
    size_t len = strlen(base);
    char *url = xasprintf("%s%sapi/v1/query?query=%s", base, len && base[len - 1] == '/' ? "" : "/",
                          q ? q : "");
    curl_free(q);
    body_ctx body = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)PROM_TIMEOUT_S);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuwatch/" GPUWATCH_VERSION);
    CURLcode cc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    gw_rc rc = GW_OK;
    cJSON *root = cc == CURLE_OK && body.b.data ? cJSON_Parse(body.b.data) : NULL;
    gw_buf_free(&body.b); /* before the answer is used: not both at once */
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "status");
    const cJSON *emsg = cJSON_GetObjectItemCaseSensitive(root, "error");
    char *name = shown(base);
    if (body.too_large)
        rc = gw_error_set(err, GW_E_IO,
                          "Prometheus at %s answered more than %d MiB: shorten --window, or ask "
                          "a Prometheus that keeps fewer jobs",
                          name, PROM_MAX_BYTES >> 20);
    else if (cc != CURLE_OK)
        rc = gw_error_set(err, GW_E_IO,
                          "cannot query Prometheus at %s: %s: check the URL and that Prometheus "
                          "runs",
                          name, curl_easy_strerror(cc));
    else if (cJSON_IsString(st) && strcmp(st->valuestring, "success") == 0)
        *doc = cJSON_DetachItemFromObjectCaseSensitive(root, "data");
    else if (cJSON_IsString(emsg))
        rc = gw_error_set(err, GW_E_IO, "Prometheus at %s refused the query (HTTP %ld): %.200s",
                          name, status, emsg->valuestring);
    else if (status == 401 || status == 403)
        rc = gw_error_set(err, GW_E_IO,
                          "%s refused access (HTTP %ld): give a user and password in the URL "
                          "(https://user:password@host/)",
                          name, status);
    else
        rc = gw_error_set(err, GW_E_IO,
                          "%s answered HTTP %ld without a Prometheus API answer: give the base "
                          "URL of a Prometheus server (http://host:9090)",
                          name, status);
    free(name);
    cJSON_Delete(root);
    free(url);
    return rc;
}

/* Calls each(label value, number, ctx) for every sample of an instant vector answer. */
static void each_sample(const cJSON *data, const char *label,
                        void (*each)(const char *key, const cJSON *metric, double v, void *ctx),
                        void *ctx)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(data, "result"))
    {
        const cJSON *metric = cJSON_GetObjectItemCaseSensitive(s, "metric");
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(metric, label);
        const cJSON *val = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "value"), 1);
        if (!cJSON_IsString(key) || !*key->valuestring || !cJSON_IsString(val))
            continue;
        char *end;
        double v = strtod(val->valuestring, &end);
        if (*end == '\0' && gw_fmt_sane(v) && v >= 0) /* counts and means: never negative */
            each(key->valuestring, metric, v, ctx);
    }
}

typedef struct job_user {
    char *job, *user;
    size_t order;
} job_user;

typedef struct prom_ctx {
    gw_fleet *f;
    const char *url;
    size_t nusers, capusers;
    job_user *users; /* job_id -> user, sorted by job (then as answered) once all are in */
    double step_h;
    int cls; /* GW_FLEET_*, or -1: the GPU's total, -2: SM activity mean, -3: GPU count */
} prom_ctx;

static void on_user(const char *job, const cJSON *metric, double v, void *vctx)
{
    prom_ctx *ctx = vctx;
    const cJSON *user = cJSON_GetObjectItemCaseSensitive(metric, "user");
    (void)v;
    if (!cJSON_IsString(user) || !*user->valuestring)
        return;
    if (ctx->nusers == ctx->capusers) {
        ctx->capusers = ctx->capusers ? 2 * ctx->capusers : 64;
        ctx->users = xrealloc(ctx->users, ctx->capusers * sizeof *ctx->users);
    }
    ctx->users[ctx->nusers] = (job_user){xstrdup(job), xstrdup(user->valuestring), ctx->nusers};
    ctx->nusers++;
}

static int cmp_user(const void *pa, const void *pb)
{
    const job_user *a = pa, *b = pb;
    int c = strcmp(a->job, b->job);
    return c ? c : a->order < b->order ? -1 : a->order > b->order;
}

/* The user of job (the first answered), NULL when gpuwatch_job_info does not say. */
static const char *user_of(const prom_ctx *ctx, const char *job)
{
    size_t lo = 0, hi = ctx->nusers;
    while (lo < hi) { /* the first entry >= job */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ctx->users[mid].job, job) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ctx->nusers && strcmp(ctx->users[lo].job, job) == 0 ? ctx->users[lo].user : NULL;
}

static void on_value(const char *job, const cJSON *metric, double v, void *vctx)
{
    prom_ctx *ctx = vctx;
    (void)metric;
    const char *user = user_of(ctx, job);
    gw_fleet_job *j = gw_fleet_job_find(ctx->f, job, user);
    if (ctx->cls != -1 && !(j && j->server_hours > 0))
        return; /* a partial answer: a job without GPU time on this server adds nothing */
    if (!j)
        j = gw_fleet_job_of(ctx->f, job, user, ctx->url);
    if (ctx->cls == -1) {
        j->gpu_hours += v * ctx->step_h;
        j->server_hours += v * ctx->step_h;
    } else if (ctx->cls == -2) {
        double pct = v * gw_fields[GW_F_GPM_SM_ACTIVE_PCT].dcgm.scale; /* a ratio: x 100 */
        if (!(pct >= 0 && pct <= 100))
            return; /* 100 as a ratio is no 10000 %: absent */
        /* the mean over every sample of the job's GPUs, weighted by this server's hours */
        j->sm_hours += j->server_hours;
        j->sm_weight += pct * j->server_hours;
    } else if (ctx->cls == -3) {
        j->ngpus += v < 1e9 ? (size_t)v : 0;
    } else {
        j->hours[ctx->cls] += v * ctx->step_h;
    }
}

/* The rest of each job's GPU time is "other"; the classes never add up to more (a no-op for
 * jobs from summaries, whose classes already add up). */
static void fill_other(gw_fleet *f)
{
    for (size_t i = 0; i < f->njobs; i++) {
        gw_fleet_job *j = &f->jobs[i];
        double left = j->gpu_hours;
        for (int c = 0; c < GW_FLEET_OTHER; c++) {
            if (j->hours[c] > left)
                j->hours[c] = left;
            left -= j->hours[c];
        }
        j->hours[GW_FLEET_OTHER] = left;
    }
}

gw_rc gw_fleet_add_prometheus(gw_fleet *f, const char *url, double window_s, double step_s,
                              gw_error *err)
{
    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
        char *name = shown(url);
        gw_error_set(err, GW_E_USAGE,
                     "'%s' is no Prometheus URL: give http://host:9090 (or https://)", name);
        free(name);
        return GW_E_USAGE;
    }
    gw_rc rc = gw_curl_load(err);
    if (rc)
        return rc;
    char w[64];
    snprintf(w, sizeof w, "[%ss:%ss]", GW_FIXED(window_s, 0), GW_FIXED(step_s, 0));
    const char *sel = "{hpc_job!=\"\"}", *on = " and on(instance, gpu, hpc_job) ";
    /* dcgm-exporter's series and units (gw_fields[].dcgm): GPU-Util %, FB MiB, SM active ratio */
    const gw_dcgm_name *util = &gw_fields[GW_F_UTIL_GPU_PCT].dcgm,
                       *fb = &gw_fields[GW_F_MEM_USED_MIB].dcgm,
                       *sma = &gw_fields[GW_F_GPM_SM_ACTIVE_PCT].dcgm;
    double idle = GW_TH(GW_TH_IDLE_UTIL_PCT) / util->scale,
           busy = GW_TH(GW_TH_BUSY_UTIL_PCT) / util->scale;
    double sm = GW_TH(GW_TH_UNDERFILL_SM_ACTIVE_PCT) / sma->scale,
           held = GW_TH(GW_TH_IDLE_HOLD_MIB) / fb->scale;
    const char *u = util->name, *s = sma->name;
    /* one sample of one GPU at each step: count_over_time x step = GPU time in the class */
    char *qs[] = {
        xasprintf("sum by (hpc_job) (count_over_time(%s%s%s))", u, sel, w),
        xasprintf("sum by (hpc_job) (count_over_time((%s%s < %s%s%s%s >= %s)%s))", u, sel,
                  GW_SIG(idle, 6), on, fb->name, sel, GW_SIG(held, 6), w),
        xasprintf("sum by (hpc_job) (count_over_time((%s%s >= %s%s%s%s < %s)%s))", u, sel,
                  GW_SIG(busy, 6), on, s, sel, GW_SIG(sm, 6), w),
        xasprintf("sum by (hpc_job) (count_over_time((%s%s >= %s < %s)%s))", u, sel,
                  GW_SIG(idle, 6), GW_SIG(busy, 6), w),
        xasprintf("sum by (hpc_job) (count_over_time((%s%s >= %s%s%s%s >= %s)%s))", u, sel,
                  GW_SIG(busy, 6), on, s, sel, GW_SIG(sm, 6), w),
        xasprintf("avg by (hpc_job) (avg_over_time(%s%s%s))", s, sel, w),
        xasprintf("count by (hpc_job) (max_over_time(%s%s%s))", u, sel, w),
    };
    static const int cls[] = {
        -1, GW_FLEET_IDLE, GW_FLEET_UNDERFILLED, GW_FLEET_STARVED, GW_FLEET_SATURATED, -2, -3};
    enum { NQ = sizeof qs / sizeof qs[0] };
    prom_ctx ctx = {.f = f, .url = url, .step_h = step_s / 3600.0};
    for (size_t i = 0; i < f->njobs; i++)
        f->jobs[i].server_hours = 0;
    /* users first (gpuwatch_job_info{hpc_job, user} 1, as serve --hpc-job-mapping-dir writes
     * it): a site without it has "unknown" users */
    char *uq = xasprintf("max by (hpc_job, user) (max_over_time(gpuwatch_job_info[%ss]))",
                         GW_FIXED(window_s, 0));
    cJSON *data = NULL;
    rc = query(url, uq, &data, err);
    free(uq);
    if (!rc)
        each_sample(data, "hpc_job", on_user, &ctx);
    cJSON_Delete(data);
    if (ctx.nusers > 1)
        qsort(ctx.users, ctx.nusers, sizeof *ctx.users, cmp_user);
    for (size_t i = 0; !rc && i < NQ; i++) {
        rc = query(url, qs[i], &data, err);
        ctx.cls = cls[i];
        if (!rc)
            each_sample(data, "hpc_job", on_value, &ctx);
        cJSON_Delete(data);
        data = NULL;
    }
    for (size_t i = 0; i < NQ; i++)
        free(qs[i]);
    for (size_t i = 0; i < ctx.nusers; i++) {
        free(ctx.users[i].job);
        free(ctx.users[i].user);
    }
    free(ctx.users);
    if (rc)
        return rc;
    fill_other(f);
    f->nsources++;
    return GW_OK;
}
