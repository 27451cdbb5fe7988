// SPDX-License-Identifier: MIT
// test_contention.c: omega(n) with an uncertainty from repeated calibration runs (issue 13,
// analyzer/studies/contention.c) on synthetic C(n) x K repetitions of known value: the median, the spread
// dC (half the range), domega as the standard error of omega(2) = C(2)/C(1) - 1 from the runs'
// sd / sqrt(K) (issue 28: the fit's covariance through eq. 7-8, checked here by the direct
// delta method), idle cores for n > m (issue 28), the
// three branches of a negative omega (noise, CPU time, cycles), the superlinear safeguard (K >= 5
// and every C(n) below every C(1)), dS = S domega / (1 + omega) in quadrature, and a calibration
// in windows of a running process, whose C(n) is C per instruction (pma_mem_window_points).

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "calstop.h"
#include "contention.h"
#include "testlib.h"

/* A machine of one socket with `cores` cores (no hwloc XML: the counts of META "topology"). */
static struct pma_trace *new_trace(double cores)
{
	struct pma_trace *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->path = strdup("synthetic.zst");
	t->meta.topo.present = 1;
	t->meta.topo.packages = 1;
	t->meta.topo.cores = t->meta.topo.pus = cores;
	t->meta.topo.numa_nodes = 1;
	return t;
}

static void free_traces(struct pma_trace *t, int n)
{
	for (int i = 0; i < n; i++)
		free(t[i].path);
	free(t);
}

/* The thread count of the runs add_runs writes and eval analyzes. */
static uint32_t run_m = 2;

/* Appends runs of run_m threads on `cores` CPUs, one per value of C[0..K): cycles when cycles,
 * else CPU time in ns (RUN_END "C" as pmcollect writes it). */
static void add_runs(struct pma_trace *t, uint32_t cores, const double *C, size_t K, int cycles)
{
	for (size_t k = 0; k < K; k++) {
		struct pma_run *r = &t->runs[t->nruns];
		r->run_id = t->nruns++;
		r->m = run_m;
		r->cpus_n = cores;
		snprintf(r->cpus, sizeof(r->cpus), cores == 1 ? "0" : "0-%u", cores - 1);
		r->info.role = r->run_id == 0 ? PMA_ROLE_BASELINE : PMA_ROLE_CALIBRATION;
		r->info.has_begin = r->info.has_end = 1;
		r->info.exit_kind = PMA_EXIT_EXITED;
		r->info.exit_code = 0;
		r->info.C.present = 1;
		r->info.C.unit = cycles ? PMA_COST_CYCLES : PMA_COST_NS;
		r->info.C.value = C[k];
		r->info.C.cpu_time_ns = C[k];
		r->info.C.llc_misses = NAN;
	}
}

/* A 2-core machine's trace with K1 runs of C1[] on 1 core and K2 of C2[] on 2. */
static struct pma_trace *cal_trace(const double *C1, size_t K1, const double *C2, size_t K2,
				   int cycles)
{
	struct pma_trace *t = new_trace(2);

	add_runs(t, 1, C1, K1, cycles);
	add_runs(t, 2, C2, K2, cycles);
	return t;
}

/* pma_mem_eval of traces for the core counts 1..ncores; fails the test on error. */
static void eval(const struct pma_trace *t, int ntraces, size_t ncores, struct pma_mem_eval *e)
{
	uint32_t cores[8];
	char why[300];

	for (size_t i = 0; i < ncores; i++)
		cores[i] = (uint32_t)i + 1;
	assert_int_equal(pma_mem_eval(t, ntraces, NULL, 0, -1, run_m, cores, ncores, e, why,
				      sizeof(why)), 0);
}

/* The summarized point of cal at `cores`. */
static const struct pma_mem_point *sum_at(const struct pma_mem_cal *cal, uint32_t cores, size_t *k)
{
	for (*k = 0; *k < cal->nsum; ++*k)
		if (cal->sum[*k].cores == cores)
			return &cal->sum[*k];
	fail_msg("no summarized point at %u cores", cores);
	return NULL;
}

