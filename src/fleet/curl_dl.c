/* curl_dl: fills the libcurl table with dlsym, once (curl_dl.h). */
#define GW_CURL_DL_IMPL
#include "fleet/curl_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

gw_curl_api gw_curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static gw_rc load_rc = GW_OK;
static char load_msg[512];

static bool fill(void *lib, const char *name, void *slot, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return false;
    memcpy(slot, &p, size);
    return true;
}

static void load_once(void)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        load_rc = GW_E_NOTFOUND;
        snprintf(load_msg, sizeof load_msg,
                 "cannot load libcurl.so.4, which --fleet needs for a Prometheus URL (%s): "
                 "install libcurl4 (apt-get install libcurl4)",
                 dlerror());
        return;
    }
    const char *missing = NULL;
#define GW_FILL(f)                                                                                 \
    if (!missing && !fill(lib, #f, &gw_curl.f, sizeof gw_curl.f))                                  \
        missing = #f;
    GW_CURL_FUNCS(GW_FILL)
#undef GW_FILL
    if (missing) {
        load_rc = GW_E_NOTFOUND;
        snprintf(load_msg, sizeof load_msg,
                 "libcurl.so.4 lacks %s: install Debian's libcurl4 (7.88 or later)", missing);
    }
    /* curl_easy_init runs curl_global_init itself: one thread asks, once */
}

gw_rc gw_curl_load(gw_error *err)
{
    pthread_once(&once, load_once);
    if (load_rc)
        return gw_error_set(err, load_rc, "%s", load_msg);
    return GW_OK;
}
