/* SPDX-License-Identifier: MIT */
/* html.c: the self-contained HTML report (html.h). */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "pmt.h"

/* The character reference of c, or NULL when c stands for itself. */
static const char *entity(char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default: return NULL;
	}
}

size_t pma_html_escape_buf(char *dst, size_t size, const char *s)
{
	size_t need = 0, n = 0;
	int full = 0;

	for (; s && *s; s++) {
		const char *e = entity(*s);
		size_t len = e ? strlen(e) : 1;
		if (!full && n + len < size) {
			if (e)
				memcpy(dst + n, e, len);
			else
				dst[n] = *s;
			n += len;
		} else {
			full = 1;
		}
		need += len;
	}
	if (size)
		dst[n] = '\0';
	return need;
}

void pma_html_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		const char *e = entity(*s);
		if (e)
			fputs(e, out);
		else
			putc(*s, out);
	}
}

/* printf of a format holding no trace strings (numbers, fixed text) */
#define P(...) fprintf(out, __VA_ARGS__)

static void command_line(FILE *out, const struct pma_meta *m)
{
	for (size_t i = 0; i < m->ncommand; i++) {
		if (i)
			putc(' ', out);
		pma_html_escape(out, m->command[i]);
	}
	if (!m->ncommand)
		P("(unknown program)");
}

static const struct pma_prediction *headline_pred(const struct pma_result *r)
{
	return r->pred.by_est[r->par.est];
}

/* The prediction row of n, or NULL. */
static const struct pma_prediction *pred_at(const struct pma_result *r, uint32_t n)
{
	for (size_t i = 0; i < r->pred.ncores; i++)
		if (r->pred.cores[i] == n)
			return &headline_pred(r)[i];
	return NULL;
}

/* ---- sections ---- */

