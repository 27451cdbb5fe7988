/* SPDX-License-Identifier: MIT */
/* report_regions.c: the report's OpenMP regions (or phases) and Allande et al.'s best
 * configuration per region, as a table, JSON and CSV tables. */
#include "report_sections.h"

#include <math.h>
#include <string.h>

#include "render_util.h"
#include "html.h"
#include "html_util.h"

/* "{3,3}": the per-socket thread counts of configuration c of plan p. */
static void aff_text(const struct pma_allande_plan *p, size_t c, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t s = 0; s < p->NS && o < size; s++)
		o += (size_t)snprintf(buf + o, size - o, "%s%u", s ? "," : "{", p->aff[c * p->NS + s]);
	if (o < size)
		snprintf(buf + o, size - o, "}");
}

static uint32_t aff_threads(const struct pma_allande_plan *p, size_t c)
{
	uint32_t nt = 0;

	for (uint32_t s = 0; s < p->NS; s++)
		nt += p->aff[c * p->NS + s];
	return nt;
}

/* How the rows' A and T_cp were found (regions.h method). */
static const char *regions_method_text(const struct pma_regions_result *g)
{
	if (!g->have_A)
		return "A and T_cp need scheduler events (pmcollect --sched) or samples";
	if (!strcmp(g->method, "samples"))
		return g->phases ? "boundaries, A and T_cp from the samples (runnable estimator; "
				   "boundaries within one sampling interval)" :
				   "A and T_cp from the samples inside each region's windows (runnable "
				   "estimator, prorated: approximate for regions shorter than the "
				   "sampling interval)";
	return g->phases ? "boundaries, A and T_cp from the scheduler events" :
			   "A and T_cp from the scheduler events inside each region's windows";
}

/* The regions' per-thread counter sums (pmcollect --omp-events), one line per region; or why
 * there are none. */
static void table_region_counters(FILE *out, const struct pma_regions_result *g)
{
	char name[1400];

	if (!g->nevents) {
		if (g->counters_reason)
			fprintf(out, "  per-thread counters: none (%s)\n", g->counters_reason);
		return;
	}
	fprintf(out, "  per-thread counters, summed over each region's implicit tasks (%llu task records",
		(unsigned long long)g->counter_tasks);
	if (g->counter_unmatched)
		fprintf(out, ", %llu naming no recorded region", (unsigned long long)g->counter_unmatched);
	fprintf(out, "):\n  %-36s", "region");
	for (size_t e = 0; e < g->nevents; e++)
		fprintf(out, " %22.22s", g->events[e]);
	fputc('\n', out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		pma_region_name(w, name, sizeof(name));
		fprintf(out, "  %-36.36s", name);
		for (size_t e = 0; e < g->nevents; e++)
			if (w->counter_tasks)
				fprintf(out, " %22.0f", w->counters[e]);
			else
				fprintf(out, " %22s", "-");
		fputc('\n', out);
	}
}

/* The OpenMP regions of a --omp-regions trace (regions.h), by potential gain; or the phases of
 * the fallback (no region recorded, or --phases). */
