#include "util/gw_json.h"

#include "util/gw_fmt.h"
#include "util/gw_time.h"

#include <math.h>

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
