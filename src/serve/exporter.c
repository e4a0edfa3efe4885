#include "serve/exporter.h"
#include "host/procfs.h"

#include "http/http_server.h"
#include "prom/prom_store.h"
#include "prom/prom_text.h"
#include "serve/pod_labels.h"
#include "util/gw_fmt.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { MAX_CALL_ERRORS = 64 };

/* The rendered GPU part of one format, valid for one store generation. */
typedef struct render_cache {
    uint64_t generation, jobs_generation, scope_generation;
    bool xid_watched;
    gw_buf text;
} render_cache;

struct gw_exporter {
    gw_exporter_config cfg;
    char *listen, *proc_root, *driver;
    char hostname[256];
    gw_http_server *http;
    gw_prom_store *store;
    gw_sampler *sampler;
    /* scrape state, under lock (the server has one thread; the lock keeps that an assumption) */
    pthread_mutex_t lock;
    gw_prom_snapshot snap;
    char **labels; /* [nlabels]: each device's label set */
    unsigned nlabels;
    render_cache cache[2]; /* by gw_prom_format */
    uint64_t scrapes;
    double last_scrape_s; /* NAN before the first */
    gw_nvml_call_error errors[MAX_CALL_ERRORS];
    gw_pod_labels *pods;      /* `serve --kubernetes`, else NULL */
    gw_jobmap *jobmap;        /* NULL without --hpc-job-mapping-dir */
    uint64_t jobs_generation; /* counts the job map's changes */
    bool only_job;            /* gw_exporter_set_gpus: only these GPUs are served */
    unsigned *job_gpus;       /* [njob] NVML indices */
    size_t njob;
    uint64_t scope_generation; /* counts their changes */
    gw_prom_snapshot view;     /* snap without the other GPUs (job_view) */
    const char **view_labels;  /* [view.ndev] borrowed from labels */
};

gw_rc gw_exporter_open(const gw_exporter_config *cfg, gw_exporter **out, gw_error *err)
{
    *out = NULL;
    const char *listen = cfg->listen ? cfg->listen : GW_EXPORTER_DEFAULT_LISTEN;
    gw_http_config hc = {.listen = listen,
                         .max_connections = cfg->max_connections,
                         .max_per_ip = cfg->max_per_ip,
                         .timeout_s = cfg->client_timeout_s,
                         .max_request_bytes = 16384};
    gw_http_server *http = NULL;
    gw_rc rc = gw_http_listen(&hc, &http, err);
    if (rc)
        return rc;
    gw_exporter *e = xcalloc(1, sizeof *e);
    e->cfg = *cfg;
    e->listen = xstrdup(listen);
    e->cfg.listen = e->listen;
    e->proc_root = cfg->proc_root ? xstrdup(cfg->proc_root) : NULL;
    e->cfg.proc_root = e->proc_root;
    e->http = http;
    if (gethostname(e->hostname, sizeof e->hostname - 1) != 0)
        e->hostname[0] = '\0';
    e->store = gw_prom_store_new(cfg->per_process, cfg->cmdline, e->proc_root);
    pthread_mutex_init(&e->lock, NULL);
    e->last_scrape_s = NAN;
    e->pods = cfg->pods ? gw_pod_labels_new(cfg->pods) : NULL;
    if (cfg->hpc_job_dir)
        e->jobmap = gw_jobmap_new(cfg->hpc_job_dir, cfg->warn, cfg->warn_ctx);
    *out = e;
    return GW_OK;
}

const char *gw_exporter_address(const gw_exporter *e)
{
    return gw_http_address(e->http);
}

static void free_labels(gw_exporter *e)
{
    for (unsigned i = 0; i < e->nlabels; i++)
        free(e->labels[i]);
    free(e->labels);
    e->labels = NULL;
    e->nlabels = 0;
}

