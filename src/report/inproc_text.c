/* The text report's "Inside the job" section: the in-job data (analysis/inproc.h), 80 columns. */
#include "report/inproc.h"

#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/gw_wrap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The widest function name in a table row: longer names keep their end ("...s.py:fn"). */
enum { FN_WIDTH = 58, TOP_FUNCTIONS = 8 };

static const char *n(double x, char *buf, int dec)
{
    return gw_fmt_fixed(buf, GW_FMT_SIZE, x, dec, GW_FMT_TRIM, "-");
}

/* A table cell: x with exactly `dec` decimals, so that a column reads alike ("2.70 / 1.00",
 * never "2.7 / 1"); "-" when absent. */
static const char *cell(double x, char *buf, int dec)
{
    return gw_fmt_fixed(buf, GW_FMT_SIZE, x, dec, 0, "-");
}

static const char *yes_no(int b)
{
    return b < 0 ? "unknown" : b ? "yes" : "no";
}

const char *gw_report_inproc_fn_cut(const char *name, char *buf, size_t size)
{
    size_t len = strlen(name), width = size - 1 < FN_WIDTH ? size - 1 : FN_WIDTH;
    if (len <= width)
        return name;
    snprintf(buf, size, "...%s", name + len - (width - 3));
    return buf;
}

static void processes_line(gw_buf *b, const gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    size_t count[GW_INPROC_ROLES] = {0};
    for (size_t i = 0; i < in->nprocs; i++)
        count[gw_inproc_role_of(in, &in->procs[i])]++;
    const gw_inproc_proc *m = ia->main;
    gw_buf_printf(b, "  processes: %zu %s, %zu DataLoader worker%s", count[GW_INPROC_MAIN],
                  ia->train_loader >= 0 ? "training" : "main", count[GW_INPROC_WORKER],
                  count[GW_INPROC_WORKER] == 1 ? "" : "s");
    if (ia->worker && *ia->worker->start_method)
        gw_buf_printf(b, " (%s)", ia->worker->start_method);
    if (count[GW_INPROC_OTHER])
        gw_buf_printf(b, ", %zu other", count[GW_INPROC_OTHER]);
    if (m && *m->python)
        gw_buf_printf(b, "; Python %s", m->python);
    if (m && *m->torch)
        gw_buf_printf(b, ", torch %s", m->torch);
    if (m && m->world_size > 1)
        gw_buf_printf(b, "; rank %ld of %ld", m->rank, m->world_size);
    gw_buf_puts(b, "\n");
}

/* A job that iterated no DataLoader has a main process, not a training one (processes_line). */
static const char *main_name(const gw_inproc_analysis *ia)
{
    return ia->train_loader >= 0 ? "training process" : "main process";
}

/* "where: training process 34% in loss.py:f, 25% in ...; workers 48% in ..." (self shares of
 * the busy samples, at least 5%). */
static void where_line(gw_buf *b, const gw_inproc_analysis *ia)
{
    size_t before = b->len;
    for (int r = 0; r < 2; r++) {
        const gw_inproc_role_view *rv = &ia->roles[r];
        for (size_t k = 0; k < 3 && k < rv->nfns && rv->busy > 0; k++) {
            double pct = 100.0 * rv->fns[k].self / rv->busy;
            if (pct < 5)
                break;
            char x[GW_FMT_SIZE];
            if (k == 0)
                gw_buf_printf(b, "%s%s", b->len == before ? "  where: " : "; ",
                              r == GW_INPROC_MAIN ? main_name(ia) : "workers");
            gw_buf_printf(b, "%s %s%% in %s", k ? "," : "", n(pct, x, 0),
                          gw_inproc_fn_short(rv->fns[k].name));
        }
    }
    if (b->len > before)
        gw_buf_puts(b, "\n");
}

static void loader_line(gw_buf *b, const gw_inproc_analysis *ia, long l, const char *what)
{
    if (l < 0)
        return;
    const gw_inproc_loader *ld = &ia->in->loaders[l];
    gw_buf_printf(b, "  %s: loader %ld", what, ld->id);
    if (*ld->dataset)
        gw_buf_printf(b, " (%s", ld->dataset);
    if (*ld->created_at)
        gw_buf_printf(b, "%s%s", *ld->dataset ? ", " : " (", ld->created_at);
    gw_buf_puts(b, *ld->dataset || *ld->created_at ? "): " : ": ");
    size_t before = b->len;
    gw_inproc_loader_settings(ld, b);
    if (b->len == before)
        gw_buf_puts(b, "settings unknown");
    gw_buf_puts(b, "\n");
}

