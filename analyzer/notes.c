/* SPDX-License-Identifier: MIT */
/* notes.c: the list of structured notes and the one place that words them. */
#include "notes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "pm_util.h"

static void note_free(struct pma_note *x)
{
	for (size_t i = 0; i < PMA_NOTE_STRS; i++)
		free(x->s[i]);
}

int pma_notes_add(struct pma_notes *l, enum pma_note_code code, const double *nums, size_t nnums,
		  const char *const *strs, size_t nstrs)
{
	struct pma_note x = { .code = code };

	if (PM_GROW(l->v, l->cap, l->n + 1) < 0)
		return -1;
	for (size_t i = 0; i < nnums && i < PMA_NOTE_NUMS; i++)
		x.n[i] = nums[i];
	for (size_t i = 0; i < nstrs && i < PMA_NOTE_STRS; i++) {
		if (strs[i] && !(x.s[i] = strdup(strs[i]))) {
			note_free(&x);
			return -1;
		}
	}
	l->v[l->n++] = x;
	return 0;
}

int pma_notes_append(struct pma_notes *l, const struct pma_notes *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct pma_note *x = &src->v[i];
		if (pma_notes_add(l, x->code, x->n, PMA_NOTE_NUMS, (const char *const *)x->s,
				  PMA_NOTE_STRS) < 0)
			return -1;
	}
	return 0;
}

const struct pma_note *pma_notes_find(const struct pma_notes *l, enum pma_note_code code)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].code == code)
			return &l->v[i];
	return NULL;
}

