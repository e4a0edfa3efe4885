#include "gw_error.h"

#include <stdarg.h>
#include <stdio.h>

gw_rc gw_error_set(gw_error *err, gw_rc rc, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        unsigned char *m = (unsigned char *)err->msg;
        for (size_t i = 0; m[i]; i++) {
            if (m[i] == 0xc2 && m[i + 1] >= 0x80 && m[i + 1] <= 0x9f) { /* C1 (CSI) in UTF-8 */
                m[i] = '?';
                m[++i] = '?';
            } else if (m[i] < 0x20 || m[i] == 0x7f) {
                m[i] = '?';
            }
        }
        err->rc = rc;
    }
    return rc;
}

void gw_error_clear(gw_error *err)
{
    if (err) {
        err->rc = GW_OK;
        err->msg[0] = '\0';
    }
}

const char *gw_rc_str(gw_rc rc)
{
    switch (rc) {
    case GW_OK:
        return "success";
    case GW_E_USAGE:
        return "usage error";
    case GW_E_IO:
        return "I/O error";
    case GW_E_NVML:
        return "NVML error";
    case GW_E_FORMAT:
        return "format error";
    case GW_E_NOTFOUND:
        return "not found";
    case GW_E_EXISTS:
        return "already exists";
    case GW_E_SYSTEM:
        return "system error";
    case GW_E_INTERNAL:
        return "internal error";
    }
    return "unknown error";
}
