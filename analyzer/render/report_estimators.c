/* SPDX-License-Identifier: MIT */
/* report_estimators.c: the report's "estimators" section: which of the four estimators of
 * A(m,inf) the analyzed run had the data for, the records each reads, the A(m,inf) each gives, and
 * which one the headline numbers use and why (pma_choose_estimator: --estimator, else the exact
 * mode when the run has scheduler events with at most 1% lost, else perf's context switches under
 * the same rule, else the runnable estimator). A missing estimator names the source the trace's
 * META "sources" says was not recorded, and its reason. Renders only. */
#include "report_sections.h"

#include <math.h>
#include <string.h>

#include "render_util.h"
#include "html.h"
#include "html_util.h"

/* What estimator k reads (Tudor & Teo eq. 4 for the sampled ones; estimate.h). */
static const char *const est_reads[PMA_EST_COUNT] = {
	[PMA_EST_PAPER] = "samples: CPU time per interval (stat)",
	[PMA_EST_RUNNABLE] = "samples: running and run-queue wait (schedstat)",
	[PMA_EST_SCHED] = "scheduler events (SCHED records)",
	[PMA_EST_SWITCH] = "perf context switches (PSWITCH records)",
};

/* The META source each exact estimator's records come from. */
static const char *const est_source[PMA_EST_COUNT] = {
	[PMA_EST_SCHED] = "sched_events",
	[PMA_EST_SWITCH] = "perf_switch",
};

/* Why the run has no profile of estimator k, into buf: the source's reason when META says it was
 * not recorded, else that the analyzed run has none of its records. */
static void missing_why(const struct pma_result *r, int k, char *buf, size_t size)
{
	const struct pma_meta *m = &r->t->meta;

	for (size_t i = 0; est_source[k] && i < m->nsources; i++)
		if (strcmp(m->sources[i].name, est_source[k]) == 0 && !m->sources[i].recorded) {
			snprintf(buf, size, "%s not recorded: %s", est_source[k],
				 m->sources[i].reason ? m->sources[i].reason : "no reason recorded");
			return;
		}
	snprintf(buf, size, "none usable in run %u", r->run->run_id);
}

/* Why the headline estimator is the one it is, into buf. */
static void chosen_why(const struct pma_result *r, char *buf, size_t size)
{
	const struct pma_run *run = r->run;
	int est = r->par.est;

	if (est != pma_choose_estimator(run, -1))
		snprintf(buf, size, "asked for by --estimator");
	else if (est == PMA_EST_SCHED)
		snprintf(buf, size, "the default with scheduler events: %llu of %llu lost",
			 (unsigned long long)run->xst.lost,
			 (unsigned long long)(run->xst.events + run->xst.lost));
	else if (est == PMA_EST_SWITCH)
		snprintf(buf, size, "the default with perf context switches and no usable scheduler "
			 "events: %llu of %llu lost", (unsigned long long)run->pst.lost,
			 (unsigned long long)(run->pst.events + run->pst.lost));
	else if (run->has_exact || run->has_pswitch)
		snprintf(buf, size, "the default when more than 1%% of the events were lost");
	else
		snprintf(buf, size, "the default without scheduler events or perf context switches");
}

static void estimators_table(FILE *out, const struct pma_result *r)
{
	char why[256];

	chosen_why(r, why, sizeof(why));
	fprintf(out, "\n%-13s%s used (%s)\n", "estimators", pma_estimator_name(r->par.est), why);
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		if (r->par.have[k]) {
			fprintf(out, "  %-13s%6.2f  %s%s\n", pma_estimator_name(k), r->par.by_est[k].A_inf,
				est_reads[k], k == r->par.est ? "  <- used" : "");
			continue;
		}
		missing_why(r, k, why, sizeof(why));
		fprintf(out, "  %-13s%6s  %s: %s\n", pma_estimator_name(k), "-", est_reads[k], why);
	}
}

/* "estimators": {"used", "why", "list": [{"name", "reads", "available", "A_inf" | "missing"}]} */
static void estimators_json(cJSON *root, const struct pma_result *r)
{
	cJSON *o = cJSON_AddObjectToObject(root, "estimators"), *list;
	char why[256];

	chosen_why(r, why, sizeof(why));
	cJSON_AddStringToObject(o, "used", pma_estimator_name(r->par.est));
	cJSON_AddStringToObject(o, "why", why);
	list = cJSON_AddArrayToObject(o, "list");
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", pma_estimator_name(k));
		cJSON_AddStringToObject(e, "reads", est_reads[k]);
		cJSON_AddBoolToObject(e, "available", r->par.have[k]);
		if (r->par.have[k]) {
			pma_render_add_finite(e, "A_inf", r->par.by_est[k].A_inf);
		} else {
			missing_why(r, k, why, sizeof(why));
			cJSON_AddStringToObject(e, "missing", why);
		}
		cJSON_AddItemToArray(list, e);
	}
}

static int estimators_html(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	char text[256];

	(void)why;
	(void)whysize;
	chosen_why(r, text, sizeof(text));
	P("<p>The headline numbers use <strong>%s</strong>: ", pma_estimator_name(r->par.est));
	pma_html_escape(out, text);
	P(".</p>\n<div class=\"scroll\"><table id=\"estimators-table\">\n<thead><tr><th>estimator</th>"
	  "<th>A(m,&#8734;)</th><th>reads</th></tr></thead>\n<tbody>\n");
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		P("<tr%s><td>%s</td>", k == r->par.est ? " class=\"best\"" : "", pma_estimator_name(k));
		pma_html_cell_num(out, r->par.have[k] ? r->par.by_est[k].A_inf : NAN, 2);
		P("<td>%s", est_reads[k]);
		if (!r->par.have[k]) {
			missing_why(r, k, text, sizeof(text));
			P(": ");
			pma_html_escape(out, text);
		}
		P("</td></tr>\n");
	}
	P("</tbody></table></div>\n");
	return 0;
}

const struct pma_section pma_section_estimators = {
	.name = "estimators",
	.table = estimators_table,
	.json = estimators_json,
	.html = { { PMA_PAGE_SOURCES, "estimators", "Estimators", estimators_html } },
};
