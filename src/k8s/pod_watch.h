/*
 * pod_watch: which Kubernetes pod, namespace and container hold each GPU, from the kubelet's
 * PodResources v1 List (through gpuwatch-podres.so, podres_dl.h), for `serve --kubernetes`.
 *
 * Owns: a background thread that calls List, so that a scrape never waits for the kubelet: once
 * at start, then once after each scrape (gw_pod_watch_poke), never more often than min_gap_ms;
 * each call has a deadline. When the kubelet cannot be reached (no socket, refused, deadline,
 * bad answer): one warning line through `say`, no holders (series lose their pod labels), retries
 * after 1, 2, 4 ... up to max_backoff_ms, and one line when it answers again. Also owns the
 * mapping of device ids to GPUs (gw_pod_map_build): resources nvidia.com/gpu and nvidia.com/mig-*;
 * ids "GPU-<uuid>", "GPU-<uuid>::N" (time-slicing replicas, as dcgm-exporter strips them) and the
 * old MIG form "MIG-GPU-<uuid>/GI/CI" map to that GPU; the current MIG form "MIG-<uuid>" maps to
 * the parent the caller's MIG table names (from NVML, through the sampler), else to none.
 *
 * Must not: print (the caller's `say` does), block a caller on the kubelet, call NVML.
 */
#ifndef GW_POD_WATCH_H
#define GW_POD_WATCH_H

#include "k8s/podres_abi.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_POD_RESOURCES_SOCKET "/var/lib/kubelet/pod-resources/kubelet.sock"

typedef struct gw_pod_watch gw_pod_watch;

typedef void gw_pod_say_fn(void *ctx, const char *line);

typedef struct gw_pod_watch_config {
    const char *socket;     /* NULL = GW_POD_RESOURCES_SOCKET */
    int deadline_ms;        /* 0 = 5000: one List call's deadline */
    int64_t min_gap_ms;     /* 0 = 1000: the shortest time between two calls */
    int64_t max_backoff_ms; /* 0 = 30000: the longest wait between retries */
    gw_pod_say_fn *say;     /* one line, no newline (may be NULL) */
    void *say_ctx;
} gw_pod_watch_config;

/* MIG devices and their parents: uuids[i] ("MIG-...") is on GPU dev[i] (a position in the uuids
 * given with it). */
typedef struct gw_pod_migs {
    unsigned n;
    const char *const *uuids;
    const unsigned *dev;
} gw_pod_migs;

/* One container holding a GPU. */
typedef struct gw_pod_alloc {
    unsigned dev; /* position in the uuids given to gw_pod_map_build */
    char *pod, *namespace_, *container;
} gw_pod_alloc;

/* The holders of the GPUs, each (dev, pod, namespace, container) once, ordered by dev. */
typedef struct gw_pod_map {
    uint64_t generation; /* the watch's generation it was built from; 0 = never built */
    bool up;             /* the last List call answered */
    size_t n;
    gw_pod_alloc *allocs; /* [n] */
} gw_pod_map;

/* Loads the module (GW_E_NOTFOUND with the fix when it is missing), starts the thread and its
 * first call; does not wait for it. */
GW_MUST_USE gw_rc gw_pod_watch_start(const gw_pod_watch_config *cfg, gw_pod_watch **out,
                                     gw_error *err);

/* A scrape happened: the thread calls List again when min_gap_ms (or the backoff) allows. */
void gw_pod_watch_poke(gw_pod_watch *w);

/* Rebuilds map for the GPUs uuids[ndev] (and their MIG devices, migs may be NULL) when the watch
 * has a newer answer than map->generation, or always when force. Returns true when it rebuilt.
 * Never waits for the kubelet. */
bool gw_pod_watch_map(gw_pod_watch *w, const char *const *uuids, unsigned ndev,
                      const gw_pod_migs *migs, bool force, gw_pod_map *map);

/* List calls made so far (answered or not). */
uint64_t gw_pod_watch_calls(gw_pod_watch *w);

/* Stops the thread (waiting for a call in flight, at most its deadline) and frees. NULL is
 * accepted. */
void gw_pod_watch_stop(gw_pod_watch *w);

/* map's holders from a List answer (see the mapping above; migs may be NULL); replaces what map
 * held, keeps its generation. */
void gw_pod_map_build(const gw_podres_list *list, const char *const *uuids, unsigned ndev,
                      const gw_pod_migs *migs, gw_pod_map *map);

/* The one holder of GPU dev, or NULL when it has none or several (MIG devices or time-slicing
 * replicas given to different containers). */
const gw_pod_alloc *gw_pod_map_only(const gw_pod_map *map, unsigned dev);

void gw_pod_map_free(gw_pod_map *map);

#endif