bool gw_report_inproc_settings(gw_buf *b, const gw_inproc_analysis *ia)
{
    const gw_inproc_settings *s = ia->main ? &ia->main->settings : NULL;
    if (!s || !s->present)
        return false;
    const gw_inproc_settings *w = ia->worker ? &ia->worker->settings : NULL;
    char x[4][GW_FMT_SIZE];
    gw_buf_printf(b, "torch threads %s (interop %s", n(s->torch_num_threads, x[0], 0),
                  n(s->torch_num_interop_threads, x[1], 0));
    if (w && !isnan(w->torch_num_threads))
        gw_buf_printf(b, "; in a worker %s", n(w->torch_num_threads, x[2], 0));
    gw_buf_printf(b, "), cv2 threads %s",
                  isnan(s->cv2_num_threads) ? "(no cv2)" : n(s->cv2_num_threads, x[2], 0));
    if (w && !isnan(w->cv2_num_threads))
        gw_buf_printf(b, " (in a worker %s)", n(w->cv2_num_threads, x[3], 0));
    gw_buf_printf(b, ", autocast %s, torch.compile %s, cudnn.benchmark %s",
                  yes_no(s->autocast_used), yes_no(s->torch_compile_used),
                  yes_no(s->cudnn_benchmark));
    gw_buf_printf(b, ", cores %s (affinity %s, cgroup %s, host %s)",
                  n(gw_inproc_cores(ia), x[0], 1), n(s->affinity_cores, x[1], 0),
                  isnan(s->cgroup_cpu_limit_cores) ? "no limit"
                                                   : n(s->cgroup_cpu_limit_cores, x[2], 1),
                  n(s->os_cpu_count, x[3], 0));
    return true;
}

static void settings_line(gw_buf *b, const gw_inproc_analysis *ia)
{
    size_t at = b->len;
    gw_buf_puts(b, "  settings: ");
    if (gw_report_inproc_settings(b, ia)) {
        gw_buf_puts(b, "\n");
    } else { /* nothing known: no line */
        b->len = at;
        b->data[at] = '\0';
    }
}

/* "data wait per rank: rank 0 60.1%, rank 1 58.3% (steps 76, 76)" for jobs of several ranks. */
static void ranks_line(gw_buf *b, const gw_inproc_analysis *ia)
{
    gw_inproc_rank *r;
    size_t nr = gw_inproc_ranks(ia, &r);
    if (nr == 0)
        return;
    gw_buf_puts(b, "  data wait per training process:");
    for (size_t i = 0; i < nr; i++) {
        char x[2][GW_FMT_SIZE];
        if (r[i].proc->rank >= 0)
            gw_buf_printf(b, "%s rank %ld", i ? "," : "", r[i].proc->rank);
        else
            gw_buf_printf(b, "%s pid %ld", i ? "," : "", r[i].proc->pid);
        gw_buf_printf(b, " %s%% (%s steps)", n(r[i].wait_share_pct, x[0], 1),
                      n(r[i].steps, x[1], 0));
    }
    gw_buf_puts(b, "\n");
    free(r);
}

/* The validation loader's data wait, per epoch: "validation: data wait 60% (62, 58, 60)". */
static void val_line(gw_buf *b, const gw_inproc_analysis *ia)
{
    double w = 0, all = 0;
    for (size_t k = 0; k < ia->nepochs; k++) {
        w += ia->epochs[k].val_wait_s;
        all += ia->epochs[k].val_wait_s + ia->epochs[k].val_between_s;
    }
    if (ia->val_loader < 0 || !(all > 0))
        return;
    char x[GW_FMT_SIZE];
    gw_buf_printf(b, "  validation loader: data wait %s%% of its step time (per epoch:",
                  n(100.0 * w / all, x, 1));
    for (size_t k = 0; k < ia->nepochs; k++) {
        double e = ia->epochs[k].val_wait_s + ia->epochs[k].val_between_s;
        gw_buf_printf(b, "%s %s", k ? "," : "",
                      e > 0 ? n(100.0 * ia->epochs[k].val_wait_s / e, x, 0) : "-");
    }
    gw_buf_puts(b, ")\n");
}

