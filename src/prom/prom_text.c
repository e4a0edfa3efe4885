#include "prom/prom_text.h"

#include "util/gw_fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIB (1024.0 * 1024.0)

/* ---- negotiation ---- */

/* The q of one media range ("type/subtype; a=b; q=0.5"), 1 when absent. */
static double range_q(const char *range, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++) {
        if (range[i] != ';')
            continue;
        size_t k = i + 1;
        while (k < len && (range[k] == ' ' || range[k] == '\t'))
            k++;
        if (k + 1 < len && (range[k] == 'q' || range[k] == 'Q') && range[k + 1] == '=')
            return strtod(range + k + 2, NULL);
    }
    return 1.0;
}

static bool range_is(const char *range, size_t len, const char *type)
{
    while (len && (*range == ' ' || *range == '\t'))
        range++, len--;
    size_t n = strlen(type);
    return len >= n && strncasecmp(range, type, n) == 0 &&
           (len == n || range[n] == ';' || range[n] == ' ' || range[n] == '\t');
}

gw_prom_format gw_prom_negotiate(const char *accept)
{
    double q_om = 0, q_text = 0;
    for (const char *p = accept; p && *p;) {
        size_t len = strcspn(p, ",");
        if (range_is(p, len, "application/openmetrics-text"))
            q_om = fmax(q_om, range_q(p, len));
        else if (range_is(p, len, "text/plain"))
            q_text = fmax(q_text, range_q(p, len));
        p += len + (p[len] == ',');
    }
    return q_om > 0 && q_om >= q_text ? GW_PROM_OPENMETRICS : GW_PROM_TEXT;
}

const char *gw_prom_content_type(gw_prom_format f)
{
    return f == GW_PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                    : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- values and labels ---- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        bool ok = (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 &&
                  !(s[0] == 0xE0 && s[1] < 0xA0) && /* overlong */
                  !(s[0] == 0xED && s[1] >= 0xA0);  /* surrogates */
        return ok ? 3 : 0;
    }
    if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        bool ok = (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 &&
                  !(s[0] == 0xF0 && s[1] < 0x90) && !(s[0] == 0xF4 && s[1] >= 0x90);
        return ok ? 4 : 0;
    }
    return 0;
}

void gw_prom_escape_label(gw_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t run = 0; /* bytes that need nothing */
        while (p[run] && p[run] < 0x80 && p[run] != '\\' && p[run] != '"' && p[run] != '\n')
            run++;
        gw_buf_append(b, (const char *)p, run);
        p += run;
        if (!*p)
            break;
        if (*p == '\\' || *p == '"' || *p == '\n') {
            gw_buf_append(b, *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : "\\n", 2);
            p++;
            continue;
        }
        size_t n = utf8_len(p); /* the NUL terminator fails any continuation test */
        gw_buf_append(b, n ? (const char *)p : "?", n ? n : 1);
        p += n ? n : 1;
    }
}

/* Escapes a HELP text: backslash and newline, and in OpenMetrics also the double quote. */
static void escape_help(gw_buf *b, const char *s, gw_prom_format f)
{
    for (; *s; s++) {
        if (*s == '\\')
            gw_buf_append(b, "\\\\", 2);
        else if (*s == '\n')
            gw_buf_append(b, "\\n", 2);
        else if (*s == '"' && f == GW_PROM_OPENMETRICS)
            gw_buf_append(b, "\\\"", 2);
        else
            gw_buf_append(b, s, 1);
    }
}

void gw_prom_append_value(gw_buf *b, double v)
{
    char tmp[GW_FMT_SIZE];
    if (isnan(v)) {
        gw_buf_append(b, "NaN", 3);
        return;
    }
    if (isinf(v)) {
        gw_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        /* Integers are most values (MHz, MiB, mJ, counts): no printf needed. */
        long long i = (long long)v;
        unsigned long long u = i < 0 ? (unsigned long long)(-i) : (unsigned long long)i;
        char *e = tmp + sizeof tmp;
        char *p = e;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (i < 0)
            *--p = '-';
        gw_buf_append(b, p, (size_t)(e - p));
        return;
    }
    gw_buf_puts(b, gw_fmt_exact(tmp, sizeof tmp, v));
}

