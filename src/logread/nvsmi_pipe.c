/* A big CSV's lines read, cut into cells and their numbers parsed on a second thread, a few
 * batches ahead of the reader (nvsmi_priv.h, issue 28: both cores). */
#include "logread/cells.h"
#include "logread/logread.h"
#include "logread/nvsmi_priv.h"
#include "logread/sniff.h"
#include "logread/timeparse.h"

#include "util/xalloc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    PIPE_LINES = 8192,
    PIPE_SLOTS = 3,
    PIPE_MIN_BYTES = 4 << 20,
    PIPE_BLOCK = 1 << 20
}; /* few hand-overs: a loaded machine is slow to wake a waiting thread */

typedef struct pipe_line {
    long line_no; /* of its first physical line */
    size_t n;     /* cells found (cells past MAX_CELLS are not kept) */
    size_t first; /* its first cell in the batch's cells */
    const char *foreign;
    size_t nul_bytes, nul_lines; /* gw_lines' counts once it was read */
    long first_nul_line;
    long quoted_breaks; /* line breaks joined so far */
    bool parsed;        /* its cells' numbers parsed here (pre), else left to the reader */
    uint32_t time_len;  /* parsed: gw_timeparse of its first cell */
    int64_t t_ms;
} pipe_line;

typedef struct pipe_batch {
    char *text; /* the lines, each cut into NUL-terminated cells in place */
    size_t text_len, text_cap;
    size_t *cell_off; /* [ncells] offsets of cells in text */
    nvsmi_pre *pre;   /* [ncells] */
    size_t ncells, cells_cap;
    pipe_line lines[PIPE_LINES];
    size_t nlines;
} pipe_batch;

int nvsmi_pipe_mode = 0;

/* What each thread writes line by line lies apart from what the other touches (at least a cache
 * line between: a line written by one core and read by the other moves between them on every
 * write, which cost a tenth of the reading's time when the thread read through the reader's
 * gw_lines, a local of the reader's hot stack frame). */
struct nvsmi_pipe {
    gw_lines *l; /* the reader's: taken over at the start, given back at the end */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pipe_batch b[PIPE_SLOTS];
    size_t filled, returned; /* batches handed over / given back */
    bool done, stop;
    bool starved;       /* the reader waited for a batch since the last hand-over */
    unsigned parse_of8; /* of every 8 lines, those whose numbers this thread parses */
    char apart1[128];
    gw_lines lines; /* this thread's own: its counts (lines, NUL bytes); the text is block's */
    char *block;    /* the file read in big blocks: [start, end) not yet taken */
    size_t block_cap, start, end;
    size_t line_nuls; /* NUL bytes already taken out of the line being read (block_line) */
    bool eof;
    long quoted_breaks;
    char apart2[128];
    pipe_batch *cur; /* the reader's batch, its next line */
    size_t next;
    pipe_line taken;            /* the last line the reader took */
    const char *ptr[MAX_CELLS]; /* the current line's cells */
};

/* True when the n bytes at s open a quoted cell they do not close. */
static bool odd_quotes(const char *s, size_t n)
{
    size_t q = 0;
    for (const char *c = memchr(s, '"', n); c; c = memchr(c + 1, '"', n - (size_t)(c + 1 - s)))
        q++;
    return q % 2 == 1;
}

/* Appends len bytes of text and a NUL to the batch, with NVSMI_PIPE_SLACK bytes of room after
 * them; returns their offset. */
static size_t put_text(pipe_batch *b, const char *text, size_t len)
{
    if (b->text_len + len + 1 + NVSMI_PIPE_SLACK > b->text_cap) {
        b->text_cap = (b->text_len + len + 1 + NVSMI_PIPE_SLACK) * 2;
        b->text = xrealloc(b->text, b->text_cap);
    }
    size_t at = b->text_len;
    memcpy(b->text + at, text, len);
    b->text[at + len] = '\0';
    b->text_len += len + 1;
    return at;
}

/* The next line of the file (its '\n' included; the last may have none) at *line, from the
 * block (valid until the next call); its length, or -1 at the end. What getline gives, without
 * its call and copy per line. */
