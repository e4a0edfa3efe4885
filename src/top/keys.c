/* top's keys: each key changes the model or asks for an action (top.h; docs/top.md lists them). */
#include "top/top.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

const char *gw_top_signal_name(int sig)
{
    switch (sig) {
    case SIGTERM:
        return "SIGTERM";
    case SIGKILL:
        return "SIGKILL";
    case SIGINT:
        return "SIGINT";
    default:
        return "signal";
    }
}

static void select_row(gw_top_model *m, long row)
{
    if (m->nshown == 0)
        return;
    if (row < 0)
        row = 0;
    if (row >= (long)m->nshown)
        row = (long)m->nshown - 1;
    m->sel = (unsigned)row;
    m->sel_pid = m->procs[m->shown[m->sel]].pid;
}

static gw_top_action filter_key(gw_top_model *m, int key)
{
    size_t n = strlen(m->filter);
    if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        m->mode = GW_TOP_BROWSE;
    } else if (key == 27) { /* Esc: no filter */
        m->filter[0] = '\0';
        m->mode = GW_TOP_BROWSE;
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (n)
            m->filter[n - 1] = '\0';
    } else if (key >= 32 && key < 127 && n + 1 < sizeof m->filter) {
        m->filter[n] = (char)key;
        m->filter[n + 1] = '\0';
    } else {
        return GW_TOP_NOTHING;
    }
    gw_top_model_arrange(m);
    return GW_TOP_REDRAW;
}

static gw_top_action ask_signal(gw_top_model *m, int sig)
{
    const gw_top_proc *p = gw_top_model_selected(m);
    if (!p) {
        snprintf(m->message, sizeof m->message, "no process selected");
        return GW_TOP_REDRAW;
    }
    m->confirm_sig = sig;
    m->confirm_pid = p->pid;
    m->mode = GW_TOP_CONFIRM;
    return GW_TOP_REDRAW;
}

gw_top_action gw_top_key(gw_top_model *m, int key)
{
    switch (m->mode) {
    case GW_TOP_FILTER:
        return filter_key(m, key);
    case GW_TOP_CONFIRM:
        m->mode = GW_TOP_BROWSE;
        if (key == 'y' || key == 'Y')
            return GW_TOP_SIGNAL;
        snprintf(m->message, sizeof m->message, "not sent");
        return GW_TOP_REDRAW;
    case GW_TOP_HELP:
        m->mode = GW_TOP_BROWSE;
        return key == 'q' ? GW_TOP_QUIT : GW_TOP_REDRAW;
    case GW_TOP_BROWSE:
    default:
        break;
    }
    m->message[0] = '\0';
    switch (key) {
    case 'q':
    case 'Q':
        return GW_TOP_QUIT;
    case KEY_UP:
    case 'k':
        select_row(m, (long)m->sel - 1);
        return GW_TOP_REDRAW;
    case KEY_DOWN:
    case 'j':
        select_row(m, (long)m->sel + 1);
        return GW_TOP_REDRAW;
    case KEY_PPAGE:
        select_row(m, (long)m->sel - 10);
        return GW_TOP_REDRAW;
    case KEY_NPAGE:
        select_row(m, (long)m->sel + 10);
        return GW_TOP_REDRAW;
    case KEY_HOME:
    case 'g':
        select_row(m, 0);
        return GW_TOP_REDRAW;
    case KEY_END:
    case 'G':
        select_row(m, (long)m->nshown - 1);
        return GW_TOP_REDRAW;
    case 's': /* next sort key */
        m->sort = (gw_top_sort)((m->sort + 1) % GW_TOP_SORT_COUNT);
        break;
    case 'S':
        m->sort = (gw_top_sort)((m->sort + GW_TOP_SORT_COUNT - 1) % GW_TOP_SORT_COUNT);
        break;
    case 'r':
        m->reverse = !m->reverse;
        break;
    case 't':
        m->tree = !m->tree;
        break;
    case '/':
        m->mode = GW_TOP_FILTER;
        return GW_TOP_REDRAW;
    case 27: /* Esc: clear the filter */
        m->filter[0] = '\0';
        break;
    case 'T':
        return ask_signal(m, SIGTERM);
    case 'K':
        return ask_signal(m, SIGKILL);
    case 'I':
        return ask_signal(m, SIGINT);
    case 'h':
    case '?':
        m->mode = GW_TOP_HELP;
        return GW_TOP_REDRAW;
    default:
        return GW_TOP_NOTHING;
    }
    gw_top_model_arrange(m);
    return GW_TOP_REDRAW;
}
