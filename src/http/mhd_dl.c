/* mhd_dl: fills the libmicrohttpd table with dlsym, once (mhd_dl.h). */
#define GW_MHD_DL_IMPL
#include "http/mhd_dl.h"

#include "util/gw_dl.h"

#include <dlfcn.h>

gw_mhd_api gw_mhd;

static gw_dl_state state = GW_DL_STATE_INIT;

static void load_once(void)
{
    void *lib = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        gw_dl_fail(&state,
                   "cannot load libmicrohttpd.so.12, which serving needs (%s): install "
                   "libmicrohttpd12 (apt-get install libmicrohttpd12)",
                   dlerror());
        return;
    }
    const char *missing = NULL;
#define GW_FILL(f) gw_dl_fill(dlsym(lib, #f), &gw_mhd.f, sizeof gw_mhd.f, #f, &missing);
    GW_MHD_FUNCS(GW_FILL)
#undef GW_FILL
    if (missing) {
        gw_dl_fail(&state,
                   "libmicrohttpd.so.12 lacks %s: install Debian's libmicrohttpd12 (0.9.75 or "
                   "later)",
                   missing);
    }
}

gw_rc gw_mhd_load(gw_error *err)
{
    return gw_dl_load(&state, load_once, err);
}
