/* SPDX-License-Identifier: MIT */
/* analyze.h: reads a trace (one streaming pass) into a typed model (META, runs, summary, warnings)
 * and runs the estimators over each run in it. */
#ifndef PMA_ANALYZE_H
#define PMA_ANALYZE_H

#include <stdint.h>

#include "model/estimate.h"
#include "model/exact.h"
#include "model/pswitch.h"
#include "notes/notes.h"
#include "pmt.h"
#include "pm_cli.h"
#include "records.h"

#define PMA_MAX_RUNS 1024u /* a sweep of 16 configurations x 5 repetitions is 81 runs */

/* One OpenMP region instance of a run (an OMP_REGION record, FORMAT.md §5.7), as kept in memory
 * (the team's tids are not kept). */
struct pma_omp_inst {
	uint64_t id;            /* per-process region id (OMP_COUNTERS records name it) */
	uint64_t codeptr_ra, begin_ns, end_ns;
	uint32_t pid, depth, actual_team;
	uint32_t open;          /* PMT_OMP_OPEN: never ended (killed inside), end_ns = run's end */
};
/* Instances kept per run at most (48 bytes each: 2.4 GB); more are counted, not kept. */
#define PMA_MAX_OMP_INSTANCES 50000000u

/* One thread's counter deltas over its implicit task of a region (an OMP_COUNTERS record,
 * FORMAT.md §5.9); the values are in pma_run.omp_cv, omp_cn per record. */
struct pma_omp_ctr {
	uint64_t region_id;
	uint32_t pid, tid;
};
/* Task records kept per run at most (16 + 8 x events bytes each); more are counted, not kept. */
#define PMA_MAX_OMP_COUNTERS 100000000u
/* ENERGY records kept per run at most (8 + 8 x zones bytes each; one per 100 ms: 11.5 days); more
 * are counted, not kept. */
#define PMA_MAX_ENERGY_RECORDS 10000000u
/* COUNTERS records kept per run at most (8 + 8 x events bytes each; one per 10 ms sample: 27
 * hours); more are counted, not kept. */
#define PMA_MAX_COUNTER_RECORDS 10000000u