void pma_notes_free(struct pma_notes *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		note_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* a note's string i, "" when absent */
static const char *s(const struct pma_note *x, size_t i)
{
	return x->s[i] ? x->s[i] : "";
}

/* "a 3.20 ms interval" or "a 3.20 ms interval (pmcollect lengthened it from the 0.10 ms asked
 * for)": the interval actually used, and the requested one when they differ (0: the same). */
static void interval_text(char *buf, size_t size, double used_ms, double requested_ms)
{
	if (!(used_ms > 0))
		snprintf(buf, size, "an unrecorded interval");
	else if (requested_ms > 0)
		snprintf(buf, size, "a %.2f ms interval (pmcollect lengthened it from the %.2f ms "
			 "asked for)", used_ms, requested_ms);
	else
		snprintf(buf, size, "a %.2f ms interval", used_ms);
}

char *pma_note_text(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_RECORDED:
		snprintf(buf, size, "recorded: %s", s(x, 0));
		break;
	case PMA_NOTE_NO_PID:
		snprintf(buf, size, "run %.0f: scheduler events ignored: no process id in its RUN_BEGIN",
			 n[0]);
		break;
	case PMA_NOTE_SCHED_LOST: {
		/* the lost count when the collector knew it, else the gaps as the lower bound */
		double missing = n[1] ? n[1] : n[2];
		snprintf(buf, size, "run %.0f: %.0f scheduler events lost (%.0f gaps in %.0f recorded): "
			 "the exact estimate is uncertain by about %.1f%%", n[0], n[1], n[2], n[3],
			 100.0 * missing / (n[3] + missing));
		break;
	}
	case PMA_NOTE_EXACT_REFUSED:
		snprintf(buf, size, "run %.0f: more than %.0f scheduler events: exact mode off (sampled "
			 "estimate used)", n[0], n[1]);
		break;
	case PMA_NOTE_RUN_TRUNCATED:
		snprintf(buf, size, "truncated: analyzed %.2f s of run %.0f (no end-of-run record)", n[0],
			 n[1]);
		break;
	case PMA_NOTE_FILE_TRUNCATED:
		snprintf(buf, size, "truncated: the file ends inside a chunk; analyzed the %.0f complete "
			 "chunk%s", n[0], n[0] == 1 ? "" : "s");
		break;
	case PMA_NOTE_SALVAGED:
		snprintf(buf, size, "salvaged: skipped %.0f damaged chunks (%.0f bytes)", n[0], n[1]);
		break;
	case PMA_NOTE_SEQ_GAPS:
		snprintf(buf, size, "chunks missing, repeated or out of order: %.0f", n[0]);
		break;
	case PMA_NOTE_INCOMPLETE:
		snprintf(buf, size, "incomplete: the collector did not finish the trace (no summary "
			 "record)");
		break;
	case PMA_NOTE_OMEGA_UNKNOWN: {
		char t[32] = "";
		if (n[3] > 0)
			snprintf(t, sizeof(t), "-t %.0f ", n[3]);
		if (n[4])
			snprintf(buf, size, "omega unknown (%s): the memory model needs runs on %s cores "
				 "(%.0f socket%s of %.0f cores); the traces have %s, missing %s; the "
				 "calibration runs recorded ran another number of threads than the analyzed "
				 "run (see 'left out of the calibration'): each run must do the same work, "
				 "so a program whose later runs do less (make with nothing left to rebuild) "
				 "must be reset before each run; recording again as is would not help",
				 s(x, 0), n[0] == 3 ? "1, c and c+1" : "1 and c", n[1], n[1] == 1 ? "" : "s",
				 n[2], x->s[1] ? x->s[1] : "none", x->s[2] ? x->s[2] : "none (see above)");
		else
			snprintf(buf, size, "omega unknown (%s): the memory model needs runs on %s cores "
				 "(%.0f socket%s of %.0f cores); the traces have %s, missing %s; record them "
				 "with 'pmcollect --calibrate %s-o calib.zst -- %s' and analyze with "
				 "'pmanalyze %s calib.zst'", s(x, 0), n[0] == 3 ? "1, c and c+1" : "1 and c",
				 n[1], n[1] == 1 ? "" : "s", n[2], x->s[1] ? x->s[1] : "none",
				 x->s[2] ? x->s[2] : "none (see above)", t, s(x, 3), s(x, 4));
		break;
	}
	case PMA_NOTE_FREQ_UNKNOWN:
		snprintf(buf, size, "C(n) is CPU time, which assumes one clock frequency in every run; "
			 "no cpufreq data was recorded (no cpufreq driver, e.g. a VM), so this cannot be "
			 "checked");
		break;
	case PMA_NOTE_FREQ_VARIES:
		snprintf(buf, size, "C(n) is CPU time, which assumes one clock frequency in every run, "
			 "but the governor is %s and the recorded frequencies range %.0f-%.0f MHz: omega "
			 "may reflect frequency changes (use the performance governor, or hardware "
			 "counters)", s(x, 0), n[0], n[1]);
		break;
	case PMA_NOTE_CAL_SKIPPED:
		snprintf(buf, size, "left out of the calibration: %s", s(x, 0));
		break;
	case PMA_NOTE_OTHER_MACHINE:
		snprintf(buf, size, "--machine %s (%.0f socket%s of %.0f cores, %.0f NUMA node%s): "
			 "A(m,n) transfers as is; the per-socket M/M/1 parameters (mu, L) are assumed the "
			 "same per socket as on the calibration machine (%.0f x %.0f cores)%s; %s",
			 s(x, 0), n[0], n[0] == 1 ? "" : "s", n[1], n[2], n[2] == 1 ? "" : "s", n[3],
			 n[4], n[1] > n[4] ? ", extrapolated past the calibrated core counts" : "",
			 n[5] ? "the cross-socket term was not calibrated (one socket): omega beyond one "
			 "socket leaves it out and is a lower bound" : "the cross-socket term is the "
			 "calibration machine's");
		break;
	case PMA_NOTE_SATURATED:
		snprintf(buf, size, "saturated: the fit gives mu <= nL from n = %.2f cores on one socket "
			 "(eq. 8 has no finite C(n) there), first reached at %.0f cores; omega and S are "
			 "not given from there on", n[0], n[1]);
		break;
	case PMA_NOTE_SPIN_ACTIVE_SEEN:
		snprintf(buf, size, "spinning: OMP_WAIT_POLICY=active was set and %.0f threads were "
			 "runnable %.0f%% of the time, blocking %.2f times/s: waiting threads spin and "
			 "look runnable, so A(m,inf) is overestimated; re-record with "
			 "OMP_WAIT_POLICY=passive", n[0], n[1], n[2]);
		break;
	case PMA_NOTE_SPIN_ACTIVE:
		snprintf(buf, size, "spinning: OMP_WAIT_POLICY=active was set: OpenMP threads may spin "
			 "at barriers and look runnable, which overestimates A(m,inf) (GNU libgomp spins "
			 "only briefly when threads outnumber CPUs); re-record with "
			 "OMP_WAIT_POLICY=passive to be sure");
		break;
	case PMA_NOTE_SPIN_SEEN:
		snprintf(buf, size, "spinning?: %.0f threads were runnable %.0f%% of the time and "
			 "blocked %.2f times/s: if they synchronize by spinning (OpenMP: "
			 "OMP_WAIT_POLICY=active, GOMP_SPINCOUNT, KMP_BLOCKTIME; spin locks), A(m,inf) is "
			 "overestimated; re-record with OMP_WAIT_POLICY=passive to check", n[0], n[1],
			 n[2]);
		break;
	case PMA_NOTE_UNPLACED_WAIT:
		snprintf(buf, size, "%.1f%% of the run-queue wait could not be placed in time (waits "
			 "longer than %.1f s): A(m,inf) may be underestimated", n[0], n[1]);
		break;
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
		if (n[3] > 0)
			snprintf(buf, size, "invariant optimum <= m: S is largest at n = %.0f (S = %.2f) "
				 "only because omega falls as cores are added beyond the program's %.0f "
				 "threads, which cannot run on more than %.0f cores at once; the optimum is "
				 "given over n <= m: %.0f cores (S = %.2f)", n[0], n[1], n[2], n[2], n[3],
				 n[4]);
		else
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
	case PMA_NOTE_C1_SPREAD:
		snprintf(buf, size, "the %.0f runs on 1 CPU disagree: C(1) from %.4g to %.4g %s (%.0f%% "
			 "apart); a run of many threads on one CPU pays for its context switches, which "
			 "inflates C(1) and makes omega(n) too small; omega(n) uses the smallest C(1)",
			 n[0], n[1], n[2], s(x, 0), n[3]);
		break;
	case PMA_NOTE_RUN_FAILED:
		snprintf(buf, size, "run %.0f %s: the profile covers a %s run, so A(m,inf), T_cp and "
			 "every prediction describe only what ran before it ended; re-record a complete "
			 "run to predict the whole program", n[0], s(x, 0),
			 n[1] == PMA_RUNST_NO_END ? "partial (interrupted or unfinished)" : "failed");
		break;
	case PMA_NOTE_LATE_SAMPLES: {
		char iv[96];
		interval_text(iv, sizeof(iv), n[4], n[6]);
		if (n[5] > 0)
			snprintf(buf, size, "late or lost samples: %.0f of %.0f samples were late and "
				 "%.0f lost (%.0f%% of the timer expirations) at %s: the collector could "
				 "not keep the interval, so changes of parallelism are placed less "
				 "precisely; the uncertainty is widened by %.0f%% of A (re-record with a "
				 "longer -i, or on quieter CPUs)", n[1], n[0], n[2], n[3], iv, 100 * n[5]);
		else
			snprintf(buf, size, "late or lost samples: %.0f of %.0f samples were late and "
				 "%.0f lost (%.0f%% of the timer expirations) at %s: the collector could "
				 "not keep the interval; the headline A(m,inf) comes from the scheduler "
				 "events, which do not depend on it, so its uncertainty is not widened, but "
				 "the sampled estimators beside it (runnable, paper) place changes of "
				 "parallelism less precisely (to compare them, re-record with a longer -i, or on "
				 "quieter CPUs)",
				 n[1], n[0], n[2], n[3], iv);
		break;
	}
	case PMA_NOTE_STOLEN:
		snprintf(buf, size, "unexplained wall time: the run took %.3f s but its CPU time, "
			 "run-queue waits and idle time on %.0f CPU%s explain %.3f s; %.3f s (%.0f%% of "
			 "the wall time) the program was ready to run while its CPUs ran other processes "
			 "(or a hypervisor stole them): T(n) and the wall time are not comparable; re-record "
			 "on quiet CPUs", n[0], n[4], n[4] == 1 ? "" : "s", n[1], n[2], n[3]);
		break;
	case PMA_NOTE_EST_DISAGREE:
		snprintf(buf, size, "estimators disagree: %s gives A(m,inf) = %.2f, %s gives %.2f "
			 "(%.2fx); %s. Which to trust: sched-exact "
			 "(scheduler events) sees every switch and wins when it lost no events; runnable "
			 "(schedstat samples) places run-queue waits to within a sampling interval; paper "
			 "(the tick-based estimate of Tudor & Teo) is biased low when time slices are "
			 "long, as on an oversubscribed baseline", s(x, 0), n[0], s(x, 1), n[1], n[2],
			 n[3] ? "the uncertainty covers half the difference" : "the uncertainty leaves "
			 "it out (paper is biased low by design)");
		break;
	case PMA_NOTE_FINE_INTERVAL:
		snprintf(buf, size, "interval %.2f ms on a baseline of %.0f threads on %.0f CPU%s: "
			 "shorter than a few scheduler time slices (~3 ms each), so one interval sees "
			 "one thread run while the others wait, and the collector falls behind: the "
			 "runnable estimator can underestimate A(m,inf) (an OpenMP program of A = 2.46 "
			 "gave 2.10-2.42 at 0.1-2 ms, 2.45 at 10 ms); re-record with -i 10 (the default)",
			 n[0], n[2], n[1], n[1] == 1 ? "" : "s");
		break;
	case PMA_NOTE_OMEGA_NOISE:
		if (n[3] == 1)
			snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f is below 0 beyond the spread of "
				 "the calibration runs, but C(n) is CPU time, which cannot show a "
				 "superlinear effect (a 1-CPU run's CPU time includes switching between its "
				 "threads and the hypervisor's steal): taken as 0; count cycles to see one",
				 n[0], n[1], n[2]);
		else if (isnan(n[2]))
			snprintf(buf, size, "omega(%.0f) = %.3f from one run per core count, no spread to "
				 "tell a superlinear effect from noise: taken as 0 (record the calibration "
				 "with pmcollect --calibrate --repeat 3 or more)", n[0], n[1]);
		else
			snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f is below 0 only within its "
				 "uncertainty (the spread of the repeated calibration runs): taken as 0, so "
				 "noise cannot make the speedup superlinear", n[0], n[1], n[2]);
		break;
	case PMA_NOTE_SUPERLINEAR:
		snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f is below 0 beyond the spread of the "
			 "repeated calibration runs: a superlinear effect (e.g. more cache with more "
			 "cores) measured consistently, so S may exceed n", n[0], n[1], n[2]);
		break;
	case PMA_NOTE_COLLECTOR_SHARED:
		snprintf(buf, size, "the collector shared the baseline's CPU%s %s (collector CPU -1: "
			 "pmcollect was allowed no CPU outside them): %.0f threads on %.0f CPU%s waited "
			 "also for its sampling", n[0] == 1 ? "" : "s", s(x, 0), n[1], n[0],
			 n[0] == 1 ? "" : "s");
		if (n[3] >= 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, ", %.3f s of CPU (%.1f%% of the program's)", n[2], n[3]);
		}
		{
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, ", counted as their run-queue wait; give pmcollect a "
				 "CPU of its own (taskset -c %s,N pmcollect --cpus %s ...)", s(x, 0), s(x, 0));
		}
		break;
	case PMA_NOTE_RANKS_OMEGA_UNKNOWN:
		snprintf(buf, size, "omega unknown for %.0f multithreaded rank%s", n[0],
			 n[0] == 1 ? "" : "s");
		if (n[1] > 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, ": the calibration runs failed in %.0f of them (%.0f "
				 "run%s; in '%s' %s): under a launcher a second start of an MPI program "
				 "fails (Open MPI: orte_init in MPI_Init) or its binding leaves no CPU for "
				 "the runs", n[1], n[2], n[2] == 1 ? "" : "s", s(x, 0), s(x, 1));
		}
		{
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, "; calibrate outside the launcher, on one node: "
				 "'pmcollect --calibrate -t M -o cal.zst -- ./app args' (the program as a "
				 "single rank, or its non-MPI equivalent, with the ranks' M threads), then "
				 "'pmanalyze --calibration cal.zst' with these traces (docs/cluster.md)");
		}
		break;
	case PMA_NOTE_RANKS_CAL_FILE:
		snprintf(buf, size, "omega of %.0f rank%s from the calibration trace '%s' (its runs of "
			 "%.0f threads, fitted on their own: Tudor & Teo, eq. 7-10)", n[0],
			 n[0] == 1 ? "" : "s", s(x, 0), n[2]);
		if (n[1] > 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, "; it replaces the rank's own calibration runs in "
				 "%.0f of them", n[1]);
		}
		break;
	case PMA_NOTE_RANKS_MPI_UNMEASURED:
		snprintf(buf, size, "time inside MPI not measured in %.0f of %.0f ranks: their busy "
			 "time includes the time they polled inside MPI (Open MPI and MPICH wait by "
			 "polling), so the imbalance is underestimated; record with 'pmcollect --mpi' "
			 "(the default when the program links libmpi)", n[0], n[1]);
		break;
	case PMA_NOTE_RANKS_COLLECTOR_ON_RANK:
		snprintf(buf, size, "pmcollect sampled %.0f rank%s from the rank's own CPUs (the "
			 "launcher's binding left no CPU outside them and no free SMT sibling), sleeping "
			 "between samples: %.3f s of CPU in all, at most %.2f%% of a rank's busy time "
			 "(rank %.0f)", n[0], n[0] == 1 ? "" : "s", n[1], n[2], n[3]);
		if (n[4] > 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, "; %.0f rank%s had pmcollect on a CPU of its own", n[4],
				 n[4] == 1 ? "" : "s");
		}
		break;
	case PMA_NOTE_REGION_A_CAPPED:
		snprintf(buf, size, "per-region A from the samples: %.0f of %.0f regions lie in sampled "
			 "intervals with less than one runnable thread on average (regions shorter than "
			 "the %.1f ms sampling interval, the program idle between them), where the "
			 "interval's concurrency would count more critical path than work; their T_cp was "
			 "capped at their work (A >= 1; lowest A before the cap %.2f, %s); record with "
			 "scheduler events (pmcollect --sched, as root) for exact per-region A", n[0],
			 n[1], n[3], n[2], s(x, 0));
		break;
	case PMA_NOTE_ALLANDE_NC_CAPPED:
		snprintf(buf, size, "Allande et al.'s model: the trace has runs with 1..%.0f threads but "
			 "a socket has %.0f cores (%.0f socket%s): NC is the cores of one socket (§3.1), "
			 "so the runs with more threads are left out", n[0], n[1], n[2],
			 n[2] == 1 ? "" : "s");
		break;
	case PMA_NOTE_ALLANDE_SPAN:
		snprintf(buf, size, "Allande et al.'s model wants every run of 1..NC threads on one "
			 "socket (§3.1), but %.0f of them ran on CPUs of several sockets (the %.0f-thread "
			 "run on CPUs %s, %.0f sockets): cf_i and beta_i then mix cross-socket effects into "
			 "the single-socket factors; record without --cpus (pmcollect -t LIST pins the "
			 "runs to the first package) or give --cpus one package's CPUs", n[0], n[1],
			 s(x, 0), n[2]);
		break;
	case PMA_NOTE_POWER_UNPHYSICAL:
		snprintf(buf, size, "the power fit P(x) = P_static + x P_core over %.0f runs at %.0f "
			 "core counts is not physical (P_static %.2f W, P_core %.2f W, R2 %.3f, least "
			 "P(n) %.3g W): %s, so the runs' power does not measure the program (other load "
			 "on the package, frequency or idle-state changes between runs); E(n) and the "
			 "energy-optimal core count are not shown", n[3], n[4], n[0], n[1], n[2], n[5],
			 n[1] < 0 ? "power falls as more cores are busy" :
			 n[0] < 0 ? "the power with no busy core is negative" :
			 "the predicted power is not positive");
		break;
	case PMA_NOTE_POWER_TWO_COUNTS:
		snprintf(buf, size, "the power model rests on two core counts (%.0f run%s): a line "
			 "through two points always fits, so R2 %.3f says nothing about whether power "
			 "grows linearly with busy cores%s; record a third core count to check it", n[0],
			 n[0] == 1 ? "" : "s", n[1], n[0] > 2 ? " (it measures only the spread of the "
			 "repetitions)" : "");
		break;
	case PMA_NOTE_ENERGY_GAP:
		snprintf(buf, size, "%.0f run%s read the energy counters more than 1 s apart (up to "
			 "%.2f s, run %.0f): a counter that wrapped twice between two readings counts "
			 "one wrap, so the energy may be short by max_energy_range_uj (AMD's package "
			 "counters wrap within minutes)", n[0], n[0] == 1 ? "" : "s", n[1], n[2]);
		break;
	case PMA_NOTE_SUPERLINEAR_UNCONFIRMED: {
		char why[120];
		if (n[3] == PMA_SUPERLIN_NOT_MEASURED)
			snprintf(why, sizeof(why), "no calibration run has %.0f cores (it is "
				 "extrapolated)", n[0]);
		else if (n[3] == PMA_SUPERLIN_OVERLAP)
			snprintf(why, sizeof(why), "a run on %.0f cores took as many cycles as a run on "
				 "1 core", n[0]);
		else
			snprintf(why, sizeof(why), "%.0f runs on 1 core and %.0f on %.0f are too few to "
				 "tell it from noise", n[4], n[5], n[0]);
		snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f is below 0 beyond the spread of the "
			 "calibration runs, but %s: taken as 0; a superlinear effect is reported only "
			 "when at least %d runs on 1 core and %d on n cores show it, every C(n) below "
			 "every C(1)", n[0], n[1], n[2], why, PMA_SUPERLIN_MIN_REPS,
			 PMA_SUPERLIN_MIN_REPS);
		break;
	}
	case PMA_NOTE_OVERHEAD_OVERSUBSCRIBED:
		snprintf(buf, size, "the parallel overhead x T(x) - T(1) counts x CPUs, but the sweep "
			 "ran up to %.0f threads on %.0f CPU%s: beyond the CPU count it measures the "
			 "threads' count times the time, not CPU time lost; read the CPU time and "
			 "run-queue wait fits instead", n[0], n[1], n[1] == 1 ? "" : "s");
		break;
	case PMA_NOTE_LATE_WARNING: {
		char iv[96], run[32] = "the trace";
		interval_text(iv, sizeof(iv), n[5], n[6]);
		if (n[0] >= 0)
			snprintf(run, sizeof(run), "run %.0f", n[0]);
		snprintf(buf, size, "%s: %.0f of %.0f samples were late and %.0f lost (%.0f%% of the "
			 "timer expirations) at %s: the collector could not keep the interval (a busy "
			 "CPU, or an interval too short for the threads it reads); the sampled "
			 "estimators place changes of parallelism less precisely", run, n[2], n[1],
			 n[3], n[4], iv);
		break;
	}
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
	case PMA_NOTE_CROSS_SATURATED:
		snprintf(buf, size, "%.0f calibration run%s left out of the cross-socket term: the "
			 "run on %.0f cores has %.0f on one socket, at or past the one-socket fit's "
			 "saturation (mu = nL at n = %.2f), so eq. 8 gives no finite C(n) to subtract "
			 "there; %s", n[0], n[0] == 1 ? "" : "s", n[1], n[2], n[3], n[4] ?
			 "the cross-socket term comes from the other runs beyond one socket" :
			 "the cross-socket term is not calibrated: omega beyond one socket leaves it "
			 "out and is a lower bound");
		break;
	default:
		snprintf(buf, size, "note %d", (int)x->code);
		break;
	}
	return buf;
}

