/* SPDX-License-Identifier: MIT */
/* topics.h: inside notes/ only: the wording of the notes, one function per note in the file of
 * its topic (text_<topic>.c), and the helpers they share. pma_note_text (notes.c) calls the
 * note's function. */
#ifndef PMA_NOTES_TOPICS_H
#define PMA_NOTES_TOPICS_H

#include <stddef.h>


/* The wording of each note of notes.def, written in notes/text_<topic>.c: each writes the note
 * as one line into buf (truncated to size), its arguments by name. */
#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	struct pma_note_##name; /* notes.h */ \
	void pma_note_text_##name(const struct pma_note_##name *a, char *buf, size_t size);
#define PMA_NOTE_BARE(CODE, name, str, sev, topic) \
	void pma_note_text_##name(char *buf, size_t size);
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE

/* A note's string, "" when absent (NULL). */
const char *pma_note_str(const char *str);
#define s(str) pma_note_str(str)

/* "a 3.20 ms interval" or "a 3.20 ms interval (pmcollect lengthened it from the 0.10 ms asked
 * for)": the interval actually used, and the requested one when they differ (requested_ms 0:
 * the same). */
void pma_note_interval_text(char *buf, size_t size, double used_ms, double requested_ms);

#endif
