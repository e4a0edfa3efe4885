/*
 * top: `gpuwatch top`, the full-screen view (ncursesw) of every GPU with history charts and its
 * processes, or of many hosts' `gpuwatch serve` endpoints at once (docs/top.md).
 *
 * Owns: the model (model.c: history rings, the process table, sort / filter / tree / selection),
 * the keys (keys.c: a key -> a change of the model or an action), the process details read from
 * /proc (procs.c, through src/host), the hosts (hosts.c: HTTP GET of /metrics with timeouts in a
 * thread per host, the Prometheus text parsed into one row per GPU), the drawing (render.c, the
 * only file that draws) and the loop (top.c: terminal set-up and restore, signals, refresh).
 * The model, keys, procs and hosts are testable without a terminal. Must not: call NVML (the
 * sampler does), parse arguments (src/cli does), write escape sequences by hand (ncurses does).
 */
#ifndef GW_TOP_H
#define GW_TOP_H

#include "sampler/sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Samples kept per GPU and series: 10 minutes at the default 1 s refresh. */
enum { GW_TOP_HIST = 600 };
/* The low-SM flag: GPU-Util at least this high while SM activity is at most GW_TOP_LOW_SM_PCT
 * (kernels are resident but occupy few SMs: small batches, launch-bound or waiting kernels). */
#define GW_TOP_HIGH_UTIL_PCT 80.0
#define GW_TOP_LOW_SM_PCT    30.0

/* The last GW_TOP_HIST values of one series; NAN = absent at that tick. */
typedef struct gw_top_ring {
    float v[GW_TOP_HIST];
    unsigned head; /* where the next value goes */
    unsigned len;  /* values held, <= GW_TOP_HIST */
} gw_top_ring;

void gw_top_ring_push(gw_top_ring *r, double v);
/* The value `ago` ticks before the newest (0 = newest); NAN when not held. */
double gw_top_ring_ago(const gw_top_ring *r, unsigned ago);
/* The last `span` ticks drawn into `cols` columns, oldest first: each column the maximum of the
 * ticks it covers (a spike is never lost), NAN where no tick is held. With span <= cols a tick is
 * one column and the newest tick is the last column. */
void gw_top_ring_columns(const gw_top_ring *r, unsigned span, unsigned cols, double *out);

typedef struct gw_top_gpu {
    gw_device_info info;
    gw_gpu_sample cur; /* the latest tick's values */
    bool have;         /* cur holds a tick */
    gw_top_ring util, sm, mem_pct, power_pct;
} gw_top_gpu;

/* The names of the active reasons in a clocks event mask ("power cap, HW thermal"), comma
 * separated; "none" for 0, "idle" for idle alone. Returns buf. */
const char *gw_top_reasons(uint64_t mask, char *buf, size_t len);
/* True when g's latest tick has GPU-Util >= GW_TOP_HIGH_UTIL_PCT and SM activity <=
 * GW_TOP_LOW_SM_PCT (both measured). */
bool gw_top_low_sm(const gw_top_gpu *g);

typedef enum gw_top_role { GW_TOP_ROLE_TRAIN, GW_TOP_ROLE_WORKER } gw_top_role;

/* One GPU process with its /proc details (procs.c). Absent numbers are NAN. */
typedef struct gw_top_proc {
    unsigned pid, ppid, gpu;
    double gpu_mib;   /* memory on that GPU */
    double cpu_pct;   /* 100 = one core, over the last refresh; NAN on the first */
    double rss_mib;   /* host memory (resident) */
    double elapsed_s; /* since the process started */
    bool visible;     /* has a /proc entry here */
    gw_top_role role; /* WORKER: an ancestor is a GPU process too (DataLoader, spawned ranks) */
    char user[32];
    char run[128];  /* the recorded run it belongs to (a run directory), "" when none */
    char cmd[256];  /* command line, arguments joined by spaces, sanitised */
    unsigned depth; /* tree mode: levels under its nearest GPU-process ancestor */
} gw_top_proc;

typedef enum gw_top_sort {
    GW_TOP_SORT_GPU_MEM,
    GW_TOP_SORT_CPU,
    GW_TOP_SORT_HOST_MEM,
    GW_TOP_SORT_TIME,
    GW_TOP_SORT_PID,
    GW_TOP_SORT_USER,
    GW_TOP_SORT_COMMAND,
    GW_TOP_SORT_COUNT
} gw_top_sort;
const char *gw_top_sort_name(gw_top_sort s);

/* What the screen is doing with the keyboard. */
typedef enum gw_top_mode {
    GW_TOP_BROWSE,  /* keys move, sort, ... */
    GW_TOP_FILTER,  /* typing the filter */
    GW_TOP_CONFIRM, /* "send SIGTERM to PID? y/n" */
    GW_TOP_HELP,    /* the key list */
} gw_top_mode;

typedef struct gw_top_model {
    unsigned ngpu;
    gw_top_gpu *gpus;
    int64_t wall_ms;    /* the latest tick */
    double interval_s;  /* refresh period */
    gw_top_proc *procs; /* every GPU process */
    unsigned nproc;
    unsigned *shown; /* indices into procs: filtered, sorted (tree-ordered in tree mode) */
    unsigned nshown;
    gw_top_sort sort;
    bool reverse; /* ascending instead of the default order */
    bool tree;
    char filter[64];  /* case-insensitive substring of user, command, pid or run; "" = all */
    unsigned sel_pid; /* the selected process (0 = none); kept across refreshes */
    unsigned sel;     /* its row in shown */
    gw_top_mode mode;
    int confirm_sig; /* GW_TOP_CONFIRM: the signal asked about */
    unsigned confirm_pid;
    char message[128]; /* one line for the status bar ("sent SIGTERM to 1234") */
} gw_top_model;

