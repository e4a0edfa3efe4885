/*
 * gw_termline: gpuwatch's own lines start on a fresh line of the terminal.
 *
 * Owns: whether the wrapped command's output last shown on a terminal ended mid-line (a progress
 * bar redrawn with '\r' never ends its line), so that a line of gpuwatch's (an alert, a notice)
 * printed to that terminal starts on a line of its own instead of being glued onto the bar
 * (`...0.6s<2.9sgpuwatch: ALERT ...`). Thread-safe. Must not: print anything but that line end.
 */
#ifndef GW_TERMLINE_H
#define GW_TERMLINE_H

#include <stddef.h>
#include <stdio.h>

/* Notes n bytes of the command's output just written to fd (counted only when fd is a terminal). */
void gw_termline_note(int fd, const char *data, size_t n);

/* Before gpuwatch writes a line to f: when f is a terminal and the command's output shown there
 * last ended mid-line, ends that line ("\r\n": the terminal may be raw). */
void gw_termline_fresh(FILE *f);

#endif
