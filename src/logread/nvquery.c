/* `nvidia-smi -q` / `-q -l` report reader (see logread.h gw_logread_nvsmi_query). */
#include "logread/lines.h"
#include "logread/logread.h"
#include "logread/sniff.h"
#include "logread/timeparse.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* True when the '|'-separated list holds item. */
static bool list_has(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; (p = strstr(p, item)) != NULL; p += n)
        if ((p == list || p[-1] == '|') && (p[n] == '|' || p[n] == '\0'))
            return true;
    return false;
}

typedef struct qreader {
    gw_series *s;
    size_t input;
    const char *source;
    int64_t t_ms, prev_ms;
    bool any_time, skip;
    char section[64];
    gw_series_gpu *gpus[GW_LOGREAD_MAX_GPUS];
    size_t ngpus;
    gw_series_gpu *cur; /* the GPU block being read, NULL outside one */
    size_t row;
    bool too_many;
    long reports, same_second, blocks, values, procs;
    long pid;        /* the process being read (Processes section), 0 none */
    char pname[128]; /* its name */
} qreader;

/* "    Used                              : 20000 MiB" -> indent 4, key "Used", value "20000 MiB".
 */
static bool key_value(char *line, int *indent, char **key, char **value)
{
    *indent = (int)strspn(line, " ");
    char *colon = strstr(line, " : ");
    if (!colon)
        colon = strchr(line, ':');
    if (!colon)
        return false;
    char *k = line + *indent, *e = colon;
    while (e > k && e[-1] == ' ')
        e--;
    *e = '\0';
    char *v = colon + 1 + strspn(colon + 1, " :");
    size_t n = strcspn(v, "\r\n");
    while (n > 0 && v[n - 1] == ' ')
        n--;
    v[n] = '\0';
    *key = k;
    *value = v;
    return true;
}

static void end_process(qreader *r)
{
    if (r->pid > 0 && r->cur) {
        gw_series_add_proc(r->s, r->input, r->t_ms, r->cur->index, r->pid, r->pname, NAN, -1);
        r->procs++;
    }
    r->pid = 0;
    r->pname[0] = '\0';
}

static void begin_gpu(qreader *r, const char *bus)
{
    end_process(r);
    r->cur = NULL;
    if (r->skip)
        return;
    for (size_t i = 0; i < r->ngpus && !r->cur; i++)
        if (strcmp(r->gpus[i]->key, bus) == 0)
            r->cur = r->gpus[i];
    if (!r->cur && r->ngpus >= GW_LOGREAD_MAX_GPUS) {
        r->too_many = true;
        return;
    }
    if (!r->cur) { /* nvidia-smi lists GPUs in index order */
        r->cur = r->gpus[r->ngpus] = gw_series_add_gpu(r->s, r->input, r->source, bus);
        r->cur->index = (int)r->ngpus++;
        free(r->cur->pci_bus_id);
        r->cur->pci_bus_id = gw_series_text(bus, false);
    }
    r->row = gw_series_table_add_row(&r->cur->tab, r->t_ms);
    r->blocks++;
}

static void value(qreader *r, int indent, const char *key, const char *val)
{
    if (indent == 4 && strcmp(key, "Product Name") == 0 && !*r->cur->name) {
        free(r->cur->name);
        r->cur->name = gw_series_text(val, false);
    }
    if (indent == 4 && strcmp(key, "GPU UUID") == 0 && !*r->cur->uuid) {
        free(r->cur->uuid);
        r->cur->uuid = gw_series_text(val, false);
    }
    if (strcmp(r->section, "Processes") == 0) {
        if (strcmp(key, "Process ID") == 0) {
            end_process(r);
            r->pid = strtol(val, NULL, 10);
        } else if (strcmp(key, "Name") == 0 && r->pid > 0) {
            snprintf(r->pname, sizeof r->pname, "%s", val);
        } else if (strcmp(key, "Used GPU Memory") == 0 && r->pid > 0) {
            char *end = NULL;
            double mib = strtod(val, &end); /* "Not available in WDDM driver model": absent */
            gw_series_add_proc(r->s, r->input, r->t_ms, r->cur->index, r->pid, r->pname,
                               end != val && gw_fmt_sane(mib) ? mib : NAN, -1);
            r->procs++;
            r->pid = 0;
        }
        return;
    }
    /* the readings of a report: "Section/Key" (a key at indent 8 under the section at indent 4)
     * in the field table's nvsmi_q */
    char where[200];
    snprintf(where, sizeof where, "%s/%s", indent == 4 ? "" : r->section, key);
    for (int i = 0; i < GW_F_COUNT; i++) {
        if (!gw_fields[i].nvsmi_q || !list_has(gw_fields[i].nvsmi_q, where))
            continue;
        char *end = NULL;
        double v = strtod(val[0] == 'P' ? val + 1 : val, &end); /* "P0": a performance state */
        gw_gpu_field f = (gw_gpu_field)i;
        if (end != val && gw_fmt_sane(v) && gw_field_plausible(f, v)) {
            gw_series_gpu_set(r->cur, f, r->row, v);
            r->values++;
        }
    }
}

