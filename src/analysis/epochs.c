/* The epoch list of a job (see epochs.h). */
#include "analysis/epochs.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t gw_epochs_build(const int64_t *t_ms, const long *number, const long *total, size_t n,
                       int64_t last_end_ms, gw_epoch **out)
{
    gw_epoch *e = NULL;
    size_t count = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        if (count > 0 && e[count - 1].number == number[i]) {
            if (e[count - 1].total < 0)
                e[count - 1].total = total[i];
            continue;
        }
        e = xgrow(e, &cap, count + 1, sizeof *e);
        if (count > 0)
            e[count - 1].end_ms = t_ms[i];
        e[count] = (gw_epoch){.number = number[i],
                              .total = total[i],
                              .start_ms = t_ms[i],
                              .validation_s = NAN,
                              .steps = -1,
                              .steps_per_s = NAN};
        count++;
    }
    if (count > 0)
        e[count - 1].end_ms =
            last_end_ms > e[count - 1].start_ms ? last_end_ms : e[count - 1].start_ms;
    *out = e;
    return count;
}
