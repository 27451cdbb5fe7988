/* SPDX-License-Identifier: MIT */
/* topics.h: inside notes/ only: the wording of the notes, one function per topic (text_<topic>.c),
 * and the helpers they share. pma_note_text (notes.c) picks the topic of a note's code. */
#ifndef PMA_NOTES_TOPICS_H
#define PMA_NOTES_TOPICS_H

#include <stddef.h>

struct pma_note; /* notes.h */

/* Each writes the note as one line into buf (truncated to size) and returns 0, or -1 when the
 * note's code is not of its topic (buf untouched). */
int pma_note_text_trace(const struct pma_note *x, char *buf, size_t size);
int pma_note_text_model(const struct pma_note *x, char *buf, size_t size);
int pma_note_text_memory(const struct pma_note *x, char *buf, size_t size);
int pma_note_text_regions(const struct pma_note *x, char *buf, size_t size);
int pma_note_text_energy(const struct pma_note *x, char *buf, size_t size);
int pma_note_text_scaling(const struct pma_note *x, char *buf, size_t size);
int pma_note_text_job(const struct pma_note *x, char *buf, size_t size);

/* A note's string i, "" when absent. */
const char *pma_note_str(const struct pma_note *x, size_t i);
#define s(x, i) pma_note_str((x), (i))

/* "a 3.20 ms interval" or "a 3.20 ms interval (pmcollect lengthened it from the 0.10 ms asked
 * for)": the interval actually used, and the requested one when they differ (requested_ms 0:
 * the same). */
void pma_note_interval_text(char *buf, size_t size, double used_ms, double requested_ms);

#endif
