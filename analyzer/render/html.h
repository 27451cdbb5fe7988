/* SPDX-License-Identifier: MIT */
/* html.h: pmanalyze --html: one self-contained HTML report of a computed result (inline CSS, the
 * plots as inline SVG from cairo, no scripts, fonts or network), readable at desktop and phone
 * widths. Every string that came from a trace is HTML-escaped. */
#ifndef PMA_HTML_H
#define PMA_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "result/compute.h"

/* Writes s to out with &, <, >, " and ' as character references (text and attribute values
 * alike). NULL writes nothing. */
void pma_html_escape(FILE *out, const char *s);

/* The same into dst (at most size bytes with the NUL; truncated at a whole character
 * reference). Returns the length the whole escaped string needs, without the NUL (snprintf's
 * convention). */
size_t pma_html_escape_buf(char *dst, size_t size, const char *s);

/* Writes the report of r to out: the page, then for a run the HTML blocks of its sections
 * (result/section.h) place by place; an interference trace's page of its own. Returns 0, or -1
 * with a one-line reason in why (a plot that failed to draw, out of memory; a write error shows
 * in ferror(out)). */
int pma_html_report(FILE *out, const struct pma_result *r, char *why, size_t whysize);

#endif
