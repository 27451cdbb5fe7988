/* SPDX-License-Identifier: MIT */
/* html.c: the self-contained HTML report (html.h). */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_util.h"
#include "plot.h"
#include "plot_draw.h"
#include "report_sections.h"
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

void pma_html_command_line(FILE *out, const struct pma_meta *m)
{
	for (size_t i = 0; i < m->ncommand; i++) {
		if (i)
			putc(' ', out);
		pma_html_escape(out, m->command[i]);
	}
	if (!m->ncommand)
		P("(unknown program)");
}

/* ---- sections ---- */

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
int pma_html_figure(FILE *out, const struct pma_result *r, enum pma_plot_kind k, char *why,
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

/* The page's plots block: every plot of a section that its own HTML block does not show, in
 * plot.h's order, when r has its data. */
static int plots_block(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	for (int k = 0; k < PMA_PLOT_COUNT; k++) {
		const struct pma_section_plot *p = pma_section_plot_of(k);
		if (p && !p->own_block && pma_html_figure(out, r, (enum pma_plot_kind)k, why, whysize) < 0)
			return -1;
	}
	return 0;
}

void pma_html_cell_num(FILE *out, double v, int decimals)
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
		pma_html_cell_num(out, pt->left / (x->bandwidth ? 1e9 : 1048576.0), x->bandwidth ? 2 : 1);
		pma_html_cell_num(out, pt->runtime_ns / 1e9, 3);
		pma_html_cell_num(out, pt->min_ns / 1e9, 3);
		pma_html_cell_num(out, pt->max_ns / 1e9, 3);
		pma_html_cell_num(out, 100 * pt->slowdown, 1);
		pma_html_cell_num(out, x->interferers_bytes_per_s[l] / 1e9, 2);
		pma_html_cell_num(out, x->wall_ns[l] / 1e9, 3);
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

/* One <section>: its id, its heading when it has one, its body. */
static int html_block(FILE *out, const struct pma_result *r, const struct pma_section_html *b,
		      char *why, size_t whysize)
{
	P("<section id=\"%s\">\n", b->id);
	if (b->title)
		P("<h2>%s</h2>\n", b->title);
	if (b->render(out, r, why, whysize) < 0)
		return -1;
	P("</section>\n");
	return 0;
}

/* The blocks of one place of the page: the sections' in the list's order (the plots block is the
 * page's own). */
static int page_place(FILE *out, const struct pma_result *r, enum pma_page_place place, char *why,
		      size_t whysize)
{
	static const struct pma_section_html plots = { PMA_PAGE_PLOTS, "plots", "Plots", plots_block };

	if (place == PMA_PAGE_PLOTS)
		return html_block(out, r, &plots, why, whysize);
	for (size_t i = 0; i < pma_nsections; i++)
		for (size_t k = 0; k < PMA_SECTION_HTML && pma_sections[i]->html[k].render; k++)
			if (pma_sections[i]->html[k].place == place &&
			    html_block(out, r, &pma_sections[i]->html[k], why, whysize) < 0)
				return -1;
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
	pma_html_command_line(out, &r->t->meta);
	P("</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>%s</h1>\n"
	  "<p class=\"prog\"><code>", css, r->kind == PMA_RESULT_INTERFERENCE ? "Active interference report" : "Speedup report");
	pma_html_command_line(out, &r->t->meta);
	P("</code> on ");
	pma_html_escape(out, r->t->meta.hostname ? r->t->meta.hostname : "an unknown host");
	P("</p>\n</header>\n");
	/* a trace of pmcollect --interfere answers another question: its own section only */
	if (r->kind == PMA_RESULT_INTERFERENCE && interference_report(out, r, why, whysize) < 0)
		return -1;
	for (int place = 0; r->kind != PMA_RESULT_INTERFERENCE && place < PMA_PAGE_COUNT; place++)
		if (page_place(out, r, (enum pma_page_place)place, why, whysize) < 0)
			return -1;
	P("<footer class=\"small\"><p>pmanalyze %s: %s.</p></footer>\n</body>\n</html>\n", PMT_TOOLS_VERSION,
	  r->kind == PMA_RESULT_INTERFERENCE ? "Casas &amp; Bronevetsky's active interference; docs/interference.md" :
	  "Tudor &amp; Teo's speedup model; equations cited as in docs/model.md");
	return 0;
}
