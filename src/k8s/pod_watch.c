/* pod_watch: the kubelet PodResources watcher and the device-id mapping (pod_watch.h). */
#include "k8s/pod_watch.h"
#include "k8s/podres_dl.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct gw_pod_watch {
    gw_pod_watch_config cfg;
    char *socket;
    gw_podres_api api;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* under lock */
    bool stop, poked, up, warned;
    uint64_t generation, calls;
    gw_podres_list list; /* the last answer, NVIDIA resources only */
};

static bool nvidia_resource(const char *r)
{
    return strcmp(r, "nvidia.com/gpu") == 0 || strncmp(r, "nvidia.com/mig-", 15) == 0;
}

/* The position in uuids[ndev] of the GPU a device id names (for a MIG device: its parent), or -1
 * when it names none of them. */
static int device_gpu(const char *id, const char *const *uuids, unsigned ndev,
                      const gw_pod_migs *migs)
{
    size_t n;
    if (strncmp(id, "GPU-", 4) == 0) {
        const char *sep = strstr(id, "::");
        n = sep ? (size_t)(sep - id) : strlen(id);
    } else if (strncmp(id, "MIG-GPU-", 8) == 0) { /* MIG-GPU-<uuid>/GI/CI */
        id += 4;
        n = strcspn(id, "/");
    } else if (strncmp(id, "MIG-", 4) == 0) { /* MIG-<uuid>: NVML told us its parent */
        for (unsigned i = 0; migs && i < migs->n; i++)
            if (strcmp(migs->uuids[i], id) == 0 && migs->dev[i] < ndev)
                return (int)migs->dev[i];
        return -1;
    } else {
        return -1;
    }
    for (unsigned dev = 0; dev < ndev; dev++)
        if (uuids[dev] && strlen(uuids[dev]) == n && strncmp(uuids[dev], id, n) == 0)
            return (int)dev;
    return -1;
}

static int cmp_alloc(const void *a, const void *b)
{
    const gw_pod_alloc *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    int c = strcmp(x->namespace_, y->namespace_);
    if (!c)
        c = strcmp(x->pod, y->pod);
    return c ? c : strcmp(x->container, y->container);
}

static void free_allocs(gw_pod_map *map)
{
    for (size_t i = 0; i < map->n; i++) {
        free(map->allocs[i].pod);
        free(map->allocs[i].namespace_);
        free(map->allocs[i].container);
    }
    free(map->allocs);
    map->allocs = NULL;
    map->n = 0;
}

void gw_pod_map_build(const gw_podres_list *list, const char *const *uuids, unsigned ndev,
                      const gw_pod_migs *migs, gw_pod_map *map)
{
    free_allocs(map);
    if (!list->n)
        return;
    map->allocs = xcalloc(list->n, sizeof *map->allocs);
    for (size_t i = 0; i < list->n; i++) {
        const gw_podres_device *d = &list->devs[i];
        int dev = nvidia_resource(d->resource) ? device_gpu(d->device_id, uuids, ndev, migs) : -1;
        if (dev < 0)
            continue;
        gw_pod_alloc *a = &map->allocs[map->n++];
        a->dev = (unsigned)dev;
        a->pod = xstrdup(d->pod);
        a->namespace_ = xstrdup(d->namespace_);
        a->container = xstrdup(d->container);
    }
    qsort(map->allocs, map->n, sizeof *map->allocs, cmp_alloc);
    size_t kept = 0; /* each (dev, pod, namespace, container) once */
    for (size_t i = 0; i < map->n; i++) {
        if (kept && cmp_alloc(&map->allocs[kept - 1], &map->allocs[i]) == 0) {
            free(map->allocs[i].pod);
            free(map->allocs[i].namespace_);
            free(map->allocs[i].container);
            continue;
        }
        map->allocs[kept++] = map->allocs[i];
    }
    map->n = kept;
}

