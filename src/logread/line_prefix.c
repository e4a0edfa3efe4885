/* Prefixes of launchers and log collectors (see line_prefix.h). */
#include "logread/line_prefix.h"

#include "logread/timeparse.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/* "[rank12]:", "[default0]:" -> past them and one blank; NULL when line is not one. */
static const char *bracket_rank(const char *s)
{
    static const char *const words[] = {"rank", "default"};
    if (*s != '[')
        return NULL;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i]);
        const char *p = s + 1;
        if (strncmp(p, words[i], n) != 0 || !isdigit((unsigned char)p[n]))
            continue;
        p += n;
        while (isdigit((unsigned char)*p))
            p++;
        if (p[0] == ']' && p[1] == ':')
            return p + 2 + (p[2] == ' ');
    }
    return NULL;
}

/* Open MPI's --tag-output "[1,0]<stdout>:" / "<stderr>:" (SageMaker's "[1,mpirank:0,algo-1]"). */
static const char *mpi_tag(const char *s)
{
    if (*s != '[')
        return NULL;
    size_t n = strcspn(s, "] \t");
    if (n > 64 || s[n] != ']')
        return NULL;
    const char *p = s + n;
    if (strncmp(p, "]<stdout>:", 10) != 0 && strncmp(p, "]<stderr>:", 10) != 0)
        return NULL;
    return p + 10;
}

/* Ray's "(RayTrainWorker pid=1234) ", "(pid=1234, ip=10.0.0.1) ". */
static const char *ray_tag(const char *s)
{
    if (*s != '(')
        return NULL;
    const char *close = strchr(s, ')');
    if (!close || close - s > 120 || close[1] != ' ')
        return NULL;
    const char *pid = strstr(s, "pid=");
    if (!pid || pid > close || !isdigit((unsigned char)pid[4]) || (pid != s + 1 && pid[-1] != ' '))
        return NULL;
    return close + 2;
}

/* kubectl logs --prefix: "[pod/NAME/CONTAINER] ". */
static const char *pod_tag(const char *s)
{
    if (strncmp(s, "[pod/", 5) != 0)
        return NULL;
    const char *close = strchr(s, ']');
    if (!close || close[1] != ' ' || memchr(s, ' ', (size_t)(close - s)))
        return NULL;
    return close + 2;
}

/* A timestamp with a date and a clock at the start, optionally in brackets, with the blanks and
 * separators after it ("2024-05-01T10:00:00.123Z ", "[2024-05-01 10:00:00] "). Unix times (no
 * clock) stay: a number at a line's start is more often a counter. */
static const char *timestamp(const char *s)
{
    bool bracket = *s == '[';
    int64_t ms;
    size_t n = gw_timeparse(s + bracket, &ms);
    if (n == 0 || !memchr(s + bracket, ':', n))
        return NULL;
    const char *p = s + bracket + n;
    if (bracket) {
        if (*p != ']')
            return NULL;
        p++;
    }
    if (*p != ' ' && *p != '\t' && *p != '|' && *p != '-' && *p != ':')
        return NULL;
    /* a collector's RFC 3339 time ("2024-05-01T10:00:00.123Z ", docker's and kubectl's) is
     * followed by one blank and the line as printed (a table row's `|` stays); a logger's by its
     * separators */
    if (!bracket && memchr(s, 'T', n) && *p == ' ')
        return p + 1;
    return p + strspn(p, " \t:-|");
}

/* syslog's and moreutils `ts`'s default "May 01 10:00:00 " (no year), and journalctl's host and
 * process after it ("gpu-01 python[1234]: "). */
