/* Where each role's Python time goes: functions by self and inclusive samples from the collapsed
 * stacks (analysis/inproc.h). */
#include "analysis/inproc.h"

#include "util/gw_buf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void gw_inproc_roles_build(gw_inproc_analysis *ia);
void gw_inproc_roles_free(gw_inproc_analysis *ia);

/* Files whose functions a thread sits in while it waits for something else: a queue, a pipe,
 * select, a lock, a condition, the forkserver's answer (a forkserver DataLoader's workers). */
static const char *const wait_files[] = {"selectors.py",  "threading.py",  "queues.py",
                                         "queue.py",      "connection.py", "synchronize.py",
                                         "popen_fork.py", "forkserver.py"};

/* The file of a frame "function (file:LINE)", without the line: [*f, *f + *n). */
static bool frame_file(const char *frame, size_t len, const char **f, size_t *n)
{
    const char *open = NULL;
    for (size_t i = len; i-- > 1;)
        if (frame[i] == '(' && frame[i - 1] == ' ') {
            open = frame + i;
            break;
        }
    if (!open || frame[len - 1] != ')')
        return false;
    const char *b = open + 1, *e = frame + len - 1, *colon = e;
    while (colon > b && colon[-1] >= '0' && colon[-1] <= '9')
        colon--;
    if (colon > b && colon < e && colon[-1] == ':')
        e = colon - 1;
    *f = b;
    *n = (size_t)(e - b);
    return true;
}

bool gw_inproc_frame_idle(const char *frame, size_t len)
{
    const char *f;
    size_t n;
    if (!frame_file(frame, len, &f, &n))
        return false;
    for (size_t i = 0; i < sizeof wait_files / sizeof *wait_files; i++) {
        size_t w = strlen(wait_files[i]);
        if (n >= w && memcmp(f + n - w, wait_files[i], w) == 0 && (n == w || f[n - w - 1] == '/'))
            return true;
    }
    return false;
}

/* "file:function" of a frame (lines merged) into b; the frame itself when it has no "(file)". */
static const char *fn_name(gw_buf *b, const char *frame, size_t len)
{
    const char *f;
    size_t n;
    gw_buf_reset(b);
    if (!frame_file(frame, len, &f, &n)) {
        gw_buf_append(b, frame, len);
    } else {
        gw_buf_append(b, f, n);
        gw_buf_append(b, ":", 1);
        gw_buf_append(b, frame, (size_t)(f - 1 - frame) - 1); /* the function, before " (" */
    }
    return b->data;
}

const char *gw_inproc_fn_short(const char *name)
{
    const char *colon = strrchr(name, ':');
    const char *slash = NULL;
    for (const char *c = name; colon && c < colon; c++)
        if (*c == '/')
            slash = c;
    return slash ? slash + 1 : name;
}

/* A DataLoader iterator's __next__ ("__next__", or "_MultiProcessingDataLoaderIter.__next__"
 * with Python 3.11's qualified names) in torch's dataloader.py. */
bool gw_inproc_frame_next(const char *frame, size_t len)
{
    const char *sp = memchr(frame, ' ', len);
    static const char want[] = "__next__";
    size_t fl = sp ? (size_t)(sp - frame) : 0, wl = sizeof want - 1;
    return fl >= wl && memcmp(frame + fl - wl, want, wl) == 0 &&
           (fl == wl || frame[fl - wl - 1] == '.') &&
           memmem(frame, len, "utils/data/dataloader.py", 24);
}

static bool is_import(const char *frame, size_t len)
{
    return memmem(frame, len, "(<frozen importlib.", 19) != NULL;
}

typedef struct fn_map {
    gw_inproc_role_view *rv;
    size_t *slots, nslots;
} fn_map;

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void map_grow(fn_map *m, size_t *cap)
{
    free(m->slots);
    m->nslots = m->nslots ? m->nslots * 2 : 256;
    m->slots = xmalloc(m->nslots * sizeof *m->slots);
    for (size_t i = 0; i < m->nslots; i++)
        m->slots[i] = (size_t)-1;
    for (size_t i = 0; i < m->rv->nfns; i++) {
        size_t k = hash(m->rv->fns[i].name) & (m->nslots - 1);
        while (m->slots[k] != (size_t)-1)
            k = (k + 1) & (m->nslots - 1);
        m->slots[k] = i;
    }
    (void)cap;
}

