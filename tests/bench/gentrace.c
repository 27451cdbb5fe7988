/* SPDX-License-Identifier: MIT */
/* gentrace.c: writes a large synthetic pmtrace for the analyzer benchmarks (make bench): THREADS
 * threads of one process on one CPU (an oversubscribed baseline) sampled every 10 ms for SECONDS
 * seconds, through the same writer as pmcollect (formats/pmt_writer.c, default zstd level and chunk size).
 *
 * The schedule is a round-robin CPU with 3 ms slices, so the run-queue values look like a real
 * baseline: every 2 s a 200 ms serial phase (thread 0 alone, the others blocked), otherwise all
 * threads runnable. Cumulative run and wait ns follow schedstat's rules (a wait is credited when the
 * thread next gets the CPU); stat fields every 16th sample per thread, status every 64th, as the
 * collector does. Truth: T_cp = serial time + parallel time / THREADS; printed on stdout as JSON.
 *
 * With a fourth argument "sched" the trace also holds the scheduler events of that schedule (pmtrace
 * 1.1 SCHED records on CPU 0): the fork of every thread at the start and a sched_switch at every
 * change of the running thread, for the exact mode and its timeline plot (make bench).
 *
 * usage: gentrace FILE THREADS SECONDS [sched | SEED] [KEY=VALUE...]
 *
 * With a SEED (issue 19's property test, tests/cli/t2700-invariants.sh) the trace is one of a
 * family drawn from it: slice 1-6 ms, serial phase 0-90% of a 0.2-2 s period, a recording machine
 * of 1-2 packages of 1-8 cores (1 or 2 NUMA nodes), a baseline on 1 CPU or several, a failed or
 * signalled exit now and then, late and lost samples in SUMMARY, and calibration runs (role
 * "calibration", 5 samples each) on 1 .. c+1 CPUs whose C(n) = C(1) (1 + omega) with omega drawn
 * from [-0.3, 0.6] (negative omega, falling C(n) and a second, inflated C(1) included), so that
 * the analyzer meets inputs that break the model's invariants. A long command (3000 bytes) now
 * and then checks that notes are never cut. A second stream drawn from the seed (so that the first
 * stream's draws, and the traces of earlier versions, stay as they were) adds sweep runs (role
 * "sweep", pmcollect --sweep) to one trace in five, for the scaling section.
 *
 * KEY=VALUE options make one degraded input on purpose (t2700's cases; they override the seed's
 * draws): interval_ms=X the sampling interval (default 10); requested_ms=X the interval asked
 * for, which pmcollect lengthened to interval_ms (RUN_END interval, format 1.2); late=N and lost=N
 * late and lost timer expirations (SUMMARY and the baseline's RUN_END); exit=N or signal=N how
 * the baseline ended; t=N pmcollect -t N (RUN_BEGIN threads, OMP_NUM_THREADS); cpus=N the
 * baseline on CPUs 0..N-1; other_runs=N calibration runs of one thread (pmcollect --calibrate of
 * make -j4, whose later runs have nothing left to rebuild); other_late=N gives the k-th of them
 * (from 0) N + 5k late and 10 lost of 100 samples (RUN_END); thread_sweep=S adds a thread
 * sweep on 2 CPUs (issue 29 item 7: pmcollect --sweep 'threads=4-8' --repeat 3), whose CPU time
 * has the medians 0.80 + 0.0275 (t - 4) s, a line, and the repetitions S ms apart around them
 * (0.4 S below, 0.6 S above: S = 440 is the busy machine, 0.62-1.17 s);
 * runs_S=F[:SPREAD] replaces the seed's calibration runs with 3 runs on 1 CPU and 3 on 2 CPUs
 * whose wall times measure S(2) = F times the truth (the schedule's own: 2 for a run shorter than
 * the period, which has no serial phase), each side's three at (1 - SPREAD, 1, 1 + SPREAD) times
 * its median, C(n) = C(1) (omega 0): the model misses its own runs by a known amount (t2720);
 * cal_wake_ms=X adds a calibration run on 2 CPUs with its own scheduler events (pmcollect
 * --calibrate --sched): the THREADS threads, forked by the main thread at its start, each run
 * CAL_WORK_MS once and exit, the main thread and then the even ones on CPU 0, the odd ones on
 * CPU 1, which stays idle for the first X ms: X ms of a CPU left unused while woken threads wait
 * (the runs breakdown's wake term, X / 2 ms of wall time on 2 CPUs; t2722). With 4 threads and X
 * over CAL_WORK_MS, CPU 0 also idles its last X - CAL_WORK_MS ms while thread 3 waits for CPU 1:
 * the wake term is then (2 X - CAL_WORK_MS) / 2 ms. cal_clock=R gives the baseline's and that
 * run's RUN_END C in cycles (PAPI_TOT_CYC), the baseline at 2 GHz and the run at 2 R GHz over
 * their CPU time: the runs breakdown's freq term is U(1) (1/R - 1) / 2 (t2722).
 * period_ms=X and serial_ms=Y set the schedule's period and its serial phase (at the period's
 * end); with either, the scheduler events block the other threads at a serial phase's start
 * (each runs for 1 ns and switches out with prev_state 'S') and thread 0 wakes them at its end
 * (sched_waking), and the running thread leaves the CPU at the end, so that the exact mode sees
 * the schedule's own A (t2830: period_ms=4000 serial_ms=2000 is 2 s of all threads, then 2 s of
 * thread 0 alone). window=S records the run as a window S s after the program's start (RUN_END
 * window, ended by the duration, the program terminated: SIGTERM).
 * cal_windows=W writes what pmcollect --calibrate -p PID --window SECONDS writes (three rounds,
 * --repeat's default): six windows of the running process 1000 (RUN_BEGIN window attached, RUN_END
 * exit kind running, window ended at its duration and the process left running), the baseline's
 * on 1 CPU (runs 0, 2, 4; run 0 the schedule above, the others all threads runnable) and the
 * calibration's on CPUs 0-1 (runs 1, 3, 5, both CPUs busy: twice the CPU time of a 1-CPU window,
 * which the CPU-time ratio would read as omega(2) = 1). Their RUN_END C has cycles at 2 per ns of
 * CPU time and instructions at 1.25 cycles per instruction on 1 CPU, 1.25 (1 + W) on 2: omega(2)
 * = W per instruction, by construction. win_counters=N sets what C holds: 2 cycles and
 * instructions (the default), 1 instructions and CPU time (pmcollect -e PAPI_TOT_INS), 0 neither
 * (no PMU: C is the CPU time, omega unknown).
 * cpi=Q1[:Q2:Q3:Q4] writes counter snapshots (COUNTERS records, what pmcollect writes of the
 * process tree's counters, or of a -p window's threads) of the baseline: cycles at 2 per ns of
 * CPU time (the one CPU is always busy, so 2 per ns of the run) and instructions at Qi cycles per
 * instruction in the i-th quarter of the run (one value: every quarter), both cumulative from the
 * run's start (in a window, with a snapshot of 0 at its start, as pmcollect -p writes); RUN_BEGIN
 * counters.events names them and RUN_END C gives their final values (source
 * cycles), so that the stationarity check reads C by quarter Q1..Q4 (t2831). snap_every=K writes
 * a snapshot every K-th sample (default 1); counted=c (cycles only: pmcollect -e PAPI_TOT_CYC) or
 * counted=i (instructions only, C the CPU time) leaves the other event out; snap_back=1 halves
 * the values of the snapshot at the run's middle (a count that goes back: a broken trace). */
