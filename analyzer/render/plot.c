/* SPDX-License-Identifier: MIT */
/* plot.c: the plots of plot.h, drawn with cairo (SVG and PNG surfaces): their names, whether r has
 * their data, their axes, the drawing helpers (plot_draw.h) and the interference plot; the other
 * plots are drawn by the sections that have them (result/section.h, report_<section>.c). */
#include "plot.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pm_util.h"
#include "plot_draw.h"

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

/* Time unit for an axis whose largest value is max_ns: divisor and name. */
void pma_plot_time_unit(double max_ns, double *div, const char **name)
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
		const struct pma_prediction *q = r->pred.by_est[r->par.est];
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
		pma_plot_time_unit(p->T_cp_ns, &div, &u);
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
		pma_plot_time_unit(span, &div, &u);
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

void pma_plot_rgb(cairo_t *cr, unsigned c, double alpha)
{
	cairo_set_source_rgba(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
			      (c & 0xff) / 255.0, alpha);
}

void pma_plot_text_at(cairo_t *cr, double x, double y, double size, double align, const char *s)
{
	cairo_text_extents_t te;

	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &te);
	cairo_move_to(cr, x - align * te.x_advance, y);
	cairo_show_text(cr, s);
}

/* Title, caption (program and machine), axis frame with ticks and axis titles. */
void pma_plot_frame(cairo_t *cr, const struct pma_result *r, enum pma_plot_kind k, int w, int h,
		  const struct pma_plot_axes *a, const char *xtitle, const char *ytitle,
		  int yticks)
{
	char cap[512], num[32];
	size_t off = 0;
	double xs = tick_step(a->xmax - a->xmin), ys = tick_step(a->ymax - a->ymin);

	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	pma_plot_rgb(cr, 0xffffff, 1);
	cairo_paint(cr);
	pma_plot_rgb(cr, 0x000000, 1);
	pma_plot_text_at(cr, w / 2.0, 28, 17, 0.5, pma_plot_title(k));

	/* caption: the program's argv and the machine */
	off += (size_t)snprintf(cap, sizeof(cap), "program:");
	for (size_t i = 0; i < r->t->meta.ncommand && off < sizeof(cap) - 1; i++)
		off += (size_t)snprintf(cap + off, sizeof(cap) - off, " %s", r->t->meta.command[i]);
	if (off >= sizeof(cap))
		off = sizeof(cap) - 1;
	pma_plot_rgb(cr, 0x444444, 1);
	pma_plot_text_at(cr, 12, h - 26, 12, 0, cap);
	snprintf(cap, sizeof(cap), "machine: %s, %.0f PUs, %.0f cores, %.0f sockets, Linux %s; m = %.0f threads",
		 r->t->meta.hostname ? r->t->meta.hostname : "unknown host", r->t->meta.topo.pus,
		 r->t->meta.topo.cores, r->t->meta.topo.packages,
		 r->t->meta.kernel_release ? r->t->meta.kernel_release : "?", r->par.m);
	if (r->kind == PMA_RESULT_INTERFERENCE) /* no thread count is computed for an interference trace */
		*strrchr(cap, ';') = '\0';
	pma_plot_text_at(cr, 12, h - 10, 12, 0, cap);

	/* grid and ticks */
	cairo_set_line_width(cr, 1);
	for (double x = ceil(a->xmin / xs) * xs; x <= a->xmax + 1e-9 * xs; x += xs) {
		double px = round(pma_plot_px_x(a, x)) + 0.5;
		pma_plot_rgb(cr, 0xeeeeee, 1);
		cairo_move_to(cr, px, a->top_px);
		cairo_line_to(cr, px, a->top_px + a->height_px);
		cairo_stroke(cr);
		pma_plot_rgb(cr, 0x000000, 1);
		snprintf(num, sizeof(num), "%g", x);
		pma_plot_text_at(cr, px, a->top_px + a->height_px + 16, 11, 0.5, num);
	}
	for (double y = ceil(a->ymin / ys) * ys; yticks && y <= a->ymax + 1e-9 * ys; y += ys) {
		double py = round(pma_plot_px_y(a, y)) + 0.5;
		pma_plot_rgb(cr, 0xeeeeee, 1);
		cairo_move_to(cr, a->left_px, py);
		cairo_line_to(cr, a->left_px + a->width_px, py);
		cairo_stroke(cr);
		pma_plot_rgb(cr, 0x000000, 1);
		snprintf(num, sizeof(num), "%g", fabs(y) < 1e-12 * ys ? 0 : y);
		pma_plot_text_at(cr, a->left_px - 6, py + 4, 11, 1, num);
	}
	pma_plot_rgb(cr, 0x000000, 1);
	cairo_rectangle(cr, a->left_px + 0.5, a->top_px + 0.5, a->width_px, a->height_px);
	cairo_stroke(cr);
	pma_plot_text_at(cr, a->left_px + a->width_px / 2, a->top_px + a->height_px + 36, 13, 0.5, xtitle);
	cairo_save(cr);
	cairo_translate(cr, 18, a->top_px + a->height_px / 2);
	cairo_rotate(cr, -M_PI / 2);
	pma_plot_text_at(cr, 0, 0, 13, 0.5, ytitle);
	cairo_restore(cr);
}

