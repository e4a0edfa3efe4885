/* report/jobs: text and summary.json of run directories gathered by job (jobs.h). */
#include "report/jobs.h"

#include "view/utf8.h"

#include "util/gw_buf.h"
#include "util/gw_file.h"
#include "util/gw_fmt.h"
#include "util/gw_json.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MISSING_LISTED ((size_t)8) /* missing ranks named one by one; the rest are counted */
enum { NODE_COL = 14 };

/* "1", "1 and 3", "1, 3, 5 ... and 2 more" */
static void rank_list(gw_buf *b, const long *v, size_t n)
{
    for (size_t i = 0; i < n && i < MISSING_LISTED; i++)
        gw_buf_printf(b, "%s%ld", i == 0 ? "" : i + 1 == n ? " and " : ", ", v[i]);
    if (n > MISSING_LISTED)
        gw_buf_printf(b, " and %zu more", n - MISSING_LISTED);
}

char *gw_report_job_ranks_line(const gw_job_group *grp)
{
    gw_buf b = {0};
    if (grp->world_size <= 0) {
        if (grp->nranks > 0)
            gw_buf_printf(&b, "%zu rank%s (world size unknown)", grp->nranks,
                          grp->nranks == 1 ? "" : "s");
        else
            gw_buf_printf(&b, "%zu director%s (no ranks)", grp->nmembers,
                          grp->nmembers == 1 ? "y" : "ies");
        return b.data;
    }
    gw_buf_printf(&b, "%zu of %ld ranks", grp->nranks, grp->world_size);
    if (grp->nmissing == 0)
        return b.data;
    gw_buf_puts(&b, ": rank ");
    rank_list(&b, grp->missing, grp->nmissing);
    gw_buf_puts(&b, " missing");
    return b.data;
}

char *gw_report_job_rank_notes(const gw_job_group *grp)
{
    gw_buf b = {0};
    if (grp->nworld_sizes > 1) {
        gw_buf_puts(&b, "World sizes disagree: ");
        rank_list(&b, grp->world_sizes, grp->nworld_sizes);
        gw_buf_printf(&b, "; counted against %ld.\n", grp->world_size);
    }
    if (grp->nduplicated) {
        gw_buf_puts(&b, grp->nduplicated == 1 ? "Rank " : "Ranks ");
        rank_list(&b, grp->duplicated, grp->nduplicated);
        gw_buf_printf(&b, " %s more than one directory.\n", grp->nduplicated == 1 ? "has" : "have");
    }
    if (grp->noutside) {
        gw_buf_puts(&b, grp->noutside == 1 ? "Rank " : "Ranks ");
        rank_list(&b, grp->outside, grp->noutside);
        gw_buf_printf(&b, " %s at or past the world size (%ld).\n",
                      grp->noutside == 1 ? "is" : "are", grp->world_size);
    }
    return b.data;
}

/* Whether verdict v of member m is about the job (a GPU of the job, or the whole job). */
static bool verdict_in_job(const gw_job_member *m, const gw_verdict *v)
{
    return v->gpu < 0 || (size_t)v->gpu >= m->a->ngpus ||
           gw_job_member_has_gpu(m, &m->a->gpus[v->gpu]);
}

static void gpu_list(char *buf, size_t size, const gw_job_member *m)
{
    gw_buf b = {0};
    size_t n = 0;
    for (size_t i = 0; i < m->a->ngpus; i++)
        if (gw_job_member_has_gpu(m, &m->a->gpus[i]))
            gw_buf_printf(&b, "%s%d", n++ ? "," : "", m->a->gpus[i].gpu->index);
    if (b.len < size)
        snprintf(buf, size, "%s", n ? b.data : "-");
    else
        snprintf(buf, size, "%zu", n);
    gw_buf_free(&b);
}

static const char *pct(char *buf, size_t size, double v)
{
    char n[GW_FMT_SIZE];
    if (!gw_fmt_sane(v))
        return "-";
    snprintf(buf, size, "%s %%", gw_fmt_fixed(n, sizeof n, v, 0, 0, "-"));
    return buf;
}

