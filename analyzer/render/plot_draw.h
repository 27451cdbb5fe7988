/* SPDX-License-Identifier: MIT */
/* plot_draw.h: inside render/ only: the drawing helpers of plot.c that the sections' plots
 * (report_<section>.c, struct pma_section_plot) draw with: colours, text, the frame with its
 * title, caption, ticks and axis titles, legends, markers and the headline series. Defined in
 * plot.c; pixel positions come from the axes (plot.h pma_plot_px_x/y). A user includes plot.h
 * first: this header does not, so that plot.c can include it without a circle. */
#ifndef PMA_PLOT_DRAW_H
#define PMA_PLOT_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "result/section.h"

/* Sets the source colour 0xRRGGBB with alpha (0-1). */
void pma_plot_rgb(cairo_t *cr, unsigned c, double alpha);
/* Text s of font size (px) at (x, y), its baseline; align 0 left, 0.5 centred, 1 right. */
void pma_plot_text_at(cairo_t *cr, double x, double y, double size, double align, const char *s);
/* White background, plot k's title, the caption (program and machine), the grid with its ticks
 * (y ticks when yticks), the frame and the axis titles. */
void pma_plot_frame(cairo_t *cr, const struct pma_result *r, enum pma_plot_kind k, int w, int h,
		    const struct pma_plot_axes *a, const char *xtitle, const char *ytitle,
		    int yticks);

/* Legend entries, drawn in a box at the plot area's top left (or right). */
struct pma_plot_legend_entry {
	unsigned color;
	int kind; /* 0 line, 1 marker, 2 filled box */
	const char *label;
};
void pma_plot_legend(cairo_t *cr, const struct pma_plot_axes *a,
		     const struct pma_plot_legend_entry *e, size_t n, int right);

/* Clips drawing to the plot area (cairo_save: the caller restores). */
void pma_plot_clip_area(cairo_t *cr, const struct pma_plot_axes *a);
/* A filled circle of radius rad px at data point (x, y). */
void pma_plot_marker(cairo_t *cr, const struct pma_plot_axes *a, double x, double y, double rad,
		     unsigned color);
/* The headline series as a line through (x[i], y_i), y_i a double every ystride bytes from y,
 * broken where y_i is not finite (saturated). */
void pma_plot_polyline(cairo_t *cr, const struct pma_plot_axes *a, const uint32_t *x,
		       const double *y, size_t ystride, size_t n);
/* Time unit for an axis whose largest value is max_ns: divisor and name (s, ms, µs). */
void pma_plot_time_unit(double max_ns, double *div, const char **name);

/* The sections' entry of plot k (the first section that has it), NULL when none has it (the
 * interference plot, drawn by plot.c). */
const struct pma_section_plot *pma_section_plot_of(int k);

#endif
