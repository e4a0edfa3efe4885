/*
 * inproc (analysis): what the in-job data (logread/inproc.h) says about the job, computed once.
 *
 * Owns: the reference process (the training process: role main with the most DataLoader steps,
 * rank 0 first), which of its loaders trains and which validates, and how that was decided; per
 * training pass (one epoch) the data-wait share = wait_s / (wait_s + between_s) of the training
 * loop and whether the pass was input-bound (share >= GW_INPROC_INPUT_PCT), main-bound (share <=
 * GW_INPROC_MAIN_PCT) or mixed; the functions where each role's Python time goes (self and
 * inclusive samples, from the collapsed stacks; samples idle in a known wait are counted apart);
 * the allocator's memory and a leak seen by it; the sampler's own overhead; and, when the series
 * has no in-job data, why (one line).
 * Must not: read files or print. Keeps pointers into the gw_inproc, which must outlive it.
 */
#ifndef GW_ANALYSIS_INPROC_H
#define GW_ANALYSIS_INPROC_H

#include "analysis/epochs.h"
#include "analysis/thresholds.h"
#include "logread/inproc.h"
#include "logread/series.h"
#include "util/gw_buf.h"

#include <stdbool.h>
#include <stddef.h>

/* The data-wait shares that make a pass input-bound or main-bound, the fewest steps judged and
 * the allocator's leak rule are thresholds of the one table (analysis/thresholds.h:
 * python_input_bound_pct, python_main_bound_pct, python_min_steps, python_leak_min_mib,
 * python_leak_min_pct). */
#define GW_INPROC_INPUT_PCT GW_TH(GW_TH_PY_INPUT_BOUND_PCT)
#define GW_INPROC_MAIN_PCT  GW_TH(GW_TH_PY_MAIN_BOUND_PCT)
#define GW_INPROC_MIN_STEPS GW_TH(GW_TH_PY_MIN_STEPS)

typedef enum gw_inproc_bound {
    GW_INPROC_BOUND_UNKNOWN,
    GW_INPROC_BOUND_INPUT, /* the loop waits for its DataLoader */
    GW_INPROC_BOUND_MAIN,  /* the loop's own work: the training process */
    GW_INPROC_BOUND_MIXED,
} gw_inproc_bound;

/* "unknown", "input", "main", "mixed". */
const char *gw_inproc_bound_name(gw_inproc_bound b);

/* One function ("file:function", lines merged) of a role's stacks. */
typedef struct gw_inproc_fn {
    char *name;   /* "utils/loss_tal_dual.py:__call__" */
    double self;  /* samples where it was the leaf */
    double total; /* samples where it was on the stack (once per sample) */
} gw_inproc_fn;

typedef struct gw_inproc_role_view {
    double samples;      /* every sample of the role */
    double idle;         /* samples idle in a known wait (queue, select, lock) */
    double in_next;      /* main: samples inside a DataLoader's __next__ (waiting for data) */
    double in_next_idle; /* those idle in a wait (for a worker's batch); the rest is the
                            process's own work of receiving a batch (unpickling, rebuilding) */
    double importing;    /* samples importing modules (<frozen importlib...>: start-up) */
    double busy;         /* samples - idle - importing: what the function shares are of */
    size_t processes;    /* processes with a stacks file */
    size_t nfns;
    gw_inproc_fn *fns; /* busy samples only; sorted by self, descending */
    size_t *by_total;  /* [nfns] indices of fns sorted by total, descending */
} gw_inproc_role_view;

/* One epoch: a pass of the training loader and the validation passes before the next one. */
typedef struct gw_inproc_epoch {
    const gw_inproc_pass *train;
    double val_steps, val_s;          /* validation passes in it (0 when none) */
    double val_wait_s, val_between_s; /* their time waiting for data and between batches */
    double alloc_end_bytes, reserved_end_bytes; /* allocator at the training pass's end, NAN */
    double wait_share_pct;                      /* of the training pass */
    double steps_per_s;
    gw_inproc_bound bound;
} gw_inproc_epoch;

