/* SPDX-License-Identifier: MIT */
/* plot.c: the plots of plot.h, drawn with cairo (SVG and PNG surfaces). */
#include "plot.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"

static const char *const plot_names[PMA_PLOT_COUNT] = {
	[PMA_PLOT_SPEEDUP] = "speedup", [PMA_PLOT_PROFILE] = "profile",
	[PMA_PLOT_HISTOGRAM] = "histogram", [PMA_PLOT_TIMELINE] = "timeline",
	[PMA_PLOT_OMEGA] = "omega", [PMA_PLOT_INTERFERENCE] = "interference",
	[PMA_PLOT_ENERGY] = "energy",
};
static const char *const plot_titles[PMA_PLOT_COUNT] = {
	[PMA_PLOT_SPEEDUP] = "Predicted speedup S(m,n)",
	[PMA_PLOT_PROFILE] = "Parallelism over critical-path time A(m,\xe2\x88\x9e,t)",
	[PMA_PLOT_HISTOGRAM] = "Concurrency histogram",
	[PMA_PLOT_TIMELINE] = "Thread timelines (exact mode) and critical path",
	[PMA_PLOT_OMEGA] = "Memory contention \xcf\x89(n)",
	[PMA_PLOT_INTERFERENCE] = "Sensitivity to active interference",
	[PMA_PLOT_ENERGY] = "Power by energy zone",
};

unsigned pma_plot_zone_color(size_t z)
{
	static const unsigned tab10[PMA_PLOT_NZONE_COLORS] = {
		0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
		0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
	};
	return tab10[z % PMA_PLOT_NZONE_COLORS];
}

const char *pma_plot_name(enum pma_plot_kind k)
{
	return k < PMA_PLOT_COUNT ? plot_names[k] : "?";
}

const char *pma_plot_title(enum pma_plot_kind k)
{
	return k < PMA_PLOT_COUNT ? plot_titles[k] : "?";
}

int pma_plot_format_parse(const char *name, enum pma_plot_format *f)
{
	if (strcmp(name, "svg") == 0)
		*f = PMA_PLOT_SVG;
	else if (strcmp(name, "png") == 0)
		*f = PMA_PLOT_PNG;
	else
		return -1;
	return 0;
}

/* ---- the active-interference plot (Casas & Bronevetsky §5.2): kept apart from the others ---- */

/* pma_plot_available for a trace of pmcollect --interfere (its only plot is the sensitivity
 * curve) and for PMA_PLOT_INTERFERENCE of any other trace. */
static int interference_available(const struct pma_result *r, enum pma_plot_kind k, const char **why)
{
	if (k != PMA_PLOT_INTERFERENCE)
		*why = "an active-interference trace has the sensitivity curve only";
	else if (r->kind != PMA_RESULT_INTERFERENCE)
		*why = "no active-interference runs (record them with pmcollect --interfere)";
	else if (r->interf.sens.npoints < 2)
		*why = "the trace holds the interference calibration only (no runs)";
	return *why == NULL;
}

int pma_plot_available(const struct pma_result *r, enum pma_plot_kind k, const char **why)
{
	const struct pma_profile *p = pma_result_profile(r);

	*why = NULL;
	if (r->kind == PMA_RESULT_INTERFERENCE || k == PMA_PLOT_INTERFERENCE)
		return interference_available(r, k, why);
	switch (k) {
	case PMA_PLOT_SPEEDUP:
	case PMA_PLOT_HISTOGRAM:
		if (r->pred.ncores == 0 || !p)
			*why = "no predictions";
		break;
	case PMA_PLOT_PROFILE:
		if (!p || !p->series || p->series->n == 0)
			*why = "no parallelism profile over time";
		break;
	case PMA_PLOT_TIMELINE:
		if (!r->run->has_exact || !r->run->exact)
			*why = "the run has no scheduler events (record them with pmcollect --sched, as root)";
		break;
	case PMA_PLOT_OMEGA:
		if (r->mem.cal.npts == 0)
			*why = "no calibration runs with C(n) (record them with pmcollect --calibrate)";
		break;
	case PMA_PLOT_ENERGY:
		/* a source that did not advance wrote ENERGY records of 0 µJ: no "mean 0 W" plot */
		if (!r->run->info.energy.present && r->run->info.energy.reason)
			*why = r->run->info.energy.reason;
		else if (r->run_power.s.n == 0)
			*why = "no energy readings (the run has no ENERGY records: see the energy section)";
		break;
	default:
		*why = "no such plot";
	}
	return *why == NULL;
}

void pma_plot_size(const struct pma_result *r, enum pma_plot_kind k, int *width_px, int *height_px)
{
	*width_px = 960;
	*height_px = 540;
	if (k == PMA_PLOT_TIMELINE && r->run->exact) {
		size_t nt = pma_exact_thread_count(r->run->exact);
		double rows = (double)nt * 14;
		*height_px = 190 + (int)fmin(fmax(rows, 160), 1810);
	}
}

double pma_plot_px_x(const struct pma_plot_axes *a, double x)
{
	return a->left_px + (x - a->xmin) / (a->xmax - a->xmin) * a->width_px;
}

double pma_plot_px_y(const struct pma_plot_axes *a, double y)
{
	return a->top_px + a->height_px - (y - a->ymin) / (a->ymax - a->ymin) * a->height_px;
}

/* ---- data ranges ---- */

/* A "nice" upper bound >= v: 1, 2, 2.5 or 5 times a power of ten. */
static double nice_ceil(double v)
{
	double p, f;

	if (!(v > 0) || !isfinite(v))
		return 1;
	p = pow(10, floor(log10(v)));
	f = v / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
}

/* Tick step for [0, max] with about 5-10 ticks. */
static double tick_step(double span)
{
	return nice_ceil(span / 8);
}

static const struct pma_prediction *headline(const struct pma_result *r)
{
	return r->pred.by_est[r->par.est];
}

/* Time unit for an axis whose largest value is max_ns: divisor and name. */
static void time_unit(double max_ns, double *div, const char **name)
{
	if (max_ns >= 10e9) {
		*div = 1e9;
		*name = "s";
	} else if (max_ns >= 10e6) {
		*div = 1e6;
		*name = "ms";
	} else {
		*div = 1e3;
		*name = "\xc2\xb5s";
	}
}

