/* Reading why a job died from the end of its output (see crash.h). */
#include "analysis/crash.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct unit {
    const char *name;
    double mib;
} unit;

static const unit units[] = {
    {"bytes", 1.0 / 1048576},
    {"KiB", 1.0 / 1024},
    {"MiB", 1},
    {"GiB", 1024},
    {"TiB", 1048576},
    {"KB", 1e3 / 1048576},
    {"MB", 1e6 / 1048576},
    {"GB", 1e9 / 1048576},
    {"TB", 1e12 / 1048576},
    {"B", 1.0 / 1048576},
};

double gw_crash_size_mib(const char *s)
{
    char *end = NULL;
    if (!s || !isdigit((unsigned char)*s))
        return NAN;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t n = strlen(units[i].name);
        if (strncmp(end, units[i].name, n) == 0 && !isalpha((unsigned char)end[n]))
            return v * units[i].mib;
    }
    return NAN;
}

/* The size right after the first `prefix` in line; NAN when absent. */
static double size_after(const char *line, const char *prefix)
{
    const char *p = strstr(line, prefix);
    return p ? gw_crash_size_mib(p + strlen(prefix)) : NAN;
}

/* The size written right before the first `suffix` ("14.56 GiB already allocated"). */
static double size_before(const char *line, const char *suffix)
{
    const char *p = strstr(line, suffix);
    if (!p)
        return NAN;
    const char *q = p;
    while (q > line && q[-1] == ' ')
        q--;
    while (q > line && isalpha((unsigned char)q[-1])) /* the unit */
        q--;
    while (q > line && q[-1] == ' ')
        q--;
    while (q > line && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
        q--;
    return gw_crash_size_mib(q);
}

static void copy_line(char *dst, const char *line)
{
    size_t n = strnlen(line, GW_CRASH_LINE_MAX - 1);
    memcpy(dst, line, n);
    dst[n] = '\0';
}

static const char *oom_source(const char *line)
{
    if (strstr(line, "CUDA out of memory") || strstr(line, "OutOfMemoryError:"))
        return "pytorch";
    if (strstr(line, "OOM when allocating"))
        return "tensorflow";
    if (strstr(line, "RESOURCE_EXHAUSTED") && strcasestr(line, "out of memory"))
        return "jax";
    if (strstr(line, "cudaErrorMemoryAllocation") || strstr(line, "CUBLAS_STATUS_ALLOC_FAILED") ||
        strstr(line, "CUDA error: out of memory") || strstr(line, "CUDA_ERROR_OUT_OF_MEMORY"))
        return "cuda";
    if (strcasestr(line, "out of memory"))
        return "other";
    return NULL;
}

static void read_oom(const char *line, const char *source, gw_crash_text *c)
{
    c->oom = true;
    c->oom_source = source;
    const char *advice = strstr(line, ". If "); /* PyTorch's advice follows the facts */
    size_t n = advice ? (size_t)(advice - line) + 1 : strlen(line);
    if (n > GW_CRASH_LINE_MAX - 1)
        n = GW_CRASH_LINE_MAX - 1;
    memcpy(c->oom_line, line, n);
    c->oom_line[n] = '\0';
    c->tried_mib = size_after(line, "Tried to allocate ");
    if (isnan(c->tried_mib))
        c->tried_mib = size_after(line, "trying to allocate ");
    c->capacity_mib = size_before(line, " total capacity");
    if (isnan(c->capacity_mib))
        c->capacity_mib = size_after(line, "has a total capacity of ");
    c->allocated_mib = size_before(line, " already allocated");
    if (isnan(c->allocated_mib))
        c->allocated_mib = size_after(line, "Of the allocated memory ");
    c->free_mib = size_after(line, "of which ");
    if (isnan(c->free_mib))
        c->free_mib = size_before(line, " free;");
    if (isnan(c->free_mib))
        c->free_mib = size_before(line, " free)");
    c->reserved_mib = size_before(line, " reserved in total");
    c->reserved_unallocated_mib = size_before(line, " is reserved by PyTorch but unallocated");
    c->process_mib = size_after(line, "this process has ");
    const char *g = strstr(line, "GPU ");
    c->cuda_device = g && isdigit((unsigned char)g[4]) ? atoi(g + 4) : -1;
}

static void read_nccl(const char *line, gw_crash_text *c)
{
    c->nccl_timeout = true;
    copy_line(c->nccl_line, line);
    const char *t = strstr(line, "Timeout(ms)=");
    c->nccl_timeout_ms = t ? strtod(t + 12, NULL) : NAN;
    const char *op = strstr(line, "OpType=");
    c->nccl_op[0] = '\0';
    if (op) {
        op += 7;
        size_t n = 0;
        while (n + 1 < sizeof c->nccl_op && (isalnum((unsigned char)op[n]) || op[n] == '_'))
            n++;
        memcpy(c->nccl_op, op, n);
        c->nccl_op[n] = '\0';
    }
}

/* 2: PyTorch's watchdog line (it names the operation and the timeout), 1: another NCCL line that
 * speaks of a timeout, 0: neither. */
static int nccl_timeout_rank(const char *line)
{
    if (strstr(line, "Watchdog caught collective operation timeout"))
        return 2;
    return strstr(line, "NCCL") && (strcasestr(line, "timeout") || strcasestr(line, "timed out"));
}

/* "ValueError: ...", "torch.OutOfMemoryError: ...", "AssertionError": a dotted name ending in
 * Error or Exception, then ':' or the end of the line. */
static bool is_exception_line(const char *line)
{
    size_t n = 0;
    while (isalnum((unsigned char)line[n]) || line[n] == '_' || line[n] == '.')
        n++;
    if (n == 0 || (line[n] != ':' && line[n] != '\0'))
        return false;
    return (n >= 5 && strncmp(line + n - 5, "Error", 5) == 0) ||
           (n >= 9 && strncmp(line + n - 9, "Exception", 9) == 0);
}

static void scan_line(const char *line, gw_crash_text *c)
{
    const char *text = line;
    while (*text == ' ' || *text == '\t')
        text++;
    if (!*text)
        return;
    copy_line(c->last_line, text);
    const char *source = oom_source(text);
    /* Code lines of a traceback (indented) quote the source, not what happened. */
    if (source && text == line)
        read_oom(text, source, c);
    int rank = nccl_timeout_rank(text);
    if (rank && (rank == 2 || !c->nccl_watchdog)) {
        read_nccl(text, c);
        c->nccl_watchdog = rank == 2;
    }
    if (strncmp(text, "KeyboardInterrupt", 17) == 0)
        c->interrupted = true;
    if (text == line && is_exception_line(text))
        copy_line(c->last_error, text);
}

void gw_crash_scan(const char *text, gw_crash_text *out)
{
    memset(out, 0, sizeof *out);
    out->tried_mib = out->capacity_mib = out->allocated_mib = out->free_mib = NAN;
    out->reserved_mib = out->reserved_unallocated_mib = out->process_mib = NAN;
    out->nccl_timeout_ms = NAN;
    out->cuda_device = -1;
    char line[4200];
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        scan_line(line, out);
        p = nl ? nl + 1 : NULL;
    }
}