char *pma_note_action(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_OMEGA_UNKNOWN:
		snprintf(buf, size, "Record calibration runs for the memory model: 'pmcollect "
			 "--calibrate -t %.0f -o calib.zst -- %s', then 'pmanalyze %s calib.zst'.", n[3],
			 s(x, 3), s(x, 4));
		break;
	case PMA_NOTE_FREQ_UNKNOWN:
		snprintf(buf, size, "Take omega as approximate, or calibrate where hardware cycle "
			 "counters (PAPI) or cpufreq are available.");
		break;
	case PMA_NOTE_FREQ_VARIES:
		snprintf(buf, size, "Fix the clock ('cpupower frequency-set -g performance') and record "
			 "the calibration runs again.");
		break;
	case PMA_NOTE_SATURATED:
		snprintf(buf, size, "Do not give the program more than %.0f cores per socket: memory "
			 "bandwidth saturates there.", floor(n[0]));
		break;
	case PMA_NOTE_SPIN_ACTIVE_SEEN:
	case PMA_NOTE_SPIN_ACTIVE:
	case PMA_NOTE_SPIN_SEEN:
		snprintf(buf, size, "Record again with OMP_WAIT_POLICY=passive (or --sched for the exact "
			 "mode) to see the real dependencies.");
		break;
	case PMA_NOTE_UNPLACED_WAIT:
	case PMA_NOTE_SCHED_LOST:
		snprintf(buf, size, "Record again with scheduler events ('pmcollect --sched', as root, "
			 "a larger --sched-buffer-kb when events were lost).");
		break;
	case PMA_NOTE_CORES_CAPPED:
		snprintf(buf, size, "Give '--cores 1-%.0f' for predictions up to every CPU.", n[1]);
		break;
	case PMA_NOTE_OTHER_MACHINE:
		snprintf(buf, size, "Record calibration runs on the target machine for a measured omega.");
		break;
	case PMA_NOTE_RANKS_OMEGA_UNKNOWN:
		snprintf(buf, size, "Record a calibration trace outside the launcher on one node "
			 "('pmcollect --calibrate -t M -o cal.zst -- ./app args') and merge with "
			 "'pmanalyze --calibration cal.zst'.");
		break;
	case PMA_NOTE_SUPERLINEAR_UNCONFIRMED:
		snprintf(buf, size, "To confirm a superlinear effect, record 'pmcollect --calibrate "
			 "--repeat %d' with %.0f in its core counts (or analyze several calibration "
			 "traces together: their runs are pooled).", PMA_SUPERLIN_MIN_REPS, n[0]);
		break;
	case PMA_NOTE_RUN_TRUNCATED:
	case PMA_NOTE_FILE_TRUNCATED:
	case PMA_NOTE_INCOMPLETE:
		snprintf(buf, size, "Record the run again to its end for complete numbers.");
		break;
	default:
		return NULL;
	}
	return buf;
}

/* The text fn writes for note in a malloc'ed buffer grown until it fits (snprintf fills it up to
 * size - 1 only when it truncated, or when the text fits exactly, which costs one more round).
 * NULL when fn gives no text or memory runs out. */
static char *alloc_text(const struct pma_note *note,
			char *(*fn)(const struct pma_note *, char *, size_t))
{
	size_t size = 512;

	for (;;) {
		char *buf = malloc(size);
		if (!buf)
			return NULL;
		if (!fn(note, buf, size)) {
			free(buf);
			return NULL;
		}
		if (strlen(buf) + 1 < size)
			return buf;
		free(buf);
		size *= 2;
	}
}

char *pma_note_alloc(const struct pma_note *note)
{
	return alloc_text(note, pma_note_text);
}

char *pma_note_action_alloc(const struct pma_note *note)
{
	return alloc_text(note, pma_note_action);
}
