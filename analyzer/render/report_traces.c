/* SPDX-License-Identifier: MIT */
/* report_traces.c: the report's "Data sources" in HTML: the program, the traces, the machine, the
 * analyzed run, the memory model, what was recorded and what was missing, and why. */
#include "report_sections.h"

#include <stdlib.h>

#include "render_util.h"
#include "html.h"
#include "html_util.h"

static int pma_render_html_sources(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_meta *m = &r->t->meta;
	const struct pma_mem_cal *c = &r->mem.cal;
	int missing = 0;

	(void)why;
	(void)whysize;
	P("<dl>\n<dt>Program</dt><dd><code>");
	pma_html_command_line(out, m);
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
	  c->npts == 1 ? "" : "s", c->source ? pma_mem_cal_source_name(c, 0) : "none", r->mem.placement,
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


/* ---- the section ---- */

void pma_render_traces_json(cJSON *root, const struct pma_result *r)
{
	cJSON *tr = cJSON_AddArrayToObject(root, "traces");

	for (int i = 0; i < r->ntraces; i++)
		cJSON_AddItemToArray(tr, pma_render_trace_json(&r->traces[i], i == 0 ? r->run :
							     pma_trace_baseline(&r->traces[i])));
}

const struct pma_section pma_section_traces = {
	.name = "traces",
	.json = pma_render_traces_json,
	.html = { { PMA_PAGE_SOURCES, "sources", "Data sources", pma_render_html_sources } },
};
