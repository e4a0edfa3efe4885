/* fleet_out: the ranking of users and jobs and its text and JSON (fleet.h). */
#include "fleet/fleet.h"

#include "util/gw_file.h"
#include "util/gw_fmt.h"
#include "util/gw_json.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { KEY_COL = 23 };

static void add_job(gw_fleet_row *r, const gw_fleet_job *j, double *sm_h, double *sm_w)
{
    r->njobs++;
    r->ngpus += j->ngpus;
    r->gpu_hours += j->gpu_hours;
    for (int c = 0; c < GW_FLEET_NCLASS; c++)
        r->hours[c] += j->hours[c];
    *sm_h += j->sm_hours;
    *sm_w += j->sm_weight;
}

static void finish_row(gw_fleet_row *r, double sm_h, double sm_w)
{
    r->wasted_hours =
        r->hours[GW_FLEET_IDLE] + r->hours[GW_FLEET_UNDERFILLED] + r->hours[GW_FLEET_STARVED];
    r->sm_active_pct = sm_h > 0 ? sm_w / sm_h : NAN;
}

static int cmp_row(const void *pa, const void *pb)
{
    const gw_fleet_row *a = pa, *b = pb;
    if (a->wasted_hours != b->wasted_hours)
        return a->wasted_hours > b->wasted_hours ? -1 : 1;
    if (a->gpu_hours != b->gpu_hours)
        return a->gpu_hours > b->gpu_hours ? -1 : 1;
    return strcmp(a->key, b->key);
}

static const char *user_key(const gw_fleet_job *j)
{
    return j->user ? j->user : "unknown";
}

size_t gw_fleet_rank(const gw_fleet *f, bool by_user, gw_fleet_row **out)
{
    gw_fleet_row *rows = xcalloc(f->njobs + 1, sizeof *rows);
    double *sm_h = xcalloc(f->njobs + 1, sizeof *sm_h), *sm_w = xcalloc(f->njobs + 1, sizeof *sm_w);
    size_t n = 0;
    for (size_t i = 0; i < f->njobs; i++) {
        const gw_fleet_job *j = &f->jobs[i];
        const char *key = by_user ? user_key(j) : j->job_id;
        size_t r = 0;
        while (r < n && !(strcmp(rows[r].key, key) == 0 &&
                          (by_user || strcmp(rows[r].user, user_key(j)) == 0)))
            r++;
        if (r == n) {
            rows[n].key = key;
            rows[n].user = user_key(j);
            n++;
        }
        add_job(&rows[r], j, &sm_h[r], &sm_w[r]);
    }
    for (size_t r = 0; r < n; r++)
        finish_row(&rows[r], sm_h[r], sm_w[r]);
    free(sm_h);
    free(sm_w);
    qsort(rows, n, sizeof *rows, cmp_row);
    *out = rows;
    return n;
}

static gw_fleet_row total_of(const gw_fleet *f)
{
    gw_fleet_row t = {.key = "total", .user = ""};
    double sm_h = 0, sm_w = 0;
    for (size_t i = 0; i < f->njobs; i++)
        add_job(&t, &f->jobs[i], &sm_h, &sm_w);
    finish_row(&t, sm_h, sm_w);
    return t;
}

static void row_text(FILE *out, const char *key, const char *user, const gw_fleet_row *r)
{
    char label[KEY_COL + 1];
    if (user)
        snprintf(label, sizeof label, "%-12.12s %-10.10s", key, user);
    else
        snprintf(label, sizeof label, "%-23.23s", key);
    fprintf(out, "%-*s", KEY_COL, label);
    char b[GW_FMT_SIZE];
    fprintf(out, " %7s", gw_fmt_fixed(b, sizeof b, r->gpu_hours, 2, 0, "-"));
    for (int c = 0; c < GW_FLEET_OTHER + 1; c++)
        fprintf(out, " %6s", gw_fmt_fixed(b, sizeof b, r->hours[c], 2, 0, "-"));
    if (gw_fmt_sane(r->sm_active_pct))
        fprintf(out, " %4s %%\n", gw_fmt_fixed(b, sizeof b, r->sm_active_pct, 0, 0, "-"));
    else
        fprintf(out, " %6s\n", "-");
}

static void head_text(FILE *out, const char *first)
{
    fprintf(out, "%-*s %7s %6s %6s %6s %6s %6s %6s\n", KEY_COL, first, "GPU-h", "idle", "under",
            "starv", "satur", "other", "SM act");
}

