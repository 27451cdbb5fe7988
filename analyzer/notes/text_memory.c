// SPDX-License-Identifier: MIT
// notes/text_memory.c: the wording of the notes about the memory model: omega(n), its calibration runs, frequency, saturation, superlinear effects (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

void pma_note_text_omega_unknown(const struct pma_note_omega_unknown *a, char *buf, size_t size)
{
	char t[32] = "", ana[4200];

	if (a->omp_threads > 0)
		snprintf(t, sizeof(t), "-t %.0f ", a->omp_threads);
	/* a trace read from standard input has no name to suggest beside calib.zst; a calibration
	 * trace holds a baseline run of its own, so it is analyzed alone */
	if (a->trace)
		snprintf(ana, sizeof(ana), "analyze with 'pmanalyze %s calib.zst'", a->trace);
	else
		snprintf(ana, sizeof(ana), "analyze it alone with 'pmanalyze calib.zst' (it holds a "
			 "baseline run of its own)");
	if (a->cal_unusable)
		snprintf(buf, size, "omega unknown (%s): the memory model needs runs on %s cores "
			 "(%.0f socket%s of %.0f cores); the traces have %s, missing %s; the "
			 "calibration runs recorded ran another number of threads than the analyzed "
			 "run (see 'left out of the calibration'): each run must do the same work, "
			 "so a program whose later runs do less (make with nothing left to rebuild) "
			 "must be reset before each run; recording again as is would not help",
			 s(a->why), a->counts_needed == 3 ? "1, c and c+1" : "1 and c", a->sockets,
			 a->sockets == 1 ? "" : "s", a->c, a->have ? a->have : "none",
			 a->missing ? a->missing : "none (see above)");
	else if (a->attached) /* a running process: its windows cannot give C(n) (docs/model.md) */
		snprintf(buf, size, "omega unknown (%s): the memory model needs runs on %s cores "
			 "(%.0f socket%s of %.0f cores); the traces have %s, missing %s; windows of "
			 "the running process %.0f cannot give them, since a window of a fixed length "
			 "does not do a fixed amount of work: record runs of the same program on the "
			 "same input with 'pmcollect --calibrate %s-o calib.zst -- %s' and %s",
			 s(a->why), a->counts_needed == 3 ? "1, c and c+1" : "1 and c",
			 a->sockets, a->sockets == 1 ? "" : "s", a->c, a->have ? a->have : "none",
			 a->missing ? a->missing : "none (see above)", a->attached_pid, t,
			 s(a->command), ana);
	else
		snprintf(buf, size, "omega unknown (%s): the memory model needs runs on %s cores "
			 "(%.0f socket%s of %.0f cores); the traces have %s, missing %s; record them "
			 "with 'pmcollect --calibrate %s-o calib.zst -- %s' and %s", s(a->why),
			 a->counts_needed == 3 ? "1, c and c+1" : "1 and c",
			 a->sockets, a->sockets == 1 ? "" : "s", a->c, a->have ? a->have : "none",
			 a->missing ? a->missing : "none (see above)", t, s(a->command), ana);
}

void pma_note_text_freq_unknown(char *buf, size_t size)
{
	snprintf(buf, size, "C(n) is CPU time, which assumes one clock frequency in every run; "
		 "no cpufreq data was recorded (no cpufreq driver, e.g. a VM), so this cannot be "
		 "checked");
}

void pma_note_text_freq_varies(const struct pma_note_freq_varies *a, char *buf, size_t size)
{
	snprintf(buf, size, "C(n) is CPU time, which assumes one clock frequency in every run, "
		 "but the governor is %s and the recorded frequencies range %.0f-%.0f MHz: omega "
		 "may reflect frequency changes (use the performance governor, or hardware "
		 "counters)", s(a->governor), a->lo_mhz, a->hi_mhz);
}

void pma_note_text_cal_skipped(const struct pma_note_cal_skipped *a, char *buf, size_t size)
{
	snprintf(buf, size, "left out of the calibration: %s", s(a->runs));
}

void pma_note_text_cal_windows(const struct pma_note_cal_windows *a, char *buf, size_t size)
{
	if (a->per_instruction) /* the windows retired instructions: C per instruction (docs/model.md) */
		snprintf(buf, size, "the calibration is %.0f windows of %.3g s of a running process on "
			 "%s cores (pmcollect --calibrate -p --window): a window of a fixed length does "
			 "not do a fixed amount of the program's work, so C(n) is each window's %s per "
			 "instruction retired times %.4g instructions (the median of the 1-CPU windows), "
			 "as if every window had done that work, and omega(n) = C(n)/C(1) - 1 (eq. 7); "
			 "this assumes the program retires the same instructions per unit of work on 1 "
			 "and on c cores, as threads that block while they wait do and threads that spin "
			 "do not (a spinning wait retires instructions that do no work: docs/model.md, "
			 "Limits)", a->windows, a->length_s, s(a->counts),
			 a->per_instruction == 1 ? "cycles" : "CPU time", a->instructions_ref);
	else
		snprintf(buf, size, "the calibration is %.0f windows of %.3g s of a running process on "
			 "%s cores (pmcollect --calibrate -p --window): a window of a fixed length does "
			 "not do a fixed amount of the program's work, so its CPU time is not C(n) and "
			 "omega(n) = C(n)/C(1) - 1 (eq. 7) is not computed from it; the table "
			 "'calibration in windows' gives each window's busy cores; for omega record whole "
			 "runs (pmcollect --calibrate -- CMD)", a->windows, a->length_s, s(a->counts));
}