/* Pixel margins: room for the title, the axis titles and the caption. */
#define M_LEFT 78.0
#define M_RIGHT 28.0
#define M_TOP 48.0
#define M_BOTTOM 88.0

/* The timeline's rows are labelled with thread names: a wider left margin. */
#define M_LEFT_TIMELINE 150.0

static void set_area(struct pma_plot_axes *a, int w, int h, double left)
{
	a->left_px = left;
	a->top_px = M_TOP;
	a->width_px = w - left - M_RIGHT;
	a->height_px = h - M_TOP - M_BOTTOM;
}

/* The x value of level l: the resource left in MB (cache) or GB/s (bandwidth), or k when the
 * resource left is unknown (estimate none). */
static double interference_x(const struct pma_interf_result *x, size_t l)
{
	const struct pma_sens_point *pt = &x->sens.points[l];

	if (x->estimate == PMA_INTERF_EST_NONE || !isfinite(pt->left))
		return pt->k;
	return pt->left / (x->bandwidth ? 1e9 : 1048576.0);
}

/* v rounded up to a whole tick step (58 -> 60, not nice_ceil's 100: the curve fills the plot;
 * the interference and energy plots). */
static double tick_ceil(double v)
{
	double step = tick_step(v);

	return v > 0 && isfinite(v) ? ceil(v / step) * step : 1;
}

static void interference_axes(const struct pma_result *r, struct pma_plot_axes *a)
{
	const struct pma_interf_result *x = &r->interf;
	const struct pma_sens_point *p0 = &x->sens.points[0];
	double xmax = 1, ymax = 100 * x->threshold, ymin = 0;

	for (size_t l = 0; l < x->sens.npoints; l++) {
		const struct pma_sens_point *pt = &x->sens.points[l];
		xmax = fmax(xmax, interference_x(x, l));
		ymax = fmax(ymax, 100 * (pt->max_ns / p0->runtime_ns - 1));
		ymin = fmin(ymin, 100 * (pt->min_ns / p0->runtime_ns - 1));
	}
	a->xmin = 0;
	a->xmax = tick_ceil(xmax * (x->estimate == PMA_INTERF_EST_NONE ? 1 : 1.05));
	a->ymin = ymin < 0 ? -tick_ceil(-ymin * 1.1) : 0;
	a->ymax = tick_ceil(ymax * 1.1);
}

int pma_plot_axes_of(const struct pma_result *r, enum pma_plot_kind k, int w, int h,
		     struct pma_plot_axes *a)
{
	const struct pma_profile *p = pma_result_profile(r);
	const char *why;

	memset(a, 0, sizeof(*a));
	if (!pma_plot_available(r, k, &why))
		return -1;
	set_area(a, w, h, k == PMA_PLOT_TIMELINE ? M_LEFT_TIMELINE : M_LEFT);
	switch (k) {
	case PMA_PLOT_SPEEDUP: {
		double ymax = 1;
		const struct pma_prediction *q = headline(r);
		for (size_t i = 0; i < r->pred.ncores; i++)
			if (isfinite(q[i].S))
				ymax = fmax(ymax, q[i].S + r->pred.S_err[i]);
		for (size_t i = 0; i < r->measured.n; i++)
			ymax = fmax(ymax, r->measured.S[i]);
		a->xmin = 0;
		a->xmax = nice_ceil(r->pred.cores[r->pred.ncores - 1]);
		a->ymin = 0;
		a->ymax = nice_ceil(ymax * 1.05);
		break;
	}
	case PMA_PLOT_PROFILE: {
		const struct pma_series *s = p->series;
		double amax = 1, div;
		const char *u;
		for (size_t i = 0; i < s->n; i++)
			if (s->dT_ns[i] > 0)
				amax = fmax(amax, s->AdT_ns[i] / s->dT_ns[i]);
		time_unit(p->T_cp_ns, &div, &u);
		a->xmin = 0;
		a->xmax = p->T_cp_ns / div;
		a->ymin = 0;
		a->ymax = nice_ceil(amax * 1.05);
		break;
	}
	case PMA_PLOT_HISTOGRAM: {
		double fmax_pct = 1;
		for (size_t kk = 1; kk < p->nbins; kk++)
			fmax_pct = fmax(fmax_pct, 100 * pma_profile_level_ns(p, kk) / p->T_cp_ns);
		a->xmin = 0;
		a->xmax = (double)(p->nbins > 1 ? p->nbins : 2);
		a->ymin = 0;
		a->ymax = fmin(100, nice_ceil(fmax_pct * 1.05));
		break;
	}
	case PMA_PLOT_TIMELINE: {
		double div;
		const char *u;
		double span = r->run->xst.last_t_ns - r->run->xst.first_t_ns;
		time_unit(span, &div, &u);
		a->xmin = 0;
		a->xmax = span > 0 ? span / div : 1;
		a->ymin = 0;
		a->ymax = (double)pma_exact_thread_count(r->run->exact);
		if (a->ymax < 1)
			a->ymax = 1;
		break;
	}
	case PMA_PLOT_OMEGA: {
		const struct pma_mem_cal *c = &r->mem.cal;
		double ymax = 0.1, ymin = 0;
		uint32_t nmax = 1;
		for (size_t i = 0; i < c->npts; i++) {
			nmax = c->pts[i].cores > nmax ? c->pts[i].cores : nmax;
			if (isfinite(c->omega_meas[i])) {
				ymax = fmax(ymax, c->omega_meas[i]);
				ymin = fmin(ymin, c->omega_meas[i]);
			}
		}
		for (size_t i = 0; i < r->mem.ncores; i++) {
			nmax = r->pred.cores[i] > nmax ? r->pred.cores[i] : nmax;
			if (isfinite(r->mem.omega[i])) {
				ymax = fmax(ymax, r->mem.omega[i]);
				ymin = fmin(ymin, r->mem.omega[i]);
			}
		}
		a->xmin = 0;
		a->xmax = nice_ceil(nmax);
		a->ymin = ymin < 0 ? -nice_ceil(-ymin * 1.05) : 0;
		a->ymax = nice_ceil(ymax * 1.05);
		break;
	}
	case PMA_PLOT_INTERFERENCE:
		interference_axes(r, a);
		break;
	case PMA_PLOT_ENERGY: {
		const struct pma_power_series *ps = &r->run_power.s;
		a->xmin = 0;
		a->xmax = tick_ceil(ps->t1_s[ps->n - 1]); /* the run fills the plot */
		a->ymin = 0;
		a->ymax = tick_ceil(ps->max_w * 1.1);
		break;
	}
	default:
		return -1;
	}
	if (!(a->xmax > a->xmin))
		a->xmax = a->xmin + 1;
	if (!(a->ymax > a->ymin))
		a->ymax = a->ymin + 1;
	return 0;
}