static ssize_t block_line(nvsmi_pipe *pp, const char **line)
{
    if (!pp->block) {
        pp->block_cap = PIPE_BLOCK;
        pp->block = xmalloc(pp->block_cap);
    }
    for (;;) {
        size_t left = pp->end - pp->start;
        const char *at = pp->block + pp->start;
        const char *nl = left ? memchr(at, '\n', left) : NULL;
        if (nl || (pp->eof && (left || pp->line_nuls))) {
            size_t len = nl ? (size_t)(nl + 1 - at) : left;
            *line = at;
            pp->start += len;
            return (ssize_t)len;
        }
        if (pp->eof)
            return -1;
        if (left) /* a line cut by the block's end: to the front */
            memmove(pp->block, at, left);
        pp->start = 0;
        pp->end = left;
        if (pp->end == pp->block_cap) { /* a line as long as the block: its NUL bytes out first */
            size_t w = gw_lines_drop_nuls(pp->block, pp->end);
            pp->line_nuls += pp->end - w;
            pp->end = w;
        }
        if (pp->end == pp->block_cap) {
            pp->block_cap *= 2;
            pp->block = xrealloc(pp->block, pp->block_cap);
        }
        size_t got = fread(pp->block + pp->end, 1, pp->block_cap - pp->end, pp->lines.f);
        pp->end += got;
        pp->eof = got == 0;
    }
}

/* Appends the next line to b's text as gw_lines_next gives it (NUL bytes removed and counted,
 * a UTF-8 byte order mark dropped from the first line); its length, or -1 at the end. */
static ssize_t put_line(nvsmi_pipe *pp, pipe_batch *b)
{
    gw_lines *l = &pp->lines;
    const char *line;
    ssize_t n = block_line(pp, &line);
    if (n < 0)
        return -1;
    l->line_no++;
    if (l->line_no == 1 && n >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
        line += 3;
        n -= 3;
    }
    size_t at = put_text(b, line, (size_t)n);
    char *t = b->text + at;         /* after put_text: it may move the text */
    size_t removed = pp->line_nuls; /* taken out by block_line already (a line past a block) */
    pp->line_nuls = 0;
    size_t w = gw_lines_drop_nuls(t, (size_t)n);
    if (w != (size_t)n) {
        t[w] = '\0';
        b->text_len -= (size_t)n - w;
        removed += (size_t)n - w;
        n = (ssize_t)w;
    }
    gw_lines_count_nuls(l, removed);
    return n;
}

/* Reads one record (a line, or lines joined while a quoted cell is open, as nvsmi.c's
 * whole_record) into b; false at the end of the file or at a foreign line (kept, the last). */