static void pma_render_table_regions(FILE *out, const struct pma_result *r)
{
	const struct pma_regions_result *g = &r->regions;
	char name[1400], a[32], b[32];

	if (!g->present && !g->phases)
		return;
	if (g->present && !g->recorded)
		fprintf(out, "\nOpenMP regions: none recorded: %s\n", g->reason ? g->reason : "no OpenMP runtime answered");
	if (g->phases) {
		fprintf(out, "\nPhases of run %u (%s): %zu phase%s with >= 2 active threads, cut at serial "
			"gaps over %.1f ms; %s\n", g->run_id, g->present && !g->instances ?
			"no OpenMP region recorded" : "--phases", g->nrows, g->nrows == 1 ? "" : "s",
			(double)g->gap_ns / 1e6, regions_method_text(g));
		fprintf(out, "  %-10s %9s %9s %10s %6s %6s %9s %6s %9s %9s\n", "phase", "begin s", "end s",
			"time ms", "share", "A", "T_cp ms", "cp", "T(n) ms", "gain ms");
	} else if (!g->recorded) {
		return;
	} else {
		fprintf(out, "\nOpenMP regions of run %u: %llu instances, %zu regions; %s\n", g->run_id,
			(unsigned long long)g->instances, g->nrows, regions_method_text(g));
		fprintf(out, "  %-36s %5s %7s %10s %6s %6s %9s %6s %9s %9s\n", "region", "depth", "calls",
			"time ms", "share", "A", "T_cp ms", "cp", "T(n) ms", "gain ms");
	}
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		pma_region_name(w, name, sizeof(name));
		if (g->phases)
			fprintf(out, "  %-10s %9.3f %9.3f %10.2f %5.1f%%", name, w->begin_ns / 1e9,
				w->end_ns / 1e9, w->time_ns / 1e6, 100 * w->share);
		else
			fprintf(out, "  %-36.36s%c%5u %7llu %10.2f %5.1f%%", name, w->open ? '*' : ' ',
				w->depth, (unsigned long long)w->calls, w->time_ns / 1e6, 100 * w->share);
		if (w->have_A)
			fprintf(out, " %6.2f %9.2f %5.1f%% %9.2f %9.2f\n", w->A, w->T_cp_ns / 1e6,
				100 * w->cp_share, w->T_n_ns / 1e6, w->gain_ns / 1e6);
		else
			fprintf(out, " %6s %9s %6s %9s %9s\n", "-", "-", "-", "-", "-");
	}
	if (g->open)
		fprintf(out, "  * %llu instance%s never ended (the program was killed inside): counted up "
			"to the run's end\n", (unsigned long long)g->open, g->open == 1 ? "" : "s");
	if (g->have_A)
		fprintf(out, "  (n = %u cores; gain: T(n) - U/n, the time saved if the region scaled "
			"ideally)\n", g->n);
	for (size_t i = 0; g->have_A && i < g->nrows; i++)
		if (!g->rows[i].have_A && g->rows[i].A_why) {
			/* the rows share one reason: the method's */
			fprintf(out, "  -: A unknown: %s\n", g->rows[i].A_why);
			break;
		}
	if (!g->phases)
		table_region_counters(out, g);
	if (!g->allande) {
		if (g->allande_why[0])
			fprintf(out, "  best thread count per region: not computed: %s\n", g->allande_why);
		return;
	}
	fprintf(out, "\nBest configuration per region (Allande et al. eq. 2-9; runs with 1..%u threads, "
		"%u socket%s; ", g->NC, g->NS, g->NS == 1 ? "" : "s");
	if (g->time_only)
		fprintf(out, "time only: %s)\n", g->tcm_why[0] ? g->tcm_why : "no LLC counters");
	else
		fprintf(out, "TCM: %s per region)\n", g->tcm_name);
	fprintf(out, "  %-36s %9s %9s %-12s %9s %-12s %9s\n", "region", "T(1) ms", "T(NC) ms",
		"best MAX", "est ms", "best SUM", "est ms");
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		const struct pma_allande_factors *f;
		size_t bm, bs;
		if (w->allande < 0)
			continue;
		f = &g->factors[w->allande];
		bm = g->plan[PMA_ALLANDE_MAX].best[w->allande];
		bs = g->plan[PMA_ALLANDE_SUM].best[w->allande];
		pma_region_name(w, name, sizeof(name));
		aff_text(&g->plan[PMA_ALLANDE_MAX], bm, a, sizeof(a));
		aff_text(&g->plan[PMA_ALLANDE_SUM], bs, b, sizeof(b));
		fprintf(out, "  %-36.36s %9.2f %9.2f %-12s %9.2f %-12s %9.2f\n", name, f->T_ns[1] / 1e6,
			f->T_ns[g->NC] / 1e6, a, g->plan[PMA_ALLANDE_MAX].estTime_ns[(size_t)w->allande *
			g->plan[PMA_ALLANDE_MAX].nconf + bm] / 1e6, b,
			g->plan[PMA_ALLANDE_SUM].estTime_ns[(size_t)w->allande * g->plan[PMA_ALLANDE_SUM].nconf + bs] / 1e6);
	}
	for (int k = PMA_ALLANDE_SUM; k <= PMA_ALLANDE_MAX; k++) {
		const struct pma_allande_plan *p = &g->plan[k];
		uint32_t nt = aff_threads(p, p->best_single);
		aff_text(p, p->best_single, a, sizeof(a));
		fprintf(out, "  %s: best single setting %s (%u thread%s) %.2f ms; per region %.2f ms; "
			"gain %.2f ms\n", k == PMA_ALLANDE_MAX ? "MAX" : "SUM", a, nt, nt == 1 ? "" : "s",
			p->single_total_ns / 1e6, p->per_region_total_ns / 1e6, p->gain_ns / 1e6);
	}
}