#include "pmt.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the sampling interval (interval_ms=X sets it) */
static uint64_t interval_ns = 10000000ull;

/* the schedule (fixed without a seed) */
static uint64_t SLICE_NS = 3000000ull, PERIOD_NS = 2000000000ull, SERIAL_NS = 200000000ull;

/* cpi=: the cumulative instructions at t_ns ns after the run's start, the run of total_ns in
 * quarters at cpi[0..3] cycles per instruction and 2 cycles per ns */
static double instructions_at(const double *cpi, double total_ns, double t_ns)
{
	double q_ns = total_ns / 4, sum = 0;

	for (int i = 0; i < 4 && t_ns > i * q_ns; i++) {
		double in = t_ns < (i + 1) * q_ns ? t_ns - i * q_ns : q_ns;
		sum += 2 * in / cpi[i];
	}
	return sum;
}

/* xorshift64*: the seeded family */
static uint64_t rng_state;
static double rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}
static unsigned rnd_int(unsigned lo, unsigned hi) /* [lo, hi] */
{
	return lo + (unsigned)(rnd() * (hi - lo + 1));
}

/* the second stream (sweep runs) */
static uint64_t rng2_state;
static double rnd2(void)
{
	uint64_t keep = rng_state;
	double v;

	rng_state = rng2_state;
	v = rnd();
	rng2_state = rng_state;
	rng_state = keep;
	return v;
}

/* One run of `threads` threads all runnable for `samples` samples on `n` CPUs (ids from tid_base),
 * its RUN_BEGIN extra keys `begin_extra` (",\"k\":v..." or ""), role `role`, and RUN_END with
 * C(n) = C_ns. Returns 0 or a PMT_E_* code. */
/* extra keys of flat_run's RUN_END (",\"k\":v..." or ""): other_late=N's sampling counts */
static char flat_end_extra[512];

/* the wall time flat_run's RUN_END gives, when above 0 (runs_S=) */
static double flat_wall_ns;

/* flat_run's RUN_END exit object and, when not "", its "C" object instead of C_ns's CPU time
 * (cal_windows=) */
static const char *flat_exit = "{\"kind\":\"exited\",\"code\":0,\"signal\":0}";
static char flat_C[512];

/* flat_run's process when above 0 (cal_windows=: every window records process 1000, threads
 * 1000 + i), else 1000 + run_id with threads 1000 (run_id + 1) + i */
static unsigned flat_pid;

/* cal_windows=: the RUN_END "C" of a window of n CPUs with cpu_ns of CPU time, as pmcollect -p
 * writes it with counters (mode 2: cycles and instructions; 1: instructions and the CPU time; 0:
 * the CPU time alone): 2 cycles per ns, 1.25 cycles per instruction on 1 CPU and 1.25 (1 + W)
 * on more (omega(n) = W per instruction). */
static void window_C(char *buf, size_t size, double cpu_ns, unsigned n, double W, int mode)
{
	double cyc = 2 * cpu_ns, ins = cyc / (1.25 * (n == 1 ? 1 : 1 + W));
	char ins_keys[96] = "";

	if (mode)
		snprintf(ins_keys, sizeof(ins_keys), ",\"instructions\":%.17g,"
			 "\"instructions_event\":\"PAPI_TOT_INS\"", ins);
	if (mode == 2)
		snprintf(buf, size, "{\"source\":\"cycles\",\"event\":\"PAPI_TOT_CYC\",\"value\":%.17g,"
			 "\"unit\":\"cycles\",\"cpu_time_ns\":%.17g%s,\"stall_cycles\":null,"
			 "\"llc_misses\":null}", cyc, cpu_ns, ins_keys);
	else
		snprintf(buf, size, "{\"source\":\"cpu_time\",\"event\":\"schedstat\",\"value\":%.17g,"
			 "\"unit\":\"ns\",\"cpu_time_ns\":%.17g%s,\"stall_cycles\":null,"
			 "\"llc_misses\":null}", cpu_ns, cpu_ns, ins_keys);
}