/* The standard error of the mean of v[0..K): sample sd / sqrt(K). */
static double se(const double *v, size_t K)
{
	double mean = 0, ss = 0;

	for (size_t k = 0; k < K; k++)
		mean += v[k] / (double)K;
	for (size_t k = 0; k < K; k++)
		ss += (v[k] - mean) * (v[k] - mean);
	return sqrt(ss / (double)(K - 1) / (double)K);
}

/* domega(2) for omega(2) = C2/C1 - 1 by the delta method: (C2/C1) hypot(s1/C1, s2/C2), with s1,
 * s2 the standard errors of C1 and C2. */
static double domega2(double C1, double s1, double C2, double s2)
{
	return C2 / C1 * hypot(s1 / C1, s2 / C2);
}

/* CPU time, three runs each, ranges overlapping: median 100 and 97, dC 3 and 2, omega(2) = -0.03,
 * domega = 0.020641 (standard errors 1.764 and 1.155): -0.03 is inside twice its standard error,
 * taken as 0 with the noise note (n3 = 0). */
static void test_median_spread_and_noise(void **state)
{
	static const double C1[] = { 104, 100, 98 }, C2[] = { 95, 97, 99 };
	struct pma_trace *t = cal_trace(C1, 3, C2, 3, 0);
	struct pma_mem_eval e;
	size_t k;

	(void)state;
	eval(t, 1, 2, &e);
	assert_string_equal(e.cal.source, "cpu_time");
	assert_true(e.cal.repeated);
	assert_int_equal(e.cal.nsum, 2);
	assert_double_equal(sum_at(&e.cal, 1, &k)->C, 100, 1e-12);
	assert_double_equal(e.cal.C_err[k], 3, 1e-12);
	assert_int_equal(e.cal.nrep[k], 3);
	assert_double_equal(sum_at(&e.cal, 2, &k)->C, 97, 1e-12);
	assert_double_equal(e.cal.C_err[k], 2, 1e-12);
	assert_double_equal(e.omega_fit[1], -0.03, 1e-12);
	assert_double_equal(e.omega_err[1], 0.0206411671, 1e-9);
	assert_double_equal(e.omega_err[1], domega2(100, se(C1, 3), 97, se(C2, 3)), 1e-9);
	assert_double_equal(e.omega[1], 0, 0);
	const struct pma_note *n = pma_notes_find(&e.notes, PMA_NOTE_OMEGA_NOISE);
	assert_non_null(n);
	assert_double_equal(n->arg.omega_noise.n, 2, 0);
	assert_double_equal(n->arg.omega_noise.omega, -0.03, 1e-12);
	assert_double_equal(n->arg.omega_noise.cpu_time, 0, 0);
	assert_double_equal(n->arg.omega_noise.measured, 1, 0); /* runs on 2 cores: measured, not extrapolated */
	assert_null(pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR));
	pma_mem_eval_free(&e);
	free_traces(t, 1);
}

/* C(2) 20% below C(1) beyond the spread: omega(2) = -0.2 +- 0.0073937 (3 runs). With CPU time: taken as 0
 * (n3 = 1); with cycles and 3 runs each: not enough to call it superlinear (was kept before the
 * safeguard); with cycles and 5 disjoint runs each: kept, the superlinear note. */