/* The index of function `name` (copied when new), added when new. */
static size_t fn_index(fn_map *m, size_t *cap, const char *name)
{
    if (2 * (m->rv->nfns + 1) > m->nslots)
        map_grow(m, cap);
    size_t k = hash(name) & (m->nslots - 1);
    while (m->slots[k] != (size_t)-1) {
        if (strcmp(m->rv->fns[m->slots[k]].name, name) == 0)
            return m->slots[k];
        k = (k + 1) & (m->nslots - 1);
    }
    gw_inproc_role_view *rv = m->rv;
    rv->fns = xgrow(rv->fns, cap, rv->nfns + 1, sizeof *rv->fns);
    rv->fns[rv->nfns] = (gw_inproc_fn){xstrdup(name), 0, 0};
    m->slots[k] = rv->nfns;
    return rv->nfns++;
}

/* Adds one stack; seen[i] == stamp marks function i as counted for this stack already (stamp:
 * a number of its own per stack), so a recursive function counts once inclusively. */
static void add_stack(fn_map *m, size_t *cap, gw_buf *name, const gw_inproc_stack *st, size_t stamp,
                      size_t **seen, size_t *seen_cap)
{
    gw_inproc_role_view *rv = m->rv;
    const char *s = st->frames;
    size_t leaf = (size_t)-1;
    const char *last = s;
    size_t last_len = 0;
    bool next = false, import = false;
    for (const char *p = s;; p++) {
        if (*p != ';' && *p)
            continue;
        last = s;
        last_len = (size_t)(p - s);
        next |= gw_inproc_frame_next(s, last_len);
        import |= is_import(s, last_len);
        if (!*p)
            break;
        s = p + 1;
    }
    rv->samples += st->count;
    if (next)
        rv->in_next += st->count;
    if (gw_inproc_frame_idle(last, last_len)) {
        rv->idle += st->count;
        if (next)
            rv->in_next_idle += st->count;
        return;
    }
    if (import) {
        rv->importing += st->count;
        return;
    }
    rv->busy += st->count;
    s = st->frames;
    for (const char *p = s;; p++) {
        if (*p != ';' && *p)
            continue;
        if (p > s) {
            size_t i = fn_index(m, cap, fn_name(name, s, (size_t)(p - s)));
            *seen = xgrow(*seen, seen_cap, i + 1, sizeof **seen); /* new entries 0 */
            if ((*seen)[i] != stamp) {
                (*seen)[i] = stamp;
                rv->fns[i].total += st->count;
            }
            leaf = i;
        }
        if (!*p)
            break;
        s = p + 1;
    }
    if (leaf != (size_t)-1)
        rv->fns[leaf].self += st->count;
}

static int by_self(const void *x, const void *y)
{
    const gw_inproc_fn *a = x, *b = y;
    if (a->self != b->self)
        return a->self < b->self ? 1 : -1;
    return strcmp(a->name, b->name);
}

static int by_total(const void *x, const void *y)
{
    const gw_inproc_fn *a = *(const gw_inproc_fn *const *)x, *b = *(const gw_inproc_fn *const *)y;
    if (a->total != b->total)
        return a->total < b->total ? 1 : -1;
    return strcmp(a->name, b->name);
}

void gw_inproc_roles_build(gw_inproc_analysis *ia)
{
    size_t *seen = NULL, seen_cap = 0, stamp = 0;
    gw_buf name = {0};
    for (int r = 0; r < 2; r++) {
        gw_inproc_role_view *rv = &ia->roles[r];
        const gw_inproc_stacks *st = &ia->in->stacks[r];
        fn_map m = {rv, NULL, 0};
        size_t cap = 0;
        rv->processes = st->processes;
        for (size_t i = 0; i < st->n; i++)
            add_stack(&m, &cap, &name, &st->v[i], ++stamp, &seen, &seen_cap);
        free(m.slots);
        if (rv->nfns)
            qsort(rv->fns, rv->nfns, sizeof *rv->fns, by_self);
        const gw_inproc_fn **order = xmalloc((rv->nfns + 1) * sizeof *order);
        for (size_t i = 0; i < rv->nfns; i++)
            order[i] = &rv->fns[i];
        if (rv->nfns)
            qsort(order, rv->nfns, sizeof *order, by_total);
        rv->by_total = xmalloc((rv->nfns + 1) * sizeof *rv->by_total);
        for (size_t i = 0; i < rv->nfns; i++)
            rv->by_total[i] = (size_t)(order[i] - rv->fns);
        free(order);
    }
    free(seen);
    gw_buf_free(&name);
}

void gw_inproc_roles_free(gw_inproc_analysis *ia)
{
    for (int r = 0; r < 2; r++) {
        for (size_t i = 0; i < ia->roles[r].nfns; i++)
            free(ia->roles[r].fns[i].name);
        free(ia->roles[r].fns);
        free(ia->roles[r].by_total);
    }
}
