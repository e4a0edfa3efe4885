/* The fake announces itself: gpuwatch's loader looks this symbol up in whatever library it loaded
 * (src/nvml/nvml_lib.c) and shows the line after its start message. Only a simulator exports it,
 * so gpuwatch never has to guess from the library's path. */
#include "state.h"

#include <stdio.h>
#include <stdlib.h>

FAKE_EXPORT const char *gpuwatch_nvml_banner(void);

const char *gpuwatch_nvml_banner(void)
{
    static char line[1024];
    const char *path = getenv("FAKE_NVML_SCENARIO");
    snprintf(line, sizeof line, "simulated GPU, fake NVML playing %s", path ? path : "");
    return line;
}