static int flat_run(struct pmt_writer *w, unsigned run_id, const char *role, const char *begin_extra,
		    unsigned threads, unsigned n, unsigned samples, uint64_t *now, double C_ns)
{
	struct pmt_thread_sample *ts = calloc(threads, sizeof(*ts));
	unsigned pid = flat_pid ? flat_pid : 1000 + run_id;
	char json[2048], cpus[32];
	uint64_t t0 = *now;
	int err;

	if (!ts)
		return PMT_E_NOMEM;
	if (n > 1)
		snprintf(cpus, sizeof(cpus), "0-%u", n - 1);
	else
		snprintf(cpus, sizeof(cpus), "0");
	snprintf(json, sizeof(json), "{\"run_id\":%u,\"role\":\"%s\",\"pid\":%u,\"cpus\":\"%s\","
		 "\"interval_ms\":%g%s}", run_id, role, pid, cpus, interval_ns / 1e6, begin_extra);
	err = pmt_writer_json(w, PMT_REC_RUN_BEGIN, run_id, *now, json);
	for (unsigned k = 1; k <= samples && err >= 0; k++) {
		*now += interval_ns;
		for (unsigned i = 0; i < threads; i++) {
			ts[i].tid = flat_pid ? flat_pid + i : 1000 * (run_id + 1) + i;
			ts[i].tgid = pid;
			ts[i].run_ns = k * interval_ns * (n < threads ? n : threads) / threads;
			ts[i].wait_ns = k * interval_ns - ts[i].run_ns;
			ts[i].timeslices = k;
			ts[i].flags = PMT_TS_SCHEDSTAT_OK;
		}
		struct pmt_sample smp = { .run_id = run_id, .t_ns = *now, .duration_ns = 100000,
					  .n = threads, .threads = ts };
		err = pmt_writer_sample(w, &smp);
	}
	if (!flat_C[0])
		snprintf(flat_C, sizeof(flat_C), "{\"source\":\"cpu_time\",\"value\":%.0f,"
			 "\"cpu_time_ns\":%.0f}", C_ns, C_ns);
	snprintf(json, sizeof(json), "{\"run_id\":%u,\"pid\":%u,\"exit\":%s,\"wall_ns\":%llu,"
		 "\"C\":%s%s}", run_id, pid, flat_exit,
		 flat_wall_ns > 0 ? (unsigned long long)flat_wall_ns : (unsigned long long)(*now - t0),
		 flat_C, flat_end_extra);
	flat_C[0] = '\0';
	if (err >= 0)
		err = pmt_writer_json(w, PMT_REC_RUN_END, run_id, *now, json);
	free(ts);
	return err < 0 ? err : 0;
}

/* Seeded mode: calibration runs after the baseline, each of `threads` threads all runnable for 5
 * samples on `n` CPUs, its RUN_END carrying C(n). Returns 0 or a PMT_E_* code. */
static int calibration_runs(struct pmt_writer *w, unsigned threads, unsigned c, unsigned pus,
			    uint64_t *now, double C1_ns, unsigned *nruns_out)
{
	unsigned nruns = rnd_int(1, 4);
	int err = 0;

	for (unsigned r = 1; r <= nruns && !err; r++) {
		/* the first is on 1 CPU; then 1 again (an inflated C(1)), c, c + 1 or anything */
		unsigned n = r == 1 ? 1 : rnd() < 0.25 ? 1 : rnd() < 0.5 ? c : rnd_int(1, pus);
		double omega = n == 1 ? (r == 1 ? 0 : rnd() * 0.4) : -0.3 + rnd() * 0.9;
		err = flat_run(w, r, "calibration", "", threads, n, 5, now, C1_ns * (1 + omega));
	}
	*nruns_out = nruns;
	return err;
}

struct sim {
	uint64_t run_ns, wait_ns, slices, queued_at;
	uint32_t nvcsw, nivcsw;
	int runnable;
};

/* Scheduler events waiting to be written, one batch of CPU 0 at a time. */
static struct pmt_sched_event sched_buf[4096];
static uint32_t sched_n;

static int sched_flush(struct pmt_writer *w)
{
	struct pmt_sched_batch b = { .run_id = 0, .cpu = 0, .n = sched_n, .events = sched_buf };
	int err = sched_n ? pmt_writer_sched(w, &b) : 0;

	sched_n = 0;
	return err;
}

static int sched_event(struct pmt_writer *w, uint64_t t_ns, uint8_t kind, uint32_t common_pid,
		       uint32_t a, uint32_t b, uint32_t c)
{
	sched_buf[sched_n++] = (struct pmt_sched_event){ .t_ns = t_ns, .kind = kind,
		.common_pid = common_pid, .a = a, .b = b, .c = c };
	return sched_n == sizeof(sched_buf) / sizeof(sched_buf[0]) ? sched_flush(w) : 0;
}

/* cal_wake_ms=X's run (see the top): run_id id from *now, which it advances to its end. */
#define CAL_WORK_MS 20
static int cal_wake_run(struct pmt_writer *w, unsigned id, unsigned threads, double X_ms,
			double clock_ghz, uint64_t *now)
{
	struct pmt_sched_event *ev = calloc(2 * (size_t)threads + 2, sizeof(*ev));
	uint32_t root = 1000 + id, n0 = 0, n1 = 0;
	uint64_t t0 = *now, D = CAL_WORK_MS * 1000000ull, X = (uint64_t)(X_ms * 1e6), t;
	char json[512];
	int err;

	if (!ev)
		return PMT_E_NOMEM;
	snprintf(json, sizeof(json), "{\"run_id\":%u,\"role\":\"calibration\",\"pid\":%u,"
		 "\"cpus\":\"0-1\",\"interval_ms\":%g}", id, root, interval_ns / 1e6);
	err = pmt_writer_json(w, PMT_REC_RUN_BEGIN, id, t0, json);
	/* CPU 0: the forks, then the main thread and the even threads in turn, each to its exit */
	for (unsigned i = 1; i < threads; i++)
		ev[n0++] = (struct pmt_sched_event){ .t_ns = t0, .kind = PMT_SCHED_FORK,
			.common_pid = root, .a = root * 10 + i };
	t = t0;
	for (unsigned i = 0; i < threads; i += 2, t += D) {
		uint32_t me = i ? root * 10 + i : root, next = i + 2 < threads ? root * 10 + i + 2 : 0;
		ev[n0++] = (struct pmt_sched_event){ .t_ns = t + D, .kind = PMT_SCHED_SWITCH,
			.common_pid = me, .a = me, .b = next, .c = 'X' };
	}
	/* CPU 1: idle for X, then the odd threads in turn */
	struct pmt_sched_event *e1 = ev + n0;
	t = t0 + X;
	e1[n1++] = (struct pmt_sched_event){ .t_ns = t, .kind = PMT_SCHED_SWITCH, .cpu = 1,
		.a = 0, .b = root * 10 + 1, .c = 'R' };
	for (unsigned i = 1; i < threads; i += 2, t += D) {
		uint32_t me = root * 10 + i, next = i + 2 < threads ? root * 10 + i + 2 : 0;
		e1[n1++] = (struct pmt_sched_event){ .t_ns = t + D, .kind = PMT_SCHED_SWITCH, .cpu = 1,
			.common_pid = me, .a = me, .b = next, .c = 'X' };
	}
	if (err >= 0) {
		struct pmt_sched_batch b0 = { .run_id = id, .cpu = 0, .n = n0, .events = ev };
		struct pmt_sched_batch b1 = { .run_id = id, .cpu = 1, .n = n1, .events = e1 };
		err = pmt_writer_sched(w, &b0);
		if (err >= 0)
			err = pmt_writer_sched(w, &b1);
	}
	*now = t > t0 + (threads + 1) / 2 * D ? t : t0 + (threads + 1) / 2 * D;
	snprintf(json, sizeof(json), "{\"run_id\":%u,\"pid\":%u,\"exit\":{\"kind\":\"exited\","
		 "\"code\":0,\"signal\":0},\"wall_ns\":%llu,\"C\":{\"source\":\"%s\","
		 "\"value\":%.0f,\"cpu_time_ns\":%llu}}", id, root, (unsigned long long)(*now - t0),
		 clock_ghz > 0 ? "cycles" : "cpu_time",
		 (double)(threads * D) * (clock_ghz > 0 ? clock_ghz : 1), (unsigned long long)(threads * D));
	if (err >= 0)
		err = pmt_writer_json(w, PMT_REC_RUN_END, id, *now, json);
	free(ev);
	return err < 0 ? err : 0;
}