void gw_prom_device_labels(gw_buf *b, const gw_device_info *d, const char *hostname,
                           const char *driver)
{
    gw_buf_printf(b, "gpu=\"%u\",UUID=\"", d->index);
    gw_prom_escape_label(b, d->uuid);
    gw_buf_puts(b, "\",pci_bus_id=\"");
    gw_prom_escape_label(b, d->pci_bus_id);
    gw_buf_printf(b, "\",device=\"nvidia%u\",modelName=\"", d->index);
    gw_prom_escape_label(b, d->name);
    gw_buf_puts(b, "\",Hostname=\"");
    gw_prom_escape_label(b, hostname ? hostname : "");
    gw_buf_puts(b, "\"");
    if (driver && *driver) {
        gw_buf_puts(b, ",DCGM_FI_DRIVER_VERSION=\"");
        gw_prom_escape_label(b, driver);
        gw_buf_puts(b, "\"");
    }
}

/* ---- families ---- */

/* Writes HELP and TYPE for the family whose samples are named `sample`. OpenMetrics names a
 * counter family without the _total its samples carry; a counter whose samples lack it
 * (dcgm-exporter's energy) is `unknown` there, so that the series keeps its name. */
static void head(gw_buf *b, gw_prom_format f, const char *sample, const char *type,
                 const char *help)
{
    size_t n = strlen(sample);
    if (f == GW_PROM_OPENMETRICS && strcmp(type, "counter") == 0) {
        if (n > 6 && strcmp(sample + n - 6, "_total") == 0)
            n -= 6;
        else
            type = "unknown";
    }
    gw_buf_puts(b, "# HELP ");
    gw_buf_append(b, sample, n);
    gw_buf_append(b, " ", 1);
    escape_help(b, help, f);
    gw_buf_puts(b, "\n# TYPE ");
    gw_buf_append(b, sample, n);
    gw_buf_append(b, " ", 1);
    gw_buf_puts(b, type);
    gw_buf_append(b, "\n", 1);
}

/* One sample line: name{labels} value. labels may be NULL or "". */
static void sample(gw_buf *b, const char *name, const char *labels, double v)
{
    gw_buf_puts(b, name);
    if (labels && *labels) {
        gw_buf_append(b, "{", 1);
        gw_buf_puts(b, labels);
        gw_buf_append(b, "}", 1);
    }
    gw_buf_append(b, " ", 1);
    gw_prom_append_value(b, v);
    gw_buf_append(b, "\n", 1);
}

uint64_t gw_prom_fields(void)
{
    uint64_t bits = 0;
    for (int k = 0; k < GW_F_COUNT; k++)
        if (gw_fields[k].dcgm.name)
            bits |= GW_FIELD_BIT(k);
    return bits;
}

/* One family per GPU field that has a dcgm-exporter name (gw_fields[].dcgm), in table order. */
static void render_dcgm(gw_buf *b, gw_prom_format f, const gw_prom_snapshot *s,
                        const char *const *labels)
{
    for (int k = 0; k < GW_F_COUNT; k++) {
        const gw_dcgm_name *d = &gw_fields[k].dcgm;
        if (!d->name)
            continue;
        bool headed = false;
        for (unsigned i = 0; s->have_sample && i < s->ndev; i++) {
            const gw_gpu_sample *g = &s->gpus[i];
            if (g->lost || !gw_has(g, (gw_gpu_field)k))
                continue;
            if (!headed)
                head(b, f, d->name, d->counter ? "counter" : "gauge", d->help);
            headed = true;
            double v = g->v[k] / d->scale;
            if (d->rounding)
                v = d->rounding > 0 ? ceil(v) : floor(v);
            sample(b, d->name, labels[i], v);
        }
    }
}

static void render_xid(gw_buf *b, gw_prom_format f, const gw_prom_snapshot *s,
                       const char *const *labels, bool counter, bool xid_watched)
{
    const char *name = counter ? "gpuwatch_xid_events_total" : "DCGM_FI_DEV_XID_ERRORS";
    bool headed = false;
    for (unsigned i = 0; i < s->ndev; i++) {
        if (counter ? !xid_watched && s->xid_count[i] == 0 : s->last_xid[i] < 0)
            continue;
        if (!headed)
            head(b, f, name, counter ? "counter" : "gauge",
                 counter ? "XID error events NVML reported for this GPU."
                         : "Value of the last XID error encountered.");
        headed = true;
        sample(b, name, labels[i], counter ? (double)s->xid_count[i] : s->last_xid[i]);
    }
}

