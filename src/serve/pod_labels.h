/*
 * pod_labels: `serve --kubernetes`: dcgm-exporter's pod, namespace and container labels on each
 * GPU's series, and gpuwatch_gpu_allocated, from the kubelet watcher (k8s/pod_watch.h).
 *
 * Owns: each GPU's label set without pod labels (the base the exporter built), the MIG devices of
 * the sampler's last slow read (its sink: "MIG-<uuid>" device ids name their parent through
 * them), and putting the
 * holder's labels after it: pod="...",namespace="...",container="..." when exactly one container
 * holds the GPU, none when no container or several do (gpuwatch_gpu_allocated lists them all).
 * Also the families gpuwatch_gpu_allocated{gpu,UUID,pod,namespace,container} (1 for each holder)
 * and gpuwatch_pod_resources_up (1 when the kubelet's last List answered, else 0).
 *
 * Must not: wait for the kubelet (the watcher's thread calls it), print, call NVML.
 */
#ifndef GW_POD_LABELS_H
#define GW_POD_LABELS_H

#include "k8s/pod_watch.h"
#include "prom/prom_store.h"
#include "prom/prom_text.h"
#include "sampler/sampler.h"
#include "util/gw_buf.h"

#include <stdbool.h>

typedef struct gw_pod_labels gw_pod_labels;

/* Borrows the watcher (it must outlive the result). */
gw_pod_labels *gw_pod_labels_new(gw_pod_watch *watch);
void gw_pod_labels_free(gw_pod_labels *pl);

/* The sink that keeps the MIG devices of each slow read (the sampler must list them:
 * gw_sampler_config.migs); add it before gw_sampler_start. */
gw_sink gw_pod_labels_as_sink(gw_pod_labels *pl);

/* After the exporter brought snap and labels[n] up to date: when its answer or the devices changed
 * (devices_changed: labels[] were just rebuilt from scratch), replaces labels[i] (malloc'd strings,
 * freed here) with the base plus the holder's labels. Returns true when any label set changed
 * (rendered text must be rendered again). */
bool gw_pod_labels_update(gw_pod_labels *pl, const gw_prom_snapshot *snap, char **labels,
                          unsigned n, bool devices_changed);

/* At each scrape, after an update: appends gpuwatch_gpu_allocated and gpuwatch_pod_resources_up,
 * and pokes the watcher (so the kubelet is asked at most once per scrape). */
void gw_pod_labels_render(const gw_pod_labels *pl, gw_buf *b, gw_prom_format f,
                          const gw_prom_snapshot *snap);

#endif
