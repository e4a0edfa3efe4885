/* report.html's "Inside the job" section: tables and a flame graph per role as inline SVG (no
 * script: the page's Content-Security-Policy and offline use), report/inproc.h. */
#include "report/html_priv.h"
#include "report/inproc.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The flame graph's drawing units: width, row height; frames narrower than MIN_W are left out
 * (their time stays in their parent's box). */
#define FG_W     1200.0
#define FG_ROW   17.0
#define FG_MIN_W 2.0
enum { FG_MAX_DEPTH = 64 };

typedef struct fg_node {
    char *name; /* "function (file)": the frame without its line */
    double count;
    size_t child, next; /* first child, next sibling; 0 = none (node 0 is the root) */
} fg_node;

typedef struct fg_tree {
    fg_node *v;
    size_t n, cap;
} fg_tree;

static size_t fg_child(fg_tree *t, size_t parent, const char *frame, size_t len)
{
    /* drop ":LINE" inside the trailing "(file:LINE)" */
    size_t keep = len;
    if (len > 2 && frame[len - 1] == ')') {
        size_t k = len - 1;
        while (k > 0 && frame[k - 1] >= '0' && frame[k - 1] <= '9')
            k--;
        if (k > 0 && k < len - 1 && frame[k - 1] == ':')
            keep = k - 1;
    }
    char *name = xmalloc(keep + 2);
    memcpy(name, frame, keep);
    name[keep] = '\0';
    if (keep < len)
        strcat(name, ")");
    for (size_t c = t->v[parent].child; c; c = t->v[c].next)
        if (strcmp(t->v[c].name, name) == 0) {
            free(name);
            return c;
        }
    t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof *t->v);
    t->v[t->n] = (fg_node){name, 0, 0, t->v[parent].child};
    t->v[parent].child = t->n;
    return t->n++;
}

static void fg_build(fg_tree *t, const gw_inproc_stacks *st)
{
    t->v = xgrow(NULL, &t->cap, 1, sizeof *t->v);
    t->v[0] = (fg_node){xstrdup("all"), 0, 0, 0};
    t->n = 1;
    for (size_t i = 0; i < st->n; i++) {
        const char *s = st->v[i].frames;
        size_t node = 0;
        int depth = 0;
        t->v[0].count += st->v[i].count;
        for (const char *p = s;; p++) {
            if (*p && *p != ';')
                continue;
            /* the import machinery's frames (6 per nested import) are left out: a module's
             * imports would tower over the training step otherwise */
            bool machinery = memmem(s, (size_t)(p - s), "(<frozen importlib", 18) != NULL;
            if (p > s && !machinery && depth++ < FG_MAX_DEPTH) {
                node = fg_child(t, node, s, (size_t)(p - s));
                t->v[node].count += st->v[i].count;
            }
            if (!*p)
                break;
            s = p + 1;
        }
    }
}

static int fg_depth(const fg_tree *t, size_t node, double scale)
{
    int d = 0;
    for (size_t c = t->v[node].child; c; c = t->v[c].next)
        if (t->v[c].count * scale >= FG_MIN_W) {
            int k = fg_depth(t, c, scale) + 1;
            d = k > d ? k : d;
        }
    return d;
}

/* Idle in a wait: grey; the DataLoader's __next__ (waiting for data): blue; else warm. */
static void fg_colour(FILE *out, const char *name)
{
    if (gw_inproc_frame_idle(name, strlen(name))) {
        fputs("#c8c8c8", out);
        return;
    }
    if (gw_inproc_frame_next(name, strlen(name))) {
        fputs("#8fb3e0", out);
        return;
    }
    unsigned h = 2166136261u;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    fprintf(out, "hsl(%u,%u%%,%u%%)", 10 + h % 45, 70 + (h >> 8) % 20, 55 + (h >> 16) % 12);
}

