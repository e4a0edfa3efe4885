/* gw_termline: gpuwatch's own lines start on a fresh terminal line (gw_termline.h). */
#include "util/gw_termline.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

static atomic_bool mid_line;

void gw_termline_note(int fd, const char *data, size_t n)
{
    if (n > 0 && isatty(fd))
        atomic_store(&mid_line, data[n - 1] != '\n');
}

void gw_termline_fresh(FILE *f)
{
    if (!f || !atomic_load(&mid_line))
        return;
    int fd = fileno(f);
    if (fd < 0 || !isatty(fd) || !atomic_exchange(&mid_line, false))
        return;
    fflush(f);
    ssize_t ignored = write(fd, "\r\n", 2);
    (void)ignored;
}
