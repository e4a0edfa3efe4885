/* cairo_dl: fills the cairo/fontconfig table with dlsym, once (cairo_dl.h). */
#define GW_CAIRO_DL_IMPL
#include "plot/cairo_dl.h"

#include "util/gw_dl.h"

#include <dlfcn.h>

gw_cairo_api gw_cairo;

static gw_dl_state state = GW_DL_STATE_INIT;

static void load_once(void)
{
    void *cairo = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    void *fc = cairo ? dlopen("libfontconfig.so.1", RTLD_NOW | RTLD_LOCAL) : NULL;
    const char *missing = !cairo ? "libcairo.so.2" : !fc ? "libfontconfig.so.1" : NULL;
    if (missing) {
        gw_dl_fail(&state,
                   "cannot load %s, which plots need (%s): install libcairo2 (apt-get install "
                   "libcairo2)",
                   missing, dlerror());
        return;
    }
#define GW_FILL(lib, f)  gw_dl_fill(dlsym(lib, #f), &gw_cairo.f, sizeof gw_cairo.f, #f, &missing);
#define GW_FILL_CAIRO(f) GW_FILL(cairo, f)
#define GW_FILL_FC(f)    GW_FILL(fc, f)
    GW_CAIRO_FUNCS(GW_FILL_CAIRO)
    GW_FC_FUNCS(GW_FILL_FC)
#undef GW_FILL_FC
#undef GW_FILL_CAIRO
#undef GW_FILL
    if (missing) {
        gw_dl_fail(&state,
                   "libcairo.so.2 or libfontconfig.so.1 lacks %s: install Debian's libcairo2 "
                   "(1.16 or later)",
                   missing);
    }
}

gw_rc gw_cairo_load(gw_error *err)
{
    return gw_dl_load(&state, load_once, err);
}
