/* SPDX-License-Identifier: MIT */
/* report_interference.c: the report of an --interfere trace (Casas & Bronevetsky) as a
 * table, JSON and CSV. */
#include "report_sections.h"

#include <math.h>

#include "render_util.h"

#define MIB (1024.0 * 1024.0) /* the calibration's MB */

void pma_render_table_interference(FILE *out, const struct pma_result *r)
{
	const struct pma_interf_result *x = &r->interf;
	const struct pma_interf_cal *c = x->cal;
	char need[512], cmd[512];

	pma_render_command_string(&r->t->meta, cmd, sizeof(cmd));
	fprintf(out, "Active interference (Casas & Bronevetsky)\n  program: %s\n", cmd);
	if (x->sens.npoints)
		fprintf(out, "  kind: %s (%s); %zu runs used, %zu per level; threshold %.0f%%\n",
			x->bandwidth ? "bandwidth" : "cache", x->bandwidth ? "BWThrs" : "CSThrs", x->nruns,
			x->nreps, 100 * x->threshold);
	if (c) {
		fprintf(out, "  calibration (capacity: %s method, BW1: %s): BW1 %.2f GB/s, B %.2f GB/s; "
			"capacity left:", c->counters ? "counter" : "timing", c->bw1_counters ?
			"counted misses" : "misses = accesses", c->BW1_bytes_per_s / 1e9, c->B_bytes_per_s / 1e9);
		for (size_t k = 0; k < c->ncap; k++) {
			if (isfinite(c->C_bytes[k]))
				fprintf(out, "%s k=%zu %.1f MB", k ? "," : "", k, c->C_bytes[k] / MIB);
			else
				fprintf(out, "%s k=%zu not measurable", k ? "," : "", k);
		}
		fprintf(out, "; orthogonal BWThrs %.0f\n", c->orth_bwthrs);
		if (c->written_id[0])
			fprintf(out, "  calibration %s: made by %s on %s at %s\n", c->written_id,
				c->written_user, c->written_host, c->written_time_utc);
	}
	fprintf(out, "  estimate: %s: %s\n", pma_interf_estimate_name(x->estimate), x->reason);
	if (x->sens.npoints) {
		fprintf(out, "\n%3s %12s %10s %10s %10s %9s %12s %10s %s\n", "k", x->bandwidth ? "left GB/s" :
			"left MB", "CPU s", "min s", "max s", "slowdown", "interf GB/s", "wall s", "degraded");
		for (size_t l = 0; l < x->sens.npoints; l++) {
			const struct pma_sens_point *pt = &x->sens.points[l];
			char left[32], bw[32];
			pma_render_fmt_num(left, sizeof(left), x->bandwidth ? 2 : 1, pt->left / (x->bandwidth ? 1e9 : MIB), "");
			pma_render_fmt_num(bw, sizeof(bw), 2, x->interferers_bytes_per_s[l] / 1e9, "");
			fprintf(out, "%3u %12s %10.3f %10.3f %10.3f %8.1f%% %12s %10.3f %s\n", pt->k, left,
				pt->runtime_ns / 1e9, pt->min_ns / 1e9, pt->max_ns / 1e9, 100 * pt->slowdown, bw,
				x->wall_ns[l] / 1e9, pt->degraded ? "yes" : pt->within_noise ? "within noise" : "no");
		}
	}
	pma_interf_summary(need, sizeof(need), x);
	fprintf(out, "\n%s%s\n", need, x->sens.nonmonotonic ? " (non-monotonic: a level above k_bad "
		"was not degraded)" : "");
	pma_render_print_notes(out, &r->notes, "\nnote: ");
}