/* One Allande configuration as {"threads", "aff", "est_ns"}. */
static cJSON *aff_json(const struct pma_allande_plan *p, size_t region, size_t c)
{
	cJSON *o = cJSON_CreateObject(), *aff;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "threads", aff_threads(p, c));
	aff = cJSON_AddArrayToObject(o, "aff");
	for (uint32_t s = 0; aff && s < p->NS; s++)
		cJSON_AddItemToArray(aff, cJSON_CreateNumber(p->aff[c * p->NS + s]));
	if (region != (size_t)-1)
		cJSON_AddNumberToObject(o, "est_ns", p->estTime_ns[region * p->nconf + c]);
	return o;
}

/* "regions.counters": docs/pmanalyze-json.md */
static void region_counters_json(cJSON *o, const struct pma_regions_result *g)
{
	cJSON *c = cJSON_AddObjectToObject(o, "counters"), *ev;

	if (!c)
		return;
	ev = cJSON_AddArrayToObject(c, "events");
	for (size_t e = 0; ev && e < g->nevents; e++)
		cJSON_AddItemToArray(ev, cJSON_CreateString(g->events[e]));
	cJSON_AddBoolToObject(c, "recorded", g->nevents > 0);
	if (!g->nevents)
		cJSON_AddStringToObject(c, "reason", g->counters_reason ? g->counters_reason :
					"recorded before format 1.3 (no per-thread counters)");
	cJSON_AddNumberToObject(c, "task_records", (double)g->counter_tasks);
	cJSON_AddNumberToObject(c, "unmatched_records", (double)g->counter_unmatched);
	if (g->tcm_event >= 0)
		cJSON_AddStringToObject(c, "tcm_event", g->events[g->tcm_event]);
	else
		cJSON_AddNullToObject(c, "tcm_event");
}

/* "regions.rows[].predictions": one object per core count of the top-level "predictions" ([]
 * without A) */