static void test_beyond_spread(void **state)
{
	static const double C1[] = { 100, 101, 99, 100.5, 99.5 }, C2[] = { 80, 81, 79, 80.5, 79.5 };
	double d = domega2(100, se(C1, 3), 80, se(C2, 3));
	struct pma_mem_eval e;
	const struct pma_note *n;

	(void)state;
	assert_double_equal(d, 0.007393691, 1e-9);
	for (int cycles = 0; cycles < 2; cycles++) {
		struct pma_trace *t = cal_trace(C1, 3, C2, 3, cycles);
		eval(t, 1, 2, &e);
		assert_string_equal(e.cal.source, cycles ? "cycles" : "cpu_time");
		assert_double_equal(e.omega_fit[1], -0.2, 1e-12);
		assert_double_equal(e.omega_err[1], d, 1e-9);
		assert_double_equal(e.omega[1], 0, 0);
		assert_null(pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR));
		if (!cycles) {
			assert_non_null(n = pma_notes_find(&e.notes, PMA_NOTE_OMEGA_NOISE));
			assert_double_equal(n->arg.omega_noise.cpu_time, 1, 0);
		} else {
			assert_null(pma_notes_find(&e.notes, PMA_NOTE_OMEGA_NOISE));
			assert_non_null(n = pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR_UNCONFIRMED));
			assert_double_equal(n->arg.superlinear_unconfirmed.n, 2, 0);
			assert_double_equal(n->arg.superlinear_unconfirmed.omega, -0.2, 1e-12);
			assert_double_equal(n->arg.superlinear_unconfirmed.omega_err, d, 1e-9);
			assert_double_equal(n->arg.superlinear_unconfirmed.why, PMA_SUPERLIN_FEW_REPS, 0);
			assert_double_equal(n->arg.superlinear_unconfirmed.runs_1, 3, 0);
			assert_double_equal(n->arg.superlinear_unconfirmed.runs_n, 3, 0);
			char *text = pma_note_alloc(n);
			assert_non_null(text);
			assert_non_null(strstr(text, "3 runs on 1 core and 3 on 2 are too few to tell it from noise"));
			free(text);
		}
		pma_mem_eval_free(&e);
		free_traces(t, 1);
	}

	struct pma_trace *t = cal_trace(C1, 5, C2, 5, 1);
	eval(t, 1, 2, &e);
	/* same medians, five runs: a smaller standard error */
	assert_double_equal(e.omega_err[1], domega2(100, se(C1, 5), 80, se(C2, 5)), 1e-9);
	assert_true(e.omega_err[1] < d);
	assert_double_equal(e.omega[1], -0.2, 1e-12);    /* kept */
	assert_non_null(n = pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR));
	assert_double_equal(n->arg.superlinear.omega, -0.2, 1e-12);
	assert_null(pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR_UNCONFIRMED));
	pma_mem_eval_free(&e);
	free_traces(t, 1);
}

/* Cycles, 5 runs each, one 1-core run low (85 below the 2-core runs' 88): median 100 with dC 7.5
 * and 88 with dC 0 (standard errors 3 and, identical runs, the floor 1e-3 C = 0.088), omega(2) =
 * -0.12 +- 0.026415, beyond twice the standard error, but the runs overlap: taken as 0 with the
 * reason. */
static void test_overlap_not_superlinear(void **state)
{
	static const double C1[] = { 100, 100, 85, 100, 100 }, C2[] = { 88, 88, 88, 88, 88 };
	struct pma_trace *t = cal_trace(C1, 5, C2, 5, 1);
	struct pma_mem_eval e;
	const struct pma_note *n;

	(void)state;
	eval(t, 1, 2, &e);
	assert_double_equal(e.omega_fit[1], -0.12, 1e-12);
	assert_double_equal(e.omega_err[1], domega2(100, 3, 88, 0.088), 1e-9);
	assert_double_equal(e.omega_err[1], 0.0264146626, 1e-9);
	assert_true(e.omega_fit[1] + 2 * e.omega_err[1] < 0);
	assert_double_equal(e.omega[1], 0, 0);
	assert_non_null(n = pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR_UNCONFIRMED));
	assert_double_equal(n->arg.superlinear_unconfirmed.why, PMA_SUPERLIN_OVERLAP, 0);
	assert_null(pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR));
	pma_mem_eval_free(&e);
	free_traces(t, 1);
}

/* Two traces of 3 cycle runs of 4 threads each, analyzed together: pooled to 6 and 6, disjoint:
 * kept. On a 4-core machine calibrated at 1 and 2 only, omega(4) = 1/(alpha - 4 beta)/C(1) - 1
 * with the line through (1, 1/100) and (2, 1/80) is -0.428571, extrapolated: taken as 0. */