static void fg_draw(FILE *out, const fg_tree *t, size_t node, double x, int depth, int max_depth,
                    double scale, double total)
{
    const fg_node *v = &t->v[node];
    double w = v->count * scale, y = (max_depth - depth) * FG_ROW;
    char pct[GW_FMT_SIZE], cnt[GW_FMT_SIZE];
    fputs("<g><title>", out);
    gw_html_escape(out, v->name);
    fprintf(out,
            " - %s samples, %s%%</title><rect x=\"%s\" y=\"%s\" width=\"%s\" "
            "height=\"%s\" fill=\"",
            gw_fmt_fixed(cnt, sizeof cnt, v->count, 0, 0, "-"),
            gw_fmt_fixed(pct, sizeof pct, 100.0 * v->count / total, 2, GW_FMT_TRIM, "-"),
            GW_FIXED(x, 1), GW_FIXED(y, 1), GW_FIXED(w, 1), GW_FIXED(FG_ROW - 1, 1));
    fg_colour(out, v->name);
    fputs("\"/>", out);
    size_t chars = (size_t)(w / 7.0);
    if (chars >= 4) {
        size_t len = strlen(v->name);
        char *label = xstrndup(v->name, len > chars ? chars - 2 : len);
        fprintf(out, "<text x=\"%s\" y=\"%s\">", GW_FIXED(x + 3, 1), GW_FIXED(y + FG_ROW - 5, 1));
        gw_html_escape(out, label);
        fputs(len > chars ? "..</text>" : "</text>", out);
        free(label);
    }
    fputs("</g>\n", out);
    double cx = x;
    for (size_t c = v->child; c; c = t->v[c].next) {
        if (t->v[c].count * scale >= FG_MIN_W)
            fg_draw(out, t, c, cx, depth + 1, max_depth, scale, total);
        cx += t->v[c].count * scale;
    }
}

/* One role's flame graph: root at the bottom, callees above, width = share of the samples. */
static void flame_graph(FILE *out, const gw_inproc_stacks *st, const char *label)
{
    if (!(st->samples > 0))
        return;
    fg_tree t = {0};
    fg_build(&t, st);
    double scale = FG_W / t.v[0].count;
    int depth = fg_depth(&t, 0, scale);
    double h = (depth + 1) * FG_ROW;
    fprintf(out,
            "<figure class=\"flame\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
            "viewBox=\"0 0 %s %s\" width=\"100%%\" role=\"img\" aria-label=\"",
            GW_FIXED(FG_W, 0), GW_FIXED(h, 0));
    gw_html_escape(out, label);
    fputs("\" style=\"font:11px monospace\">\n", out);
    fg_draw(out, &t, 0, 0, 0, depth, scale, t.v[0].count);
    fputs("</svg><figcaption>", out);
    gw_html_escape(out, label);
    fputs(": flame graph of the sampled Python stacks (root at the bottom; a box's width is its "
          "share of the samples; grey: idle in a wait, blue: waiting in the DataLoader; the "
          "import machinery's frames left out, stacks cut at 64 frames). Hover for the "
          "numbers.</figcaption></figure>\n",
          out);
    for (size_t i = 0; i < t.n; i++)
        free(t.v[i].name);
    free(t.v);
}

static const char *n(double x, char *buf, int dec)
{
    return gw_fmt_fixed(buf, GW_FMT_SIZE, x, dec, GW_FMT_TRIM, "-");
}

static void loaders_table(FILE *out, const gw_inproc_analysis *ia)
{
    fputs("<table class=\"inproc\">\n<tr><th>loader</th><th>role</th><th>dataset</th>"
          "<th>created at</th><th>settings</th></tr>\n",
          out);
    long rows[2] = {ia->train_loader, ia->val_loader};
    for (int i = 0; i < 2; i++) {
        if (rows[i] < 0)
            continue;
        const gw_inproc_loader *l = &ia->in->loaders[rows[i]];
        gw_buf set = {0};
        gw_inproc_loader_settings(l, &set);
        fprintf(out, "<tr><td class=\"num\">%ld</td><td>%s</td><td>", l->id,
                i ? "validation" : "training");
        gw_html_escape(out, l->dataset);
        fputs("</td><td>", out);
        gw_html_escape(out, l->created_at);
        fputs("</td><td>", out);
        gw_html_escape(out, set.data ? set.data : "");
        fputs("</td></tr>\n", out);
        gw_buf_free(&set);
    }
    fputs("</table>\n<p class=\"meta\">", out);
    gw_html_escape(out, ia->how);
    fputs("</p>\n", out);
}