static bool read_record(nvsmi_pipe *pp, pipe_batch *b, bool parse)
{
    gw_lines *l = &pp->lines;
    size_t at = b->text_len;
    if (put_line(pp, b) < 0)
        return false;
    pipe_line *pl = &b->lines[b->nlines++];
    *pl = (pipe_line){.line_no = l->line_no, .first = b->ncells, .parsed = parse};
    const char *lead = b->text + at;
    while (*lead == ' ' || *lead == '\t')
        lead++;
    pl->foreign = gw_logread_foreign_line(lead);
    if (pl->foreign) {
        b->text_len = at; /* not kept */
    } else {
        for (int k = 0; k < 16 && odd_quotes(b->text + at, b->text_len - 1 - at); k++) {
            size_t had = b->text_len;
            b->text_len--; /* the NUL becomes the line break */
            put_text(b, "\n", 1);
            b->text_len--;
            if (put_line(pp, b) < 0) {
                b->text_len = had; /* no line to join: the record as it was */
                b->text[had - 1] = '\0';
                break;
            }
            pp->quoted_breaks++;
        }
        char *cells[MAX_CELLS];
        pl->n = gw_cells_split(b->text + at, cells, MAX_CELLS);
        size_t kept = pl->n;
        if (kept > MAX_CELLS)
            kept = MAX_CELLS;
        if (b->ncells + kept > b->cells_cap) {
            b->cells_cap = (b->ncells + kept) * 2;
            b->cell_off = xrealloc(b->cell_off, b->cells_cap * sizeof *b->cell_off);
            b->pre = xrealloc(b->pre, b->cells_cap * sizeof *b->pre);
        }
        for (size_t i = 0; i < kept; i++) {
            nvsmi_pre *p = &b->pre[b->ncells];
            const char *c = cells[i], *unit = "";
            b->cell_off[b->ncells++] = (size_t)(cells[i] - b->text);
            if (!parse)
                continue;
            p->absent = gw_cells_absent(c);
            p->number = gw_cells_number(c, &p->value, &unit);
            size_t clen = strlen(c), ulen = p->number ? (size_t)(unit - c) : 0;
            pl->parsed &= clen < UINT16_MAX;
            p->unit_off = (uint16_t)ulen;
            p->len = (uint16_t)clen;
            if (i == 0 && *c) {
                size_t t = gw_timeparse(c, &pl->t_ms);
                pl->time_len = (uint32_t)(t < UINT16_MAX ? t : 0);
            }
        }
    }
    pl->nul_bytes = l->nul_bytes;
    pl->nul_lines = l->nul_lines;
    pl->first_nul_line = l->first_nul_line;
    pl->quoted_breaks = pp->quoted_breaks;
    return !pl->foreign;
}

static void *producer(void *arg)
{
    nvsmi_pipe *pp = arg;
    /* Local times (nvidia-smi's) are converted by the reader, in the file's order: the hour that
     * repeats when daylight saving time ends reads as mktime's guess, which follows the process's
     * earlier conversions (timeparse.h). Zoned times (gpu.csv's) are parsed here. */
    gw_timeparse_refuse_local(true);
    for (bool more = true; more;) {
        pthread_mutex_lock(&pp->mu);
        if (!pp->stop && pp->filled - pp->returned == PIPE_SLOTS && pp->parse_of8 < 8 &&
            nvsmi_pipe_mode != 2)
            pp->parse_of8++;
        while (!pp->stop && pp->filled - pp->returned == PIPE_SLOTS)
            pthread_cond_wait(&pp->cv, &pp->mu);
        bool stop = pp->stop;
        pthread_mutex_unlock(&pp->mu);
        if (stop)
            break;
        pipe_batch *b = &pp->b[pp->filled % PIPE_SLOTS]; /* free: the reader gave it back */
        b->text_len = b->ncells = b->nlines = 0;
        unsigned share = pp->parse_of8;
        while (b->nlines < PIPE_LINES && (more = read_record(pp, b, b->nlines % 8 < share)))
            ;
        pthread_mutex_lock(&pp->mu);
        /* Both threads busy to the end: the reader waiting for this thread leaves it more of
         * the parsing, this thread waiting for a free batch (above) takes more. */
        if (pp->starved && pp->parse_of8 > 0 && nvsmi_pipe_mode != 2)
            pp->parse_of8--;
        pp->starved = false;
        pp->filled++;
        pp->done = !more;
        pthread_cond_broadcast(&pp->cv);
        pthread_mutex_unlock(&pp->mu);
    }
    return NULL;
}

/* Tasks runnable now besides this one (/proc/stat procs_running), -1 when unknown. */
static long others_running(void)
{
    FILE *f = fopen("/proc/stat", "r");
    char line[256];
    long n = -1;
    while (f && n < 0 && fgets(line, sizeof line, f)) /* long lines ("intr") come in pieces */
        if (strncmp(line, "procs_running ", 14) == 0)
            n = strtol(line + 14, NULL, 10) - 1;
    if (f)
        fclose(f);
    return n < 0 ? -1 : n;
}