void pma_plot_legend(cairo_t *cr, const struct pma_plot_axes *a, const struct pma_plot_legend_entry *e,
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
	pma_plot_rgb(cr, 0xffffff, 0.9);
	cairo_rectangle(cr, x, y, wmax + 42, lh * (double)n + 8);
	cairo_fill_preserve(cr);
	pma_plot_rgb(cr, 0x999999, 1);
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
	for (size_t i = 0; i < n; i++) {
		double cy = y + 4 + lh * (double)i + lh / 2;
		pma_plot_rgb(cr, e[i].color, 1);
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
		pma_plot_rgb(cr, 0x000000, 1);
		pma_plot_text_at(cr, x + 34, cy + 4, 12, 0, e[i].label);
	}
}

void pma_plot_clip_area(cairo_t *cr, const struct pma_plot_axes *a)
{
	cairo_save(cr);
	cairo_rectangle(cr, a->left_px, a->top_px, a->width_px, a->height_px);
	cairo_clip(cr);
}

void pma_plot_marker(cairo_t *cr, const struct pma_plot_axes *a, double x, double y, double rad,
		   unsigned color)
{
	pma_plot_rgb(cr, color, 1);
	cairo_arc(cr, pma_plot_px_x(a, x), pma_plot_px_y(a, y), rad, 0, 2 * M_PI);
	cairo_fill(cr);
}

/* The headline series as a line through (x[i], y_i), y_i a double every ystride bytes from y,
 * broken where y_i is not finite (saturated). */
