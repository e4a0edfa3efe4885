/* The in-memory series model (see series.h). */
#include "logread/inproc.h"
#include "logread/series.h"

#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

gw_series *gw_series_new(void)
{
    return xcalloc(1, sizeof(gw_series));
}

void gw_series_drop_samples(gw_series *s)
{
    for (size_t i = 0; i < s->ngpus; i++)
        gw_series_table_drop(&s->gpus[i]->tab);
    for (size_t i = 0; i < s->nhosts; i++)
        gw_series_table_drop(&s->hosts[i]->tab);
}

static void host_free(gw_series_host *h)
{
    if (!h)
        return;
    gw_series_table_free(&h->tab);
    free(h->source);
    free(h);
}

static void gpu_free(gw_series_gpu *g)
{
    gw_series_table_free(&g->tab);
    free(g->source);
    free(g->key);
    free(g->uuid);
    free(g->name);
    free(g->pci_bus_id);
    free(g);
}

static void event_free(gw_series_event *e)
{
    free(e->type);
    free(e->text);
    free(e->rule);
    free(e->detail);
    for (size_t f = 0; f < e->nfields; f++) {
        free(e->fields[f].key);
        free(e->fields[f].text);
    }
    free(e->fields);
}

void gw_series_free(gw_series *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ninputs; i++) {
        free(s->inputs[i].path);
        free(s->inputs[i].source);
        free(s->inputs[i].note);
        free(s->inputs[i].incomplete);
        if (s->inputs[i].job)
            gw_job_clear(s->inputs[i].job);
        free(s->inputs[i].job);
        gw_inproc_free(s->inputs[i].inproc);
    }
    free(s->inputs);
    free(s->progress);
    free(s->rate_t_ms);
    free(s->phases);
    free(s->phases_found);
    free(s->rate_steps_per_s);
    for (size_t i = 0; i < s->ngpus; i++)
        gpu_free(s->gpus[i]);
    free(s->gpus);
    for (size_t i = 0; i < s->nhosts; i++)
        host_free(s->hosts[i]);
    free(s->hosts);
    for (size_t i = 0; i < s->ngpm; i++)
        host_free(s->gpm[i]);
    free(s->gpm);
    for (size_t i = 0; i < s->nprocs; i++)
        free(s->procs[i].name);
    free(s->procs);
    for (size_t i = 0; i < s->nevents; i++)
        event_free(&s->events[i]);
    free(s->events);
    for (size_t i = 0; i < s->ntails; i++) {
        free(s->tails[i].source);
        free(s->tails[i].text);
    }
    free(s->tails);
    free(s);
}

char *gw_series_text(const char *text, bool keep_newlines)
{
    char *copy = xstrdup(text ? text : "");
    bool ascii = true;
    for (unsigned char *c = (unsigned char *)copy; *c; c++) {
        if ((*c < 0x20 && !(keep_newlines && *c == '\n')) || *c == 0x7f)
            *c = '?';
        ascii = ascii && *c < 0x80;
    }
    if (ascii) /* the usual case: nothing more to check */
        return copy;
    /* then C1 controls, bidi overrides and invalid UTF-8: util/gw_utf8.h's one rule, line by
     * line (it would make a kept '\n' a space) */
    gw_buf b = {0};
    for (const char *p = copy;;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        gw_utf8_sanitize(p, n, &b);
        if (!nl)
            break;
        gw_buf_append(&b, "\n", 1);
        p = nl + 1;
    }
    free(copy);
    copy = xstrdup(b.data ? b.data : "");
    gw_buf_free(&b);
    return copy;
}

size_t gw_series_add_input(gw_series *s, const char *path, const char *source, gw_input_kind kind)
{
    s->inputs = xrealloc(s->inputs, (s->ninputs + 1) * sizeof *s->inputs);
    gw_series_input *in = &s->inputs[s->ninputs];
    memset(in, 0, sizeof *in);
    in->path = xstrdup(path);
    in->source = gw_series_text(source ? source : path, false);
    in->kind = kind;
    in->note = xstrdup("");
    in->complete = -1;
    in->incomplete = xstrdup("");
    return s->ninputs++;
}