static void region_predictions_json(cJSON *a, const struct pma_region_row *w)
{
	for (size_t i = 0; a && i < w->npred; i++) {
		const struct pma_region_pred *q = &w->pred[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return;
		cJSON_AddNumberToObject(o, "cores", q->cores);
		pma_render_add_finite(o, "A", q->A);
		pma_render_add_finite(o, "S", q->S);
		pma_render_add_finite(o, "T_ns", q->T_ns);
		pma_render_add_finite(o, "gain_ns", q->gain_ns);
		cJSON_AddItemToArray(a, o);
	}
}

/* "regions" (docs/pmanalyze-json.md): only in reports of --omp-regions traces. */
static void pma_render_regions_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_regions_result *g = &r->regions;
	cJSON *o, *rows, *al;
	char name[1400];

	if ((!g->present && !g->phases) || !(o = cJSON_AddObjectToObject(root, "regions")))
		return;
	cJSON_AddBoolToObject(o, "recorded", g->recorded);
	if (!g->recorded) {
		cJSON_AddStringToObject(o, "reason", !g->present ? "not recorded with --omp-regions" :
					g->reason ? g->reason : "no OpenMP runtime answered");
		if (!g->phases)
			return;
	}
	cJSON_AddStringToObject(o, "rows_are", g->phases ? "phases" : "regions");
	if (g->phases)
		cJSON_AddNumberToObject(o, "gap_ns", (double)g->gap_ns);
	cJSON_AddNumberToObject(o, "run_id", g->run_id);
	cJSON_AddNumberToObject(o, "instances", (double)g->instances);
	cJSON_AddNumberToObject(o, "unnamed_instances", (double)g->unnamed);
	cJSON_AddNumberToObject(o, "open_instances", (double)g->open);
	if (!g->phases)
		region_counters_json(o, g);
	cJSON_AddStringToObject(o, "A_source", g->have_A ? g->method : "none");
	cJSON_AddNumberToObject(o, "cores", g->n);
	cJSON_AddNumberToObject(o, "predictions_left_out", (double)g->pred_left_out);
	pma_render_add_finite(o, "run_T_cp_ns", g->have_A ? g->run_T_cp_ns : NAN);
	rows = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; rows && i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		pma_region_name(w, name, sizeof(name));
		cJSON_AddStringToObject(e, "name", name);
		cJSON_AddStringToObject(e, "function", w->function);
		cJSON_AddStringToObject(e, "file", w->file);
		cJSON_AddNumberToObject(e, "line", w->line);
		cJSON_AddStringToObject(e, "symbol", w->symbol);
		cJSON_AddStringToObject(e, "object", w->object);
		cJSON_AddNumberToObject(e, "offset", (double)w->offset);
		cJSON_AddNumberToObject(e, "depth", w->depth);
		if (w->phase) {
			cJSON_AddNumberToObject(e, "phase", w->phase);
			cJSON_AddNumberToObject(e, "begin_ns", (double)w->begin_ns);
			cJSON_AddNumberToObject(e, "end_ns", (double)w->end_ns);
		}
		cJSON_AddNumberToObject(e, "calls", (double)w->calls);
		cJSON_AddNumberToObject(e, "open", (double)w->open);
		cJSON_AddNumberToObject(e, "time_ns", w->time_ns);
		cJSON_AddNumberToObject(e, "share", w->share);
		cJSON_AddNumberToObject(e, "mean_team", w->mean_team);
		pma_render_add_finite(e, "A", w->have_A ? w->A : NAN);
		if (g->have_A && !w->have_A && w->A_why)
			cJSON_AddStringToObject(e, "A_why", w->A_why);
		pma_render_add_finite(e, "T_cp_ns", w->have_A ? w->T_cp_ns : NAN);
		pma_render_add_finite(e, "work_ns", w->have_A ? w->work_ns : NAN);
		pma_render_add_finite(e, "cp_share", w->have_A ? w->cp_share : NAN);
		pma_render_add_finite(e, "T_n_ns", w->have_A ? w->T_n_ns : NAN);
		pma_render_add_finite(e, "S_n", w->have_A ? w->S_n : NAN);
		pma_render_add_finite(e, "gain_ns", w->have_A ? w->gain_ns : NAN);
		region_predictions_json(cJSON_AddArrayToObject(e, "predictions"), w);
		if (g->nevents && w->counter_tasks) {
			cJSON *c = cJSON_AddObjectToObject(e, "counters");
			for (size_t k = 0; c && k < g->nevents; k++)
				cJSON_AddNumberToObject(c, g->events[k], w->counters[k]);
			cJSON_AddNumberToObject(e, "counter_tasks", (double)w->counter_tasks);
		}
		if (g->allande && w->allande >= 0) {
			cJSON *a = cJSON_AddObjectToObject(e, "allande"), *T;
			const struct pma_allande_factors *f = &g->factors[w->allande];
			T = a ? cJSON_AddArrayToObject(a, "T_ns") : NULL;
			for (uint32_t k = 1; T && k <= g->NC; k++)
				cJSON_AddItemToArray(T, cJSON_CreateNumber(f->T_ns[k]));
			if (a && !f->time_only) {
				cJSON *tcm = cJSON_AddArrayToObject(a, "TCM"), *cf = cJSON_AddArrayToObject(a, "cf"),
				      *beta = cJSON_AddArrayToObject(a, "beta_ns");
				for (uint32_t k = 1; tcm && cf && beta && k <= g->NC; k++) {
					cJSON_AddItemToArray(tcm, cJSON_CreateNumber(f->TCM[k]));
					cJSON_AddItemToArray(cf, cJSON_CreateNumber(f->cf[k]));
					cJSON_AddItemToArray(beta, cJSON_CreateNumber(f->beta_ns[k]));
				}
			}
			if (a) {
				cJSON_AddItemToObject(a, "best_max", aff_json(&g->plan[PMA_ALLANDE_MAX],
					(size_t)w->allande, g->plan[PMA_ALLANDE_MAX].best[w->allande]));
				cJSON_AddItemToObject(a, "best_sum", aff_json(&g->plan[PMA_ALLANDE_SUM],
					(size_t)w->allande, g->plan[PMA_ALLANDE_SUM].best[w->allande]));
			}
			for (int k = PMA_ALLANDE_SUM; a && g->allande_all && k <= PMA_ALLANDE_MAX; k++) {
				const struct pma_allande_plan *p = &g->plan[k];
				cJSON *est = cJSON_AddArrayToObject(a, k == PMA_ALLANDE_MAX ? "est_max_ns" :
								    "est_sum_ns");
				for (size_t c = 0; est && c < p->nconf; c++)
					cJSON_AddItemToArray(est, cJSON_CreateNumber(
						p->estTime_ns[(size_t)w->allande * p->nconf + c]));
			}
		}
		cJSON_AddItemToArray(rows, e);
	}
	if (!g->allande) {
		if (g->allande_why[0])
			cJSON_AddStringToObject(o, "allande_why", g->allande_why);
		return;
	}
	al = cJSON_AddObjectToObject(o, "allande");
	if (!al)
		return;
	cJSON_AddNumberToObject(al, "NC", g->NC);
	cJSON_AddNumberToObject(al, "NS", g->NS);
	cJSON_AddBoolToObject(al, "time_only", g->time_only);
	if (g->time_only)
		cJSON_AddStringToObject(al, "time_only_why", g->tcm_why[0] ? g->tcm_why : "no LLC counters");
	else
		cJSON_AddStringToObject(al, "tcm_event", g->tcm_name);
	if (g->allande_all) {
		/* the order of every row's est_sum_ns / est_max_ns (the same for both bounds) */
		const struct pma_allande_plan *p = &g->plan[PMA_ALLANDE_SUM];
		cJSON *confs = cJSON_AddArrayToObject(al, "configurations");
		for (size_t c = 0; confs && c < p->nconf; c++) {
			cJSON *aff = cJSON_CreateArray();
			for (uint32_t k = 0; aff && k < p->NS; k++)
				cJSON_AddItemToArray(aff, cJSON_CreateNumber(p->aff[c * p->NS + k]));
			cJSON_AddItemToArray(confs, aff);
		}
	}
	for (int k = PMA_ALLANDE_SUM; k <= PMA_ALLANDE_MAX; k++) {
		const struct pma_allande_plan *p = &g->plan[k];
		cJSON *b = cJSON_AddObjectToObject(al, k == PMA_ALLANDE_MAX ? "max" : "sum");
		if (!b)
			continue;
		cJSON_AddNumberToObject(b, "configurations", (double)p->nconf);
		cJSON_AddItemToObject(b, "best_single", aff_json(p, (size_t)-1, p->best_single));
		cJSON_AddNumberToObject(b, "single_total_ns", p->single_total_ns);
		cJSON_AddNumberToObject(b, "per_region_total_ns", p->per_region_total_ns);
		cJSON_AddNumberToObject(b, "gain_ns", p->gain_ns);
	}
}

