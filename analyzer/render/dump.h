/* SPDX-License-Identifier: MIT */
/* dump.h: pmanalyze --dump, every record of a trace as one JSON object per line. */
#ifndef PMA_DUMP_H
#define PMA_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include "pmt.h"

/* Opens the trace at path for pma_dump (flags: PMT_READ_*), so that a trace that cannot be read
 * is reported before any output exists. Returns 0 with *rd set, or a negative PMT_E_* with a
 * one-line reason in why (*rd NULL). */
int pma_dump_open(struct pmt_reader **rd, const char *path, unsigned flags, char *why,
		  size_t whysize);

/* Writes the META record and then every record of rd as one JSON object per line (SCHED batches
 * one line per event), and a last {"type":"truncated"} line when the file ends inside a chunk.
 * Closes rd. path names the trace in why. Returns 0 or a negative PMT_E_* with a reason in why
 * (the records before the damage are written). */
int pma_dump(FILE *out, struct pmt_reader *rd, const char *path, char *why, size_t whysize);

#endif
