// SPDX-License-Identifier: MIT
// notes/text_trace.c: the wording of the notes about the trace and the recorded run: lost or late data, truncation, spinning, failed runs (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

/* The notes about how the run was sampled: late and lost samples, stolen time, the interval on
 * an oversubscribed baseline, a collector that shared the program's CPUs. Returns 0, or -1
 * for a code that is not one of them. */
static int sampling_text(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_LATE_SAMPLES: {
		char iv[96];
		pma_note_interval_text(iv, sizeof(iv), n[4], n[6]);
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
				 "events, which do not depend on it, so the late samples add nothing to "
				 "its uncertainty (any ± beside it has other causes, given in their own "
				 "notes), but "
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
	case PMA_NOTE_FINE_INTERVAL:
		snprintf(buf, size, "interval %.2f ms on a baseline of %.0f threads on %.0f CPU%s: "
			 "shorter than a few scheduler time slices (~3 ms each), so one interval sees "
			 "one thread run while the others wait, and the collector falls behind: the "
			 "runnable estimator can underestimate A(m,inf) (an OpenMP program of A = 2.46 "
			 "gave 2.10-2.42 at 0.1-2 ms, 2.45 at 10 ms); re-record with -i 10 (the default)",
			 n[0], n[2], n[1], n[1] == 1 ? "" : "s");
		break;
	case PMA_NOTE_MERGED_WINDOWS:
		snprintf(buf, size, "interval %.2f ms on a baseline of %.0f threads on %.0f CPU%s: "
			 "the sampled estimators merged %.0f of %.0f samples into the next interval, "
			 "for oversubscribed intervals of %.2f ms on average (at least %.0f ms, several "
			 "scheduler time slices: in a shorter one a thread runs while the others wait, and A(m,inf) "
			 "reads low); schedstat's counters are cumulative, so no CPU or wait time is "
			 "lost, only time resolution", n[0], n[2], n[1], n[1] == 1 ? "" : "s", n[3],
			 n[4], n[5], n[6]);
		break;
	case PMA_NOTE_COLLECTOR_SHARED:
		snprintf(buf, size, "the collector shared the baseline's CPU%s %s (pmcollect was not "
			 "pinned: it was allowed no CPU outside them): %.0f threads on %.0f CPU%s waited "
			 "also for its sampling", n[0] == 1 ? "" : "s", s(x, 0), n[1], n[0],
			 n[0] == 1 ? "" : "s");
		if (n[3] >= 0 && n[5] > 1) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, ", about %.3f s of CPU (%.1f%% of the program's; its "
				 "share by thread-samples of the %.3f s it used over the trace's %.0f runs)",
				 n[2], n[3], n[4], n[5]);
		} else if (n[3] >= 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, ", %.3f s of CPU (%.1f%% of the program's)", n[2], n[3]);
		}
		{
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, ", counted as their run-queue wait; give pmcollect a "
				 "CPU of its own (taskset -c %s,N pmcollect --cpus %s ...)", s(x, 0), s(x, 0));
		}
		break;
	case PMA_NOTE_LATE_WARNING: {
		char iv[96], run[96] = "the trace";
		pma_note_interval_text(iv, sizeof(iv), n[5], n[6]);
		/* n[7]: how many runs had them, said once for the worst */
		if (n[0] >= 0 && n[7] > 1)
			snprintf(run, sizeof(run), "%.0f runs had late or lost samples; the worst, run "
				 "%.0f", n[7], n[0]);
		else if (n[0] >= 0)
			snprintf(run, sizeof(run), "run %.0f", n[0]);
		snprintf(buf, size, "%s: %.0f of %.0f samples were late and %.0f lost (%.0f%% of the "
			 "timer expirations) at %s: the collector could not keep the interval (a busy "
			 "CPU, or an interval too short for the threads it reads); the sampled "
			 "estimators place changes of parallelism less precisely", run, n[2], n[1],
			 n[3], n[4], iv);
		break;
	}
	default:
		return -1;
	}
	return 0;
}

int pma_note_text_trace(const struct pma_note *x, char *buf, size_t size)
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
	case PMA_NOTE_RUN_FAILED:
		snprintf(buf, size, "run %.0f %s: the profile covers a %s run, so A(m,inf), T_cp and "
			 "every prediction describe only what ran before it ended; re-record a complete "
			 "run to predict the whole program", n[0], s(x, 0),
			 n[1] == PMA_RUNST_NO_END ? "partial (interrupted or unfinished)" : "failed");
		break;
	case PMA_NOTE_INTERF_CAL_LATER:
		snprintf(buf, size, "interference calibration %s is dated %s, %.0f s after this trace "
			 "was recorded: the machine file the runs used was not this calibration, or a "
			 "clock was wrong (pmcollect copies the file it used into META)", s(x, 0),
			 s(x, 1), n[2]);
		break;
	case PMA_NOTE_INTERF_CAL_OTHER:
		snprintf(buf, size, "operand %.0f ('%s') was recorded against another interference "
			 "calibration (%s, made by %s at %s) than this trace's (%s): their slowdowns are "
			 "not comparable; only this trace is analyzed", n[0], s(x, 2), s(x, 1), s(x, 3),
			 s(x, 4), s(x, 0));
		break;
	case PMA_NOTE_INTERF_CAL_DISTURBED:
		/* n0: enum pma_interf_disturbed (1 B taken, 2 B exceeded, 3 BW1 exceeded) */
		if (n[0] == 1)
			snprintf(buf, size, "the interference calibration was disturbed: %.0f BWThrs of "
				 "BW1 = %.2f GB/s take all of B = %.2f GB/s, so B was measured while another "
				 "process moved memory; B and the bandwidth left B - k BW1 are not trusted, "
				 "the curve is against k only and no bandwidth bound is given (recalibrate "
				 "on a quiet machine)", n[3], n[2] / 1e9, n[1] / 1e9);
		else if (n[0] == 2)
			snprintf(buf, size, "the interference calibration was disturbed: at k = %.0f the "
				 "interferers alone moved %.2f GB/s, more than B = %.2f GB/s, so B was "
				 "measured while another process moved memory; B and the bandwidth left B - "
				 "k BW1 are not trusted, the curve is against k only and no bandwidth bound "
				 "is given (recalibrate on a quiet machine)", n[3], n[4] / 1e9, n[1] / 1e9);
		else
			snprintf(buf, size, "the interference calibration was disturbed: at k = %.0f the "
				 "interferers moved %.2f GB/s, more than %.1f x k BW1 (BW1 = %.2f GB/s), so "
				 "BW1 was measured while another process moved memory; BW1 and the bandwidth "
				 "left B - k BW1 are not trusted, the curve is against k only and no "
				 "bandwidth bound is given (recalibrate on a quiet machine)", n[3],
				 n[4] / 1e9, n[5], n[2] / 1e9);
		break;
	default:
		return sampling_text(x, buf, size);
	}
	return 0;
}
