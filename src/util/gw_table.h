/*
 * gw_table: a plain-text table of numbers and words for the reports, each column printed the
 * same way all the way down: one number of decimals per column (chosen for the column, never per
 * value: "72.2 / 72.0 / 18.0", never "72.2 / 72 / 18.0"), right-aligned numbers, optional group
 * headings over several columns, and the columns that hold nothing left out.
 *
 * Owns: the cells (copied), the layout: a column is as wide as its widest cell or heading;
 * columns are separated by two spaces, the table indented by `indent`.
 * Must not: wrap (the caller chooses columns that fit its width: 80 columns for the reports).
 * Errors: none; out of memory aborts (xalloc).
 */
#ifndef GW_TABLE_H
#define GW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* decimals: the column chooses them from its own values (gw_fmt_decimals). */
#define GW_TABLE_AUTO (-1)

typedef struct gw_table_col {
    const char *group; /* a heading over this and the next columns of the same group; NULL */
    const char *name;  /* the column's heading */
    int decimals;      /* 0..9, or GW_TABLE_AUTO */
    bool text;         /* a column of words, left-aligned (numbers are right-aligned) */
    bool keep;         /* printed even when no row has a value in it */
} gw_table_col;

typedef struct gw_table gw_table;

/* A table of ncols columns (the array is copied; the strings must outlive the table). */
gw_table *gw_table_new(const gw_table_col *cols, size_t ncols);

/* Appends an empty row and returns its index. */
size_t gw_table_row(gw_table *t);

/* A number in (row, col): NaN, +-Inf and absurd values leave the cell empty (gw_fmt.h). */
void gw_table_num(gw_table *t, size_t row, size_t col, double x);

/* Words in (row, col), copied; NULL leaves the cell empty. */
void gw_table_text(gw_table *t, size_t row, size_t col, const char *s);

/* Writes the headings and the rows. Columns with no cell set are left out unless `keep`. */
void gw_table_print(const gw_table *t, FILE *out, int indent);

/* NULL is accepted. */
void gw_table_free(gw_table *t);

#endif