/* A(m,inf), T_cp, D(m), the best n and why (eq. 2, 4, 11). */
static int sec_headline(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_parallelism *p = &r->par.by_est[r->par.est];
	const struct pma_optimal *o = &r->opt;
	const struct pma_prediction *best = o->n_best ? pred_at(r, o->n_best) : NULL;
	uint32_t nlast = r->pred.ncores ? r->pred.cores[r->pred.ncores - 1] : 0;
	const struct pma_prediction *last = nlast ? pred_at(r, nlast) : NULL;

	(void)why;
	(void)whysize;
	P("<div class=\"kpis\">\n");
	P("<div class=\"kpi\" id=\"kpi-A\"><span class=\"v\" data-value=\"%.6g\">%.2f</span>"
	  "<span class=\"pm\">&#177; %.2f</span><span class=\"l\">A(m,&#8734;): average parallelism "
	  "(eq. 4)</span></div>\n", p->A_inf, p->A_inf, r->par.A_err);
	P("<div class=\"kpi\" id=\"kpi-Tcp\"><span class=\"v\" data-value=\"%.6g\">%.3f s</span>"
	  "<span class=\"l\">T<sub>cp</sub>: critical-path time</span></div>\n", p->T_cp_ns / 1e9,
	  p->T_cp_ns / 1e9);
	P("<div class=\"kpi\" id=\"kpi-D\"><span class=\"v\" data-value=\"%.6g\">%.2f</span>"
	  "<span class=\"l\">D(m) = m &#8722; A(m,&#8734;): threads' worth of dependencies, m = %.0f "
	  "(eq. 2)</span></div>\n", p->D, p->D, r->par.m);
	int measured = 0; /* the best S is the trace's own runs' (compute.c enforce_optimum) */
	for (size_t j = 0; j < r->pred.n_opt_measured; j++)
		measured |= r->pred.opt_measured[j] == o->n_best;
	if (o->n_best)
		P("<div class=\"kpi\" id=\"kpi-best\"><span class=\"v\" data-value=\"%u\">n = %u</span>"
		  "<span class=\"l\">best core count: S = %.2f%s; 95%% of it from n = %u</span></div>\n",
		  o->n_best, o->n_best, o->S_best, measured ? " (measured by the trace's runs)" : "",
		  o->n_95);
	P("</div>\n<p class=\"why\" id=\"best-why\">");
	if (!o->n_best)
		P("No core count has a finite predicted speedup: memory saturates already on one core.");
	else if (o->n_best == nlast)
		P("S(m,n) still rises at the largest core count predicted (n = %u): more cores keep "
		  "helping, up to the program's average parallelism A(m,&#8734;) = %.2f.", nlast, p->A_inf);
	else if (best && last && isfinite(best->omega) && isnan(last->omega))
		/* the optimum is capped where omega stops being known (compute.c enforce_optimum) */
		P("n = %u is the largest core count with a known memory contention &#969;(n): beyond it "
		  "&#969; is unknown and S(m,n) = A(m,n) only an upper bound (%.2f at n = %u); calibrate "
		  "on more cores to place the optimum there (eq. 1, 11).", o->n_best, last->S, nlast);
	else if (best && isfinite(best->omega) && best->omega > 0.005)
		P("Beyond n = %u, memory contention &#969;(n) (%.3f at n = %u) grows faster than the "
		  "parallelism gained: S(m,n) = A(m,n) / (1 + &#969;(n)) falls (eq. 1, 11).", o->n_best,
		  best->omega, o->n_best);
	else if (best && best->A >= p->A_inf * (1 - 0.005))
		P("At n = %u, A(m,n) reaches the program's average parallelism A(m,&#8734;) = %.2f: more "
		  "cores find no more work to run at once (eq. 6, 11).", o->n_best, p->A_inf);
	else if (best)
		P("At n = %u, S(m,n) = %.2f is the largest predicted: A(m,n) = %.2f of the program's "
		  "average parallelism A(m,&#8734;) = %.2f (eq. 1, 6, 11).", o->n_best, best->S, best->A,
		  p->A_inf);
	if (o->n_best && o->n_95 < o->n_best)
		P(" Paying per core, n = %u already gives 95%% of the best speedup.", o->n_95);
	P("</p>\n<p class=\"est\">Estimator: %s (%s).", pma_estimator_name(r->par.est),
	  r->par.baseline_case);
	if (r->mem.cal.params.model == PMA_MEM_NONE)
		P(" Memory contention unknown: the speedups are upper bounds (&#969; = 0).");
	P("</p>\n");
	return 0;
}

/* Writes the notes that ask for an action (actions = 1: each action with its reason) or those
 * that ask for none (actions = 0: the text alone) as one list; returns how many it wrote. */
static int note_list(FILE *out, const struct pma_result *r, int actions)
{
	int any = 0;

	for (size_t i = 0; i < r->notes.n; i++) {
		/* whole, however long (a 3000-byte command was cut at 2048 bytes) */
		const struct pma_note *nt = &r->notes.v[i];
		char *a = pma_note_action_alloc(nt), *text;

		if (!a == !actions) {
			text = pma_note_alloc(nt);
			P("%s<li>", any++ ? "" : "<ul class=\"notes\">\n");
			if (a) {
				P("<strong>");
				pma_html_escape(out, a);
				P("</strong><br><span class=\"because\">Why: ");
			}
			pma_html_escape(out, text ? text : "out of memory");
			P("%s</li>\n", a ? "</span>" : "");
			free(text);
		}
		free(a);
	}
	if (any)
		P("</ul>\n");
	return any;
}

/* The notes that ask for an action (pma_note_action), each with its reason: an invariant's or a
 * statement's note is no action and goes to "Notes" (sec_notes). */
static int sec_next(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	(void)why;
	(void)whysize;
	if (note_list(out, r, 1))
		return 0;
	if (r->notes.n)
		P("<p>Nothing to do: no note asks for an action (see Notes).</p>\n");
	else
		P("<p>Nothing to do: the model had every input it uses.</p>\n");
	return 0;
}

