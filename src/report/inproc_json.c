/* summary.json's "inproc" block: the in-job data (report/inproc.h, docs/report.md). */
#include "report/inproc.h"

#include "util/gw_json.h"

#include <math.h>
#include <stdlib.h>

enum { TOP_JSON = 15, TIMELINE_MAX = 500 };

static void add_bool(cJSON *o, const char *key, int b)
{
    if (b < 0)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddBoolToObject(o, key, b);
}

/* Unix seconds as RFC 3339 (null when absent). */
static void add_t(cJSON *o, const char *key, double t)
{
    gw_json_add_time(o, key, isnan(t) ? 0 : (int64_t)llround(t * 1000.0));
}

static cJSON *loader_json(const gw_inproc_analysis *ia, long l)
{
    if (l < 0)
        return cJSON_CreateNull();
    const gw_inproc_loader *ld = &ia->in->loaders[l];
    cJSON *o = cJSON_CreateObject();
    gw_json_add_num(o, "loader", (double)ld->id, 0);
    gw_json_add_num(o, "pid", (double)ld->pid, 0);
    gw_json_add_str(o, "dataset", ld->dataset);
    gw_json_add_str(o, "sampler", ld->sampler);
    gw_json_add_str(o, "created_at", ld->created_at);
    gw_json_add_num(o, "num_workers", ld->num_workers, 0);
    gw_json_add_num(o, "batch_size", ld->batch_size, 0);
    add_bool(o, "pin_memory", ld->pin_memory);
    add_bool(o, "persistent_workers", ld->persistent_workers);
    gw_json_add_num(o, "prefetch_factor", ld->prefetch_factor, 0);
    add_bool(o, "drop_last", ld->drop_last);
    gw_json_add_num(o, "batches", ld->batches, 0);
    return o;
}

static cJSON *settings_json(const gw_inproc_proc *p)
{
    if (!p || !p->settings.present)
        return cJSON_CreateNull();
    const gw_inproc_settings *s = &p->settings;
    cJSON *o = cJSON_CreateObject();
    gw_json_add_num(o, "pid", (double)p->pid, 0);
    gw_json_add_num(o, "torch_num_threads", s->torch_num_threads, 0);
    gw_json_add_num(o, "torch_num_interop_threads", s->torch_num_interop_threads, 0);
    gw_json_add_num(o, "cv2_num_threads", s->cv2_num_threads, 0);
    add_bool(o, "cudnn_benchmark", s->cudnn_benchmark);
    add_bool(o, "autocast_used", s->autocast_used);
    add_bool(o, "torch_compile_used", s->torch_compile_used);
    gw_json_add_num(o, "affinity_cores", s->affinity_cores, 0);
    gw_json_add_num(o, "cgroup_cpu_limit_cores", s->cgroup_cpu_limit_cores, 2);
    gw_json_add_num(o, "os_cpu_count", s->os_cpu_count, 0);
    return o;
}

static cJSON *epochs_json(const gw_inproc_analysis *ia)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < ia->nepochs; k++) {
        const gw_inproc_epoch *e = &ia->epochs[k];
        cJSON *o = cJSON_CreateObject();
        gw_json_add_num(o, "epoch", (double)e->train->pass + 1, 0);
        add_t(o, "start", e->train->t_start);
        add_t(o, "end", e->train->t_end);
        gw_json_add_num(o, "steps", e->train->steps, 0);
        gw_json_add_num(o, "steps_per_s", e->steps_per_s, 3);
        gw_json_add_num(o, "wait_s", e->train->wait_s, 3);
        gw_json_add_num(o, "between_s", e->train->between_s, 3);
        gw_json_add_num(o, "first_wait_s", e->train->first_wait_s, 3);
        gw_json_add_num(o, "data_wait_share_pct", e->wait_share_pct, 2);
        gw_json_add_str(o, "bound", gw_inproc_bound_name(e->bound));
        gw_json_add_num(o, "allocated_bytes_at_end", e->alloc_end_bytes, 0);
        gw_json_add_num(o, "reserved_bytes_at_end", e->reserved_end_bytes, 0);
        cJSON_AddBoolToObject(o, "complete", e->train->complete);
        gw_json_add_num(o, "validation_steps", e->val_steps, 0);
        gw_json_add_num(o, "validation_s", e->val_steps > 0 ? e->val_s : NAN, 3);
        double vw = e->val_wait_s + e->val_between_s;
        gw_json_add_num(o, "validation_data_wait_share_pct",
                        e->val_steps > 0 && vw > 0 ? 100.0 * e->val_wait_s / vw : NAN, 2);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* The training loop's data wait over time, from the "steps" records (at most TIMELINE_MAX). */
static cJSON *timeline_json(const gw_inproc_analysis *ia)
{
    cJSON *arr = cJSON_CreateArray();
    gw_inproc_steps *v;
    size_t n = gw_inproc_timeline(ia, TIMELINE_MAX, &v);
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        double all = v[i].wait_s + v[i].between_s;
        gw_json_add_num(o, "epoch", (double)v[i].pass + 1, 0);
        add_t(o, "start", v[i].t0);
        add_t(o, "end", v[i].t1);
        gw_json_add_num(o, "steps", v[i].steps, 0);
        gw_json_add_num(o, "data_wait_share_pct", all > 0 ? 100.0 * v[i].wait_s / all : NAN, 2);
        cJSON_AddItemToArray(arr, o);
    }
    free(v);
    return arr;
}

