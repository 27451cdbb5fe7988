/* SPDX-License-Identifier: MIT */
/* notes.h: what the analyzer tells the user besides the numbers (trace warnings and report notes)
 * as structured notes: a code plus its numbers and strings, kept in one growable list type and
 * turned into text in one place (pma_note_text). */
#ifndef PMA_NOTES_H
#define PMA_NOTES_H

#include <stddef.h>

/* A superlinear effect, omega(n) < 0 beyond its uncertainty, is kept only when the calibration
 * runs show it consistently (docs/scaling.md): at least PMA_SUPERLIN_MIN_REPS runs on 1 core and on n
 * cores, and every C(n) below every C(1). Disjoint groups of 5 and 5 runs happen by chance with
 * probability 1/252 when the two have the same distribution (the one-sided Mann-Whitney test at its
 * extreme; 3 and 3: 1/20), which guards against what the half range of 3 runs misses: five triad
 * traces on this VM gave omega(2) = -0.325 +- 0.033 and +0.057 +- 0.056, which do not overlap.
 * Runs of several traces analyzed together are pooled. */
#define PMA_SUPERLIN_MIN_REPS 5
enum {
	PMA_SUPERLIN_FEW_REPS = 1,     /* fewer than PMA_SUPERLIN_MIN_REPS runs on 1 or on n cores */
	PMA_SUPERLIN_NOT_MEASURED,     /* no calibration run on n cores: omega(n) is extrapolated */
	PMA_SUPERLIN_OVERLAP,          /* a run on n cores took as many C as a run on 1 core */
};