static void member_row(FILE *out, const gw_job_member *m, int wh_dec)
{
    char gpus[8], rank[24] = "-", local[24] = "-", h[GW_FMT_SIZE], e[GW_FMT_SIZE + 4];
    char busy[GW_FMT_SIZE], sm[GW_FMT_SIZE];
    gpu_list(gpus, sizeof gpus, m);
    if (m->ref.rank >= 0)
        snprintf(rank, sizeof rank, "%ld", m->ref.rank);
    if (m->ref.local_rank >= 0)
        snprintf(local, sizeof local, "%ld", m->ref.local_rank);
    if (gw_fmt_sane(m->fig.energy_wh)) {
        char n[GW_FMT_SIZE];
        snprintf(e, sizeof e, "%s Wh", gw_fmt_fixed(n, sizeof n, m->fig.energy_wh, wh_dec, 0, "-"));
    } else {
        snprintf(e, sizeof e, "-");
    }
    size_t nv = 0;
    int worst = -1;
    for (size_t i = 0; i < m->a->verdicts.n; i++)
        if (verdict_in_job(m, &m->a->verdicts.v[i])) {
            nv++;
            if ((int)m->a->verdicts.v[i].severity > worst)
                worst = (int)m->a->verdicts.v[i].severity;
        }
    char verdicts[32] = "none";
    if (nv)
        snprintf(verdicts, sizeof verdicts, "%zu, %s", nv, gw_severity_name((gw_severity)worst));
    /* whole characters: a node named after a UTF-8 path (no "node" known) is not cut in one */
    gw_buf node = {0};
    char *clean = gw_utf8_clean_dup(m->node);
    int used = gw_utf8_fit(clean, NODE_COL, &node);
    free(clean);
    gw_buf_printf(&node, "%*s", NODE_COL - used, "");
    fprintf(out, "%s %5s %5s %-6s %6s %5s %6s %9s  %s\n", node.data, rank, local, gpus,
            gw_fmt_fixed(h, sizeof h, m->fig.gpu_hours, 3, 0, "-"),
            pct(busy, sizeof busy, m->fig.busy_pct), pct(sm, sizeof sm, m->fig.sm_active_pct), e,
            verdicts);
    gw_buf_free(&node);
}

static void totals_line(FILE *out, const gw_job_figures *t)
{
    char h[GW_FMT_SIZE], e[GW_FMT_SIZE], busy[GW_FMT_SIZE], sm[GW_FMT_SIZE];
    fprintf(out, "Total: %zu GPU%s, %s GPU-hours, energy %s Wh, busy %s, SM activity %s\n",
            t->ngpus, t->ngpus == 1 ? "" : "s", gw_fmt_fixed(h, sizeof h, t->gpu_hours, 3, 0, "-"),
            gw_fmt_auto(e, sizeof e, t->energy_wh, "unknown"), pct(busy, sizeof busy, t->busy_pct),
            pct(sm, sizeof sm, t->sm_active_pct));
}

static void member_verdicts(FILE *out, const gw_job_member *m)
{
    bool head = false;
    for (size_t i = 0; i < m->a->verdicts.n; i++) {
        const gw_verdict *v = &m->a->verdicts.v[i];
        if (!verdict_in_job(m, v))
            continue;
        if (!head) {
            if (m->ref.rank >= 0)
                fprintf(out, "\nrank %ld on %s (%s):\n", m->ref.rank, m->node, m->path);
            else
                fprintf(out, "\n%s (%s):\n", m->node, m->path);
            head = true;
        }
        char gpu[32] = "job";
        if (v->gpu >= 0 && (size_t)v->gpu < m->a->ngpus)
            snprintf(gpu, sizeof gpu, "GPU %d", m->a->gpus[v->gpu].gpu->index);
        fprintf(out, "%-8s  %-20s %s  %s\n", gw_severity_name(v->severity), gw_verdict_name(v->id),
                gpu, v->message);
    }
}