static void render_processes(gw_buf *b, gw_prom_format f, const gw_prom_snapshot *s,
                             const char *const *labels)
{
    static const char name[] = "gpuwatch_process_memory_used_bytes";
    if (!s->nprocs)
        return;
    head(b, f, name, "gauge",
         "GPU memory used by the processes of this name (and command line) on this GPU, summed.");
    gw_buf lab = {0};
    for (size_t k = 0; k < s->nprocs; k++) {
        const gw_prom_proc *p = &s->procs[k];
        if (p->dev >= s->ndev)
            continue;
        gw_buf_reset(&lab);
        gw_buf_puts(&lab, labels[p->dev]);
        gw_buf_puts(&lab, ",process=\"");
        gw_prom_escape_label(&lab, p->name);
        gw_buf_puts(&lab, "\"");
        if (p->cmdline[0]) {
            gw_buf_puts(&lab, ",cmdline=\"");
            gw_prom_escape_label(&lab, p->cmdline);
            gw_buf_puts(&lab, "\"");
        }
        sample(b, name, lab.data, p->used_mib * MIB);
    }
    gw_buf_free(&lab);
}

void gw_prom_render_gpus(gw_buf *b, gw_prom_format f, const gw_prom_snapshot *s,
                         const char *const *labels, bool xid_watched)
{
    render_dcgm(b, f, s, labels);
    render_xid(b, f, s, labels, false, xid_watched);
    if (s->have_sample && s->ndev) {
        head(b, f, "gpuwatch_gpu_lost", "gauge",
             "1 when the GPU answered GPU_IS_LOST (it fell off the bus; its DCGM series are absent "
             "from then on), else 0.");
        for (unsigned i = 0; i < s->ndev; i++)
            sample(b, "gpuwatch_gpu_lost", labels[i], s->gpus[i].lost ? 1 : 0);
    }
    render_xid(b, f, s, labels, true, xid_watched);
    render_processes(b, f, s, labels);
    if (s->have_sample && !isnan(s->job_rss_mib)) {
        head(b, f, "gpuwatch_job_resident_memory_bytes", "gauge",
             "Resident memory of the command `gpuwatch run` wraps, summed over its processes.");
        sample(b, "gpuwatch_job_resident_memory_bytes", NULL, s->job_rss_mib * MIB);
    }
}

/* A family with one unlabelled sample; nothing when v is NAN (absent). */
static void single(gw_buf *b, gw_prom_format f, const char *name, const char *type,
                   const char *help, double v)
{
    if (isnan(v))
        return;
    head(b, f, name, type, help);
    sample(b, name, NULL, v);
}

void gw_prom_render_self(gw_buf *b, gw_prom_format f, const gw_prom_self *s)
{
    head(b, f, "gpuwatch_build_info", "gauge", "gpuwatch's version, as a label; the value is 1.");
    sample(b, "gpuwatch_build_info", "version=\"" GPUWATCH_VERSION "\"", 1);
    single(b, f, "gpuwatch_sample_interval_seconds", "gauge", "Sampling interval (-i).",
           s->interval_s);
    single(b, f, "gpuwatch_sample_age_seconds", "gauge",
           "Seconds since the sample shown here was read; it grows when sampling stalls.",
           s->sample_age_s);
    single(b, f, "gpuwatch_samples_total", "counter", "Samples read since gpuwatch started.",
           (double)s->samples);
    single(b, f, "gpuwatch_samples_skipped_total", "counter",
           "Scheduled samples skipped because the one before ran late.",
           (double)s->samples_skipped);
    single(b, f, "gpuwatch_sample_read_duration_seconds", "gauge",
           "Time the last sample's NVML reads took.", s->sample_read_s);
    if (s->nerrors)
        head(b, f, "gpuwatch_nvml_errors_total", "counter",
             "NVML calls that failed, by call (unsupported values and lost GPUs not counted).");
    gw_buf lab = {0};
    for (unsigned i = 0; i < s->nerrors; i++) {
        gw_buf_reset(&lab);
        gw_buf_puts(&lab, "call=\"");
        gw_prom_escape_label(&lab, s->errors[i].call);
        gw_buf_puts(&lab, "\"");
        sample(b, "gpuwatch_nvml_errors_total", lab.data, (double)s->errors[i].count);
    }
    gw_buf_free(&lab);
    single(b, f, "gpuwatch_scrapes_total", "counter", "Requests for /metrics, this one included.",
           (double)s->scrapes);
    single(b, f, "gpuwatch_scrape_duration_seconds", "gauge",
           "Time the previous /metrics request took to build its answer.", s->scrape_duration_s);
    single(b, f, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
           s->rss_bytes);
    single(b, f, "process_cpu_seconds_total", "counter",
           "Total user and system CPU time spent in seconds.", s->cpu_s);
}

void gw_prom_render_end(gw_buf *b, gw_prom_format f)
{
    if (f == GW_PROM_OPENMETRICS)
        gw_buf_puts(b, "# EOF\n");
}