/* ---- drawing helpers ---- */

static void rgb(cairo_t *cr, unsigned c, double alpha)
{
	cairo_set_source_rgba(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
			      (c & 0xff) / 255.0, alpha);
}

static void text_at(cairo_t *cr, double x, double y, double size, double align, const char *s)
{
	cairo_text_extents_t te;

	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &te);
	cairo_move_to(cr, x - align * te.x_advance, y);
	cairo_show_text(cr, s);
}

/* Title, caption (program and machine), axis frame with ticks and axis titles. */
static void frame(cairo_t *cr, const struct pma_result *r, enum pma_plot_kind k, int w, int h,
		  const struct pma_plot_axes *a, const char *xtitle, const char *ytitle,
		  int yticks)
{
	char cap[512], num[32];
	size_t off = 0;
	double xs = tick_step(a->xmax - a->xmin), ys = tick_step(a->ymax - a->ymin);

	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	rgb(cr, 0xffffff, 1);
	cairo_paint(cr);
	rgb(cr, 0x000000, 1);
	text_at(cr, w / 2.0, 28, 17, 0.5, pma_plot_title(k));

	/* caption: the program's argv and the machine */
	off += (size_t)snprintf(cap, sizeof(cap), "program:");
	for (size_t i = 0; i < r->t->meta.ncommand && off < sizeof(cap) - 1; i++)
		off += (size_t)snprintf(cap + off, sizeof(cap) - off, " %s", r->t->meta.command[i]);
	if (off >= sizeof(cap))
		off = sizeof(cap) - 1;
	rgb(cr, 0x444444, 1);
	text_at(cr, 12, h - 26, 12, 0, cap);
	snprintf(cap, sizeof(cap), "machine: %s, %.0f PUs, %.0f cores, %.0f sockets, Linux %s; m = %.0f threads",
		 r->t->meta.hostname ? r->t->meta.hostname : "unknown host", r->t->meta.topo.pus,
		 r->t->meta.topo.cores, r->t->meta.topo.packages,
		 r->t->meta.kernel_release ? r->t->meta.kernel_release : "?", r->par.m);
	if (r->kind == PMA_RESULT_INTERFERENCE) /* no thread count is computed for an interference trace */
		*strrchr(cap, ';') = '\0';
	text_at(cr, 12, h - 10, 12, 0, cap);

	/* grid and ticks */
	cairo_set_line_width(cr, 1);
	for (double x = ceil(a->xmin / xs) * xs; x <= a->xmax + 1e-9 * xs; x += xs) {
		double px = round(pma_plot_px_x(a, x)) + 0.5;
		rgb(cr, 0xeeeeee, 1);
		cairo_move_to(cr, px, a->top_px);
		cairo_line_to(cr, px, a->top_px + a->height_px);
		cairo_stroke(cr);
		rgb(cr, 0x000000, 1);
		snprintf(num, sizeof(num), "%g", x);
		text_at(cr, px, a->top_px + a->height_px + 16, 11, 0.5, num);
	}
	for (double y = ceil(a->ymin / ys) * ys; yticks && y <= a->ymax + 1e-9 * ys; y += ys) {
		double py = round(pma_plot_px_y(a, y)) + 0.5;
		rgb(cr, 0xeeeeee, 1);
		cairo_move_to(cr, a->left_px, py);
		cairo_line_to(cr, a->left_px + a->width_px, py);
		cairo_stroke(cr);
		rgb(cr, 0x000000, 1);
		snprintf(num, sizeof(num), "%g", fabs(y) < 1e-12 * ys ? 0 : y);
		text_at(cr, a->left_px - 6, py + 4, 11, 1, num);
	}
	rgb(cr, 0x000000, 1);
	cairo_rectangle(cr, a->left_px + 0.5, a->top_px + 0.5, a->width_px, a->height_px);
	cairo_stroke(cr);
	text_at(cr, a->left_px + a->width_px / 2, a->top_px + a->height_px + 36, 13, 0.5, xtitle);
	cairo_save(cr);
	cairo_translate(cr, 18, a->top_px + a->height_px / 2);
	cairo_rotate(cr, -M_PI / 2);
	text_at(cr, 0, 0, 13, 0.5, ytitle);
	cairo_restore(cr);
}

/* Legend entries, drawn in a box at the plot area's top left (or right). */
struct legend_entry {
	unsigned color;
	int kind; /* 0 line, 1 marker, 2 filled box */
	const char *label;
};

static void legend(cairo_t *cr, const struct pma_plot_axes *a, const struct legend_entry *e,
		   size_t n, int right)
{
	double wmax = 0, x, y, lh = 18;
	cairo_text_extents_t te;

	cairo_set_font_size(cr, 12);
	for (size_t i = 0; i < n; i++) {
		cairo_text_extents(cr, e[i].label, &te);
		wmax = fmax(wmax, te.x_advance);
	}
	x = right ? a->left_px + a->width_px - wmax - 52 : a->left_px + 10;
	y = a->top_px + 10;
	rgb(cr, 0xffffff, 0.9);
	cairo_rectangle(cr, x, y, wmax + 42, lh * (double)n + 8);
	cairo_fill_preserve(cr);
	rgb(cr, 0x999999, 1);
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
	for (size_t i = 0; i < n; i++) {
		double cy = y + 4 + lh * (double)i + lh / 2;
		rgb(cr, e[i].color, 1);
		if (e[i].kind == 0) {
			cairo_set_line_width(cr, 2);
			cairo_move_to(cr, x + 6, cy);
			cairo_line_to(cr, x + 28, cy);
			cairo_stroke(cr);
		} else if (e[i].kind == 1) {
			cairo_arc(cr, x + 17, cy, 4.5, 0, 2 * M_PI);
			cairo_fill(cr);
		} else {
			cairo_rectangle(cr, x + 8, cy - 5, 18, 10);
			cairo_fill(cr);
		}
		rgb(cr, 0x000000, 1);
		text_at(cr, x + 34, cy + 4, 12, 0, e[i].label);
	}
}