void gw_top_model_init(gw_top_model *m, const gw_device_info *devs, unsigned n, double interval_s);
void gw_top_model_free(gw_top_model *m);
/* Appends a tick to every GPU's history. */
void gw_top_model_push(gw_top_model *m, const gw_sample *s);
/* Replaces the process table (copied) and arranges it. */
void gw_top_model_set_procs(gw_top_model *m, const gw_top_proc *p, unsigned n);
/* Applies filter, sort and tree to the table; keeps the selected pid when still shown. */
void gw_top_model_arrange(gw_top_model *m);
/* The selected process, or NULL. */
const gw_top_proc *gw_top_model_selected(const gw_top_model *m);

/* Keys (keys.c). Values are ncurses key codes (KEY_UP ...) or characters. */
typedef enum gw_top_action {
    GW_TOP_NOTHING, /* the key changed nothing */
    GW_TOP_REDRAW,  /* the model changed */
    GW_TOP_QUIT,
    GW_TOP_SIGNAL, /* confirmed: send m->confirm_sig to m->confirm_pid, then report it */
} gw_top_action;
gw_top_action gw_top_key(gw_top_model *m, int key);
/* The name of a signal the view sends ("SIGTERM"). */
const char *gw_top_signal_name(int sig);

/* Process details (procs.c): reads /proc for every process of s. Keeps the CPU times of the
 * previous call to compute CPU %. proc_root NULL = /proc. */
typedef struct gw_top_procs gw_top_procs;
gw_top_procs *gw_top_procs_new(const char *proc_root);
/* Fills m's process table from s (gw_top_model_set_procs). */
void gw_top_procs_update(gw_top_procs *p, gw_top_model *m, const gw_sample *s);
void gw_top_procs_free(gw_top_procs *p);
/* The run directory named by GPUWATCH_RUN_DIR in a NUL-separated environment block, into buf
 * ("" when absent). Returns true when found. */
bool gw_top_env_run_dir(const char *env, size_t n, char *buf, size_t len);

/* Hosts (hosts.c). */
typedef struct gw_top_remote_gpu {
    char gpu[16];                                                             /* the gpu label */
    char name[64];                                                            /* modelName */
    double util, sm, mem_used, mem_total, power, power_limit, temp, sm_clock; /* NAN: absent */
} gw_top_remote_gpu;

/* Parses a /metrics body (our exporter's dcgm-exporter names) into up to max GPUs. Returns the
 * number found; *hostname gets the Hostname label when present; *reported (NULL: not wanted)
 * the number of GPUs the host reported, which may be more than max (the first DCGM_FI_ series'
 * samples). Label text is sanitised (util/gw_utf8.h). */
unsigned gw_top_parse_metrics(const char *text, gw_top_remote_gpu *out, unsigned max,
                              char *hostname, size_t hostname_len, unsigned *reported);

typedef struct gw_top_hosts gw_top_hosts;

/* One host's view for drawing: copied out under the hosts' lock. */
typedef struct gw_top_host_view {
    char addr[128];
    char hostname[64];
    bool ever_ok;   /* answered at least once */
    bool stale;     /* the last answer is older than the stale limit or the last try failed */
    double age_s;   /* since the last answer (NAN: never) */
    char error[96]; /* the last failure, "" when the last try worked */
    unsigned ngpu;  /* GPUs shown (at most 16) */
    unsigned ngpu_reported; /* GPUs the host reported: more than ngpu are said, not shown */
    gw_top_remote_gpu gpus[16];
} gw_top_host_view;

/* Parses "HOST:PORT,HOST:PORT" (at most 64). Returns NULL and a message in err (size errlen) on
 * an empty list, an entry with no port or a port out of range. */
gw_top_hosts *gw_top_hosts_new(const char *list, double interval_s, double timeout_s, char *err,
                               size_t errlen);
unsigned gw_top_hosts_count(const gw_top_hosts *h);
/* Starts one fetching thread per host. */
void gw_top_hosts_start(gw_top_hosts *h);
void gw_top_hosts_get(gw_top_hosts *h, unsigned i, gw_top_host_view *out);
/* Stops the threads (each within its timeout) and frees. NULL is accepted. */
void gw_top_hosts_free(gw_top_hosts *h);

/* Drawing (render.c): the whole screen from the model, with ncurses (initialised by top.c). */
typedef struct gw_top_screen {
    const gw_top_model *m;
    gw_top_hosts *hosts; /* non-NULL: the hosts' view instead of this machine's GPUs */
    const char *hostname;
    const char *driver; /* "" when unknown */
    bool color;         /* colour pairs are set up (gw_top_colors) */
    bool utf8;          /* block glyphs; else ASCII */
} gw_top_screen;
/* Sets up the colour pairs render.c uses; call after start_color(). */
void gw_top_colors(void);
void gw_top_draw(const gw_top_screen *scr);

/* The command (top.c). */
typedef struct gw_top_config {
    int64_t interval_ms; /* refresh period */
    const char *hosts;   /* --hosts list, NULL = this machine's GPUs */
    double timeout_s;    /* per host request */
    bool no_color;       /* --color never */
} gw_top_config;

/* Runs the full-screen view until q or a signal. Returns 0, 1 when NVML cannot be used, there is
 * no GPU or stdout is no terminal, 2 on a bad --hosts list. */
int gw_top_main(const gw_top_config *cfg);

#endif