void pma_plot_polyline(cairo_t *cr, const struct pma_plot_axes *a, const uint32_t *x,
		     const double *y, size_t ystride, size_t n)
{
	int started = 0;

	pma_plot_rgb(cr, PMA_PLOT_C_PRED, 1);
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

/* ---- the active-interference plot, continued ---- */

static void draw_interference(cairo_t *cr, const struct pma_result *r, int w, int h,
			      const struct pma_plot_axes *a)
{
	const struct pma_interf_result *x = &r->interf;
	const struct pma_sens_result *s = &x->sens;
	const double med0 = s->points[0].runtime_ns;
	const int known = x->estimate != PMA_INTERF_EST_NONE;
	char xt[96], lab_thr[64], lab_need[128];
	struct pma_plot_legend_entry le[4];
	size_t nl = 0;
	int bounded = known && s->verdict == PMA_SENS_BOUNDED && isfinite(s->need_lo) && isfinite(s->need_hi);

	if (!known)
		snprintf(xt, sizeof(xt), "%s (the resource left is unknown)", x->bandwidth ? "BWThrs k" : "CSThrs k");
	else
		snprintf(xt, sizeof(xt), "%s", x->bandwidth ? "memory bandwidth left B \xe2\x88\x92 k\xc2\xb7" "BW1 (GB/s)"
						     : "cache capacity left C(k) (MB)");
	pma_plot_frame(cr, r, PMA_PLOT_INTERFERENCE, w, h, a, xt, "slowdown against k = 0 (%, CPU time)", 1);
	pma_plot_clip_area(cr, a);
	/* the bound on the need (§5.2), per process times p: the resource left between k_bad and k_ok */
	if (bounded) {
		double div = x->bandwidth ? 1e9 : 1048576.0, lo = s->need_lo * x->p / div, hi = s->need_hi * x->p / div;
		pma_plot_rgb(cr, PMA_PLOT_C_NEED, 0.18);
		cairo_rectangle(cr, pma_plot_px_x(a, lo), a->top_px, pma_plot_px_x(a, hi) - pma_plot_px_x(a, lo),
				a->height_px);
		cairo_fill(cr);
	}
	/* no slowdown, and the degradation threshold */
	cairo_set_line_width(cr, 1.5);
	pma_plot_rgb(cr, PMA_PLOT_C_IDEAL, 1);
	cairo_move_to(cr, a->left_px, pma_plot_px_y(a, 0));
	cairo_line_to(cr, a->left_px + a->width_px, pma_plot_px_y(a, 0));
	cairo_stroke(cr);
	{
		const double dash[] = { 6, 4 };
		pma_plot_rgb(cr, PMA_PLOT_C_95, 1);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, a->left_px, pma_plot_px_y(a, 100 * x->threshold));
		cairo_line_to(cr, a->left_px + a->width_px, pma_plot_px_y(a, 100 * x->threshold));
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	/* each level's range (fastest to slowest repetition) and the line through the medians */
	pma_plot_rgb(cr, PMA_PLOT_C_PRED, 1);
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
		pma_plot_marker(cr, a, interference_x(x, l), 100 * s->points[l].slowdown, 5.5,
		       s->points[l].degraded ? PMA_PLOT_C_OPT : PMA_PLOT_C_PRED);
	cairo_restore(cr);
	le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_PRED, 1, "median slowdown, bar: fastest to slowest run" };
	for (size_t l = 0; l < s->npoints; l++)
		if (s->points[l].degraded) {
			le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_OPT, 1, "degraded (beyond the noise of the runs)" };
			break;
		}
	snprintf(lab_thr, sizeof(lab_thr), "threshold %.0f%%", 100 * x->threshold);
	le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_95, 0, lab_thr };
	if (bounded) {
		snprintf(lab_need, sizeof(lab_need), "needed: k_ok = %d to k_bad = %d (p = %u)", s->k_ok, s->k_bad, x->p);
		le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_NEED, 2, lab_need };
	}
	/* top left: the levels sit at the right (most resource left) or low (few interferers) */
	pma_plot_legend(cr, a, le, nl, 0);
}

/* ---- the energy plot ---- */

const struct pma_section_plot *pma_section_plot_of(int k)
{
	for (size_t i = 0; i < pma_nsections; i++)
		for (size_t j = 0; j < PMA_SECTION_PLOTS && pma_sections[i]->plots[j].draw; j++)
			if (pma_sections[i]->plots[j].kind == k)
				return &pma_sections[i]->plots[j];
	return NULL;
}

/* Draws plot k on cr (a w x h surface): the interference plot here, the others by the section
 * that has them. Returns 0 or -1 (not available, out of memory). */
static int draw(cairo_t *cr, const struct pma_result *r, enum pma_plot_kind k, int w, int h)
{
	const struct pma_section_plot *p = k == PMA_PLOT_INTERFERENCE ? NULL : pma_section_plot_of(k);
	struct pma_plot_axes a;

	if (pma_plot_axes_of(r, k, w, h, &a) < 0)
		return -1;
	if (k == PMA_PLOT_INTERFERENCE) {
		draw_interference(cr, r, w, h, &a);
		return 0;
	}
	return p ? p->draw(cr, r, w, h, &a) : -1;
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
	const char *na;
	FILE *out;
	int rc;

	if (!pma_plot_available(r, k, &na)) {
		snprintf(why, whysize, "no %s plot: %s", pma_plot_name(k), na);
		return -1;
	}
	if (!(out = fopen(path, "wb"))) {
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
	if (rc < 0)
		(void)unlink(path); /* no half-written plot left behind */
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