static void clip_area(cairo_t *cr, const struct pma_plot_axes *a)
{
	cairo_save(cr);
	cairo_rectangle(cr, a->left_px, a->top_px, a->width_px, a->height_px);
	cairo_clip(cr);
}

static void marker(cairo_t *cr, const struct pma_plot_axes *a, double x, double y, double rad,
		   unsigned color)
{
	rgb(cr, color, 1);
	cairo_arc(cr, pma_plot_px_x(a, x), pma_plot_px_y(a, y), rad, 0, 2 * M_PI);
	cairo_fill(cr);
}

/* The headline series as a line through (x[i], y_i), y_i a double every ystride bytes from y,
 * broken where y_i is not finite (saturated). */
static void polyline(cairo_t *cr, const struct pma_plot_axes *a, const uint32_t *x,
		     const double *y, size_t ystride, size_t n)
{
	int started = 0;

	rgb(cr, PMA_PLOT_C_PRED, 1);
	cairo_set_line_width(cr, 2.5);
	for (size_t i = 0; i < n; i++) {
		double yi = *(const double *)(const void *)((const char *)y + i * ystride);
		if (!isfinite(yi)) {
			started = 0;
			continue;
		}
		if (!started++)
			cairo_move_to(cr, pma_plot_px_x(a, x[i]), pma_plot_px_y(a, yi));
		else
			cairo_line_to(cr, pma_plot_px_x(a, x[i]), pma_plot_px_y(a, yi));
	}
	cairo_stroke(cr);
}

/* ---- the plots ---- */

static void draw_speedup(cairo_t *cr, const struct pma_result *r, int w, int h,
			 const struct pma_plot_axes *a)
{
	const struct pma_prediction *q = headline(r);
	const struct pma_pred_result *pd = &r->pred;
	char lab_pred[96], lab_opt[64], lab_95[64];
	struct legend_entry le[6];
	size_t nl = 0;
	int started = 0;

	frame(cr, r, PMA_PLOT_SPEEDUP, w, h, a, "cores n", "speedup S(m,n) over 1 core (\xc3\x97)", 1);
	clip_area(cr, a);
	/* the +-S band: upper edge forwards, lower edge back */
	rgb(cr, PMA_PLOT_C_PRED, 0.18);
	for (size_t i = 0; i < pd->ncores; i++)
		if (isfinite(q[i].S)) {
			double x = pma_plot_px_x(a, pd->cores[i]), y = pma_plot_px_y(a, q[i].S + pd->S_err[i]);
			if (!started++)
				cairo_move_to(cr, x, y);
			else
				cairo_line_to(cr, x, y);
		}
	for (size_t i = pd->ncores; i-- > 0;)
		if (isfinite(q[i].S))
			cairo_line_to(cr, pma_plot_px_x(a, pd->cores[i]),
				      pma_plot_px_y(a, fmax(0, q[i].S - pd->S_err[i])));
	cairo_close_path(cr);
	cairo_fill(cr);
	/* ideal S = n */
	rgb(cr, PMA_PLOT_C_IDEAL, 1);
	cairo_set_line_width(cr, 1.5);
	{
		const double dash[] = { 6, 4 };
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, pma_plot_px_x(a, 0), pma_plot_px_y(a, 0));
		cairo_line_to(cr, pma_plot_px_x(a, a->xmax), pma_plot_px_y(a, a->xmax));
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	/* predicted S */
	polyline(cr, a, pd->cores, &q[0].S, sizeof(*q), pd->ncores);
	/* measured points */
	for (size_t i = 0; i < r->measured.n; i++)
		marker(cr, a, r->measured.cores[i], r->measured.S[i], 5, PMA_PLOT_C_MEAS);
	/* 95% and optimal points (eq. 11) */
	if (r->opt.n_best) {
		for (size_t i = 0; i < pd->ncores; i++)
			if (pd->cores[i] == r->opt.n_95)
				marker(cr, a, pd->cores[i], q[i].S, 6, PMA_PLOT_C_95);
		marker(cr, a, r->opt.n_best, r->opt.S_best, 6, PMA_PLOT_C_OPT);
	}
	cairo_restore(cr);
	snprintf(lab_pred, sizeof(lab_pred), "predicted S (%s) \xc2\xb1 uncertainty",
		 pma_estimator_name(r->par.est));
	le[nl++] = (struct legend_entry){ PMA_PLOT_C_PRED, 0, lab_pred };
	le[nl++] = (struct legend_entry){ PMA_PLOT_C_IDEAL, 0, "ideal S = n" };
	if (r->opt.n_best) {
		snprintf(lab_opt, sizeof(lab_opt), "optimal n = %u (S = %.2f)", r->opt.n_best, r->opt.S_best);
		snprintf(lab_95, sizeof(lab_95), "95%% of best: n = %u", r->opt.n_95);
		le[nl++] = (struct legend_entry){ PMA_PLOT_C_OPT, 1, lab_opt };
		le[nl++] = (struct legend_entry){ PMA_PLOT_C_95, 1, lab_95 };
	}
	if (r->measured.n)
		le[nl++] = (struct legend_entry){ PMA_PLOT_C_MEAS, 1, "measured S (runs' wall time)" };
	legend(cr, a, le, nl, 0);
}

