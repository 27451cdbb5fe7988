// SPDX-License-Identifier: MIT
// notes/text_trace.c: the wording of the notes about the trace and the recorded run: lost or late data, truncation, spinning, failed runs (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

void pma_note_text_late_samples(const struct pma_note_late_samples *a, char *buf, size_t size)
{
	char iv[96];

	pma_note_interval_text(iv, sizeof(iv), a->interval_ms, a->requested_ms);
	if (a->widen > 0)
		snprintf(buf, size, "late or lost samples: %.0f of %.0f samples were late and "
			 "%.0f lost (%.0f%% of the timer expirations) at %s: the collector could "
			 "not keep the interval, so changes of parallelism are placed less "
			 "precisely; the uncertainty is widened by %.0f%% of A (re-record with a "
			 "longer -i, or on quieter CPUs)", a->late, a->samples, a->lost, a->late_pct, iv,
			 100 * a->widen);
	else if (a->wakes_placed > 0)
		/* switch-exact: the run segments are exact, but the wakes are placed from the
		 * schedstat the samples read, so late samples leave more of them only bounded */
		snprintf(buf, size, "late or lost samples: %.0f of %.0f samples were late and "
			 "%.0f lost (%.0f%% of the timer expirations) at %s: the collector could "
			 "not keep the interval; the headline A(m,inf) rests on the context switches, "
			 "which do not depend on it, and on %.0f wakes placed from the schedstat these "
			 "samples read: a wake between two late samples is bounded rather than placed, "
			 "and its ± (the bounds) carries that (re-record with a longer -i, or on "
			 "quieter CPUs)", a->late, a->samples, a->lost, a->late_pct, iv, a->wakes_placed);
	else
		snprintf(buf, size, "late or lost samples: %.0f of %.0f samples were late and "
			 "%.0f lost (%.0f%% of the timer expirations) at %s: the collector could "
			 "not keep the interval; the headline A(m,inf) comes from the scheduler "
			 "events, which do not depend on it, so the late samples add nothing to "
			 "its uncertainty (any ± beside it has other causes, given in their own "
			 "notes), but the sampled estimators beside it (runnable, paper) place "
			 "changes of parallelism less precisely (to compare them, re-record with a "
			 "longer -i, or on quieter CPUs)", a->late, a->samples, a->lost, a->late_pct, iv);
}

void pma_note_text_stolen(const struct pma_note_stolen *a, char *buf, size_t size)
{
	snprintf(buf, size, "unexplained wall time: the run took %.3f s but its CPU time, "
		 "run-queue waits and idle time on %.0f CPU%s explain %.3f s; %.3f s (%.0f%% of "
		 "the wall time) the program was ready to run while its CPUs ran other processes "
		 "(or a hypervisor stole them): T(n) and the wall time are not comparable; re-record "
		 "on quiet CPUs", a->wall_s, a->cpus, a->cpus == 1 ? "" : "s", a->explained_s,
		 a->unexplained_s, a->unexplained_pct);
}

void pma_note_text_fine_interval(const struct pma_note_fine_interval *a, char *buf, size_t size)
{
	snprintf(buf, size, "interval %.2f ms on a baseline of %.0f threads on %.0f CPU%s: "
		 "shorter than a few scheduler time slices (~3 ms each), so one interval sees "
		 "one thread run while the others wait, and the collector falls behind: the "
		 "runnable estimator can underestimate A(m,inf) (an OpenMP program of A = 2.46 "
		 "gave 2.10-2.42 at 0.1-2 ms, 2.45 at 10 ms); re-record with -i 10 (the default)",
		 a->interval_ms, a->threads, a->cpus, a->cpus == 1 ? "" : "s");
}

void pma_note_text_merged_windows(const struct pma_note_merged_windows *a, char *buf, size_t size)
{
	snprintf(buf, size, "interval %.2f ms on a baseline of %.0f threads on %.0f CPU%s: "
		 "the sampled estimators merged %.0f of %.0f samples into the next interval, "
		 "for oversubscribed intervals of %.2f ms on average (at least %.0f ms, several "
		 "scheduler time slices: in a shorter one a thread runs while the others wait, and A(m,inf) "
		 "reads low); schedstat's counters are cumulative, so no CPU or wait time is "
		 "lost, only time resolution", a->interval_ms, a->threads, a->cpus,
		 a->cpus == 1 ? "" : "s", a->merged,
		 a->samples, a->mean_window_ms, a->least_window_ms);
}