/* Each code lists the arguments it takes: n[] numbers, s[] strings. */
enum pma_note_code {
	/* trace warnings (struct pma_trace.warnings) */
	PMA_NOTE_RECORDED = 1,     /* s0: a WARNING record's "what" */
	PMA_NOTE_NO_PID,           /* n0 run id: scheduler events ignored */
	PMA_NOTE_SCHED_LOST,       /* n0 run, n1 lost, n2 gaps, n3 events stored */
	PMA_NOTE_EXACT_REFUSED,    /* n0 run, n1 PMA_EXACT_MAX_EVENTS */
	PMA_NOTE_RUN_TRUNCATED,    /* n0 seconds analyzed, n1 run */
	PMA_NOTE_FILE_TRUNCATED,   /* n0 complete chunks */
	PMA_NOTE_SALVAGED,         /* n0 damaged chunks, n1 bytes skipped */
	PMA_NOTE_SEQ_GAPS,         /* n0 chunks missing, repeated or out of order */
	PMA_NOTE_INCOMPLETE,       /* no SUMMARY record */
	/* report notes (struct pma_result.notes) */
	PMA_NOTE_OMEGA_UNKNOWN,    /* s0 why the fit failed, s1 core counts present, s2 missing,
				      s3 the program's command as shell words, s4 the trace's path;
				      n0 core counts needed (2: 1 and c; 3: 1, c and c+1), n1 sockets,
				      n2 c, n3 the recorded OMP_NUM_THREADS (pmcollect -t; 0 none),
				      n4 1 when calibration runs were recorded but had another thread
				      count (recording them again would not help) */
	PMA_NOTE_FREQ_UNKNOWN,     /* C(n) is CPU time and no cpufreq was recorded */
	PMA_NOTE_FREQ_VARIES,      /* s0 governor ("mixed", "unknown", ...), n0 lo MHz, n1 hi MHz */
	PMA_NOTE_CAL_SKIPPED,      /* s0 the runs left out, with why */
	PMA_NOTE_OTHER_MACHINE,    /* s0 --machine source; n0 sockets, n1 c, n2 NUMA nodes of the
				      target; n3 sockets, n4 c of the calibration machine;
				      n5: 1 when the cross-socket term was not calibrated */
	PMA_NOTE_SATURATED,        /* n0 n at which mu = nL, n1 first core count reaching it */
	PMA_NOTE_SPIN_ACTIVE_SEEN, /* n0 threads, n1 % runnable, n2 blocks per second */
	PMA_NOTE_SPIN_ACTIVE,      /* OMP_WAIT_POLICY=active, pattern not seen */
	PMA_NOTE_SPIN_SEEN,        /* n0 threads, n1 % runnable, n2 blocks per second */
	PMA_NOTE_UNPLACED_WAIT,    /* n0 % of the wait, n1 seconds (longest placeable wait) */
	PMA_NOTE_CORES_CAPPED,     /* n0 the cap, n1 max(m, PUs of the recording machine) */
	/* the model's invariants (docs/model.md "Invariants"): the input that broke one, by how
	   much, and what the report shows instead */
	PMA_NOTE_INV_OMEGA1,       /* n0 omega(1) as the memory model gave it */
	PMA_NOTE_INV_S_CAP,        /* n0 first n, n1 last n capped, n2 worst n, n3 its S as computed,
				      n4 its cap min(n, A(m,inf)), n5 its omega as computed */
	PMA_NOTE_INV_T_FLOOR,      /* n0 worst n, n1 its T(n) as computed (s), n2 max(T_cp, U/n) (s),
				      n3 rows raised */
	PMA_NOTE_INV_OPT_CAP,      /* n0 argmax of S over all n, n1 its S, n2 m, n3 best n <= m
				      (0 none listed), n4 its S, n5 the largest n <= m listed */
	PMA_NOTE_INV_L_NEG,        /* n0 L as fitted, n1 C(1), n2 the largest core count fitted,
				      n3 its C(n), n4 omega(n) there as measured */
	PMA_NOTE_C1_SPREAD,        /* n0 points at 1 core, n1 smallest C(1), n2 largest, n3 spread %;
				      s0 the unit */
	/* degraded inputs */
	PMA_NOTE_RUN_FAILED,       /* n0 run id, n1 PMA_RUNST_*, n2 exit code or signal number;
				      s0 the status as the table header shows it */
	PMA_NOTE_LATE_SAMPLES,     /* n0 samples, n1 late, n2 lost, n3 % of samples late or lost,
				      n4 interval used ms, n5 relative uncertainty added (0: none,
				      the headline estimator is sched-exact), n6 interval requested
				      ms when pmcollect lengthened it (0: the same) */
	PMA_NOTE_STOLEN,           /* n0 wall s, n1 explained s (U / A(m,c) + idle), n2 unexplained
				      s, n3 % of wall, n4 c (CPUs of the run) */
	PMA_NOTE_EST_DISAGREE,     /* n0 A of the headline estimator, n1 A of the other, n2 ratio,
				      n3 0 when the uncertainty leaves the gap out (one is paper),
				      1 when it covers half the gap, 2 the whole gap (a sampled
				      headline beside an exact estimate); s0 headline estimator,
				      s1 other estimator */
	PMA_NOTE_FINE_INTERVAL,    /* n0 interval ms, n1 CPUs of the run, n2 threads */
	PMA_NOTE_MERGED_WINDOWS,   /* n0 interval ms, n1 CPUs, n2 threads, n3 merged samples,
				    * n4 samples, n5 mean window ms, n6 least window ms */
	PMA_NOTE_OMEGA_NOISE,      /* n0 n, n1 omega(n) as fitted (< 0), n2 its uncertainty (NAN: one
				      run per core count, no spread), n3 1: below 0 beyond the
				      spread but C(n) is CPU time: taken as 0 */
	PMA_NOTE_SUPERLINEAR,      /* n0 n, n1 omega(n) (< 0), n2 its uncertainty: below 0 beyond the
				      spread of the repeated calibration, kept */
	PMA_NOTE_COLLECTOR_SHARED, /* n0 CPUs of the run, n1 threads, n2 collector CPU s in the run
				      (with several runs: n4's share by thread-samples), n3 its % of
				      the program's CPU time (-1 unknown), n4 the trace's collector
				      CPU s (SUMMARY), n5 runs in the trace; s0 the run's CPUs */
	/* the merge of a job's rank traces (struct pma_ranks_result.notes, analyzer/result/ranks.c) */
	PMA_NOTE_RANKS_OMEGA_UNKNOWN, /* n0 analyzed ranks of 2+ threads without omega, n1 of them
				      whose calibration runs failed, n2 failed runs in all; s0 the
				      first such rank's trace, s1 its first failure ("run 1:
				      exited 1") */
	PMA_NOTE_RANKS_CAL_FILE,   /* n0 ranks given omega from the calibration trace, n1 of them
				      whose own calibration it replaced, n2 its threads; s0 the
				      calibration trace */
	/* the regions section (analyzer/studies/regions.c) */
	PMA_NOTE_REGION_A_CAPPED,  /* n0 regions whose sampled T_cp was capped at their work, n1
				      regions, n2 the lowest A before the cap, n3 sampling interval
				      ms; s0 that region's name */
	PMA_NOTE_ALLANDE_NC_CAPPED,/* n0 N of the runs with 1..N threads, n1 cores per socket (the NC
				      used), n2 sockets */
	PMA_NOTE_ALLANDE_SPAN,     /* n0 runs of 1..NC threads whose CPUs span sockets, n1 the first
				      one's threads, n2 the sockets it spans; s0 its CPUs */
	/* energy (docs/energy.md, energy_eval.h) */
	PMA_NOTE_POWER_UNPHYSICAL, /* n0 P_static W, n1 P_core W, n2 R2, n3 runs, n4 core counts,
				      n5 the least P(n) W over the predicted core counts: the fit
				      has P_static < 0, P_core < 0 or a P(n) <= 0, energy not shown */
	PMA_NOTE_POWER_TWO_COUNTS, /* n0 runs, n1 R2: the power model rests on two core counts */
	PMA_NOTE_ENERGY_GAP,       /* n0 runs with energy readings over 1 s apart, n1 the largest
				      gap s, n2 its run id */
	PMA_NOTE_SUPERLINEAR_UNCONFIRMED, /* n0 n, n1 omega(n) (< 0), n2 its uncertainty: below 0
				      beyond the spread, in cycles, but not measured consistently:
				      n3 PMA_SUPERLIN_* (above) why, n4 runs on 1 core, n5 on
				      n cores; taken as 0 */
	PMA_NOTE_OVERHEAD_OVERSUBSCRIBED, /* n0 largest thread count fitted, n1 its cores: the
				      parallel overhead x T(x) - T(1) counts x CPUs the runs did not
				      have */
	/* degraded inputs, docs/model.md (added at the end: other codes are added in parallel) */
	PMA_NOTE_LATE_WARNING,     /* trace warning: n0 run id (-1: the whole trace, from SUMMARY),
				      n1 samples, n2 late, n3 lost, n4 % late or lost, n5 interval
				      used ms (0 unknown), n6 interval requested ms (0: the same) */
	PMA_NOTE_OPT_KNOWN_OMEGA,  /* n0 argmax of S over every row, n1 its S, n2 first n with omega
				      unknown, n3 last, n4 the optimum over known omega (0 none), n5
				      its S, n6 cores of the target (0 unknown) */
	PMA_NOTE_CROSS_SATURATED,  /* n0 calibration points left out of the cross-socket term, n1
				      cores of the first, n2 its cores on the first socket, n3 n at
				      which mu = nL (the one-socket fit), n4 1 when other points
				      calibrated the term */
	PMA_NOTE_WAKE_NOT_CHARGED, /* n0 the calibration's charge per cross-core wake, us: the
				      headline estimator is a sampled one, which has no wake edges
				      (docs/model.md "Wake-up costs in the replay") */
	PMA_NOTE_RANKS_MPI_UNMEASURED, /* n0 analyzed ranks without --mpi totals, n1 analyzed ranks */
	PMA_NOTE_RANKS_COLLECTOR_ON_RANK, /* n0 ranks whose pmcollect sampled on their own CPUs, n1
				      its CPU s over them, n2 the largest % of a rank's busy time, n3
				      that rank, n4 ranks whose pmcollect had a CPU of its own */
	PMA_NOTE_INTERF_CAL_LATER, /* n0 the interference calibration's time (META interference
				      written.time_unix_s), n1 the recording's start (META clocks
				      realtime), s, n2 the difference s; s0 its id, s1 its time_utc */
	PMA_NOTE_INTERF_CAL_OTHER, /* n0 operand number of the other trace (1-based); s0 the
				      analyzed trace's calibration id, s1 the other's id, s2 the
				      other trace's path, s3 the other's user, s4 the other's
				      time_utc */
	PMA_NOTE_INTERF_CAL_DISTURBED, /* the bandwidth calibration contradicts itself or the runs
				      (studies/interference.h, enum pma_interf_disturbed): n0 the
				      pma_interf_disturbed, n1 B, n2 BW1 (bytes/s), n3 the level k,
				      n4 the interferers' median traffic there (NAN for n0 = B_TAKEN),
				      n5 PMA_INTERF_BW1_EXCESS */
	PMA_NOTE_RUNS_DISAGREE,    /* the worst core count whose prediction misses the trace's own
				      runs (runcheck.h): n0 n, n1 S predicted, n2 its ±S, n3 S
				      measured (medians), n4 the runs' least S, n5 their greatest,
				      n6 runs on n CPUs, n7 runs on one CPU */
	PMA_NOTE_LEARN_FAILED_RUNS, /* the runs --learn left out of its training table because they
				      did not exit 0 (studies/learn.h): n0 runs, n1 the first's run
				      id, n2 its PMA_RUNST_*, n3 its exit code or signal number; s0
				      its trace's path */
};