struct pma_run {
	uint32_t run_id;
	struct pma_run_info info; /* RUN_BEGIN (info.has_begin 0 when the record was lost) and
				     RUN_END (info.has_end 0 when the trace stops before it) */
	uint64_t t_begin_ns, t_end_ns;
	int sampled;            /* a SAMPLE of the run was read (the TASK records before it are the
				   threads a delayed window found) */
	struct pma_est *est;
	struct pma_est_stats st;
	/* m, the run's thread count: the most threads alive in one sample (st.m_peak), or running
	 * at once in the scheduler events (xst.max_active) when more, as when a thread lived and
	 * ended between two samples. Set when the trace is loaded. */
	uint32_t m;
	struct pma_exact *exact; /* scheduler events of the run */
	struct pma_profile xprof; /* exact mode's profile (valid when has_exact) */
	struct pma_exact_stats xst;
	int has_exact;         /* the run has scheduler events and pma_exact_finish succeeded */
	int exact_refused;     /* more than PMA_EXACT_MAX_EVENTS: exact mode off for the run */
	struct pma_pswitch *pswitch; /* perf context switches of the run (PSWITCH records) */
	struct pma_profile pprof; /* switch-exact profile (valid when has_pswitch) */
	struct pma_pswitch_stats pst;
	int has_pswitch;       /* the run has PSWITCH records and pma_pswitch_finish succeeded */
	int pswitch_refused;   /* more than PMA_PSWITCH_MAX_EVENTS */
	struct pm_intlist cpu_list; /* CPUs the run was allowed (from RUN_BEGIN or META "cpus");
				       empty when unknown */
	uint32_t cpus_n;       /* cpu_list.n, 0 unknown */
	char cpus[128];        /* as a cpulist, as recorded ("" unknown) */
	struct pma_omp_inst *omp; /* OMP_REGION records of the run, in file order */
	size_t nomp, omp_cap;
	uint64_t omp_refused;  /* records beyond PMA_MAX_OMP_INSTANCES */
	struct pma_omp_ctr *omp_ctr; /* OMP_COUNTERS records of the run, in file order */
	int64_t *omp_cv;       /* their values: omp_cn per record */
	size_t nomp_ctr, omp_ctr_cap, omp_cv_cap;
	uint32_t omp_cn;       /* events per record (the first record's n; 0 none yet) */
	uint64_t omp_ctr_refused; /* records beyond PMA_MAX_OMP_COUNTERS or with another n */
	uint64_t *energy_t_ns;  /* ENERGY records of the run (FORMAT.md §5.8), in file order: when
				   the counters were read (CLOCK_MONOTONIC ns) [nenergy] */
	uint64_t *energy_uj;    /* their cumulative µJ since the run began, energy_nz per record,
				   zone i in the order of info.energy_zones [nenergy * energy_nz] */
	size_t nenergy, energy_t_cap, energy_uj_cap;
	uint32_t energy_nz;     /* zones per record (the first record's n; 0 none yet) */
	uint64_t energy_refused; /* records beyond PMA_MAX_ENERGY_RECORDS or with another n */
	uint64_t *ctr_t_ns;     /* COUNTERS records of the run (FORMAT.md §5.5), in file order: when
				   the counters were read (CLOCK_MONOTONIC ns) [nctr] */
	int64_t *ctr_values;    /* their cumulative counts since the run (or the window) began,
				   ctr_n per record, event i in the order of info.counter_events;
				   PMT_COUNTER_INVALID not read [nctr * ctr_n] */
	size_t nctr, ctr_t_cap, ctr_v_cap;
	uint32_t ctr_n;         /* events per record (the first record's n; 0 none yet) */
	uint64_t ctr_refused;   /* records beyond PMA_MAX_COUNTER_RECORDS or with another n */
	int finished;
};

struct pma_trace {
	char *path;
	struct pma_meta meta;
	struct pma_summary summary; /* summary.present 0 when the collector did not finish */
	struct pmt_reader_stats rst;
	unsigned major, minor;
	struct pma_run runs[PMA_MAX_RUNS];
	uint32_t nruns;
	uint64_t records, samples, thread_samples, task_events, counter_records, sched_events;
	uint64_t omp_regions;  /* OMP_REGION records */
	uint64_t omp_counter_records; /* OMP_COUNTERS records */
	uint64_t threads_seen; /* TASK APPEAR records plus threads first seen in samples */
	struct pma_notes warnings; /* recorded WARNING records and the loader's findings */
};

/* Reads the whole trace at path and fills t (caller frees with pma_trace_free, also on error).
 * flags are PMT_READ_* for the reader. Returns 0, or a negative PMT_E_* code with a one-line
 * reason in why. A trace that is cut short is not an error: t->rst.truncated is set and the
 * complete chunks are analyzed. */
int pma_trace_load(struct pma_trace *t, const char *path, unsigned flags, char *why,
		   size_t whysize);

/* Progress of a load: bytes of the file consumed so far of bytes_total (the file's size from
 * fstat; 0 when unknown, e.g. a pipe). */
typedef void (*pma_load_progress_fn)(void *arg, uint64_t bytes_read, uint64_t bytes_total);

/* pma_trace_load, calling progress(arg, ...) every PMA_PROGRESS_RECORDS records and once at the
 * end (progress NULL: never). The library prints nothing; the caller decides what to show. */
#define PMA_PROGRESS_RECORDS 4096
int pma_trace_load_progress(struct pma_trace *t, const char *path, unsigned flags,
			    pma_load_progress_fn progress, void *arg, char *why, size_t whysize);
void pma_trace_free(struct pma_trace *t);

/* Opens the trace at path for reading (pmt_reader_open), or standard input when path is "-" (a
 * pipe: the reader only ever read()s, FORMAT.md §1, so `cat t.zst | pmanalyze -` streams). Returns
 * 0 or a negative PMT_E_* code; errno after PMT_E_IO. */
