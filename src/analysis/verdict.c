/* The verdict list (see verdict.h). */
#include "analysis/verdict.h"

#include "analysis/registry.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gw_verdict_name(gw_verdict_id id)
{
    const gw_verdict_def *d = gw_verdict_def_of(id);
    return d ? d->name : "unknown";
}

gw_verdict *gw_verdict_add(gw_verdict_list *l, gw_verdict_id id, gw_severity sev, int gpu,
                           int64_t start_ms, int64_t end_ms)
{
    l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
    gw_verdict *v = &l->v[l->n++];
    memset(v, 0, sizeof *v);
    v->id = id;
    v->severity = sev;
    v->gpu = gpu;
    v->start_ms = start_ms;
    v->end_ms = end_ms;
    v->message = xstrdup("");
    v->suggestion = xstrdup("");
    return v;
}

static gw_evidence *add_evidence(gw_verdict *v, const char *key)
{
    v->evidence = xgrow(v->evidence, &v->evidence_cap, v->nevidence + 1, sizeof *v->evidence);
    gw_evidence *e = &v->evidence[v->nevidence++];
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "%s", key);
    e->value = NAN;
    e->threshold = -1;
    return e;
}

void gw_verdict_num(gw_verdict *v, const char *key, double value)
{
    add_evidence(v, key)->value = value;
}

void gw_verdict_check(gw_verdict *v, const char *key, double value, const char *op,
                      gw_threshold_id th)
{
    gw_evidence *e = add_evidence(v, key);
    e->value = value;
    e->op = op;
    e->threshold = (int)th;
}

void gw_verdict_text(gw_verdict *v, const char *key, const char *text)
{
    add_evidence(v, key)->text = xstrdup(text);
}

void gw_verdict_say(gw_verdict *v, const char *suggestion, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    free(v->message);
    v->message = xmalloc((size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, fmt);
    vsnprintf(v->message, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    va_end(ap);
    free(v->suggestion);
    v->suggestion = xstrdup(suggestion);
}

void gw_verdict_set_cause(gw_verdict *v, const char *cause)
{
    free(v->cause);
    v->cause = xstrdup(cause);
}

int gw_verdict_find(const gw_verdict_list *l, gw_verdict_id id, int gpu)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].id == id && (gpu < 0 || l->v[i].gpu == gpu))
            return 1;
    return 0;
}

static int cmp_verdict(const void *a, const void *b)
{
    const gw_verdict *x = a, *y = b;
    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    if (x->start_ms != y->start_ms)
        return x->start_ms < y->start_ms ? -1 : 1;
    return (int)x->id - (int)y->id;
}

void gw_verdict_sort(gw_verdict_list *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, cmp_verdict);
}

int gw_verdict_max_severity(const gw_verdict_list *l)
{
    int m = -1;
    for (size_t i = 0; i < l->n; i++)
        if ((int)l->v[i].severity > m)
            m = (int)l->v[i].severity;
    return m;
}

void gw_verdict_list_free(gw_verdict_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        gw_verdict *v = &l->v[i];
        for (size_t e = 0; e < v->nevidence; e++)
            free(v->evidence[e].text);
        free(v->evidence);
        free(v->cause);
        free(v->message);
        free(v->suggestion);
    }
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