static void epochs_table(FILE *out, const gw_inproc_analysis *ia)
{
    fputs("<table class=\"inproc\">\n<tr><th>epoch</th><th>steps</th><th>steps/s</th>"
          "<th>waiting for data (s)</th><th>the loop's own work (s)</th><th>data wait</th>"
          "<th>first batch (s)</th><th>bound</th><th>validation (s)</th></tr>\n",
          out);
    for (size_t k = 0; k < ia->nepochs; k++) {
        const gw_inproc_epoch *e = &ia->epochs[k];
        char x[7][GW_FMT_SIZE];
        fprintf(out,
                "<tr><td class=\"num\">%ld</td><td class=\"num\">%s</td><td class=\"num\">%s"
                "</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s%%"
                "</td><td class=\"num\">%s</td><td>%s</td><td class=\"num\">%s</td></tr>\n",
                e->train->pass + 1, n(e->train->steps, x[0], 0), n(e->steps_per_s, x[1], 2),
                n(e->train->wait_s, x[2], 1), n(e->train->between_s, x[3], 1),
                n(e->wait_share_pct, x[4], 1), n(e->train->first_wait_s, x[5], 1),
                gw_inproc_bound_name(e->bound), e->val_steps > 0 ? n(e->val_s, x[6], 1) : "-");
    }
    char x[3][GW_FMT_SIZE];
    fprintf(out,
            "</table>\n<p>Whole run: %s steps; the training loop waited for data %s%% of its "
            "step time, so a faster input pipeline can make training at most <strong>%sx"
            "</strong> faster.</p>\n",
            n(ia->steps, x[0], 0), n(ia->wait_share_pct, x[1], 1),
            n(ia->speedup_input_max, x[2], 2));
}

/* The training loop's data wait over time: one bar per "steps" interval, its height the share
 * of the interval's step time spent waiting for data; epochs start at the dashed lines. */
static void timeline_svg(FILE *out, const gw_inproc_analysis *ia)
{
    gw_inproc_steps *v;
    size_t count = gw_inproc_timeline(ia, 600, &v);
    double t0 = count ? v[0].t0 : 0, t1 = count ? v[count - 1].t1 : 0;
    if (count == 0 || !(t1 > t0)) {
        free(v);
        return;
    }
    const double W = FG_W, H = 120, top = 14;
    double sx = W / (t1 - t0);
    fprintf(out,
            "<figure class=\"flame\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %s "
            "%s\" width=\"100%%\" role=\"img\" aria-label=\"data wait over time\" "
            "style=\"font:11px monospace\">\n",
            GW_FIXED(W, 0), GW_FIXED(H + top + 14, 0));
    for (int p = 0; p <= 100; p += 50)
        fprintf(out,
                "<line x1=\"0\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#ddd\"/>"
                "<text x=\"2\" y=\"%s\">%d%%</text>\n",
                GW_FIXED(W, 0), GW_FIXED(top + H * (1 - p / 100.0), 1),
                GW_FIXED(top + H * (1 - p / 100.0), 1), GW_FIXED(top + H * (1 - p / 100.0) - 2, 1),
                p);
    for (size_t i = 0; i < count; i++) {
        double all = v[i].wait_s + v[i].between_s;
        if (!(all > 0))
            continue;
        double share = v[i].wait_s / all, h = H * share;
        char x[2][GW_FMT_SIZE];
        fprintf(out,
                "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\">"
                "<title>epoch %ld: %s steps, data wait %s%%</title></rect>\n",
                GW_FIXED((v[i].t0 - t0) * sx, 1), GW_FIXED(top + H - h, 1),
                GW_FIXED(fmax((v[i].t1 - v[i].t0) * sx - 0.5, 0.5), 1), GW_FIXED(h, 1),
                share * 100 >= GW_INPROC_INPUT_PCT ? "#d9822b" : "#8fb3e0", v[i].pass + 1,
                n(v[i].steps, x[0], 0), n(100 * share, x[1], 1));
    }
    for (size_t k = 0; k < ia->nepochs; k++) {
        double x = (ia->epochs[k].train->t_start - t0) * sx;
        fprintf(out,
                "<line x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\" stroke=\"#444\" "
                "stroke-dasharray=\"4 3\"/><text x=\"%s\" y=\"%s\">epoch %ld</text>\n",
                GW_FIXED(x, 1), GW_FIXED(x, 1), GW_FIXED(top, 0), GW_FIXED(top + H, 0),
                GW_FIXED(x + 3, 1), GW_FIXED(top + H + 12, 0), ia->epochs[k].train->pass + 1);
    }
    fputs("</svg><figcaption>The training loop's data wait over time: each bar is one "
          "interval's share of the step time spent waiting for the DataLoader (orange: "
          "input-bound, at least 30%).</figcaption></figure>\n",
          out);
    free(v);
}

