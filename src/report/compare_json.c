/* compare: the JSON form (compare.h; schema in docs/compare.md). */
#include "report/compare.h"

#include "util/gw_json.h"

#include <math.h>

static cJSON *run_json(const gw_cmp_run *r)
{
    cJSON *o = cJSON_CreateObject();
    gw_json_add_str(o, "name", r->name);
    gw_json_add_str(o, "path", r->path);
    gw_json_add_num(o, "duration_s", r->duration_s, 3);
    cJSON_AddNumberToObject(o, "gpus", (double)r->ngpus);
    cJSON_AddNumberToObject(o, "epochs", (double)r->nepochs);
    if (r->lead) {
        cJSON *v = cJSON_AddObjectToObject(o, "verdict");
        gw_json_add_str(v, "id", gw_verdict_name(r->lead->id));
        gw_json_add_str(v, "severity", gw_severity_name(r->lead->severity));
        gw_json_add_str(v, "cause", r->lead->cause);
    } else {
        cJSON_AddNullToObject(o, "verdict");
    }
    cJSON *ms = cJSON_AddObjectToObject(o, "metrics");
    for (int m = 0; m < GW_CMP_COUNT; m++) {
        cJSON *x = cJSON_AddObjectToObject(ms, gw_cmp_metrics[m].key);
        gw_json_add_num(x, "value", r->value[m], 3);
        gw_json_add_num(x, "spread_pct", r->spread[m] * 100.0, 2);
        cJSON_AddNumberToObject(x, "parts", r->nparts[m]);
        gw_json_add_str(x, "spread_from",
                        !isfinite(r->spread[m]) ? NULL
                        : r->from_windows[m]    ? "steady_state_fifths"
                                                : "epochs");
    }
    return o;
}

cJSON *gw_cmp_json(const gw_cmp *c)
{
    cJSON *doc = gw_json_doc(1, "compare");
    gw_json_add_num(doc, "noise_k", GW_CMP_NOISE_K, 2);
    cJSON *runs = cJSON_AddArrayToObject(doc, "runs");
    for (size_t i = 0; i < c->nruns; i++)
        cJSON_AddItemToArray(runs, run_json(&c->runs[i]));
    cJSON *cmp = cJSON_AddArrayToObject(doc, "comparisons");
    for (size_t i = 1; i < c->nruns; i++) {
        cJSON *o = cJSON_CreateObject();
        gw_json_add_str(o, "run", c->runs[i].name);
        gw_json_add_str(o, "against", c->runs[0].name);
        cJSON *ms = cJSON_AddObjectToObject(o, "metrics");
        for (int m = 0; m < GW_CMP_COUNT; m++) {
            gw_cmp_diff d = gw_cmp_diff_of(c, i, m);
            cJSON *x = cJSON_AddObjectToObject(ms, gw_cmp_metrics[m].key);
            gw_json_add_num(x, "ratio", d.ratio, 3);
            if (d.beyond < 0)
                cJSON_AddNullToObject(x, "beyond_noise");
            else
                cJSON_AddBoolToObject(x, "beyond_noise", d.beyond == 1);
        }
        cJSON_AddItemToArray(cmp, o);
    }
    return doc;
}

gw_rc gw_cmp_write_json(const gw_cmp *c, const char *path, gw_error *err)
{
    cJSON *doc = gw_cmp_json(c);
    gw_rc rc = gw_json_write_path(doc, path, err);
    cJSON_Delete(doc);
    return rc;
}