static void table_text(FILE *out, const gw_fleet *f, bool by_user, size_t top_n)
{
    gw_fleet_row *rows;
    size_t n = gw_fleet_rank(f, by_user, &rows);
    size_t shown = top_n && n > top_n ? top_n : n;
    fprintf(out, "\n%s, most wasted GPU-hours first (idle + underfilled + starved):\n",
            by_user ? "By user" : "By job");
    head_text(out, by_user ? "user" : "job          user");
    for (size_t r = 0; r < shown; r++)
        row_text(out, rows[r].key, by_user ? NULL : rows[r].user, &rows[r]);
    if (shown < n)
        fprintf(out, "... and %zu more (--top N, or --json for all)\n", n - shown);
    free(rows);
}

void gw_fleet_text(FILE *out, const gw_fleet *f, size_t top_n)
{
    gw_fleet_row t = total_of(f), *users;
    size_t nusers = gw_fleet_rank(f, true, &users);
    free(users);
    char b[GW_FMT_SIZE];
    fprintf(out, "Fleet: %zu job%s of %zu user%s, %s GPU-hours (from %zu source%s)\n", f->njobs,
            f->njobs == 1 ? "" : "s", nusers, nusers == 1 ? "" : "s",
            gw_fmt_fixed(b, sizeof b, t.gpu_hours, 2, 0, "-"), f->nsources,
            f->nsources == 1 ? "" : "s");
    if (f->files_skipped) {
        const char *base = strrchr(f->first_skipped, '/');
        fprintf(out, "Skipped %zu file%s that %s no summary.json (the first: %s)\n",
                f->files_skipped, f->files_skipped == 1 ? "" : "s",
                f->files_skipped == 1 ? "is" : "are", base ? base + 1 : f->first_skipped);
    }
    if (!f->njobs) {
        fprintf(out, "No job's GPU time found.\n");
        return;
    }
    fprintf(out, "GPU-hours by what the GPUs did: idle holding memory, underfilled (GPU-Util\n"
                 "high, SM activity low), starved, saturated, other (start-up, tails):\n");
    head_text(out, "");
    row_text(out, "all jobs", NULL, &t);
    table_text(out, f, true, top_n);
    table_text(out, f, false, top_n);
}

static cJSON *row_json(const gw_fleet_row *r, bool by_user)
{
    cJSON *o = cJSON_CreateObject();
    gw_json_add_str(o, by_user ? "user" : "job_id", r->key);
    if (!by_user)
        gw_json_add_str(o, "user", strcmp(r->user, "unknown") == 0 ? NULL : r->user);
    cJSON_AddNumberToObject(o, "jobs", (double)r->njobs);
    cJSON_AddNumberToObject(o, "gpus", (double)r->ngpus);
    gw_json_add_num(o, "gpu_hours", r->gpu_hours, 6);
    gw_json_add_num(o, "wasted_hours", r->wasted_hours, 6);
    cJSON *h = cJSON_AddObjectToObject(o, "hours");
    for (int c = 0; c < GW_FLEET_NCLASS; c++)
        gw_json_add_num(h, gw_fleet_class_name((gw_fleet_class)c), r->hours[c], 6);
    gw_json_add_num(o, "sm_active_pct", r->sm_active_pct, 3);
    return o;
}

static void rows_json(cJSON *root, const char *key, const gw_fleet *f, bool by_user)
{
    gw_fleet_row *rows;
    size_t n = gw_fleet_rank(f, by_user, &rows);
    cJSON *a = cJSON_AddArrayToObject(root, key);
    for (size_t r = 0; r < n; r++)
        cJSON_AddItemToArray(a, row_json(&rows[r], by_user));
    free(rows);
}

cJSON *gw_fleet_json(const gw_fleet *f)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON_AddStringToObject(root, "gpuwatch_version", GPUWATCH_VERSION);
    cJSON_AddStringToObject(root, "kind", "fleet");
    cJSON_AddNumberToObject(root, "sources", (double)f->nsources);
    cJSON_AddNumberToObject(root, "files_skipped", (double)f->files_skipped);
    gw_fleet_row t = total_of(f);
    cJSON *tot = row_json(&t, false);
    cJSON_DeleteItemFromObjectCaseSensitive(tot, "job_id");
    cJSON_DeleteItemFromObjectCaseSensitive(tot, "user");
    cJSON_AddItemToObject(root, "totals", tot);
    rows_json(root, "users", f, true);
    rows_json(root, "jobs", f, false);
    return root;
}

gw_rc gw_fleet_write_json(const gw_fleet *f, const char *path, gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_path(&out, path, err);
    if (rc)
        return rc;
    cJSON *root = gw_fleet_json(f);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    fputs(text, out.f);
    fputc('\n', out.f);
    free(text);
    return gw_file_out_commit(&out, err);
}
