/*
 * podres_abi: the plain C interface between gpuwatch and its PodResources module
 * (gpuwatch-podres.so, src/k8s/module/podres_module.c), which links gRPC and protobuf-c so that
 * gpuwatch itself does not (docs/kubernetes.md, "Why a module").
 *
 * Owns: the entry points' names and types and GW_PODRES_ABI, which changes whenever they do; the
 * loader (podres_dl.c) refuses a module of another ABI.
 *
 * Must not: use gpuwatch's own types (the module is built apart from gwcore).
 */
#ifndef GW_PODRES_ABI_H
#define GW_PODRES_ABI_H

#include <stddef.h>

#define GW_PODRES_ABI 1

/* One device id a container holds, as the kubelet's List answered it. */
typedef struct gw_podres_device {
    char *pod, *namespace_, *container;
    char *resource;  /* "nvidia.com/gpu", "nvidia.com/mig-1g.18gb", ... (not filtered) */
    char *device_id; /* "GPU-...", "MIG-...", "GPU-...::1" (time-slicing replicas) */
} gw_podres_device;

typedef struct gw_podres_list {
    size_t n;
    gw_podres_device *devs; /* [n] */
} gw_podres_list;

/* int gw_podres_module_abi(void): GW_PODRES_ABI of the module. */
typedef int (*gw_podres_abi_fn)(void);
/* int gw_podres_module_list(socket_path, deadline_ms, out, err, errlen): calls List on the unix
 * socket with a deadline; 0 and *out filled, or -1 and a one-line reason in err. */
typedef int (*gw_podres_list_fn)(const char *socket_path, int deadline_ms, gw_podres_list *out,
                                 char *err, size_t errlen);
/* void gw_podres_module_free(list): frees what list holds and zeroes it. */
typedef void (*gw_podres_free_fn)(gw_podres_list *list);

#endif