/* Brings e->snap up to date; rebuilds the label sets when the devices changed. Under lock. */
static void refresh(gw_exporter *e)
{
    bool devices_changed = false;
    if (gw_prom_store_snapshot(e->store, &e->snap) && e->nlabels != e->snap.ndev) {
        free_labels(e);
        e->labels = xcalloc(e->snap.ndev ? e->snap.ndev : 1, sizeof *e->labels);
        e->nlabels = e->snap.ndev;
        for (unsigned i = 0; i < e->snap.ndev; i++) {
            gw_buf b = {0};
            gw_prom_device_labels(&b, &e->snap.devs[i], e->hostname, e->driver);
            e->labels[i] = b.data ? b.data : xstrdup("");
        }
        devices_changed = true;
    }
    /* Pod labels change without a new sample: render the GPU part again when they do. */
    if (e->pods && gw_pod_labels_update(e->pods, &e->snap, e->labels, e->nlabels, devices_changed))
        e->cache[GW_PROM_TEXT].generation = e->cache[GW_PROM_OPENMETRICS].generation = 0;
}

/* Resident memory and CPU time of this process; NAN when unknown. */
static void self_usage(double *rss_bytes, double *cpu_s)
{
    *rss_bytes = *cpu_s = NAN;
    char buf[128];
    unsigned long size = 0, resident = 0;
    if (gw_procfs_read_small("/proc/self/statm", buf, sizeof buf) > 0) {
        if (sscanf(buf, "%lu %lu", &size, &resident) == 2)
            *rss_bytes = (double)resident * (double)sysconf(_SC_PAGESIZE);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        /* one division of whole microseconds: the nearest double to the decimal, which
         * /metrics prints in 15 digits ("1.031"), where a sum of seconds and a fraction printed
         * as "1.0309999999999999" (issue 27) */
        *cpu_s = (double)(((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
                          ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
                 1e6;
}

void gw_exporter_set_gpus(gw_exporter *e, const unsigned *gpus, size_t n)
{
    pthread_mutex_lock(&e->lock);
    free(e->job_gpus);
    e->job_gpus = xmemdup(gpus, n * sizeof *gpus);
    e->njob = n;
    e->only_job = true;
    e->scope_generation++;
    pthread_mutex_unlock(&e->lock);
}

static void free_view(gw_exporter *e)
{
    free(e->view.devs);
    free(e->view.gpus);
    free(e->view.last_xid);
    free(e->view.xid_count);
    free(e->view.procs);
    memset(&e->view, 0, sizeof e->view);
    free(e->view_labels);
    e->view_labels = NULL;
}

static bool job_gpu(const gw_exporter *e, unsigned index)
{
    for (size_t i = 0; i < e->njob; i++)
        if (e->job_gpus[i] == index)
            return true;
    return false;
}

/* *snap and *labels without the GPUs that are not the job's (gw_exporter_set_gpus); processes
 * follow their GPU. Unchanged when every GPU is served. Under lock. */
static void job_view(gw_exporter *e, const gw_prom_snapshot **snap, const char *const **labels)
{
    free_view(e);
    if (!e->only_job)
        return;
    const gw_prom_snapshot *s = *snap;
    gw_prom_snapshot *v = &e->view;
    *v = *s;
    unsigned n = s->ndev;
    v->devs = xcalloc(n + 1, sizeof *v->devs);
    v->gpus = xcalloc(n + 1, sizeof *v->gpus);
    v->last_xid = xcalloc(n + 1, sizeof *v->last_xid);
    v->xid_count = xcalloc(n + 1, sizeof *v->xid_count);
    v->procs = xcalloc(s->nprocs + 1, sizeof *v->procs);
    v->procs_cap = 0;
    e->view_labels = xcalloc(n + 1, sizeof *e->view_labels);
    unsigned *pos = xcalloc(n + 1, sizeof *pos);
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        pos[i] = UINT_MAX;
        if (!job_gpu(e, s->devs[i].index))
            continue;
        pos[i] = k;
        v->devs[k] = s->devs[i];
        if (s->gpus)
            v->gpus[k] = s->gpus[i];
        if (s->last_xid)
            v->last_xid[k] = s->last_xid[i];
        if (s->xid_count)
            v->xid_count[k] = s->xid_count[i];
        e->view_labels[k++] = (*labels)[i];
    }
    v->ndev = k;
    v->nprocs = 0;
    for (size_t p = 0; p < s->nprocs; p++) {
        if (s->procs[p].dev >= n || pos[s->procs[p].dev] == UINT_MAX)
            continue;
        v->procs[v->nprocs] = s->procs[p];
        v->procs[v->nprocs++].dev = pos[s->procs[p].dev];
    }
    free(pos);
    *snap = v;
    *labels = e->view_labels;
}

static void page_metrics(gw_exporter *e, const gw_http_request *req, gw_http_response *resp)
{
    int64_t t0 = gw_mono_ns();
    gw_prom_format f = gw_prom_negotiate(req->accept);
    pthread_mutex_lock(&e->lock);
    refresh(e);
    render_cache *c = &e->cache[f];
    bool xid_watched = e->sampler && gw_sampler_event_gpus(e->sampler) > 0;
    if (e->jobmap && gw_jobmap_reload(e->jobmap))
        e->jobs_generation++;
    if (c->generation != e->snap.generation || c->xid_watched != xid_watched ||
        c->jobs_generation != e->jobs_generation || c->scope_generation != e->scope_generation) {
        gw_buf_reset(&c->text);
        const gw_prom_snapshot *own = &e->snap, *snap;
        const char *const *own_labels = (const char *const *)e->labels, *const * labels;
        job_view(e, &own, &own_labels); /* `run --listen`: the job's GPUs */
        snap = own;
        labels = own_labels;
        if (e->jobmap) /* each GPU once per job, with hpc_job */
            gw_jobmap_apply(e->jobmap, own, own_labels, &snap, &labels);
        gw_prom_render_gpus(&c->text, f, snap, labels, xid_watched);
        if (e->jobmap)
            gw_jobmap_render_info(e->jobmap, &c->text, f, own, own_labels);
        c->generation = e->snap.generation;
        c->xid_watched = xid_watched;
        c->jobs_generation = e->jobs_generation;
        c->scope_generation = e->scope_generation;
    }
    gw_sampler_stats st = {0};
    gw_prom_self self = {.interval_s = (double)e->cfg.interval_ms / 1000.0,
                         .sample_age_s = NAN,
                         .sample_read_s = NAN,
                         .scrapes = ++e->scrapes,
                         .scrape_duration_s = e->last_scrape_s,
                         .errors = e->errors};
    if (e->sampler) {
        gw_sampler_get_stats(e->sampler, &st);
        self.samples = st.ticks;
        self.samples_skipped = st.ticks_skipped;
        self.nerrors = gw_sampler_call_errors(e->sampler, e->errors, MAX_CALL_ERRORS);
    }
    if (e->snap.have_sample) {
        self.sample_age_s = (double)(t0 - e->snap.mono_ns) / 1e9;
        self.sample_read_s = (double)st.last_read_ns / 1e9;
    }
    self_usage(&self.rss_bytes, &self.cpu_s);
    /* One allocation for the whole answer: the cached part plus room for our own series. */
    resp->body.cap = c->text.len + 4096 + 128 * (size_t)self.nerrors;
    resp->body.data = xmalloc(resp->body.cap);
    resp->body.data[0] = '\0';
    gw_buf_append(&resp->body, c->text.data ? c->text.data : "", c->text.len);
    if (e->pods)
        gw_pod_labels_render(e->pods, &resp->body, f, &e->snap);
    gw_prom_render_self(&resp->body, f, &self);
    gw_prom_render_end(&resp->body, f);
    e->last_scrape_s = (double)(gw_mono_ns() - t0) / 1e9;
    pthread_mutex_unlock(&e->lock);
    resp->content_type = gw_prom_content_type(f);
}

static void page_health(gw_exporter *e, gw_http_response *resp)
{
    pthread_mutex_lock(&e->lock);
    refresh(e);
    bool have = e->snap.have_sample;
    double age_s = have ? (double)(gw_mono_ns() - e->snap.mono_ns) / 1e9 : 0;
    pthread_mutex_unlock(&e->lock);
    double interval_s = (double)e->cfg.interval_ms / 1000.0;
    if (!have) {
        resp->status = 503;
        gw_buf_puts(&resp->body, "starting: no sample yet\n");
    } else if (age_s > 3 * interval_s + 5) {
        resp->status = 503;
        gw_buf_printf(&resp->body,
                      "stale: the last sample is %s s old (sampling every %s s): NVML may be "
                      "hung; see gpuwatch_nvml_errors_total and the service's log\n",
                      GW_FIXED(age_s, 1), GW_SIG(interval_s, 6));
    } else {
        gw_buf_printf(&resp->body, "ok: the last sample is %s s old\n", GW_FIXED(age_s, 1));
    }
}

static void page_index(gw_exporter *e, gw_http_response *resp)
{
    pthread_mutex_lock(&e->lock);
    refresh(e);
    unsigned n = e->snap.ndev;
    pthread_mutex_unlock(&e->lock);
    resp->content_type = "text/html; charset=utf-8";
    gw_buf_printf(&resp->body,
                  "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>gpuwatch</title>"
                  "</head>\n<body><h1>gpuwatch %s</h1>\n<p>Prometheus exporter for %u NVIDIA "
                  "GPU%s, with dcgm-exporter's metric names.</p>\n<ul><li><a "
                  "href=\"/metrics\">/metrics</a></li>\n<li><a href=\"/healthz\">/healthz</a>"
                  "</li></ul></body></html>\n",
                  GPUWATCH_VERSION, n, n == 1 ? "" : "s");
}

static void handle(void *ctx, const gw_http_request *req, gw_http_response *resp)
{
    gw_exporter *e = ctx;
    if (strcmp(req->path, "/metrics") == 0) {
        page_metrics(e, req, resp);
    } else if (strcmp(req->path, "/healthz") == 0) {
        page_health(e, resp);
    } else if (strcmp(req->path, "/") == 0) {
        page_index(e, resp);
    } else {
        resp->status = 404;
        gw_buf_puts(&resp->body, "not found: gpuwatch serves /metrics, /healthz and /\n");
    }
}

gw_rc gw_exporter_start(gw_exporter *e, gw_sampler *sampler, gw_events *bus,
                        const char *driver_version, gw_error *err)
{
    e->sampler = sampler;
    free(e->driver);
    e->driver = xstrdup(driver_version ? driver_version : "");
    gw_sink sink = gw_prom_store_as_sink(e->store);
    gw_sampler_add_sink(sampler, &sink);
    if (e->pods) { /* MIG devices, for the kubelet's MIG device ids */
        gw_sink pod_sink = gw_pod_labels_as_sink(e->pods);
        gw_sampler_add_sink(sampler, &pod_sink);
    }
    if (bus)
        gw_events_listen(bus, gw_prom_store_on_event, e->store);
    return gw_http_start(e->http, handle, e, err);
}

void gw_exporter_close(gw_exporter *e)
{
    if (!e)
        return;
    gw_http_close(e->http);
    gw_prom_store_free(e->store);
    gw_prom_snapshot_free(&e->snap);
    free_labels(e);
    gw_pod_labels_free(e->pods);
    gw_jobmap_free(e->jobmap);
    free_view(e);
    free(e->job_gpus);
    for (int i = 0; i < 2; i++)
        gw_buf_free(&e->cache[i].text);
    pthread_mutex_destroy(&e->lock);
    free(e->listen);
    free(e->proc_root);
    free(e->driver);
    free(e);
}