/* The start of a serial phase in the scheduler events (period_ms= or serial_ms=): every other
 * thread that is runnable runs for a moment (1 ns, at most threads ns in all) and blocks
 * (prev_state 'S'), then thread 0 runs; the phase's end wakes them (sched_waking). */
static int block_others(struct pmt_writer *w, uint64_t now, unsigned threads, const struct sim *th,
			unsigned *running)
{
	unsigned first = *running; /* the running thread blocks first (when it is not thread 0) */
	uint64_t t = now;
	int err = 0;

	for (unsigned i = 1; i < threads && err == 0; i++) {
		if (i == first || !th[i].runnable)
			continue;
		err = sched_event(w, t++, PMT_SCHED_SWITCH, 1000 + *running, 1000 + *running, 1000 + i,
				  *running ? 'S' : 'R');
		*running = i;
	}
	if (err == 0 && *running != 0)
		err = sched_event(w, t, PMT_SCHED_SWITCH, 1000 + *running, 1000 + *running, 1000, 'S');
	*running = 0;
	return err;
}

/* cal_windows=: RUN_BEGIN's keys of a window of pmcollect --calibrate -p 1000 --window (rep,
 * the process's age in ns, the window's duration in ns) and RUN_END's (duration, process age,
 * length, the window's CPUs and threads moved there and back), as pmcollect writes them (copied
 * from a trace of pmcollect --calibrate -p PID --window 0.5; FORMAT.md RUN_BEGIN, RUN_END) */
#define CAL_WINDOW_BEGIN ",\"rep\":%u,\"nrep\":3,\"window\":{\"delay_ns\":%.0f,\"attached\":[1000]," \
	"\"duration_ns\":%.0f},\"counters\":{\"events\":[]}"
#define CAL_WINDOW_END ",\"window\":{\"delay_ns\":0,\"duration_ns\":%.0f,\"offset_ns\":%.0f," \
	"\"length_ns\":%.0f,\"end\":\"duration\",\"after\":\"left\",\"affinity\":{\"cpus\":\"%s\"," \
	"\"moved\":%u,\"restored\":%u,\"kept\":0,\"gone\":0}}"

