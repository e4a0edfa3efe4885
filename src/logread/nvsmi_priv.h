/*
 * nvsmi_priv: the GPU CSV reader's own types, shared by nvsmi.c (rows) and nvsmi_header.c (header
 * lines: which column is what). Private to src/logread.
 */
#ifndef GW_NVSMI_PRIV_H
#define GW_NVSMI_PRIV_H

#include "logread/lines.h"
#include "logread/logread.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    MAX_CELLS = 256,
    /* nvidia-smi stamps each GPU's row of one poll ~1 ms after the previous GPU's; rows of a
     * file without an id column this close are one poll (no one samples every 10 ms). */
    GW_POLL_JITTER_MS = 10,
    GPU_HASH_SLOTS = 2 * GW_LOGREAD_MAX_GPUS, /* a power of two, at most half full */
    GW_INDEX_SLOTS = 64, /* GPUs named by an index below this are found without their key */
};
_Static_assert((GPU_HASH_SLOTS & (GPU_HASH_SLOTS - 1)) == 0 && GPU_HASH_SLOTS <= 65536,
               "GW_LOGREAD_MAX_GPUS: a power of two, at most 32768");

typedef enum col_kind {
    C_IGNORE,
    C_TIME,
    C_ELAPSED, /* seconds since the file's start */
    C_INDEX,
    C_UUID,
    C_PCI,
    C_NAME,
    C_FIELD,  /* a known gw_gpu_field */
    C_EXTRA,  /* an unknown column with a unit: kept under its header */
    C_REASON, /* clocks_event_reasons.<one reason>: "Active" / "Not Active" */
    C_ALTID,  /* a second GPU id beside index ("gpu", "gpu_id"): GPUs told apart by both */
} col_kind;

typedef struct colmap {
    col_kind kind;
    int field;       /* C_FIELD */
    double factor;   /* C_FIELD: header unit -> field unit */
    char unit[16];   /* unit given by the header, "" when none */
    char *name;      /* C_EXTRA: column name in the series */
    unsigned bit;    /* C_REASON: the clocks_event_reasons bit */
    char syn[48];    /* the home-made name this column was mapped from, "" when none */
    char syn_to[48]; /* the name it was read as (synonyms.c) */
} colmap;

typedef struct gpu_slot {
    gw_series_gpu *g;
    bool lost;          /* a "[GPU is lost]" cell was seen */
    int64_t shift_ms;   /* added to this GPU's times since its clock went back (place_in_time) */
    uint64_t last_hash; /* of the cells of this GPU's last row */
    long last_line;     /* its line */
} gpu_slot;

/* Rows that share a timestamp in a file without a GPU id column: the GPUs in their order. */
typedef struct order_split {
    int64_t t_ms;            /* timestamp of the current group's last row */
    size_t n;                /* rows in it so far */
    size_t min, max;         /* sizes of the closed groups (min 0: none closed) */
    long min_line, max_line; /* a line of a group of each size */
    long line, group_line;   /* the current row's line, the current group's first */
    long conflict_line;      /* a row whose name or memory.total is not its position's GPU's */
    int64_t step_max;        /* the longest step between rows of one poll (ms) */
    int64_t gap_min;         /* the shortest step between polls (ms), 0 none yet */
} order_split;

/* What the second thread found in a cell of a big CSV (nvsmi_pipe.c): the results of
 * gw_cells_absent, gw_cells_number (the unit at cell + unit_off) and strlen (a line with a
 * cell of UINT16_MAX bytes or more is left to the reader). 16 bytes: the reader loads every
 * one from the other core's cache. */
typedef struct nvsmi_pre {
    double value;
    uint16_t unit_off;
    uint16_t len;
    bool absent, number;
} nvsmi_pre;