const gw_pod_alloc *gw_pod_map_only(const gw_pod_map *map, unsigned dev)
{
    const gw_pod_alloc *found = NULL;
    for (size_t i = 0; i < map->n; i++) {
        if (map->allocs[i].dev != dev)
            continue;
        if (found)
            return NULL;
        found = &map->allocs[i];
    }
    return found;
}

void gw_pod_map_free(gw_pod_map *map)
{
    free_allocs(map);
    map->generation = 0;
    map->up = false;
}

static void say(gw_pod_watch *w, const char *line)
{
    if (w->cfg.say)
        w->cfg.say(w->cfg.say_ctx, line);
}

/* Keeps the NVIDIA devices of l (moved out of l, which is freed). */
static void keep_nvidia(gw_pod_watch *w, gw_podres_list *l, gw_podres_list *kept)
{
    kept->n = 0;
    kept->devs = xcalloc(l->n ? l->n : 1, sizeof *kept->devs);
    for (size_t i = 0; i < l->n; i++) {
        gw_podres_device *d = &l->devs[i];
        if (!nvidia_resource(d->resource))
            continue;
        gw_podres_device *k = &kept->devs[kept->n++];
        k->pod = xstrdup(d->pod);
        k->namespace_ = xstrdup(d->namespace_);
        k->container = xstrdup(d->container);
        k->resource = xstrdup(d->resource);
        k->device_id = xstrdup(d->device_id);
    }
    w->api.free_list(l);
}

static void free_list(gw_podres_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->devs[i].pod);
        free(l->devs[i].namespace_);
        free(l->devs[i].container);
        free(l->devs[i].resource);
        free(l->devs[i].device_id);
    }
    free(l->devs);
    l->devs = NULL;
    l->n = 0;
}

static bool same_list(const gw_podres_list *a, const gw_podres_list *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const gw_podres_device *x = &a->devs[i], *y = &b->devs[i];
        if (strcmp(x->pod, y->pod) || strcmp(x->namespace_, y->namespace_) ||
            strcmp(x->container, y->container) || strcmp(x->resource, y->resource) ||
            strcmp(x->device_id, y->device_id))
            return false;
    }
    return true;
}

/* What to do about a socket the kubelet does not answer on, from what is at path: the usual
 * mistakes of a deployment (the directory not mounted, the socket itself mounted before it
 * existed, which makes a directory of it, a non-root user) each get their own fix. */
static void socket_hint(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 1;
    const char *dir = slash ? path : ".";
    if (slash == path)
        dirlen = 1;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == EACCES)
            snprintf(buf, n, "user %u may not reach %.*s: run as root, as deploy/kubernetes does",
                     (unsigned)geteuid(), dirlen, dir);
        else
            snprintf(buf, n, "is %.*s mounted (hostPath, the directory)?", dirlen, dir);
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(buf, n,
                 "it is a directory, not a socket: mount the directory %.*s, not the socket "
                 "(a mount of a socket that did not exist yet makes it a directory)",
                 dirlen, dir);
    } else if (!S_ISSOCK(st.st_mode)) {
        snprintf(buf, n, "it is not a socket: --pod-resources-socket names the kubelet's socket");
    } else if (access(path, W_OK) != 0 && errno == EACCES) {
        snprintf(buf, n,
                 "user %u may not connect to it (the kubelet's socket is root's): run as root, "
                 "as deploy/kubernetes does",
                 (unsigned)geteuid());
    } else {
        snprintf(buf, n, "is the kubelet running, and is this its pod-resources socket?");
    }
}

