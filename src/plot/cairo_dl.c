/* cairo_dl: fills the cairo/fontconfig table with dlsym, once (cairo_dl.h). */
#define GW_CAIRO_DL_IMPL
#include "plot/cairo_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

gw_cairo_api gw_cairo;

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
    void *cairo = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    void *fc = cairo ? dlopen("libfontconfig.so.1", RTLD_NOW | RTLD_LOCAL) : NULL;
    const char *missing = !cairo ? "libcairo.so.2" : !fc ? "libfontconfig.so.1" : NULL;
    if (missing) {
        load_rc = GW_E_NOTFOUND;
        snprintf(load_msg, sizeof load_msg,
                 "cannot load %s, which plots need (%s): install libcairo2 (apt-get install "
                 "libcairo2)",
                 missing, dlerror());
        return;
    }
#define GW_FILL(lib, f)                                                                            \
    if (!missing && !fill(lib, #f, &gw_cairo.f, sizeof gw_cairo.f))                                \
        missing = #f;
#define GW_FILL_CAIRO(f) GW_FILL(cairo, f)
#define GW_FILL_FC(f)    GW_FILL(fc, f)
    GW_CAIRO_FUNCS(GW_FILL_CAIRO)
    GW_FC_FUNCS(GW_FILL_FC)
#undef GW_FILL_FC
#undef GW_FILL_CAIRO
#undef GW_FILL
    if (missing) {
        load_rc = GW_E_NOTFOUND;
        snprintf(load_msg, sizeof load_msg,
                 "libcairo.so.2 or libfontconfig.so.1 lacks %s: install Debian's libcairo2 "
                 "(1.16 or later)",
                 missing);
    }
}

gw_rc gw_cairo_load(gw_error *err)
{
    pthread_once(&once, load_once);
    if (load_rc)
        return gw_error_set(err, load_rc, "%s", load_msg);
    return GW_OK;
}