void pma_note_text_collector_shared(const struct pma_note_collector_shared *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "the collector shared the baseline's CPU%s %s (pmcollect was not "
		 "pinned: it was allowed no CPU outside them): %.0f threads on %.0f CPU%s waited "
		 "also for its sampling", a->cpus == 1 ? "" : "s", s(a->cpu_list), a->threads,
		 a->cpus,
		 a->cpus == 1 ? "" : "s");
	if (a->collector_pct >= 0 && a->runs > 1) {
		size_t o = strlen(buf);
		snprintf(buf + o, size - o, ", about %.3f s of CPU (%.1f%% of the program's; its "
			 "share by thread-samples of the %.3f s it used over the trace's %.0f runs)",
			 a->collector_s, a->collector_pct, a->trace_collector_s, a->runs);
	} else if (a->collector_pct >= 0) {
		size_t o = strlen(buf);
		snprintf(buf + o, size - o, ", %.3f s of CPU (%.1f%% of the program's)",
		a->collector_s, a->collector_pct);
	}
	{
		size_t o = strlen(buf);
		snprintf(buf + o, size - o, ", counted as their run-queue wait; give pmcollect a "
			 "CPU of its own (taskset -c %s,N pmcollect --cpus %s ...)", s(a->cpu_list),
			 s(a->cpu_list));
	}
}

void pma_note_text_late_warning(const struct pma_note_late_warning *a, char *buf, size_t size)
{
	char iv[96], run[96] = "the trace";
	pma_note_interval_text(iv, sizeof(iv), a->interval_ms, a->requested_ms);
	/* a->runs: how many runs had them, said once for the worst */
	if (a->run_id >= 0 && a->runs > 1)
		snprintf(run, sizeof(run), "%.0f runs had late or lost samples; the worst, run "
			 "%.0f", a->runs, a->run_id);
	else if (a->run_id >= 0)
		snprintf(run, sizeof(run), "run %.0f", a->run_id);
	snprintf(buf, size, "%s: %.0f of %.0f samples were late and %.0f lost (%.0f%% of the "
		 "timer expirations) at %s: the collector could not keep the interval (a busy "
		 "CPU, or an interval too short for the threads it reads); the sampled "
		 "estimators place changes of parallelism less precisely", run, a->late, a->samples,
		 a->lost, a->late_pct, iv);
}

void pma_note_text_recorded(const struct pma_note_recorded *a, char *buf, size_t size)
{
	snprintf(buf, size, "recorded: %s", s(a->what));
}

void pma_note_text_no_pid(const struct pma_note_no_pid *a, char *buf, size_t size)
{
	snprintf(buf, size, "run %.0f: scheduler events ignored: no process id in its RUN_BEGIN",
		 a->run_id);
}

void pma_note_text_sched_lost(const struct pma_note_sched_lost *a, char *buf, size_t size)
{
	/* the lost count when the collector knew it, else the gaps as the lower bound */
	double missing = a->lost ? a->lost : a->gaps;
	snprintf(buf, size, "run %.0f: %.0f scheduler events lost (%.0f gaps in %.0f recorded): "
		 "the exact estimate is uncertain by about %.1f%%", a->run_id, a->lost, a->gaps, a->events,
		 100.0 * missing / (a->events + missing));
}

void pma_note_text_exact_refused(const struct pma_note_exact_refused *a, char *buf, size_t size)
{
	snprintf(buf, size, "run %.0f: more than %.0f scheduler events: exact mode off (sampled "
		 "estimate used)", a->run_id, a->max_events);
}

void pma_note_text_run_truncated(const struct pma_note_run_truncated *a, char *buf, size_t size)
{
	snprintf(buf, size, "truncated: analyzed %.2f s of run %.0f (no end-of-run record)",
	a->analyzed_s,
		 a->run_id);
}

