/* podres_dl: finds and dlopens gpuwatch-podres.so, once (podres_dl.h). */
#include "k8s/podres_dl.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GW_PODRES_MODULE "gpuwatch-podres.so"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static gw_rc load_rc = GW_OK;
static char load_msg[2 * PATH_MAX + 1024];
static gw_podres_api loaded;

/* The directory of the running executable, or "" when /proc/self/exe cannot be read. */
static void exe_dir(char *dir, size_t len)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    dir[0] = '\0';
    if (n <= 0)
        return;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (slash)
        *slash = '\0';
    snprintf(dir, len, "%s", path);
}

static void *sym(void *lib, const char *name, const char **missing)
{
    void *p = dlsym(lib, name);
    if (!p && !*missing)
        *missing = name;
    return p;
}

static void load_once(void)
{
    char dir[PATH_MAX], tried[3][PATH_MAX + 64];
    int ntried = 0;
    const char *env = getenv("GPUWATCH_PODRES_MODULE");
    exe_dir(dir, sizeof dir);
    if (env && env[0]) {
        snprintf(tried[ntried++], sizeof tried[0], "%s", env);
    } else {
        snprintf(tried[ntried++], sizeof tried[0], "%s/../lib/gpuwatch/modules/%s", dir,
                 GW_PODRES_MODULE);
        snprintf(tried[ntried++], sizeof tried[0], "%s/%s", dir, GW_PODRES_MODULE);
    }
    void *lib = NULL;
    char why[512] = "";
    for (int i = 0; i < ntried && !lib; i++) {
        if (access(tried[i], F_OK) != 0)
            continue;
        lib = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            snprintf(why, sizeof why, "%s", dlerror());
    }
    if (!lib) {
        load_rc = GW_E_NOTFOUND;
        if (env && env[0] && !why[0])
            snprintf(load_msg, sizeof load_msg,
                     "GPUWATCH_PODRES_MODULE names %s, which does not exist: unset it to use "
                     "the PodResources module installed with gpuwatch",
                     env);
        else if (why[0])
            snprintf(load_msg, sizeof load_msg,
                     "cannot load the PodResources module (%s): install libgrpc29 and "
                     "libprotobuf-c1 (apt-get install libgrpc29 libprotobuf-c1)",
                     why);
        else
            snprintf(load_msg, sizeof load_msg,
                     "no PodResources module (%s) at %s%s%s: this gpuwatch was built without "
                     "gRPC; install libgrpc-dev, libprotobuf-c-dev and protobuf-c-compiler and "
                     "rebuild, or set GPUWATCH_PODRES_MODULE",
                     GW_PODRES_MODULE, tried[0], ntried > 1 ? " or " : "",
                     ntried > 1 ? tried[1] : "");
        return;
    }
    const char *missing = NULL;
    gw_podres_abi_fn abi = NULL;
    void *p = sym(lib, "gw_podres_module_abi", &missing);
    memcpy(&abi, &p, sizeof p);
    p = sym(lib, "gw_podres_module_list", &missing);
    memcpy(&loaded.list, &p, sizeof p);
    p = sym(lib, "gw_podres_module_free", &missing);
    memcpy(&loaded.free_list, &p, sizeof p);
    if (missing || abi() != GW_PODRES_ABI) {
        load_rc = GW_E_NOTFOUND;
        snprintf(load_msg, sizeof load_msg,
                 "the PodResources module %s is not from this gpuwatch (%s%s): reinstall "
                 "gpuwatch so that both come from one build",
                 GW_PODRES_MODULE, missing ? "it lacks " : "another ABI", missing ? missing : "");
    }
}

gw_rc gw_podres_load(gw_podres_api *api, gw_error *err)
{
    pthread_once(&once, load_once);
    if (load_rc)
        return gw_error_set(err, load_rc, "%s", load_msg);
    *api = loaded;
    return GW_OK;
}