gw_series_gpu *gw_series_add_gpu(gw_series *s, size_t input, const char *source, const char *key)
{
    gw_series_gpu *g = xcalloc(1, sizeof *g);
    g->input = input;
    g->source = gw_series_text(source, false);
    g->key = xstrdup(key ? key : "");
    g->index = -1;
    g->uuid = xstrdup("");
    g->name = xstrdup("");
    g->pci_bus_id = xstrdup("");
    g->memory_total_mib = NAN;
    g->power_limit_w = NAN;
    g->slowdown_temp_c = NAN;
    for (int f = 0; f < GW_F_COUNT; f++)
        g->col_of[f] = -1;
    g->in_job = -1;
    g->tab.compact = true;
    if (s->ngpus > 0 && strcmp(s->gpus[0]->source, g->source) != 0)
        s->several_sources = true;
    s->gpus = xgrow(s->gpus, &s->gpus_cap, s->ngpus + 1, sizeof *s->gpus);
    s->gpus[s->ngpus++] = g;
    return g;
}

/* Whether a dropped GPU has this source and index. */
static bool dropped(const gw_series *s, const bool *drop, const char *source, int index)
{
    for (size_t i = 0; i < s->ngpus; i++)
        if (drop[i] && s->gpus[i]->index == index && strcmp(s->gpus[i]->source, source) == 0)
            return true;
    return false;
}

void gw_series_drop_gpus(gw_series *s, const bool *drop)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        gw_series_proc *p = &s->procs[i];
        if (dropped(s, drop, s->inputs[p->input].source, p->gpu_index))
            free(p->name);
        else
            s->procs[k++] = *p;
    }
    s->nprocs = k;
    k = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        gw_series_event *e = &s->events[i];
        if (e->gpu_index >= 0 && dropped(s, drop, s->inputs[e->input].source, e->gpu_index))
            event_free(e);
        else
            s->events[k++] = *e;
    }
    s->nevents = k;
    k = 0;
    for (size_t i = 0; i < s->ngpus; i++) {
        if (drop[i])
            gpu_free(s->gpus[i]);
        else
            s->gpus[k++] = s->gpus[i];
    }
    s->ngpus = k;
}

gw_series_gpu *gw_series_find_gpu(const gw_series *s, size_t input, int index)
{
    for (size_t i = 0; i < s->ngpus; i++)
        if (s->gpus[i]->input == input && s->gpus[i]->index == index)
            return s->gpus[i];
    return NULL;
}

static gw_series_host *new_host(size_t input, const char *source)
{
    gw_series_host *h = xcalloc(1, sizeof *h);
    h->input = input;
    h->source = gw_series_text(source, false);
    return h;
}

gw_series_host *gw_series_add_host(gw_series *s, size_t input, const char *source)
{
    s->hosts = xrealloc(s->hosts, (s->nhosts + 1) * sizeof *s->hosts);
    return s->hosts[s->nhosts++] = new_host(input, source);
}

gw_series_host *gw_series_add_gpm(gw_series *s, size_t input, const char *source)
{
    s->gpm = xrealloc(s->gpm, (s->ngpm + 1) * sizeof *s->gpm);
    return s->gpm[s->ngpm++] = new_host(input, source);
}

gw_series_event *gw_series_add_event(gw_series *s, size_t input, int64_t t_ms, const char *type,
                                     const char *text)
{
    s->events = xgrow(s->events, &s->events_cap, s->nevents + 1, sizeof *s->events);
    gw_series_event *e = &s->events[s->nevents++];
    e->input = input;
    e->t_ms = t_ms;
    e->type = xstrdup(type);
    gw_event_kind kind;
    e->kind = gw_event_kind_of(type, &kind)  ? (int)kind
              : strcmp(type, "log_end") == 0 ? GW_SERIES_EV_LOG_END
                                             : GW_SERIES_EV_OTHER;
    e->text = gw_series_text(text, false);
    e->gpu_index = -1;
    e->epoch = -1;
    e->total = -1;
    e->code = NAN;
    e->rule = xstrdup("");
    e->value = e->threshold = NAN;
    e->signal = 0;
    e->detail = xstrdup("");
    e->nfields = 0;
    e->fields = NULL;
    return e;
}

