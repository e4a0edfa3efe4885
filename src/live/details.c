/* Owner and command line of GPU processes, for the live view (see live.h). */
#include "live/live.h"

#include "host/procinfo.h"
#include "util/xalloc.h"
#include "view/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CMDLINE_MAX = 4096, USER_CACHE = 64 };

struct gw_live_details {
    char *proc_root;
    gw_view_proc *procs;
    size_t cap;
    struct {
        unsigned uid;
        char name[40];
    } users[USER_CACHE];
    unsigned nusers, next_user;
};

gw_live_details *gw_live_details_new(const char *proc_root)
{
    gw_live_details *d = xcalloc(1, sizeof *d);
    d->proc_root = proc_root ? xstrdup(proc_root) : NULL;
    return d;
}

/* The user name of uid, from the cache or NSS (the oldest entry makes room). */
static void user_name(gw_live_details *d, unsigned uid, char *buf, size_t len)
{
    for (unsigned i = 0; i < d->nusers; i++) {
        if (d->users[i].uid == uid) {
            snprintf(buf, len, "%s", d->users[i].name);
            return;
        }
    }
    unsigned slot = d->nusers < USER_CACHE ? d->nusers++ : d->next_user++ % USER_CACHE;
    d->users[slot].uid = uid;
    gw_procinfo_user_name(uid, d->users[slot].name, sizeof d->users[slot].name);
    snprintf(buf, len, "%s", d->users[slot].name);
}

static void fill_one(gw_live_details *d, const gw_gpu_process *p, gw_view_proc *v)
{
    if (!p->visible)
        return;
    v->uid_valid = gw_procinfo_uid(d->proc_root, p->pid, &v->uid);
    if (v->uid_valid)
        user_name(d, v->uid, v->user, sizeof v->user);
    char *raw = xmalloc(CMDLINE_MAX);
    size_t n = 0;
    if (gw_procinfo_cmdline(d->proc_root, p->pid, raw, CMDLINE_MAX, &n) && n > 0) {
        gw_buf clean = {0};
        gw_utf8_sanitize(raw, n, &clean);
        v->command = clean.data; /* owned by d from here */
    }
    free(raw);
}

static void clear(gw_live_details *d)
{
    for (size_t i = 0; i < d->cap; i++)
        free(d->procs[i].command);
    if (d->cap)
        memset(d->procs, 0, d->cap * sizeof *d->procs);
}

const gw_view_proc *gw_live_details_fill(gw_live_details *d, const gw_sample *s)
{
    clear(d);
    d->procs = xgrow(d->procs, &d->cap, s->proc_count ? s->proc_count : 1, sizeof *d->procs);
    for (unsigned k = 0; k < s->proc_count; k++)
        fill_one(d, &s->procs[k], &d->procs[k]);
    return d->procs;
}

void gw_live_details_free(gw_live_details *d)
{
    if (!d)
        return;
    clear(d);
    free(d->procs);
    free(d->proc_root);
    free(d);
}