static cJSON *ranks_json(const gw_inproc_analysis *ia)
{
    cJSON *arr = cJSON_CreateArray();
    gw_inproc_rank *r;
    size_t nr = gw_inproc_ranks(ia, &r);
    for (size_t i = 0; i < nr; i++) {
        cJSON *o = cJSON_CreateObject();
        gw_json_add_num(o, "pid", (double)r[i].proc->pid, 0);
        gw_json_add_num(o, "rank", r[i].proc->rank >= 0 ? (double)r[i].proc->rank : NAN, 0);
        gw_json_add_num(o, "local_rank",
                        r[i].proc->local_rank >= 0 ? (double)r[i].proc->local_rank : NAN, 0);
        gw_json_add_num(o, "steps", r[i].steps, 0);
        gw_json_add_num(o, "data_wait_share_pct", r[i].wait_share_pct, 2);
        cJSON_AddItemToArray(arr, o);
    }
    free(r);
    return arr;
}

static cJSON *fn_json(const gw_inproc_fn *f, double busy)
{
    cJSON *o = cJSON_CreateObject();
    gw_json_add_str(o, "function", f->name);
    gw_json_add_num(o, "self_pct", 100.0 * f->self / busy, 2);
    gw_json_add_num(o, "inclusive_pct", 100.0 * f->total / busy, 2);
    return o;
}

static cJSON *role_json(const gw_inproc_role_view *rv)
{
    cJSON *o = cJSON_CreateObject();
    double busy = rv->busy;
    gw_json_add_num(o, "processes", (double)rv->processes, 0);
    gw_json_add_num(o, "samples", rv->samples, 0);
    gw_json_add_num(o, "idle_samples", rv->idle, 0);
    gw_json_add_num(o, "in_dataloader_next_samples", rv->in_next, 0);
    gw_json_add_num(o, "in_dataloader_next_idle_samples", rv->in_next_idle, 0);
    cJSON *self = cJSON_AddArrayToObject(o, "top_self");
    cJSON *incl = cJSON_AddArrayToObject(o, "top_inclusive");
    for (size_t k = 0; busy > 0 && k < rv->nfns && k < TOP_JSON; k++) {
        cJSON_AddItemToArray(self, fn_json(&rv->fns[k], busy));
        cJSON_AddItemToArray(incl, fn_json(&rv->fns[rv->by_total[k]], busy));
    }
    return o;
}

static cJSON *memory_json(const gw_inproc_analysis *ia)
{
    cJSON *o = cJSON_CreateObject();
    gw_json_add_num(o, "records", (double)ia->nmemory, 0);
    gw_json_add_num(o, "allocated_first_bytes", ia->alloc_first, 0);
    gw_json_add_num(o, "allocated_last_bytes", ia->alloc_last, 0);
    gw_json_add_num(o, "allocated_peak_bytes", ia->alloc_peak, 0);
    gw_json_add_num(o, "reserved_last_bytes", ia->reserved_last, 0);
    gw_json_add_num(o, "reserved_peak_bytes", ia->reserved_peak, 0);
    gw_json_add_num(o, "max_allocated_bytes", ia->max_allocated, 0);
    cJSON_AddBoolToObject(o, "leak", ia->leak);
    gw_json_add_num(o, "leak_bytes", ia->leak_bytes, 0);
    gw_json_add_num(o, "leak_epochs", (double)ia->leak_epochs, 0);
    return o;
}

