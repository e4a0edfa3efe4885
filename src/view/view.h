/*
 * view: the live view of `gpuwatch` (no command) as text and as one JSON document.
 *
 * Owns: the layout of the compact, gpustat-style view — a header line, one line per GPU (index,
 * name, temperature, GPU-Util, SM activity where GPM exists, memory used / total, power draw /
 * limit), its MIG devices and its processes indented below — its colour thresholds, and the JSON
 * document with the same content (schema in docs/live-view.md).
 *
 * Everything is a pure function of a gw_view: a sample and the static facts the sampler read,
 * plus per-process details (user, command line) the caller looked up. Must not: call NVML, read
 * /proc, look at the terminal or the clock, or print; the caller (src/live) decides where the
 * text goes. Absent values show as "n/a" in text and null in JSON, never 0.
 */
#ifndef GW_VIEW_H
#define GW_VIEW_H

#include "sampler/sample.h"
#include "util/gw_buf.h"

#include <stdbool.h>
#include <stdint.h>

/* Display details of one GPU process, looked up by the caller (src/host/procinfo.h). */
typedef struct gw_view_proc {
    bool uid_valid;
    unsigned uid;
    char user[40]; /* login name, or the uid as a number when none resolves; "" when unknown */
    char *command; /* sanitised command line (valid UTF-8, no control characters; gw_utf8.h),
                    * owned by whoever filled it; NULL when the pid has no /proc entry */
} gw_view_proc;

/* One snapshot. Every pointer is borrowed. */
typedef struct gw_view {
    const char *hostname;          /* "" when unknown */
    const char *driver_version;    /* "" when unknown */
    const char *version;           /* gpuwatch's version, for the JSON document */
    int64_t wall_ms;               /* when the snapshot was read (unix ms) */
    int utc_offset_s;              /* local time = UTC + this, for the header line */
    const gw_device_info *devices; /* [device_count], the sampler's devices */
    unsigned device_count;
    const gw_sample *sample;   /* gpus[device_count], procs[proc_count], migs[mig_count] */
    const gw_view_proc *procs; /* [sample->proc_count] in the same order; NULL: no details */
} gw_view;

typedef struct gw_view_style {
    bool color;     /* ANSI colours */
    int width_cols; /* no line is wider (long commands are shortened first); 0 = unlimited */
    bool clear_eol; /* end every line with "clear to end of line" (redrawing in place) */
} gw_view_style;

/* Appends the text view of v to out. Returns the number of lines appended. */
int gw_view_text(const gw_view *v, const gw_view_style *style, gw_buf *out);

/* Appends the JSON document of v to out, on one line, without a trailing newline. */
void gw_view_json(const gw_view *v, gw_buf *out);

/* Colour thresholds, also used by the docs' table. Temperature: red within 5 °C of the GPU's
 * slowdown threshold (GetTemperatureThreshold(SLOWDOWN)), yellow within 15 °C, else green; no
 * colour when the threshold is unknown. Utilisation (GPU-Util and SM active): green from 80 %,
 * yellow from 30 %. Memory used: red from 95 %, yellow from 80 %. Power: yellow from 98 % of the
 * limit. */
enum {
    GW_VIEW_TEMP_RED_MARGIN_C = 5,
    GW_VIEW_TEMP_YELLOW_MARGIN_C = 15,
    GW_VIEW_UTIL_GREEN_PCT = 80,
    GW_VIEW_UTIL_YELLOW_PCT = 30,
    GW_VIEW_MEM_RED_PCT = 95,
    GW_VIEW_MEM_YELLOW_PCT = 80,
    GW_VIEW_POWER_YELLOW_PCT = 98,
};

#endif
