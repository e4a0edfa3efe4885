/*
 * marks (internal to analysis/): what the report takes from the markers a job wrote
 * (`gpuwatch mark`, python/gpuwatch.py; docs/markers.md).
 * Owns: naming rules — a mark whose text is "epoch" starts an epoch (its number from the field n,
 * epoch or number, else counted; its total from total, of or epochs), a mark whose text begins
 * with "validation" is a validation point — and marking the dips at validation points expected.
 * Must not: print or change anything but the dips it is given.
 */
#ifndef GW_MARKS_H
#define GW_MARKS_H

#include "analysis/analysis.h"

/* True when e is a mark whose text equals name, ignoring case. */
bool gw_mark_is(const gw_series_event *e, const char *name);

/* The epoch number and total of an epoch mark; *number = fallback when the mark has none, *total
 * = -1 when unknown. */
void gw_mark_epoch(const gw_series_event *e, long fallback, long *number, long *total);

/* Marks as expected the dips of GPU g that lie within dip_align_s of a validation mark of the
 * GPU's source. Returns how many dips it marked. */
size_t gw_dips_mark_validation(const gw_series *s, const gw_series_gpu *g, gw_dip *dips, size_t n);

#endif