static void group_text(FILE *out, const gw_job_group *grp)
{
    char *ranks = gw_report_job_ranks_line(grp);
    fprintf(out, "Job %s%s%s (%s): %s\n", grp->job_id ? grp->job_id : "without a job id",
            grp->step ? " step " : "", grp->step ? grp->step : "",
            grp->scheduler ? grp->scheduler : "scheduler unknown", ranks);
    free(ranks);
    char *notes = gw_report_job_rank_notes(grp);
    if (notes)
        fputs(notes, out);
    free(notes);
    fprintf(out, "%-*s %5s %5s %-6s %6s %5s %6s %9s  %s\n", NODE_COL, "node", "rank", "local",
            "GPUs", "GPU-h", "busy", "SM act", "energy", "verdicts");
    /* one number of decimals for the energy column of every rank */
    double *wh = xmalloc((grp->nmembers ? grp->nmembers : 1) * sizeof *wh);
    for (size_t k = 0; k < grp->nmembers; k++)
        wh[k] = grp->members[k]->fig.energy_wh;
    int wh_dec = gw_fmt_decimals(wh, grp->nmembers);
    free(wh);
    for (size_t k = 0; k < grp->nmembers; k++)
        member_row(out, grp->members[k], wh_dec);
    totals_line(out, &grp->total);
    for (size_t k = 0; k < grp->nmembers; k++)
        member_verdicts(out, grp->members[k]);
}

void gw_report_jobs_text(FILE *out, const gw_job_set *js, const gw_report_opts *o)
{
    (void)o;
    if (js->ngroups > 1) {
        fprintf(out, "These directories belong to %zu jobs (", js->ngroups);
        for (size_t g = 0; g < js->ngroups && g < MISSING_LISTED; g++)
            fprintf(out, "%s%s%s%s", g ? ", " : "",
                    js->groups[g].job_id ? js->groups[g].job_id : "no job id",
                    js->groups[g].step ? " step " : "",
                    js->groups[g].step ? js->groups[g].step : "");
        if (js->ngroups > MISSING_LISTED) /* a thousand jobs' directories: one line still */
            fprintf(out, " and %zu more", js->ngroups - MISSING_LISTED);
        fprintf(out, "): one report each.\n\n");
    }
    for (size_t g = 0; g < js->ngroups; g++) {
        if (g)
            fputc('\n', out);
        group_text(out, &js->groups[g]);
    }
}

static void add_id(cJSON *o, const char *key, long v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, key, (double)v);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *figures_json(const gw_job_figures *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "gpus", (double)f->ngpus);
    gw_json_add_num(o, "gpu_hours", f->gpu_hours, 6);
    gw_json_add_num(o, "energy_wh", f->energy_wh, 3);
    gw_json_add_num(o, "busy_pct", f->busy_pct, 3);
    gw_json_add_num(o, "sm_active_pct", f->sm_active_pct, 3);
    return o;
}

static cJSON *ref_json(const gw_job *r)
{
    cJSON *o = cJSON_CreateObject();
    gw_json_add_str(o, "scheduler", r->scheduler);
    gw_json_add_str(o, "job_id", r->job_id);
    gw_json_add_str(o, "step", r->step);
    gw_json_add_str(o, "array_job_id", r->array_job_id);
    gw_json_add_str(o, "array_task", r->array_task);
    add_id(o, "rank", r->rank);
    add_id(o, "local_rank", r->local_rank);
    add_id(o, "world_size", r->world_size);
    gw_json_add_str(o, "node", r->node);
    gw_json_add_str(o, "user", r->user);
    if (!r->gpus_unlisted) {
        cJSON *g = cJSON_AddArrayToObject(o, "gpus");
        for (size_t i = 0; i < r->ngpus; i++)
            cJSON_AddItemToArray(g, cJSON_CreateNumber((double)r->gpus[i]));
    } else {
        cJSON_AddNullToObject(o, "gpus");
    }
    return o;
}

