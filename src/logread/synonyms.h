/*
 * synonyms: the column names people give nvidia-smi's fields in home-made loggers
 * ("gpu_util", "mem_used_mb", "temp_c", "power_w", "GPU ID"), mapped to nvidia-smi's own keys.
 * Must not: allocate or know about series (nvsmi.c applies the mapping and says it in the report).
 */
#ifndef GW_SYNONYMS_H
#define GW_SYNONYMS_H

#include <stdbool.h>
#include <stddef.h>

/* The nvidia-smi key a home-made header key stands for ("gpu_util" -> "utilization.gpu",
 * "GPU ID" -> "index", "elapsed_s" -> "elapsed", meaning seconds since the file's start), written
 * into to[size]; false when it is none. A GPU field's home-made names are its row's `synonyms` in
 * the field table (gw_fields[]); the others are listed here. *unit is the unit its suffix names
 * ("mem_used_gb" -> "GiB"; "" when none). Case, spaces and '-' do not matter. */
bool gw_logread_synonym(const char *key, char *to, size_t size, const char **unit);

#endif
