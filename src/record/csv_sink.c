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

/* gpu.csv columns after timestamp and index: the spec's order, then gpuwatch's extras. */
static const gw_gpu_field gpu_columns[] = {
    GW_F_UTIL_GPU_PCT,
    GW_F_UTIL_MEM_PCT,
    GW_F_MEM_USED_MIB,
    GW_F_MEM_TOTAL_MIB,
    GW_F_TEMP_GPU_C,
    GW_F_POWER_DRAW_W,
    GW_F_POWER_LIMIT_W,
    GW_F_CLOCK_SM_MHZ,
    GW_F_CLOCKS_EVENT_REASONS,
    GW_F_PSTATE,
    GW_F_GPM_SM_ACTIVE_PCT,
    GW_F_GPM_SM_OCCUPANCY_PCT,
    GW_F_GPM_TENSOR_ACTIVE_PCT,
    GW_F_GPM_DRAM_ACTIVE_PCT,
    GW_F_MEM_RESERVED_MIB,
    GW_F_CLOCK_MEM_MHZ,
    GW_F_ENERGY_MJ,
};
enum { N_GPU_COLUMNS = sizeof gpu_columns / sizeof gpu_columns[0] };

/* host.csv columns after timestamp. */
static const gw_field host_columns[] = {
    GW_F_HOST_CPU_UTIL_PCT, GW_F_HOST_MEM_USED_MIB, GW_F_JOB_CPU_PCT, GW_F_JOB_RSS_MIB,
    GW_F_JOB_PROCESSES,
    /* appended (issue 13): the CPU side of a waiting GPU */
    GW_F_HOST_IOWAIT_PCT, GW_F_HOST_STEAL_PCT, GW_F_HOST_OTHERS_PCT,
#define ROLE_COLUMNS(r)                                                                            \
    GW_F_ROLE(r, 0), GW_F_ROLE(r, 1), GW_F_ROLE(r, 2), GW_F_ROLE(r, 3), GW_F_ROLE(r, 4),           \
        GW_F_ROLE(r, 5), GW_F_ROLE(r, 6)
    ROLE_COLUMNS(GW_ROLE_TRAIN), ROLE_COLUMNS(GW_ROLE_WORKERS), ROLE_COLUMNS(GW_ROLE_REST)};
#undef ROLE_COLUMNS
enum { N_HOST_COLUMNS = sizeof host_columns / sizeof host_columns[0] };
/* processes.csv columns after timestamp and index. */
static const gw_field proc_columns[] = {GW_F_PROC_PID, GW_F_PROC_NAME, GW_F_PROC_USED_MIB,
                                        GW_F_PROC_IN_JOB};
enum { N_PROC_COLUMNS = sizeof proc_columns / sizeof proc_columns[0] };

struct gw_csv_sink {
    gw_csv_file gpu, host, procs;
    int64_t interval_ns;
    gw_buf row;
    atomic_bool reported;
    atomic_int failed_errno;
    char failed_path[512];
};

static char gpu_header[1024], host_header[1024], procs_header[256];

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
    build_header(gpu_header, sizeof gpu_header, true, gpu_columns, N_GPU_COLUMNS);
    build_header(host_header, sizeof host_header, false, host_columns, N_HOST_COLUMNS);
    build_header(procs_header, sizeof procs_header, true, proc_columns, N_PROC_COLUMNS);
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
        for (int c = 0; c < N_GPU_COLUMNS; c++)
            cell(b, gpu_columns[c], gw_has(g, gpu_columns[c]), g->v[gpu_columns[c]]);
        gw_buf_puts(b, "\n");
    }
    if (b->len)
        gw_csv_file_row(&cs->gpu, b->data, b->len, now, next);
    note_failure(cs, &cs->gpu);

    const gw_host_sample *h = &s->host;
    gw_buf_reset(b);
    gw_buf_puts(b, ts);
    for (int c = 0; c < N_HOST_COLUMNS; c++)
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
            cell(b, GW_F_PROC_PID, true, p->pid);
            gw_buf_puts(b, ", ");
            safe_name(b, p->name);
            cell(b, GW_F_PROC_USED_MIB, p->used_valid, p->used_mib);
            cell(b, GW_F_PROC_IN_JOB, true, p->in_job ? 1 : 0);
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
