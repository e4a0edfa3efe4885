/*
 * gw_strdist: how far apart two short names are, for "did you mean ...?" hints.
 *
 * Must not: allocate or depend on the locale (bytes are compared as bytes).
 */
#ifndef GW_STRDIST_H
#define GW_STRDIST_H

/* Levenshtein distance between a and b (insertions, deletions, substitutions of bytes), capped at
 * cap: returns min(distance, cap). A string longer than 63 bytes counts as cap away. */
int gw_edit_distance(const char *a, const char *b, int cap);

#endif
