/* Epoch line matcher (see epoch_match.h). */
#include "logread/epoch_match.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GROUPS = 16 };

struct gw_epoch_matcher {
    regex_t re;
};

/* "\d" -> "[0-9]"; every other escape is kept as written. */
static char *expand_digits(const char *re)
{
    size_t n = strlen(re);
    char *out = xmalloc(n * 5 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (re[i] == '\\' && re[i + 1] == 'd') {
            memcpy(out + o, "[0-9]", 5);
            o += 5;
            i++;
        } else if (re[i] == '\\' && re[i + 1] != '\0') {
            out[o++] = re[i++];
            out[o++] = re[i];
        } else {
            out[o++] = re[i];
        }
    }
    out[o] = '\0';
    return out;
}

gw_rc gw_epoch_matcher_new(const char *regex, gw_epoch_matcher **out, gw_error *err)
{
    const char *src = regex ? regex : GW_EPOCH_DEFAULT_REGEX;
    char *expanded = expand_digits(src);
    gw_epoch_matcher *m = xcalloc(1, sizeof *m);
    int rc = regcomp(&m->re, expanded, REG_EXTENDED | REG_ICASE);
    free(expanded);
    if (rc != 0) {
        char why[256];
        regerror(rc, &m->re, why, sizeof why);
        free(m);
        return gw_error_set(err, GW_E_USAGE, "epoch regex '%s': %s", src, why);
    }
    if (m->re.re_nsub == 0) {
        regfree(&m->re);
        free(m);
        return gw_error_set(err, GW_E_USAGE,
                            "epoch regex '%s' has no group: put the epoch number in "
                            "parentheses, e.g. 'Epoch ([0-9]+)'",
                            src);
    }
    *out = m;
    return GW_OK;
}

static bool all_digits(const char *s, regoff_t from, regoff_t to, long *value)
{
    if (from < 0 || to <= from || to - from > 9)
        return false;
    long v = 0;
    for (regoff_t i = from; i < to; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *value = v;
    return true;
}

bool gw_epoch_matcher_match(const gw_epoch_matcher *m, const char *line, long *epoch, long *total)
{
    regmatch_t g[MAX_GROUPS];
    if (regexec(&m->re, line, MAX_GROUPS, g, 0) != 0)
        return false;
    long found[2] = {-1, -1};
    int nfound = 0;
    size_t groups = m->re.re_nsub < MAX_GROUPS - 1 ? m->re.re_nsub : MAX_GROUPS - 1;
    for (size_t i = 1; i <= groups && nfound < 2; i++)
        if (all_digits(line, g[i].rm_so, g[i].rm_eo, &found[nfound]))
            nfound++;
    if (nfound == 0)
        return false;
    if (epoch)
        *epoch = found[0];
    if (total)
        *total = found[1];
    return true;
}

void gw_epoch_matcher_free(gw_epoch_matcher *m)
{
    if (!m)
        return;
    regfree(&m->re);
    free(m);
}
