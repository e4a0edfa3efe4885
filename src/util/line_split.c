/* Output lines for watchers (see line_split.h). */
#include "util/line_split.h"

static void emit_line(gw_line_splitter *ls)
{
    ls->line[ls->len] = '\0';
    if (ls->fn)
        ls->fn(ls->ctx, ls->line, ls->text_ms);
    ls->len = 0;
}

bool gw_esc_step(int *state, unsigned char c)
{
    if (c == '\n' || c == '\r') { /* a line end ends any sequence */
        *state = GW_ESC_NONE;
        return true;
    }
    switch (*state) {
    case GW_ESC_AFTER_ESC:
        *state = c == '['                                                     ? GW_ESC_CSI
                 : (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') ? GW_ESC_STRING
                                                                              : GW_ESC_NONE;
        return false;
    case GW_ESC_CSI:
        if (c >= 0x20 && c <= 0x7e) {
            if (c >= 0x40)
                *state = GW_ESC_NONE;
            return false;
        }
        *state = c == 0x1b ? GW_ESC_AFTER_ESC : GW_ESC_NONE; /* a control byte cuts a CSI */
        return c != 0x1b;
    case GW_ESC_STRING:
        if (c == 0x07)
            *state = GW_ESC_NONE;
        else if (c == 0x1b)
            *state = GW_ESC_AFTER_ESC; /* ESC '\' (ST) ends it as a two-byte escape */
        return false;
    default:
        if (c == 0x1b) {
            *state = GW_ESC_AFTER_ESC;
            return false;
        }
        return true;
    }
}

void gw_line_splitter_feed(gw_line_splitter *ls, const char *data, size_t n, int64_t wall_ms)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)data[i];
        if (!gw_esc_step(&ls->esc, c))
            continue;
        if (c == '\n' || c == '\r') {
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
