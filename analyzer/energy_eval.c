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

/* The run as a power-model input; 0 when it has no usable energy. */
static int power_run(const struct pma_run *run, struct pma_power_run *p)
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
			if (!power_run(run, &p) || !isfinite(e->other_load_cpus) ||
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

int pma_energy_eval(const struct pma_trace *traces, int ntraces, const uint32_t *cores,
		    const struct pma_prediction *pred, size_t ncores, struct pma_energy_result *out)
{
	struct pma_power_run *runs = NULL;
	uint32_t *n = NULL;
	double *T = NULL, *A = NULL;
	size_t k = 0, all = 0, zones = 1;
	const char *reason = NULL;
	int rc = -1;

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
			if (power_run(run, &runs[k])) {
				if (!out->source)
					out->source = run->info.energy.source;
				zones &= runs[k].E_core_j >= 0;
				k++;
			} else if (!reason && run->info.energy.reason) {
				reason = run->info.energy.reason;
			}
		}
	out->nruns = k;
	trust(traces, ntraces, out);
	if (k == 0) {
		snprintf(out->reason, sizeof(out->reason), "no run has energy readings: %s",
			 reason ? reason : "the traces predate energy recording (format 1.2)");
		rc = 0;
		goto done;
	}
	if (pma_power_fit(runs, k, (int)zones, &out->model, out->reason, sizeof(out->reason)) < 0) {
		rc = 0;
		goto done;
	}
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
	memset(e, 0, sizeof(*e));
}