static cJSON *read_json(const gw_inproc_analysis *ia)
{
    const gw_inproc *in = ia->in;
    cJSON *o = cJSON_CreateObject();
    gw_json_add_num(o, "files", (double)in->files, 0);
    gw_json_add_num(o, "unreadable_files", (double)in->unreadable_files, 0);
    gw_json_add_num(o, "lines", (double)in->lines, 0);
    gw_json_add_num(o, "torn_lines", (double)in->torn_lines, 0);
    gw_json_add_num(o, "bad_lines", (double)in->bad_lines, 0);
    gw_json_add_num(o, "bad_stack_lines", (double)in->bad_stack_lines, 0);
    gw_json_add_num(o, "absurd_records", (double)in->absurd_records, 0);
    gw_json_add_num(o, "warnings", (double)in->warnings, 0);
    gw_json_add_str(o, "first_warning", in->first_warning);
    gw_json_add_num(o, "sampler_cpu_s", ia->sampler_cpu_s, 3);
    gw_json_add_num(o, "sampled_s", ia->sampled_s, 3);
    gw_json_add_num(o, "sampler_overhead_pct", ia->sampler_overhead_pct, 3);
    return o;
}

void gw_report_inproc_json(cJSON *root, const gw_analysis *a)
{
    const gw_inproc_analysis *ia = a->inproc;
    cJSON *o = cJSON_AddObjectToObject(root, "inproc");
    cJSON_AddBoolToObject(o, "present", ia && ia->in);
    if (!ia || !ia->in) {
        gw_json_add_str(o, "why", ia ? ia->why_none : NULL);
        return;
    }
    gw_json_add_str(o, "why", ia->has_steps ? NULL : ia->why_none);
    gw_json_add_str(o, "instrumentation", ia->in->instrumentation);
    gw_json_add_str(o, "input", a->series->inputs[ia->input].path);
    size_t count[GW_INPROC_ROLES] = {0};
    for (size_t i = 0; i < ia->in->nprocs; i++)
        count[gw_inproc_role_of(ia->in, &ia->in->procs[i])]++;
    cJSON *p = cJSON_AddObjectToObject(o, "processes");
    for (int r = 0; r < GW_INPROC_ROLES; r++)
        gw_json_add_num(p, gw_inproc_role_name((gw_inproc_role)r), (double)count[r], 0);
    gw_json_add_num(o, "training_pid", ia->main ? (double)ia->main->pid : NAN, 0);
    gw_json_add_str(o, "python", ia->main ? ia->main->python : NULL);
    gw_json_add_str(o, "torch", ia->main ? ia->main->torch : NULL);
    gw_json_add_str(o, "worker_start_method", ia->worker ? ia->worker->start_method : NULL);
    cJSON_AddItemToObject(o, "training_loader", loader_json(ia, ia->train_loader));
    cJSON_AddItemToObject(o, "validation_loader", loader_json(ia, ia->val_loader));
    gw_json_add_str(o, "loaders_told_apart_by", ia->how);
    cJSON *s = cJSON_AddObjectToObject(o, "settings");
    cJSON_AddItemToObject(s, "training", settings_json(ia->main));
    cJSON_AddItemToObject(s, "worker", settings_json(ia->worker));
    gw_json_add_num(s, "cores", gw_inproc_cores(ia), 2);
    gw_json_add_num(o, "steps", ia->steps, 0);
    gw_json_add_num(o, "wait_s", ia->wait_s, 3);
    gw_json_add_num(o, "between_s", ia->between_s, 3);
    gw_json_add_num(o, "data_wait_share_pct", ia->wait_share_pct, 2);
    gw_json_add_num(o, "input_speedup_max", ia->speedup_input_max, 3);
    gw_json_add_str(o, "bound", gw_inproc_bound_name(ia->bound));
    cJSON_AddBoolToObject(o, "bound_changes", ia->bound_changes);
    cJSON_AddItemToObject(o, "epochs", epochs_json(ia));
    cJSON_AddItemToObject(o, "timeline", timeline_json(ia));
    cJSON_AddItemToObject(o, "ranks", ranks_json(ia));
    cJSON *roles = cJSON_AddObjectToObject(o, "roles");
    cJSON_AddItemToObject(roles, "main", role_json(&ia->roles[GW_INPROC_MAIN]));
    cJSON_AddItemToObject(roles, "worker", role_json(&ia->roles[GW_INPROC_WORKER]));
    cJSON_AddItemToObject(o, "memory", memory_json(ia));
    cJSON_AddItemToObject(o, "read", read_json(ia));
}