static void epochs_table(gw_buf *b, const gw_inproc_analysis *ia)
{
    gw_buf_puts(b, "  data wait of the training loop, per epoch (training loader's passes):\n");
    gw_buf_printf(b, "    %-5s %6s %7s %8s %8s %6s %7s %-6s %6s\n", "epoch", "steps", "steps/s",
                  "wait s", "other s", "wait%", "first s", "bound", "val s");
    for (size_t k = 0; k < ia->nepochs; k++) {
        const gw_inproc_epoch *e = &ia->epochs[k];
        char x[7][GW_FMT_SIZE];
        gw_buf_printf(b, "    %-5ld %6s %7s %8s %8s %6s %7s %-6s %6s%s\n", e->train->pass + 1,
                      cell(e->train->steps, x[0], 0), cell(e->steps_per_s, x[1], 2),
                      cell(e->train->wait_s, x[2], 1), cell(e->train->between_s, x[3], 1),
                      cell(e->wait_share_pct, x[4], 1), cell(e->train->first_wait_s, x[5], 1),
                      gw_inproc_bound_name(e->bound),
                      e->val_steps > 0 ? cell(e->val_s, x[6], 1) : "-",
                      e->train->complete ? "" : " (cut)");
    }
    val_line(b, ia);
    ranks_line(b, ia);
    char x[3][GW_FMT_SIZE];
    gw_buf_printf(b,
                  "  whole run: %s steps, waiting for data %s%% of the step time: a faster "
                  "input pipeline can make training at most %sx faster\n",
                  n(ia->steps, x[0], 0), n(ia->wait_share_pct, x[1], 1),
                  n(ia->speedup_input_max, x[2], 2));
}

static void role_table(gw_buf *b, const gw_inproc_analysis *ia, int role)
{
    const gw_inproc_role_view *rv = &ia->roles[role];
    if (!(rv->samples > 0))
        return;
    char x[4][GW_FMT_SIZE], cut[FN_WIDTH + 1];
    double busy = rv->busy;
    gw_buf_printf(b, "  %s (%zu process%s, %s samples: %s%% idle in a wait",
                  role == GW_INPROC_MAIN ? main_name(ia) : "DataLoader workers", rv->processes,
                  rv->processes == 1 ? "" : "es", n(rv->samples, x[0], 0),
                  n(100.0 * rv->idle / rv->samples, x[1], 1));
    if (rv->importing > 0)
        gw_buf_printf(b, ", %s%% importing modules",
                      n(100.0 * rv->importing / rv->samples, x[2], 1));
    if (role == GW_INPROC_MAIN && rv->in_next > 0) {
        char y[GW_FMT_SIZE];
        gw_buf_printf(b, "; %s%% inside DataLoader __next__, %s%% of that idle",
                      n(100.0 * rv->in_next / rv->samples, x[3], 1),
                      n(100.0 * rv->in_next_idle / rv->in_next, y, 0));
    }
    gw_buf_puts(b, "):\n");
    gw_buf_printf(b, "    %6s %6s  %s\n", "self%", "incl%", "function (share of the busy samples)");
    size_t listed = 0;
    for (size_t k = 0; k < rv->nfns && k < TOP_FUNCTIONS && busy > 0 && rv->fns[k].self > 0;
         k++, listed++) {
        const gw_inproc_fn *f = &rv->fns[k];
        gw_buf_printf(b, "    %6s %6s  %s\n", cell(100.0 * f->self / busy, x[0], 1),
                      cell(100.0 * f->total / busy, x[1], 1),
                      gw_report_inproc_fn_cut(f->name, cut, sizeof cut));
    }
    /* the inclusive view names what the self view hides: the callers that hold the time */
    for (size_t k = 0, shown = 0; k < rv->nfns && shown < 3 && busy > 0; k++) {
        const gw_inproc_fn *f = &rv->fns[rv->by_total[k]];
        if (f->total >= busy * 0.999 || rv->by_total[k] < listed)
            continue; /* the root frames, and those listed */
        shown++;
        gw_buf_printf(b, "    %6s %6s  %s\n", cell(100.0 * f->self / busy, x[0], 1),
                      cell(100.0 * f->total / busy, x[1], 1),
                      gw_report_inproc_fn_cut(f->name, cut, sizeof cut));
    }
}

void gw_report_inproc_memory(gw_buf *b, const gw_inproc_analysis *ia)
{
    const double gib = 1024.0 * 1024 * 1024;
    char x[GW_FMT_SIZE];
    if (ia->leak_epochs) { /* at the epochs' ends: the first and last records are start and exit */
        gw_buf_puts(b, "allocated at epoch ends");
        const char *sep = " ";
        for (size_t k = 0; k < ia->nepochs; k++)
            if (!isnan(ia->epochs[k].alloc_end_bytes)) {
                gw_buf_printf(b, "%s%s", sep, n(ia->epochs[k].alloc_end_bytes / gib, x, 2));
                sep = ", ";
            }
        gw_buf_puts(b, " GiB");
    } else {
        gw_buf_printf(b, "allocated %s", n(ia->alloc_first / gib, x, 2));
        gw_buf_printf(b, " -> %s GiB", n(ia->alloc_last / gib, x, 2));
    }
    gw_buf_printf(b, " (peak %s)", n(ia->alloc_peak / gib, x, 2));
    gw_buf_printf(b, ", reserved up to %s GiB", n(ia->reserved_peak / gib, x, 2));
    gw_buf_printf(b, ", max_allocated %s GiB", n(ia->max_allocated / gib, x, 2));
}

