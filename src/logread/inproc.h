/*
 * inproc: the in-job data of a run directory (RUN/python/PID.jsonl and PID.stacks, written by
 * gpuwatch's sitecustomize inside the job's Python processes; format: docs/inproc.md) read into
 * one model: the processes by role, their settings, the DataLoaders and their passes (steps, time
 * waiting for data, time between batches), per-interval step records for timelines, the
 * allocator's memory, and the collapsed Python stacks summed per role (training process, all
 * DataLoader workers).
 *
 * Bad input never fails the read: a torn last line (the job was killed mid-write), a line that is
 * no JSON object, a record with an absurd value (negative or non-finite times, counts beyond
 * 1e12) is skipped and counted; a file that cannot be opened is counted. Strings are sanitised
 * (gw_utf8.h) when read. Times are unix seconds as the files hold them; durations seconds; memory
 * bytes. Absent numbers are NAN, absent booleans -1, absent strings "".
 * Must not: analyse (analysis/inproc.h does) or print.
 */
#ifndef GW_LOGREAD_INPROC_H
#define GW_LOGREAD_INPROC_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gw_inproc_role {
    GW_INPROC_MAIN,   /* iterates a DataLoader, or the first Python process of the job */
    GW_INPROC_WORKER, /* a torch DataLoader worker */
    GW_INPROC_OTHER,
    GW_INPROC_ROLES
} gw_inproc_role;

/* "main", "worker", "other". */
const char *gw_inproc_role_name(gw_inproc_role r);

/* A "settings" record (the last one of a process wins). */
typedef struct gw_inproc_settings {
    bool present;
    double torch_num_threads, torch_num_interop_threads;
    double cv2_num_threads;                /* NAN: cv2 not loaded */
    int cudnn_benchmark;                   /* 1, 0, -1 unknown */
    int autocast_used, torch_compile_used; /* 1, 0, -1 unknown */
    double affinity_cores, cgroup_cpu_limit_cores, os_cpu_count;
} gw_inproc_settings;

typedef struct gw_inproc_proc {
    long pid, ppid; /* ppid -1 unknown */
    gw_inproc_role role;
    long worker_id;                      /* -1 none */
    char *python, *torch, *start_method; /* "" unknown */
    long rank, local_rank, world_size;   /* -1 unset */
    gw_inproc_settings settings;
    double t_first, t_last; /* first and last record (unix s) */
    bool exited;            /* an "exit" record was written */
    double samples;         /* "stacks": samples so far (NAN none) */
    double interval_s;      /* the sampler's target interval */
    double sampler_cpu_s;   /* CPU time of our sampler thread */
    double stack_samples;   /* samples found in PID.stacks */
} gw_inproc_proc;

typedef struct gw_inproc_loader {
    long pid;                                                 /* the process that created it */
    long id;                                                  /* per process, in creation order */
    double num_workers, batch_size, prefetch_factor, batches; /* NAN unknown */
    int pin_memory, persistent_workers, drop_last;            /* 1, 0, -1 unknown */
    char *dataset, *sampler, *created_at;                     /* "" unknown */
    /* DataLoader objects this loader stands for: 1; more when the job made a new one at the same
     * place (same created_at, dataset, batch size, workers, batches) after the previous one's
     * last pass, as a job that makes its loader in the epoch loop does: their passes are this
     * loader's, numbered on (gw_inproc_finish); 0 for a loader so merged into an earlier one. */
    long objects;
} gw_inproc_loader;

/* One iteration over a loader. */
typedef struct gw_inproc_pass {
    size_t loader; /* index into gw_inproc.loaders */
    long pass;     /* 0-based per loader */
    double t_start, t_end;
    double steps, wait_s, between_s, first_wait_s; /* first_wait_s NAN unknown */
    bool complete;                                 /* reached StopIteration */
    bool from_steps; /* no "pass" record (the job died mid-pass): summed from "steps" */
} gw_inproc_pass;

/* One "steps" record: an interval of a pass. */
typedef struct gw_inproc_steps {
    size_t loader;
    long pass;
    double t0, t1, steps, wait_s, between_s;
} gw_inproc_steps;

typedef struct gw_inproc_memory {
    long pid;
    long device;
    double t;
    double allocated_bytes, reserved_bytes, max_allocated_bytes; /* NAN unknown */
} gw_inproc_memory;

/* One distinct collapsed stack, "frame;frame;...;frame" root first, and its samples. */
typedef struct gw_inproc_stack {
    char *frames;
    double count;
} gw_inproc_stack;

/* The stacks of every process of one role, identical stacks summed. */
typedef struct gw_inproc_stacks {
    size_t n, cap;
    gw_inproc_stack *v;
    size_t *slots, nslots; /* hash index into v (internal) */
    double samples;        /* sum of counts */
    size_t processes;      /* processes that contributed a stacks file */
} gw_inproc_stacks;

typedef struct gw_inproc {
    bool dir_found;        /* RUN/python exists */
    char *instrumentation; /* meta.json "python_instrumentation" ("on", "off (--no-python)"),
                              "" when meta.json does not say */
    size_t nprocs, nloaders, npasses, nsteps, nmemory;
    gw_inproc_proc *procs;
    gw_inproc_loader *loaders;
    gw_inproc_pass *passes;   /* sorted by t_start */
    gw_inproc_steps *steps;   /* sorted by t0 */
    gw_inproc_memory *memory; /* sorted by t */
    gw_inproc_stacks stacks[GW_INPROC_ROLES];
    /* What could not be read. */
    size_t files, unreadable_files;
    size_t lines, bad_lines, torn_lines, absurd_records, bad_stack_lines;
    size_t warnings;     /* "warning" records */
    char *first_warning; /* its message, "" when none */
    /* internal: array capacities */
    size_t procs_cap, loaders_cap, passes_cap, steps_cap, memory_cap;
} gw_inproc;

/* Reads RUN/python of run_dir; instrumentation is meta.json's "python_instrumentation" or NULL.
 * Never fails: a missing directory gives dir_found false and nothing else. Free with
 * gw_inproc_free. */
gw_inproc *gw_inproc_read(const char *run_dir, const char *instrumentation);
void gw_inproc_free(gw_inproc *in);

/* The role a process's stacks and counts go to: its own, except that a "main" process that
 * created no DataLoader while another did (a launcher such as torchrun, the first Python
 * process of the job) counts as "other". */
gw_inproc_role gw_inproc_role_of(const gw_inproc *in, const gw_inproc_proc *p);

/* The process with that pid, or NULL. */
const gw_inproc_proc *gw_inproc_proc_of(const gw_inproc *in, long pid);

/* Adds one line of a PID.jsonl file of process pid (exposed for tests and the fuzzer); last is
 * true for a final line without its newline (a torn line is counted, not an error). */
void gw_inproc_add_line(gw_inproc *in, long pid, const char *line, bool last);
/* Adds one line of a PID.stacks file of a process of role r. */
void gw_inproc_add_stack_line(gw_inproc *in, gw_inproc_role r, const char *line);
/* Sorts passes, steps and memory by time, makes passes from "steps" records for passes that
 * have no "pass" record, and merges loaders made anew for each pass (gw_inproc_loader.objects);
 * gw_inproc_read calls it. */
void gw_inproc_finish(gw_inproc *in);

#endif
