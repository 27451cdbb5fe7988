/* SPDX-License-Identifier: MIT */
/* extrap.h: writers of Extra-P's input formats (text and JSON Lines) for a sweep's measurements,
 * so the same data can be modelled by Extra-P itself. Into a FILE * or a buffer of the caller's. */
#ifndef PMA_EXTRAP_H
#define PMA_EXTRAP_H

#include <stddef.h>
#include <stdio.h>

struct pma_scaling;

/* The measurements of one metric in one region (Extra-P: callpath) at every point. */
struct pma_extrap_series {
	const char *region;   /* callpath, e.g. "main"; Extra-P splits it at "->" into a tree */
	const char *metric;   /* e.g. "time", "overhead_ns" */
	const size_t *nreps;  /* npoints counts (>= 1): repetitions measured at each point */
	const double *values; /* nreps[0] + ... + nreps[npoints-1] values, point by point, in the
				 metric's unit */
};

/* One experiment with one parameter (the sweep's: "cores" or "threads"). */
struct pma_extrap_data {
	const char *parameter;  /* one word: no whitespace, no control characters, no " or \ */
	size_t npoints;
	const double *points;   /* npoints distinct coordinates */
	size_t nseries;
	const struct pma_extrap_series *series; /* nseries, each (region, metric) pair once */
};

/* Where a writer writes: a FILE * (buf NULL) or a buffer (f NULL). */
struct pma_extrap_out {
	FILE *f;
	char *buf;
	size_t size;
};

/* Writes d in Extra-P's text format (Extra-P's file-formats.md, "Text file format" and its
 * reader extrap/fileio/file_reader/text_file_reader.py):
 *     # comment lines, if comment is given (one "# " line per line of it)
 *     PARAMETER cores
 *     POINTS (1) (2) (4)
 *     REGION main
 *     METRIC time
 *     DATA 1.02 0.98 1.01        one line per point, in POINTS order, its repetitions
 * With one region the REGION line comes once and each METRIC follows it; with several regions
 * each METRIC comes once and its REGIONs follow. (Extra-P's reader mislabels a METRIC name given a
 * second time, and only warns about a REGION given twice, so one of the two must repeat; the
 * ABNF allows both orders.) Numbers are written as the grammar's NUMBER, digits with an optional
 * fraction and no exponent, with the fewest digits that read back as the same double.
 * Names must be non-empty, without control characters, without leading, trailing or doubled
 * spaces (the reader collapses whitespace); comment lines are full lines starting with '#'.
 * Returns the number of bytes written (for a buffer: that the whole text needs, as snprintf; the
 * buffer holds a NUL-terminated prefix when too small). Errors: PMT_E_INVAL with a one-line reason
 * in why (a bad name, a non-finite value, a point without repetitions, duplicate points or
 * pairs), PMT_E_IO when writing to the FILE fails. */
long pma_extrap_write_text(const struct pma_extrap_out *out, const struct pma_extrap_data *d,
			   const char *comment, char *why, size_t whysize);

/* Writes d in Extra-P's JSON Lines format (Extra-P's file-formats.md, "JSON Lines format", reader
 * extrap/fileio/file_reader/jsonlines_file_reader.py): one object per measured value,
 *     {"params":{"cores":8},"callpath":"main","metric":"time","value":1.23}
 * repetitions as several lines with the same params, callpath and metric. Numbers are JSON numbers
 * (shortest form that reads back exactly, exponent allowed). Returns and errors as
 * pma_extrap_write_text. */
long pma_extrap_write_jsonl(const struct pma_extrap_out *out, const struct pma_extrap_data *d,
			    char *why, size_t whysize);

/* Writes v into buf (size >= 32 for JSON; >= 360 for the text format's fixed notation, which
 * needs up to 340 digits for the smallest doubles) with the fewest significant digits (1-17) that
 * strtod reads back as v; fixed = 1 never uses an exponent. v finite. Returns buf. */
char *pma_extrap_format_number(double v, int fixed, char *buf, size_t size);

/* The data of a sweep's scaling study (studies/scaling.h) for the writers above. Fills d (and
 * series, PMA_SM_COUNT entries of the caller's) with the measurements of s for
 * pma_extrap_write_text / pma_extrap_write_jsonl: parameter s->parameter, region "main", one
 * series per measured metric. Borrows s. */
void pma_scaling_extrap_data(const struct pma_scaling *s, struct pma_extrap_series *series,
			     struct pma_extrap_data *d);

#endif
