/* SPDX-License-Identifier: MIT */
/* contention.c: calibration points C(n) from the runs of the traces, the memory model's fit, what
 * to record when it cannot be fitted, and omega(n) for the core counts of a report. */
#include "contention.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"
#include "pm_cli.h"

/* Appends word w (control characters already replaced) to buf at *o as one shell word: as it is
 * when every character is safe, else in double quotes with \\ " $ ` escaped. Double, not single,
 * quotes: a note puts a suggested command between single quotes ('pmcollect ... -- CMD'), which a
 * single-quoted word would close early (e.g. -- sh -c 'xz -T8 -k f' inside '...').
 * buf must hold 2 * strlen(w) + 3 more bytes. */
static void shell_word(char *buf, size_t *o, const char *w)
{
	size_t len = strlen(w);

	if (w[0] && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		       "-_./=:,+@%") == len) {
		memcpy(buf + *o, w, len);
		*o += len;
		return;
	}
	buf[(*o)++] = '"';
	for (size_t c = 0; c < len; c++) {
		if (strchr("\\\"$`", w[c]))
			buf[(*o)++] = '\\';
		buf[(*o)++] = w[c];
	}
	buf[(*o)++] = '"';
}

/* The shell words of n strings (control characters replaced, each quoted by shell_word) joined by
 * spaces, whole: malloc'ed, NULL when memory runs out. */