void gw_series_event_add_field(gw_series_event *e, const char *key, double num, const char *text)
{
    e->fields = xrealloc(e->fields, (e->nfields + 1) * sizeof *e->fields);
    gw_series_field *f = &e->fields[e->nfields++];
    f->key = gw_series_text(key, false); /* a marker's keys are the job's text too */
    f->num = text ? NAN : num;
    f->text = text ? gw_series_text(text, false) : NULL;
}

void gw_series_event_set(char **member, const char *value)
{
    free(*member);
    *member = gw_series_text(value, false);
}

double gw_series_event_field_num(const gw_series_event *e, const char *key)
{
    for (size_t f = 0; f < e->nfields; f++)
        if (strcmp(e->fields[f].key, key) == 0)
            return e->fields[f].num;
    return NAN;
}

void gw_series_add_tail(gw_series *s, size_t input, const char *source, const char *text,
                        size_t lines)
{
    s->tails = xrealloc(s->tails, (s->ntails + 1) * sizeof *s->tails);
    s->tails[s->ntails++] = (gw_series_tail){.input = input,
                                             .source = gw_series_text(source, false),
                                             .text = gw_series_text(text, true),
                                             .lines = lines};
}

gw_series_proc *gw_series_add_proc(gw_series *s, size_t input, int64_t t_ms, int gpu_index,
                                   long pid, const char *name, double used_mib, int in_job)
{
    s->procs = xgrow(s->procs, &s->procs_cap, s->nprocs + 1, sizeof *s->procs);
    gw_series_proc *p = &s->procs[s->nprocs++];
    p->input = input;
    p->t_ms = t_ms;
    p->gpu_index = gpu_index;
    p->pid = pid;
    p->name = gw_series_text(name, false);
    p->used_mib = used_mib;
    p->in_job = in_job;
    return p;
}

char *gw_series_gpu_label(const gw_series *s, const gw_series_gpu *g)
{
    if (s->several_sources) /* kept by gw_series_add_gpu: labels cost O(1), not O(GPUs) */
        return xasprintf("%s GPU %d", g->source, g->index);
    return xasprintf("GPU %d", g->index);
}

/* ---- finishing ---- */

static int cmp_event(const void *a, const void *b)
{
    const gw_series_event *x = a, *y = b;
    if (x->t_ms != y->t_ms)
        return x->t_ms < y->t_ms ? -1 : 1;
    return 0;
}

/* The capacity a GPU without memory.total shows: the largest memory.used + memory.free of a row
 * (what nvidia-smi's total is, less the driver's reservation); NAN without both. */
static double used_plus_free(const gw_series_gpu *g)
{
    double m = NAN;
    bool both = gw_series_gpu_has(g, GW_F_MEM_USED_MIB) && gw_series_gpu_has(g, GW_F_MEM_FREE_MIB);
    for (size_t r = 0; both && r < g->tab.n; r++) {
        double u = gw_series_gpu_value(g, GW_F_MEM_USED_MIB, r);
        double f = gw_series_gpu_value(g, GW_F_MEM_FREE_MIB, r);
        if (!isnan(u) && !isnan(f) && (isnan(m) || u + f > m))
            m = u + f;
    }
    return m >= 1 ? m : NAN;
}

/* Adds a sentence to an input's note. */
static void note_add(gw_series_input *in, const char *text)
{
    if (strstr(in->note, text))
        return;
    char *note = *in->note ? xasprintf("%s; %s", in->note, text) : xstrdup(text);
    free(in->note);
    in->note = note;
}

/* Strings read from files are untrusted bytes: made valid UTF-8 without escape sequences here,
 * once, for every reader (util/gw_utf8.h), before any output sees them. */
static void clean_text(char **str)
{
    char *clean = gw_utf8_clean_dup(*str);
    free(*str);
    *str = clean;
}

