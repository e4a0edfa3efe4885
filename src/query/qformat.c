/* Cells, rows and headers of `gpuwatch query`, formatted as nvidia-smi prints them (query.h). */
#include "query/query.h"

#include "util/gw_fmt.h"

#include <math.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

/* "YYYY/MM/DD HH:MM:SS.mmm" in local time. */
static void timestamp(const gw_qrow_ctx *c, gw_buf *out)
{
    int64_t local_ms = c->wall_ms + (int64_t)c->utc_offset_s * 1000;
    time_t secs = (time_t)(local_ms / 1000);
    int ms = (int)(local_ms % 1000);
    if (ms < 0) {
        ms += 1000;
        secs--;
    }
    struct tm tm;
    char buf[40] = "";
    if (gmtime_r(&secs, &tm))
        strftime(buf, sizeof buf, "%Y/%m/%d %H:%M:%S", &tm);
    gw_buf_printf(out, "%s.%03d", buf, ms);
}

/* A number with its unit suffix (left out with nounits). */
static void number(const gw_qfield *f, double v, bool nounits, gw_buf *out)
{
    static const char *const suffix[] = {
        [GW_QF_PCT] = " %",   [GW_QF_PCT2] = " %",  [GW_QF_MIB] = " MiB",
        [GW_QF_WATTS] = " W", [GW_QF_MHZ] = " MHz",
    };
    switch (f->format) {
    case GW_QF_HEX64:
        gw_buf_printf(out, "0x%016llX", (unsigned long long)v);
        return;
    case GW_QF_PSTATE:
        gw_buf_printf(out, "P%d", (int)v);
        return;
    case GW_QF_PCT2:
        gw_fmt_buf_fixed(out, v, 2, 0, "[N/A]");
        break;
    case GW_QF_MIB:
        gw_fmt_buf_fixed(out, ceil(v), 0, 0, "[N/A]"); /* nvidia-smi rounds MiB up */
        break;
    case GW_QF_WATTS:
        gw_fmt_buf_fixed(out, v, 2, 0, "[N/A]");
        break;
    default:
        gw_fmt_buf_fixed(out, v, 0, 0, "[N/A]");
        break;
    }
    if (!nounits && f->format < (int)(sizeof suffix / sizeof suffix[0]) && suffix[f->format])
        gw_buf_puts(out, suffix[f->format]);
}

static void sampled(const gw_qfield *f, const gw_qrow_ctx *c, gw_buf *out)
{
    const gw_gpu_sample *g = c->gpu;
    if (g->lost) {
        gw_buf_puts(out, "[GPU is lost]");
        return;
    }
    if (!gw_has(g, f->field)) {
        gw_buf_puts(out, f->bare_na ? "N/A" : "[N/A]");
        return;
    }
    double v = g->v[f->field];
    if (f->source == GW_QS_REASON_BIT)
        gw_buf_puts(out, ((unsigned long long)v & f->bit) ? "Active" : "Not Active");
    else
        number(f, v, c->nounits, out);
}

/* A string from the device info; "[N/A]" when NVML did not give it. A name holding ',', '"' or
 * a line break is quoted as RFC 4180 writes it (nvidia-smi does not, and a reader then takes the
 * rest of the name for the next cells). */
static void text(const char *s, gw_buf *out)
{
    if (!s || !s[0]) {
        gw_buf_puts(out, "[N/A]");
        return;
    }
    if (!strpbrk(s, ",\"\r\n")) {
        gw_buf_puts(out, s);
        return;
    }
    gw_buf_puts(out, "\"");
    for (const char *c = s; *c; c++)
        gw_buf_puts(out, *c == '"' ? "\"\"" : (char[2]){*c, '\0'});
    gw_buf_puts(out, "\"");
}

void gw_qcell(const gw_qfield *f, const gw_qrow_ctx *c, gw_buf *out)
{
    switch (f->source) {
    case GW_QS_TIMESTAMP:
        timestamp(c, out);
        break;
    case GW_QS_DRIVER:
        text(c->driver, out);
        break;
    case GW_QS_COUNT:
        gw_buf_printf(out, "%u", c->gpu_count);
        break;
    case GW_QS_NAME:
        text(c->dev->name, out);
        break;
    case GW_QS_UUID:
        text(c->dev->uuid, out);
        break;
    case GW_QS_PCI_BUS_ID:
        text(c->dev->pci_bus_id, out);
        break;
    case GW_QS_INDEX:
        gw_buf_printf(out, "%u", c->dev->index);
        break;
    case GW_QS_FIELD:
    case GW_QS_REASON_BIT:
        sampled(f, c, out);
        break;
    }
}

void gw_qheader(const gw_qfield *const *fields, size_t count, gw_buf *out)
{
    for (size_t i = 0; i < count; i++) {
        if (i)
            gw_buf_puts(out, ", ");
        gw_buf_puts(out, fields[i]->name);
        if (fields[i]->unit)
            gw_buf_printf(out, " [%s]", fields[i]->unit);
    }
    gw_buf_puts(out, "\n");
}

void gw_qrow(const gw_qfield *const *fields, size_t count, const gw_qrow_ctx *ctx, gw_buf *out)
{
    for (size_t i = 0; i < count; i++) {
        if (i)
            gw_buf_puts(out, ", ");
        gw_qcell(fields[i], ctx, out);
    }
    gw_buf_puts(out, "\n");
}