static char *shell_words(char *const *v, size_t n)
{
	size_t o = 0, size = 1;
	char *buf;

	for (size_t i = 0; i < n; i++)
		size += v[i] ? 8 * strlen(v[i]) + 4 : 0;
	if (!(buf = malloc(size)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *a = v[i];
		char *w;
		if (!a || !(w = malloc(4 * strlen(a) + 1)))
			continue;
		pm_cli_sanitize(w, 4 * strlen(a) + 1, a, strlen(a));
		if (o)
			buf[o++] = ' ';
		shell_word(buf, &o, w);
		free(w);
	}
	buf[o] = '\0';
	return buf;
}

double pma_mem_run_C(const struct pma_run *r, int want_cycles, double *llc, int *is_cycles)
{
	const struct pma_run_cost *c = &r->info.C;

	*llc = c->present ? c->llc_misses : NAN;
	*is_cycles = c->present && c->unit == PMA_COST_CYCLES;
	if (want_cycles && *is_cycles)
		return c->value;
	if (c->present)
		return c->cpu_time_ns;
	return pma_est_profile(r->est, PMA_EST_RUNNABLE)->work_ns;
}

/* Notes when CPU time stands in for cycles and the clock may have changed between runs. */
static int check_frequency(const struct pma_trace *traces, const struct pma_mem_cal *cal,
			   struct pma_notes *notes)
{
	double lo = INFINITY, hi = 0;
	const char *gov = NULL;
	int any = 0, mixed_gov = 0;

	for (size_t i = 0; i < cal->npts; i++) {
		const struct pma_trace *t = &traces[cal->trace[i]];
		for (uint32_t k = 0; k < t->nruns; k++) {
			const struct pma_cpufreq *cf = &t->runs[k].info.cpufreq;
			if (t->runs[k].run_id != cal->run_id[i])
				continue;
			if (!cf->present)
				cf = &t->meta.cpufreq;
			if (!cf->present)
				continue;
			any = 1;
			if (cf->governor) {
				if (gov && strcmp(gov, cf->governor) != 0)
					mixed_gov = 1;
				gov = cf->governor;
			}
			lo = fmin(lo, cf->lo_khz);
			hi = fmax(hi, cf->hi_khz);
		}
	}
	if (!any)
		return pma_note_add_freq_unknown(notes);
	if (mixed_gov || (gov && strcmp(gov, "performance") != 0) || hi > 1.05 * lo) {
		return pma_note_add_freq_varies(notes, &(struct pma_note_freq_varies){
			.lo_mhz = isfinite(lo) ? lo / 1e3 : 0, .hi_mhz = hi / 1e3,
			.governor = mixed_gov ? "mixed" : gov ? gov : "unknown" });
	}
	return 0;
}

/* The distinct values of v[0..n) in first-seen order as "1, 2, 4": malloc'ed (whole, any length),
 * "" when n is 0; NULL when memory runs out. */
static char *count_list(const uint32_t *v, size_t n)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (size_t i = 0, any = 0; i < n; i++) {
		int dup = 0;
		for (size_t j = 0; j < i; j++)
			dup |= v[j] == v[i];
		if (!dup)
			fprintf(f, "%s%u", any++ ? ", " : "", v[i]);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The thread count that the runs with m_peak threads asked for (RUN_BEGIN "threads", pmcollect -t
 * or OMP_NUM_THREADS), 0 when none of them says. */
static double asked_threads(const struct pma_trace *traces, int ntraces, uint32_t m_peak)
{
	for (int ti = 0; ti < ntraces; ti++)
		for (uint32_t k = 0; k < traces[ti].nruns; k++)
			if (traces[ti].runs[k].m == m_peak && traces[ti].runs[k].info.threads > 0)
				return traces[ti].runs[k].info.threads;
	return 0;
}

/* Whether run r ran the analyzed thread count: m_peak threads, or it asked for the same count as
 * the runs of m_peak threads and ran at least that many. A helper thread of the runtime (Open
 * MPI's progress thread, a sanitizer's) may come or go between runs of one configuration (a
 * singleton hybrid_workload with 2 OpenMP threads peaked at 7 threads on 1 CPU and 8 on 2 under
 * load); a run that ran fewer than it asked (make -j4 with nothing left to build) stays out. */
static int same_threads(const struct pma_run *r, uint32_t m_peak, double asked)
{
	return r->m == m_peak || (asked > 0 && r->info.threads == asked && r->m >= asked);
}

/* Whether t has runs of pmcollect --sweep. */
static int is_sweep(const struct pma_trace *t)
{
	for (uint32_t k = 0; k < t->nruns; k++)
		if (t->runs[k].info.role == PMA_ROLE_SWEEP)
			return 1;
	return 0;
}

/* Notes which core counts are missing and how to record them. */
static int explain_missing(const struct pma_trace *traces, int ntraces, const struct pma_machine *rec,
			   uint32_t m_peak, const char *fit_why, const struct pma_mem_cal *cal,
			   struct pma_notes *notes)
{
	uint32_t need[3] = { 1, rec->c, rec->c + 1 }, nneed = rec->sockets > 1 ? 3 : 2;
	uint32_t have_v[PMA_CAL_MAX_POINTS], miss_v[3];
	size_t nmiss = 0;
	char *have, *missing, *cmd, *path, **words;
	const char *omp = NULL, *threads;
	char omp_buf[16];
	size_t nw, nc = traces[0].meta.ncommand; /* the command's words, those copied */
	int rc, cal_unusable = 0, stdin_trace;
	double asked = asked_threads(traces, ntraces, m_peak), attached = 0;

	for (size_t i = 0; i < cal->npts; i++)
		have_v[i] = cal->pts[i].cores;
	for (uint32_t k = 0; k < nneed; k++) {
		int found = 0;
		for (size_t i = 0; i < cal->npts; i++)
			found |= cal->pts[i].cores == need[k];
		if (!found)
			miss_v[nmiss++] = need[k];
	}
	/* -t sets OMP_NUM_THREADS: suggest the recorded value, not the peak of live threads (pigz -p 8
	 * peaks at 10 and ignores OMP_NUM_THREADS) */
	for (size_t i = 0; i < traces[0].meta.nenv; i++)
		if (strcmp(traces[0].meta.env[i].name, "OMP_NUM_THREADS") == 0)
			omp = traces[0].meta.env[i].value;
	{
		/* pmcollect -t: the baseline's RUN_BEGIN "threads" (OMP_NUM_THREADS of its runs) */
		const struct pma_run *b = pma_trace_baseline(&traces[0]);
		if (b && b->info.threads >= 1) {
			snprintf(omp_buf, sizeof(omp_buf), "%.0f", b->info.threads);
			omp = omp_buf;
		}
	}
	/* calibration runs recorded but left out: recording them again would repeat that */
	for (int ti = 0; ti < ntraces; ti++)
		for (uint32_t k = 0; k < traces[ti].nruns; k++)
			cal_unusable |= traces[ti].runs[k].info.role == PMA_ROLE_CALIBRATION &&
					pma_run_exited_ok(&traces[ti].runs[k]) &&
					!same_threads(&traces[ti].runs[k], m_peak, asked);
	/* pmcollect -p: the note says why windows of the running process cannot give C(n) */
	for (uint32_t k = 0; k < traces[0].nruns && !attached; k++)
		if (traces[0].runs[k].info.window_attached)
			attached = traces[0].runs[k].info.pid;
	have = count_list(have_v, cal->npts);
	missing = count_list(miss_v, nmiss);
	/* a sweep's command holds pmcollect --sweep's {threads}, which --calibrate passes on as it
	 * is ('overhead -t {threads}' then fails with exit 2): suggest it as the baseline ran it */
	threads = omp && is_sweep(&traces[0]) ? omp : NULL;
	words = calloc(nc + 1, sizeof(*words));
	for (nw = 0; words && nw < nc; nw++) {
		const char *w = traces[0].meta.command[nw];
		words[nw] = !w ? NULL : threads ? pm_str_replace(w, PM_SWEEP_PLACEHOLDER, threads) : strdup(w);
		if (w && !words[nw])
			break; /* out of memory: no command */
	}
	cmd = words && nw == nc ? shell_words(words, nc) : NULL;
	for (size_t i = 0; words && i < nc; i++)
		free(words[i]);
	free(words);
	/* standard input ('-') cannot be named beside another trace (pmanalyze refuses '- calib.zst') */
	stdin_trace = strcmp(traces[0].path, "-") == 0;
	path = stdin_trace ? NULL : shell_words((char *[]){ traces[0].path }, 1);
	rc = -1;
	if (have && missing && cmd && (path || stdin_trace))
		rc = pma_note_add_omega_unknown(notes, &(struct pma_note_omega_unknown){
			.counts_needed = nneed, .sockets = rec->sockets, .c = rec->c,
			.omp_threads = omp ? atof(omp) : 0, .cal_unusable = cal_unusable,
			.why = fit_why, .have = have[0] ? have : NULL,
			.missing = missing[0] ? missing : NULL, .command = cmd, .trace = path,
			.attached = attached > 0, .attached_pid = attached });
	free(have);
	free(missing);
	free(cmd);
	free(path);
	return rc;
}

/* The fit's points: every collected point, except that when the runs on 1 CPU disagree by more
 * than PMA_C1_SPREAD only the smallest C(1) is kept (with a note). A run of m threads on one CPU
 * pays for its context switches (xz -T4 on 1 CPU: 7.07 s of CPU time against 6.36 s for -T1; two
 * C(1) of pigz 26% apart), which inflates C(1) and so makes omega(n) = C(n)/C(1) - 1 too small or
 * negative (eq. 7); the least disturbed run is the smallest. Writes to fit[] (PMA_CAL_MAX_POINTS)
 * and returns how many; -1 when memory for the note runs out. */
#define PMA_C1_SPREAD 0.10
static long fit_points(const struct pma_mem_cal *cal, struct pma_mem_point *fit,
		       struct pma_notes *notes)
{
	double lo = INFINITY, hi = 0;
	size_t n1 = 0, k = 0;

	for (size_t i = 0; i < cal->npts; i++) {
		if (cal->pts[i].cores != 1)
			continue;
		n1++;
		lo = fmin(lo, cal->pts[i].C);
		hi = fmax(hi, cal->pts[i].C);
	}
	/* two 1-CPU points (the baseline and one calibration run) that disagree: the smaller; three
	 * or more (--calibrate --repeat) are summarized by their median instead */
	for (size_t i = 0; i < cal->npts; i++)
		if (!(n1 == 2 && hi > lo * (1 + PMA_C1_SPREAD)) || cal->pts[i].cores != 1 ||
		    cal->pts[i].C == lo)
			fit[k++] = cal->pts[i];
	if (k < cal->npts) {
		const char *unit = strcmp(cal->source, "cycles") == 0 ? "cycles" : "ns of CPU time";
		if (pma_note_add_c1_spread(notes, &(struct pma_note_c1_spread){ .runs = n1,
				.C1_min = lo, .C1_max = hi, .spread_pct = 100 * (hi / lo - 1),
				.unit = unit }) < 0)
			return -1;
	}
	return (long)k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The points pts[0..npts) per placement (cores, n_first) into cal->sum: median C(n) over the
 * repetitions and half the range as its uncertainty (docs/scaling.md: "C(n) is a median with a
 * spread"). */
static void summarize_points(struct pma_mem_cal *cal, const struct pma_mem_point *pts, size_t npts)
{
	double v[PMA_CAL_MAX_POINTS];

	cal->nsum = 0;
	cal->repeated = npts > 0;
	for (size_t i = 0; i < npts; i++) {
		size_t k, n = 0;
		double rsum = 0;
		size_t rn = 0;
		for (k = 0; k < cal->nsum; k++)
			if (cal->sum[k].cores == pts[i].cores &&
			    cal->sum[k].n_first == pts[i].n_first)
				break;
		if (k < cal->nsum)
			continue; /* summarized with its first run */
		for (size_t j = i; j < npts; j++) {
			if (pts[j].cores != pts[i].cores ||
			    pts[j].n_first != pts[i].n_first)
				continue;
			v[n++] = pts[j].C;
			if (isfinite(pts[j].r)) {
				rsum += pts[j].r;
				rn++;
			}
		}
		qsort(v, n, sizeof(v[0]), cmp_double);
		cal->sum[k] = pts[i];
		cal->sum[k].C = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		cal->sum[k].r = rn ? rsum / (double)rn : NAN;
		cal->C_err[k] = (v[n - 1] - v[0]) / 2;
		cal->sum[k].C_se = 0;
		if (n >= 2) { /* the spread of the repeats: sample sd / sqrt(K) (docs/memory-model.md) */
			double mean = 0, ss = 0;
			for (size_t j = 0; j < n; j++)
				mean += v[j] / (double)n;
			for (size_t j = 0; j < n; j++)
				ss += (v[j] - mean) * (v[j] - mean);
			/* identical repeats still measured it: at least C's resolution, > 0 */
			cal->sum[k].C_se = fmax(sqrt(ss / (double)(n - 1) / (double)n),
						1e-3 * cal->sum[k].C);
		}
		cal->nrep[k] = (uint32_t)n;
		cal->repeated &= n >= 2;
		cal->nsum++;
	}
}

/* Keeps run r of trace ti, a window of a running process, in cal->win (past PMA_CAL_MAX_POINTS
 * dropped). */
static void add_window(struct pma_mem_cal *cal, int ti, const struct pma_run *r)
{
	const struct pma_run_cost *c = &r->info.C;
	double llc;
	int cyc;

	if (cal->nwin == PMA_CAL_MAX_POINTS)
		return;
	cal->win[cal->nwin++] = (struct pma_mem_window){
		.trace = ti, .run_id = r->run_id, .cores = r->cpus_n, .cpus = r->cpus,
		.length_ns = r->info.window_length_ns, .cpu_ns = pma_mem_run_C(r, 0, &llc, &cyc),
		.cycles = c->present && c->unit == PMA_COST_CYCLES ? c->value : NAN,
		.instructions = c->present ? c->instructions : NAN };
}

int pma_mem_window_points(const struct pma_mem_window *win, size_t nwin, double *C, int *cycles,
			  double *I_ref)
{
	double ins1[PMA_CAL_MAX_POINTS], ref;
	size_t n1 = 0;
	int all_cycles = 1;

	if (nwin == 0 || nwin > PMA_CAL_MAX_POINTS)
		return -1;
	for (size_t i = 0; i < nwin; i++) {
		if (!(isfinite(win[i].instructions) && win[i].instructions > 0))
			return -1;
		all_cycles &= isfinite(win[i].cycles) && win[i].cycles > 0;
		if (win[i].cores == 1)
			ins1[n1++] = win[i].instructions;
	}
	for (size_t i = 0; !all_cycles && i < nwin; i++)
		if (!(isfinite(win[i].cpu_ns) && win[i].cpu_ns > 0))
			return -1;
	if (!n1)
		return -1; /* no C(1): eq. 7 has nothing to divide by */
	qsort(ins1, n1, sizeof(ins1[0]), cmp_double);
	ref = n1 % 2 ? ins1[n1 / 2] : (ins1[n1 / 2 - 1] + ins1[n1 / 2]) / 2;
	for (size_t i = 0; i < nwin; i++)
		C[i] = (all_cycles ? win[i].cycles : win[i].cpu_ns) / win[i].instructions * ref;
	*cycles = all_cycles;
	*I_ref = ref;
	return 0;
}

/* A calibration in windows whose windows all retired instructions (pma_mem_window_points): the
 * windows become cal's points, C(n) per instruction times I_ref, each on its own CPU set of the
 * recording machine rec; cal->per_instruction and I_ref say so. *all_cycles: whether C(n) is
 * cycles. Nothing changes (0 returned) when the windows cannot give C(n); 1 when they did. */
static int window_points(struct pma_mem_cal *cal, const struct pma_machine *rec, int *all_cycles)
{
	double C[PMA_CAL_MAX_POINTS];

	if (pma_mem_window_points(cal->win, cal->nwin, C, all_cycles, &cal->I_ref) < 0)
		return 0;
	for (size_t i = 0; i < cal->nwin; i++) {
		const struct pma_mem_window *w = &cal->win[i];
		cal->pts[i] = (struct pma_mem_point){ .C = C[i], .r = NAN, .cores = w->cores,
			.n_first = pma_machine_first_socket(rec, w->cpus, w->cores) };
		cal->run_id[i] = w->run_id;
		cal->trace[i] = w->trace;
	}
	cal->npts = cal->nwin;
	cal->per_instruction = 1;
	return 1;
}

const char *pma_mem_cal_source_name(const struct pma_mem_cal *cal, int json)
{
	int cyc = strcmp(cal->source, "cycles") == 0;

	if (!cal->per_instruction || strcmp(cal->source, "none") == 0)
		return cal->source;
	if (json)
		return cyc ? "cycles_per_instruction" : "cpu_time_per_instruction";
	return cyc ? "cycles per instruction" : "CPU time per instruction";
}

/* The note on a calibration in windows (cal->nwin of them): how many, on which core counts,
 * and whether omega comes from C per instruction. Returns 0 or -1 when memory runs out. */
static int note_windows(const struct pma_mem_cal *cal, struct pma_notes *notes)
{
	uint32_t cores[PMA_CAL_MAX_POINTS];
	double len = 0;
	char *counts;
	int rc;

	for (size_t i = 0; i < cal->nwin; i++) {
		cores[i] = cal->win[i].cores;
		len += cal->win[i].length_ns / 1e9 / (double)cal->nwin;
	}
	if (!(counts = count_list(cores, cal->nwin)))
		return -1;
	rc = pma_note_add_cal_windows(notes, &(struct pma_note_cal_windows){
		.windows = (double)cal->nwin, .length_s = len, .counts = counts,
		.per_instruction = !cal->per_instruction ? 0 : strcmp(cal->source, "cycles") == 0 ? 1 : 2,
		.instructions_ref = cal->per_instruction ? cal->I_ref : 0 });
	free(counts);
	return rc;
}

/* A run left out of the calibration, and why (SKIP_*). */
struct skip {
	int trace;
	uint32_t run_id;
	int why;
};
enum { SKIP_THREADS, SKIP_FAILED };

/* The runs left out as one line, whole however many there are, consecutive run ids of one trace
 * and reason collapsed into ranges: "runs 1-12, 14 of 'a.zst' (other thread count), run 0 of
 * 'a.zst' (not finished with status 0)" (make -j4 under --calibrate left out 20 runs; a buffer of
 * 300 bytes cut the note after 8). Groups keep the order of their first run. Returns
 * a malloc'ed string, or NULL when memory runs out. */
static char *skipped_text(const struct pma_trace *traces, const struct skip *v, size_t n)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int first = 1;

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t cnt = 0;
		uint32_t lo = 0, hi = 0;
		int done = 0;
		for (size_t j = 0; j < i; j++) /* the group was written with its first run */
			done |= v[j].trace == v[i].trace && v[j].why == v[i].why;
		if (done)
			continue;
		for (size_t j = i; j < n; j++)
			cnt += v[j].trace == v[i].trace && v[j].why == v[i].why;
		fprintf(f, "%s%s ", first ? "" : ", ", cnt == 1 ? "run" : "runs");
		first = 0;
		/* runs are loaded in file order, their ids ascending: ranges of consecutive ids */
		for (size_t j = i, open = 0, sep = 0; j <= n; j++) {
			if (j < n && (v[j].trace != v[i].trace || v[j].why != v[i].why))
				continue;
			if (j < n && open && v[j].run_id == hi + 1) {
				hi = v[j].run_id;
				continue;
			}
			if (open) {
				fprintf(f, sep++ ? ", %u" : "%u", lo);
				if (hi > lo)
					fprintf(f, "-%u", hi);
			}
			if (j < n) {
				lo = hi = v[j].run_id;
				open = 1;
			}
		}
		fprintf(f, " of '%s' (%s)", traces[v[i].trace].path,
			v[i].why == SKIP_THREADS ? "other thread count" : "not finished with status 0");
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The note for calibration points the fit left out of the cross-socket term (pma_mem_fit
 * cross_skipped): the first such point, and whether other points calibrated the term. */
static int note_cross_saturated(const struct pma_mem_cal *cal, struct pma_notes *notes)
{
	const struct pma_mem_params *p = &cal->params;

	for (size_t i = 0; i < cal->nsum; i++) {
		const struct pma_mem_point *q = &cal->sum[i];
		if (q->cores <= q->n_first || (isfinite(pma_mem_omega_socket(p, q->n_first)) &&
		    (p->model != PMA_MEM_UMA || isfinite(pma_mem_omega_socket(p, q->cores - q->n_first)))))
			continue;
		return pma_note_add_cross_saturated(notes, &(struct pma_note_cross_saturated){
			.runs = p->cross_skipped, .cores = q->cores, .first_socket_cores = q->n_first,
			.n_sat = p->n_sat, .others_calibrated = p->cross_points > 0 });
	}
	return 0;
}

int pma_mem_calibrate(const struct pma_trace *traces, int ntraces, const struct pma_machine *rec,
		      uint32_t m_peak, struct pma_mem_cal *out, struct pma_notes *notes)
{
	enum pma_mem_model model = rec->sockets <= 1 ? PMA_MEM_SINGLE :
				   rec->numa_nodes > 1 ? PMA_MEM_NUMA : PMA_MEM_UMA;
	int all_cycles = 1, rc;
	/* pma_mem_fit's reasons are fixed texts with a number or two (the longest about 130
	 * bytes), as is the one below: this holds them whole */
	char fit_why[256];
	struct skip *skipped = NULL;
	size_t nskipped = 0, skipped_cap = 0;
	struct pma_mem_point fit[PMA_CAL_MAX_POINTS];
	long nfit;
	double asked = asked_threads(traces, ntraces, m_peak);

	memset(out, 0, sizeof(*out));
	out->source = "none";
	out->params.model = PMA_MEM_NONE;
	for (int pass = 0; pass < 2; pass++) { /* 1: are all cycles? 2: collect */
		out->npts = 0;
		for (int ti = 0; ti < ntraces; ti++) {
			for (uint32_t k = 0; k < traces[ti].nruns; k++) {
				const struct pma_run *r = &traces[ti].runs[k];
				double llc;
				int cyc;
				struct pma_mem_point *p = &out->pts[out->npts];
				/* a thread sweep's other thread counts are not calibration runs */
				if (r->info.role == PMA_ROLE_SWEEP && !same_threads(r, m_peak, asked))
					continue;
				if (pma_run_attached_window(r)) {
					/* a window of a running program: --calibrate -p's windows
					 * measure C(n); a plain -p window is no calibration run, and
					 * not a failed one either */
					if (pass && (r->info.role == PMA_ROLE_BASELINE ||
						     r->info.role == PMA_ROLE_CALIBRATION))
						add_window(out, ti, r);
					continue;
				}
				if (!pma_run_exited_ok(r) || !r->cpus_n ||
				    !same_threads(r, m_peak, asked)) {
					if (!pass)
						continue;
					if (PM_GROW(skipped, skipped_cap, nskipped + 1) < 0) {
						free(skipped);
						return -1;
					}
					skipped[nskipped++] = (struct skip){ ti, r->run_id,
						/* a failed run's thread count says nothing: name the failure */
						pma_run_exited_ok(r) && !same_threads(r, m_peak, asked) ? SKIP_THREADS
												      : SKIP_FAILED };
					continue;
				}
				if (out->npts == PMA_CAL_MAX_POINTS)
					continue;
				p->C = pma_mem_run_C(r, all_cycles, &llc, &cyc);
				all_cycles &= cyc;
				p->r = llc;
				p->cores = r->cpus_n;
				p->n_first = pma_machine_first_socket(rec, r->cpus, r->cpus_n);
				out->run_id[out->npts] = r->run_id;
				out->trace[out->npts] = ti;
				out->npts++;
			}
		}
	}
	/* a calibration in windows and nothing else: points per instruction, when the windows
	   retired instructions (whole runs, when there are, measure C(n) itself) */
	out->I_ref = NAN;
	if (!out->npts && out->nwin && m_peak >= 2)
		(void)window_points(out, rec, &all_cycles);
	out->source = out->npts ? (all_cycles ? "cycles" : "cpu_time") : "none";
	if ((nfit = fit_points(out, fit, notes)) < 0)
		return -1;
	summarize_points(out, fit, (size_t)nfit);
	if (out->npts && pma_mem_fit(out->sum, out->nsum, rec->c, model, &out->params, fit_why,
				     sizeof(fit_why)) == 0) {
		for (size_t i = 0; i < out->npts; i++) {
			uint32_t per[2] = { out->pts[i].n_first, out->pts[i].cores - out->pts[i].n_first };
			struct pma_mem_omega o;
			out->omega_meas[i] = pma_mem_omega_measured(out->pts[i].C, out->params.C1);
			pma_mem_predict(&out->params, per, 2, rec->numa_nodes,
					PMA_POL_LOCAL_THEN_REMOTE, &o);
			out->omega_model[i] = o.omega;
		}
		rc = all_cycles ? 0 : check_frequency(traces, out, notes);
		if (rc == 0 && out->per_instruction)
			rc = note_windows(out, notes);
	} else {
		/* windows per instruction that still give no fit (no window on c cores): listed and
		   noted as windows without instructions are */
		if (out->per_instruction)
			out->npts = 0;
		out->per_instruction = 0;
		out->I_ref = NAN;
		if (!out->npts)
			snprintf(fit_why, sizeof(fit_why), "no finished run of the program with %u threads",
				 m_peak);
		/* one thread at a time needs no omega (omega(1) = 0): nothing to record */
		rc = m_peak < 2 ? 0 : out->nwin ? note_windows(out, notes)
						   : explain_missing(traces, ntraces, rec, m_peak, fit_why, out, notes);
		out->source = "none";
	}
	if (rc == 0 && out->params.cross_skipped)
		rc = note_cross_saturated(out, notes);
	if (rc == 0 && nskipped) {
		char *sk = skipped_text(traces, skipped, nskipped);
		rc = sk ? pma_note_add_cal_skipped(notes, &(struct pma_note_cal_skipped){ .runs = sk })
			: -1;
		free(sk);
	}
	free(skipped);
	return rc;
}

const char *pma_on_target_name(enum pma_on_target v)
{
	static const char *const names[] = { "cores", "smt", "extrapolated", "absent" };

	return (unsigned)v < 4 ? names[v] : "cores";
}

double pma_mem_S_err(double S, double S_err, double omega, double omega_err)
{
	if (!isfinite(omega_err) || !isfinite(omega) || !isfinite(S) || !(1 + omega > 0))
		return S_err;
	return hypot(S_err, S * omega_err / (1 + omega));
}

int pma_mem_superlinear_evidence(const struct pma_mem_cal *cal, uint32_t n, uint32_t *K1,
				 uint32_t *Kn)
{
	double max_n = -INFINITY, min_1 = INFINITY;

	*K1 = *Kn = 0;
	for (size_t i = 0; i < cal->npts; i++) {
		if (cal->pts[i].cores == 1) {
			++*K1;
			min_1 = fmin(min_1, cal->pts[i].C);
		} else if (cal->pts[i].cores == n) {
			++*Kn;
			max_n = fmax(max_n, cal->pts[i].C);
		}
	}
	if (!*Kn || n <= 1)
		return PMA_SUPERLIN_NOT_MEASURED;
	if (*K1 < PMA_SUPERLIN_MIN_REPS || *Kn < PMA_SUPERLIN_MIN_REPS)
		return PMA_SUPERLIN_FEW_REPS;
	return max_n < min_1 ? 0 : PMA_SUPERLIN_OVERLAP;
}

/* A negative omega(n) makes S = A / (1 + omega) exceed A and, for A near n, n: a superlinear
 * speedup. Single calibration runs gave omega(2) = -0.28 and +0.14 for one command on this VM
 * (docs/scaling.md), so a negative omega is taken as 0 unless it is below 0 beyond its uncertainty
 * (twice its standard error, about 95%),
 * which needs repeated runs, C(n) is cycles, and the runs pass
 * pma_mem_superlinear_evidence (K >= 5 at 1 and at n, every C(n) below every C(1)): the half
 * range of 3 runs underestimates the spread from one trace to the next (five triad traces on this
 * VM: -0.325 +- 0.033 against +0.057 +- 0.056). Each case is said once, for the smallest such n.
 * omega_fit keeps the fitted values. Returns 0, or -1 when memory runs out. */
static int omega_noise(struct pma_mem_eval *out, const uint32_t *cores, size_t ncores)
{
	int noted_noise = 0, noted_super = 0, noted_unconfirmed = 0;

	for (size_t i = 0; i < ncores; i++) {
		/* a spread only from repeated runs: one run's is assumed (PMA_MEM_C_REL_SD) */
		double w = out->omega[i], d = out->cal.repeated ? out->omega_err[i] : NAN;
		out->omega_fit[i] = w;
		/* omega(1) is 0 by definition: the invariant's own note says so (compute.c) */
		if (!(w < 0) || cores[i] == 1)
			continue;
		/* CPU time cannot show a superlinear effect: a 1-CPU run's includes its threads'
		 * switching and the hypervisor's steal (measured here: omega(2) = -0.29 +- 0.03 for
		 * a triad in one trace, +0.06 +- 0.06 in the next); only cycles can */
		if (isfinite(d) && w + 2 * d < 0 && strcmp(out->cal.source, "cycles") == 0) {
			uint32_t K1, Kn;
			int why = pma_mem_superlinear_evidence(&out->cal, cores[i], &K1, &Kn);
			if (!why) {
				if (!noted_super++ &&
				    pma_note_add_superlinear(&out->notes, &(struct pma_note_superlinear){
					    .n = cores[i], .omega = w, .omega_err = d }) < 0)
					return -1;
				continue;
			}
			out->omega[i] = 0;
			if (!noted_unconfirmed++ &&
			    pma_note_add_superlinear_unconfirmed(&out->notes,
					&(struct pma_note_superlinear_unconfirmed){ .n = cores[i],
					.omega = w, .omega_err = d, .why = why, .runs_1 = K1,
					.runs_n = Kn }) < 0)
				return -1;
			continue;
		}
		out->omega[i] = 0;
		/* n4: whether a calibration run had n cores, or omega(n) is the fit's extrapolation
		 * (a note must not call that "the spread of the repeated runs") */
		if (!noted_noise++ && w < -5e-4) {
			uint32_t K1, Kn;
			int measured = pma_mem_superlinear_evidence(&out->cal, cores[i], &K1, &Kn) !=
				       PMA_SUPERLIN_NOT_MEASURED;
			if (pma_note_add_omega_noise(&out->notes, &(struct pma_note_omega_noise){
					.n = cores[i], .omega = w, .omega_err = d,
					.cpu_time = isfinite(d) && w + 2 * d < 0,
					.measured = measured }) < 0)
				return -1;
		}
	}
	return 0;
}

static enum pma_mem_policy recorded_policy(const struct pma_meta *meta)
{
	const char *mode = meta->mempolicy_mode;

	if (mode && strcmp(mode, "interleave") == 0)
		return PMA_POL_INTERLEAVE;
	if (mode && strcmp(mode, "bind") == 0)
		return PMA_POL_LOCAL_THEN_REMOTE;
	return PMA_POL_LOCAL;
}

int pma_mem_eval(const struct pma_trace *traces, int ntraces, const struct pma_machine *machine,
		 uint32_t chunk, int pol, uint32_t m, const uint32_t *cores, size_t ncores,
		 struct pma_mem_eval *out, char *why, size_t whysize)
{
	const struct pma_mem_params *p = &out->cal.params;
	const struct pma_machine *t;
	uint32_t *per;
	double sat_n = 0;

	memset(out, 0, sizeof(*out));
	out->omega = calloc(ncores ? ncores : 1, sizeof(double));
	out->cross = calloc(ncores ? ncores : 1, sizeof(double));
	out->per_socket = calloc(ncores ? ncores : 1, sizeof(*out->per_socket));
	out->omega_err = calloc(ncores ? ncores : 1, sizeof(double));
	out->omega_fit = calloc(ncores ? ncores : 1, sizeof(double));
	out->busy = calloc(ncores ? ncores : 1, sizeof(uint32_t));
	out->on_target = calloc(ncores ? ncores : 1, sizeof(uint8_t));
	if (!out->omega || !out->cross || !out->per_socket || !out->omega_err || !out->omega_fit ||
	    !out->busy || !out->on_target)
		goto nomem;
	out->ncores = ncores;
	if (pma_machine_from_meta(&traces[0].meta, traces[0].path, &out->rec, why, whysize) < 0) {
		/* a trace without topology (written by another tool, or damaged) still gets its
		 * parallelism: one socket of one core is assumed, and said */
		memset(&out->rec, 0, sizeof(out->rec));
		out->rec.sockets = out->rec.c = out->rec.cores = out->rec.pus = 1;
		out->rec.numa_nodes = 1;
		snprintf(out->rec.source, sizeof(out->rec.source),
			 "assumed (1 socket, 1 core): %s", why);
		why[0] = '\0';
	}
	if (machine) {
		out->target = *machine; /* borrowed: its topo stays the caller's */
		out->target_given = 1;
	} else {
		out->target = out->rec;
		out->target.topo = NULL; /* owned by rec */
	}
	t = &out->target;
	out->pol = pol >= 0 ? (enum pma_mem_policy)pol : recorded_policy(&traces[0].meta);
	out->pol_source = pol >= 0 ? "--mem" : "recorded memory policy";
	out->chunk = chunk ? chunk : t->c;
	if (out->chunk >= t->c)
		snprintf(out->placement, sizeof(out->placement), "compact");
	else if (out->chunk == 1)
		snprintf(out->placement, sizeof(out->placement), "scatter");
	else
		snprintf(out->placement, sizeof(out->placement), "chunks of %u", out->chunk);

	if (pma_mem_calibrate(traces, ntraces, &out->rec, m, &out->cal, &out->notes) < 0)
		goto nomem;
	if (out->target_given && p->model != PMA_MEM_NONE &&
	    pma_note_add_other_machine(&out->notes, &(struct pma_note_other_machine){
			.sockets = t->sockets, .c = t->c, .numa_nodes = t->numa_nodes,
			.cal_sockets = out->rec.sockets, .cal_c = out->rec.c,
			.cross_uncalibrated = t->sockets > 1 && out->rec.sockets == 1,
			.machine = t->source }) < 0)
		goto nomem;

	per = calloc(t->sockets, sizeof(*per));
	if (!per)
		goto nomem;
	for (size_t i = 0; i < ncores; i++) {
		struct pma_mem_omega o;
		size_t k = 0;
		out->omega[i] = out->cross[i] = out->omega_err[i] = NAN;
		/* m threads keep at most m cores busy; the others idle and do not contend (Tudor &
		 * Teo: "we consider them not to contend for memory"): S(n >= m) = S(m) */
		out->busy[i] = m && m < cores[i] ? m : cores[i];
		/* n up to the PUs (SMT siblings) while the busy threads fit on the cores */
		if (cores[i] > (t->pus > t->sockets * t->c ? t->pus : t->sockets * t->c))
			out->on_target[i] = out->target_given ? PMA_ON_TARGET_ABSENT :
							PMA_ON_TARGET_EXTRAPOLATED;
		else if (pma_place(t->sockets, t->c, out->busy[i], out->chunk, per) < 0)
			out->on_target[i] = PMA_ON_TARGET_SMT;
		if (out->on_target[i] != PMA_ON_TARGET_CORES) {
			snprintf(out->per_socket[i], sizeof(out->per_socket[i]), "-");
			continue; /* more CPUs, or more busy threads than cores, than the machine has */
		}
		for (uint32_t s = 0; s < t->sockets && k < sizeof(out->per_socket[i]); s++)
			k += (size_t)snprintf(out->per_socket[i] + k, sizeof(out->per_socket[i]) - k,
					      "%s%u", s ? "," : "{", per[s]);
		if (k < sizeof(out->per_socket[i]))
			snprintf(out->per_socket[i] + k, sizeof(out->per_socket[i]) - k, "}");
		if (m == 1) { /* one busy core: omega(1) = C(1)/C(1) - 1 = 0 (eq. 7), with or without a fit */
			out->omega[i] = out->cross[i] = out->omega_err[i] = 0;
			continue;
		}
		if (pma_mem_predict(p, per, t->sockets, t->numa_nodes, out->pol, &o) < 0)
			continue;
		out->omega[i] = o.omega;
		out->cross[i] = t->sockets > 1 ? o.cross : 0;
		out->omega_err[i] = o.omega_err;
		if (isinf(o.omega) && !sat_n)
			sat_n = cores[i];
	}
	free(per);
	if (omega_noise(out, cores, ncores) < 0)
		goto nomem;
	if (sat_n && pma_note_add_saturated(&out->notes, &(struct pma_note_saturated){
			.n_sat = p->n_sat, .first_n = sat_n }) < 0)
		goto nomem;
	return 0;
nomem:
	snprintf(why, whysize, "out of memory");
	return -1;
}

void pma_mem_eval_free(struct pma_mem_eval *e)
{
	if (!e)
		return;
	pma_machine_free(&e->rec);
	/* e->target is borrowed (--machine) or a copy of rec's counts: nothing of its own */
	free(e->omega);
	free(e->cross);
	free(e->omega_err);
	free(e->omega_fit);
	free(e->busy);
	free(e->on_target);
	e->busy = NULL;
	e->on_target = NULL;
	e->omega_err = e->omega_fit = NULL;
	free(e->per_socket);
	e->omega = e->cross = NULL;
	e->per_socket = NULL;
	pma_notes_free(&e->notes);
}