static void merge_gpm(gw_series_gpu *g, const gw_series_table *gp)
{
    double tol_ms = 1000;
    if (gp->n > 1) {
        double mean_dt = (double)(gp->t_ms[gp->n - 1] - gp->t_ms[0]) / (double)(gp->n - 1);
        if (2 * mean_dt > tol_ms)
            tol_ms = 2 * mean_dt;
    }
    size_t j = 0;
    for (size_t r = 0; r < g->tab.n; r++) {
        int64_t t = g->tab.t_ms[r];
        while (j + 1 < gp->n && gp->t_ms[j + 1] <= t)
            j++;
        size_t best = j;
        if (j + 1 < gp->n && llabs(gp->t_ms[j + 1] - t) < llabs(gp->t_ms[j] - t))
            best = j + 1;
        if ((double)llabs(gp->t_ms[best] - t) > tol_ms)
            continue;
        for (size_t c = 0; c < gp->ncols; c++) {
            const gw_series_col *src = &gp->cols[c];
            if (src->field < 0)
                continue;
            if (isnan(gw_series_gpu_value(g, (gw_gpu_field)src->field, r)))
                gw_series_gpu_set(g, (gw_gpu_field)src->field, r, src->v[best]);
        }
    }
}

static gw_rc finish_gpm(gw_series *s, const gw_series_host *h, gw_error *err)
{
    const gw_series_table *gp = &h->tab;
    const char *path = s->inputs[h->input].path;
    if (gp->n == 0)
        return GW_OK;
    gw_series_gpu *target = NULL;
    size_t matches = 0;
    for (size_t i = 0; i < s->ngpus; i++) {
        const gw_series_table *t = &s->gpus[i]->tab;
        if (t->n == 0 || t->t_ms[0] > gp->t_ms[gp->n - 1] || t->t_ms[t->n - 1] < gp->t_ms[0])
            continue;
        target = s->gpus[i];
        matches++;
    }
    if (matches == 0)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: its GPM rows overlap no GPU's recording in time (nvidia-smi's "
                            "local timestamps are read in the zone TZ; set TZ to the recording "
                            "machine's zone)",
                            path);
    if (matches > 1)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: its GPM rows overlap %zu GPUs and name none: give it together "
                            "with the log of one GPU only",
                            path, matches);
    merge_gpm(target, gp);
    char *note = xasprintf("GPM columns merged into %s", target->source);
    free(s->inputs[h->input].note);
    s->inputs[h->input].note = note;
    return GW_OK;
}

gw_rc gw_series_finish(gw_series *s, gw_error *err)
{
    for (size_t i = 0; i < s->ngpus; i++) {
        gw_series_gpu *g = s->gpus[i];
        gw_series_table_sort(&g->tab);
        if (isnan(g->memory_total_mib))
            g->memory_total_mib = gw_series_gpu_max(g, GW_F_MEM_TOTAL_MIB);
        if (isnan(g->power_limit_w))
            g->power_limit_w = gw_series_gpu_max(g, GW_F_POWER_LIMIT_W);
        if (isnan(g->memory_total_mib) && !isnan(g->memory_total_mib = used_plus_free(g)))
            note_add(&s->inputs[g->input], "memory.total taken as memory.used + memory.free");
        clean_text(&g->name);
        clean_text(&g->uuid);
        clean_text(&g->pci_bus_id);
    }
    for (size_t i = 0; i < s->nprocs; i++)
        clean_text(&s->procs[i].name);
    for (size_t i = 0; i < s->nhosts; i++)
        gw_series_table_sort(&s->hosts[i]->tab);
    for (size_t i = 0; i < s->ngpm; i++) {
        gw_series_table_sort(&s->gpm[i]->tab);
        gw_rc rc = finish_gpm(s, s->gpm[i], err);
        if (rc)
            return rc;
        host_free(s->gpm[i]);
        s->gpm[i] = NULL;
    }
    free(s->gpm);
    s->gpm = NULL;
    s->ngpm = 0;
    /* qsort is not stable, but events at the same millisecond have no order to keep. */
    if (s->nevents > 1)
        qsort(s->events, s->nevents, sizeof *s->events, cmp_event);
    gw_series_apply_job(s);
    for (size_t i = 0; i < s->ngpus; i++) /* the copies the steps above decoded */
        gw_series_gpu_release(s->gpus[i]);
    return GW_OK;
}