cJSON *pma_render_interference_json(const struct pma_result *r)
{
	const struct pma_interf_result *x = &r->interf;
	const struct pma_interf_cal *c = x->cal;
	const struct pma_sens_result *s = &x->sens;
	cJSON *o = cJSON_CreateObject(), *cal, *curve, *caps;
	char need[512];

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "kind", !s->npoints ? "none" : x->bandwidth ? "bandwidth" : "cache");
	cJSON_AddNumberToObject(o, "threshold", x->threshold);
	cJSON_AddNumberToObject(o, "p", x->p);
	cJSON_AddNumberToObject(o, "runs", (double)x->nruns);
	cJSON_AddNumberToObject(o, "reps", (double)x->nreps);
	cJSON_AddStringToObject(o, "runtime", "cpu_time"); /* runtime_s: utime + stime */
	cJSON_AddStringToObject(o, "estimate", x->estimate == PMA_INTERF_EST_BANDWIDTH ? "bandwidth" :
				x->estimate == PMA_INTERF_EST_CAPACITY ? "capacity" : "none");
	cJSON_AddStringToObject(o, "estimate_reason", x->reason);
	/* which calibration numbers the runs contradict (enum pma_interf_disturbed) */
	cJSON_AddStringToObject(o, "calibration_disturbed", pma_interf_disturbed_name(x->disturbed));
	if (x->disturbed != PMA_INTERF_CAL_OK) {
		cJSON *u = cJSON_AddArrayToObject(o, "untrusted");
		if (u) {
			cJSON_AddItemToArray(u, cJSON_CreateString(x->disturbed == PMA_INTERF_CAL_BW1_EXCEEDED ?
								   "BW1_bytes_per_s" : "B_bytes_per_s"));
			cJSON_AddItemToArray(u, cJSON_CreateString("left_bytes_per_s"));
		}
	}
	cal = c ? cJSON_AddObjectToObject(o, "calibration") : (cJSON_AddNullToObject(o, "calibration"), NULL);
	if (cal) {
		cJSON_AddStringToObject(cal, "method", c->counters ? "counters" : "timing");
		cJSON_AddStringToObject(cal, "bw1_method", c->bw1_counters ? "counters" : "accesses");
		pma_render_add_finite(cal, "BW1_bytes_per_s", c->BW1_bytes_per_s);
		pma_render_add_finite(cal, "B_bytes_per_s", c->B_bytes_per_s);
		caps = cJSON_AddArrayToObject(cal, "capacity_bytes");
		for (size_t k = 0; caps && k < c->ncap; k++)
			cJSON_AddItemToArray(caps, isfinite(c->C_bytes[k]) ? cJSON_CreateNumber(c->C_bytes[k]) :
					     cJSON_CreateNull());
		cJSON_AddBoolToObject(cal, "capacity_resolvable", x->capacity_resolvable);
		cJSON_AddNumberToObject(cal, "orthogonal_bwthrs", c->orth_bwthrs);
		if (c->written_id[0]) {
			cJSON *w = cJSON_AddObjectToObject(cal, "written");
			cJSON_AddStringToObject(w, "id", c->written_id);
			cJSON_AddStringToObject(w, "user", c->written_user);
			cJSON_AddStringToObject(w, "host", c->written_host);
			cJSON_AddStringToObject(w, "time_utc", c->written_time_utc);
		}
	}
	curve = cJSON_AddArrayToObject(o, "curve");
	for (size_t l = 0; curve && l < s->npoints; l++) {
		const struct pma_sens_point *pt = &s->points[l];
		cJSON *p = cJSON_CreateObject();
		cJSON_AddItemToArray(curve, p);
		cJSON_AddNumberToObject(p, "k", pt->k);
		pma_render_add_finite(p, x->bandwidth ? "left_bytes_per_s" : "left_bytes", pt->left);
		cJSON_AddNumberToObject(p, "runtime_s", pt->runtime_ns / 1e9);
		cJSON_AddNumberToObject(p, "min_s", pt->min_ns / 1e9);
		cJSON_AddNumberToObject(p, "max_s", pt->max_ns / 1e9);
		cJSON_AddNumberToObject(p, "slowdown", pt->slowdown);
		cJSON_AddBoolToObject(p, "degraded", pt->degraded);
		cJSON_AddBoolToObject(p, "within_noise", pt->within_noise);
		pma_render_add_finite(p, "interferers_bytes_per_s", x->interferers_bytes_per_s[l]);
		pma_render_add_finite(p, "wall_s", x->wall_ns[l] / 1e9);
	}
	cJSON_AddStringToObject(o, "verdict", !s->npoints ? "none" : s->verdict == PMA_SENS_BOUNDED ?
				"sensitive" : s->verdict == PMA_SENS_NO_NOISE ? "no_noise_estimate" :
				"not_sensitive");
	if (s->k_ok >= 0)
		cJSON_AddNumberToObject(o, "k_ok", s->k_ok);
	else
		cJSON_AddNullToObject(o, "k_ok");
	if (s->k_bad >= 0)
		cJSON_AddNumberToObject(o, "k_bad", s->k_bad);
	else
		cJSON_AddNullToObject(o, "k_bad");
	pma_render_add_finite(o, "need_lo", s->verdict == PMA_SENS_BOUNDED && s->npoints ? s->need_lo : NAN);
	pma_render_add_finite(o, "need_hi", s->verdict == PMA_SENS_BOUNDED && s->npoints ? s->need_hi : NAN);
	cJSON_AddStringToObject(o, "need_unit", x->bandwidth ? "bytes_per_s" : "bytes");
	cJSON_AddBoolToObject(o, "nonmonotonic", s->nonmonotonic);
	pma_interf_summary(need, sizeof(need), x);
	cJSON_AddStringToObject(o, "summary", need);
	return o;
}

void pma_render_print_interference_csv(FILE *out, const struct pma_result *r)
{
	const struct pma_interf_result *x = &r->interf;

	fputs("kind,k,left,left_unit,runtime_s,min_s,max_s,slowdown,degraded,interferers_bytes_per_s,wall_s\n", out);
	for (size_t l = 0; l < x->sens.npoints; l++) {
		const struct pma_sens_point *pt = &x->sens.points[l];
		fprintf(out, "%s,%u,%.6g,%s,%.6g,%.6g,%.6g,%.6g,%d,%.6g,%.6g\n", x->bandwidth ? "bandwidth" : "cache",
			pt->k, pt->left, x->bandwidth ? "bytes_per_s" : "bytes", pt->runtime_ns / 1e9,
			pt->min_ns / 1e9, pt->max_ns / 1e9, pt->slowdown, pt->degraded,
			x->interferers_bytes_per_s[l], x->wall_ns[l] / 1e9);
	}
}