static void role_section(FILE *out, const gw_inproc_analysis *ia, int role)
{
    const gw_inproc_role_view *rv = &ia->roles[role];
    const char *label = role == GW_INPROC_MAIN ? "Training process" : "DataLoader workers";
    if (!(rv->samples > 0))
        return;
    char x[3][GW_FMT_SIZE];
    double busy = rv->busy;
    fprintf(out,
            "<h3>%s</h3>\n<p class=\"meta\">%zu process%s, %s samples: %s%% idle in a wait, "
            "%s%% importing modules, the rest busy</p>\n<table class=\"inproc\">\n<tr><th>self"
            "</th><th>inclusive</th><th>function (share of the busy samples)</th></tr>\n",
            label, rv->processes, rv->processes == 1 ? "" : "es", n(rv->samples, x[0], 0),
            n(100.0 * rv->idle / rv->samples, x[1], 1),
            n(100.0 * rv->importing / rv->samples, x[2], 1));
    for (size_t k = 0; k < rv->nfns && k < 12 && busy > 0 && rv->fns[k].self > 0; k++) {
        fprintf(out, "<tr><td class=\"num\">%s%%</td><td class=\"num\">%s%%</td><td>",
                n(100.0 * rv->fns[k].self / busy, x[0], 1),
                n(100.0 * rv->fns[k].total / busy, x[1], 1));
        gw_html_escape(out, rv->fns[k].name);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    flame_graph(out, &ia->in->stacks[role], label);
}

void gw_report_inproc_html(FILE *out, const gw_analysis *a)
{
    const gw_inproc_analysis *ia = a->inproc;
    if (!ia || (!ia->in && !gw_report_inproc_expected(a)))
        return;
    fputs("<h2 id=\"inproc\">Inside the job</h2>\n", out);
    if (!ia->in) {
        fputs("<p>No in-job data: ", out);
        gw_html_escape(out, ia->why_none);
        fputs(".</p>\n", out);
        return;
    }
    if (!ia->has_steps) {
        fputs("<p>No step timing: ", out);
        gw_html_escape(out, ia->why_none);
        fputs(".</p>\n", out);
    }
    gw_buf notes = {0};
    gw_report_inproc_notes(&notes, ia);
    for (char *line = notes.data, *nl; line && *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = '\0';
        fputs("<p class=\"meta\">", out);
        gw_html_escape(out, line + strspn(line, " "));
        fputs("</p>\n", out);
    }
    gw_buf_free(&notes);
    if (ia->train_loader >= 0)
        loaders_table(out, ia);
    gw_buf set = {0};
    if (gw_report_inproc_settings(&set, ia)) {
        fputs("<p>Settings of the training process: ", out);
        gw_html_escape(out, set.data);
        fputs(".</p>\n", out);
    }
    gw_buf_free(&set);
    if (ia->has_steps) {
        epochs_table(out, ia);
        timeline_svg(out, ia);
    }
    if (ia->nmemory) {
        gw_buf mem = {0};
        gw_report_inproc_memory(&mem, ia);
        fputs("<p>GPU memory (torch allocator, training process): ", out);
        gw_html_escape(out, mem.data);
        fputs(ia->leak ? "; <strong>allocated grew at every epoch end: a leak</strong></p>\n"
                       : "</p>\n",
              out);
        gw_buf_free(&mem);
    }
    role_section(out, ia, GW_INPROC_MAIN);
    role_section(out, ia, GW_INPROC_WORKER);
}
