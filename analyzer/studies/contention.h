/* SPDX-License-Identifier: MIT */
/* contention.h: from the runs of one or more traces to the memory model: calibration points C(n),
 * the fit, what is missing, and omega(n) for the core counts of a report (machines: machine.h). */
#ifndef PMA_CONTENTION_H
#define PMA_CONTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "trace/analyze.h"
#include "trace/machine.h"
#include "model/memory.h"
#include "notes/notes.h"

#define PMA_CAL_MAX_POINTS 64

/* The calibration as found in the traces. */
struct pma_mem_cal {
	const char *source;      /* "cycles", "cpu_time" or "none" (C(n) of every point, its unit) */
	/* pmcollect --calibrate -p --window whose windows all retired instructions (RUN_END "C"
	 * "instructions"): the points are the windows, C(n) = C_w / I_w * I_ref with C_w the
	 * window's cycles (source "cycles") or CPU time ("cpu_time"), I_w its instructions and
	 * I_ref the median instructions of the 1-CPU windows, as if each window had done the same
	 * work (docs/model.md "Windows"); 0 and I_ref NAN otherwise */
	int per_instruction;
	double I_ref;
	struct pma_mem_params params; /* params.model == PMA_MEM_NONE when omega is unknown */
	size_t npts;
	struct pma_mem_point pts[PMA_CAL_MAX_POINTS];
	uint32_t run_id[PMA_CAL_MAX_POINTS];
	int trace[PMA_CAL_MAX_POINTS];     /* index into traces[] */
	double omega_meas[PMA_CAL_MAX_POINTS], omega_model[PMA_CAL_MAX_POINTS];
	/* the points summarized per placement (cores, n_first) over the repetitions of
	 * --calibrate --repeat K (docs/scaling.md): sum[k].C the median C(n), C_err[k] half its range
	 * (0 for one run), nrep[k] the runs; the model is fitted to these medians */
	size_t nsum;
	struct pma_mem_point sum[PMA_CAL_MAX_POINTS];
	double C_err[PMA_CAL_MAX_POINTS];
	uint32_t nrep[PMA_CAL_MAX_POINTS];
	int repeated;            /* every summarized point has two runs or more: omega has a spread */
	/* pmcollect --calibrate -p --window: the baseline and calibration runs that are windows of a
	 * running process (pma_run_attached_window). A window of a fixed length does not do a fixed
	 * amount of work, so its C is not C(n) of eq. 7: they are points only per instruction
	 * (per_instruction), else just listed */
	size_t nwin;
	struct pma_mem_window {
		int trace;           /* index into traces[] */
		uint32_t run_id, cores;
		const char *cpus;    /* RUN_BEGIN "cpus" (the trace's string) */
		double length_ns;    /* RUN_END "window" "length_ns" */
		double cpu_ns;       /* the CPU time of the process's threads in it (RUN_END "C") */
		double cycles;       /* its cycles (RUN_END "C" "value" of source "cycles"), NAN */
		double instructions; /* the instructions they retired (RUN_END "C"), NAN unknown */
	} win[PMA_CAL_MAX_POINTS];
};

/* How the points' C(n) was measured, for the report: cal->source ("cycles", "cpu_time",
 * "none"), or for a calibration in windows per instruction "cycles per instruction" / "CPU time
 * per instruction" (json 0) or "cycles_per_instruction" / "cpu_time_per_instruction" (json 1:
 * the JSON's and CSV's omega_source). A static string. */
const char *pma_mem_cal_source_name(const struct pma_mem_cal *cal, int json);

/* The points of a calibration in windows (Tudor & Teo eq. 7 per instruction): for each window
 * w of win[0..nwin), C[w] = cost_w / instr_w * I_ref, cost_w its cycles when every window has
 * them (*cycles 1), else its CPU time (ns, *cycles 0), I_ref the median instructions of the
 * windows on one core (written to *I_ref), so that omega(n) = C(n)/C(1) - 1 compares the cost
 * of one amount of work. Returns 0, or -1 (C, *cycles and *I_ref untouched) when some window
 * lacks instructions (not finite or <= 0) or a cost (> 0), or no window ran on one core. Pure. */
int pma_mem_window_points(const struct pma_mem_window *win, size_t nwin, double *C, int *cycles,
			  double *I_ref);

/* C(n) of one run (Tudor & Teo eq. 7): RUN_END "C" (cycles when want_cycles and the run has
 * them, else its CPU time in ns), else the schedstat CPU time (ns) its samples add up to (the
 * runnable profile's work). *llc gets the run's LLC misses (NAN unknown), *is_cycles whether the
 * run has cycles. */
double pma_mem_run_C(const struct pma_run *r, int want_cycles, double *llc, int *is_cycles);

/* Collects one point per finished run of every trace (the repetitions of --calibrate --repeat K
 * summarized per core count by their median, with half the range as C's uncertainty, and the
 * model fitted to the medians) (Tudor & Teo §II-B: C(n) of the program with
 * the same m on n cores, n = the run's CPU count) and fits the model of the recording machine rec
 * (one socket: eq. 8; several: UMA eq. 9 or NUMA eq. 10 when rec has several NUMA nodes). C(n) is
 * RUN_END "C" (cycles, or schedstat CPU time as the proxy; one source for all points: cpu_time when
 * any point lacks cycles); traces without it use the CPU time summed from the samples. Runs whose
 * peak thread count differs from m are left out (C(n) must be for the same m). m_peak is the
 * analyzed run's m. Appends to notes: PMA_NOTE_OMEGA_UNKNOWN when the model cannot be fitted
 * (which core counts are missing, and the pmcollect command from META), PMA_NOTE_FREQ_* when CPU
 * time stands in for cycles, PMA_NOTE_CAL_SKIPPED for runs left out, PMA_NOTE_CAL_WINDOWS
 * when runs are windows of a running process (out->win; then no OMEGA_UNKNOWN). When the traces
 * hold no finished whole run but windows that all retired instructions, the windows are the
 * points, per instruction (pma_mem_window_points; out->per_instruction). Returns 0 (also when
 * omega is unknown), or -1 when memory runs out. */
