/* job_meta: a run directory's meta.json "job" object (job_meta.h). */
#include "logread/job_meta.h"

#include "util/gw_file.h"
#include "util/gw_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

enum { JOB_META_MAX_BYTES = 4 << 20 };

bool gw_logread_job_of_meta(gw_job *j, const cJSON *meta)
{
    if (!gw_job_from_json(j, cJSON_GetObjectItemCaseSensitive(meta, "job")))
        return false;
    char **members[] = {&j->job_id, &j->step, &j->array_job_id, &j->array_task,
                        &j->node,   &j->user, &j->gpus_note};
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        char *was = *members[i];
        if (was) {
            *members[i] = gw_utf8_clean_dup(was);
            free(was);
        }
    }
    return true;
}

gw_rc gw_logread_job(const char *path, gw_job *j, gw_error *err)
{
    gw_job_from_json(j, NULL);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return GW_OK;
    char meta[4096];
    if (snprintf(meta, sizeof meta, "%s/meta.json", path) >= (int)sizeof meta)
        return GW_OK;
    FILE *f = gw_file_open_regular(meta, "r");
    if (!f)
        return GW_OK;
    char *buf = gw_file_read_all(f, JOB_META_MAX_BYTES);
    cJSON *doc = cJSON_Parse(buf);
    free(buf);
    if (!doc)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s is not JSON: write it again with gpuwatch run, or remove it to "
                            "read the directory without its job",
                            meta);
    gw_logread_job_of_meta(j, doc);
    cJSON_Delete(doc);
    return GW_OK;
}
