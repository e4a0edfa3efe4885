/* fleet_out: the ranking of users and jobs and its text and JSON (fleet.h). */
#include "fleet/fleet.h"

#include "view/utf8.h"

#include "util/gw_buf.h"
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

/* A job as the ranking sorts it: its row's key (job id, or none by user), its user, its index. */
typedef struct rank_key {
    const char *job, *user;
    size_t index;
} rank_key;

static int cmp_key(const rank_key *a, const rank_key *b)
{
    int c = a->job && b->job ? strcmp(a->job, b->job) : 0;
    return c ? c : strcmp(a->user, b->user);
}

static int cmp_rank_key(const void *pa, const void *pb)
{
    const rank_key *a = pa, *b = pb;
    int c = cmp_key(a, b);
    if (c)
        return c;
    return a->index < b->index ? -1 : 1; /* stable: the order read */
}

size_t gw_fleet_rank(const gw_fleet *f, bool by_user, gw_fleet_row **out)
{
    /* jobs sorted by key, then each run of equal keys is a row: O(n log n) for 100,000 jobs */
    rank_key *keys = xcalloc(f->njobs + 1, sizeof *keys);
    for (size_t i = 0; i < f->njobs; i++)
        keys[i] = (rank_key){by_user ? NULL : f->jobs[i].job_id, user_key(&f->jobs[i]), i};
    if (f->njobs > 1)
        qsort(keys, f->njobs, sizeof *keys, cmp_rank_key);
    gw_fleet_row *rows = xcalloc(f->njobs + 1, sizeof *rows);
    size_t n = 0;
    double sm_h = 0, sm_w = 0;
    for (size_t i = 0; i < f->njobs; i++) {
        const gw_fleet_job *j = &f->jobs[keys[i].index];
        if (i == 0 || cmp_key(&keys[i - 1], &keys[i]) != 0) {
            if (n)
                finish_row(&rows[n - 1], sm_h, sm_w);
            rows[n].key = by_user ? user_key(j) : j->job_id;
            rows[n].user = user_key(j);
            n++;
            sm_h = sm_w = 0;
        }
        add_job(&rows[n - 1], j, &sm_h, &sm_w);
    }
    if (n)
        finish_row(&rows[n - 1], sm_h, sm_w);
    free(keys);
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

/* GPU-hours in at most width columns: 2 decimals, fewer when large (a site's 72000.0 in a week),
 * then thousands with a suffix, so that a column never pushes the next one out of place. */
static const char *hours_cell(char *buf, size_t size, double h, int width)
{
    if (!gw_fmt_sane(h))
        return "-";
    for (int d = 2; d >= 0; d--)
        if ((int)strlen(gw_fmt_fixed(buf, size, h, d, 0, "-")) <= width)
            return buf;
    static const char suffix[] = "kMGTPE";
    for (int i = 0; suffix[i]; i++) {
        h /= 1000.0;
        char n[GW_FMT_SIZE];
        snprintf(buf, size, "%s%c", gw_fmt_fixed(n, sizeof n, h, 0, 0, "-"), suffix[i]);
        if ((int)strlen(buf) <= width)
            return buf;
    }
    return "-";
}

/* Appends s in exactly cols columns: whole characters (a user name in UTF-8 is not cut in the
 * middle of one), "..." when it is wider, spaces after. */
static void cell(gw_buf *b, const char *s, int cols)
{
    int used = gw_utf8_fit(s, cols, b);
    gw_buf_printf(b, "%*s", cols - used, "");
}

static void row_text(FILE *out, const char *key, const char *user, const gw_fleet_row *r)
{
    gw_buf label = {0};
    if (user) {
        cell(&label, key, 12);
        gw_buf_puts(&label, " ");
        cell(&label, user, KEY_COL - 13);
    } else {
        cell(&label, key, KEY_COL);
    }
    fputs(label.data, out);
    gw_buf_free(&label);
    char b[GW_FMT_SIZE];
    fprintf(out, " %7s", hours_cell(b, sizeof b, r->gpu_hours, 7));
    for (int c = 0; c < GW_FLEET_OTHER + 1; c++)
        fprintf(out, " %6s", hours_cell(b, sizeof b, r->hours[c], 6));
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
    if (f->files_repeated)
        fprintf(out, "Read once: %zu file%s given again (the same file or its directory twice)\n",
                f->files_repeated, f->files_repeated == 1 ? "" : "s");
    if (f->subdir_summaries) { /* gpuwatch run's directory of run directories */
        const char *slash = strrchr(f->first_subdir, '/');
        int dir_len = slash ? (int)(slash - f->first_subdir) : 1;
        while (dir_len > 1 && f->first_subdir[dir_len - 1] == '/') /* "runs/" given */
            dir_len--;
        fprintf(out, "Not read: %zu run director%s with a summary.json: give %.*s/*/summary.json\n",
                f->subdir_summaries, f->subdir_summaries == 1 ? "y" : "ies", dir_len,
                slash ? f->first_subdir : ".");
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
    cJSON *root = gw_json_doc(1, "fleet");
    cJSON_AddNumberToObject(root, "sources", (double)f->nsources);
    cJSON_AddNumberToObject(root, "files_skipped", (double)f->files_skipped);
    cJSON_AddNumberToObject(root, "files_repeated", (double)f->files_repeated);
    cJSON_AddNumberToObject(root, "run_directories_not_read", (double)f->subdir_summaries);
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
    cJSON *root = gw_fleet_json(f);
    gw_rc rc = gw_json_write_path(root, path, err);
    cJSON_Delete(root);
    return rc;
}