nvsmi_pipe *nvsmi_pipe_start(FILE *f, gw_lines *l)
{
    struct stat st;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double load = 0;
    if (nvsmi_pipe_mode < 0 || fileno(f) < 0 || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    if (nvsmi_pipe_mode == 0 && (st.st_size < PIPE_MIN_BYTES || cpus < 2))
        return NULL;
    /* A second core only when one is free: on a machine already busy (a 1-minute load of as
     * many runnable tasks as cores, and another task runnable now) the two threads wait for
     * each other's turn, and one thread is faster (issue 28, docs/performance.md). The load
     * alone lags: programs that just ended (a benchmark's) keep it up on an idle machine. */
    if (nvsmi_pipe_mode == 0 && getloadavg(&load, 1) == 1 && load >= (double)cpus &&
        others_running() != 0)
        return NULL;
    nvsmi_pipe *pp = xcalloc(1, sizeof *pp);
    pp->l = l;
    pp->lines = *l;
    pp->lines.line = NULL;
    pp->lines.cap = 0;
    pp->parse_of8 = nvsmi_pipe_mode == 2 ? 4 : 8;
    pthread_mutex_init(&pp->mu, NULL);
    pthread_cond_init(&pp->cv, NULL);
    if (pthread_create(&pp->thread, NULL, producer, pp) != 0) {
        pthread_mutex_destroy(&pp->mu);
        pthread_cond_destroy(&pp->cv);
        free(pp);
        return NULL;
    }
    return pp;
}

bool nvsmi_pipe_next(nvsmi_pipe *pp, char **cells, nvsmi_pipe_row *row)
{
    while (!pp->cur || pp->next == pp->cur->nlines) {
        pthread_mutex_lock(&pp->mu);
        if (pp->cur) { /* given back */
            pp->returned++;
            pp->cur = NULL;
            pthread_cond_broadcast(&pp->cv);
        }
        pp->starved |= pp->filled == pp->returned && !pp->done;
        while (pp->filled == pp->returned && !pp->done)
            pthread_cond_wait(&pp->cv, &pp->mu);
        if (pp->filled > pp->returned) {
            pp->cur = &pp->b[pp->returned % PIPE_SLOTS];
            pp->next = 0;
        }
        pthread_mutex_unlock(&pp->mu);
        if (!pp->cur)
            return false;
    }
    const pipe_batch *b = pp->cur;
    const pipe_line *pl = &b->lines[pp->next++];
    size_t kept = pl->n;
    if (kept > MAX_CELLS)
        kept = MAX_CELLS;
    for (size_t i = 0; i < kept; i++) {
        cells[i] = b->text + b->cell_off[pl->first + i];
        pp->ptr[i] = cells[i];
    }
    *row = (nvsmi_pipe_row){.n = pl->n,
                            .line_no = pl->line_no,
                            .foreign = pl->foreign,
                            .pre = pl->parsed ? b->pre + pl->first : NULL,
                            .t_ms = pl->t_ms,
                            .time_len = pl->time_len,
                            .ptr = pp->ptr,
                            .nptr = kept,
                            .npre = pl->parsed ? kept : 0};
    pp->taken = *pl; /* l's counts as far as the reader got, not the read-ahead */
    return true;
}

long nvsmi_pipe_end(nvsmi_pipe *pp)
{
    if (!pp)
        return 0;
    pthread_mutex_lock(&pp->mu);
    pp->stop = true;
    pthread_cond_broadcast(&pp->cv);
    pthread_mutex_unlock(&pp->mu);
    pthread_join(pp->thread, NULL);
    /* the counts of the lines the reader took, not of those read ahead */
    pp->l->nul_bytes = pp->taken.nul_bytes;
    pp->l->nul_lines = pp->taken.nul_lines;
    pp->l->first_nul_line = pp->taken.first_nul_line;
    pp->l->line_no = pp->taken.line_no;
    gw_lines_free(&pp->lines);
    free(pp->block);
    long breaks = pp->taken.quoted_breaks;
    for (int i = 0; i < PIPE_SLOTS; i++) {
        free(pp->b[i].text);
        free(pp->b[i].cell_off);
        free(pp->b[i].pre);
    }
    pthread_mutex_destroy(&pp->mu);
    pthread_cond_destroy(&pp->cv);
    free(pp);
    return breaks;
}
