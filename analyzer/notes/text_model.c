// SPDX-License-Identifier: MIT
// notes/text_model.c: the wording of the notes about Tudor & Teo's model: its invariants (numbers brought back to a bound), estimators, core counts and the optimum (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

void pma_note_text_cores_capped(const struct pma_note_cores_capped *a, char *buf, size_t size)
{
	snprintf(buf, size, "the default core counts stop at %.0f, not at max(m, PUs of the "
		 "recording machine) = %.0f; give --cores for more", a->cap, a->max_n);
}

void pma_note_text_inv_omega1(const struct pma_note_inv_omega1 *a, char *buf, size_t size)
{
	snprintf(buf, size, "invariant omega(1) = 0: the memory model gave omega(1) = %+.3f "
		 "(placement and memory policy applied to one core); omega(1) = C(1)/C(1) - 1 = 0 "
		 "by definition (eq. 7), so the report uses 0 and S(1) = 1", a->omega1);
}

void pma_note_text_inv_s_cap(const struct pma_note_inv_s_cap *a, char *buf, size_t size)
{
	snprintf(buf, size, "invariant S(m,n) <= min(n, A(m,inf)) broken by the inputs at n = "
		 "%.0f-%.0f: worst at n = %.0f, S = %.2f > %.2f (by %.0f%%) because omega(%.0f) = "
		 "%+.3f < 0 (C(n) below C(1): superlinear caching, or an inflated C(1)); S is shown "
		 "capped at min(n, A(m,inf)) and omega raised to match", a->first_n, a->last_n,
		 a->worst_n, a->S,
		 a->S_cap, a->S_cap > 0 ? 100 * (a->S / a->S_cap - 1) : 0, a->worst_n, a->omega);
}

void pma_note_text_inv_t_floor(const struct pma_note_inv_t_floor *a, char *buf, size_t size)
{
	snprintf(buf, size, "invariant T(n) >= max(T_cp, U/n) broken at %.0f core count%s: worst "
		 "at n = %.0f, T = %.3f s < %.3f s; T(n) is shown raised to the bound", a->rows,
		 a->rows == 1 ? "" : "s", a->worst_n, a->T_s, a->bound_s);
}

void pma_note_text_inv_opt_cap(const struct pma_note_inv_opt_cap *a, char *buf, size_t size)
{
	if (a->n_opt > 0) {
		/* a row n > m holds S(m): m threads on m busy cores, the others idle
		 * (contention.c), not a contention that falls as cores are added */
		snprintf(buf, size, "invariant optimum <= m: S is largest at n = %.0f (S = %.2f), "
			 "more cores than the program's %.0f threads, which keep at most %.0f "
			 "cores busy (a row n > m predicts S(m), the other cores idle); the "
			 "optimum is given over n <= m: %.0f cores (S = %.2f)", a->n_best,
			 a->S_best, a->m,
			 a->m, a->n_opt, a->S_opt);
		if (a->n_listed < a->m) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, "; no core count from %.0f to %.0f was asked "
				 "for: add them to --cores to place the optimum there",
				 a->n_listed + 1,
				 a->m);
		}
	} else
		snprintf(buf, size, "invariant optimum <= m: no core count up to the program's "
			 "%.0f threads was asked for (the best listed is n = %.0f, S = %.2f): no "
			 "optimum is given; add core counts up to %.0f to --cores", a->m, a->n_best,
			 a->S_best,
			 a->m);
}

void pma_note_text_inv_l_neg(const struct pma_note_inv_l_neg *a, char *buf, size_t size)
{
	snprintf(buf, size, "invariant L >= 0: the fit of eq. 8 gives L = %.4g < 0 because C(n) "
		 "falls as cores are added (C(1) = %.4g, C(%.0f) = %.4g, omega = %+.3f): a "
		 "negative arrival rate is impossible, so no memory contention was measured; the "
		 "report uses L = 0 and omega(n) >= 0", a->L, a->C1, a->n, a->Cn, a->omega);
}

void pma_note_text_est_disagree(const struct pma_note_est_disagree *a, char *buf, size_t size)
{
	snprintf(buf, size, "estimators disagree: %s gives A(m,inf) = %.2f, %s gives %.2f "
		 "(%.2fx); %s. Which to trust: sched-exact "
		 "(scheduler events) sees every switch and wins when it lost no events; runnable "
		 "(schedstat samples) places run-queue waits to within a sampling interval; paper "
		 "(the tick-based estimate of Tudor & Teo) is biased low when time slices are "
		 "long, as on an oversubscribed baseline", s(a->estimator), a->A, s(a->other),
		 a->A_other, a->ratio,
		 a->covered >= 2 ? "the uncertainty covers the whole difference (an exact estimate is "
		 "in the trace)" : a->covered ? "the uncertainty covers half the difference" :
		 "the uncertainty leaves it out (paper is biased low by design)");
}

