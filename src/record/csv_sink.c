#include "record/csv_sink.h"

#include "record/csv_file.h"
#include "util/gw_buf.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns of the three files after timestamp (and index), from the field table: gpu.csv's
 * by gw_fields[].csv_pos (the spec's order, then gpuwatch's extras), host.csv's and
 * processes.csv's in table order. Filled once, with the headers (build_headers). */
static gw_field gpu_columns[GW_F_COUNT], host_columns[GW_F_TABLE_COUNT],
    proc_columns[GW_F_TABLE_COUNT];
static size_t n_gpu_columns, n_host_columns, n_proc_columns;

static void collect_columns(void)
{
    for (int pos = 1; pos <= GW_F_COUNT; pos++)
        for (int f = 0; f < GW_F_COUNT; f++)
            if (gw_fields[f].csv_pos == pos)
                gpu_columns[n_gpu_columns++] = (gw_field)f;
    for (int f = GW_F_COUNT; f < GW_F_TABLE_COUNT; f++) {
        if (!gw_fields[f].csv_header)
            continue;
        if (gw_fields[f].group == GW_FG_PROC)
            proc_columns[n_proc_columns++] = (gw_field)f;
        else
            host_columns[n_host_columns++] = (gw_field)f;
    }
}

struct gw_csv_sink {
    gw_csv_file gpu, host, procs;
    int64_t interval_ns;
    gw_buf row;
    atomic_bool reported;
    atomic_int failed_errno;
    char failed_path[512];
};

static char gpu_header[2048], host_header[2048],
    procs_header[512]; /* test_field_table checks the whole header */

/* "timestamp[, index], <csv_header of each column>\n" into buf. */
static void build_header(char *buf, size_t size, bool index, const gw_field *cols, size_t n)
{
    size_t len = (size_t)snprintf(buf, size, "%s", index ? "timestamp, index" : "timestamp");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, size - len, ", %s", gw_fields[cols[i]].csv_header);
    snprintf(buf + len, size - len, "\n");
}

static void build_headers(void)
{
    collect_columns();
    build_header(gpu_header, sizeof gpu_header, true, gpu_columns, n_gpu_columns);
    build_header(host_header, sizeof host_header, false, host_columns, n_host_columns);
    build_header(procs_header, sizeof procs_header, true, proc_columns, n_proc_columns);
}

const char *gw_csv_gpu_header(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_headers);
    return gpu_header;
}

gw_rc gw_csv_sink_open(int dirfd, const char *dir, int64_t interval_ms, gw_csv_sink **out,
                       gw_error *err)
{
    *out = NULL;
    gw_csv_sink *cs = xcalloc(1, sizeof *cs);
    cs->gpu.fd = cs->host.fd = cs->procs.fd = -1;
    cs->interval_ns = interval_ms * INT64_C(1000000);
    char *p = xasprintf("%s/gpu.csv", dir);
    /* gw_csv_gpu_header() builds all three headers */
    gw_rc rc = gw_csv_file_open_at(&cs->gpu, dirfd, "gpu.csv", p, gw_csv_gpu_header(), err);
    free(p);
    if (!rc) {
        p = xasprintf("%s/host.csv", dir);
        rc = gw_csv_file_open_at(&cs->host, dirfd, "host.csv", p, host_header, err);
        free(p);
    }
    if (!rc) {
        p = xasprintf("%s/processes.csv", dir);
        rc = gw_csv_file_open_at(&cs->procs, dirfd, "processes.csv", p, procs_header, err);
        free(p);
    }
    if (rc) {
        gw_csv_sink_close(cs);
        return rc;
    }
    /* Flush policy: every tick's rows are written at that tick (one write per file), so a
     * recorder killed with SIGKILL loses only the tick in progress. Batching rows until the
     * oldest would wait a second lost more than a second: the row that triggers the flush is
     * only appended after its tick's reads and any lateness of the tick (1.21 s measured on a
     * loaded machine at the default 0.5 s interval); two or three writes a tick cost microseconds.
     */
    cs->gpu.max_delay_ns = cs->host.max_delay_ns = cs->procs.max_delay_ns = 0;
    *out = cs;
    return GW_OK;
}

/* ", " and value v of field f as the table says, or nothing when it is absent. */
static void cell(gw_buf *b, gw_field f, bool valid, double v)
{
    gw_buf_puts(b, ", ");
    if (valid && !isnan(v)) {
        char text[64];
        gw_field_format_csv(f, v, text, sizeof text);
        gw_buf_puts(b, text);
    }
}