int pma_trace_open_reader(struct pmt_reader **rd, const char *path, unsigned flags);

/* Reads only the META record of the trace at path into m (free it with pma_meta_free, also on
 * error): to tell a rank of a job from a single trace before loading everything. Returns 0, or a
 * negative PMT_E_* code with a one-line reason in why. */
int pma_trace_peek_meta(const char *path, unsigned flags, struct pma_meta *m, char *why,
			size_t whysize);

/* The run to analyze: the one whose RUN_BEGIN role is "baseline", else the finished sweep run
 * with the most threads on the fewest CPUs (pmcollect --sweep --no-baseline), else the first.
 * NULL if none. */
const struct pma_run *pma_trace_baseline(const struct pma_trace *t);

/* Run run_id of the trace, or pma_trace_baseline() when run_id < 0 (--run not given). NULL when
 * there is no such run. */
const struct pma_run *pma_trace_run(const struct pma_trace *t, long run_id);

/* The parallelism profile of run r by estimator k (enum pma_estimator_kind): the sampled ones from
 * r->est, sched-exact from the scheduler events; NULL when the run has no such data. */
const struct pma_profile *pma_run_profile(const struct pma_run *r, int k);

/* Traces of different programs must not be mixed: returns 0 when every trace's META "command"
 * equals the first's (a trace with no runs and no command, a machine's calibration alone such as
 * pmcollect --calibrate-wake, goes with any), else -1 with a one-line reason naming the first
 * difference. */
int pma_traces_same_program(const struct pma_trace *traces, int ntraces, char *why, size_t whysize);

/* Wall time of run r in seconds: RUN_BEGIN to RUN_END, or the span of its samples when either
 * is missing (a trace cut short). */
double pma_run_wall_s(const struct pma_run *r);

/* The program's wall time in seconds, for measured speedups: RUN_END "wall_ns" (pmcollect's
 * monotonic clock from the program's start to its reap, formats/FORMAT.md), else pma_run_wall_s
 * (the records' span, 37-48 us longer on the 2-vCPU VM: it also holds the records around them). */
double pma_run_program_wall_s(const struct pma_run *r);

/* 1 when run r ran to its end (RUN_END) and exited with status 0: a run interrupted or failed
 * measures the failure, not the program. */
int pma_run_exited_ok(const struct pma_run *r);

/* Whether r is a window of a running process that ran its course (pmcollect -p --duration or
 * --calibrate -p --window: RUN_END "window" "end" "duration", "after" "left"): the process did not
 * exit, its window's length is fixed, not its work. */
int pma_run_attached_window(const struct pma_run *r);

/* How well the collector kept run r's sampling interval (docs/model.md). Timer expirations are
 * samples + lost (a late expiration still took a sample), so share = (late + lost) / (samples +
 * lost) is in [0, 1]. */
struct pma_run_sampling {
	int present;            /* counts found (RUN_END 1.2, else SUMMARY); 0: none recorded */
	int from_summary;       /* the counts are SUMMARY's, every run of the trace together */
	double samples, late, lost;
	double share;           /* (late + lost) / (samples + lost); 0 when there are none */
	double interval_ms;     /* the interval the collector used at the end: RUN_END
				   interval.final_ms, else META interval_ms (0 unknown) */
	double requested_ms;    /* -i as asked (RUN_END interval.requested_ms), 0 when it equals
				   interval_ms or is unknown */
};

/* Late or lost expirations from this share of them on, and at least PMA_LATE_MIN of them, are
 * worth a warning (and a note): 2 late of a 50 ms run's 5 samples on a busy machine are not. */
#define PMA_LATE_SHARE 0.05
#define PMA_LATE_MIN 10

/* Fills out for run r of trace t: the run's RUN_END counts and interval (format 1.2), else, when
 * no run of the trace has them (an older collector), the trace's SUMMARY; the interval from META
 * when RUN_END has none. */
void pma_run_sampling(const struct pma_trace *t, const struct pma_run *r,
		      struct pma_run_sampling *out);

#endif
