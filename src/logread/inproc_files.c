/* In-job data reader: the files of RUN/python and the collapsed stacks (inproc.h). */
#include "logread/inproc.h"

#include "util/gw_file.h"
#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines longer than this are no record of ours (a stacks line of 64 frames is ~10 KiB). */
enum { MAX_LINE = 1 << 20, MAX_FILES = 8192 };

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void rehash(gw_inproc_stacks *st)
{
    free(st->slots);
    st->nslots = st->nslots ? st->nslots * 2 : 256;
    st->slots = xmalloc(st->nslots * sizeof *st->slots);
    for (size_t i = 0; i < st->nslots; i++)
        st->slots[i] = (size_t)-1;
    for (size_t i = 0; i < st->n; i++) {
        size_t k = hash(st->v[i].frames) & (st->nslots - 1);
        while (st->slots[k] != (size_t)-1)
            k = (k + 1) & (st->nslots - 1);
        st->slots[k] = i;
    }
}

static void stacks_add(gw_inproc_stacks *st, const char *frames, double count)
{
    if (2 * (st->n + 1) > st->nslots)
        rehash(st);
    size_t k = hash(frames) & (st->nslots - 1);
    while (st->slots[k] != (size_t)-1) {
        gw_inproc_stack *s = &st->v[st->slots[k]];
        if (strcmp(s->frames, frames) == 0) {
            s->count += count;
            st->samples += count;
            return;
        }
        k = (k + 1) & (st->nslots - 1);
    }
    st->v = xgrow(st->v, &st->cap, st->n + 1, sizeof *st->v);
    st->v[st->n] = (gw_inproc_stack){gw_utf8_clean_dup(frames), count};
    st->slots[k] = st->n++;
    st->samples += count;
}

void gw_inproc_add_stack_line(gw_inproc *in, gw_inproc_role r, const char *line)
{
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len == 0)
        return;
    const char *sp = NULL;
    for (size_t i = len; i-- > 0;)
        if (line[i] == ' ') {
            sp = line + i;
            break;
        }
    char *end = NULL;
    double count = sp ? strtod(sp + 1, &end) : NAN;
    if (!sp || sp == line || end != line + len || !(count > 0) || count > 1e12 ||
        count != floor(count)) {
        in->bad_stack_lines++;
        return;
    }
    char *frames = xstrndup(line, (size_t)(sp - line));
    stacks_add(&in->stacks[(unsigned)r < GW_INPROC_ROLES ? r : GW_INPROC_OTHER], frames, count);
    free(frames);
}

/* PID of "PID.ext", or -1. */
static long pid_of(const char *name, const char *ext)
{
    char *end = NULL;
    long pid = strtol(name, &end, 10);
    return end != name && pid > 0 && strcmp(end, ext) == 0 ? pid : -1;
}

typedef void (*line_fn)(gw_inproc *in, long pid, const char *line, bool last);

static void read_lines(gw_inproc *in, const char *path, long pid, line_fn fn)
{
    FILE *f = gw_file_open_regular(path, "r");
    in->files++;
    if (!f) {
        in->unreadable_files++;
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        bool last = n == 0 || line[n - 1] != '\n';
        if (n > MAX_LINE || strlen(line) != (size_t)n) { /* too long, or NUL bytes in it */
            in->bad_lines++;
            continue;
        }
        fn(in, pid, line, last);
    }
    free(line);
    fclose(f);
}

static void stack_line(gw_inproc *in, long pid, const char *line, bool last)
{
    (void)last; /* the file is replaced whole (temp file and rename): never torn */
    const gw_inproc_proc *p = gw_inproc_proc_of(in, pid);
    gw_inproc_add_stack_line(in, p ? gw_inproc_role_of(in, p) : GW_INPROC_OTHER, line);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

gw_inproc *gw_inproc_read(const char *run_dir, const char *instrumentation)
{
    gw_inproc *in = xcalloc(1, sizeof *in);
    in->instrumentation = gw_utf8_clean_dup(instrumentation);
    in->first_warning = xstrdup("");
    char *dir = xasprintf("%s/python", run_dir);
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return in;
    }
    in->dir_found = true;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_FILES)
        if (pid_of(e->d_name, ".jsonl") > 0 || pid_of(e->d_name, ".stacks") > 0) {
            names = xgrow(names, &cap, n + 1, sizeof *names);
            names[n++] = xstrdup(e->d_name);
        }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    /* records first: a stacks file is summed under its process's role */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            long pid = pid_of(names[i], pass == 0 ? ".jsonl" : ".stacks");
            if (pid < 0)
                continue;
            char *path = xasprintf("%s/%s", dir, names[i]);
            if (pass == 0) {
                read_lines(in, path, pid, gw_inproc_add_line);
            } else {
                gw_inproc_role r = GW_INPROC_OTHER;
                const gw_inproc_proc *p = gw_inproc_proc_of(in, pid);
                if (p)
                    r = gw_inproc_role_of(in, p);
                double before = in->stacks[r].samples;
                read_lines(in, path, pid, stack_line);
                in->stacks[r].processes++;
                for (size_t k = 0; k < in->nprocs; k++)
                    if (in->procs[k].pid == pid)
                        in->procs[k].stack_samples = in->stacks[r].samples - before;
            }
            free(path);
        }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(dir);
    gw_inproc_finish(in);
    return in;
}