typedef struct reader {
    gw_series *s;
    size_t input;
    const char *source;
    const char *path;
    double interval_ms;
    colmap *cols;
    size_t ncols;
    size_t used_col, total_col; /* the last memory.used, memory.total column; ncols when none */
    bool has_time, has_id;
    bool forced;         /* the columns come from --columns */
    bool elapsed;        /* times are seconds since the file's start */
    bool dated;          /* a timestamp column held a date */
    bool lead_date;      /* rows carry a date column before nvidia-smi's timestamp */
    long forced_bad;     /* line of a header whose width differs from --columns, 0 none */
    size_t forced_n;     /* its number of cells */
    long apps_line;      /* line of a --query-compute-apps header, 0 none */
    const char *foreign; /* a section of another format inside the CSV */
    long foreign_line;
    order_split order;
    char *note;        /* what the report says about the reading, "" when nothing */
    char ignored[160]; /* the columns ignored, "a, b, c" */
    char bad_why[160]; /* why the first skipped row was skipped, "" when none */
    bool comma_ms;     /* timestamps written "10:00:00,123" (Python logging) were joined */
    char mapped[200];  /* synonyms used, "gpu_util -> utilization.gpu, ..." */
    gpu_slot *gpus;
    size_t ngpus, gpus_cap;
    size_t last;
    long line_no;                              /* the line being read */
    unsigned short gpu_hash[GPU_HASH_SLOTS];   /* 1 + index into gpus by key, 0 = empty */
    unsigned short index_slot[GW_INDEX_SLOTS]; /* 1 + index into gpus by the index cell alone */
    bool too_many;                             /* a row named GPU number GW_LOGREAD_MAX_GPUS + 1 */
    bool alt_split;      /* a second id column (C_ALTID) told apart GPUs index did not */
    bool jitter;         /* rows of one poll stamped apart (within GW_POLL_JITTER_MS) */
    size_t duplicates;   /* rows repeated verbatim (one GPU, one time, the same cells) */
    size_t same_second;  /* whole-second times: further rows of a GPU's second, skipped */
    long same_line;      /* a second row for one GPU at one time with other values, 0 none */
    long same_prev_line; /* the row before it */
    char same_key[48];   /* that GPU */
    long quoted_breaks;  /* line breaks inside quoted cells (RFC 4180), joined */
    long table_lines, table_snapshots, table_first, table_last; /* skip_tables: what was skipped */
    char too_many_key[64];
    double vals[MAX_CELLS];
    /* the current line's cells as the second thread parsed them (nvsmi_pipe.c), or NULL */
    const nvsmi_pre *pre;
    const char *const *pre_ptr; /* [nptr] the second thread's cells of the line (npre parsed) */
    size_t npre, nptr;
    int64_t pre_t_ms;    /* the second thread's gw_timeparse of the line's first cell (with pre) */
    size_t pre_time_len; /* what it returned */
    size_t pre_shift;    /* cells the row dropped before its first (a logger's date) */
} reader;

/* The second thread's findings for cell i of the current row (cell: that cell), or NULL. */
static inline const nvsmi_pre *nvsmi_pre_of(const reader *r, size_t i, const char *cell)
{
    size_t k = i + r->pre_shift;
    return r->pre && k < r->npre && r->pre_ptr[k] == cell ? &r->pre[k] : NULL;
}

/* Reading a big regular file of lines on a second thread, a few batches ahead (issue 28): the
 * lines gw_lines_next gives (f's, through l), records joined across quoted line breaks, lines
 * of another format (gw_logread_foreign_line) ending it, cut into cells, and the numbers of as
 * many of them parsed as keep both threads busy (the reader parses the others: nvsmi_pipe_row's
 * pre is NULL for those).
 * NULL for small or irregular files, or when the machine's cores are busy already (a 1-minute
 * load average of at least one task per core): the caller reads them itself. */
typedef struct nvsmi_pipe nvsmi_pipe;
enum { NVSMI_PIPE_SLACK = 8 };
typedef struct nvsmi_pipe_row {
    size_t n;            /* cells found (at most MAX_CELLS of them stored) */
    long line_no;        /* of its first line */
    const char *foreign; /* gw_logread_foreign_line's name of this line's format, or NULL */
    const nvsmi_pre *pre;
    int64_t t_ms;    /* gw_timeparse of its first cell (with pre) */
    size_t time_len; /* what it returned */
    const char *const *ptr;
    size_t npre;
    size_t nptr; /* cells in ptr, each with NVSMI_PIPE_SLACK readable bytes past its NUL */
} nvsmi_pipe_row;
nvsmi_pipe *nvsmi_pipe_start(FILE *f, gw_lines *l);
/* 0 (the default): a second thread as said above; 1: for every regular file (tests); 2: as 1,
 * the thread parsing the numbers of half the lines, the reader the others (tests); -1: never. */
extern int nvsmi_pipe_mode;
/* The next record into cells (valid until the next call) and row; false at the end. Sets l's
 * line number and NUL counts to the record's. */
bool nvsmi_pipe_next(nvsmi_pipe *pp, char **cells, nvsmi_pipe_row *row);
/* The second thread's findings for the reader's current line (a zeroed row: none). */
static inline void nvsmi_take_pre(reader *r, const nvsmi_pipe_row *pr)
{
    r->pre = pr->pre;
    r->pre_ptr = pr->ptr;
    r->npre = pr->npre;
    r->nptr = pr->nptr;
    r->pre_t_ms = pr->t_ms;
    r->pre_time_len = pr->time_len;
}
/* Stops the thread and frees pp (NULL: nothing); returns the line breaks joined in quoted cells
 * of the records taken. */
long nvsmi_pipe_end(nvsmi_pipe *pp);

/* Appends "item" to a ", "-separated list once, or "..." once it is full. */
void nvsmi_list_add(char *list, size_t cap, const char *item);
/* True when some cell of a header-like line names a column this reader knows. */
bool nvsmi_names_a_column(char **cells, size_t n);
/* Maps a header line's cells to r->cols (the synonyms used and columns ignored said). */
void nvsmi_set_header(reader *r, char **cells, size_t n);
void nvsmi_free_map(reader *r);
/* Appends one thing the report should say about the reading to *note ("; " between: one line
 * each in the report, so text must not hold "; "). */
void nvsmi_note_add(char **note, const char *text);
/* What the report says about how the file was read, appended to r->note. */
void nvsmi_reading_notes(reader *r, const gw_lines *l);

#endif
