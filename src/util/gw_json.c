#include "util/gw_json.h"

#include "util/gw_fmt.h"
#include "util/gw_time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void gw_json_add_num(cJSON *o, const char *key, double v, int decimals)
{
    if (!gw_fmt_sane(v)) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    if (decimals >= 0) {
        double scale = pow(10.0, decimals);
        v = round(v * scale) / scale;
    }
    cJSON_AddNumberToObject(o, key, v);
}

void gw_json_add_str(cJSON *o, const char *key, const char *s)
{
    if (s && *s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

void gw_json_add_time(cJSON *o, const char *key, int64_t wall_ms)
{
    if (wall_ms > 0) {
        char buf[GW_RFC3339_LEN];
        cJSON_AddStringToObject(o, key, gw_rfc3339_ms(wall_ms, buf));
    } else {
        cJSON_AddNullToObject(o, key);
    }
}

cJSON *gw_json_doc(int schema_version, const char *kind)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", schema_version);
    cJSON_AddStringToObject(root, "gpuwatch_version", GPUWATCH_VERSION);
    if (kind)
        cJSON_AddStringToObject(root, "kind", kind);
    return root;
}

gw_rc gw_json_write_out(const cJSON *doc, gw_file_out *out, gw_error *err)
{
    char *text = cJSON_Print(doc);
    if (!text)
        abort();
    fputs(text, out->f);
    fputc('\n', out->f);
    cJSON_free(text);
    return gw_file_out_commit(out, err);
}

gw_rc gw_json_write_path(const cJSON *doc, const char *path, gw_error *err)
{
    gw_file_out out;
    gw_rc rc = gw_file_out_open_path(&out, path, err);
    return rc ? rc : gw_json_write_out(doc, &out, err);
}