static void memory_lines(gw_buf *b, const gw_inproc_analysis *ia)
{
    if (ia->nmemory == 0) {
        gw_buf_puts(b, "  GPU memory (torch allocator): not recorded (torch.cuda not used)\n");
        return;
    }
    const double gib = 1024.0 * 1024 * 1024;
    char x[6][GW_FMT_SIZE];
    gw_buf_puts(b, "  GPU memory (torch allocator, training process): ");
    gw_report_inproc_memory(b, ia);
    gw_buf_puts(b, "\n");
    if (ia->reserved_peak > 0 && ia->max_allocated > 0)
        gw_buf_printf(b,
                      "    reserved - max_allocated = %s GiB held by the caching allocator, "
                      "not by tensors\n",
                      n((ia->reserved_peak - ia->max_allocated) / gib, x[0], 2));
    if (ia->leak)
        gw_buf_printf(b,
                      "    leak: allocated grew at each of %zu epoch ends, by %s GiB in all: "
                      "tensors kept alive across steps (a loss summed without .item(), a "
                      "list of outputs)\n",
                      ia->leak_epochs, n(ia->leak_bytes / gib, x[0], 2));
}

static void input_line(gw_buf *b, const gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    gw_buf_printf(b, "  read: %zu files, %zu lines", in->files, in->lines);
    if (in->torn_lines)
        gw_buf_printf(b, ", %zu torn last line%s", in->torn_lines, in->torn_lines == 1 ? "" : "s");
    if (in->bad_lines || in->bad_stack_lines)
        gw_buf_printf(b, ", %zu unreadable", in->bad_lines + in->bad_stack_lines);
    if (in->absurd_records)
        gw_buf_printf(b, ", %zu records with absurd values skipped", in->absurd_records);
    if (in->unreadable_files)
        gw_buf_printf(b, ", %zu files could not be opened", in->unreadable_files);
    if (ia->sampled_s > 0) {
        char x[3][GW_FMT_SIZE];
        gw_buf_printf(b, "; sampler %s s CPU over %s s of processes (%s%% of a core)",
                      n(ia->sampler_cpu_s, x[0], 2), n(ia->sampled_s, x[1], 0),
                      n(ia->sampler_overhead_pct, x[2], 2));
    }
    gw_buf_puts(b, "\n");
    if (in->warnings)
        gw_buf_printf(b, "  warnings from the instrumentation: %zu, first: %s\n", in->warnings,
                      in->first_warning);
}

void gw_report_inproc_notes(gw_buf *b, const gw_inproc_analysis *ia)
{
    where_line(b, ia);
    if (ia->has_steps) {
        val_line(b, ia);
        ranks_line(b, ia);
    }
}

bool gw_report_inproc_expected(const gw_analysis *a)
{
    for (size_t i = 0; i < a->series->ninputs; i++)
        if (a->series->inputs[i].kind == GW_INPUT_RUN_DIR)
            return true;
    return false;
}

void gw_report_inproc_text(FILE *out, const gw_analysis *a, int width)
{
    const gw_inproc_analysis *ia = a->inproc;
    if (!ia)
        return;
    gw_buf b = {0};
    if (!ia->in) {
        if (gw_report_inproc_expected(a))
            gw_buf_printf(&b, "\nInside the job: no in-job data (%s)\n", ia->why_none);
    } else {
        gw_buf_puts(&b, "\nInside the job (in-job data from the job's Python processes)\n");
        size_t runs = 0;
        for (size_t i = 0; i < a->series->ninputs; i++)
            runs += a->series->inputs[i].inproc != NULL; /* one per run directory */
        if (runs > 1) /* several run directories: say whose (the others' GPUs are not judged
                         by it) */
            gw_buf_printf(&b, "  of %s only\n", a->series->inputs[ia->input].path);
        processes_line(&b, ia);
        if (!ia->has_steps)
            gw_buf_printf(&b, "  no step timing: %s\n", ia->why_none);
        where_line(&b, ia);
        loader_line(&b, ia, ia->train_loader, "training");
        loader_line(&b, ia, ia->val_loader, "validation");
        if (*ia->how)
            gw_buf_printf(&b, "  told apart by: %s\n", ia->how);
        settings_line(&b, ia);
        if (ia->has_steps)
            epochs_table(&b, ia);
        role_table(&b, ia, GW_INPROC_MAIN);
        role_table(&b, ia, GW_INPROC_WORKER);
        memory_lines(&b, ia);
        input_line(&b, ia);
    }
    if (b.len)
        gw_wrap_write(out, b.data, b.len, width);
    gw_buf_free(&b);
}
