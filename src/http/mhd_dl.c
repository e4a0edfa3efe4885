/* mhd_dl: fills the libmicrohttpd table with dlsym, once (mhd_dl.h). */
#define GW_MHD_DL_IMPL
#include "http/mhd_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

gw_mhd_api gw_mhd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static gw_rc load_rc = GW_OK;
static char load_msg[512];

static void load_once(void)
{
    void *lib = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        load_rc = GW_E_NOTFOUND;
        snprintf(load_msg, sizeof load_msg,
                 "cannot load libmicrohttpd.so.12, which serving needs (%s): install "
                 "libmicrohttpd12 (apt-get install libmicrohttpd12)",
                 dlerror());
        return;
    }
    const char *missing = NULL;
#define GW_FILL(f)                                                                                 \
    if (!missing) {                                                                                \
        void *p = dlsym(lib, #f);                                                                  \
        if (p)                                                                                     \
            memcpy(&gw_mhd.f, &p, sizeof p);                                                       \
        else                                                                                       \
            missing = #f;                                                                          \
    }
    GW_MHD_FUNCS(GW_FILL)
#undef GW_FILL
    if (missing) {
        load_rc = GW_E_NOTFOUND;
        snprintf(load_msg, sizeof load_msg,
                 "libmicrohttpd.so.12 lacks %s: install Debian's libmicrohttpd12 (0.9.75 or "
                 "later)",
                 missing);
    }
}

gw_rc gw_mhd_load(gw_error *err)
{
    pthread_once(&once, load_once);
    if (load_rc)
        return gw_error_set(err, load_rc, "%s", load_msg);
    return GW_OK;
}