typedef struct gw_inproc_analysis {
    const gw_inproc *in;           /* NULL when no input has in-job data */
    size_t input;                  /* the series input (a run directory's gpu.csv) it is of */
    bool has_steps;                /* a training loader with at least GW_INPROC_MIN_STEPS steps */
    char why_none[320];            /* when !in or !has_steps: why, one line */
    const gw_inproc_proc *main;    /* the training process, NULL when none */
    const gw_inproc_proc *worker;  /* a DataLoader worker (its settings), NULL when none */
    long train_loader, val_loader; /* indices into in->loaders, -1 when none */
    char how[320];                 /* how they were told apart */
    size_t nepochs;
    gw_inproc_epoch *epochs;
    double steps, wait_s, between_s, first_wait_s; /* the training loader's passes, summed */
    double wait_share_pct;                         /* over all its passes */
    double speedup_input_max; /* 1 / (1 - wait share): the most a faster input can gain */
    gw_inproc_bound bound;    /* of the whole; MIXED also when epochs disagree */
    bool bound_changes;       /* epochs were input-bound and main-bound */
    /* Allocator of the training process (bytes; NAN unknown). */
    size_t nmemory;
    double alloc_first, alloc_last, alloc_peak, reserved_last, reserved_peak, max_allocated;
    double reserved_first;
    bool leak;                       /* allocated grew at every training pass end, by leak_bytes */
    double leak_bytes;               /* from the first to the last pass end */
    size_t leak_epochs;              /* pass ends compared */
    gw_inproc_role_view roles[2];    /* GW_INPROC_MAIN, GW_INPROC_WORKER */
    double sampler_cpu_s, sampled_s; /* our sampler's CPU time, and the processes' lifetimes */
    double sampler_overhead_pct;     /* sampler_cpu_s / sampled_s, % of one core */
    /* Filled by the gpu_starved cause (inproc_cause.c) for the verdict's suggestion. */
    char suggestion[1600];
} gw_inproc_analysis;

/* Analyses the first input of s that has in-job data. Never NULL; free with
 * gw_inproc_analysis_free. */
gw_inproc_analysis *gw_inproc_analyze(const gw_series *s);
void gw_inproc_analysis_free(gw_inproc_analysis *ia);

/* True when the in-job data is that GPU's own: the GPU comes from the same run directory (a
 * report over several run directories judges each GPU by its own job's data only). */
bool gw_inproc_covers(const gw_inproc_analysis *ia, const gw_series_gpu *gpu);

/* False when the training loader's passes cannot be epochs: a pass returned more than 1.5x the
 * loader's len() batches (an iterator that never ends, e.g. a repeating sampler consumed by hand).
 */
bool gw_inproc_passes_are_epochs(const gw_inproc_analysis *ia);

/* The epochs of the training loader's passes (none when they are no epochs: above) (start, end =
 * next training pass or the last validation's end, training end, validation span, steps, steps/s);
 * 0 when none. *out newly allocated. */
size_t gw_inproc_epochs(const gw_inproc_analysis *ia, gw_epoch **out);

/* A loader's settings as Python writes them, the known ones only, appended to b:
 * "num_workers=2, batch_size=64, pin_memory=False, persistent_workers=False, prefetch_factor=2". */
void gw_inproc_loader_settings(const gw_inproc_loader *l, gw_buf *b);

/* The cores the training process may use (its affinity, or the cgroup's CPU limit when lower);
 * NAN unknown. */
double gw_inproc_cores(const gw_inproc_analysis *ia);

/* "loss_tal_dual.py:__call__" for a function name (its file's basename). */
const char *gw_inproc_fn_short(const char *name);

/* True when the frame "function (file:LINE)" is a known wait (queue, select, lock): the thread
 * is idle there. */
bool gw_inproc_frame_idle(const char *frame, size_t len);

/* One process that iterated a DataLoader (a torchrun rank): its loader with the most steps. */
typedef struct gw_inproc_rank {
    const gw_inproc_proc *proc; /* rank, local_rank, pid */
    double steps;
    double wait_share_pct;
} gw_inproc_rank;

/* Every process that iterated a DataLoader, when there are at least two (ranks of one job, each
 * with its own data), in the order of the files; 0 otherwise. *out newly allocated. */
size_t gw_inproc_ranks(const gw_inproc_analysis *ia, gw_inproc_rank **out);

/* The training loader's "steps" records in time order, consecutive ones merged so that at most
 * max remain (a timeline of the data wait); *out newly allocated. Returns how many. */
size_t gw_inproc_timeline(const gw_inproc_analysis *ia, size_t max, gw_inproc_steps **out);

/* True when the frame is a DataLoader iterator's __next__ in torch's dataloader.py. */
bool gw_inproc_frame_next(const char *frame, size_t len);

#endif
