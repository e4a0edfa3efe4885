/* curl_dl: fills the libcurl table with dlsym, once (curl_dl.h). */
#define GW_CURL_DL_IMPL
#include "fleet/curl_dl.h"

#include "util/gw_dl.h"

#include <dlfcn.h>

gw_curl_api gw_curl;

static gw_dl_state state = GW_DL_STATE_INIT;

static void load_once(void)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        gw_dl_fail(&state,
                   "cannot load libcurl.so.4, which --fleet needs for a Prometheus URL (%s): "
                   "install libcurl4 (apt-get install libcurl4)",
                   dlerror());
        return;
    }
    const char *missing = NULL;
#define GW_FILL(f) gw_dl_fill(dlsym(lib, #f), &gw_curl.f, sizeof gw_curl.f, #f, &missing);
    GW_CURL_FUNCS(GW_FILL)
#undef GW_FILL
    if (missing) {
        gw_dl_fail(&state, "libcurl.so.4 lacks %s: install Debian's libcurl4 (7.88 or later)",
                   missing);
    }
    /* curl_easy_init runs curl_global_init itself: one thread asks, once */
}

gw_rc gw_curl_load(gw_error *err)
{
    return gw_dl_load(&state, load_once, err);
}