static void test_pooled_traces_and_extrapolated(void **state)
{
	static const double C1[] = { 100, 101, 99 }, C2[] = { 80, 81, 79 };
	struct pma_trace *t = calloc(2, sizeof(*t));
	struct pma_mem_eval e;
	const struct pma_note *n;

	(void)state;
	assert_non_null(t);
	run_m = 4; /* 4 threads: every core of the 4 busy */
	for (int i = 0; i < 2; i++) {
		struct pma_trace *one = new_trace(4);
		t[i] = *one;
		free(one);      /* t[i] owns its path now */
		add_runs(&t[i], 1, C1, 3, 1);
		add_runs(&t[i], 2, C2, 3, 1);
	}
	eval(t, 2, 4, &e);
	size_t k;
	sum_at(&e.cal, 1, &k);
	assert_int_equal(e.cal.nrep[k], 6);
	assert_double_equal(e.omega[1], -0.2, 1e-12);
	assert_non_null(pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR));
	assert_double_equal(e.omega_fit[3], 1 / (0.0075 + 4 * 0.0025) / 100 - 1, 1e-9);
	assert_double_equal(e.omega_fit[3], -0.4285714286, 1e-9);
	assert_true(e.omega_fit[3] + e.omega_err[3] < 0);
	assert_double_equal(e.omega[3], 0, 0);
	assert_non_null(n = pma_notes_find(&e.notes, PMA_NOTE_SUPERLINEAR_UNCONFIRMED));
	assert_double_equal(n->arg.superlinear_unconfirmed.n, 3, 0);   /* the smallest n said: 3 is extrapolated too */
	assert_double_equal(n->arg.superlinear_unconfirmed.why, PMA_SUPERLIN_NOT_MEASURED, 0);
	/* the uncertainty grows away from the calibrated counts (issue 28) */
	for (size_t i = 1; i < 4; i++)
		assert_true(e.omega_err[i] > e.omega_err[i - 1]);
	pma_mem_eval_free(&e);
	free_traces(t, 2);
	run_m = 2;
}

/* m = 2 threads on 1..6 cores of a 6-core machine: from n = 2 the other cores idle and do not
 * contend (Tudor & Teo, "we consider them not to contend for memory"; issue 28): omega, its
 * uncertainty and the placement of n > 2 are those of n = 2, and busy says 2. With the idle cores
 * counted (the bug), omega(6) = 1/(alpha - 6 beta)/C(1) - 1 would be 0.45 / ... > omega(2). */
static void test_idle_cores(void **state)
{
	static const double C1[] = { 100, 102, 98 }, C2[] = { 110, 112, 108 };
	struct pma_trace *t = new_trace(6);
	struct pma_mem_eval e;

	(void)state;
	add_runs(t, 1, C1, 3, 1);
	add_runs(t, 2, C2, 3, 1);
	eval(t, 1, 6, &e);
	assert_double_equal(e.omega[1], 0.1, 1e-12);
	for (size_t i = 2; i < 6; i++) {
		assert_int_equal(e.busy[i], 2);
		assert_double_equal(e.omega[i], e.omega[1], 0);
		assert_double_equal(e.omega_err[i], e.omega_err[1], 0);
		assert_string_equal(e.per_socket[i], "{2}");
	}
	assert_int_equal(e.busy[0], 1);
	assert_int_equal(e.busy[1], 2);
	pma_mem_eval_free(&e);
	free_traces(t, 1);
}

/* One run per core count: no measured spread, so each C is taken to be known to PMA_MEM_C_REL_SD
 * (domega = 0.8 hypot(0.1, 0.1), never null: issue 28); a negative omega taken as 0 with the note
 * asking for --repeat. */
