/* Run directory reader: meta.json, gpu.csv, host.csv, processes.csv, events.jsonl (logread.h). */
#include "logread/cells.h"
#include "logread/event_members.h"
#include "logread/inproc.h"
#include "logread/job_meta.h"
#include "logread/logread.h"
#include "logread/timeparse.h"

#include "util/gw_file.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { META_MAX_BYTES = 4 << 20, PROC_CELLS = 16 };

static char *slurp(const char *path, size_t limit)
{
    FILE *f = gw_file_open_regular(path, "r");
    return f ? gw_file_read_all(f, limit) : NULL;
}

static double json_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && gw_fmt_sane(v->valuedouble) ? v->valuedouble
                                                            : NAN; /* absurd: absent */
}

static const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void set_str(char **dst, const char *src)
{
    if (src && *src) {
        free(*dst);
        *dst = gw_series_text(src, false);
    }
}

/* A JSON or CSV number as an integer id (index, pid, epoch), or fallback when it is absent or no
 * id could be that large: casting an out-of-range double is undefined behaviour. */
static long as_id(double v, long fallback)
{
    return v >= -1e9 && v <= 1e9 ? (long)v : fallback;
}

/* Applies meta.json's devices[] to the GPUs read from gpu.csv. */
static void apply_meta_devices(gw_series *s, size_t input, const cJSON *meta)
{
    const cJSON *dev;
    cJSON_ArrayForEach(dev, cJSON_GetObjectItemCaseSensitive(meta, "devices"))
    {
        double index = json_num(dev, "index");
        gw_series_gpu *g = as_id(index, -1) < 0 ? NULL : gw_series_find_gpu(s, input, (int)index);
        if (!g)
            continue;
        set_str(&g->name, json_str(dev, "name"));
        set_str(&g->uuid, json_str(dev, "uuid"));
        set_str(&g->pci_bus_id, json_str(dev, "pci_bus_id"));
        /* 0 is no capacity (it divides into inf); 2^30 MiB (an older run's container NVML) is
         * above the field's bound: both absent */
        if (gw_field_plausible(GW_F_MEM_TOTAL_MIB, json_num(dev, "memory_total_mib")))
            g->memory_total_mib = json_num(dev, "memory_total_mib");
        if (json_num(dev, "power_limit_w") >= 1)
            g->power_limit_w = json_num(dev, "power_limit_w");
        if (!isnan(json_num(dev, "slowdown_temp_c")))
            g->slowdown_temp_c = json_num(dev, "slowdown_temp_c");
    }
}

/* meta.json's "job" (record/job.h) for the run's GPUs; its text made safe to print. */
static void apply_meta_job(gw_series_input *in, const cJSON *meta)
{
    gw_job *j = xmalloc(sizeof *j);
    if (!gw_logread_job_of_meta(j, meta)) {
        free(j);
        return;
    }
    in->job = j;
}

/* Whether meta.json says the recording is complete: its "complete" member, or for files written
 * before it existed, whether it has an end_time. A killed recorder never finalised meta.json. */
static void apply_meta_complete(gw_series_input *in, const cJSON *meta)
{
    const cJSON *complete = cJSON_GetObjectItemCaseSensitive(meta, "complete");
    const cJSON *inc = cJSON_GetObjectItemCaseSensitive(meta, "incomplete");
    const char *reason = json_str(inc, "reason"), *detail = json_str(inc, "detail");
    bool ended = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(meta, "end_time"));
    in->complete = cJSON_IsBool(complete) ? cJSON_IsTrue(complete) : ended;
    if (in->complete)
        return;
    free(in->incomplete);
    if (!ended || !reason || strcmp(reason, "recording") == 0 || !detail || !*detail) {
        in->incomplete =
            xstrdup("gpuwatch was killed or is still recording (meta.json has no end)");
        return;
    }
    /* One short line from the file: control characters dropped, at most 160 bytes. */
    char line[161];
    size_t n = 0;
    for (const char *c = detail; *c && n < sizeof line - 1; c++)
        line[n++] = (unsigned char)*c < 0x20 || *c == 0x7f ? ' ' : *c;
    line[n] = '\0';
    in->incomplete = xstrdup(line);
}