static void draw_profile(cairo_t *cr, const struct pma_result *r, int w, int h,
			 const struct pma_plot_axes *a)
{
	const struct pma_profile *p = pma_result_profile(r);
	const struct pma_series *s = p->series;
	double div, A_inf = r->par.by_est[r->par.est].A_inf;
	const char *u;
	char xt[96], lab[64];
	struct legend_entry le[2];

	time_unit(p->T_cp_ns, &div, &u);
	snprintf(xt, sizeof(xt), "critical-path time T_cp (%s)", u);
	frame(cr, r, PMA_PLOT_PROFILE, w, h, a, xt, "active threads A(m,\xe2\x88\x9e,t)", 1);
	clip_area(cr, a);
	/* each bucket as a step: its mean A over its width */
	rgb(cr, PMA_PLOT_C_PRED, 0.25);
	cairo_move_to(cr, pma_plot_px_x(a, 0), pma_plot_px_y(a, 0));
	for (size_t i = 0; i < s->n; i++) {
		double A = s->dT_ns[i] > 0 ? s->AdT_ns[i] / s->dT_ns[i] : 0;
		double x0 = (double)i * s->width_ns / div, x1 = fmin(x0 + s->dT_ns[i] / div, a->xmax);
		cairo_line_to(cr, pma_plot_px_x(a, x0), pma_plot_px_y(a, A));
		cairo_line_to(cr, pma_plot_px_x(a, x1), pma_plot_px_y(a, A));
	}
	cairo_line_to(cr, pma_plot_px_x(a, a->xmax), pma_plot_px_y(a, 0));
	cairo_close_path(cr);
	cairo_fill_preserve(cr);
	rgb(cr, PMA_PLOT_C_PRED, 1);
	cairo_set_line_width(cr, 1.5);
	cairo_stroke(cr);
	/* the mean, A(m,inf) (eq. 4) */
	rgb(cr, PMA_PLOT_C_OPT, 1);
	cairo_set_line_width(cr, 1.5);
	cairo_move_to(cr, a->left_px, pma_plot_px_y(a, A_inf));
	cairo_line_to(cr, a->left_px + a->width_px, pma_plot_px_y(a, A_inf));
	cairo_stroke(cr);
	cairo_restore(cr);
	snprintf(lab, sizeof(lab), "mean A(m,\xe2\x88\x9e) = %.2f", A_inf);
	le[0] = (struct legend_entry){ PMA_PLOT_C_PRED, 2, "A(m,\xe2\x88\x9e,t) per bucket" };
	le[1] = (struct legend_entry){ PMA_PLOT_C_OPT, 0, lab };
	legend(cr, a, le, 2, 1);
}

static void draw_histogram(cairo_t *cr, const struct pma_result *r, int w, int h,
			   const struct pma_plot_axes *a)
{
	const struct pma_profile *p = pma_result_profile(r);
	struct legend_entry le[1];

	frame(cr, r, PMA_PLOT_HISTOGRAM, w, h, a, "active threads (level k = \xe2\x8c\x88" "A(m,\xe2\x88\x9e,t)\xe2\x8c\x89)",
	      "share of critical-path time (%)", 1);
	clip_area(cr, a);
	rgb(cr, PMA_PLOT_C_PRED, 1);
	for (size_t k = 1; k < p->nbins; k++) {
		double pct = 100 * pma_profile_level_ns(p, k) / p->T_cp_ns;
		double x0 = pma_plot_px_x(a, (double)k - 0.4), x1 = pma_plot_px_x(a, (double)k + 0.4);
		double y = pma_plot_px_y(a, pct), y0 = pma_plot_px_y(a, 0);
		if (pct > 0) {
			cairo_rectangle(cr, x0, y, fmax(x1 - x0, 1), fmax(y0 - y, 1));
			cairo_fill(cr);
		}
	}
	cairo_restore(cr);
	le[0] = (struct legend_entry){ PMA_PLOT_C_PRED, 2, "T_cp at level k" };
	legend(cr, a, le, 1, 1);
}

/* Per thread and pixel column: ns running and runnable, the thread's life span. */
struct tl_cols {
	float *run, *rq; /* [threads * cols] */
	uint64_t *first, *last;
};

static size_t thread_row(const struct pma_exact *x, const uint32_t *tids, size_t nt, uint32_t tid)
{
	size_t lo = 0, hi = nt;

	(void)x;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nt && tids[lo] == tid ? lo : nt;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t p = *(const uint32_t *)a, q = *(const uint32_t *)b;
	return p < q ? -1 : p > q;
}

/* Rows are threads in tid order (creation order on Linux); each row's pixel columns take the state
 * that held most of the column's time (running over runnable over blocked on ties), so the cost
 * is O(slices + threads x columns) whatever the trace's length. */