void pma_note_text_other_machine(const struct pma_note_other_machine *a, char *buf, size_t size)
{
	snprintf(buf, size, "--machine %s (%.0f socket%s of %.0f cores, %.0f NUMA node%s): "
		 "A(m,n) transfers as is; the per-socket M/M/1 parameters (mu, L) are assumed the "
		 "same per socket as on the calibration machine (%.0f x %.0f cores)%s; %s",
		 s(a->machine), a->sockets, a->sockets == 1 ? "" : "s", a->c, a->numa_nodes,
		 a->numa_nodes == 1 ? "" : "s", a->cal_sockets,
		 a->cal_c, a->c > a->cal_c ? ", extrapolated past the calibrated core counts" : "",
		 a->cross_uncalibrated ? "the cross-socket term was not calibrated (one socket): omega beyond one "
		 "socket leaves it out and is a lower bound" : "the cross-socket term is the "
		 "calibration machine's");
}

void pma_note_text_saturated(const struct pma_note_saturated *a, char *buf, size_t size)
{
	snprintf(buf, size, "saturated: the fit gives mu <= nL from n = %.2f cores on one socket "
		 "(eq. 8 has no finite C(n) there), first reached at %.0f cores; omega and S are "
		 "not given from there on", a->n_sat, a->first_n);
}

void pma_note_text_c1_spread(const struct pma_note_c1_spread *a, char *buf, size_t size)
{
	snprintf(buf, size, "the %.0f runs on 1 CPU disagree: C(1) from %.4g to %.4g %s (%.0f%% "
		 "apart); a run of many threads on one CPU pays for its context switches, which "
		 "inflates C(1) and makes omega(n) too small; omega(n) uses the smallest C(1)",
		 a->runs, a->C1_min, a->C1_max, s(a->unit), a->spread_pct);
}

void pma_note_text_omega_noise(const struct pma_note_omega_noise *a, char *buf, size_t size)
{
	/* a->measured 0: no calibration run had n cores, omega(n) is the fit's extrapolation */
	char ext[120] = "";
	if (a->measured == 0)
		snprintf(ext, sizeof(ext), " (extrapolated: no calibration run has %.0f cores, "
			 "the value is the fit of eq. 8)", a->n);
	if (a->cpu_time == 1)
		snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f%s is below 0 beyond %s, but C(n) "
			 "is CPU time, which cannot show a superlinear effect (a 1-CPU run's CPU "
			 "time includes switching between its threads and the hypervisor's steal): "
			 "taken as 0; count cycles to see one", a->n, a->omega, a->omega_err, ext,
			 a->measured == 0 ? "its uncertainty" : "the spread of the calibration runs");
	else if (isnan(a->omega_err))
		snprintf(buf, size, "omega(%.0f) = %.3f%s from one run per core count, no spread "
			 "to tell a superlinear effect from noise: taken as 0 (record the "
			 "calibration with pmcollect --calibrate --repeat 3 or more)", a->n, a->omega,
			 ext);
	else
		snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f%s is below 0 only within its "
			 "uncertainty (%s): taken as 0, so noise cannot make the speedup "
			 "superlinear", a->n, a->omega, a->omega_err, ext,
			 a->measured == 0 ? "the spread of the repeated calibration runs, carried through "
			 "the fit" : "the spread of the repeated calibration runs");
}

void pma_note_text_superlinear(const struct pma_note_superlinear *a, char *buf, size_t size)
{
	snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f is below 0 beyond the spread of the "
		 "repeated calibration runs: a superlinear effect (e.g. more cache with more "
		 "cores) measured consistently, so S may exceed n", a->n, a->omega, a->omega_err);
}

void pma_note_text_superlinear_unconfirmed(const struct pma_note_superlinear_unconfirmed *a,
				char *buf, size_t size)
{
	char why[120];
	if (a->why == PMA_SUPERLIN_NOT_MEASURED)
		snprintf(why, sizeof(why), "no calibration run has %.0f cores (it is "
			 "extrapolated)", a->n);
	else if (a->why == PMA_SUPERLIN_OVERLAP)
		snprintf(why, sizeof(why), "a run on %.0f cores took as many cycles as a run on "
			 "1 core", a->n);
	else
		snprintf(why, sizeof(why), "%.0f runs on 1 core and %.0f on %.0f are too few to "
			 "tell it from noise", a->runs_1, a->runs_n, a->n);
	snprintf(buf, size, "omega(%.0f) = %.3f ± %.3f is below 0 beyond the spread of the "
		 "calibration runs, but %s: taken as 0; a superlinear effect is reported only "
		 "when at least %d runs on 1 core and %d on n cores show it, every C(n) below "
		 "every C(1)", a->n, a->omega, a->omega_err, why, PMA_SUPERLIN_MIN_REPS,
		 PMA_SUPERLIN_MIN_REPS);
}

void pma_note_text_cross_saturated(const struct pma_note_cross_saturated *a, char *buf, size_t size)
{
	snprintf(buf, size, "%.0f calibration run%s left out of the cross-socket term: the "
		 "run on %.0f cores has %.0f on one socket, at or past the one-socket fit's "
		 "saturation (mu = nL at n = %.2f), so eq. 8 gives no finite C(n) to subtract "
		 "there; %s", a->runs, a->runs == 1 ? "" : "s", a->cores, a->first_socket_cores,
		 a->n_sat, a->others_calibrated ?
		 "the cross-socket term comes from the other runs beyond one socket" :
		 "the cross-socket term is not calibrated: omega beyond one socket leaves it "
		 "out and is a lower bound");
}