/* How much a note matters: a warning says a number may be wrong or was brought back
 * to a bound (the trace lost data, an invariant was enforced); info explains a number. */
enum pma_note_severity { PMA_SEV_INFO, PMA_SEV_WARNING };

/* The code's stable name for scripts ("omega-unknown": PMA_NOTE_OMEGA_UNKNOWN in lower case with
 * '-'), "unknown" for a code without one. Static. */
const char *pma_note_code_name(enum pma_note_code code);
/* The code's severity (trace and model-invariant notes are warnings, the others info). */
enum pma_note_severity pma_note_severity_of(enum pma_note_code code);
/* "info" or "warning". Static. */
const char *pma_note_severity_name(enum pma_note_severity sev);

/* Run status of the analyzed run (PMA_NOTE_RUN_FAILED n1, PMA_NOTE_LEARN_FAILED_RUNS n2). */
enum { PMA_RUNST_EXIT_CODE = 1, PMA_RUNST_SIGNAL, PMA_RUNST_NO_END };

#define PMA_NOTE_NUMS 8
#define PMA_NOTE_STRS 5

struct pma_note {
	enum pma_note_code code;
	double n[PMA_NOTE_NUMS];
	char *s[PMA_NOTE_STRS];    /* owned, NULL when unused */
	size_t nn, ns;             /* numbers and strings it was made with (the rest are 0, NULL) */
};