/* The notes that ask for no action (invariants enforced, statements about the result). */
static int sec_notes(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	(void)why;
	(void)whysize;
	if (!note_list(out, r, 0))
		P("<p>None.</p>\n");
	return 0;
}

/* Writes cairo's SVG without its XML prolog, with every id (and reference to one) prefixed by
 * pfx, so that several inline SVGs of one page do not share glyph and clip ids. */
static void inline_svg(FILE *out, const char *svg, const char *pfx)
{
	const char *p = strstr(svg, "<svg");

	for (p = p ? p : svg; *p;) {
		static const char *const pats[] = { "id=\"", "href=\"#", "url(#" };
		size_t i;
		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			size_t len = strlen(pats[i]);
			if (strncmp(p, pats[i], len) == 0) {
				fwrite(p, 1, len, out);
				fputs(pfx, out);
				p += len;
				break;
			}
		}
		if (i == sizeof(pats) / sizeof(pats[0]))
			putc(*p++, out);
	}
}

/* Plot k inline as a figure, when r has its data. Returns 0 or -1 with why. */
static int figure(FILE *out, const struct pma_result *r, enum pma_plot_kind k, char *why,
		  size_t whysize)
{
	const char *na;
	char *svg, pfx[16];
	size_t len;

	if (!pma_plot_available(r, k, &na))
		return 0;
	if (pma_plot_svg(r, k, &svg, &len, why, whysize) < 0)
		return -1;
	snprintf(pfx, sizeof(pfx), "p%d-", (int)k);
	P("<figure class=\"plot\" id=\"plot-%s\">\n", pma_plot_name(k));
	inline_svg(out, svg, pfx);
	P("\n<figcaption>%s</figcaption>\n</figure>\n", pma_plot_title(k));
	free(svg);
	return 0;
}

static int sec_plots(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	for (int k = 0; k < PMA_PLOT_COUNT; k++)
		if (k != PMA_PLOT_ENERGY && figure(out, r, (enum pma_plot_kind)k, why, whysize) < 0)
			return -1; /* the energy plot is in the energy section */
	return 0;
}

static void cell_num(FILE *out, double v, int decimals)
{
	P("<td>");
	if (isnan(v))
		P("&#8211;");
	else if (isinf(v))
		P("saturated");
	else
		P("%.*f", decimals, v);
	P("</td>");
}

static int sec_predictions(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_prediction *q = headline_pred(r);

	(void)why;
	(void)whysize;
	P("<div class=\"scroll\"><table id=\"pred\">\n<thead><tr><th>n</th><th>A(m,n)</th>"
	  "<th>&#969;(n)</th><th>S(m,n)</th><th>&#177;S</th><th>R(m,n)</th><th>T(n), s</th>"
	  "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < r->pred.ncores; i++) {
		P("<tr%s><td>%u</td>", q[i].cores == r->opt.n_best ? " class=\"best\"" : "", q[i].cores);
		cell_num(out, q[i].A, 3);
		cell_num(out, q[i].omega, 4);
		cell_num(out, q[i].S, 3);
		cell_num(out, r->pred.S_err[i], 3);
		cell_num(out, q[i].R, 3);
		cell_num(out, q[i].T_ns / 1e9, 3);
		P("</tr>\n");
	}
	P("</tbody></table></div>\n<p class=\"small\">S(m,n) = A(m,n) / (1 + &#969;(n)) (Tudor &amp; "
	  "Teo, eq. 1), A(m,n) eq. 6, R(m,n) eq. 3; &#177;S: one sampling interval of misplaced "
	  "critical path (or the lost scheduler events of the exact mode).</p>\n");
	if (!r->runcheck.n)
		return 0;
	/* the trace's own runs on 1 and n CPUs against the predictions (runcheck.h) */
	P("<div class=\"scroll\"><table id=\"runs-check\">\n<thead><tr><th>n</th><th>runs on n</th>"
	  "<th>runs on 1</th><th>S measured</th><th>lowest</th><th>highest</th><th>S predicted</th>"
	  "<th>&#177;S</th><th>outside &#177;S</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < r->runcheck.n; i++) {
		const struct pma_runcheck_row *w = &r->runcheck.rows[i];
		P("<tr%s><td>%u</td><td>%zu</td><td>%zu</td>", w->outside ? " class=\"warn\"" : "",
		  w->cores, w->runs_n, w->runs_1);
		cell_num(out, w->S, 3);
		cell_num(out, w->S_min, 3);
		cell_num(out, w->S_max, 3);
		cell_num(out, w->S_pred, 3);
		cell_num(out, w->S_pred_err, 3);
		P("<td>%s</td></tr>\n", w->outside ? "yes" : "no");
	}
	P("</tbody></table></div>\n<p class=\"small\">S measured = the median wall time of this "
	  "trace's runs on one CPU over the median of its runs on n (the baseline and calibration "
	  "runs); lowest and highest: each run on n against that median on one. A prediction whose "
	  "&#177;S misses them gets the runs-disagree warning (docs/model.md).</p>\n");
	return 0;
}

