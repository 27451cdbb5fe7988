/* SPDX-License-Identifier: MIT */
/* sections.c: the sections of the report of a run, in the report's order (result/section.h):
 * pma_compute runs their steps, the table, JSON and CSV reports and the HTML page render them in
 * this order. A section is its file (report_<section>.c, ending in its struct pma_section) and
 * its line here. */
#include "report_sections.h"

#define PMA_SECTIONS(X) \
	X(run)          \
	X(memory)       \
	X(predictions)  \
	X(regions)      \
	X(energy)       \
	X(scaling)      \
	X(quota)        \
	X(breakdown)    \
	X(estimators)   \
	X(stationarity) \
	X(traces)       \
	X(notes)

#define DECLARE(name) extern const struct pma_section pma_section_##name;
PMA_SECTIONS(DECLARE)

#define ENTRY(name) &pma_section_##name,
const struct pma_section *const pma_sections[] = { PMA_SECTIONS(ENTRY) };
const size_t pma_nsections = sizeof(pma_sections) / sizeof(pma_sections[0]);
