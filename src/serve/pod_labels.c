/* pod_labels: pod labels on the GPU series and gpuwatch_gpu_allocated (pod_labels.h). */
#include "serve/pod_labels.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char mig_uuid[96];

struct gw_pod_labels {
    gw_pod_watch *watch;
    gw_pod_map map;
    char **base; /* [nbase]: the exporter's label sets without pod labels */
    unsigned nbase;
    /* MIG devices of the last slow read (the sampler's tick thread writes them) */
    pthread_mutex_t mig_lock;
    mig_uuid *mig_uuids;  /* [nmig] */
    unsigned *mig_parent; /* [nmig]: the parent's NVML index */
    unsigned nmig;
    uint64_t mig_gen, mig_seen; /* changes of the list; the one the map was built with */
};

gw_pod_labels *gw_pod_labels_new(gw_pod_watch *watch)
{
    gw_pod_labels *pl = xcalloc(1, sizeof *pl);
    pl->watch = watch;
    pthread_mutex_init(&pl->mig_lock, NULL);
    return pl;
}

static void on_sample(void *ctx, const gw_sample *smp)
{
    gw_pod_labels *pl = ctx;
    if (!smp->procs_fresh)
        return;
    pthread_mutex_lock(&pl->mig_lock);
    bool same = pl->nmig == smp->mig_count;
    for (unsigned i = 0; same && i < smp->mig_count; i++)
        same = pl->mig_parent[i] == smp->migs[i].gpu &&
               strcmp(pl->mig_uuids[i], smp->migs[i].uuid) == 0;
    if (!same) {
        free(pl->mig_uuids);
        free(pl->mig_parent);
        pl->nmig = smp->mig_count;
        pl->mig_uuids = xcalloc(pl->nmig ? pl->nmig : 1, sizeof *pl->mig_uuids);
        pl->mig_parent = xcalloc(pl->nmig ? pl->nmig : 1, sizeof *pl->mig_parent);
        for (unsigned i = 0; i < pl->nmig; i++) {
            snprintf(pl->mig_uuids[i], sizeof pl->mig_uuids[i], "%s", smp->migs[i].uuid);
            pl->mig_parent[i] = smp->migs[i].gpu;
        }
        pl->mig_gen++;
    }
    pthread_mutex_unlock(&pl->mig_lock);
}

gw_sink gw_pod_labels_as_sink(gw_pod_labels *pl)
{
    return (gw_sink){.ctx = pl, .on_sample = on_sample};
}

static void free_base(gw_pod_labels *pl)
{
    for (unsigned i = 0; i < pl->nbase; i++)
        free(pl->base[i]);
    free(pl->base);
    pl->base = NULL;
    pl->nbase = 0;
}

void gw_pod_labels_free(gw_pod_labels *pl)
{
    if (!pl)
        return;
    free_base(pl);
    gw_pod_map_free(&pl->map);
    free(pl->mig_uuids);
    free(pl->mig_parent);
    pthread_mutex_destroy(&pl->mig_lock);
    free(pl);
}

static void holder_labels(gw_buf *b, const gw_pod_alloc *a)
{
    gw_buf_puts(b, "pod=\"");
    gw_prom_escape_label(b, a->pod);
    gw_buf_puts(b, "\",namespace=\"");
    gw_prom_escape_label(b, a->namespace_);
    gw_buf_puts(b, "\",container=\"");
    gw_prom_escape_label(b, a->container);
    gw_buf_puts(b, "\"");
}

bool gw_pod_labels_update(gw_pod_labels *pl, const gw_prom_snapshot *snap, char **labels,
                          unsigned n, bool devices_changed)
{
    if (devices_changed || pl->nbase != n) {
        free_base(pl);
        pl->base = xcalloc(n ? n : 1, sizeof *pl->base);
        pl->nbase = n;
        for (unsigned i = 0; i < n; i++)
            pl->base[i] = xstrdup(labels[i]);
    }
    const char **uuids = xcalloc(n ? n : 1, sizeof *uuids);
    for (unsigned i = 0; i < n && i < snap->ndev; i++)
        uuids[i] = snap->devs[i].uuid;
    /* MIG devices whose parent is one of ours, by position */
    pthread_mutex_lock(&pl->mig_lock);
    const char **mig_ids = xcalloc(pl->nmig ? pl->nmig : 1, sizeof *mig_ids);
    unsigned *mig_dev = xcalloc(pl->nmig ? pl->nmig : 1, sizeof *mig_dev);
    gw_pod_migs migs = {0, mig_ids, mig_dev};
    for (unsigned m = 0; m < pl->nmig; m++) {
        for (unsigned i = 0; i < n && i < snap->ndev; i++) {
            if (snap->devs[i].index == pl->mig_parent[m]) {
                mig_ids[migs.n] = pl->mig_uuids[m];
                mig_dev[migs.n++] = i;
                break;
            }
        }
    }
    bool force = devices_changed || pl->mig_seen != pl->mig_gen;
    pl->mig_seen = pl->mig_gen;
    bool rebuilt = gw_pod_watch_map(pl->watch, uuids, n, &migs, force, &pl->map);
    pthread_mutex_unlock(&pl->mig_lock);
    free(mig_ids);
    free(mig_dev);
    free(uuids);
    if (!rebuilt && !devices_changed)
        return false;
    bool changed = false;
    for (unsigned i = 0; i < n; i++) {
        gw_buf b = {0};
        gw_buf_puts(&b, pl->base[i]);
        const gw_pod_alloc *a = gw_pod_map_only(&pl->map, i);
        if (a) {
            gw_buf_puts(&b, ",");
            holder_labels(&b, a);
        }
        if (!b.data)
            b.data = xstrdup("");
        if (strcmp(b.data, labels[i]) != 0)
            changed = true;
        free(labels[i]);
        labels[i] = b.data;
    }
    return changed || devices_changed;
}

void gw_pod_labels_render(const gw_pod_labels *pl, gw_buf *b, gw_prom_format f,
                          const gw_prom_snapshot *snap)
{
    (void)f;                      /* both are gauges, written the same in text and OpenMetrics */
    gw_pod_watch_poke(pl->watch); /* a scrape: the watcher may ask the kubelet again */
    if (pl->map.n) {
        gw_buf_puts(b, "# HELP gpuwatch_gpu_allocated 1 for each pod container the kubelet "
                       "allocated the GPU (or one of its MIG devices) to\n"
                       "# TYPE gpuwatch_gpu_allocated gauge\n");
        for (size_t i = 0; i < pl->map.n; i++) {
            const gw_pod_alloc *a = &pl->map.allocs[i];
            if (a->dev >= snap->ndev)
                continue;
            gw_buf_printf(b, "gpuwatch_gpu_allocated{gpu=\"%u\",UUID=\"", snap->devs[a->dev].index);
            gw_prom_escape_label(b, snap->devs[a->dev].uuid);
            gw_buf_puts(b, "\",");
            holder_labels(b, a);
            gw_buf_puts(b, "} 1\n");
        }
    }
    gw_buf_printf(b,
                  "# HELP gpuwatch_pod_resources_up 1 when the kubelet's pod-resources API "
                  "answered the last List call, else 0\n"
                  "# TYPE gpuwatch_pod_resources_up gauge\n"
                  "gpuwatch_pod_resources_up %d\n",
                  pl->map.generation && pl->map.up ? 1 : 0);
}
