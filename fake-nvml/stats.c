/* Call counters and the $FAKE_NVML_STATS file; see stats.h. */
#include "stats.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_CALL_NAME(name, ...) #name,
static const char *const call_names[FC_COUNT] = {FAKE_CALLS(FAKE_CALL_NAME)};
#undef FAKE_CALL_NAME

static atomic_ulong call_counts[FC_COUNT];

/* The process that loaded the library: the only one allowed to write the file. */
static pid_t owner_pid;

void fake_stats_count(fake_call_id id)
{
    atomic_fetch_add_explicit(&call_counts[id], 1, memory_order_relaxed);
}

static char *stats_json(void)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *calls = cJSON_AddObjectToObject(root, "calls");
    for (int i = 0; i < FC_COUNT; i++) {
        unsigned long n = atomic_load_explicit(&call_counts[i], memory_order_relaxed);
        cJSON_AddNumberToObject(calls, call_names[i], (double)n);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

void fake_stats_write(void)
{
    const char *path = getenv("FAKE_NVML_STATS");
    if (!path || !*path || getpid() != owner_pid)
        return;
    char *text = stats_json();
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = (text && n > 0 && (size_t)n < sizeof tmp) ? fopen(tmp, "w") : NULL;
    bool ok = f != NULL;
    if (f) {
        ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
        ok = (fclose(f) == 0) && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            remove(tmp);
    }
    if (!ok)
        fprintf(stderr,
                "fake-nvml: cannot write the call counts to FAKE_NVML_STATS=%s (%s): point it at "
                "a writable file\n",
                path, strerror(errno));
    cJSON_free(text);
}

__attribute__((constructor)) static void stats_loaded(void)
{
    owner_pid = getpid();
}

/* Runs when the process exits and when the library is dlclose()d: the counts of a process that
 * never called nvmlShutdown (killed by its own exit path, or a test that forgot) still reach the
 * file. */
__attribute__((destructor)) static void stats_unloaded(void)
{
    fake_stats_write();
}