/* Keeps names to one CSV cell: no separators, quotes or control characters. */
static void safe_name(gw_buf *b, const char *name)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        gw_buf_append(b, (*c == ',' || *c == '"' || *c < 0x20 || *c == 0x7f) ? "_" : (char *)c, 1);
}

static void note_failure(gw_csv_sink *cs, const gw_csv_file *f)
{
    if (f->err_no && atomic_load(&cs->failed_errno) == 0) {
        snprintf(cs->failed_path, sizeof cs->failed_path, "%s", f->path ? f->path : "?");
        atomic_store(&cs->failed_errno, f->err_no);
    }
}

static void on_sample(void *ctx, const gw_sample *s)
{
    gw_csv_sink *cs = ctx;
    /* One file could not be written: the others stop with it, so that the recording ends at
     * one time in every CSV file (a host.csv going on past gpu.csv's end would be judged
     * against GPU rows that are missing). */
    if (atomic_load(&cs->failed_errno))
        return;
    char ts[GW_RFC3339_LEN];
    gw_rfc3339_ms(s->wall_ms, ts);
    int64_t now = s->mono_ns, next = s->mono_ns + cs->interval_ns;
    gw_buf *b = &cs->row;
    gw_buf_reset(b);
    for (unsigned i = 0; i < s->gpu_count; i++) {
        const gw_gpu_sample *g = &s->gpus[i];
        gw_buf_printf(b, "%s, %u", ts, i);
        for (size_t c = 0; c < n_gpu_columns; c++)
            cell(b, gpu_columns[c], gw_has(g, gpu_columns[c]), g->v[gpu_columns[c]]);
        gw_buf_puts(b, "\n");
    }
    if (b->len)
        gw_csv_file_row(&cs->gpu, b->data, b->len, now, next);
    note_failure(cs, &cs->gpu);

    const gw_host_sample *h = &s->host;
    gw_buf_reset(b);
    gw_buf_puts(b, ts);
    for (size_t c = 0; c < n_host_columns; c++)
        cell(b, host_columns[c], true, gw_host_value(h, host_columns[c]));
    gw_buf_puts(b, "\n");
    gw_csv_file_row(&cs->host, b->data, b->len, now, next);
    note_failure(cs, &cs->host);

    if (s->procs_fresh && s->proc_count) {
        char pts[GW_RFC3339_LEN];
        gw_rfc3339_ms(s->procs_wall_ms, pts);
        gw_buf_reset(b);
        for (unsigned k = 0; k < s->proc_count; k++) {
            const gw_gpu_process *p = &s->procs[k];
            gw_buf_printf(b, "%s, %u", pts, p->gpu);
            for (size_t c = 0; c < n_proc_columns; c++) {
                if (gw_fields[proc_columns[c]].csv_style != GW_CSV_TEXT) {
                    cell(b, proc_columns[c], true, gw_proc_value(p, proc_columns[c]));
                    continue;
                }
                gw_buf_puts(b, ", ");
                safe_name(b, p->name);
            }
            gw_buf_puts(b, "\n");
        }
        gw_csv_file_row(&cs->procs, b->data, b->len, now, next);
        note_failure(cs, &cs->procs);
    }
}

static void on_stop(void *ctx)
{
    gw_csv_sink *cs = ctx;
    gw_csv_file_flush(&cs->gpu);
    gw_csv_file_flush(&cs->host);
    gw_csv_file_flush(&cs->procs);
    note_failure(cs, &cs->gpu);
    note_failure(cs, &cs->host);
    note_failure(cs, &cs->procs);
}

gw_sink gw_csv_sink_as_sink(gw_csv_sink *cs)
{
    return (gw_sink){.ctx = cs, .on_sample = on_sample, .on_stop = on_stop};
}

bool gw_csv_sink_take_error(gw_csv_sink *cs, gw_error *err)
{
    int e = atomic_load(&cs->failed_errno);
    if (!e || atomic_exchange(&cs->reported, true))
        return false;
    gw_error_set(err, GW_E_IO,
                 "cannot write %s: %s; recording stopped here (rows already written are kept) "
                 "while the job continues: free space or choose another -o",
                 cs->failed_path, strerror(e));
    return true;
}

int gw_csv_sink_failed(gw_csv_sink *cs, const char **path)
{
    int e = atomic_load(&cs->failed_errno);
    *path = e ? cs->failed_path : NULL;
    return e;
}

void gw_csv_sink_close(gw_csv_sink *cs)
{
    if (!cs)
        return;
    gw_csv_file_close(&cs->gpu);
    gw_csv_file_close(&cs->host);
    gw_csv_file_close(&cs->procs);
    gw_buf_free(&cs->row);
    free(cs);
}
