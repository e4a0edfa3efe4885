/* gw_dl: the shared part of the lazily loaded libraries' loaders (gw_dl.h). */
#include "util/gw_dl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

gw_rc gw_dl_load(gw_dl_state *s, void (*load)(void), gw_error *err)
{
    pthread_once(&s->once, load);
    if (s->rc)
        return gw_error_set(err, s->rc, "%s", s->msg);
    return GW_OK;
}

void gw_dl_fail(gw_dl_state *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    s->rc = GW_E_NOTFOUND;
}

bool gw_dl_fill(void *sym, void *slot, size_t size, const char *name, const char **missing)
{
    if (!sym) {
        if (!*missing)
            *missing = name;
        return false;
    }
    memcpy(slot, &sym, size);
    return true;
}
