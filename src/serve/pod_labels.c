/* pod_labels: pod labels on the GPU series and gpuwatch_gpu_allocated (pod_labels.h). */
#include "serve/pod_labels.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct gw_pod_labels {
    gw_pod_watch *watch;
    gw_pod_map map;
    char **base; /* [nbase]: the exporter's label sets without pod labels */
    unsigned nbase;
};

gw_pod_labels *gw_pod_labels_new(gw_pod_watch *watch)
{
    gw_pod_labels *pl = xcalloc(1, sizeof *pl);
    pl->watch = watch;
    return pl;
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
    bool rebuilt = gw_pod_watch_map(pl->watch, uuids, n, devices_changed, &pl->map);
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
