/* podres_dl: finds and dlopens gpuwatch-podres.so, once (podres_dl.h). */
#include "k8s/podres_dl.h"

#include "util/gw_file.h"
#include "util/gw_dl.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GW_PODRES_MODULE "gpuwatch-podres.so"

static gw_dl_state state = GW_DL_STATE_INIT;
static gw_podres_api loaded;

/* What to do when no module is where it is looked for: this build made one (the binary was
 * copied away from it), or it could not (no gRPC when it was built). */
#ifdef GW_PODRES_BUILT
static const char not_found_fix[] =
    "install the package gpuwatch-kubernetes (apt-get install gpuwatch-kubernetes), or "
    "gpuwatch with cmake --install (lib/gpuwatch/modules/), or set GPUWATCH_PODRES_MODULE to "
    "the module of this build";
#else
static const char not_found_fix[] =
    "this gpuwatch was built without gRPC; install libgrpc-dev, libprotobuf-c-dev and "
    "protobuf-c-compiler and rebuild, or set GPUWATCH_PODRES_MODULE";
#endif

static void load_once(void)
{
    char dir[PATH_MAX], tried[3][PATH_MAX + 64];
    int ntried = 0;
    const char *env = getenv("GPUWATCH_PODRES_MODULE");
    gw_exe_dir(dir, sizeof dir);
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
        if (env && env[0] && !why[0])
            gw_dl_fail(&state,
                       "GPUWATCH_PODRES_MODULE names %s, which does not exist: unset it to use "
                       "the PodResources module installed with gpuwatch",
                       env);
        else if (why[0])
            gw_dl_fail(&state,
                       "cannot load the PodResources module (%s): install libgrpc29 and "
                       "libprotobuf-c1 (apt-get install libgrpc29 libprotobuf-c1)",
                       why);
        else
            gw_dl_fail(&state, "no PodResources module (%s) at %s%s%s: %s", GW_PODRES_MODULE,
                       tried[0], ntried > 1 ? " or " : "", ntried > 1 ? tried[1] : "",
                       not_found_fix);
        return;
    }
    const char *missing = NULL;
    gw_podres_abi_fn abi = NULL;
#define GW_FILL(slot, name) gw_dl_fill(dlsym(lib, name), &slot, sizeof slot, name, &missing)
    GW_FILL(abi, "gw_podres_module_abi");
    GW_FILL(loaded.list, "gw_podres_module_list");
    GW_FILL(loaded.free_list, "gw_podres_module_free");
#undef GW_FILL
    if (missing || abi() != GW_PODRES_ABI) {
        gw_dl_fail(&state,
                   "the PodResources module %s is not from this gpuwatch (%s%s): reinstall "
                   "gpuwatch so that both come from one build",
                   GW_PODRES_MODULE, missing ? "it lacks " : "another ABI", missing ? missing : "");
    }
}

gw_rc gw_podres_load(gw_podres_api *api, gw_error *err)
{
    gw_rc rc = gw_dl_load(&state, load_once, err);
    if (rc)
        return rc;
    *api = loaded;
    return GW_OK;
}