void pma_note_text_file_truncated(const struct pma_note_file_truncated *a, char *buf, size_t size)
{
	snprintf(buf, size, "truncated: the file ends inside a chunk; analyzed the %.0f complete "
		 "chunk%s", a->chunks, a->chunks == 1 ? "" : "s");
}

void pma_note_text_salvaged(const struct pma_note_salvaged *a, char *buf, size_t size)
{
	snprintf(buf, size, "salvaged: skipped %.0f damaged chunks (%.0f bytes)", a->chunks,
	a->bytes);
}

void pma_note_text_seq_gaps(const struct pma_note_seq_gaps *a, char *buf, size_t size)
{
	snprintf(buf, size, "chunks missing, repeated or out of order: %.0f", a->chunks);
}

void pma_note_text_incomplete(char *buf, size_t size)
{
	snprintf(buf, size, "incomplete: the collector did not finish the trace (no summary "
		 "record)");
}

void pma_note_text_spin_active_seen(const struct pma_note_spin_active_seen *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "spinning: OMP_WAIT_POLICY=active was set and %.0f threads were "
		 "runnable %.0f%% of the time, blocking %.2f times/s: waiting threads spin and "
		 "look runnable, so A(m,inf) is overestimated; re-record with "
		 "OMP_WAIT_POLICY=passive", a->threads, a->runnable_pct, a->blocks_per_s);
}

void pma_note_text_spin_active(char *buf, size_t size)
{
	snprintf(buf, size, "spinning: OMP_WAIT_POLICY=active was set: OpenMP threads may spin "
		 "at barriers and look runnable, which overestimates A(m,inf) (GNU libgomp spins "
		 "only briefly when threads outnumber CPUs); re-record with "
		 "OMP_WAIT_POLICY=passive to be sure");
}

void pma_note_text_spin_seen(const struct pma_note_spin_seen *a, char *buf, size_t size)
{
	snprintf(buf, size, "spinning?: %.0f threads were runnable %.0f%% of the time and "
		 "blocked %.2f times/s: if they synchronize by spinning (OpenMP: "
		 "OMP_WAIT_POLICY=active, GOMP_SPINCOUNT, KMP_BLOCKTIME; spin locks), A(m,inf) is "
		 "overestimated; re-record with OMP_WAIT_POLICY=passive to check", a->threads,
		 a->runnable_pct,
		 a->blocks_per_s);
}

void pma_note_text_unplaced_wait(const struct pma_note_unplaced_wait *a, char *buf, size_t size)
{
	snprintf(buf, size, "%.1f%% of the run-queue wait could not be placed in time (waits "
		 "longer than %.1f s): A(m,inf) may be underestimated", a->wait_pct, a->longest_s);
}

void pma_note_text_run_failed(const struct pma_note_run_failed *a, char *buf, size_t size)
{
	snprintf(buf, size, "run %.0f %s: the profile covers a %s run, so A(m,inf), T_cp and "
		 "every prediction describe only what ran before it ended; re-record a complete "
		 "run to predict the whole program", a->run_id, s(a->status_text),
		 a->status == PMA_RUNST_NO_END ? "partial (interrupted or unfinished)" : "failed");
}

void pma_note_text_interf_cal_later(const struct pma_note_interf_cal_later *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "interference calibration %s is dated %s, %.0f s after this trace "
		 "was recorded: the machine file the runs used was not this calibration, or a "
		 "clock was wrong (pmcollect copies the file it used into META)", s(a->id),
		 s(a->time_utc), a->diff_s);
}

void pma_note_text_interf_cal_other(const struct pma_note_interf_cal_other *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "operand %.0f ('%s') was recorded against another interference "
		 "calibration (%s, made by %s at %s) than this trace's (%s): their slowdowns are "
		 "not comparable; only this trace is analyzed", a->operand, s(a->other_trace),
		 s(a->other_id), s(a->other_user),
		 s(a->other_time_utc), s(a->id));
}