/* An estimated time of plan k (PMA_ALLANDE_SUM or _MAX) for region index a at configuration c, s. */
static double est_s(const struct pma_regions_result *g, int k, long a, size_t c)
{
	const struct pma_allande_plan *p = &g->plan[k];

	return p->estTime_ns[(size_t)a * p->nconf + c] / 1e9;
}

/* A separator then a CSV number, or an empty field when it is not finite (the regions tables). */
static void csv_sep_opt(FILE *out, const char *sep, double v)
{
	if (isfinite(v))
		fprintf(out, "%s%.6g", sep, v);
	else
		fputs(sep, out);
}

/* Allande's inputs per region and thread count (eq. 2, 4), the plans' totals (§4.3) and, with
 * --allande-all, every configuration's SUM and MAX estimate (eq. 7-9): three more CSV tables. */
static void csv_allande(FILE *out, const struct pma_regions_result *g)
{
	const struct pma_allande_plan *ps = &g->plan[PMA_ALLANDE_SUM];
	char name[1400], a[PMA_ALLANDE_MAX_NC * 4 + 8];

	fputs("\nregion,threads,T_s,ideal_s,TCM,cf,beta_ns\n", out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		const struct pma_allande_factors *f;
		if (w->allande < 0)
			continue;
		f = &g->factors[w->allande];
		pma_region_name(w, name, sizeof(name));
		for (uint32_t k = 1; k <= g->NC; k++) {
			pma_csv_field(out, name);
			fprintf(out, ",%u,%.6g,%.6g", k, f->T_ns[k] / 1e9, f->idealTime_ns[k] / 1e9);
			csv_sep_opt(out, ",", f->time_only ? NAN : f->TCM[k]);
			csv_sep_opt(out, ",", f->time_only ? NAN : f->cf[k]);
			csv_sep_opt(out, ",", f->time_only ? NAN : f->beta_ns[k]);
			fputc('\n', out);
		}
	}
	fputs("\nbound,NC,NS,configurations,time_only,best_single,best_single_threads,single_total_s,"
	      "per_region_total_s,gain_s\n", out);
	for (int k = PMA_ALLANDE_SUM; k <= PMA_ALLANDE_MAX; k++) {
		const struct pma_allande_plan *p = &g->plan[k];
		aff_text(p, p->best_single, a, sizeof(a));
		fprintf(out, "%s,%u,%u,%zu,%d,", k == PMA_ALLANDE_MAX ? "max" : "sum", g->NC, g->NS,
			p->nconf, g->time_only);
		pma_csv_field(out, a);
		fprintf(out, ",%u,%.6g,%.6g,%.6g\n", aff_threads(p, p->best_single),
			p->single_total_ns / 1e9, p->per_region_total_ns / 1e9, p->gain_ns / 1e9);
	}
	if (!g->allande_all)
		return;
	/* both plans enumerate the same configurations in the same order (pma_place_enumerate) */
	fputs("\nregion,aff,threads,est_sum_s,est_max_s\n", out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		if (w->allande < 0)
			continue;
		pma_region_name(w, name, sizeof(name));
		for (size_t c = 0; c < ps->nconf; c++) {
			aff_text(ps, c, a, sizeof(a));
			pma_csv_field(out, name);
			fputc(',', out);
			pma_csv_field(out, a);
			fprintf(out, ",%u,%.6g,%.6g\n", aff_threads(ps, c), est_s(g, PMA_ALLANDE_SUM, w->allande, c),
				est_s(g, PMA_ALLANDE_MAX, w->allande, c));
		}
	}
}