static const char *syslog_time(const char *s)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    bool month = false;
    for (size_t i = 0; i + 3 <= sizeof months - 1 && !month; i += 3)
        month = strncmp(s, months + i, 3) == 0;
    if (!month || s[3] != ' ')
        return NULL;
    const char *p = s + 4 + (s[4] == ' ');
    size_t d = strspn(p, "0123456789");
    if (d < 1 || d > 2 || p[d] != ' ')
        return NULL;
    p += d + 1;
    if (strspn(p, "0123456789") != 2 || p[2] != ':' || strspn(p + 3, "0123456789") != 2 ||
        p[5] != ':' || strspn(p + 6, "0123456789") != 2)
        return NULL;
    p += 8;
    if (*p == '.')
        p += 1 + strspn(p + 1, "0123456789");
    if (*p != ' ')
        return NULL;
    p++;
    /* journalctl: "host proc[pid]: " */
    const char *h = p + strcspn(p, " ");
    const char *b = *h ? strchr(h + 1, '[') : NULL;
    if (b && b < h + 1 + strcspn(h + 1, " ") && isdigit((unsigned char)b[1])) {
        const char *e = b + 1 + strspn(b + 1, "0123456789");
        if (e[0] == ']' && e[1] == ':' && e[2] == ' ')
            return e + 3;
    }
    return p;
}

/* The line's label of one of the repeated kinds, copied into out: "0: " (srun), "worker-0: "
 * (pdsh), "trainer-1  | " (compose): a name must end in a number after '-' or '_', so that a
 * trainer's own "Epoch: " is none. False when it has none. */
static bool label_of(const char *s, char *out, bool *digits)
{
    const char *p = s + strspn(s, " ");
    const char *w = p;
    while (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.')
        p++;
    if (p == w || p - s >= GW_LINE_PREFIX_MAX - 4)
        return false;
    size_t d = strspn(w, "0123456789");
    const char *end;
    if (p[0] == ':' && p[1] == ' ')
        end = p + 2;
    else {
        const char *b = p + strspn(p, " ");
        if (b == p || b[0] != '|' || b[1] != ' ')
            return false;
        end = b + 2;
    }
    *digits = w + d == p && d <= 5;
    if (!*digits) { /* a name: a service's or a host's, numbered ("trainer-1", "worker-0") */
        const char *q = p;
        while (q > w && isdigit((unsigned char)q[-1]))
            q--;
        if (q == p || q - 1 <= w || (q[-1] != '-' && q[-1] != '_'))
            return false;
    }
    memcpy(out, s, (size_t)(end - s));
    out[end - s] = '\0';
    return true;
}

/* Past an srun label "  12: " when st holds srun's kind. */
static const char *srun_label(const char *s)
{
    const char *p = s + strspn(s, " ");
    size_t d = strspn(p, "0123456789");
    return d && d <= 5 && p[d] == ':' && p[d + 1] == ' ' ? p + d + 2 : NULL;
}

const char *gw_line_prefix_skip(gw_line_prefix *st, const char *line)
{
    const char *s = line;
    bool labelled = false;
    static const char *(*const shapes[])(const char *) = {bracket_rank, mpi_tag,   ray_tag,
                                                          pod_tag,      timestamp, syslog_time};
    for (int round = 0; round < 4; round++) {
        const char *r = NULL;
        if (st->label[0] && !labelled) { /* one label a line: a round's `0:` after srun's stays */
            r = st->digits                                      ? srun_label(s)
                : strncmp(s, st->label, strlen(st->label)) == 0 ? s + strlen(st->label)
                                                                : NULL;
            labelled = r != NULL;
        }
        for (size_t i = 0; !r && i < sizeof shapes / sizeof *shapes; i++)
            r = shapes[i](s);
        if (!r)
            break;
        s = r;
    }
    if (st->label[0] || !*s)
        return s;
    char cand[GW_LINE_PREFIX_MAX];
    bool digits = false;
    if (!label_of(s, cand, &digits)) {
        st->cand[0] = '\0';
        st->run = 0;
        return s;
    }
    if (strcmp(cand, st->cand) == 0)
        st->run++;
    else {
        memcpy(st->cand, cand, sizeof cand);
        st->run = 1;
    }
    if (st->run < 2)
        return s;
    memcpy(st->label, cand, sizeof cand);
    st->digits = digits;
    return s + strlen(cand);
}