/* A --sweep trace's scaling study (docs/scaling.md): measured against predicted per configuration. */
static int sec_scaling(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_scaling *sc = &r->scaling;

	(void)why;
	(void)whysize;
	if (!sc->present) {
		P("<p class=\"small\">No sweep runs in the trace: record them with <code>pmcollect "
		  "--sweep cores=1,2,4 --repeat 3 &#8230;</code> to check the predictions against "
		  "measured runs.</p>\n");
		return 0;
	}
	P("<div class=\"scroll\"><table id=\"scaling\">\n<thead><tr><th>cores</th><th>threads</th>"
	  "<th>runs</th><th>T median, s</th><th>S measured</th><th>S predicted</th><th>&#177;S</th>"
	  "<th>error, %%</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < sc->nrows; i++) {
		const struct pma_scaling_row *w = &sc->rows[i];
		P("<tr><td>%u</td><td>%u</td><td>%zu</td>", w->cores, w->threads, w->nreps);
		cell_num(out, w->T_med_s, 3);
		cell_num(out, w->S_meas, 3);
		cell_num(out, w->S_pred, 3);
		cell_num(out, w->S_pred_err, 3);
		cell_num(out, w->err_pct, 1);
		P("</tr>\n");
	}
	P("</tbody></table></div>\n<p class=\"small\">S measured = T(1) / T, T(1) the median of the "
	  "1-CPU runs; S predicted from the baseline (Tudor &amp; Teo, eq. 1)");
	if (isfinite(sc->mean_abs_err_pct))
		P("; mean |error| %.1f%% over %zu configurations", sc->mean_abs_err_pct, sc->npred);
	P(".</p>\n");
	return 0;
}

