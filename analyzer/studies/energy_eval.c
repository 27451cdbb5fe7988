/* SPDX-License-Identifier: MIT */
/* energy_eval.c: the energy section: power model over the runs with energy, E(n), EDP(n) and the
 * energy-optimal core count, and the trust in the readings given the machine's other load. */
#include "energy_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pma_energy_trust_name(enum pma_energy_trust t)
{
	switch (t) {
	case PMA_TRUST_GOOD: return "good";
	case PMA_TRUST_FAIR: return "fair";
	case PMA_TRUST_POOR: return "poor";
	default: return "unknown";
	}
}

int pma_power_run_from(const struct pma_run *run, struct pma_power_run *p)
{
	const struct pma_run_energy *e = &run->info.energy;
	double wall_s = pma_run_wall_s(run);

	if (!run->info.has_end || !e->present || !isfinite(e->package_uj) || wall_s <= 0 ||
	    run->cpus_n == 0)
		return 0;
	p->n = run->cpus_n;
	p->busy_cores = isfinite(run->info.C.cpu_time_ns) ? run->info.C.cpu_time_ns / 1e9 / wall_s : 0;
	p->T_s = wall_s;
	p->E_j = (e->package_uj + (isfinite(e->dram_uj) ? e->dram_uj : 0)) / 1e6;
	p->E_core_j = isfinite(e->core_uj) ? e->core_uj / 1e6 : -1;
	return 1;
}

/* The other processes' share of the busy CPUs during the runs used, at its largest. */
static void trust(const struct pma_trace *traces, int ntraces, struct pma_energy_result *out)
{
	out->other_share_max = out->other_load_max_cpus = NAN;
	for (int t = 0; t < ntraces; t++)
		for (uint32_t i = 0; i < traces[t].nruns; i++) {
			const struct pma_run *run = &traces[t].runs[i];
			const struct pma_run_energy *e = &run->info.energy;
			struct pma_power_run p;
			double share;
			if (!pma_power_run_from(run, &p) || !isfinite(e->other_load_cpus) ||
			    !isfinite(e->program_cpus))
				continue;
			share = e->other_load_cpus + e->program_cpus > 0
				? e->other_load_cpus / (e->other_load_cpus + e->program_cpus) : 0;
			if (!(share <= out->other_share_max))
				out->other_share_max = share;
			if (!(e->other_load_cpus <= out->other_load_max_cpus))
				out->other_load_max_cpus = e->other_load_cpus;
		}
	out->trust = !isfinite(out->other_share_max) ? PMA_TRUST_UNKNOWN :
		out->other_share_max < 0.10 ? PMA_TRUST_GOOD :
		out->other_share_max < 0.30 ? PMA_TRUST_FAIR : PMA_TRUST_POOR;
}

/* PMA_NOTE_ENERGY_GAP when a run with energy read its counters more than 1 s apart (the
 * collector's loop reads every 100 ms; a stalled loop may miss a second wrap). Returns 0 or -1
 * (out of memory). */
static int gap_note(const struct pma_trace *traces, int ntraces, struct pma_notes *notes)
{
	double nruns = 0, worst = 0, worst_run = 0;

	for (int t = 0; t < ntraces; t++)
		for (uint32_t i = 0; i < traces[t].nruns; i++) {
			const struct pma_run_energy *e = &traces[t].runs[i].info.energy;
			if (!e->present || !(e->max_gap_ns > PMA_ENERGY_MAX_GAP_NS))
				continue;
			nruns++;
			if (e->max_gap_ns > worst) {
				worst = e->max_gap_ns;
				worst_run = traces[t].runs[i].run_id;
			}
		}
	if (!nruns)
		return 0;
	return pma_note_add_energy_gap(notes, &(struct pma_note_energy_gap){ .runs = nruns,
			.gap_s = worst / 1e9, .run_id = worst_run });
}

/* The fit (out->model) is not physical: no energy (out->have stays 0) and a note; P_min the
 * least predicted P(n), NAN when not computed. Returns 0 or -1 (out of memory). */
static int unphysical_note(struct pma_energy_result *out, double P_min)
{
	const struct pma_power_model *m = &out->model;

	out->unphysical = 1;
	return pma_note_add_power_unphysical(&out->notes, &(struct pma_note_power_unphysical){
			.P_static_w = m->P_static_w, .P_core_w = m->P_core_w, .R2 = m->R2,
			.runs = (double)m->nruns, .counts = m->ncounts, .P_min_w = P_min });
}