gw_rc gw_logread_nvsmi_query(gw_series *s, FILE *f, size_t input, const char *source,
                             const gw_logread_opts *o, gw_error *err)
{
    qreader r = {.s = s, .input = input, .source = source, .prev_ms = INT64_MIN};
    double interval_ms = (o && o->interval_s > 0 ? o->interval_s : 1.0) * 1000.0;
    gw_lines l = {.f = f};
    while (gw_lines_next(&l) >= 0 && !r.too_many) {
        char *line = l.line, *key, *val;
        int indent;
        if (strstr(line, "NVSMI LOG")) { /* a new report: its time follows, or the interval */
            end_process(&r);
            r.cur = NULL;
            r.t_ms = r.prev_ms == INT64_MIN ? 0 : r.prev_ms + (int64_t)interval_ms;
            r.prev_ms = r.any_time ? r.prev_ms : r.t_ms;
            r.reports++;
            r.skip = false;
            continue;
        }
        if (strncmp(line, "GPU ", 4) == 0 && !strstr(line, " : ")) { /* "GPU 00000000:07:00.0" */
            char bus[48];
            snprintf(bus, sizeof bus, "%.40s", line + 4);
            bus[strcspn(bus, " \r\n")] = '\0';
            begin_gpu(&r, bus);
            continue;
        }
        if (!key_value(line, &indent, &key, &val)) { /* "    Utilization": a section */
            size_t n = strcspn(line, "\r\n");
            while (n > 0 && line[n - 1] == ' ')
                n--;
            if (indent == 4 && (size_t)indent < n)
                snprintf(r.section, sizeof r.section, "%.*s", (int)(n - 4 > 60 ? 60 : n - 4),
                         line + 4);
            continue;
        }
        int64_t t;
        if (indent == 0 && strcmp(key, "Timestamp") == 0 && *val &&
            gw_timeparse(val, &t) == strlen(val)) {
            r.skip = r.any_time && t <= r.prev_ms;
            r.same_second += r.skip;
            if (!r.skip)
                r.t_ms = r.prev_ms = t;
            r.any_time = true;
            continue;
        }
        if (r.cur && indent >= 4)
            value(&r, indent, key, val);
    }
    end_process(&r);
    gw_lines_free(&l);
    gw_series_input *in = &s->inputs[input];
    if (r.too_many)
        return gw_error_set(err, GW_E_FORMAT, "%s: `nvidia-smi -q` reports of more than %d GPUs",
                            in->path, GW_LOGREAD_MAX_GPUS);
    if (r.values == 0)
        return gw_logread_refuse(err, in->path,
                                 "an `nvidia-smi -q` report without utilization, memory, power "
                                 "or temperature readings");
    in->rows = (size_t)r.blocks;
    in->untimed = in->dateless = !r.any_time;
    free(in->note);
    in->note = xasprintf("read as `nvidia-smi -q` reports (%ld, %ld GPU blocks, %ld processes)%s%s",
                         r.reports, r.blocks, r.procs,
                         r.any_time ? "" : "; no Timestamp lines: spaced by --interval",
                         r.same_second ? "; reports in a second already read skipped" : "");
    return GW_OK;
}