void pma_note_text_opt_known_omega(const struct pma_note_opt_known_omega *a, char *buf, size_t size)
{
	char why[96] = "";
	if (a->target_cores > 0)
		snprintf(why, sizeof(why), ", more cores than the target's %.0f", a->target_cores);
	if (a->n_opt > 0)
		snprintf(buf, size, "optimum over known omega: S is largest at n = %.0f (S = %.2f) "
			 "only where omega is unknown (n = %.0f-%.0f%s), where S = A(m,n) is an "
			 "upper bound with no contention; the optimum is given over the core counts "
			 "with a known omega: %.0f cores (S = %.2f)", a->n_best, a->S_best,
			 a->first_unknown, a->last_unknown, why,
			 a->n_opt, a->S_opt);
	else
		snprintf(buf, size, "optimum over known omega: omega is known at none of the "
			 "core counts that could be optimal (unknown at n = %.0f-%.0f%s): no "
			 "optimum is given", a->first_unknown, a->last_unknown, why);
}

void pma_note_text_wake_not_charged(const struct pma_note_wake_not_charged *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "the sampled estimators have no wake edges: they take a wake-up to "
		 "cost nothing beyond the recorded CPU time, so the calibration's %.1f us per "
		 "cross-core wake is not charged (S may be high for programs that synchronize "
		 "often)", a->cross_wake_us);
}

void pma_note_text_runs_waited(const struct pma_note_runs_waited *a, char *buf, size_t size)
{
	snprintf(buf, size, "this trace's runs waited for CPUs that other processes used: %.3f s "
		 "(%.0f%% of the wall time) per run on %.0f CPUs, %.3f s (%.0f%%) per run on one "
		 "(medians; the wall time each run's own profile on its CPUs leaves unexplained, at "
		 "most the other processes' CPU time over the run). The prediction is for the "
		 "program alone, so the check against the runs compares their time less that wait: "
		 "S(%.0f) = %.2f, against %.2f by wall times; predicted %.2f. docs/model.md "
		 "\"Checked against the trace's own runs\"", a->other_n_s, a->other_n_pct, a->n,
		 a->other_1_s, a->other_1_pct, a->n, a->S_own, a->S_wall, a->S_pred);
}

void pma_note_text_sweep_waited(const struct pma_note_sweep_waited *a, char *buf, size_t size)
{
	snprintf(buf, size, "the sweep's runs waited for CPUs that other processes used: %.3f s "
		 "(%.0f%% of the wall time) per run on %.0f CPUs, %.3f s (%.0f%%) per run on one "
		 "(medians, as the check against the runs measures it). S meas and the errors of the "
		 "scaling study compare wall times with a prediction for the program alone; less "
		 "that wait, S(%.0f) = %.2f (%.2f by wall times), error %.1f%%, and mean |error| "
		 "%.1f%% over %.0f configuration%s of more than one CPU", a->other_n_s,
		 a->other_n_pct, a->n, a->other_1_s, a->other_1_pct, a->n, a->S_own, a->S_wall,
		 a->err_own_pct, a->mean_own_pct, a->nconf, a->nconf == 1 ? "" : "s");
}

void pma_note_text_runs_disagree(const struct pma_note_runs_disagree *a, char *buf, size_t size)
{
	snprintf(buf, size, "the prediction misses this trace's own runs at n = %.0f: S = %.2f "
		 "± %.2f predicted, %.2f measured (%.2f-%.2f over %.0f run%s on %.0f CPUs against "
		 "the median of %.0f on one, wall times); the model's error there is larger than "
		 "its ±S. docs/model.md \"Checked against the trace's own runs\" lists what it "
		 "leaves out (where Linux places woken threads and how soon it balances them, a "
		 "host's noise)", a->n, a->S_pred, a->S_err, a->S, a->S_min, a->S_max, a->runs_n,
		 a->runs_n == 1 ? "" : "s",
		 a->n, a->runs_1);
}

void pma_note_text_serial(const struct pma_note_serial *a, char *buf, size_t size)
{
	size_t len;

	snprintf(buf, size, "the program ran one thread at a time: more cores do not help "
		 "(A(m,inf) = 1, so S(m,n) = 1 and T(n) = T(1) at every n: the optimum is 1 core)%s",
		 a->omp_hint ? "; it loaded an OpenMP runtime and ran on 1 CPU without "
		 "OMP_NUM_THREADS, and the runtime then starts one thread: give the thread count "
		 "with 'pmcollect -t M' (or the program's own option)" : "");
	len = strlen(buf);
	if (a->other_run && len < size)
		snprintf(buf + len, size - len, "; run %.0f of the trace ran %.0f threads: analyze "
			 "it with --run %.0f", a->many_run, a->many_m, a->many_run);
}

void pma_note_text_wake_replay(const struct pma_note_wake_replay *a, char *buf, size_t size)
{
	snprintf(buf, size, "the wake-up calibration of '%s' (%s) changes how the scheduler events "
		 "are replayed, not only what a wake costs: with it the replay keeps per-core run "
		 "queues and replays group wakes as barriers (%.0f at n = %.0f), without it all n "
		 "cores are shared (processor sharing). At n = %.0f, A(m,n) = %.2f (T = %.3f s) "
		 "against %.2f (%.3f s) without the calibration; its charges of %.1f us per "
		 "cross-core wake make %.3f ms of that, the per-core queues and barriers the rest "
		 "(--no-wake-cost replays without it; docs/model.md \"Wake-up costs in the replay\")",
		 a->from ? a->from : "?", a->own ? "the analyzed trace's own, pmcollect --calibrate" :
		 "another operand", a->barriers, a->n, a->n, a->A_charged, a->T_charged_s,
		 a->A_shared, a->T_shared_s, a->charge_us, a->T_charges_ms);
}
