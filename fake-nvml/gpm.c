/* GPM entry points and samples; see gpm.h. */
#include "gpm.h"

#include "fake_api.h"
#include "timeline.h"
#include "util/xalloc.h"

#include <stdlib.h>

struct gwn_gpm_sample_st {
    struct gwn_gpm_sample_st *next;
    bool taken;         /* nvmlGpmSampleGet filled it */
    unsigned int index; /* the GPU it was taken on */
    double t;           /* scenario time it was taken at */
};

/* Every allocated sample, under the state lock: callers' handles are checked against it. */
static struct gwn_gpm_sample_st *samples;

/* The metrics the fake computes. NVML's metricInfo strings are char *, hence arrays. */
static char name_gr[] = "gr_util", long_gr[] = "Graphics engine utilization", unit_gr[] = "%";
#define GPM_STRINGS(metric, id, key, max, short_name, long_name, unit)                             \
    static char short_##id[] = short_name, long_##id[] = long_name, unit_##id[] = unit;
FAKE_GPM_METRICS(GPM_STRINGS)
#undef GPM_STRINGS

static const struct {
    unsigned int id;
    fake_key key;
    char *short_name, *long_name, *unit;
} metric_table[] = {{GWN_GPM_METRIC_GRAPHICS_UTIL, FK_UTIL_GPU, name_gr, long_gr, unit_gr},
#define GPM_ENTRY(metric, id, ...) {metric, id, short_##id, long_##id, unit_##id},
                    FAKE_GPM_METRICS(GPM_ENTRY)
#undef GPM_ENTRY
};

void fake_gpm_release_all(void)
{
    while (samples) {
        struct gwn_gpm_sample_st *next = samples->next;
        free(samples);
        samples = next;
    }
}

/* The link that points at s, or NULL when s is not a live sample (compared, never read). */
static struct gwn_gpm_sample_st **find_sample(const struct gwn_gpm_sample_st *s)
{
    for (struct gwn_gpm_sample_st **p = &samples; *p; p = &(*p)->next) {
        if (*p == s)
            return p;
    }
    return NULL;
}

static gwn_return fill_support(gwn_gpm_support *support, bool supported)
{
    if (!support)
        return GWN_ERROR_INVALID_ARGUMENT;
    if (support->version != GWN_GPM_SUPPORT_VERSION)
        return GWN_ERROR_ARGUMENT_VERSION_MISMATCH;
    support->isSupportedDevice = supported;
    return GWN_SUCCESS;
}

gwn_return nvmlGpmQueryDeviceSupport(gwn_device device, gwn_gpm_support *support)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlGpmQueryDeviceSupport, device, FG_GPM);
    /* On a GPU without GPM (before Hopper) the query itself works and answers "no". */
    if (r == GWN_ERROR_NOT_SUPPORTED)
        return fill_support(support, false);
    if (r)
        return r;
    return fake_end(&c, fill_support(support, true));
}

gwn_return nvmlGpmSampleAlloc(gwn_gpm_sample *sample)
{
    fake_call c;
    gwn_return r = fake_begin(&c, FC_nvmlGpmSampleAlloc);
    if (r)
        return r;
    if (!sample)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    struct gwn_gpm_sample_st *s = xcalloc(1, sizeof *s);
    s->next = samples;
    samples = s;
    *sample = s;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlGpmSampleFree(gwn_gpm_sample sample)
{
    fake_call c;
    gwn_return r = fake_begin(&c, FC_nvmlGpmSampleFree);
    if (r)
        return r;
    struct gwn_gpm_sample_st **link = find_sample(sample);
    if (!link)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *link = sample->next;
    free(sample);
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlGpmSampleGet(gwn_device device, gwn_gpm_sample sample)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlGpmSampleGet, device, FG_GPM);
    if (r)
        return r;
    if (!find_sample(sample))
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *sample =
        (struct gwn_gpm_sample_st){.next = sample->next, .taken = true, .index = c.index, .t = c.t};
    return fake_end(&c, GWN_SUCCESS);
}

/* One metric entry: the time average of its key over [a, b], or NOT_SUPPORTED. */
static void metric_value(const fake_device *d, double a, double b, gwn_gpm_metric *m)
{
    m->nvmlReturn = GWN_ERROR_NOT_SUPPORTED;
    m->value = 0;
    m->metricInfo.shortName = m->metricInfo.longName = m->metricInfo.unit = NULL;
    for (size_t i = 0; i < sizeof metric_table / sizeof metric_table[0]; i++) {
        const fake_series *s = &d->series[metric_table[i].key];
        if (metric_table[i].id != m->metricId || s->n == 0)
            continue;
        m->value = fake_series_integral(s, a, b) / (b - a);
        m->nvmlReturn = GWN_SUCCESS;
        m->metricInfo.shortName = metric_table[i].short_name;
        m->metricInfo.longName = metric_table[i].long_name;
        m->metricInfo.unit = metric_table[i].unit;
        return;
    }
}

gwn_return nvmlGpmMetricsGet(gwn_gpm_metrics_get *metrics)
{
    fake_call c;
    gwn_return r = fake_begin(&c, FC_nvmlGpmMetricsGet);
    if (r)
        return r;
    if (!metrics)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    if (metrics->version != GWN_GPM_METRICS_GET_VERSION)
        return fake_end(&c, GWN_ERROR_ARGUMENT_VERSION_MISMATCH);
    const struct gwn_gpm_sample_st *s1 = metrics->sample1, *s2 = metrics->sample2;
    if (metrics->numMetrics > GWN_GPM_METRIC_MAX || !find_sample(metrics->sample1) ||
        !find_sample(metrics->sample2) || !s1->taken || !s2->taken || s1->index != s2->index ||
        s1->t == s2->t)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    const fake_device *d = &c.sc->devices[s1->index];
    if (c.t >= d->lost_after_s)
        return fake_end(&c, GWN_ERROR_GPU_IS_LOST);
    double a = s1->t < s2->t ? s1->t : s2->t, b = s1->t < s2->t ? s2->t : s1->t;
    for (unsigned int i = 0; i < metrics->numMetrics; i++)
        metric_value(d, a, b, &metrics->metrics[i]);
    return fake_end(&c, GWN_SUCCESS);
}