static void test_single_runs(void **state)
{
	static const double C1[] = { 100 }, C2[] = { 80 };
	struct pma_trace *t = cal_trace(C1, 1, C2, 1, 1);
	struct pma_mem_eval e;
	const struct pma_note *n;

	(void)state;
	eval(t, 1, 2, &e);
	assert_false(e.cal.repeated);
	assert_double_equal(e.omega_err[1], domega2(100, PMA_MEM_C_REL_SD * 100, 80,
						     PMA_MEM_C_REL_SD * 80), 1e-12);
	assert_double_equal(e.omega[1], 0, 0);
	assert_non_null(n = pma_notes_find(&e.notes, PMA_NOTE_OMEGA_NOISE));
	assert_true(isnan(n->arg.omega_noise.omega_err));
	pma_mem_eval_free(&e);
	free_traces(t, 1);
}

/* Runs of one configuration whose thread counts differ by a runtime's helper thread (both asked
 * for 2 threads: 7 on 1 CPU, 8 on 2, as Open MPI's singleton hybrid_workload under load) are both
 * calibration runs: omega(2) = 110/100 - 1 = 0.1; a run that asked for 2 and ran 1 (make -j4 with
 * nothing left to build) stays out with "other thread count". */
static void test_helper_thread(void **state)
{
	static const double C1[] = { 100 }, C2[] = { 110 }, C3[] = { 500 };
	struct pma_trace *t = new_trace(2);
	struct pma_mem_eval e;
	uint32_t saved = run_m;

	(void)state;
	run_m = 7;
	add_runs(t, 1, C1, 1, 1);
	run_m = 8;
	add_runs(t, 2, C2, 1, 1);
	run_m = 1;
	add_runs(t, 2, C3, 1, 1);
	for (uint32_t k = 0; k < t->nruns; k++)
		t->runs[k].info.threads = 2;
	run_m = 7;
	eval(t, 1, 2, &e);
	run_m = saved;
	assert_int_equal(e.cal.npts, 2);
	assert_double_equal(e.omega[1], 0.1, 1e-9);
	assert_non_null(pma_notes_find(&e.notes, PMA_NOTE_CAL_SKIPPED));
	pma_mem_eval_free(&e);
	free_traces(t, 1);
}

/* dS = S domega / (1 + omega) in quadrature: S 1.8 +- 0.03, omega 0.1 +- 0.05: dS = hypot(0.03,
 * 0.0818182) = 0.0871448; unchanged without domega. */
static void test_S_err(void **state)
{
	(void)state;
	assert_double_equal(pma_mem_S_err(1.8, 0.03, 0.1, 0.05), 0.0871447926, 1e-9);
	assert_double_equal(pma_mem_S_err(1.8, 0.03, 0.1, NAN), 0.03, 0);
	assert_double_equal(pma_mem_S_err(1.8, 0, 0, 0.05), 0.09, 1e-12);
}

/* pmcollect's stopping rule computes omega(2) and its standard error from the runs itself
 * (collector/session/calstop.c); on the same numbers it gives pmanalyze's omega_fit and omega_err: odd
 * and even repeats, a spread on one side only, identical repeats (the 1e-3 floor), cycles. */