int pma_mem_calibrate(const struct pma_trace *traces, int ntraces, const struct pma_machine *rec,
		      uint32_t m_peak, struct pma_mem_cal *out, struct pma_notes *notes);

/* Where a core count n stands on the target machine. n counts CPUs as hwloc's PUs and a cpuset
 * count them (what taskset, likwid-pin and pmcollect --cpus give a program): a target of 14 cores
 * and 20 PUs has every n up to 20. omega is measured per busy core, so busy threads beyond the
 * physical cores (SMT siblings) have no omega. */
enum pma_on_target {
	PMA_ON_TARGET_CORES = 0,        /* n CPUs there, each busy thread on a core of its own */
	PMA_ON_TARGET_SMT,              /* n CPUs there, more busy threads than cores: some share a
					   core, omega not measured (unknown), S an upper bound */
	PMA_ON_TARGET_EXTRAPOLATED,     /* no --machine: more CPUs than the recording machine has;
					   omega unknown, S an upper bound for such a machine */
	PMA_ON_TARGET_ABSENT,           /* --machine has fewer CPUs than n: no prediction (no S,
					   T, R, omega) */
};

/* "cores", "smt", "extrapolated", "absent": the JSON's and CSV's on_target. */
const char *pma_on_target_name(enum pma_on_target v);

/* The memory model applied to the core counts of a report. */
struct pma_mem_eval {
	struct pma_machine rec;      /* the machine traces[0] was recorded on */
	struct pma_machine target;   /* a copy of --machine (its topo borrowed), else of rec's counts */
	int target_given;
	enum pma_mem_policy pol;
	const char *pol_source;      /* "--mem" or "recorded memory policy" */
	uint32_t chunk;              /* placement: threads per socket turn (c = compact, 1 = scatter) */
	char placement[32];          /* "compact", "scatter" or "chunks of k" */
	struct pma_mem_cal cal;
	double *omega;               /* per core count: omega(n); NAN unknown; INFINITY saturated */
	double *cross;               /* its cross-socket part; NAN unknown */
	double *omega_err;           /* per core count: standard error of omega(n), the fit's
					covariance (from the spread of repeated calibration runs, or
					PMA_MEM_C_REL_SD per single run) propagated through eq. 8-10
					(pma_mem_predict); NAN only where omega is not finite */
	uint32_t *busy;              /* per core count n: the cores running a thread, min(n, m);
					omega and per_socket count these only (docs/memory-model.md) */
	double *omega_fit;           /* omega(n) as fitted, before a negative value inside its
					uncertainty is taken as 0 (omega[]) */
	char (*per_socket)[64];      /* per core count: the busy cores' placement, "{6,3}" */
	uint8_t *on_target;          /* per core count: enum pma_on_target */
	size_t ncores;
	struct pma_notes notes;      /* for the user: missing runs, frequency, saturation, ... */
};

/* Fits the memory model to the runs of traces (pma_mem_calibrate) and predicts omega(n) for each
 * cores[i] on the target machine (machine, loaded by the caller with pma_machine_load and borrowed
 * until pma_mem_eval_free; NULL = the recording machine) with min(cores[i], m) threads (m = 0:
 * cores[i]) placed per socket in chunks of `chunk` (0 = compact: a socket at a time; Allande et al.) under memory
 * policy pol (-1 = from the recorded policy: interleave -> interleave, bind -> local-then-remote,
 * else local). Saturation (mu <= kL on a socket) gives INFINITY and a note saying where. With
 * another machine, the per-socket M/M/1 parameters are assumed to be the same per socket there,
 * and the cross-socket term is the calibration machine's (unknown when that had one socket); the
 * notes say so. No I/O. Returns 0, or -1 with a reason (out of memory). out is freed with
 * pma_mem_eval_free also on error. */
int pma_mem_eval(const struct pma_trace *traces, int ntraces, const struct pma_machine *machine,
		 uint32_t chunk, int pol, uint32_t m, const uint32_t *cores, size_t ncores,
		 struct pma_mem_eval *out, char *why, size_t whysize);
void pma_mem_eval_free(struct pma_mem_eval *e);

/* The uncertainty of S = A / (1 + omega) (Tudor & Teo, eq. 1) with omega's: dS = S domega /
 * (1 + omega), added in quadrature to S_err (the sampling's uncertainty, same unit as S) (issue
 * 13). Returns S_err unchanged when omega, domega or S is not finite or 1 + omega <= 0. */
double pma_mem_S_err(double S, double S_err, double omega, double omega_err);

/* PMA_SUPERLIN_* and PMA_SUPERLIN_MIN_REPS (notes/notes.h): the reasons a superlinear claim is
 * not kept, values of PMA_NOTE_SUPERLINEAR_UNCONFIRMED. */
/* Checks the runs of cal (cal->pts, C(n) per run) at 1 and n cores for a superlinear claim at n.
 * Writes the runs found, K1 on 1 core and Kn on n. Returns 0 when they show it consistently, else
 * PMA_SUPERLIN_*. */
int pma_mem_superlinear_evidence(const struct pma_mem_cal *cal, uint32_t n, uint32_t *K1,
				 uint32_t *Kn);

#endif