/* Per-region (or per-phase) parallelism of an --omp-regions trace, by potential gain. */
static int sec_regions(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_regions_result *g = &r->regions;

	(void)why;
	(void)whysize;
	if (!g->present && !g->phases) {
		P("<p class=\"small\">No OpenMP regions in the trace: record them with <code>pmcollect "
		  "--omp-regions &#8230;</code>, or show the program's phases with <code>pmanalyze "
		  "--phases</code>.</p>\n");
		return 0;
	}
	if (!g->nrows) {
		P("<p>No region recorded: ");
		pma_html_escape(out, g->reason ? g->reason : "the run has none");
		P(".</p>\n");
		return 0;
	}
	P("<div class=\"scroll\"><table id=\"regions\">\n<thead><tr><th>%s</th><th>calls</th>"
	  "<th>time, ms</th><th>share, %%</th><th>A(m,&#8734;)</th><th>T<sub>cp</sub>, ms</th>"
	  "<th>S(%u)</th><th>gain at %u, ms</th></tr></thead>\n<tbody>\n",
	  g->phases ? "phase" : "region", g->n, g->n);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		char name[1400];

		pma_region_name(w, name, sizeof(name)); /* as the table and JSON name it */
		P("<tr><td><code>");
		pma_html_escape(out, name);
		P("</code></td><td>%llu</td>", (unsigned long long)w->calls);
		cell_num(out, w->time_ns / 1e6, 1);
		cell_num(out, 100 * w->share, 1);
		cell_num(out, w->have_A ? w->A : NAN, 2);
		cell_num(out, w->have_A ? w->T_cp_ns / 1e6 : NAN, 1);
		cell_num(out, w->have_A ? w->S_n : NAN, 2);
		cell_num(out, w->have_A ? w->gain_ns / 1e6 : NAN, 1);
		P("</tr>\n");
	}
	P("</tbody></table></div>\n<p class=\"small\">A(m,&#8734;) and T<sub>cp</sub> inside the "
	  "%s' windows (Tudor &amp; Teo eq. 4, restricted), from %s; sorted by the time saved at %u "
	  "cores if the region scaled ideally.</p>\n", g->phases ? "phases" : "regions",
	  g->method ? g->method : "no profile", g->n);
	return 0;
}

/* Energy: E(n) and the energy-optimal core count (docs/energy.md §2), or why there is none; then the
 * analyzed run's power by zone (the energy plot) when it has ENERGY records. */
static int sec_energy(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_energy_result *e = &r->energy;
	const struct pma_run_power *rp = &r->run_power;

	if (!e->have) {
		P("<p>No energy estimate: ");
		pma_html_escape(out, e->reason[0] ? e->reason : "no run has energy readings");
		P(".</p>\n");
	} else {
		P("<p>Fastest: %u cores, %.1f J. Least energy: %u cores, %.1f J. Least energy &#215; "
		  "delay: %u cores.</p>\n", e->opt.n_time, e->opt.E_at_time_opt_j, e->opt.n_energy,
		  e->opt.E_min_j, e->opt.n_edp);
	}
	if (rp->s.n == 0)
		return 0;
	P("<p id=\"energy-zones\">Mean power of run %u over %.3g s:", r->run->run_id,
	  rp->s.t1_s[rp->s.n - 1]);
	for (size_t z = 0; z < rp->s.nzones; z++) {
		P("%s ", z ? "," : "");
		pma_html_escape(out, rp->labels[z]);
		if (isfinite(rp->s.mean_w[z]))
			P(" %.3g W", rp->s.mean_w[z]);
		else
			P(" unknown");
	}
	P(".</p>\n");
	return figure(out, r, PMA_PLOT_ENERGY, why, whysize);
}