static void test_collector_se_matches(void **state)
{
	static const struct { double C1[7], C2[7]; size_t K; int cycles; } cases[] = {
		{ { 104, 100, 98 }, { 95, 97, 99 }, 3, 0 },
		{ { 1.2e9, 1.38e9, 1.05e9, 1.21e9 }, { 1.3e9, 1.31e9, 1.29e9, 1.5e9 }, 4, 0 },
		{ { 100, 100, 100, 100, 100 }, { 120, 118, 125, 121, 119 }, 5, 1 },
		{ { 7, 7, 7 }, { 7, 7, 7 }, 3, 0 },
		{ { 3.1e9, 2.9e9, 3.0e9, 3.3e9, 2.7e9, 3.05e9, 2.95e9 },
		  { 3.6e9, 3.4e9, 3.9e9, 3.5e9, 3.45e9, 3.7e9, 3.55e9 }, 7, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pma_trace *t = cal_trace(cases[i].C1, cases[i].K, cases[i].C2, cases[i].K,
						cases[i].cycles);
		struct pma_mem_eval e;
		double w, dw;
		eval(t, 1, 2, &e);
		pmc_calstop_omega(cases[i].C1, cases[i].K, cases[i].C2, cases[i].K, &w, &dw);
		assert_double_equal(w, e.omega_fit[1], 1e-12);
		assert_double_equal(dw, e.omega_err[1], 1e-9 * e.omega_err[1]);
		pma_mem_eval_free(&e);
		free_traces(t, 1);
	}
}

/* Makes the runs of t windows of a running process, as pmcollect --calibrate -p --window records
 * them (RUN_END window ended at its duration, the process left running), of 1 s each, their CPU
 * time cpu_ns[k] (k the run's index) and, when ins is given, instructions ins[k] (cycles C.value
 * when the runs have cycles). */
static void make_windows(struct pma_trace *t, const double *cpu_ns, const double *ins)
{
	static char dur[] = "duration", left[] = "left";

	for (uint32_t k = 0; k < t->nruns; k++) {
		struct pma_run_info *ri = &t->runs[k].info;
		ri->exit_kind = PMA_EXIT_OTHER;
		ri->window_end = dur;
		ri->window_after = left;
		ri->window_length_ns = 1e9;
		ri->window_attached = 1;
		ri->role = t->runs[k].cpus_n == 1 ? PMA_ROLE_BASELINE : PMA_ROLE_CALIBRATION;
		ri->C.cpu_time_ns = cpu_ns[k];
		ri->C.instructions = ins ? ins[k] : NAN;
	}
}

/* A calibration in windows (docs/model.md "Windows"): three windows on 1 core and three on 2,
 * the 2-core ones with twice the CPU time (both cores busy) and 10% more cycles per instruction.
 * With instructions, C(n) = cycles / instructions x I_ref (the median of the 1-core windows'
 * instructions, 8e8): C(1) = 1e9, C(2) = 1.1e9, omega(2) = 0.10 to 1e-12, the note says "per
 * instruction" (choice 1, cycles) with I_ref; with CPU time alone (no cycles) the same omega from
 * CPU time per instruction (choice 2); without instructions no point, omega unknown, the note's
 * old wording (choice 0) and no omega-unknown note. */
static void test_windows_per_instruction(void **state)
{
	/* cycles 2 per ns of CPU time; 1.25 cycles per instruction on 1 core, 1.375 on 2 */
	static const double cyc1[] = { 1e9, 1.02e9, 0.98e9 }, cyc2[] = { 2e9, 2.04e9, 1.96e9 };
	const double cpu[] = { 5e8, 5.1e8, 4.9e8, 1e9, 1.02e9, 0.98e9 };
	const double ins[] = { 8e8, 8.16e8, 7.84e8, 2e9 / 1.375, 2.04e9 / 1.375, 1.96e9 / 1.375 };
	struct pma_mem_eval e;
	const struct pma_note *n;
	struct pma_trace *t;

	(void)state;
	for (int mode = 2; mode >= 0; mode--) {
		t = cal_trace(cyc1, 3, cyc2, 3, mode == 2);
		make_windows(t, cpu, mode ? ins : NULL);
		eval(t, 1, 2, &e);
		assert_int_equal(e.cal.nwin, 6);
		assert_non_null(n = pma_notes_find(&e.notes, PMA_NOTE_CAL_WINDOWS));
		assert_null(pma_notes_find(&e.notes, PMA_NOTE_OMEGA_UNKNOWN));
		if (mode == 0) {
			assert_int_equal(e.cal.npts, 0);
			assert_false(e.cal.per_instruction);
			assert_true(isnan(e.omega[1]));
			assert_int_equal(n->arg.cal_windows.per_instruction, 0);
			assert_string_equal(pma_mem_cal_source_name(&e.cal, 1), "none");
		} else {
			assert_int_equal(e.cal.npts, 6);
			assert_true(e.cal.per_instruction);
			assert_double_equal(e.cal.I_ref, 8e8, 0);
			assert_string_equal(e.cal.source, mode == 2 ? "cycles" : "cpu_time");
			assert_string_equal(pma_mem_cal_source_name(&e.cal, 1), mode == 2 ?
					    "cycles_per_instruction" : "cpu_time_per_instruction");
			assert_string_equal(pma_mem_cal_source_name(&e.cal, 0), mode == 2 ?
					    "cycles per instruction" : "CPU time per instruction");
			/* cycles: 1.25 per instruction x 8e8; CPU time: 0.625 ns x 8e8 */
			assert_double_equal(e.cal.params.C1, mode == 2 ? 1e9 : 5e8, 1e-3);
			assert_double_equal(e.omega[1], 0.1, 1e-12);
			assert_int_equal(n->arg.cal_windows.per_instruction, mode == 2 ? 1 : 2);
			assert_double_equal(n->arg.cal_windows.instructions_ref, 8e8, 0);
		}
		pma_mem_eval_free(&e);
		free_traces(t, 1);
	}
}

/* pma_mem_window_points: the median of the 1-core windows' instructions as I_ref (even count:
 * the mean of the middle two), cycles when all have them, else CPU time; -1 when a window lacks
 * instructions or its cost, or none ran on one core. */
static void test_window_points(void **state)
{
	struct pma_mem_window w[4] = {
		{ .cores = 1, .cpu_ns = 10, .cycles = 20, .instructions = 10 },
		{ .cores = 1, .cpu_ns = 10, .cycles = 20, .instructions = 30 },
		{ .cores = 2, .cpu_ns = 40, .cycles = 80, .instructions = 50 },
		{ .cores = 2, .cpu_ns = 40, .cycles = NAN, .instructions = 40 },
	};
	double C[4] = { -1, -1, -1, -1 }, I_ref = -1;
	int cyc = -1;

	(void)state;
	assert_int_equal(pma_mem_window_points(w, 3, C, &cyc, &I_ref), 0);
	assert_int_equal(cyc, 1);
	assert_double_equal(I_ref, 20, 0);
	assert_double_equal(C[0], 40, 1e-12);
	assert_double_equal(C[1], 20.0 / 30 * 20, 1e-12);
	assert_double_equal(C[2], 80.0 / 50 * 20, 1e-12);
	/* one window without cycles: CPU time per instruction for all */
	assert_int_equal(pma_mem_window_points(w, 4, C, &cyc, &I_ref), 0);
	assert_int_equal(cyc, 0);
	assert_double_equal(C[3], 40.0 / 40 * 20, 1e-12);
	w[3].instructions = 0;
	assert_int_equal(pma_mem_window_points(w, 4, C, &cyc, &I_ref), -1);
	w[3].instructions = NAN;
	assert_int_equal(pma_mem_window_points(w, 4, C, &cyc, &I_ref), -1);
	assert_int_equal(pma_mem_window_points(w + 2, 1, C, &cyc, &I_ref), -1); /* no 1-core window */
	w[3].instructions = 40;
	w[3].cpu_ns = NAN;
	assert_int_equal(pma_mem_window_points(w, 4, C, &cyc, &I_ref), -1); /* no cost */
	assert_int_equal(pma_mem_window_points(w, 0, C, &cyc, &I_ref), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_spread_and_noise),
		cmocka_unit_test(test_beyond_spread),
		cmocka_unit_test(test_idle_cores),
		cmocka_unit_test(test_overlap_not_superlinear),
		cmocka_unit_test(test_pooled_traces_and_extrapolated),
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_helper_thread),
		cmocka_unit_test(test_S_err),
		cmocka_unit_test(test_collector_se_matches),
		cmocka_unit_test(test_windows_per_instruction),
		cmocka_unit_test(test_window_points),
	};

	return cmocka_run_group_tests_name("contention", tests, NULL, NULL);
}
