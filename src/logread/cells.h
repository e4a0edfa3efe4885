/*
 * cells: the cell-level grammar of nvidia-smi style CSV (", " between cells, units either in the
 * header "memory.used [MiB]" or in each value "575 MiB", bracketed or dashed markers for absent
 * values), shared by every CSV reader in logread/.
 *
 * Must not: allocate, keep state, or know which column means what (nvsmi.c and rundir.c do).
 */
#ifndef GW_CELLS_H
#define GW_CELLS_H

#include <stdbool.h>
#include <stddef.h>

/* Splits line in place at ',' into cells trimmed of spaces, tabs, CR and LF; stores at most max
 * pointers and returns the number of cells found (which may exceed max). An empty line has one
 * empty cell. A cell that starts with '"' is quoted as RFC 4180 writes it: its commas are text,
 * "" is '"', a line break in it becomes a space. */
size_t gw_cells_split(char *line, char **cells, size_t max);

/* True for cells that mean "no value": "", "-", "N/A", "n/a", "nan", "inf", "-inf", "infinity"
 * (any case), and anything in brackets such as "[N/A]", "[Not Supported]", "[Unknown Error]",
 * "[GPU is lost]". */
bool gw_cells_absent(const char *cell);

/* Parses a decimal number with an optional unit after it ("12.5", "-3", "1e3", "575 MiB",
 * "78.50 W", "38 %"), a hex mask "0x0000000000000001", or a performance state "P0".."P15".
 * On success stores the value and a pointer to the unit inside cell ("" when none) and returns
 * true; returns false for anything else (text, "12abc"). A number too large for a double
 * ("1e999") is stored as +-inf: callers drop it as absurd (gw_fmt_sane). */
bool gw_cells_number(const char *cell, double *value, const char **unit);

/* Splits a header cell "memory.used [MiB]" (or a spreadsheet's "Memory Used (MiB)") in place
 * into key "memory.used" and unit "MiB" (unit "" when there are no brackets). */
void gw_cells_header(char *cell, const char **key, const char **unit);

/* Factor that converts a value in unit `from` into unit `to` (MiB/GiB/KiB/B, W/mW/kW,
 * MHz/GHz/kHz, mJ/J/kJ, s/ms, %). Returns 1 when either unit is empty or unknown, or when they
 * measure different things: the value is then kept as written. */
double gw_cells_unit_factor(const char *from, const char *to);

/* True when the header line's cells look like a header: every cell is a name that starts with a
 * letter and holds letters, digits, '.', '_' and single inner spaces ("utilization.gpu",
 * "encoder.stats.sessionCount", "GPU ID"), with an optional " [unit]" or " (unit)". */
bool gw_cells_is_header(char **cells, size_t n);

#endif