static int sec_sources(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_meta *m = &r->t->meta;
	const struct pma_mem_cal *c = &r->mem.cal;
	int missing = 0;

	(void)why;
	(void)whysize;
	P("<dl>\n<dt>Program</dt><dd><code>");
	command_line(out, m);
	P("</code></dd>\n<dt>Traces</dt><dd>");
	for (int i = 0; i < r->ntraces; i++) {
		P("%s<code>", i ? "<br>" : "");
		pma_html_escape(out, r->traces[i].path);
		P("</code> (pmtrace %u.%u, %u runs)", r->traces[i].major, r->traces[i].minor,
		  r->traces[i].nruns);
	}
	P("</dd>\n<dt>Machine</dt><dd>");
	pma_html_escape(out, m->hostname ? m->hostname : "unknown host");
	P(": %.0f PUs, %.0f cores, %.0f sockets, %.0f NUMA nodes; Linux ", m->topo.pus, m->topo.cores,
	  m->topo.packages, m->topo.numa_nodes);
	pma_html_escape(out, m->kernel_release ? m->kernel_release : "?");
	P("; recorded ");
	pma_html_escape(out, m->start_utc ? m->start_utc : "(unknown date)");
	P(" by ");
	pma_html_escape(out, m->tool ? m->tool : "?");
	P(" ");
	pma_html_escape(out, m->tool_version ? m->tool_version : "");
	P("</dd>\n<dt>Analyzed run</dt><dd>run %u: m = %.0f threads (%s), %.3f s wall, CPUs ",
	  r->run->run_id, r->par.m, r->par.m_source, r->par.wall_s);
	pma_html_escape(out, r->run->cpus[0] ? r->run->cpus : "unknown");
	P(", sampled every %.3g ms</dd>\n", r->par.interval_ms);
	P("<dt>Memory model</dt><dd>%s; %zu calibration point%s, C(n) from %s; placement %s, "
	  "memory policy %s (%s)</dd>\n", pma_mem_model_name(c->params.model), c->npts,
	  c->npts == 1 ? "" : "s", c->source ? c->source : "none", r->mem.placement,
	  pma_mem_policy_name(r->mem.pol), r->mem.pol_source);
	P("<dt>Recorded</dt><dd>");
	for (size_t i = 0, first = 1; i < m->nsources; i++)
		if (m->sources[i].recorded) {
			P("%s", first ? "" : ", ");
			pma_html_escape(out, m->sources[i].name);
			first = 0;
		}
	P("</dd>\n</dl>\n<h3>What was missing, and why</h3>\n<ul class=\"missing\">\n");
	for (size_t i = 0; i < m->nsources; i++)
		if (!m->sources[i].recorded) {
			P("<li>");
			pma_html_escape(out, m->sources[i].name);
			P(": not recorded: ");
			pma_html_escape(out, m->sources[i].reason ? m->sources[i].reason : "no reason recorded");
			P("</li>\n");
			missing++;
		}
	for (int k = 0; k < PMA_PLOT_COUNT; k++) {
		const char *na;
		if (k == PMA_PLOT_INTERFERENCE) /* a plot of --interfere traces, not missing here */
			continue;
		if (!pma_plot_available(r, (enum pma_plot_kind)k, &na)) {
			P("<li>%s plot: %s</li>\n", pma_plot_title((enum pma_plot_kind)k), na);
			missing++;
		}
	}
	for (int i = 0; i < r->ntraces; i++)
		for (size_t w = 0; w < r->traces[i].warnings.n; w++) {
			char *text = pma_note_alloc(&r->traces[i].warnings.v[w]);
			P("<li>");
			pma_html_escape(out, text ? text : "out of memory");
			free(text);
			P("</li>\n");
			missing++;
		}
	if (!missing)
		P("<li>nothing</li>\n");
	P("</ul>\n");
	return 0;
}

/* The report's sections in order; a later capability adds its entry here. */
static const struct pma_html_section sections[] = {
	{ "headline", NULL, sec_headline },
	{ "next", "What to do next", sec_next },
	{ "plots", "Plots", sec_plots },
	{ "predictions", "Predictions", sec_predictions },
	{ "notes", "Notes", sec_notes },
	{ "scaling", "Scaling study: measured against predicted", sec_scaling },
	{ "regions", "Regions", sec_regions },
	{ "energy", "Energy", sec_energy },
	{ "sources", "Data sources", sec_sources },
};

