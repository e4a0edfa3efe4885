/*
 * query: `gpuwatch query`, nvidia-smi's --query-gpu mode with nvidia-smi's output.
 *
 * Owns: the table of query fields (canonical names, aliases, header units, descriptions, how each
 * value is read and printed), the cell formatting (byte for byte what nvidia-smi 580 prints for
 * the same value: "98 %", "20000 MiB" rounded up, "650.00 W", "P0", "0x0000000000000001",
 * "Active" / "Not Active", "[N/A]"), GPU selection by index, UUID or PCI bus id (-i), and the run
 * of a query: once, or every -l / -lms on the sampler's tick thread with static values cached.
 *
 * Must not: read device values from NVML itself (they come from the sampler's gw_sample and
 * gw_device_info; only loading NVML and the driver version are done here) or parse the command
 * line (src/cli/cmd_query.c does).
 */
#ifndef GW_QUERY_H
#define GW_QUERY_H

#include "sampler/sample.h"
#include "util/gw_buf.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where a field's value comes from. */
typedef enum gw_qsource {
    GW_QS_TIMESTAMP,  /* the sample's wall clock, local time */
    GW_QS_DRIVER,     /* nvmlSystemGetDriverVersion, read once */
    GW_QS_COUNT,      /* number of GPUs NVML reports */
    GW_QS_NAME,       /* gw_device_info.name (GetName, read once) */
    GW_QS_UUID,       /* gw_device_info.uuid */
    GW_QS_PCI_BUS_ID, /* gw_device_info.pci_bus_id */
    GW_QS_INDEX,      /* gw_device_info.index */
    GW_QS_FIELD,      /* a sampled gw_gpu_field */
    GW_QS_REASON_BIT, /* one bit of GW_F_CLOCKS_EVENT_REASONS: "Active" / "Not Active" */
} gw_qsource;

/* How a value prints; the suffix is left out with nounits. */
typedef enum gw_qformat {
    GW_QF_TEXT,   /* as is */
    GW_QF_INT,    /* "37" */
    GW_QF_PCT,    /* "98 %" */
    GW_QF_PCT2,   /* "92.31 %" (gpuwatch's GPM fields) */
    GW_QF_MIB,    /* MiB rounded up: "20000 MiB" */
    GW_QF_WATTS,  /* W with two decimals: "650.00 W" */
    GW_QF_MHZ,    /* "1980 MHz" */
    GW_QF_HEX64,  /* "0x00000000000000C0" */
    GW_QF_PSTATE, /* "P0" */
} gw_qformat;

typedef struct gw_qfield {
    const char *name;  /* canonical name; the header shows it even when asked by alias */
    const char *alias; /* another accepted name (nvidia-smi's), or NULL */
    const char *unit;  /* header unit: "memory.used [MiB]"; NULL = none */
    gw_qsource source;
    gw_gpu_field field; /* GW_QS_FIELD, GW_QS_REASON_BIT */
    gw_qformat format;
    uint64_t bit;     /* GW_QS_REASON_BIT: the GW_REASON_* bit (sampler/clock_reasons.h) */
    bool bare_na;     /* an absent value prints "N/A" without brackets (temperature.memory) */
    const char *help; /* one paragraph for --help-query-gpu */
} gw_qfield;

/* The table, in --help-query-gpu order (static storage, built once), and its length in *count:
 * the identity fields, then every GPU field of the field table that has a `help` paragraph
 * (sampler/sample.h gw_field_info), named by its CSV header key, with the clock event reason bits
 * after clocks_event_reasons.active. */
const gw_qfield *gw_qfields(size_t *count);

/* The field named `name` (canonical or alias, exact), or NULL. */
const gw_qfield *gw_qfield_find(const char *name);

/* Parses "a,b,c" into *out (an array of count entries the caller frees). An unknown name gives
 * GW_E_USAGE with nvidia-smi's sentence, `Field "x" is not a valid field to query.`, followed by
 * the closest valid name when one is near. Empty names (",," or a trailing comma) are errors. */
GW_MUST_USE gw_rc gw_qfields_parse(const char *list, const gw_qfield ***out, size_t *count,
                                   gw_error *err);

/* The sample fields (GW_FIELD_BIT mask) that the fields need read. */
uint64_t gw_qfields_sample_bits(const gw_qfield *const *fields, size_t count);

/* Appends the --help-query-gpu text. */
void gw_qfields_help(gw_buf *out);

/* What one cell needs besides the field. */
typedef struct gw_qrow_ctx {
    int64_t wall_ms;    /* the sample's time */
    int utc_offset_s;   /* local time = UTC + this */
    const char *driver; /* "" when unknown */
    unsigned gpu_count;
    const gw_device_info *dev;
    const gw_gpu_sample *gpu;
    bool nounits;
} gw_qrow_ctx;

/* Appends one cell. Absent values print "[N/A]" (or "N/A" for bare_na fields), a lost GPU's
 * sampled values "[GPU is lost]". */
void gw_qcell(const gw_qfield *f, const gw_qrow_ctx *ctx, gw_buf *out);

/* Appends the header line: names with " [unit]" when the field has one, ", " between, "\n". */
void gw_qheader(const gw_qfield *const *fields, size_t count, gw_buf *out);

/* Appends one row (cells, ", " between, "\n"). */
void gw_qrow(const gw_qfield *const *fields, size_t count, const gw_qrow_ctx *ctx, gw_buf *out);

/* Resolves -i "0,GPU-...,00000000:07:00.0" against the devices: *out receives positions into
 * devs (at most count, in the order given, duplicates dropped). A token that matches no GPU is a
 * GW_E_USAGE error naming it. Indexes are decimal; UUIDs compare without case; PCI bus ids are
 * "[domain:]bus:device[.function]" in hex, compared as numbers (so "7:00.0" finds
 * "00000000:07:00.0"). */
GW_MUST_USE gw_rc gw_qids_select(const char *ids, const gw_device_info *devs, unsigned count,
                                 unsigned *out, unsigned *nout, gw_error *err);

/* One `gpuwatch query` run. */
typedef struct gw_query_config {
    const gw_qfield **fields;
    size_t field_count;
    bool noheader, nounits;
    int64_t interval_ms;  /* 0: once */
    const char *ids;      /* -i, NULL = every GPU */
    const char *out_path; /* -f, NULL = stdout */
} gw_query_config;

/* Runs the query until done (once) or a signal (SIGINT, SIGTERM, SIGHUP) or a write error.
 * Returns the exit status: 0, 1 runtime error (NVML, no GPU, output), 2 usage error (-i). */
int gw_query_main(const gw_query_config *cfg);

#endif
