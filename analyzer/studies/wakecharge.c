/* SPDX-License-Identifier: MIT */
/* wakecharge.c: the replay's wake charges from the machine's wake-up cost (wakecharge.h). */
#include "wakecharge.h"

#include <math.h>
#include <string.h>

static const struct pma_wake_pair *find_class(const struct pma_wake_cal *cal, const char *cls)
{
	for (size_t i = 0; i < cal->n; i++)
		if (strcmp(cal->pairs[i].cls, cls) == 0)
			return &cal->pairs[i];
	return NULL;
}

int pma_wakecost_from_cal(const struct pma_wake_cal *cal, const char *from, struct pma_wake_result *out)
{
	/* where an idle-core wake goes first: Linux's select_idle_sibling looks for an idle core in
	 * the waker's last-level cache domain before an SMT sibling or another package */
	static const char *const order[] = { "shared_cache", "same_package", "smt", "other_package" };
	const struct pma_wake_pair *same = find_class(cal, "same_cpu"), *cross = NULL;

	memset(out, 0, sizeof(*out));
	for (size_t k = 0; !cross && k < sizeof(order) / sizeof(order[0]); k++)
		if ((cross = find_class(cal, order[k])))
			out->cross_class = order[k];
	if (!same || !cross)
		return -1;
	out->have = 1;
	out->from = from;
	out->same_ns = same->median_ns;
	out->cross_ns = cross->median_ns;
	out->charge.same_ns = 0;
	if (isfinite(cross->cpu_ns) && isfinite(same->cpu_ns))
		out->wakee_cpu_ns = fmax(0, cross->cpu_ns - same->cpu_ns) / 2;
	out->charge.cross_ns = fmax(0, cross->median_ns - same->median_ns - out->wakee_cpu_ns);
	out->cross_err_ns = hypot((cross->max_ns - cross->min_ns) / 2, (same->max_ns - same->min_ns) / 2);
	return 0;
}

void pma_wakecost_choose(const struct pma_trace *traces, int ntraces, struct pma_wake_result *out)
{
	memset(out, 0, sizeof(*out));
	for (int pass = 0; pass < 3; pass++)
		for (int i = pass == 1 ? 0 : 1; i < (pass == 1 ? 1 : ntraces); i++) {
			const struct pma_trace *t = &traces[i];
			if (pass == 0 && t->nruns)
				continue;
			if (pma_wakecost_from_cal(&t->meta.wake, t->path, out) == 0)
				return;
		}
}

int pma_wakecost_replay(const struct pma_exact *x, uint32_t n, const struct pma_wake_result *w,
			double *T_ns, double *T_err_ns, struct pma_replay_wakes *wk)
{
	struct pma_wake_charge lo, hi;
	double T_lo, T_hi;

	*T_err_ns = 0;
	if (!w || !w->have)
		return pma_exact_replay_charged(x, n, NULL, T_ns, wk);
	if (pma_exact_replay_charged(x, n, &w->charge, T_ns, wk) < 0)
		return -1;
	if (!(w->cross_err_ns > 0))
		return 0;
	lo = hi = w->charge;
	lo.cross_ns = fmax(0, lo.cross_ns - w->cross_err_ns);
	hi.cross_ns += w->cross_err_ns;
	if (pma_exact_replay_charged(x, n, &lo, &T_lo, NULL) < 0 ||
	    pma_exact_replay_charged(x, n, &hi, &T_hi, NULL) < 0)
		return -1;
	*T_err_ns = fabs(T_hi - T_lo) / 2;
	return 0;
}

int pma_wakecost_T(const struct pma_exact *x, const struct pma_exact_stats *st, uint32_t n,
		   struct pma_wake_result *w, double *T_ns, double *T_err_ns)
{
	struct pma_replay_wakes wk;

	*T_ns = st->T_cp_ns;
	*T_err_ns = 0;
	if (n >= st->threads && !w->have)
		return 0;
	if (n >= st->threads && w->T_all_ns > 0) {
		*T_ns = w->T_all_ns;
		*T_err_ns = w->T_all_err_ns;
		return 0;
	}
	if (n >= st->threads) {
		if (pma_wakecost_replay(x, st->threads, w, T_ns, T_err_ns, NULL) < 0)
			return -1;
		w->T_all_ns = *T_ns;
		w->T_all_err_ns = *T_err_ns;
		return 0;
	}
	if (pma_wakecost_replay(x, n, w, T_ns, T_err_ns, &wk) < 0)
		return -1;
	if (n >= w->cores) {
		w->cores = n;
		w->wakes = wk;
	}
	return 0;
}

void pma_wakecost_info(FILE *out, const struct pma_wake_cal *cal)
{
	for (size_t i = 0; i < cal->n; i++) {
		const struct pma_wake_pair *p = &cal->pairs[i];
		fprintf(out, "%-13s%s, CPUs %d and %d: %.2f us one-way (batches %.2f-%.2f us; futex "
			"ping-pong)\n", i ? "" : "wake cost", p->cls, p->cpu_a, p->cpu_b, p->median_ns / 1e3,
			p->min_ns / 1e3, p->max_ns / 1e3);
	}
}

void pma_wakecost_line(FILE *out, const struct pma_wake_result *w)
{
	if (!w->have)
		return;
	fprintf(out, "%-13sthe replay charges %.1f ± %.1f us per cross-core wake (%s %.2f us - same_cpu "
		"%.2f us", "wake cost", w->charge.cross_ns / 1e3, w->cross_err_ns / 1e3, w->cross_class,
		w->cross_ns / 1e3, w->same_ns / 1e3);
	if (w->wakee_cpu_ns > 0)
		fprintf(out, " - the wakee's CPU time %.2f us", w->wakee_cpu_ns / 1e3);
	fprintf(out, ", one-way, from %s)", w->from ? w->from : "?");
	if (w->cores)
		fprintf(out, "; on %u cores %llu cross-core, %llu same-core wakes", w->cores,
			(unsigned long long)w->wakes.cross, (unsigned long long)w->wakes.same);
	if (w->cores && w->wakes.barriers)
		fprintf(out, ", %llu group wakes replayed as barriers (%llu released by another thread "
			"than the recorded waker)", (unsigned long long)w->wakes.barriers,
			(unsigned long long)w->wakes.reordered);
	if (w->cores && w->wakes.barriers_dropped)
		fprintf(out, ", no barriers (as barriers a wait was left unresolved: the recorded order is "
			"no schedule, a damaged trace)");
	fputc('\n', out);
}