static void count_line(gw_series_input *in, bool ok, long line_no)
{
    if (ok)
        in->rows++;
    else if (in->rows_skipped++ == 0)
        in->first_bad_line = line_no;
}

static void read_events(gw_series *s, size_t input, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    long line_no = 0;
    while (getline(&line, &cap, f) >= 0) {
        line_no++;
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        count_line(&s->inputs[input], gw_logread_event_line(s, input, line), line_no);
    }
    free(line);
}

/* processes.csv: timestamp, index, then the process fields (GW_FG_PROC), in any order. */
static void read_procs(gw_series *s, size_t input, FILE *f)
{
    enum { P_TIME, P_INDEX, P_PID, P_NAME, P_USED, P_INJOB, P_COUNT };
    static const int fields[P_COUNT] = {
        -1, -1, GW_F_PROC_PID, GW_F_PROC_NAME, GW_F_PROC_USED_MIB, GW_F_PROC_IN_JOB};
    int at[P_COUNT] = {-1, -1, -1, -1, -1, -1};
    double used_factor = 1.0; /* the header's memory unit -> MiB */
    char *line = NULL, *cells[PROC_CELLS];
    size_t cap = 0, ncols = 0;
    long line_no = 0;
    while (getline(&line, &cap, f) >= 0) {
        line_no++;
        size_t n = gw_cells_split(line, cells, PROC_CELLS);
        if (n == 1 && !*cells[0])
            continue;
        if (n <= PROC_CELLS && gw_cells_is_header(cells, n)) {
            for (size_t i = 0; i < n; i++) {
                const char *key, *unit;
                gw_cells_header(cells[i], &key, &unit);
                int field = gw_field_by_key(GW_FG_PROC, key);
                for (int k = 0; k < P_COUNT; k++)
                    if (fields[k] >= 0 ? field == fields[k]
                                       : strcmp(key, k == P_TIME ? "timestamp" : "index") == 0)
                        at[k] = (int)i;
                if (field == GW_F_PROC_USED_MIB)
                    used_factor = gw_cells_unit_factor(unit, gw_fields[field].unit);
            }
            ncols = n;
            continue;
        }
        int64_t t_ms;
        double v[P_COUNT] = {NAN, NAN, NAN, NAN, NAN, NAN};
        const char *unit;
        bool ok = n == ncols && at[P_TIME] >= 0 && at[P_INDEX] >= 0 &&
                  gw_timeparse(cells[at[P_TIME]], &t_ms) == strlen(cells[at[P_TIME]]);
        for (int k = P_INDEX; ok && k < P_COUNT; k++)
            if (k != P_NAME && at[k] >= 0 && !gw_cells_absent(cells[at[k]]))
                ok = gw_cells_number(cells[at[k]], &v[k], &unit);
        ok = ok && as_id(v[P_INDEX], -1) >= 0;
        if (!gw_fmt_sane(v[P_USED]))
            v[P_USED] = NAN; /* absurd (docs/report.md): dropped */
        if (ok)
            gw_series_add_proc(s, input, t_ms, (int)v[P_INDEX], as_id(v[P_PID], -1),
                               at[P_NAME] >= 0 ? cells[at[P_NAME]] : "", v[P_USED] * used_factor,
                               (int)as_id(v[P_INJOB], -1));
        count_line(&s->inputs[input], ok, line_no);
    }
    free(line);
}

/* A file of the run directory that is a FIFO, a device or a directory: reading it would block
 * forever or never end (another user may have planted it). */
static gw_rc not_regular(gw_error *err, const char *dir, const char *name)
{
    return gw_error_set(err, GW_E_IO,
                        "%s/%s is not a regular file (a FIFO, device or directory): remove it "
                        "(gpuwatch writes only regular files in a run directory)",
                        dir, name);
}

/* Opens DIR/NAME and registers it as an input; NULL (and no input) when it does not exist, or is
 * not a regular file (errno GW_FILE_NOT_REGULAR). */
