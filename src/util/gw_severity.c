/* The severity scale (see gw_severity.h). */
#include "util/gw_severity.h"

#include <string.h>

static const char *const names[] = {"info", "warning", "critical"};

const char *gw_severity_name(gw_severity s)
{
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}

int gw_severity_parse(const char *s)
{
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}