/* The regions' predictions (regions.h pred) in long form after a blank line: one row per region
 * (or phase) with A and core count, in the order of the regions table, then of --cores; the header
 * alone when no row has A. */
static void csv_region_predictions(FILE *out, const struct pma_regions_result *g)
{
	char name[1400];

	fputs("\nregion,cores,A,S,T_s,gain_s\n", out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		pma_region_name(w, name, sizeof(name));
		for (size_t k = 0; k < w->npred; k++) {
			const struct pma_region_pred *q = &w->pred[k];
			pma_csv_field(out, name);
			fprintf(out, ",%u", q->cores);
			csv_sep_opt(out, ",", q->A);
			csv_sep_opt(out, ",", q->S);
			csv_sep_opt(out, ",", q->T_ns / 1e9);
			csv_sep_opt(out, ",", q->gain_ns / 1e9);
			fputc('\n', out);
		}
	}
}

/* --omp-regions traces: a second table after a blank line, one row per region, then
 * csv_region_predictions' table (then, when the trace has Allande's runs, csv_allande's tables).
 * The per-thread counters' sums are the last columns, one per event, named after it. */
static void pma_render_csv_regions(FILE *out, const struct pma_result *r)
{
	const struct pma_regions_result *g = &r->regions;
	char name[1400], a[PMA_ALLANDE_MAX_NC * 4 + 8];

	if ((!g->present || !g->recorded) && !g->phases)
		return;
	fputs("\nregion,function,file,line,depth,calls,time_s,share,A,T_cp_s,cp_share,T_n_s,S_n,gain_s,"
	      "best_max,best_sum,best_max_threads,best_max_est_s,best_sum_threads,best_sum_est_s,"
	      "mean_team,tcm,counter_tasks", out);
	for (size_t e = 0; !g->phases && e < g->nevents; e++) {
		fputc(',', out);
		pma_csv_field(out, g->events[e]);
	}
	fputc('\n', out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		int al = g->allande && w->allande >= 0, ctr = !g->phases && g->nevents && w->counter_tasks;
		size_t bm = al ? g->plan[PMA_ALLANDE_MAX].best[w->allande] : 0;
		size_t bs = al ? g->plan[PMA_ALLANDE_SUM].best[w->allande] : 0;
		pma_region_name(w, name, sizeof(name));
		pma_csv_field(out, name);
		fputc(',', out);
		pma_csv_field(out, w->function);
		fputc(',', out);
		pma_csv_field(out, w->file);
		fprintf(out, ",%d,%u,%llu,%.6g,%.6g,", w->line, w->depth, (unsigned long long)w->calls,
			w->time_ns / 1e9, w->share);
		if (w->have_A)
			fprintf(out, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", w->A, w->T_cp_ns / 1e9, w->cp_share,
				w->T_n_ns / 1e9, w->S_n, w->gain_ns / 1e9);
		else
			fputs(",,,,,", out);
		a[0] = 0;
		if (al)
			aff_text(&g->plan[PMA_ALLANDE_MAX], bm, a, sizeof(a));
		fputc(',', out);
		pma_csv_field(out, a);
		if (al)
			aff_text(&g->plan[PMA_ALLANDE_SUM], bs, a, sizeof(a));
		fputc(',', out);
		pma_csv_field(out, a);
		if (al)
			fprintf(out, ",%u,%.6g,%u,%.6g", aff_threads(&g->plan[PMA_ALLANDE_MAX], bm),
				est_s(g, PMA_ALLANDE_MAX, w->allande, bm),
				aff_threads(&g->plan[PMA_ALLANDE_SUM], bs), est_s(g, PMA_ALLANDE_SUM, w->allande, bs));
		else
			fputs(",,,,", out);
		csv_sep_opt(out, ",", w->mean_team > 0 ? w->mean_team : NAN);
		csv_sep_opt(out, ",", ctr && g->tcm_event >= 0 ? w->counters[g->tcm_event] : NAN);
		fprintf(out, ",%llu", (unsigned long long)w->counter_tasks);
		for (size_t e = 0; !g->phases && e < g->nevents; e++)
			csv_sep_opt(out, ",", ctr ? w->counters[e] : NAN);
		fputc('\n', out);
	}
	csv_region_predictions(out, g);
	if (g->allande)
		csv_allande(out, g);
}

