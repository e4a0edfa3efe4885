/*
 * inproc_cause: what the in-job data (analysis/inproc.h) adds to a gpu_starved verdict: where the
 * time goes (the data-wait share of the training loop, the hot functions per role), the cause
 * the data-wait share proves (it wins over the CPU-side guess of starved_cause.c), per epoch when
 * it changes between epochs, and a suggestion whose every step quotes the job's settings, asks
 * only for what is not already set and carries the bound computed from the data (docs/report.md,
 * "Inside the job").
 * Must not: print, or touch a verdict without in-job data (it then only notes why there is none).
 */
#ifndef GW_INPROC_CAUSE_H
#define GW_INPROC_CAUSE_H

#include "analysis/checks.h"

/* Adds the in-job evidence to v and may replace *cause, *suggestion (then pointing into
 * a->inproc, valid while a lives) and why (len bytes). */
void gw_inproc_cause(gw_analysis *a, const gw_gpu_analysis *g, gw_verdict *v, const char **cause,
                     const char **suggestion, char *why, size_t len);

/* Adds the torch allocator's view to a memory_leak verdict v: allocated grew (tensors leak:
 * the verdict's suggestion stands) or stayed flat while memory.used grew (the growth is the
 * caching allocator's reserve or memory outside torch: message and suggestion say so). */
void gw_inproc_leak(gw_analysis *a, gw_verdict *v);

#endif