static int fail(const char *what, int err)
{
	fprintf(stderr, "gentrace: %s: %s\n", what, pmt_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct pmt_writer *w;
	struct pmt_thread_sample *out;
	struct sim *th;
	uint64_t now = 1000000000ull, end, next_sample, par_ns = 0, ser_ns = 0, t0;
	unsigned threads, cur = 0, running = 0;
	uint64_t slice_left = 0; /* what is left of the running thread's slice at a sampling instant */
	int was_serial = 0;
	int sched = 0, seeded = 0;
	unsigned long long seed = 0;
	double seconds;
	char json[2048], *json_big, env[64] = "{}", begin_extra[512] = "", end_extra[512] = "";
	char C0[512];
	int fd, err;

	unsigned packages = 1, cores = 2, numa = 1, base_cpus = 1, runs = 1, nsweep = 0, next_id = 1;
	const char *exit_kind = "exited";
	int exit_code = 0, exit_signal = 0;
	double late = 0, lost = 0;
	char *cmdpad;
	/* KEY=VALUE options; -1 (or 0 for the counts) when not given */
	double o_interval = -1, o_requested = -1, o_late = -1, o_lost = -1;
	int o_exit = -1, o_signal = -1, o_t = 0, o_cpus = 0, o_other = 0;
	double o_other_late = -1, o_sweep_ms = -1, o_runs_F = -1, o_runs_spread = 0, o_cal_wake = -1;
	double o_cal_clock = -1;
	double o_period_ms = -1, o_serial_ms = -1, o_window_s = -1, o_calwin = -1;
	int o_wincnt = 2;
	double o_cpi[4] = { -1, -1, -1, -1 };
	unsigned o_snap_every = 1;
	int o_counted = 3; /* bit 0 cycles, bit 1 instructions */
	int o_snap_back = 0;
	int blocking = 0;

	if (argc < 4 || (threads = (unsigned)atoi(argv[2])) < 2 || threads > 4096 ||
	    (seconds = atof(argv[3])) <= 0)
		goto usage;
	for (int a = 4; a < argc; a++) {
		const char *arg = argv[a], *eq = strchr(arg, '=');
		double v = eq ? atof(eq + 1) : 0;
		if (strcmp(arg, "sched") == 0) {
			sched = 1;
		} else if (!eq && arg[0] >= '0' && arg[0] <= '9') {
			seeded = 1;
			seed = strtoull(arg, NULL, 10);
		} else if (!eq || v < 0) {
			goto usage;
		} else if (!strncmp(arg, "interval_ms=", 12) && v > 0) {
			o_interval = v;
		} else if (!strncmp(arg, "requested_ms=", 13) && v > 0) {
			o_requested = v;
		} else if (!strncmp(arg, "late=", 5)) {
			o_late = v;
		} else if (!strncmp(arg, "lost=", 5)) {
			o_lost = v;
		} else if (!strncmp(arg, "exit=", 5)) {
			o_exit = (int)v;
		} else if (!strncmp(arg, "signal=", 7)) {
			o_signal = (int)v;
		} else if (!strncmp(arg, "t=", 2)) {
			o_t = (int)v;
		} else if (!strncmp(arg, "cpus=", 5)) {
			o_cpus = (int)v;
		} else if (!strncmp(arg, "other_runs=", 11)) {
			o_other = (int)v;
		} else if (!strncmp(arg, "other_late=", 11)) {
			o_other_late = v;
		} else if (!strncmp(arg, "thread_sweep=", 13)) {
			o_sweep_ms = v;
		} else if (!strncmp(arg, "cal_wake_ms=", 12)) {
			o_cal_wake = v;
		} else if (!strncmp(arg, "cal_clock=", 10) && v > 0) {
			o_cal_clock = v;
		} else if (!strncmp(arg, "period_ms=", 10) && v > 0) {
			o_period_ms = v;
		} else if (!strncmp(arg, "serial_ms=", 10)) {
			o_serial_ms = v;
		} else if (!strncmp(arg, "window=", 7)) {
			o_window_s = v;
		} else if (!strncmp(arg, "cal_windows=", 12)) {
			o_calwin = v;
		} else if (!strncmp(arg, "cpi=", 4) && v > 0) {
			const char *c = eq + 1;
			for (int q = 0; q < 4; q++) {
				o_cpi[q] = atof(c);
				if (!(o_cpi[q] > 0))
					goto usage;
				if (strchr(c, ':'))
					c = strchr(c, ':') + 1;
			}
		} else if (!strncmp(arg, "snap_every=", 11) && v >= 1) {
			o_snap_every = (unsigned)v;
		} else if (!strncmp(arg, "snap_back=", 10)) {
			o_snap_back = v > 0;
		} else if (!strncmp(arg, "counted=", 8)) {
			o_counted = !strcmp(eq + 1, "c") ? 1 : !strcmp(eq + 1, "i") ? 2 : 0;
			if (!o_counted)
				goto usage;
		} else if (!strncmp(arg, "win_counters=", 13) && v <= 2) {
			o_wincnt = (int)v;
		} else if (!strncmp(arg, "runs_S=", 7) && v > 0) {
			const char *colon = strchr(arg, ':');
			o_runs_F = v;
			o_runs_spread = colon ? atof(colon + 1) : 0;
			if (o_runs_spread < 0 || o_runs_spread >= 1)
				goto usage;
		} else {
			goto usage;
		}
	}
	cmdpad = calloc(3001, 1);
	if (!cmdpad)
		return fail("calloc", PMT_E_NOMEM);
	if (seeded) {
		rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
		rng2_state = seed * 0xbf58476d1ce4e5b9ull + 7;
		SLICE_NS = rnd_int(1, 6) * 1000000ull;
		PERIOD_NS = rnd_int(2, 20) * 100000000ull;
		SERIAL_NS = (uint64_t)(rnd() * 0.9 * (double)PERIOD_NS) / SLICE_NS * SLICE_NS + SLICE_NS;
		packages = rnd_int(1, 2);
		cores = packages * (1u << rnd_int(0, 3));
		numa = packages > 1 && rnd() < 0.5 ? 2 : 1;
		base_cpus = rnd() < 0.6 ? 1 : rnd_int(1, cores);
		if (rnd() < 0.1) {
			exit_code = 3;
		} else if (rnd() < 0.1) {
			exit_kind = "signaled";
			exit_signal = 11;
		}
		late = rnd() < 0.3 ? rnd() * seconds * 100 : 0;
		lost = rnd() < 0.3 ? rnd() * seconds * 10 : 0;
		if (rnd() < 0.05)
			memset(cmdpad, 'x', 3000);
		/* the second stream: sweep runs (and the baseline's -t) in one trace in five */
		if (rnd2() < 0.2) {
			nsweep = 2 + (unsigned)(rnd2() * 3);
			o_t = o_t ? o_t : (int)threads;
		}
	}
	if (o_interval > 0)
		interval_ns = (uint64_t)(o_interval * 1e6);
	if (o_period_ms > 0 || o_serial_ms >= 0) {
		/* the schedule asked for: its serial phases block the others in the scheduler events */
		if (o_period_ms > 0)
			PERIOD_NS = (uint64_t)(o_period_ms * 1e6);
		if (o_serial_ms >= 0)
			SERIAL_NS = (uint64_t)(o_serial_ms * 1e6);
		if (SERIAL_NS > PERIOD_NS)
			goto usage;
		blocking = 1;
	}
	if (o_window_s >= 0) {
		size_t o = strlen(end_extra);
		snprintf(end_extra + o, sizeof(end_extra) - o, ",\"window\":{\"offset_ns\":%.0f,"
			 "\"length_ns\":%.0f,\"end\":\"duration\",\"after\":\"terminated\"}",
			 o_window_s * 1e9, seconds * 1e9);
		exit_kind = "signaled";
		exit_code = 0;
		exit_signal = 15;
	}
	if (o_late >= 0)
		late = o_late;
	if (o_lost >= 0)
		lost = o_lost;
	if (o_exit >= 0) {
		exit_kind = "exited";
		exit_code = o_exit;
		exit_signal = 0;
	}
	if (o_signal >= 0) {
		exit_kind = "signaled";
		exit_code = 0;
		exit_signal = o_signal;
	}
	if (o_cpus > 0)
		base_cpus = (unsigned)o_cpus;
	if (o_t > 0) {
		snprintf(env, sizeof(env), "{\"OMP_NUM_THREADS\":\"%d\"}", o_t);
		snprintf(begin_extra, sizeof(begin_extra), ",\"threads\":%d", o_t);
	}
	if (o_calwin >= 0) {
		/* the first round's 1-CPU window of process 1000, 10 s after its start */
		size_t o = strlen(begin_extra);
		snprintf(begin_extra + o, sizeof(begin_extra) - o, CAL_WINDOW_BEGIN, 0u, 10e9, seconds * 1e9);
		o = strlen(end_extra);
		snprintf(end_extra + o, sizeof(end_extra) - o, CAL_WINDOW_END, seconds * 1e9, 10e9,
			 seconds * 1e9, "0", threads, threads);
		exit_kind = "running";
		exit_code = exit_signal = 0;
	}
	if (o_cpi[0] > 0) {
		size_t o = strlen(begin_extra);
		snprintf(begin_extra + o, sizeof(begin_extra) - o, ",\"counters\":{\"events\":[%s%s%s]}",
			 o_counted & 1 ? "\"PAPI_TOT_CYC\"" : "", o_counted == 3 ? "," : "",
			 o_counted & 2 ? "\"PAPI_TOT_INS\"" : "");
	}
	json_big = malloc(8192);
	if (!json_big)
		return fail("malloc", PMT_E_NOMEM);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	snprintf(json_big, 8192,
		 "{\"format\":\"pmtrace\",\"format_version\":\"1.0\",\"tool\":\"gentrace\","
		 "\"tool_version\":\"0.1.0\",\"command\":[\"synthetic\",\"%u threads\",\"%g s\"%s%s%s],"
		 "\"env\":%s,\"hostname\":\"synthetic\",\"interval_ms\":%g,\"cpus\":\"0\","
		 "\"online_cpus\":\"0-%u\",\"topology\":{\"packages\":%u,\"cores\":%u,\"pus\":%u,"
		 "\"numa_nodes\":%u},\"sources\":{\"schedstat\":{\"recorded\":true}}}",
		 threads, seconds, cmdpad[0] ? ",\"" : "", cmdpad, cmdpad[0] ? "\"" : "", env,
		 o_requested > 0 ? o_requested : interval_ns / 1e6, cores - 1, packages, cores, cores,
		 numa);
	if ((err = pmt_writer_open(&w, fd, json_big, NULL)) < 0)
		return fail("open", err);
	th = calloc(threads, sizeof(*th));
	out = calloc(threads, sizeof(*out));
	if (!th || !out)
		return fail("calloc", PMT_E_NOMEM);
	t0 = now;
	snprintf(json, sizeof(json), "{\"run_id\":0,\"role\":\"baseline\",\"pid\":1000,\"cpus\":\"0%s%.0u\","
		 "\"interval_ms\":%g%s}", base_cpus > 1 ? "-" : "", base_cpus > 1 ? base_cpus - 1 : 0,
		 o_requested > 0 ? o_requested : interval_ns / 1e6, begin_extra);
	if ((err = pmt_writer_json(w, PMT_REC_RUN_BEGIN, 0, now, json)) < 0)
		return fail("run_begin", err);
	if (o_cpi[0] > 0 && o_window_s >= 0) {
		/* cpi= in a window: the snapshot of 0 at its start, as pmcollect -p writes it */
		int64_t v0[2] = { 0, 0 };
		struct pmt_counters c0 = { 0, now, o_counted == 3 ? 2 : 1, v0 };
		if ((err = pmt_writer_counters(w, &c0)) < 0)
			return fail("counters", err);
	}
	end = now + (uint64_t)(seconds * 1e9);
	next_sample = now + interval_ns;
	for (unsigned i = 0; i < threads; i++) {
		th[i].runnable = 1;
		th[i].queued_at = now;
		if (sched && i > 0 && (err = sched_event(w, now, PMT_SCHED_FORK, 1000, 1000 + i, 0, 0)) < 0)
			return fail("sched", err);
	}
	for (uint64_t seq = 0; now < end; seq++) {
		/* run slices until the sampling instant */
		while (now < next_sample) {
			uint64_t phase = (now - t0) % PERIOD_NS, ran;
			int serial = phase >= PERIOD_NS - SERIAL_NS;
			unsigned tries = 0;
			/* a slice cut by a sampling instant goes on after it: a sample does not
			 * preempt (at an interval under the slice, every thread still gets its turn) */
			uint64_t slice = slice_left && serial == was_serial ? slice_left : SLICE_NS;
			int fresh = slice == SLICE_NS;

			if (serial) {
				if (sched && blocking && !was_serial &&
				    (err = block_others(w, now, threads, th, &running)) < 0)
					return fail("sched", err);
				for (unsigned i = 1; i < threads; i++)
					if (th[i].runnable) {
						th[i].runnable = 0;
						th[i].nvcsw++;
					}
				cur = 0;
				if (PERIOD_NS - phase < slice)
					slice = PERIOD_NS - phase;
			} else {
				for (unsigned i = 1; i < threads; i++)
					if (!th[i].runnable) {
						/* thread 0 wakes them (sched_waking on CPU 0) */
						if (sched && blocking &&
						    (err = sched_event(w, now, PMT_SCHED_WAKING, 1000 + running,
								       1000 + i, 0, 0)) < 0)
							return fail("sched", err);
						th[i].runnable = 1;
						th[i].queued_at = now;
					}
				if (PERIOD_NS - SERIAL_NS - phase < slice)
					slice = PERIOD_NS - SERIAL_NS - phase;
				while (!th[cur].runnable && tries++ < threads)
					cur = (cur + 1) % threads;
			}
			ran = next_sample - now < slice ? next_sample - now : slice;
			if (sched && cur != running) {
				if ((err = sched_event(w, now, PMT_SCHED_SWITCH, 1000 + running, 1000 + running,
						       1000 + cur, 'R')) < 0)
					return fail("sched", err);
				running = cur;
			}
			th[cur].wait_ns += now - th[cur].queued_at;
			th[cur].run_ns += ran;
			th[cur].slices += fresh;
			now += ran;
			was_serial = serial;
			slice_left = ran == slice ? 0 : slice - ran;
			th[cur].queued_at = now;
			if (serial)
				ser_ns += ran;
			else
				par_ns += ran;
			if (ran == slice && !serial) {
				th[cur].nivcsw++;
				cur = (cur + 1) % threads;
			}
		}
		for (unsigned i = 0; i < threads; i++) {
			struct pmt_thread_sample *o = &out[i];
			/* a queued thread's wait is credited when it runs, as schedstat does */
			o->tid = 1000 + i;
			o->tgid = 1000;
			o->run_ns = th[i].run_ns;
			o->wait_ns = th[i].wait_ns;
			o->timeslices = th[i].slices;
			o->flags = PMT_TS_SCHEDSTAT_OK;
			if ((seq + i) % 16 == 0) {
				o->flags |= PMT_TS_STAT_FRESH;
				o->cpu = 0;
				o->state = th[i].runnable ? 'R' : 'S';
			}
			if ((seq + i) % 64 == 0) {
				o->flags |= PMT_TS_STATUS_FRESH;
				o->nvcsw = th[i].nvcsw;
				o->nivcsw = th[i].nivcsw;
			}
		}
		{
			struct pmt_sample s = { .run_id = 0, .t_ns = now, .duration_ns = 150000,
						.n = threads, .threads = out };
			if ((err = pmt_writer_sample(w, &s)) < 0)
				return fail("sample", err);
		}
		if (o_cpi[0] > 0 && (seq + 1) % o_snap_every == 0) {
			/* cpi=: the counters read after the sample, as pmcollect's take_sample does */
			double run_ns = (double)(now - t0);
			int64_t v[2];
			uint32_t nv = 0;
			struct pmt_counters c = { 0, now, 0, v };
			if (o_counted & 1)
				v[nv++] = (int64_t)(2 * run_ns);
			if (o_counted & 2)
				v[nv++] = (int64_t)(instructions_at(o_cpi, seconds * 1e9, run_ns) + 0.5);
			c.n = nv;
			if (o_snap_back && now - t0 >= (end - t0) / 2 && now - t0 < (end - t0) / 2 + interval_ns)
				for (uint32_t i = 0; i < nv; i++)
					v[i] /= 2;
			if ((err = pmt_writer_counters(w, &c)) < 0)
				return fail("counters", err);
		}
		next_sample += interval_ns;
	}
	/* the baseline's own sampling counts and kept interval (RUN_END, format 1.2) when asked for */
	if (o_late >= 0 || o_lost >= 0 || o_requested > 0)
		snprintf(end_extra, sizeof(end_extra), ",\"samples\":%llu,\"late_samples\":%.0f,"
			 "\"lost_samples\":%.0f", (unsigned long long)((now - t0) / interval_ns), late, lost);
	if (o_requested > 0) {
		size_t o = strlen(end_extra);
		snprintf(end_extra + o, sizeof(end_extra) - o, ",\"interval\":{\"requested_ms\":%g,"
			 "\"final_ms\":%g,\"changes\":1,\"first_change_s\":0}", o_requested,
			 interval_ns / 1e6);
	}
	if (o_calwin >= 0) {
		window_C(C0, sizeof(C0), (double)(ser_ns + par_ns), 1, o_calwin, o_wincnt);
	} else if (o_cpi[0] > 0) { /* cpi=: the final counts */
		double cpu = (double)(ser_ns + par_ns);
		char ins[160] = "";
		if (o_counted & 2)
			snprintf(ins, sizeof(ins), ",\"instructions\":%.0f,\"instructions_event\":"
				 "\"PAPI_TOT_INS\"", (double)(int64_t)(instructions_at(o_cpi, seconds * 1e9, (double)(now - t0)) + 0.5));
		if (o_counted & 1)
			snprintf(C0, sizeof(C0), "{\"source\":\"cycles\",\"event\":\"PAPI_TOT_CYC\","
				 "\"value\":%.0f,\"unit\":\"cycles\",\"cpu_time_ns\":%.0f%s}", 2 * cpu, cpu, ins);
		else
			snprintf(C0, sizeof(C0), "{\"source\":\"cpu_time\",\"event\":\"schedstat\","
				 "\"value\":%.0f,\"unit\":\"ns\",\"cpu_time_ns\":%.0f%s}", cpu, cpu, ins);
	} else /* cal_clock=R: the baseline's cycles at 2 GHz */
		snprintf(C0, sizeof(C0), "{\"source\":\"%s\",\"value\":%.0f,\"cpu_time_ns\":%llu}",
			 o_cal_clock > 0 ? "cycles" : "cpu_time",
			 (double)(ser_ns + par_ns) * (o_cal_clock > 0 ? 2.0 : 1.0),
			 (unsigned long long)(ser_ns + par_ns));
	snprintf(json, sizeof(json), "{\"run_id\":0,\"pid\":1000,\"exit\":{\"kind\":\"%s\","
		 "\"code\":%d,\"signal\":%d},\"wall_ns\":%llu,\"C\":%s%s}", exit_kind, exit_code,
		 exit_signal, (unsigned long long)(now - t0), C0, end_extra);
	/* the recording's end: the running thread leaves the CPU (its last slice ends there) */
	if (sched && blocking &&
	    (err = sched_event(w, now, PMT_SCHED_SWITCH, 1000 + running, 1000 + running, 0, 'S')) < 0)
		return fail("sched", err);
	if (sched && (err = sched_flush(w)) < 0)
		return fail("sched", err);
	if ((err = pmt_writer_json(w, PMT_REC_RUN_END, 0, now, json)) < 0)
		return fail("run_end", err);
	if (o_calwin >= 0) {
		/* the other windows, each as long as the first: 2 CPUs, 1 CPU, 2, 1, 2 */
		unsigned samples = (unsigned)((now - t0) / interval_ns);
		double len_ns = (double)samples * (double)interval_ns;
		flat_pid = 1000;
		flat_exit = "{\"kind\":\"running\",\"code\":0,\"signal\":0}";
		err = 0;
		for (unsigned k = 1; k < 6 && !err; k++) {
			unsigned n = k % 2 ? 2 : 1;
			double age_ns = 10e9 + (double)(now - t0);
			char extra[512];
			snprintf(extra, sizeof(extra), CAL_WINDOW_BEGIN, k / 2, age_ns, len_ns);
			snprintf(flat_end_extra, sizeof(flat_end_extra), CAL_WINDOW_END, len_ns, age_ns, len_ns,
				 n == 1 ? "0" : "0-1", threads, threads);
			window_C(flat_C, sizeof(flat_C), len_ns * n, n, o_calwin, o_wincnt);
			err = flat_run(w, k, n == 1 ? "baseline" : "calibration", extra, threads, n, samples,
				       &now, 0);
		}
		flat_pid = 0;
		flat_end_extra[0] = '\0';
		if (err < 0)
			return fail("cal_windows", err);
		runs = 6;
		next_id = 6;
	} else if (o_runs_F > 0) {
		/* 3 runs on 1 CPU at the baseline's wall time, 3 on 2 at T(1) / (F S_true(2)) */
		double T1 = (double)(now - t0), S2 = PERIOD_NS - SERIAL_NS >= now - t0 ? 2 : -1;
		if (S2 < 0) {
			fprintf(stderr, "gentrace: runs_S= needs a run shorter than its period\n");
			return 2;
		}
		for (unsigned k = 0; k < 6 && !err; k++) {
			unsigned n = k < 3 ? 1 : 2;
			flat_wall_ns = (n == 1 ? T1 : T1 / (o_runs_F * S2)) *
				       (1 + o_runs_spread * ((double)(k % 3) - 1));
			err = flat_run(w, 1 + k, "calibration", "", threads, n, 5, &now,
				       (double)(ser_ns + par_ns));
		}
		flat_wall_ns = 0;
		if (err < 0)
			return fail("runs_S", err);
		runs = 7;
		next_id = 7;
	} else if (seeded || sched) {
		unsigned ncal;
		if ((err = calibration_runs(w, threads, cores / packages, cores, &now,
					    (double)(ser_ns + par_ns), &ncal)) < 0)
			return fail("calibration", err);
		runs = 5;
		next_id = ncal + 1;
		/* sweep runs: configuration k on 1, 2, c, ... CPUs with the baseline's threads */
		for (unsigned k = 0; k < nsweep && !err; k++) {
			unsigned n = k == 0 ? 1 : k == 1 ? 2 : cores, id = ncal + 1 + k;
			next_id = id + 1;
			char extra[128];
			if (n > cores)
				n = cores;
			snprintf(extra, sizeof(extra), ",\"threads\":%u,\"sweep\":{\"config\":%u,"
				 "\"cores\":%u,\"threads\":%u}", threads, k, n, threads);
			err = flat_run(w, id, "sweep", extra, threads, n, 5 + 5 / n, &now,
				       (double)(ser_ns + par_ns) * (1 + 0.05 * (n - 1)));
		}
		if (err < 0)
			return fail("sweep", err);
	}
	/* calibration runs of one thread: a make -j4 whose later runs had nothing to rebuild */
	for (int k = 0; k < o_other; k++) {
		/* other_late=N: the k-th such run says N + 5k late and 10 lost of 100 samples */
		if (o_other_late >= 0)
			snprintf(flat_end_extra, sizeof(flat_end_extra), ",\"samples\":100,"
				 "\"late_samples\":%.0f,\"lost_samples\":10", o_other_late + 5 * k);
		if ((err = flat_run(w, next_id++, "calibration", "", 1, 1, 3, &now, 3e7)) < 0)
			return fail("other run", err);
	}
	flat_end_extra[0] = '\0';
	if (o_cal_wake >= 0) {
		if ((err = cal_wake_run(w, next_id++, threads, o_cal_wake,
					o_cal_clock > 0 ? 2 * o_cal_clock : -1, &now)) < 0)
			return fail("cal_wake run", err);
		runs++;
	}
	for (unsigned t = 4; o_sweep_ms >= 0 && t <= 8; t++) {
		for (unsigned r = 0; r < 3; r++) {
			double C_ns = (0.80 + 0.0275 * (t - 4)) * 1e9 +
				      (r == 0 ? -0.4 : r == 1 ? 0 : 0.6) * o_sweep_ms * 1e6;
			char extra[128];
			snprintf(extra, sizeof(extra), ",\"threads\":%u,\"rep\":%u,\"nrep\":3,"
				 "\"sweep\":{\"config\":%u,\"cores\":2,\"threads\":%u}", t, r, t - 4, t);
			if ((err = flat_run(w, next_id++, "sweep", extra, t, 2, 40, &now, C_ns)) < 0)
				return fail("thread sweep", err);
			runs++;
		}
	}
	snprintf(json, sizeof(json), "{\"samples\":%llu,\"late_samples\":%.0f,\"lost_samples\":%.0f,"
		 "\"exit_status\":0,\"runs\":%u,\"warnings\":0}",
		 (unsigned long long)((now - t0) / interval_ns), late, lost, runs);
	if ((err = pmt_writer_json(w, PMT_REC_SUMMARY, 0, now, json)) < 0)
		return fail("summary", err);
	if ((err = pmt_writer_close(w)) < 0)
		return fail("close", err);
	close(fd);
	printf("{\"threads\":%u,\"seconds\":%g,\"thread_samples\":%llu,\"T_cp_ms\":%.3f,"
	       "\"A_inf\":%.6f}\n", threads, seconds,
	       (unsigned long long)((now - t0) / interval_ns) * threads,
	       (ser_ns + par_ns / (double)threads) / 1e6,
	       (double)(ser_ns + par_ns) / (ser_ns + par_ns / (double)threads));
	free(th);
	free(out);
	free(cmdpad);
	free(json_big);
	return 0;
usage:
	fprintf(stderr, "usage: gentrace FILE THREADS SECONDS [sched | SEED] [KEY=VALUE...]\n");
	return 2;
}