static const char css[] =
	"*{box-sizing:border-box}"
	"body{margin:0 auto;max-width:1200px;padding:12px 16px;font:15px/1.45 system-ui,-apple-system,"
	"'Segoe UI',sans-serif;color:#222;background:#fff}"
	"h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.2em;border-bottom:1px solid #ddd;"
	"padding-bottom:.2em;margin-top:1.6em}h3{font-size:1em}"
	"code{font:13px ui-monospace,monospace;background:#f4f4f4;padding:0 3px;"
	"overflow-wrap:anywhere}"
	".prog{overflow-wrap:anywhere}"
	".kpis{display:flex;flex-wrap:wrap;gap:12px}"
	".kpi{flex:1 1 200px;border:1px solid #ddd;border-radius:6px;padding:10px 12px}"
	".kpi .v{display:block;font-size:1.8em;font-weight:600}"
	".kpi .pm{color:#666;margin-left:.3em}.kpi .l{display:block;color:#555;font-size:.9em}"
	".why{font-size:1.05em}.est,.small{color:#555;font-size:.9em}"
	".notes li{margin:.4em 0}.because{color:#555;font-size:.9em;overflow-wrap:anywhere}"
	"figure.plot{margin:1em 0;max-width:960px}figure.plot svg{width:100%;height:auto;display:block;"
	"border:1px solid #eee}figcaption{color:#555;font-size:.9em}"
	".scroll{overflow-x:auto;max-height:36em;overflow-y:auto}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
	"th,td{padding:3px 10px;text-align:right;border-bottom:1px solid #eee}"
	"th{position:sticky;top:0;background:#fafafa}tr.best{background:#fde8e8;font-weight:600}tr.warn{background:#fff3cd}"
	"dt{font-weight:600;margin-top:.5em}dd{margin-left:1em;overflow-wrap:anywhere}"
	"@media (max-width:600px){body{font-size:14px;padding:8px}.kpi .v{font-size:1.4em}"
	"th,td{padding:2px 5px}}";

/* ---- the report of an active-interference trace (Casas & Bronevetsky §5.2): its own page ---- */

/* The calibration the curve's resource left comes from, and which estimate was used. */
static void interference_calibration(FILE *out, const struct pma_interf_result *x)
{
	const struct pma_interf_cal *c = x->cal;

	P("<dl id=\"interference-calibration\">\n");
	if (c) {
		P("<dt>Calibration</dt><dd>BW1 %.2f GB/s (one BWThr, eq. 1 with %s), B %.2f GB/s (STREAM "
		  "triad); capacity left (%s method):", c->BW1_bytes_per_s / 1e9, c->bw1_counters ?
		  "counted LLC misses" : "misses = accesses", c->B_bytes_per_s / 1e9, c->counters ?
		  "counter" : "timing");
		for (size_t k = 0; k < c->ncap; k++) {
			if (isfinite(c->C_bytes[k]))
				P("%s k = %zu: %.1f MB", k ? "," : "", k, c->C_bytes[k] / 1048576.0);
			else
				P("%s k = %zu: not measurable", k ? "," : "", k);
		}
		P("; BWThrs leaving the capacity unchanged (Fig. 11): %.0f</dd>\n", c->orth_bwthrs);
	} else {
		P("<dt>Calibration</dt><dd>none in the trace</dd>\n");
	}
	P("<dt>Resource left</dt><dd>");
	pma_html_escape(out, pma_interf_estimate_name(x->estimate));
	P(": ");
	pma_html_escape(out, x->reason);
	P("</dd>\n</dl>\n");
}

/* One row per level, the numbers of the JSON report's "curve" (docs/pmanalyze-json.md). */
static void interference_curve(FILE *out, const struct pma_interf_result *x)
{
	const struct pma_sens_result *s = &x->sens;

	P("<div class=\"scroll\"><table id=\"interference-curve\">\n<thead><tr><th>k</th><th>%s</th>"
	  "<th>CPU s</th><th>min s</th><th>max s</th><th>slowdown, %%</th><th>interferers, GB/s</th>"
	  "<th>wall s</th><th>degraded</th></tr></thead>\n<tbody>\n",
	  x->bandwidth ? "left, GB/s" : "left, MB");
	for (size_t l = 0; l < s->npoints; l++) {
		const struct pma_sens_point *pt = &s->points[l];
		P("<tr%s><td>%u</td>", pt->degraded ? " class=\"best\"" : "", pt->k);
		cell_num(out, pt->left / (x->bandwidth ? 1e9 : 1048576.0), x->bandwidth ? 2 : 1);
		cell_num(out, pt->runtime_ns / 1e9, 3);
		cell_num(out, pt->min_ns / 1e9, 3);
		cell_num(out, pt->max_ns / 1e9, 3);
		cell_num(out, 100 * pt->slowdown, 1);
		cell_num(out, x->interferers_bytes_per_s[l] / 1e9, 2);
		cell_num(out, x->wall_ns[l] / 1e9, 3);
		P("<td>%s</td></tr>\n", pt->degraded ? "yes" : pt->within_noise ? "within noise" : "no");
	}
	P("</tbody></table></div>\n<p class=\"small\">CPU s: the program's CPU time (utime + stime), "
	  "median of %zu run%s per level; a level is degraded when its median slowdown exceeds %.0f%% "
	  "and its fastest run is slower than the slowest at k = 0; the need per process is the "
	  "resource left at k_bad to k_ok, divided by p = %u (Casas &amp; Bronevetsky &#167;5.2).</p>\n",
	  x->nreps, x->nreps == 1 ? "" : "s", 100 * x->threshold, x->p);
}

