/*
 * podres_dl: loads gpuwatch-podres.so, the kubelet PodResources client (podres_abi.h), once.
 *
 * Owns: where the module is looked for: $GPUWATCH_PODRES_MODULE when set, else beside the
 * executable's ../lib/gpuwatch/ (an installed gpuwatch), else beside the executable (the build
 * tree). Only `serve --kubernetes` calls it, so other commands never load gRPC (issue 16 measured
 * process start; docs/kubernetes.md says why a module).
 *
 * Must not: call the kubelet (pod_watch.c does).
 */
#ifndef GW_PODRES_DL_H
#define GW_PODRES_DL_H

#include "k8s/podres_abi.h"
#include "util/gw_error.h"

typedef struct gw_podres_api {
    gw_podres_list_fn list;
    gw_podres_free_fn free_list;
} gw_podres_api;

/* Fills api; GW_E_NOTFOUND with the places looked in and the fix when there is no usable module.
 * Thread-safe; the module stays loaded. */
GW_MUST_USE gw_rc gw_podres_load(gw_podres_api *api, gw_error *err);

#endif