static void *watch_main(void *arg)
{
    gw_pod_watch *w = arg;
    int64_t backoff_ms = 1000, next_ns = 0; /* the first call right away */
    pthread_mutex_lock(&w->lock);
    bool first = true;
    while (!w->stop) {
        int64_t now = gw_mono_ns();
        if (!first && (!w->poked || now < next_ns)) {
            if (w->poked)
                gw_cond_wait_until(&w->cond, &w->lock, next_ns);
            else
                pthread_cond_wait(&w->cond, &w->lock);
            continue;
        }
        first = false;
        w->poked = false;
        w->calls++;
        pthread_mutex_unlock(&w->lock);
        gw_podres_list got = {0}, kept = {0};
        char why[512] = "";
        int rc = w->api.list(w->socket, w->cfg.deadline_ms, &got, why, sizeof why);
        if (rc == 0)
            keep_nvidia(w, &got, &kept);
        char line[1536], hint[384] = "";
        if (rc != 0)
            socket_hint(w->socket, hint, sizeof hint);
        pthread_mutex_lock(&w->lock);
        if (rc == 0) {
            snprintf(line, sizeof line,
                     "the kubelet's pod-resources API at %s answers again: pod labels are back",
                     w->socket);
            if (w->warned)
                say(w, line);
            w->warned = false;
            backoff_ms = 1000;
            next_ns = gw_mono_ns() + w->cfg.min_gap_ms * 1000000;
            if (!w->up || !same_list(&kept, &w->list)) {
                free_list(&w->list);
                w->list = kept;
                w->generation++;
            } else {
                free_list(&kept);
            }
            w->up = true;
        } else {
            snprintf(line, sizeof line,
                     "cannot ask the kubelet's pod-resources API at %s (%s): serving metrics "
                     "without pod labels, retrying; %s",
                     w->socket, why, hint);
            if (!w->warned)
                say(w, line);
            w->warned = true;
            if (w->up || w->list.n || w->generation == 0) {
                free_list(&w->list);
                w->generation++;
            }
            w->up = false;
            next_ns = gw_mono_ns() + backoff_ms * 1000000;
            backoff_ms =
                backoff_ms * 2 > w->cfg.max_backoff_ms ? w->cfg.max_backoff_ms : backoff_ms * 2;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

gw_rc gw_pod_watch_start(const gw_pod_watch_config *cfg, gw_pod_watch **out, gw_error *err)
{
    *out = NULL;
    gw_podres_api api;
    gw_rc rc = gw_podres_load(&api, err);
    if (rc)
        return rc;
    gw_pod_watch *w = xcalloc(1, sizeof *w);
    w->cfg = *cfg;
    w->socket = xstrdup(cfg->socket ? cfg->socket : GW_POD_RESOURCES_SOCKET);
    w->cfg.socket = w->socket;
    if (w->cfg.deadline_ms <= 0)
        w->cfg.deadline_ms = 5000;
    if (w->cfg.min_gap_ms <= 0)
        w->cfg.min_gap_ms = 1000;
    if (w->cfg.max_backoff_ms <= 0)
        w->cfg.max_backoff_ms = 30000;
    w->api = api;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        free(w->socket);
        free(w);
        return gw_error_set(err, GW_E_SYSTEM,
                            "cannot start the kubelet watcher thread: too many threads?");
    }
    *out = w;
    return GW_OK;
}

void gw_pod_watch_poke(gw_pod_watch *w)
{
    pthread_mutex_lock(&w->lock);
    w->poked = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

bool gw_pod_watch_map(gw_pod_watch *w, const char *const *uuids, unsigned ndev,
                      const gw_pod_migs *migs, bool force, gw_pod_map *map)
{
    pthread_mutex_lock(&w->lock);
    bool rebuild = w->generation && (force || map->generation != w->generation);
    if (rebuild) {
        gw_pod_map_build(&w->list, uuids, ndev, migs, map);
        map->generation = w->generation;
        map->up = w->up;
    }
    pthread_mutex_unlock(&w->lock);
    return rebuild;
}

uint64_t gw_pod_watch_calls(gw_pod_watch *w)
{
    pthread_mutex_lock(&w->lock);
    uint64_t n = w->calls;
    pthread_mutex_unlock(&w->lock);
    return n;
}

void gw_pod_watch_stop(gw_pod_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    free_list(&w->list);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    free(w->socket);
    free(w);
}
