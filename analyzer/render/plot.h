/* SPDX-License-Identifier: MIT */
/* plot.h: pmanalyze's plots, drawn with cairo from a computed result (struct pma_result) and its
 * loaded run: the speedup curve, the parallelism profile over critical-path time, the concurrency
 * histogram, the exact mode's thread timelines, omega(n) and the power of the energy zones. Each
 * plot has axis titles with units, a legend and a caption naming the program and the machine. No
 * computation of the model here (compute.c); no printing (the caller reports errors). */
#ifndef PMA_PLOT_H
#define PMA_PLOT_H

#include <stddef.h>

#include "result/compute.h"

enum pma_plot_kind {
	PMA_PLOT_SPEEDUP = 0,   /* S(m,n) against n, +-S band, S = n, optimum and 95% (eq. 1, 6, 11) */
	PMA_PLOT_PROFILE,       /* A(m,inf,t) along the critical-path time axis (eq. 4) */
	PMA_PLOT_HISTOGRAM,     /* share of T_cp at each level of active threads */
	PMA_PLOT_TIMELINE,      /* exact mode: running / runnable / blocked per thread, critical path */
	PMA_PLOT_OMEGA,         /* omega(n) of the memory model (eq. 7-10) and the measured C(n) */
	PMA_PLOT_INTERFERENCE,  /* active interference: slowdown against the resource left
				 * (Casas & Bronevetsky §5.2, Fig. 12); the only plot of such a trace */
	PMA_PLOT_ENERGY,        /* power of each energy zone over the run (ENERGY records, W) */
	PMA_PLOT_COUNT,
};

enum pma_plot_format { PMA_PLOT_SVG = 0, PMA_PLOT_PNG };

/* File stem of a plot: "speedup", "profile", "histogram", "timeline", "omega", "interference",
 * "energy". */
const char *pma_plot_name(enum pma_plot_kind k);
/* Its title for a report ("Predicted speedup", ...). */
const char *pma_plot_title(enum pma_plot_kind k);
/* Returns 0 for "svg" / "png" in *f, -1 for anything else. */
int pma_plot_format_parse(const char *name, enum pma_plot_format *f);

/* Whether r has the data for plot k: 1, or 0 with a static one-line reason in *why (e.g. the
 * run has no scheduler events, no calibration runs; the energy plot: "no energy readings ..."). */
int pma_plot_available(const struct pma_result *r, enum pma_plot_kind k, const char **why);

/* Default size of plot k in pixels (the timeline grows with the threads, up to 2000 px). */
void pma_plot_size(const struct pma_result *r, enum pma_plot_kind k, int *width_px, int *height_px);

/* The mapping of a plot's data to pixels: the plot area (left, top, width, height in px) and the
 * data range shown on each axis. x grows right, y grows up (pixel y = top + height at ymin). */
struct pma_plot_axes {
	double left_px, top_px, width_px, height_px;
	double xmin, xmax, ymin, ymax;
};
/* Pixel coordinates of a data value (not clamped). */
double pma_plot_px_x(const struct pma_plot_axes *a, double x);
double pma_plot_px_y(const struct pma_plot_axes *a, double y);
/* The axes plot k of r uses on a width x height image (the same as pma_plot_draw's): for tests
 * and for anyone placing marks over a plot. Returns 0, or -1 when the plot is not available. */
int pma_plot_axes_of(const struct pma_result *r, enum pma_plot_kind k, int width_px,
		     int height_px, struct pma_plot_axes *a);

/* Colours of the series (0xRRGGBB), shared with the tests that look for them in the output. */
#define PMA_PLOT_C_PRED 0x1f77b4     /* predicted S, omega fit, A(t), histogram bars */
#define PMA_PLOT_C_IDEAL 0x7f7f7f    /* S = n */
#define PMA_PLOT_C_OPT 0xd62728      /* optimal n */
#define PMA_PLOT_C_95 0xff7f0e       /* 95% point */
#define PMA_PLOT_C_MEAS 0x2ca02c     /* measured points */
#define PMA_PLOT_C_RUNNING 0x2ca02c
#define PMA_PLOT_C_RUNNABLE 0xff7f0e
#define PMA_PLOT_C_BLOCKED 0xd9d9d9
#define PMA_PLOT_C_CP 0x000000       /* critical path */
/* the interference plot: the median slowdown per level and its range in PMA_PLOT_C_PRED, degraded
 * levels in PMA_PLOT_C_OPT, the threshold in PMA_PLOT_C_95, the bound on the need in
 * PMA_PLOT_C_NEED (a band over the resource left) */
#define PMA_PLOT_C_NEED 0x9467bd
/* the energy plot: zone z's line in pma_plot_zone_color(z) */
#define PMA_PLOT_NZONE_COLORS 10

/* Colour (0xRRGGBB) of energy zone z (its index in the run's RUN_BEGIN energy.zones): the ten of
 * matplotlib's "tab10" in order (1f77b4 ff7f0e 2ca02c d62728 9467bd 8c564b e377c2 7f7f7f bcbd22
 * 17becf), then again from the first. */
unsigned pma_plot_zone_color(size_t z);

/* Writes plot k of r to path as SVG or PNG (default size). Returns 0, or -1 with a one-line
 * reason in why (plot not available: nothing is created; cannot create or write the file,
 * cairo's status: what was written is removed). */
int pma_plot_write(const struct pma_result *r, enum pma_plot_kind k, enum pma_plot_format f,
		   const char *path, char *why, size_t whysize);

/* The SVG of plot k in memory (malloc'ed, NUL-terminated, *len bytes without the NUL; the
 * caller frees it). Returns 0, or -1 with why. */
int pma_plot_svg(const struct pma_result *r, enum pma_plot_kind k, char **svg, size_t *len,
		 char *why, size_t whysize);

/* Frees cairo's and fontconfig's process-wide caches (fonts, glyphs), which they keep until exit:
 * for leak checkers (the sanitizer build), once at exit after the last plot. */
void pma_plot_cleanup(void);

#endif