static int interference_report(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_interf_result *x = &r->interf;
	char summary[512];

	pma_interf_summary(summary, sizeof(summary), x);
	P("<section id=\"interference\">\n<p class=\"why\" id=\"interference-summary\">");
	pma_html_escape(out, summary);
	P("</p>\n<p class=\"est\">Kind: %s (%s); %zu runs used, %zu per level.</p>\n",
	  x->sens.npoints ? (x->bandwidth ? "bandwidth" : "cache") : "none",
	  x->bandwidth ? "BWThrs take memory bandwidth" : "CSThrs take last-level cache capacity",
	  x->nruns, x->nreps);
	interference_calibration(out, x);
	if (x->sens.npoints) {
		char *svg;
		size_t len;
		if (pma_plot_svg(r, PMA_PLOT_INTERFERENCE, &svg, &len, why, whysize) < 0)
			return -1;
		P("<figure class=\"plot\" id=\"plot-%s\">\n", pma_plot_name(PMA_PLOT_INTERFERENCE));
		inline_svg(out, svg, "pi-");
		P("\n<figcaption>%s</figcaption>\n</figure>\n", pma_plot_title(PMA_PLOT_INTERFERENCE));
		free(svg);
		interference_curve(out, x);
	}
	P("</section>\n");
	return 0;
}

int pma_html_report(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	/* no script may run even if an escape were missed: the policy allows inline styles and
	 * data: images only */
	P("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	  "style-src 'unsafe-inline'; img-src data:\">\n"
	  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>pmanalyze: ");
	command_line(out, &r->t->meta);
	P("</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>%s</h1>\n"
	  "<p class=\"prog\"><code>", css, r->kind == PMA_RESULT_INTERFERENCE ? "Active interference report" : "Speedup report");
	command_line(out, &r->t->meta);
	P("</code> on ");
	pma_html_escape(out, r->t->meta.hostname ? r->t->meta.hostname : "an unknown host");
	P("</p>\n</header>\n");
	/* a trace of pmcollect --interfere answers another question: its own section only */
	if (r->kind == PMA_RESULT_INTERFERENCE && interference_report(out, r, why, whysize) < 0)
		return -1;
	for (size_t i = 0; r->kind != PMA_RESULT_INTERFERENCE && i < sizeof(sections) / sizeof(sections[0]); i++) {
		P("<section id=\"%s\">\n", sections[i].id);
		if (sections[i].title)
			P("<h2>%s</h2>\n", sections[i].title);
		if (sections[i].render(out, r, why, whysize) < 0)
			return -1;
		P("</section>\n");
	}
	P("<footer class=\"small\"><p>pmanalyze %s: %s.</p></footer>\n</body>\n</html>\n", PMT_TOOLS_VERSION,
	  r->kind == PMA_RESULT_INTERFERENCE ? "Casas &amp; Bronevetsky's active interference; docs/interference.md" :
	  "Tudor &amp; Teo's speedup model; equations cited as in docs/model.md");
	return 0;
}