/* A growable list of notes (zero-initialized is empty). */
struct pma_notes {
	struct pma_note *v;
	size_t n, cap;
};

/* Appends a note with up to PMA_NOTE_NUMS numbers and PMA_NOTE_STRS strings (copied; NULL
 * entries stay NULL). nums/strs may be NULL. Returns 0, or -1 when memory runs out (the list is
 * unchanged). */
int pma_notes_add(struct pma_notes *l, enum pma_note_code code, const double *nums, size_t nnums,
		  const char *const *strs, size_t nstrs);
/* Appends copies of every note of src. Returns 0 or -1 (out of memory). */
int pma_notes_append(struct pma_notes *l, const struct pma_notes *src);
/* The first note with code, or NULL. */
const struct pma_note *pma_notes_find(const struct pma_notes *l, enum pma_note_code code);
void pma_notes_free(struct pma_notes *l);

/* Writes the note as one line of English for the user (no trailing newline; truncated to size).
 * The only place that turns a note into text. Returns buf. */
char *pma_note_text(const struct pma_note *note, char *buf, size_t size);

/* What the user can do about the note, as one imperative sentence for the report's "what to do
 * next" list ("Record calibration runs: pmcollect --calibrate ..."), written to buf (truncated to
 * size). Returns buf, or NULL when the note asks for nothing (the note's text then stands alone). */
char *pma_note_action(const struct pma_note *note, char *buf, size_t size);

/* The whole note as a malloc'ed line, never truncated (pma_note_text into a buffer grown until
 * the text fits). Returns NULL when memory runs out; the caller frees it. */
char *pma_note_alloc(const struct pma_note *note);
/* The whole action (pma_note_action) as a malloc'ed line, never truncated. Returns NULL when the
 * note asks for nothing or memory runs out; the caller frees it. */
char *pma_note_action_alloc(const struct pma_note *note);

#endif
