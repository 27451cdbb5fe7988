// SPDX-License-Identifier: MIT
// notes/text_model.c: the wording of the notes about Tudor & Teo's model: its invariants (numbers brought back to a bound), estimators, core counts and the optimum (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

int pma_note_text_model(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_CORES_CAPPED:
		snprintf(buf, size, "the default core counts stop at %.0f, not at max(m, PUs of the "
			 "recording machine) = %.0f; give --cores for more", n[0], n[1]);
		break;
	case PMA_NOTE_INV_OMEGA1:
		snprintf(buf, size, "invariant omega(1) = 0: the memory model gave omega(1) = %+.3f "
			 "(placement and memory policy applied to one core); omega(1) = C(1)/C(1) - 1 = 0 "
			 "by definition (eq. 7), so the report uses 0 and S(1) = 1", n[0]);
		break;
	case PMA_NOTE_INV_S_CAP:
		snprintf(buf, size, "invariant S(m,n) <= min(n, A(m,inf)) broken by the inputs at n = "
			 "%.0f-%.0f: worst at n = %.0f, S = %.2f > %.2f (by %.0f%%) because omega(%.0f) = "
			 "%+.3f < 0 (C(n) below C(1): superlinear caching, or an inflated C(1)); S is shown "
			 "capped at min(n, A(m,inf)) and omega raised to match", n[0], n[1], n[2], n[3],
			 n[4], n[4] > 0 ? 100 * (n[3] / n[4] - 1) : 0, n[2], n[5]);
		break;
	case PMA_NOTE_INV_T_FLOOR:
		snprintf(buf, size, "invariant T(n) >= max(T_cp, U/n) broken at %.0f core count%s: worst "
			 "at n = %.0f, T = %.3f s < %.3f s; T(n) is shown raised to the bound", n[3],
			 n[3] == 1 ? "" : "s", n[0], n[1], n[2]);
		break;
	case PMA_NOTE_INV_OPT_CAP:
		if (n[3] > 0) {
			/* a row n > m holds S(m): m threads on m busy cores, the others idle
			 * (contention.c), not a contention that falls as cores are added */
			snprintf(buf, size, "invariant optimum <= m: S is largest at n = %.0f (S = %.2f), "
				 "more cores than the program's %.0f threads, which keep at most %.0f "
				 "cores busy (a row n > m predicts S(m), the other cores idle); the "
				 "optimum is given over n <= m: %.0f cores (S = %.2f)", n[0], n[1], n[2],
				 n[2], n[3], n[4]);
			if (n[5] < n[2]) {
				size_t o = strlen(buf);
				snprintf(buf + o, size - o, "; no core count from %.0f to %.0f was asked "
					 "for: add them to --cores to place the optimum there", n[5] + 1,
					 n[2]);
			}
		} else
			snprintf(buf, size, "invariant optimum <= m: no core count up to the program's "
				 "%.0f threads was asked for (the best listed is n = %.0f, S = %.2f): no "
				 "optimum is given; add core counts up to %.0f to --cores", n[2], n[0], n[1],
				 n[2]);
		break;
	case PMA_NOTE_INV_L_NEG:
		snprintf(buf, size, "invariant L >= 0: the fit of eq. 8 gives L = %.4g < 0 because C(n) "
			 "falls as cores are added (C(1) = %.4g, C(%.0f) = %.4g, omega = %+.3f): a "
			 "negative arrival rate is impossible, so no memory contention was measured; the "
			 "report uses L = 0 and omega(n) >= 0", n[0], n[1], n[2], n[3], n[4]);
		break;
	case PMA_NOTE_EST_DISAGREE:
		snprintf(buf, size, "estimators disagree: %s gives A(m,inf) = %.2f, %s gives %.2f "
			 "(%.2fx); %s. Which to trust: sched-exact "
			 "(scheduler events) sees every switch and wins when it lost no events; runnable "
			 "(schedstat samples) places run-queue waits to within a sampling interval; paper "
			 "(the tick-based estimate of Tudor & Teo) is biased low when time slices are "
			 "long, as on an oversubscribed baseline", s(x, 0), n[0], s(x, 1), n[1], n[2],
			 n[3] >= 2 ? "the uncertainty covers the whole difference (an exact estimate is "
			 "in the trace)" : n[3] ? "the uncertainty covers half the difference" :
			 "the uncertainty leaves it out (paper is biased low by design)");
		break;
	case PMA_NOTE_OPT_KNOWN_OMEGA: {
		char why[96] = "";
		if (n[6] > 0)
			snprintf(why, sizeof(why), ", more cores than the target's %.0f", n[6]);
		if (n[4] > 0)
			snprintf(buf, size, "optimum over known omega: S is largest at n = %.0f (S = %.2f) "
				 "only where omega is unknown (n = %.0f-%.0f%s), where S = A(m,n) is an "
				 "upper bound with no contention; the optimum is given over the core counts "
				 "with a known omega: %.0f cores (S = %.2f)", n[0], n[1], n[2], n[3], why,
				 n[4], n[5]);
		else
			snprintf(buf, size, "optimum over known omega: omega is known at none of the "
				 "core counts that could be optimal (unknown at n = %.0f-%.0f%s): no "
				 "optimum is given", n[2], n[3], why);
		break;
	}
	case PMA_NOTE_WAKE_NOT_CHARGED:
		snprintf(buf, size, "the sampled estimators have no wake edges: they take a wake-up to "
			 "cost nothing beyond the recorded CPU time, so the calibration's %.1f us per "
			 "cross-core wake is not charged (S may be high for programs that synchronize "
			 "often)", n[0]);
		break;
	case PMA_NOTE_RUNS_DISAGREE:
		snprintf(buf, size, "the prediction misses this trace's own runs at n = %.0f: S = %.2f "
			 "± %.2f predicted, %.2f measured (%.2f-%.2f over %.0f run%s on %.0f CPUs against "
			 "the median of %.0f on one, wall times); the model's error there is larger than "
			 "its ±S. docs/model.md \"Checked against the trace's own runs\" lists what it "
			 "leaves out (where Linux places woken threads and how soon it balances them, a "
			 "host's noise)", n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[6] == 1 ? "" : "s",
			 n[0], n[7]);
		break;
	default:
		return -1;
	}
	return 0;
}
