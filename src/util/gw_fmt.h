/*
 * gw_fmt: the one number formatter of every output (report text, HTML, summary.json, charts,
 * plots, the live view, the exporter's hand-formatted values).
 *
 * Bounded: never writes past the buffer it is given, and never cuts a number (a number that does
 * not fit is written as the absent marker, or as "" when even that does not fit).
 * Absurd values are absent: NaN, +-Inf and anything whose magnitude exceeds GW_FMT_MAX_ABS are
 * written as the caller's absent marker ("" in CSV-like tables, "-" in summaries, "null" in
 * JSON), never as 0 and never as a 300-digit number. The log reader drops such values at read
 * (docs/report.md), so this is the last line of defence, not the first.
 */
#ifndef GW_FMT_H
#define GW_FMT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/gw_buf.h"

/* The largest magnitude any output shows: 1e15 MiB, W, MHz, %, mJ or s is no reading of a GPU. */
#define GW_FMT_MAX_ABS 1e15
/* A buffer of this size holds every number the formatter writes (sign, 16 digits, point, 9
 * decimals; or 17 significant digits with an exponent). */
#define GW_FMT_SIZE 40

enum {
    GW_FMT_TRIM =
        1, /* drop trailing zeros after the point, and the point itself ("2.50" -> "2.5") */
};

/* True for a value worth showing: finite and |x| <= GW_FMT_MAX_ABS. */
bool gw_fmt_sane(double x);

/* x with `decimals` digits after the point (clamped to 0..9), like "%.*f"; "-0" is written "0".
 * Writes `absent` (NULL = "") when x is not sane. buf must have size >= 1. Returns buf. */
const char *gw_fmt_fixed(char *buf, size_t size, double x, int decimals, unsigned flags,
                         const char *absent);

/* x with at most `sig` significant digits (clamped to 1..17), like "%.*g". Absent as above. */
const char *gw_fmt_sig(char *buf, size_t size, double x, int sig, const char *absent);

/* x with as many decimals as its size deserves, never an exponent: 0 when |x| >= 100 or x is an
 * integer, 1 from 10, 2 from 1, else 3 (27155 -> "27155", 12.34 -> "12.3", 0.1234 -> "0.123").
 * For numbers people read (report text, HTML evidence, chart labels). Absent as above. */
const char *gw_fmt_auto(char *buf, size_t size, double x, const char *absent);

/* The decimals one quantity's values print with, all of them alike (a table's column, a
 * comparison's row): gw_fmt_auto's for the largest magnitude among them, 0 when every sane value
 * is an integer or none is sane. 12.5, 0.798, 3 -> 1 ("12.5", "0.8", "3.0"). */
int gw_fmt_decimals(const double *v, size_t n);

/* x for machine readers (the Prometheus exposition): 15 significant digits ("%.15g"), and a
 * whole number exactly at any size ("%.17g" when 15 digits do not read back: a byte counter may
 * pass GW_FMT_MAX_ABS); a fraction keeps 15 digits, so arithmetic noise in the last bits
 * (0.1 + 0.2 = 0.30000000000000004) is not printed. "" when x is not finite (callers spell NaN
 * and Inf their format's way). Returns buf. */
const char *gw_fmt_exact(char *buf, size_t size, double x);

/* What prose (messages, verdicts, errors, log lines) prints for a number that is not sane: never
 * "nan", "inf" or a 300-digit number (docs/style.md, "Numbers"). */
#define GW_FMT_TEXT_ABSENT "?"

/* One number as a printf argument, through the formatter: printf("%s %%", GW_FIXED(x, 1)) prints
 * what "%.1f %%" prints for a sane x (but "0" for "-0"), GW_FMT_TEXT_ABSENT otherwise;
 * GW_SIG(x, 6) likewise for "%g". The buffer is a compound literal that lives until the end of
 * the enclosing block: pass the result to a call, never keep it past the block. */
#define GW_FIXED(x, decimals)                                                                      \
    gw_fmt_fixed((char[GW_FMT_SIZE]){0}, GW_FMT_SIZE, (x), (decimals), 0, GW_FMT_TEXT_ABSENT)
#define GW_SIG(x, sig)                                                                             \
    gw_fmt_sig((char[GW_FMT_SIZE]){0}, GW_FMT_SIZE, (x), (sig), GW_FMT_TEXT_ABSENT)

/* The same, appended to a growable buffer. */
void gw_fmt_buf_fixed(gw_buf *b, double x, int decimals, unsigned flags, const char *absent);
void gw_fmt_buf_sig(gw_buf *b, double x, int sig, const char *absent);

#endif