void pma_note_text_interf_cal_disturbed(const struct pma_note_interf_cal_disturbed *a, char *buf,
					size_t size)
{
	if (a->disturbed == 1)
		snprintf(buf, size, "the interference calibration was disturbed: %.0f BWThrs of "
			 "BW1 = %.2f GB/s take all of B = %.2f GB/s, so B was measured while another "
			 "process moved memory; B and the bandwidth left B - k BW1 are not trusted, "
			 "the curve is against k only and no bandwidth bound is given (recalibrate "
			 "on a quiet machine)", a->k, a->BW1_gb_per_s, a->B_gb_per_s);
	else if (a->disturbed == 2)
		snprintf(buf, size, "the interference calibration was disturbed: at k = %.0f the "
			 "interferers alone moved %.2f GB/s, more than B = %.2f GB/s, so B was "
			 "measured while another process moved memory; B and the bandwidth left B - "
			 "k BW1 are not trusted, the curve is against k only and no bandwidth bound "
			 "is given (recalibrate on a quiet machine)", a->k, a->moved_gb_per_s, a->B_gb_per_s);
	else
		snprintf(buf, size, "the interference calibration was disturbed: at k = %.0f the "
			 "interferers moved %.2f GB/s, more than %.1f x k BW1 (BW1 = %.2f GB/s), so "
			 "BW1 was measured while another process moved memory; BW1 and the bandwidth "
			 "left B - k BW1 are not trusted, the curve is against k only and no "
			 "bandwidth bound is given (recalibrate on a quiet machine)", a->k,
			 a->moved_gb_per_s, a->bw1_excess, a->BW1_gb_per_s);
}

void pma_note_text_window_short(const struct pma_note_window_short *a, char *buf, size_t size)
{
	snprintf(buf, size, "the window holds %.0f sampling intervals (%.2f s), fewer than about %.0f: "
		 "the sampled estimators' uncertainty is large; record a longer window (--duration) "
		 "or a shorter interval (-i)", a->intervals, a->length_s, a->least);
}

void pma_note_text_not_stationary(const struct pma_note_not_stationary *a, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s: A(m,inf) is %.2f ± %.2f in quarter %.0f and %.2f ± %.2f in "
			 "quarter %.0f (%s), apart beyond their uncertainty (chi-square over the four "
			 "quarters: p = %.3g < %.3g); ",
			 a->window ? "the window is not representative" :
				     "the run's parallelism changes over time",
			 a->A_high, a->A_high_err, a->quarter_high, a->A_low, a->A_low_err,
			 a->quarter_low, a->method ? a->method : "?", a->p, a->p_max);

	if (n < 0 || (size_t)n >= size)
		return;
	snprintf(buf + n, size - (size_t)n, "%s", a->window ?
		 "record a longer one, or later (--delay, --duration)" :
		 "A(m,inf) of the whole run is their mix, and a window of one part (--delay, "
		 "--duration) describes that part only");
}

void pma_note_text_not_stationary_cost(const struct pma_note_not_stationary_cost *a, char *buf,
				       size_t size)
{
	static const char *const what[] = { "C(n) per instruction", "C(n) per instruction",
					    "C(n) per instruction", "C(n) per CPU-second" };
	static const char *const unit[] = { "", " cycles", " ns of CPU time", " GHz" };
	int k = a->kind >= 1 && a->kind <= 3 ? a->kind : 0;
	int d = k == 2 ? 3 : 2; /* the decimals the stationarity section prints */
	int n = snprintf(buf, size, "%s: %s is %.*f ± %.*f%s in quarter %.0f and %.*f ± %.*f in "
			 "quarter %.0f (counter snapshots), apart beyond their uncertainty "
			 "(chi-square over the four quarters: p = %.3g < %.3g); ",
			 a->window ? "the window is not representative" :
				     "the run's cost changes over time",
			 what[k], d, a->C_high, d, a->C_high_err, unit[k], a->quarter_high, d, a->C_low,
			 d, a->C_low_err, a->quarter_low, a->p, a->p_max);

	if (n < 0 || (size_t)n >= size)
		return;
	snprintf(buf + n, size - (size_t)n, "%s", a->window ?
		 "record a longer one, or later (--delay, --duration)" :
		 "C(n) of the whole run is their mix, and a window of one part (--delay, "
		 "--duration) describes that part only");
}
