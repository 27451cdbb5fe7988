/* SPDX-License-Identifier: MIT */
/* html_util.h: inside render/ only: what the sections' HTML blocks (report_<section>.c) share with
 * the page (html.c): the command line, a table cell, an inline plot. Defined in html.c; every
 * string from a trace goes through pma_html_escape (html.h, which
 * a user of this header includes too). */
#ifndef PMA_HTML_UTIL_H
#define PMA_HTML_UTIL_H

#include <stddef.h>
#include <stdio.h>

#include "result/compute.h"
#include "plot.h"

/* printf of a format holding no trace strings (numbers, fixed text), to the FILE *out in scope */
#define P(...) fprintf(out, __VA_ARGS__)

/* The program's command line (META "command"), escaped, its words joined by spaces;
 * "(unknown program)" when the trace has none. */
void pma_html_command_line(FILE *out, const struct pma_meta *m);

/* One table cell of v with decimals digits: "–" for NaN (not given), "saturated" for infinity. */
void pma_html_cell_num(FILE *out, double v, int decimals);

/* Plot k of r inline as a figure (SVG, ids prefixed per plot), nothing when r lacks its data
 * (pma_plot_available). Returns 0, or -1 with a one-line reason in why. */
int pma_html_figure(FILE *out, const struct pma_result *r, enum pma_plot_kind k, char *why,
		    size_t whysize);

#endif
