/* Output lines for watchers (see line_split.h). */
#include "util/line_split.h"

static void emit_line(gw_line_splitter *ls)
{
    ls->line[ls->len] = '\0';
    if (ls->fn)
        ls->fn(ls->ctx, ls->line, ls->text_ms);
    ls->len = 0;
}

void gw_line_splitter_feed(gw_line_splitter *ls, const char *data, size_t n, int64_t wall_ms)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)data[i];
        switch (ls->esc) {
        case 1: /* after ESC: '[' starts CSI, ']' starts OSC, anything else is a 2-byte escape */
            ls->esc = c == '[' ? 2 : c == ']' ? 3 : 0;
            continue;
        case 2: /* CSI ends with a byte in 0x40..0x7e */
            if (c >= 0x40 && c <= 0x7e)
                ls->esc = 0;
            continue;
        case 3: /* OSC ends with BEL or ESC \ */
            if (c == 0x07)
                ls->esc = 0;
            else if (c == 0x1b)
                ls->esc = 1;
            continue;
        default:
            break;
        }
        if (c == 0x1b) {
            ls->esc = 1;
        } else if (c == '\n' || c == '\r') {
            if (ls->len)
                emit_line(ls);
        } else if (ls->len < GW_OUTPUT_LINE_MAX) {
            ls->line[ls->len++] = (char)c;
            ls->text_ms = wall_ms;
        }
    }
}

void gw_line_splitter_finish(gw_line_splitter *ls, int64_t wall_ms)
{
    (void)wall_ms; /* the line's time is when its last character came */
    if (ls->len)
        emit_line(ls);
}