static int draw_timeline(cairo_t *cr, const struct pma_result *r, int w, int h,
			 const struct pma_plot_axes *a)
{
	const struct pma_exact *x = r->run->exact;
	size_t nt = pma_exact_thread_count(x), ns, ncp = 0, cols = (size_t)a->width_px;
	const struct pma_slice *sl = pma_exact_slices(x, &ns);
	double t0 = r->run->xst.first_t_ns, span = r->run->xst.last_t_ns - t0;
	double col_ns = span > 0 ? span / (double)cols : 1, row_h = a->height_px / (double)(nt ? nt : 1);
	double div;
	const char *u;
	char xt[96];
	uint32_t *tids = malloc((nt ? nt : 1) * sizeof(*tids));
	float *run = calloc((nt ? nt : 1) * cols, sizeof(float));
	float *rq = calloc((nt ? nt : 1) * cols, sizeof(float));
	uint64_t *first = malloc((nt ? nt : 1) * sizeof(uint64_t));
	uint64_t *last = calloc(nt ? nt : 1, sizeof(uint64_t));
	struct pma_cp_seg *cp = NULL;
	struct legend_entry le[4];
	int rc = -1;

	if (!tids || !run || !rq || !first || !last || pma_exact_critical_path(x, &cp, &ncp) < 0)
		goto out;
	for (size_t i = 0; i < nt; i++) {
		uint32_t tgid;
		const char *comm;
		tids[i] = pma_exact_thread(x, i, &tgid, &comm);
		first[i] = UINT64_MAX;
	}
	qsort(tids, nt, sizeof(*tids), cmp_u32);
	for (size_t i = 0; i < ns; i++) {
		size_t row = thread_row(x, tids, nt, sl[i].tid);
		double s0 = ((double)sl[i].t0_ns - t0) / col_ns, s1 = ((double)sl[i].t1_ns - t0) / col_ns;
		float *acc = sl[i].kind == PMA_SLICE_RUNNING ? run : rq;
		if (row >= nt)
			continue;
		if (sl[i].t0_ns < first[row])
			first[row] = sl[i].t0_ns;
		if (sl[i].t1_ns > last[row])
			last[row] = sl[i].t1_ns;
		s0 = fmax(s0, 0);
		s1 = fmin(s1, (double)cols);
		for (size_t c = (size_t)s0; c < cols && (double)c < s1; c++) {
			double d = fmin(s1, (double)c + 1) - fmax(s0, (double)c);
			acc[row * cols + c] += (float)d;
		}
	}
	time_unit(span, &div, &u);
	snprintf(xt, sizeof(xt), "time since the first scheduler event (%s)", u);
	frame(cr, r, PMA_PLOT_TIMELINE, w, h, a, xt, "", 0);
	/* row labels: tid and name, as many as fit */
	cairo_set_font_size(cr, 10);
	for (size_t i = 0; i < nt && row_h >= 9; i++) {
		const char *comm = NULL;
		char lab[64];
		pma_exact_tgid(x, tids[i], &comm);
		snprintf(lab, sizeof(lab), "%u %.20s", tids[i], comm ? comm : "");
		rgb(cr, 0x000000, 1);
		text_at(cr, a->left_px - 6, a->top_px + row_h * ((double)i + 0.5) + 3.5, 10, 1, lab);
	}
	clip_area(cr, a);
	for (size_t i = 0; i < nt; i++) {
		double y = a->top_px + row_h * (double)i, hh = fmax(row_h * 0.8, 1);
		size_t c = 0;
		while (c < cols) {
			double live0 = ((double)first[i] - t0) / col_ns, live1 = ((double)last[i] - t0) / col_ns;
			unsigned color = 0xffffff;
			size_t e = c;
			/* the state of column c, and how far it runs */
			for (; e < cols; e++) {
				float fr = run[i * cols + e], fq = rq[i * cols + e];
				int alive = (double)e + 1 > live0 && (double)e < live1;
				unsigned ce = fr >= fq && fr > 0.05f ? PMA_PLOT_C_RUNNING :
					      fq > 0.05f ? PMA_PLOT_C_RUNNABLE :
					      alive ? PMA_PLOT_C_BLOCKED : 0xffffff;
				if (e == c)
					color = ce;
				else if (ce != color)
					break;
			}
			if (color != 0xffffff) {
				rgb(cr, color, 1);
				cairo_rectangle(cr, a->left_px + (double)c, y + (row_h - hh) / 2,
						(double)(e - c), hh);
				cairo_fill(cr);
			}
			c = e;
		}
	}
	/* the critical path over the rows, joined at the wake edges; pieces within one pixel of
	 * each other on the same row merge */
	rgb(cr, PMA_PLOT_C_CP, 1);
	cairo_set_line_width(cr, fmax(1, fmin(3, row_h * 0.3)));
	{
		double px_prev = -1, py_prev = -1;
		for (size_t i = 0; i < ncp; i++) {
			size_t row = thread_row(x, tids, nt, cp[i].tid);
			double px0 = a->left_px + ((double)cp[i].t0_ns - t0) / col_ns;
			double px1 = a->left_px + ((double)cp[i].t1_ns - t0) / col_ns;
			double py = a->top_px + row_h * ((double)row + 0.5);
			if (row >= nt)
				continue;
			if (py == py_prev && px0 <= px_prev + 1) {
				cairo_line_to(cr, px1, py);
			} else {
				if (px_prev >= 0)
					cairo_line_to(cr, px0, py); /* the wake edge */
				else
					cairo_move_to(cr, px0, py);
				cairo_line_to(cr, px1, py);
			}
			px_prev = px1;
			py_prev = py;
		}
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	le[0] = (struct legend_entry){ PMA_PLOT_C_RUNNING, 2, "running" };
	le[1] = (struct legend_entry){ PMA_PLOT_C_RUNNABLE, 2, "runnable (waiting for a CPU)" };
	le[2] = (struct legend_entry){ PMA_PLOT_C_BLOCKED, 2, "blocked" };
	le[3] = (struct legend_entry){ PMA_PLOT_C_CP, 0, "critical path" };
	legend(cr, a, le, 4, 1);
	rc = 0;
out:
	free(tids);
	free(run);
	free(rq);
	free(first);
	free(last);
	free(cp);
	return rc;
}

static void draw_omega(cairo_t *cr, const struct pma_result *r, int w, int h,
		       const struct pma_plot_axes *a)
{
	const struct pma_mem_eval *m = &r->mem;
	const struct pma_mem_cal *c = &m->cal;
	char lab_fit[96];
	struct legend_entry le[2];
	size_t nl = 0;
	int have_fit = c->params.model != PMA_MEM_NONE;

	frame(cr, r, PMA_PLOT_OMEGA, w, h, a, "cores n",
	      "\xcf\x89(n) = C(n) / C(1) \xe2\x88\x92 1 (extra cost, fraction)", 1);
	clip_area(cr, a);
	if (have_fit) {
		polyline(cr, a, r->pred.cores, m->omega, sizeof(double), m->ncores);
	}
	for (size_t i = 0; i < c->npts; i++)
		if (isfinite(c->omega_meas[i]))
			marker(cr, a, c->pts[i].cores, c->omega_meas[i], 5, PMA_PLOT_C_MEAS);
	cairo_restore(cr);
	if (have_fit) {
		snprintf(lab_fit, sizeof(lab_fit), "fit: %s model, %s placement",
			 pma_mem_model_name(c->params.model), m->placement);
		le[nl++] = (struct legend_entry){ PMA_PLOT_C_PRED, 0, lab_fit };
	}
	le[nl++] = (struct legend_entry){ PMA_PLOT_C_MEAS, 1, c->source && strcmp(c->source, "cycles") == 0 ?
		"measured C(n), cycles" : "measured C(n), CPU time" };
	legend(cr, a, le, nl, 0);
	if (!have_fit) {
		rgb(cr, 0xd62728, 1);
		text_at(cr, a->left_px + a->width_px / 2, a->top_px + a->height_px / 2, 14, 0.5,
			"no fit: see the notes for the calibration runs that are missing");
	}
}

/* ---- the active-interference plot, continued ---- */

static void draw_interference(cairo_t *cr, const struct pma_result *r, int w, int h,
			      const struct pma_plot_axes *a)
{
	const struct pma_interf_result *x = &r->interf;
	const struct pma_sens_result *s = &x->sens;
	const double med0 = s->points[0].runtime_ns;
	const int known = x->estimate != PMA_INTERF_EST_NONE;
	char xt[96], lab_thr[64], lab_need[128];
	struct legend_entry le[4];
	size_t nl = 0;
	int bounded = known && s->verdict == PMA_SENS_BOUNDED && isfinite(s->need_lo) && isfinite(s->need_hi);

	if (!known)
		snprintf(xt, sizeof(xt), "%s (the resource left is unknown)", x->bandwidth ? "BWThrs k" : "CSThrs k");
	else
		snprintf(xt, sizeof(xt), "%s", x->bandwidth ? "memory bandwidth left B \xe2\x88\x92 k\xc2\xb7" "BW1 (GB/s)"
						     : "cache capacity left C(k) (MB)");
	frame(cr, r, PMA_PLOT_INTERFERENCE, w, h, a, xt, "slowdown against k = 0 (%, CPU time)", 1);
	clip_area(cr, a);
	/* the bound on the need (§5.2), per process times p: the resource left between k_bad and k_ok */
	if (bounded) {
		double div = x->bandwidth ? 1e9 : 1048576.0, lo = s->need_lo * x->p / div, hi = s->need_hi * x->p / div;
		rgb(cr, PMA_PLOT_C_NEED, 0.18);
		cairo_rectangle(cr, pma_plot_px_x(a, lo), a->top_px, pma_plot_px_x(a, hi) - pma_plot_px_x(a, lo),
				a->height_px);
		cairo_fill(cr);
	}
	/* no slowdown, and the degradation threshold */
	cairo_set_line_width(cr, 1.5);
	rgb(cr, PMA_PLOT_C_IDEAL, 1);
	cairo_move_to(cr, a->left_px, pma_plot_px_y(a, 0));
	cairo_line_to(cr, a->left_px + a->width_px, pma_plot_px_y(a, 0));
	cairo_stroke(cr);
	{
		const double dash[] = { 6, 4 };
		rgb(cr, PMA_PLOT_C_95, 1);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, a->left_px, pma_plot_px_y(a, 100 * x->threshold));
		cairo_line_to(cr, a->left_px + a->width_px, pma_plot_px_y(a, 100 * x->threshold));
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	/* each level's range (fastest to slowest repetition) and the line through the medians */
	rgb(cr, PMA_PLOT_C_PRED, 1);
	cairo_set_line_width(cr, 2);
	for (size_t l = 0; l < s->npoints; l++) {
		double px = pma_plot_px_x(a, interference_x(x, l));
		cairo_move_to(cr, px, pma_plot_px_y(a, 100 * (s->points[l].min_ns / med0 - 1)));
		cairo_line_to(cr, px, pma_plot_px_y(a, 100 * (s->points[l].max_ns / med0 - 1)));
		cairo_stroke(cr);
	}
	cairo_set_line_width(cr, 2.5);
	for (size_t l = 0; l < s->npoints; l++) {
		double px = pma_plot_px_x(a, interference_x(x, l)), py = pma_plot_px_y(a, 100 * s->points[l].slowdown);
		if (l == 0)
			cairo_move_to(cr, px, py);
		else
			cairo_line_to(cr, px, py);
	}
	cairo_stroke(cr);
	for (size_t l = 0; l < s->npoints; l++)
		marker(cr, a, interference_x(x, l), 100 * s->points[l].slowdown, 5.5,
		       s->points[l].degraded ? PMA_PLOT_C_OPT : PMA_PLOT_C_PRED);
	cairo_restore(cr);
	le[nl++] = (struct legend_entry){ PMA_PLOT_C_PRED, 1, "median slowdown, bar: fastest to slowest run" };
	for (size_t l = 0; l < s->npoints; l++)
		if (s->points[l].degraded) {
			le[nl++] = (struct legend_entry){ PMA_PLOT_C_OPT, 1, "degraded (beyond the noise of the runs)" };
			break;
		}
	snprintf(lab_thr, sizeof(lab_thr), "threshold %.0f%%", 100 * x->threshold);
	le[nl++] = (struct legend_entry){ PMA_PLOT_C_95, 0, lab_thr };
	if (bounded) {
		snprintf(lab_need, sizeof(lab_need), "needed: k_ok = %d to k_bad = %d (p = %u)", s->k_ok, s->k_bad, x->p);
		le[nl++] = (struct legend_entry){ PMA_PLOT_C_NEED, 2, lab_need };
	}
	/* top left: the levels sit at the right (most resource left) or low (few interferers) */
	legend(cr, a, le, nl, 0);
}

/* ---- the energy plot ---- */

/* Legend entries at most: zones beyond are summed up in one line. */
#define ENERGY_LEGEND_MAX 12

/* Each zone's power as steps: a flat line over each interval between two readings at its mean
 * power, joined to the next interval when they touch, broken where the power is NAN. */
static void draw_energy(cairo_t *cr, const struct pma_result *r, int w, int h,
			const struct pma_plot_axes *a)
{
	const struct pma_run_power *rp = &r->run_power;
	const struct pma_power_series *ps = &rp->s;
	char xt[96], labels[ENERGY_LEGEND_MAX][160];
	struct legend_entry le[ENERGY_LEGEND_MAX];
	size_t nl = 0;

	snprintf(xt, sizeof(xt), "time since the run began (s); %s readings",
		 rp->source ? rp->source : "energy");
	frame(cr, r, PMA_PLOT_ENERGY, w, h, a, xt,
	      "power (W), \xce\x94" "E / \xce\x94" "t between readings", 1);
	clip_area(cr, a);
	cairo_set_line_width(cr, 2);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	for (size_t z = 0; z < ps->nzones; z++) {
		const double *pw = &ps->w[z * ps->n];
		int started = 0;
		rgb(cr, pma_plot_zone_color(z), 1);
		for (size_t k = 0; k < ps->n; k++) {
			double y = pma_plot_px_y(a, pw[k]);
			if (!isfinite(pw[k])) {
				started = 0;
				continue;
			}
			if (started && ps->t0_s[k] == ps->t1_s[k - 1])
				cairo_line_to(cr, pma_plot_px_x(a, ps->t0_s[k]), y);
			else
				cairo_move_to(cr, pma_plot_px_x(a, ps->t0_s[k]), y);
			cairo_line_to(cr, pma_plot_px_x(a, ps->t1_s[k]), y);
			started = 1;
		}
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	for (size_t z = 0; z < ps->nzones && nl < ENERGY_LEGEND_MAX; z++) {
		if (nl == ENERGY_LEGEND_MAX - 1 && ps->nzones > ENERGY_LEGEND_MAX) {
			snprintf(labels[nl], sizeof(labels[nl]), "and %zu more zones", ps->nzones - z);
			le[nl] = (struct legend_entry){ 0x999999, 0, labels[nl] };
			nl++;
			break;
		}
		if (isfinite(ps->mean_w[z]))
			snprintf(labels[nl], sizeof(labels[nl]), "%s: mean %.3g W", rp->labels[z],
				 ps->mean_w[z]);
		else
			snprintf(labels[nl], sizeof(labels[nl]), "%s", rp->labels[z]);
		le[nl] = (struct legend_entry){ pma_plot_zone_color(z), 0, labels[nl] };
		nl++;
	}
	legend(cr, a, le, nl, 1);
}

/* Draws plot k on cr (a w x h surface). Returns 0 or -1 (not available, out of memory). */
static int draw(cairo_t *cr, const struct pma_result *r, enum pma_plot_kind k, int w, int h)
{
	struct pma_plot_axes a;

	if (pma_plot_axes_of(r, k, w, h, &a) < 0)
		return -1;
	switch (k) {
	case PMA_PLOT_SPEEDUP:
		draw_speedup(cr, r, w, h, &a);
		return 0;
	case PMA_PLOT_PROFILE:
		draw_profile(cr, r, w, h, &a);
		return 0;
	case PMA_PLOT_HISTOGRAM:
		draw_histogram(cr, r, w, h, &a);
		return 0;
	case PMA_PLOT_TIMELINE:
		return draw_timeline(cr, r, w, h, &a);
	case PMA_PLOT_OMEGA:
		draw_omega(cr, r, w, h, &a);
		return 0;
	case PMA_PLOT_INTERFERENCE:
		draw_interference(cr, r, w, h, &a);
		return 0;
	case PMA_PLOT_ENERGY:
		draw_energy(cr, r, w, h, &a);
		return 0;
	default:
		return -1;
	}
}

/* Growable memory sink for cairo's SVG stream. */
struct membuf {
	char *p;
	size_t n, cap;
};

static cairo_status_t mem_write(void *closure, const unsigned char *data, unsigned int len)
{
	struct membuf *b = closure;

	if (PM_GROW(b->p, b->cap, b->n + len + 1) < 0)
		return CAIRO_STATUS_NO_MEMORY;
	memcpy(b->p + b->n, data, len);
	b->n += len;
	b->p[b->n] = '\0';
	return CAIRO_STATUS_SUCCESS;
}

/* Draws onto surface s, finishes it and reports cairo's status. Returns 0 or -1 with why. */
static int draw_on(cairo_surface_t *s, const struct pma_result *r, enum pma_plot_kind k, int w,
		   int h, char *why, size_t whysize)
{
	cairo_t *cr = cairo_create(s);
	cairo_status_t st;
	int rc = draw(cr, r, k, w, h);

	st = cairo_status(cr);
	cairo_destroy(cr);
	if (rc < 0 && st == CAIRO_STATUS_SUCCESS) {
		snprintf(why, whysize, "out of memory drawing the %s plot", pma_plot_name(k));
		return -1;
	}
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(why, whysize, "cairo: %s", cairo_status_to_string(st));
		return -1;
	}
	return 0;
}

static cairo_status_t file_write(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* Draws plot k of r as format f into the stream wf(closure). Returns 0 or -1 with why. */
static int render(const struct pma_result *r, enum pma_plot_kind k, enum pma_plot_format f,
		  cairo_write_func_t wf, void *closure, char *why, size_t whysize)
{
	cairo_surface_t *s;
	cairo_status_t st;
	const char *na;
	int w, h, rc;

	if (!pma_plot_available(r, k, &na)) {
		snprintf(why, whysize, "no %s plot: %s", pma_plot_name(k), na);
		return -1;
	}
	pma_plot_size(r, k, &w, &h);
	s = f == PMA_PLOT_SVG ? cairo_svg_surface_create_for_stream(wf, closure, w, h) :
				cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	rc = draw_on(s, r, k, w, h, why, whysize);
	if (rc == 0 && f == PMA_PLOT_PNG &&
	    (st = cairo_surface_write_to_png_stream(s, wf, closure)) != CAIRO_STATUS_SUCCESS) {
		snprintf(why, whysize, "cairo: %s", cairo_status_to_string(st));
		rc = -1;
	}
	cairo_surface_finish(s);
	if (rc == 0 && (st = cairo_surface_status(s)) != CAIRO_STATUS_SUCCESS) {
		snprintf(why, whysize, "cairo: %s", cairo_status_to_string(st));
		rc = -1;
	}
	cairo_surface_destroy(s);
	return rc;
}

int pma_plot_write(const struct pma_result *r, enum pma_plot_kind k, enum pma_plot_format f,
		   const char *path, char *why, size_t whysize)
{
	char inner[256];
	FILE *out = fopen(path, "wb");
	int rc;

	if (!out) {
		snprintf(why, whysize, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	rc = render(r, k, f, file_write, out, inner, sizeof(inner));
	if (rc < 0)
		snprintf(why, whysize, "cannot write '%s': %s", path,
			 ferror(out) ? strerror(errno) : inner);
	if (fclose(out) != 0 && rc == 0) {
		snprintf(why, whysize, "cannot write '%s': %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

int pma_plot_svg(const struct pma_result *r, enum pma_plot_kind k, char **svg, size_t *len,
		 char *why, size_t whysize)
{
	struct membuf b = { 0 };

	*svg = NULL;
	*len = 0;
	if (render(r, k, PMA_PLOT_SVG, mem_write, &b, why, whysize) < 0) {
		free(b.p);
		return -1;
	}
	*svg = b.p;
	*len = b.n;
	return 0;
}

void pma_plot_cleanup(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}
