/* --help texts fitted to 80 columns (commands.h). */
#include "cli/commands.h"

#include "util/gw_wrap.h"

#include <stdlib.h>

void gw_cli_help(const char *text)
{
    gw_wrap_puts(text, stdout);
}

void gw_cli_help_with(void (*write_help)(FILE *to))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) { /* out of memory: unwrapped rather than nothing */
        write_help(stdout);
        return;
    }
    write_help(mem);
    fclose(mem);
    gw_wrap_reflow(stdout, buf, len, GW_WRAP_WIDTH);
    free(buf);
}
