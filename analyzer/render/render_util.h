/* SPDX-License-Identifier: MIT */
/* render_util.h: inside render/ only: the helpers the report's sections (report_<section>.c) and
 * --info (report_info.c) share: the command line, notes, the machine and sources lines, numbers
 * as text, and the trace's JSON object. Defined in render_util.c. */
#ifndef PMA_RENDER_UTIL_H
#define PMA_RENDER_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "trace/analyze.h"
#include "notes/notes.h"

/* Writes the command line of META "command" into buf (size bytes, NUL-terminated, truncated),
 * its words joined by spaces, control characters replaced (pm_cli_sanitize). */
void pma_render_command_string(const struct pma_meta *meta, char *buf, size_t size);

/* Note x as a new JSON string, its whole text (never truncated); "out of memory" when the text
 * cannot be allocated. The caller owns the item. */
cJSON *pma_render_note_string(const struct pma_note *x);

/* Adds the notes of l to root twice: under key as an array of their texts (pmanalyze/1 as it
 * was) and under key_coded as an array of objects {"code", "severity", "text", "numbers",
 * "strings", "values"} (docs/pmanalyze-json.md; "values": the arguments by their notes.def
 * names). */
void pma_render_notes_json(cJSON *root, const char *key, const char *key_coded, const struct pma_notes *l);

/* Writes one line per note of l: prefix, then the note's whole text. */
void pma_render_print_notes(FILE *out, const struct pma_notes *l, const char *prefix);

/* Writes the table's "sources" line (the recorded sources) and one line per source not
 * recorded, with its recorded reason (sanitized). */
void pma_render_print_sources(FILE *out, const struct pma_meta *meta);

/* Writes the table's "machine" line: host, packages, cores, PUs, NUMA nodes, kernel release. */
void pma_render_machine_line(FILE *out, const struct pma_meta *meta);

/* Writes v into buf (size bytes) with prec decimals and suffix; "?" when unknown (NAN) and "sat"
 * when saturated (INFINITY). */
void pma_render_fmt_num(char *buf, size_t size, int prec, double v, const char *suffix);

/* A trace as a new JSON object (docs/pmanalyze-json.md "traces"): path, command, samples, runs,
 * sources, warnings; "wall_s" of run and "truncated" when run is given (run may be NULL). The
 * caller owns the object. */
cJSON *pma_render_trace_json(const struct pma_trace *t, const struct pma_run *run);

/* Adds key: v to o, or key: null when v is not finite (unknown or saturated). */
void pma_render_add_finite(cJSON *o, const char *key, double v);

/* Writes s as one CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180):
 * the quoting of every CSV writer. */
void pma_csv_field(FILE *out, const char *s);

#endif
