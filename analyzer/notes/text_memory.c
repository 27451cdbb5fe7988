// SPDX-License-Identifier: MIT
// notes/text_memory.c: the wording of the notes about the memory model: omega(n), its calibration runs, frequency, saturation, superlinear effects (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

int pma_note_text_memory(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
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
	case PMA_NOTE_C1_SPREAD:
		snprintf(buf, size, "the %.0f runs on 1 CPU disagree: C(1) from %.4g to %.4g %s (%.0f%% "
			 "apart); a run of many threads on one CPU pays for its context switches, which "
			 "inflates C(1) and makes omega(n) too small; omega(n) uses the smallest C(1)",
			 n[0], n[1], n[2], s(x, 0), n[3]);
		break;
	case PMA_NOTE_OMEGA_NOISE: {
		/* n[4] 0: no calibration run had n cores, omega(n) is the fit's extrapolation */
		char ext[120] = "";
		if (n[4] == 0)
			snprintf(ext, sizeof(ext), " (extrapolated: no calibration run has %.0f cores, "
				 "the value is the fit of eq. 8)", n[0]);
		if (n[3] == 1)
			snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f%s is below 0 beyond %s, but C(n) "
				 "is CPU time, which cannot show a superlinear effect (a 1-CPU run's CPU "
				 "time includes switching between its threads and the hypervisor's steal): "
				 "taken as 0; count cycles to see one", n[0], n[1], n[2], ext,
				 n[4] == 0 ? "its uncertainty" : "the spread of the calibration runs");
		else if (isnan(n[2]))
			snprintf(buf, size, "omega(%.0f) = %.3f%s from one run per core count, no spread "
				 "to tell a superlinear effect from noise: taken as 0 (record the "
				 "calibration with pmcollect --calibrate --repeat 3 or more)", n[0], n[1],
				 ext);
		else
			snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f%s is below 0 only within its "
				 "uncertainty (%s): taken as 0, so noise cannot make the speedup "
				 "superlinear", n[0], n[1], n[2], ext,
				 n[4] == 0 ? "the spread of the repeated calibration runs, carried through "
				 "the fit" : "the spread of the repeated calibration runs");
		break;
	}
	case PMA_NOTE_SUPERLINEAR:
		snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f is below 0 beyond the spread of the "
			 "repeated calibration runs: a superlinear effect (e.g. more cache with more "
			 "cores) measured consistently, so S may exceed n", n[0], n[1], n[2]);
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
		return -1;
	}
	return 0;
}