static FILE *open_part(gw_series *s, const char *dir, const char *name, const char *source,
                       size_t *input)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = gw_file_open_regular(path, "r");
    if (f)
        *input = gw_series_add_input(s, path, source, GW_INPUT_RUN_DIR);
    free(path);
    return f;
}

/* The job's output with the times its lines arrived (output.idx): its epochs, steps and
 * validation, read again now (with the report's --epoch-regex when one is given). */
static void read_output(gw_series *s, const char *dir, size_t gpu_input, const char *source)
{
    char *log = xasprintf("%s/output.log", dir);
    char *idx = gw_logread_index_path(log);
    if (access(idx, R_OK) == 0) {
        size_t input = gw_series_add_input(s, log, source, GW_INPUT_RUN_DIR);
        gw_error err;
        if (gw_logread_output(s, input, log, idx, s->epoch_matcher, NULL, &err))
            set_str(&s->inputs[input].note, err.msg);
    } else if (s->epoch_matcher && access(log, R_OK) == 0) {
        set_str(&s->inputs[gpu_input].note,
                "--epoch-regex cannot re-read this run: it has no output.idx (recorded before "
                "gpuwatch kept output times); give a log whose lines start with a time with --log");
    }
    free(idx);
    free(log);
}

gw_rc gw_logread_run_dir(gw_series *s, const char *dir, gw_error *err)
{
    char *meta_path = xasprintf("%s/meta.json", dir);
    char *meta_text = slurp(meta_path, META_MAX_BYTES);
    free(meta_path);
    if (!meta_text && errno == GW_FILE_NOT_REGULAR)
        return not_regular(err, dir, "meta.json");
    cJSON *meta = meta_text ? cJSON_Parse(meta_text) : NULL;
    free(meta_text);
    char *source = xstrdup(json_str(meta, "host") ? json_str(meta, "host") : dir);
    size_t len = strlen(source);
    while (len > 1 && source[len - 1] == '/')
        source[--len] = '\0';
    gw_rc rc = GW_OK;
    size_t input;
    FILE *f = open_part(s, dir, "gpu.csv", source, &input);
    if (!f && errno == GW_FILE_NOT_REGULAR) {
        rc = not_regular(err, dir, "gpu.csv");
        goto out;
    }
    if (!f) {
        rc = gw_error_set(err, GW_E_IO, "%s/gpu.csv: %s (is %s a gpuwatch run directory?)", dir,
                          strerror(errno), dir);
        goto out;
    }
    size_t gpu_input = input;
    rc = gw_logread_gpu_csv(s, f, input, source, NULL, err);
    fclose(f);
    if (rc)
        goto out;
    if (meta) {
        apply_meta_devices(s, input, meta);
        apply_meta_complete(&s->inputs[input], meta);
        apply_meta_job(&s->inputs[input], meta);
    }
    static const char *const parts[] = {"host.csv", "processes.csv", "events.jsonl", "output.log",
                                        "output.idx"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *path = xasprintf("%s/%s", dir, parts[i]);
        FILE *p = gw_file_open_regular(path, "r");
        bool bad = !p && errno == GW_FILE_NOT_REGULAR;
        free(path);
        if (p)
            fclose(p);
        if (bad) {
            rc = not_regular(err, dir, parts[i]);
            goto out;
        }
    }
    if ((f = open_part(s, dir, "host.csv", source, &input))) {
        gw_series_host *h = gw_series_add_host(s, input, source);
        gw_error ignored;
        if (gw_logread_table_csv(s, f, input, &h->tab, gw_logread_host_field, &ignored) != GW_OK) {
            /* a host.csv without rows only means no CPU-side evidence */
        }
        fclose(f);
    }
    if ((f = open_part(s, dir, "processes.csv", source, &input))) {
        read_procs(s, input, f);
        fclose(f);
    }
    if ((f = open_part(s, dir, "events.jsonl", source, &input))) {
        read_events(s, input, f);
        fclose(f);
    }
    gw_logread_output_tail(s, dir, gpu_input, source);
    read_output(s, dir, gpu_input, source);
    s->inputs[gpu_input].inproc = gw_inproc_read(dir, json_str(meta, "python_instrumentation"));
out:
    cJSON_Delete(meta);
    free(source);
    return rc;
}
