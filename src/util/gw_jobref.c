/* gw_jobref: the "job" object of meta.json and summary.json read into C values (gw_jobref.h). */
#include "util/gw_jobref.h"

#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsString(v) && v->valuestring && *v->valuestring)
        return gw_utf8_clean_dup(v->valuestring);
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) { /* a job id written as a number */
        char buf[32];
        snprintf(buf, sizeof buf, "%.0f", v->valuedouble);
        return xstrdup(buf);
    }
    return NULL;
}

static long id_of(const cJSON *v)
{
    if (cJSON_IsString(v) && v->valuestring && *v->valuestring) { /* "3" from an environment */
        char *end;
        long n = strtol(v->valuestring, &end, 10);
        return *end == '\0' && n >= 0 && n <= 1000000000L ? n : -1;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e9))
        return -1;
    return (long)v->valuedouble;
}

void gw_jobref_read(gw_jobref *r, const cJSON *job)
{
    memset(r, 0, sizeof *r);
    r->rank = r->local_rank = r->world_size = -1;
    if (!cJSON_IsObject(job))
        return;
    r->present = true;
    r->scheduler = str_of(job, "scheduler");
    r->job_id = str_of(job, "job_id");
    r->step = str_of(job, "step");
    r->array_job_id = str_of(job, "array_job_id");
    r->array_task = str_of(job, "array_task");
    r->node = str_of(job, "node");
    r->user = str_of(job, "user");
    r->rank = id_of(cJSON_GetObjectItemCaseSensitive(job, "rank"));
    r->local_rank = id_of(cJSON_GetObjectItemCaseSensitive(job, "local_rank"));
    r->world_size = id_of(cJSON_GetObjectItemCaseSensitive(job, "world_size"));
    if (r->world_size == 0)
        r->world_size = -1; /* no job has 0 ranks: absent */
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(job, "gpus");
    if (!cJSON_IsArray(gpus))
        return;
    r->has_gpus = true;
    r->gpus = xcalloc((size_t)cJSON_GetArraySize(gpus) + 1, sizeof *r->gpus);
    const cJSON *g;
    cJSON_ArrayForEach(g, gpus)
    {
        long idx = id_of(g);
        if (idx >= 0 && idx < 100000)
            r->gpus[r->ngpus++] = (int)idx;
    }
}

void gw_jobref_free(gw_jobref *r)
{
    free(r->scheduler);
    free(r->job_id);
    free(r->step);
    free(r->array_job_id);
    free(r->array_task);
    free(r->node);
    free(r->user);
    free(r->gpus);
    memset(r, 0, sizeof *r);
    r->rank = r->local_rank = r->world_size = -1;
}

bool gw_jobref_has_gpu(const gw_jobref *r, int index)
{
    if (!r->has_gpus)
        return true;
    for (size_t i = 0; i < r->ngpus; i++)
        if (r->gpus[i] == index)
            return true;
    return false;
}
