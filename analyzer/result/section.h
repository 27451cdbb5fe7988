/* SPDX-License-Identifier: MIT */
/* section.h: a section of pmanalyze's report of a run, declared once: its name, the steps that
 * compute its part of struct pma_result, and its table, JSON, CSV and HTML renderers and its
 * plots (NULL, or none, where a format has none). Each section is one file of render/
 * (report_<section>.c, ending in its struct pma_section); the list in render/sections.c is the
 * report's order. pma_compute runs the steps of that list, the report (render/report.c) and the
 * HTML page (render/html.c) render it: adding a section is adding its file and its line in the
 * list. The list is the one name result/ takes from a layer above it, by the linker, not by an
 * include: pma_compute calls the steps without knowing the renderers. */
#ifndef PMA_SECTION_H
#define PMA_SECTION_H

#include <stddef.h>
#include <stdio.h>

/* compute.h's; by name only, so that compute.c can include this header */
struct pma_result;
struct pma_compute_opts;
struct cJSON;
struct _cairo;          /* cairo_t (cairo.h), for the plots */
struct pma_plot_axes;   /* render/plot.h */

/* When a step runs: pma_compute runs every section's steps of one stage, in the list's order,
 * before the next stage; the stage says what a step may read. The notes arise in this order. */
enum pma_stage {
	PMA_STAGE_CORES = 0, /* the run's parallelism (r->par) and the core counts (r->pred.cores) */
	PMA_STAGE_OMEGA,     /* omega(n) at those core counts (r->mem) */
	PMA_STAGE_PREDICT,   /* S(n) by every estimator, its invariants and uncertainty (r->pred, r->opt) */
	PMA_STAGE_STUDY,     /* what uses the predictions (energy, the measured points) */
	PMA_STAGE_CHECK,     /* the checks of the inputs, which widen +-S and add notes, and what
				reads the run beside them (the regions) */
	PMA_STAGE_FINAL,     /* what needs the final +-S (the runs check, the sweep's study) */
	PMA_STAGE_COUNT,
};

/* A compute step: fills its part of r (kind PMA_RESULT_RUN, r->t and r->run set) from the traces
 * and o, adds its notes. Returns 0, -1 with a one-line reason in why (out of memory, a failed
 * replay); pma_compute stops at the first failure. No I/O. */
typedef int pma_section_step_fn(struct pma_result *r, const struct pma_compute_opts *o, char *why,
				size_t whysize);

struct pma_section_step {
	enum pma_stage stage;
	pma_section_step_fn *run;             /* NULL ends the steps */
};

/* Where an HTML block goes on the page (render/html.c), top to bottom; blocks of one place come
 * in the list's order. PMA_PAGE_PLOTS is the page's own block: the plots every section names. */
enum pma_page_place {
	PMA_PAGE_HEADLINE = 0, /* the headline figures */
	PMA_PAGE_ACTIONS,      /* what to do next */
	PMA_PAGE_PLOTS,        /* the plots (the page's) */
	PMA_PAGE_TABLES,       /* the predictions */
	PMA_PAGE_NOTES,        /* the notes */
	PMA_PAGE_MEASURED,     /* measured runs against the predictions (a sweep) */
	PMA_PAGE_STUDIES,      /* the studies of the run (regions, energy) */
	PMA_PAGE_SOURCES,      /* where the figures come from */
	PMA_PAGE_COUNT,
};

/* An HTML block: a <section> with its element id and heading (NULL: none); render writes its
 * body and returns 0, or -1 with a one-line reason in why. */
struct pma_section_html {
	enum pma_page_place place;
	const char *id;
	const char *title;
	int (*render)(FILE *out, const struct pma_result *r, char *why, size_t whysize);
};

/* A plot of the section: its kind (enum pma_plot_kind, render/plot.h) and the function that draws
 * it on cr, a w x h px surface, over the axes render/plot.c computed for it (pma_plot_axes_of);
 * draw returns 0, or -1 when out of memory. own_block: the section's HTML block shows the plot
 * itself, not the page's plots block. */
struct pma_section_plot {
	int kind;
	int (*draw)(struct _cairo *cr, const struct pma_result *r, int w, int h,
		    const struct pma_plot_axes *a);
	int own_block;
};

#define PMA_SECTION_STEPS 4
#define PMA_SECTION_HTML 2
#define PMA_SECTION_PLOTS 3

/* One section of the report of a run. The renderers read r and compute nothing; a JSON renderer
 * adds its keys to the report's root object; a table or CSV renderer writes nothing when r has
 * nothing of its section (its CSV table comes after a blank line when it is not the first). */
struct pma_section {
	const char *name;
	struct pma_section_step steps[PMA_SECTION_STEPS]; /* in stage order; the first NULL run ends */
	void (*table)(FILE *out, const struct pma_result *r);
	void (*json)(struct cJSON *root, const struct pma_result *r);
	void (*csv)(FILE *out, const struct pma_result *r);
	struct pma_section_html html[PMA_SECTION_HTML]; /* the first NULL render ends */
	struct pma_section_plot plots[PMA_SECTION_PLOTS]; /* the first NULL draw ends */
};

/* The sections in the report's order (render/sections.c). */
extern const struct pma_section *const pma_sections[];
extern const size_t pma_nsections;

/* The compute steps of the sections whose numbers are the model's (compute.c): the run's
 * parallelism (Tudor & Teo eq. 2, 4, 5) and the checks of its inputs (docs/model.md
 * "Invariants"), the core counts and the predictions with their bounds and uncertainty (eq. 1, 3,
 * 6, 11), the measured points and the runs check (runcheck.h), the memory model (eq. 7-10), the
 * energy (energy_eval.h), the regions (regions.h), the sweep's scaling study (scaling.h), and the
 * notes that need every other step (wake-up costs not charged, unplaced run-queue wait), and the
 * calibration runs replayed beside the prediction (breakdown.h), and A(m,inf) by quarter of the
 * recording (stationarity.h). */
pma_section_step_fn pma_step_parallelism, pma_step_cores, pma_step_memory, pma_step_predict,
	pma_step_energy, pma_step_measured, pma_step_checks, pma_step_regions, pma_step_late_notes,
	pma_step_runcheck, pma_step_scaling, pma_step_quota, pma_step_quota_sweep,
	pma_step_breakdown, pma_step_stationarity;

#endif