/* ---- HTML ---- */

/* Per-region (or per-phase) parallelism of an --omp-regions trace, by potential gain. */
static int pma_render_html_regions(FILE *out, const struct pma_result *r, char *why, size_t whysize)
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
		pma_html_cell_num(out, w->time_ns / 1e6, 1);
		pma_html_cell_num(out, 100 * w->share, 1);
		pma_html_cell_num(out, w->have_A ? w->A : NAN, 2);
		pma_html_cell_num(out, w->have_A ? w->T_cp_ns / 1e6 : NAN, 1);
		pma_html_cell_num(out, w->have_A ? w->S_n : NAN, 2);
		pma_html_cell_num(out, w->have_A ? w->gain_ns / 1e6 : NAN, 1);
		P("</tr>\n");
	}
	P("</tbody></table></div>\n<p class=\"small\">A(m,&#8734;) and T<sub>cp</sub> inside the "
	  "%s' windows (Tudor &amp; Teo eq. 4, restricted), from %s; sorted by the time saved at %u "
	  "cores if the region scaled ideally.</p>\n", g->phases ? "phases" : "regions",
	  g->method ? g->method : "no profile", g->n);
	return 0;
}

/* ---- the section ---- */

const struct pma_section pma_section_regions = {
	.name = "regions",
	.steps = { { PMA_STAGE_CHECK, pma_step_regions } },
	.table = pma_render_table_regions,
	.json = pma_render_regions_json,
	.csv = pma_render_csv_regions,
	.html = { { PMA_PAGE_STUDIES, "regions", "Regions", pma_render_html_regions } },
};