/* The member's summary.json verdicts about the job, each with the job id, rank, node and path. */
static void add_verdicts(cJSON *to, const gw_job_member *m, const cJSON *summary)
{
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(summary, "verdicts");
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, vs)
    {
        /* summary.json lists the verdicts in the analysis' order (json.c) */
        bool keep = true; /* a verdict the analysis does not list: kept */
        if (i < m->a->verdicts.n)
            keep = verdict_in_job(m, &m->a->verdicts.v[i]);
        i++;
        if (!keep)
            continue;
        cJSON *c = cJSON_Duplicate(v, true);
        cJSON_DeleteItemFromObjectCaseSensitive(c, "job_id");
        cJSON_DeleteItemFromObjectCaseSensitive(c, "rank");
        gw_json_add_str(c, "job_id", m->ref.job_id);
        add_id(c, "rank", m->ref.rank);
        gw_json_add_str(c, "node", m->node);
        gw_json_add_str(c, "path", m->path);
        cJSON_AddItemToArray(to, c);
    }
}

static cJSON *member_json(const gw_job_member *m, cJSON *verdicts)
{
    cJSON *o = cJSON_CreateObject();
    gw_json_add_str(o, "path", m->path);
    gw_json_add_str(o, "node", m->node);
    add_id(o, "rank", m->ref.rank);
    add_id(o, "local_rank", m->ref.local_rank);
    cJSON_AddItemToObject(o, "job", ref_json(&m->ref));
    cJSON_AddItemToObject(o, "figures", figures_json(&m->fig));
    cJSON *summary = gw_report_json(m->a);
    add_verdicts(verdicts, m, summary);
    cJSON_AddItemToObject(o, "summary", summary);
    return o;
}

static void add_longs(cJSON *o, const char *key, const long *v, size_t n)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
}

static cJSON *group_json(const gw_job_group *grp)
{
    cJSON *o = cJSON_CreateObject();
    gw_json_add_str(o, "job_id", grp->job_id);
    gw_json_add_str(o, "step", grp->step);
    gw_json_add_str(o, "scheduler", grp->scheduler);
    add_id(o, "world_size", grp->world_size);
    cJSON *present = cJSON_AddArrayToObject(o, "ranks_present");
    long last = -1;
    for (size_t k = 0; k < grp->nmembers; k++) { /* ranks of one node ascend; nodes do not */
        long r = grp->members[k]->ref.rank;
        if (r >= 0 && r != last)
            cJSON_AddItemToArray(present, cJSON_CreateNumber((double)r));
        last = r;
    }
    size_t listed = grp->nmissing < GW_JOB_MAX_LISTED ? grp->nmissing : GW_JOB_MAX_LISTED;
    add_longs(o, "ranks_missing", grp->missing, listed);
    cJSON_AddNumberToObject(o, "ranks_missing_count", (double)grp->nmissing);
    add_longs(o, "ranks_duplicated", grp->duplicated, grp->nduplicated);
    add_longs(o, "ranks_outside", grp->outside, grp->noutside);
    add_longs(o, "world_sizes", grp->world_sizes, grp->nworld_sizes);
    char *line = gw_report_job_ranks_line(grp);
    cJSON_AddStringToObject(o, "ranks", line);
    free(line);
    cJSON_AddItemToObject(o, "totals", figures_json(&grp->total));
    cJSON *members = cJSON_AddArrayToObject(o, "members");
    cJSON *verdicts = cJSON_CreateArray();
    for (size_t k = 0; k < grp->nmembers; k++)
        cJSON_AddItemToArray(members, member_json(grp->members[k], verdicts));
    cJSON_AddItemToObject(o, "verdicts", verdicts);
    return o;
}

cJSON *gw_report_jobs_json(const gw_job_set *js)
{
    cJSON *root = gw_json_doc(1, "jobs");
    cJSON_AddNumberToObject(root, "job_count", (double)js->ngroups);
    cJSON *jobs = cJSON_AddArrayToObject(root, "jobs");
    for (size_t g = 0; g < js->ngroups; g++)
        cJSON_AddItemToArray(jobs, group_json(&js->groups[g]));
    return root;
}

gw_rc gw_report_write_jobs_json(const gw_job_set *js, const char *path, gw_error *err)
{
    cJSON *root = gw_report_jobs_json(js);
    gw_rc rc = gw_json_write_path(root, path, err);
    cJSON_Delete(root);
    return rc;
}