int pma_energy_eval(const struct pma_trace *traces, int ntraces, const uint32_t *cores,
		    const struct pma_prediction *pred, size_t ncores, struct pma_energy_result *out)
{
	struct pma_power_run *runs = NULL;
	uint32_t *n = NULL;
	double *T = NULL, *A = NULL;
	size_t k = 0, all = 0, zones = 1;
	const char *reason = NULL;
	double P_min = INFINITY;
	int rc = -1, fit;

	memset(out, 0, sizeof(*out));
	for (int t = 0; t < ntraces; t++)
		all += traces[t].nruns;
	runs = calloc(all ? all : 1, sizeof(*runs));
	n = calloc(ncores ? ncores : 1, sizeof(*n));
	T = calloc(ncores ? ncores : 1, sizeof(*T));
	A = calloc(ncores ? ncores : 1, sizeof(*A));
	out->pts = calloc(ncores ? ncores : 1, sizeof(*out->pts));
	if (!runs || !n || !T || !A || !out->pts)
		goto done;
	for (int t = 0; t < ntraces; t++)
		for (uint32_t i = 0; i < traces[t].nruns; i++) {
			const struct pma_run *run = &traces[t].runs[i];
			if (pma_power_run_from(run, &runs[k])) {
				if (!out->source)
					out->source = run->info.energy.source;
				zones &= runs[k].E_core_j >= 0;
				k++;
			} else if (!reason && run->info.energy.reason) {
				reason = run->info.energy.reason;
			} else if (!reason && run->info.energy.present) {
				reason = "no run records a package zone (the power model needs one)";
			}
		}
	out->nruns = k;
	trust(traces, ntraces, out);
	if (gap_note(traces, ntraces, &out->notes) < 0)
		goto done;
	if (k == 0) {
		/* no run gave a reason: traces before format 1.2 (no RUN_END energy), or no run of a
		 * 1.2+ trace finished (a 1.3 trace was told it "predates energy recording") */
		int old = 1;
		for (int t = 0; t < ntraces; t++)
			old &= traces[t].major == 1 && traces[t].minor < 2;
		snprintf(out->reason, sizeof(out->reason), "no run has energy readings: %s",
			 reason ? reason : old ? "the traces predate energy recording (format 1.2)" :
			 "no run finished (no RUN_END)");
		rc = 0;
		goto done;
	}
	fit = pma_power_fit(runs, k, (int)zones, &out->model, out->reason, sizeof(out->reason));
	if (fit == PMA_POWER_E_UNPHYSICAL) {
		rc = unphysical_note(out, NAN);
		goto done;
	}
	if (fit < 0) {
		rc = 0;
		goto done;
	}
	if (out->model.ncounts == 2 &&
	    pma_note_add_power_two_counts(&out->notes, &(struct pma_note_power_two_counts){
			.runs = (double)k, .R2 = out->model.R2 }) < 0)
		goto done;
	for (size_t i = 0; i < ncores; i++) {
		double Ts = pred[i].T_ns / 1e9;
		if (!isfinite(Ts) || Ts <= 0 || !isfinite(pred[i].A))
			continue;
		n[out->npts] = cores[i];
		T[out->npts] = Ts;
		A[out->npts] = pred[i].A;
		out->npts++;
	}
	if (out->npts == 0 || pma_energy_predict(&out->model, n, T, A, out->npts, out->pts) < 0 ||
	    pma_energy_optimum(out->pts, out->npts, &out->opt) < 0) {
		snprintf(out->reason, sizeof(out->reason), "no core count has a finite predicted time");
		out->npts = 0;
		rc = 0;
		goto done;
	}
	for (size_t i = 0; i < out->npts; i++)
		P_min = fmin(P_min, out->pts[i].P_w);
	if (!(P_min > 0)) {
		snprintf(out->reason, sizeof(out->reason), "the power fit is not physical: P(n) = "
			 "%.3g W <= 0 (P_static %.2f W, P_core %.2f W)", P_min, out->model.P_static_w,
			 out->model.P_core_w);
		out->npts = 0;
		rc = unphysical_note(out, P_min);
		goto done;
	}
	out->have = 1;
	rc = 0;
done:
	free(runs);
	free(n);
	free(T);
	free(A);
	return rc;
}

void pma_energy_result_free(struct pma_energy_result *e)
{
	if (!e)
		return;
	free(e->pts);
	pma_notes_free(&e->notes);
	memset(e, 0, sizeof(*e));
}

/* Zone z's legend label: its name, with its id when another zone has the same name (two packages
 * each have "core" and "dram"). Returns a malloc'ed string or NULL. */
static char *zone_label(const struct pma_run_info *ri, size_t z)
{
	const char *name = z < ri->nenergy_zones ? ri->energy_zones[z] : NULL;
	const char *id = z < ri->energy.nzone_ids ? ri->energy.zone_ids[z] : NULL;
	int repeats = 0;
	char buf[160];

	for (size_t i = 0; name && i < ri->nenergy_zones; i++)
		repeats |= i != z && ri->energy_zones[i] && strcmp(ri->energy_zones[i], name) == 0;
	if (!name)
		snprintf(buf, sizeof(buf), "zone %zu", z);
	else if (repeats && id)
		snprintf(buf, sizeof(buf), "%.60s (%.60s)", name, id);
	else if (repeats)
		snprintf(buf, sizeof(buf), "%.60s #%zu", name, z);
	else
		snprintf(buf, sizeof(buf), "%.100s", name);
	return strdup(buf);
}

int pma_run_power(const struct pma_run *run, struct pma_run_power *out)
{
	int begin = run->info.has_begin;

	memset(out, 0, sizeof(*out));
	if (!run->nenergy || !run->energy_nz)
		return 0;
	if (pma_power_series(run->energy_t_ns, run->energy_uj, run->nenergy, run->energy_nz,
			     begin ? run->t_begin_ns : run->energy_t_ns[0], begin, &out->s) < 0)
		return -1;
	if (!(out->labels = calloc(out->s.nzones, sizeof(*out->labels))))
		return -1;
	for (size_t z = 0; z < out->s.nzones; z++)
		if (!(out->labels[z] = zone_label(&run->info, z)))
			return -1;
	out->source = run->info.energy.source;
	return 0;
}

void pma_run_power_free(struct pma_run_power *p)
{
	if (!p)
		return;
	for (size_t z = 0; p->labels && z < p->s.nzones; z++)
		free(p->labels[z]);
	free(p->labels);
	pma_power_series_free(&p->s);
	memset(p, 0, sizeof(*p));
}
