/* SPDX-License-Identifier: MIT */
/* ranks.c: one row per rank trace of a job, and their merge (ranks.h). */
#include "ranks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/analyze.h"
#include "collector_cost.h"
#include "mpitime.h"
#include "compute.h"
#include "studies/contention.h"
#include "pm_util.h"
#include "pm_cli.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Seconds since the epoch of monotonic instant mono_ns, through the pair p. */
static double pair_realtime_s(const struct pma_clock_pair *p, double mono_ns)
{
	return p->realtime_s + (p->realtime_nsec + (mono_ns - p->mono_ns)) / 1e9;
}

/* The run's start on the realtime axis and the realtime clock's drift against the monotonic one
 * over the run, from RUN_END "clocks"; a run cut short has only META's pair, which places its
 * start but gives no drift. */
static void row_clocks(const struct pma_trace *t, const struct pma_run *run, struct pma_rank_row *row)
{
	const struct pma_clock_pair *b = &run->info.clk_begin, *e = &run->info.clk_end;

	row->begin_realtime_s = row->drift_ppm = NAN;
	if (b->present) {
		row->begin_realtime_s = pair_realtime_s(b, b->mono_ns);
		if (e->present && e->mono_ns > b->mono_ns) {
			double d_mono = e->mono_ns - b->mono_ns;
			double d_real = (e->realtime_s - b->realtime_s) * 1e9 +
					(e->realtime_nsec - b->realtime_nsec);
			row->drift_ppm = (d_real - d_mono) / d_mono * 1e6;
		}
	} else if (t->meta.clocks.present && run->t_begin_ns > 0) {
		row->begin_realtime_s = pair_realtime_s(&t->meta.clocks, (double)run->t_begin_ns);
	}
}

/* Why the rank is incomplete, or NULL: the program must have exited (not been killed) and
 * pmcollect must have finished the trace. */
static const char *incomplete_reason(const struct pma_trace *t, const struct pma_run *run)
{
	if (!run)
		return "the trace has no run";
	if (!run->info.has_end)
		return "the trace stops before the run's end (pmcollect was killed?)";
	if (run->info.exit_kind == PMA_EXIT_SIGNALED)
		return "the program was killed by a signal";
	if (!t->summary.present)
		return "pmcollect did not finish the trace";
	return NULL;
}

/* Sets row->problem to text (replacing an earlier one). Returns 0, or -1 out of memory. */
static int set_problem(struct pma_rank_row *row, const char *text, char *why, size_t whysize)
{
	char *p = strdup(text);

	if (!p) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	free(row->problem);
	row->problem = p;
	return 0;
}

/* omega(n) of the calibration trace cal at the core counts cores[0..ncores-1] into e: the memory
 * model fitted on cal's runs of its baseline's thread count alone (Tudor & Teo, eq. 7-10),
 * placed as o says. Returns 0 when fitted; -1 with a reason in why (nothing to fit, out of
 * memory). e is freed with pma_mem_eval_free in every case. */
static int cal_omega(const struct pma_trace *cal, const struct pma_compute_opts *o,
		     const uint32_t *cores, size_t ncores, struct pma_mem_eval *e, uint32_t *m_out,
		     char *why, size_t whysize)
{
	const struct pma_run *b = pma_trace_baseline(cal);
	uint32_t m = b && b->m >= 1 ? (uint32_t)b->m : 1;

	if (m_out)
		*m_out = m;
	if (pma_mem_eval(cal, 1, o->machine, o->chunk, o->mem_policy, m, cores, ncores, e, why,
			 whysize) < 0)
		return -1;
	if (e->cal.params.model == PMA_MEM_NONE) {
		const struct pma_note *u = pma_notes_find(&e->notes, PMA_NOTE_OMEGA_UNKNOWN);
		const char *fit_why = u ? u->arg.omega_unknown.why : NULL;
		snprintf(why, whysize, "'%s' gives no omega: %s", cal->path ? cal->path : "",
			 fit_why ? fit_why : "no calibration runs the memory model can fit");
		return -1;
	}
	return 0;
}

int pma_ranks_calibration_check(const struct pma_trace *cal, const struct pma_compute_opts *o,
				char *why, size_t whysize)
{
	static const uint32_t one = 1;
	struct pma_mem_eval e;
	int rc = cal_omega(cal, o, &one, 1, &e, NULL, why, whysize);

	pma_mem_eval_free(&e);
	return rc;
}

/* Replaces the rank's omega by the calibration trace's: T(n) = T(n) (1 + omega_cal(n)) /
 * (1 + omega_own(n)), since T(n) = T(1) (1 + omega(n)) / A(m,n) (Tudor & Teo, eq. 1 and 6) with
 * omega_own 0 where the rank had none. Returns 0, or -1 with why (the fit failed: cal was checked
 * up front, so only when memory runs out). */
static int apply_cal(const struct pma_trace *cal, const struct pma_compute_opts *o,
		     struct pma_rank_row *row, char *why, size_t whysize)
{
	struct pma_mem_eval e;
	uint32_t m;
	int rc = -1;

	if (cal_omega(cal, o, row->cores, row->ncores, &e, &m, why, whysize) < 0)
		goto out;
	row->cal_m = m;
	if (!row->omega_n && !(row->omega_n = malloc((row->ncores ? row->ncores : 1) * sizeof(double)))) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	if (row->omega_source)
		row->cal_replaced = 1;
	for (size_t i = 0; i < row->ncores; i++) {
		/* as pma_compute: an unknown omega (more cores than the machine has) counts as 0,
		 * a saturated one (INFINITY) leaves T unknown */
		double own = row->omega_source && isfinite(row->omega_n[i]) ? row->omega_n[i] : 0;
		double w = isnan(e.omega[i]) ? 0 : e.omega[i];
		row->T_ns[i] = isinf(w) ? NAN : row->T_ns[i] * (1 + w) / (1 + own);
		row->omega_n[i] = e.omega[i];
		if (row->cores[i] == row->n_rank)
			row->omega = isfinite(e.omega[i]) ? e.omega[i] : NAN;
	}
	row->omega_source = "calibration";
	rc = 0;
out:
	pma_mem_eval_free(&e);
	return rc;
}

/* The rank's T(n) for the core counts of pma_compute (--cores, else 1 .. max(m, PUs), capped):
 * pma_compute's own (with omega from a calibration) for a multithreaded rank; for a rank of one
 * thread, the profile's T(n) (Tudor & Teo, eq. 6
 * with A = 1: T(n) = T(1)). A failed prediction leaves ncores 0 and a note in problem. */
static int row_predictions(const struct pma_trace *t, const struct pma_compute_opts *o,
			   const struct pma_trace *cal, const struct pma_profile *prof,
			   struct pma_rank_row *row, char *why, size_t whysize)
{
	struct pma_result r;
	char cwhy[512];
	uint32_t n_rank = 0;
	int rc = 0;

	if (row->m < 2) {
		double maxn = fmax(1, fmin(t->meta.topo.pus, PMA_DEFAULT_MAX_CORES));
		struct pma_prediction *q;
		row->ncores = o->cores ? o->ncores : (size_t)maxn;
		row->cores = malloc((row->ncores ? row->ncores : 1) * sizeof(*row->cores));
		row->T_ns = malloc((row->ncores ? row->ncores : 1) * sizeof(*row->T_ns));
		q = calloc(row->ncores ? row->ncores : 1, sizeof(*q));
		if (!row->cores || !row->T_ns || !q) {
			free(q);
			snprintf(why, whysize, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < row->ncores; i++)
			row->cores[i] = o->cores ? o->cores[i] : (uint32_t)(i + 1);
		pma_profile_predict(prof, row->cores, row->ncores, NULL, q);
		for (size_t i = 0; i < row->ncores; i++)
			row->T_ns[i] = q[i].T_ns;
		free(q);
		return 0;
	}
	/* omega at the rank's own CPUs: its affinity as the launcher bound it, else the run's */
	if (t->meta.affinity_cpus) {
		struct pm_intlist l = { 0 };
		if (pm_intlist_parse(t->meta.affinity_cpus, 0, UINT32_MAX - 1, &l, cwhy, sizeof(cwhy)) == 0)
			n_rank = (uint32_t)l.n;
		pm_intlist_free(&l);
	}
	if (pma_compute(t, 1, o, &r, cwhy, sizeof(cwhy)) < 0) {
		char text[600];
		snprintf(text, sizeof(text), "no prediction: %s", cwhy);
		rc = set_problem(row, text, why, whysize);
	} else {
		const struct pma_prediction *pred = r.pred.by_est[r.par.est];
		int calibrated = r.mem.cal.params.model != PMA_MEM_NONE && r.mem.omega;
		row->ncores = r.pred.ncores;
		row->cores = malloc((row->ncores ? row->ncores : 1) * sizeof(*row->cores));
		row->T_ns = malloc((row->ncores ? row->ncores : 1) * sizeof(*row->T_ns));
		row->omega_n = calibrated ? malloc((row->ncores ? row->ncores : 1) * sizeof(double)) : NULL;
		if (!row->cores || !row->T_ns || (calibrated && !row->omega_n)) {
			snprintf(why, whysize, "out of memory");
			rc = -1;
		}
		for (size_t i = 0; rc == 0 && i < row->ncores; i++) {
			row->cores[i] = r.pred.cores[i];
			row->T_ns[i] = pred ? pred[i].T_ns : NAN;
			if (row->omega_n)
				row->omega_n[i] = r.mem.omega[i];
			if (!n_rank)
				n_rank = r.run->cpus_n;
			if (n_rank && r.pred.cores[i] == n_rank && r.mem.omega && isfinite(r.mem.omega[i]))
				row->omega = r.mem.omega[i];
		}
		if (calibrated)
			row->omega_source = "trace";
		row->n_rank = n_rank;
		if (rc == 0 && cal && row->ncores)
			rc = apply_cal(cal, o, row, why, whysize);
	}
	pma_result_free(&r);
	return rc;
}

/* Counts the rank's calibration runs that did not finish with status 0, describing the first. */
static int failed_calibration(const struct pma_trace *t, struct pma_rank_row *row)
{
	for (uint32_t k = 0; k < t->nruns; k++) {
		const struct pma_run_info *ri = &t->runs[k].info;
		char what[96];
		if (ri->role != PMA_ROLE_CALIBRATION || pma_run_exited_ok(&t->runs[k]))
			continue;
		if (row->cal_failed++)
			continue;
		if (!ri->has_end)
			snprintf(what, sizeof(what), "run %u: no end", t->runs[k].run_id);
		else if (ri->exit_kind == PMA_EXIT_SIGNALED)
			snprintf(what, sizeof(what), "run %u: killed by signal %.0f", t->runs[k].run_id,
				 ri->exit_signal);
		else
			snprintf(what, sizeof(what), "run %u: exited %.0f", t->runs[k].run_id,
				 ri->exit_code);
		if (!(row->cal_failed_what = strdup(what)))
			return -1;
	}
	return 0;
}

int pma_rank_row_from(const struct pma_trace *t, const struct pma_compute_opts *o,
		      const struct pma_trace *cal, struct pma_rank_row *row, char *why,
		      size_t whysize)
{
	const struct pma_job *j = &t->meta.job;
	const struct pma_run *run = pma_trace_run(t, o->run_id);
	const struct pma_profile *prof;
	struct pma_parallelism par;
	const char *inc;
	int est;

	memset(row, 0, sizeof(*row));
	row->m = row->A_inf = row->T_cp_s = row->wall_s = row->busy_s = row->omega = NAN;
	row->begin_realtime_s = row->drift_ppm = row->start_offset_s = NAN;
	row->collector_cpu = row->collector_s = NAN;
	row->rank = j->rank;
	row->local_rank = j->local_rank;
	row->packages = t->meta.topo.packages;
	row->ranks_per_socket = 1;
	if (t->meta.naffinity_packages) {
		row->on_packages = malloc(t->meta.naffinity_packages * sizeof(*row->on_packages));
		if (!row->on_packages)
			goto nomem;
		memcpy(row->on_packages, t->meta.affinity_packages,
		       t->meta.naffinity_packages * sizeof(*row->on_packages));
		row->non_packages = t->meta.naffinity_packages;
	}
	row->size = j->size;
	row->path = strdup(t->path ? t->path : "");
	if (!row->path)
		goto nomem;
	if (!j->present || j->rank < 0) {
		snprintf(why, whysize, "'%s' is not a rank of a job (its metadata has no rank: record "
			 "it with pmcollect under mpirun or srun)", t->path);
		return -1;
	}
	row->job = dup_or_null(j->id);
	row->host = dup_or_null(j->host ? j->host : t->meta.hostname);
	row->cpus = dup_or_null(t->meta.affinity_cpus ? t->meta.affinity_cpus
			       : run && run->cpus[0] ? run->cpus : t->meta.cpus);
	if ((j->id && !row->job) || ((j->host || t->meta.hostname) && !row->host))
		goto nomem;
	inc = incomplete_reason(t, run);
	row->complete = inc == NULL;
	if (inc && !(row->problem = strdup(inc)))
		goto nomem;
	if (!run)
		return 0;
	if (failed_calibration(t, row) < 0)
		goto nomem;
	row_clocks(t, run, row);
	if (run->info.C.present && run->info.C.cpu_time_ns > 0)
		row->busy_s = run->info.C.cpu_time_ns / 1e9;
	est = pma_choose_estimator(run, o->estimator);
	prof = pma_run_profile(run, est);
	if (!prof || run->st.intervals == 0)
		return set_problem(row, "not analyzed: no samples", why, whysize);
	row->m = run->m;
	pma_profile_parallelism(prof, row->m, &par);
	if (par.T_cp_ns <= 0)
		return set_problem(row, "not analyzed: the program received no CPU time", why, whysize);
	row->analyzed = 1;
	row->estimator = pma_estimator_name((enum pma_estimator_kind)est);
	row->A_inf = par.A_inf;
	row->T_cp_s = par.T_cp_ns / 1e9;
	row->wall_s = pma_run_wall_s(run);
	row->collector_cpu = isnan(run->info.collector_cpu) ? t->meta.collector_cpu : run->info.collector_cpu;
	row->collector_s = (isnan(t->summary.sampling_cpu_ns) ? t->summary.collector_cpu_ns
			    : t->summary.sampling_cpu_ns) / 1e9;
	if (pma_mpi_rank_from(&run->info.mpi, row->busy_s, row->T_cp_s, &row->mpi) < 0)
		goto nomem;
	return row_predictions(t, o, cal, prof, row, why, whysize);
nomem:
	snprintf(why, whysize, "out of memory");
	return -1;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Job ids in order: none first, then as version strings ("9" before "10"). */
static int cmp_job(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strverscmp(a, b);
}

static int by_job_rank(const void *a, const void *b)
{
	const struct pma_rank_row *x = a, *y = b;
	int c = cmp_job(x->job, y->job);
	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static struct pma_rank_ref ref_of(const struct pma_rank_row *w)
{
	return (struct pma_rank_ref){ .job = w->job, .rank = w->rank };
}

/* Adds v to s when finite (s starts zeroed). */
static void stat_add(struct pma_rank_stat *s, double v)
{
	if (!isfinite(v))
		return;
	if (s->n == 0 || v < s->min)
		s->min = v;
	if (s->n == 0 || v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
	s->avg = s->sum / (double)s->n;
}

static void stat_init(struct pma_rank_stat *s)
{
	s->min = s->max = s->avg = NAN;
	s->sum = 0;
	s->n = 0;
}

/* Checks that the rows are of one job (unless force) and that no rank of a job appears twice
 * (rows sorted by job, rank). Returns 0 or a PMA_RANKS_E_* code with why. */
static int check_rows(const struct pma_ranks_result *r, int force, char *why, size_t whysize)
{
	for (size_t i = 1; i < r->n; i++) {
		const struct pma_rank_row *a = &r->rows[0], *b = &r->rows[i], *p = &r->rows[i - 1];
		if (!force && !same_str(a->job, b->job)) {
			snprintf(why, whysize, "'%s' is of job %s but '%s' of job %s: traces of two jobs "
				 "(use --force to merge them anyway)", a->path, a->job ? a->job : "(none)",
				 b->path, b->job ? b->job : "(none)");
			return PMA_RANKS_E_MIXED;
		}
		if (!force && a->size != b->size) {
			snprintf(why, whysize, "'%s' is one of %ld ranks but '%s' one of %ld: traces of "
				 "two jobs (use --force to merge them anyway)", a->path, a->size, b->path,
				 b->size);
			return PMA_RANKS_E_MIXED;
		}
		if (p->rank == b->rank && same_str(p->job, b->job)) {
			if (r->njobs > 1 || force)
				snprintf(why, whysize, "'%s' and '%s' both claim rank %ld of job %s",
					 p->path, b->path, b->rank, b->job ? b->job : "(none)");
			else
				snprintf(why, whysize, "'%s' and '%s' both claim rank %ld", p->path,
					 b->path, b->rank);
			return PMA_RANKS_E_BAD;
		}
	}
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].size >= 0 && r->rows[i].rank >= r->rows[i].size) {
			snprintf(why, whysize, "'%s' claims rank %ld of a job of %ld ranks",
				 r->rows[i].path, r->rows[i].rank, r->rows[i].size);
			return PMA_RANKS_E_BAD;
		}
	return 0;
}

/* The jobs of the sorted rows: runs of one job id, each with its largest size. The sum of the
 * sizes goes to r->size (-1 when one is unknown). Returns 0 or -1 (out of memory). */
static int group_jobs(struct pma_ranks_result *r)
{
	size_t cap = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct pma_rank_job *g;
		if (i == 0 || !same_str(r->rows[i].job, r->rows[i - 1].job)) {
			if (PM_GROW(r->jobs, cap, r->njobs + 1) < 0)
				return -1;
			g = &r->jobs[r->njobs++];
			memset(g, 0, sizeof(*g));
			g->job = r->rows[i].job;
			g->first = i;
			g->size = r->rows[i].size;
		}
		g = &r->jobs[r->njobs - 1];
		g->n++;
		if (r->rows[i].size > g->size)
			g->size = r->rows[i].size;
	}
	r->size = 0;
	for (size_t k = 0; k < r->njobs; k++)
		r->size = r->size < 0 || r->jobs[k].size < 0 ? -1 : r->size + r->jobs[k].size;
	return 0;
}

/* Per job, its ranks 0..size-1 that have no row (rows sorted). Returns 0 or -1 (out of memory). */
static int find_missing(struct pma_ranks_result *r)
{
	size_t total = 0;

	for (size_t k = 0; k < r->njobs; k++)
		if (r->jobs[k].size > 0 && (size_t)r->jobs[k].size > r->jobs[k].n)
			total += (size_t)r->jobs[k].size - r->jobs[k].n;
	if (total == 0)
		return 0;
	r->missing = malloc(total * sizeof(*r->missing));
	if (!r->missing)
		return -1;
	for (size_t k = 0; k < r->njobs; k++) {
		struct pma_rank_job *g = &r->jobs[k];
		const struct pma_rank_row *rows = &r->rows[g->first];
		size_t i = 0;
		for (long q = 0; q < g->size; q++) {
			while (i < g->n && rows[i].rank < q)
				i++;
			if (i >= g->n || rows[i].rank != q) {
				r->missing[r->nmissing++] = (struct pma_rank_ref){ .job = g->job, .rank = q };
				g->nmissing++;
			}
		}
	}
	return 0;
}

/* Hosts: distinct host names among the rows (n^2 over the rows, fine for thousands). */
static size_t count_hosts(const struct pma_ranks_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		size_t j;
		for (j = 0; j < i && !same_str(r->rows[i].host, r->rows[j].host); j++)
			;
		n += j == i;
	}
	return n;
}

static int covers(const struct pma_rank_row *w, uint32_t pkg)
{
	for (size_t k = 0; k < w->non_packages; k++)
		if (w->on_packages[k] == pkg)
			return 1;
	return 0;
}

/* ranks_per_socket of every row, among the rows of its job (ranks of one job run together) on
 * its host: with META affinity.packages, the most ranks on any package the row covers, a rank
 * covering s packages counting 1/s on each (an unbound rank spreads over them); without it, the
 * rows on the host over the host's sockets. Rounded up. */
static void ranks_per_socket(struct pma_ranks_result *r)
{
	for (size_t k = 0; k < r->njobs; k++) {
		struct pma_rank_row *rows = &r->rows[r->jobs[k].first];
		size_t n = r->jobs[k].n;
		for (size_t i = 0; i < n; i++) {
			struct pma_rank_row *w = &rows[i];
			long on_host = 0, sockets = w->packages >= 1 ? (long)w->packages : 1;
			double most = 0;
			for (size_t j = 0; j < n; j++)
				on_host += same_str(w->host, rows[j].host);
			for (size_t p = 0; p < w->non_packages; p++) {
				double share = 0;
				for (size_t j = 0; j < n; j++)
					if (rows[j].non_packages && same_str(w->host, rows[j].host) &&
					    covers(&rows[j], w->on_packages[p]))
						share += 1.0 / (double)rows[j].non_packages;
				most = fmax(most, share);
			}
			w->ranks_per_socket = w->non_packages ? (long)ceil(most - 1e-9)
							      : (on_host + sockets - 1) / sockets;
		}
	}
}

/* Row w's T(n) at index c, with omega at the ranks sharing its socket: T(n) (1 + omega(k n)) /
 * (1 + omega(n)) when w has calibration runs and k n is among its core counts; *shared set then. */
static double shared_T(const struct pma_rank_row *w, size_t c, int *shared)
{
	uint64_t kn = (uint64_t)w->ranks_per_socket * w->cores[c];

	*shared = 0;
	if (!w->omega_n || w->ranks_per_socket < 2 || !isfinite(w->omega_n[c]))
		return w->T_ns[c];
	for (size_t k = 0; k < w->ncores; k++)
		if (w->cores[k] == kn && isfinite(w->omega_n[k])) {
			*shared = 1;
			return w->T_ns[c] * (1 + w->omega_n[k]) / (1 + w->omega_n[c]);
		}
	return w->T_ns[c];
}

/* The job's T(n) over the complete, analyzed rows, on the first such row's core counts. */
static int merge_predictions(struct pma_ranks_result *r)
{
	const struct pma_rank_row *first = NULL;
	char *w_shared;

	for (size_t i = 0; i < r->n && !first; i++)
		if (r->rows[i].complete && r->rows[i].analyzed)
			first = &r->rows[i];
	if (!first || first->ncores == 0)
		return 0;
	r->ncores = first->ncores;
	r->cores = malloc(r->ncores * sizeof(*r->cores));
	r->T_max_ns = malloc(r->ncores * sizeof(double));
	r->T_sum_ns = malloc(r->ncores * sizeof(double));
	r->T_max = malloc(r->ncores * sizeof(*r->T_max));
	w_shared = calloc(r->n, 1);
	if (!r->cores || !r->T_max_ns || !r->T_sum_ns || !r->T_max || !w_shared) {
		free(w_shared);
		return -1;
	}
	for (size_t c = 0; c < r->ncores; c++) {
		uint32_t n = first->cores[c];
		r->cores[c] = n;
		r->T_max_ns[c] = -INFINITY;
		r->T_sum_ns[c] = 0;
		r->T_max[c] = (struct pma_rank_ref){ .job = NULL, .rank = -1 };
		for (size_t i = 0; i < r->n; i++) {
			const struct pma_rank_row *w = &r->rows[i];
			double T = NAN;
			int shared = 0;
			if (!w->complete || !w->analyzed)
				continue;
			for (size_t k = 0; k < w->ncores; k++)
				if (w->cores[k] == n)
					T = shared_T(w, k, &shared);
			if (shared)
				w_shared[i] = 1;
			if (!isfinite(T)) { /* a rank without this n: the job's T(n) is unknown */
				r->T_max_ns[c] = r->T_sum_ns[c] = NAN;
				break;
			}
			if (T > r->T_max_ns[c]) {
				r->T_max_ns[c] = T;
				r->T_max[c] = ref_of(w);
			}
			r->T_sum_ns[c] += T;
		}
	}
	for (size_t i = 0; i < r->n; i++)
		r->omega_shared += w_shared[i];
	free(w_shared);
	return 0;
}

/* The notes on omega: multithreaded ranks without it (with the calibration runs that failed and
 * how to calibrate instead), and the ranks that took it from the --calibration trace. */
static int omega_notes(struct pma_ranks_result *r, const char *cal_path)
{
	double unknown = 0, failed = 0, failed_runs = 0, from_cal = 0, replaced = 0, cal_m = 0;
	const struct pma_rank_row *first_failed = NULL;

	for (size_t i = 0; i < r->n; i++) {
		const struct pma_rank_row *w = &r->rows[i];
		if (!w->analyzed || !(w->m >= 2))
			continue;
		if (w->omega_source && strcmp(w->omega_source, "calibration") == 0) {
			from_cal++;
			replaced += w->cal_replaced;
			cal_m = w->cal_m;
			continue;
		}
		if (w->omega_source)
			continue;
		unknown++;
		if (w->cal_failed) {
			failed++;
			failed_runs += (double)w->cal_failed;
			if (!first_failed)
				first_failed = w;
		}
	}
	if (unknown > 0 &&
	    pma_note_add_ranks_omega_unknown(&r->notes, &(struct pma_note_ranks_omega_unknown){
			.ranks = unknown, .failed_ranks = failed, .failed_runs = failed_runs,
			.trace = first_failed ? first_failed->path : NULL,
			.failure = first_failed ? first_failed->cal_failed_what : NULL }) < 0)
		return -1;
	if (cal_path && from_cal > 0 &&
	    pma_note_add_ranks_cal_file(&r->notes, &(struct pma_note_ranks_cal_file){
			.ranks = from_cal, .replaced = replaced, .threads = cal_m,
			.trace = cal_path }) < 0)
		return -1;
	return 0;
}

int pma_ranks_merge(struct pma_rank_row *rows, size_t n, int force, const char *cal_path,
		    struct pma_ranks_result *out, char *why, size_t whysize)
{
	double start_lo = INFINITY, start_hi = -INFINITY;
	int rc;

	memset(out, 0, sizeof(*out));
	out->rows = rows;
	out->n = n;
	out->slowest = (struct pma_rank_ref){ .job = NULL, .rank = -1 };
	out->imbalance = out->start_spread_s = out->max_abs_drift_ppm = NAN;
	stat_init(&out->m);
	stat_init(&out->A_inf);
	stat_init(&out->T_cp_s);
	stat_init(&out->wall_s);
	stat_init(&out->busy_s);
	if (n == 0) {
		snprintf(why, whysize, "no rank trace to merge");
		return PMA_RANKS_E_BAD;
	}
	qsort(rows, n, sizeof(*rows), by_job_rank);
	if (group_jobs(out) < 0)
		goto nomem;
	if ((rc = check_rows(out, force, why, whysize)) < 0)
		return rc;
	if (out->njobs == 1 && rows[0].job && !(out->job = strdup(rows[0].job)))
		goto nomem;
	if (find_missing(out) < 0)
		goto nomem;
	out->nhosts = count_hosts(out);
	for (size_t i = 0; i < n; i++) {
		const struct pma_rank_row *w = &rows[i];
		out->nincomplete += !w->complete;
		if (isfinite(w->begin_realtime_s)) {
			start_lo = fmin(start_lo, w->begin_realtime_s);
			start_hi = fmax(start_hi, w->begin_realtime_s);
		}
		if (isfinite(w->drift_ppm))
			out->max_abs_drift_ppm = isfinite(out->max_abs_drift_ppm)
				? fmax(out->max_abs_drift_ppm, fabs(w->drift_ppm)) : fabs(w->drift_ppm);
		if (!w->complete || !w->analyzed)
			continue;
		stat_add(&out->m, w->m);
		stat_add(&out->A_inf, w->A_inf);
		stat_add(&out->T_cp_s, w->T_cp_s);
		stat_add(&out->wall_s, w->wall_s);
		stat_add(&out->busy_s, w->busy_s);
	}
	if (start_hi >= start_lo)
		out->start_spread_s = start_hi - start_lo;
	for (size_t i = 0; i < n; i++)
		rows[i].start_offset_s = rows[i].begin_realtime_s - start_lo; /* NAN stays NAN */
	if (out->busy_s.n > 0 && out->busy_s.avg > 0) {
		out->imbalance = out->busy_s.max / out->busy_s.avg;
		out->critical = malloc(n * sizeof(*out->critical));
		if (!out->critical)
			goto nomem;
		for (size_t i = 0; i < n; i++) {
			const struct pma_rank_row *w = &rows[i];
			if (!w->complete || !w->analyzed || !isfinite(w->busy_s))
				continue;
			if (out->slowest.rank < 0 && w->busy_s == out->busy_s.max)
				out->slowest = ref_of(w);
			if (w->busy_s >= PMA_RANKS_CRITICAL_SHARE * out->busy_s.max)
				out->critical[out->ncritical++] = ref_of(w);
		}
	}
	ranks_per_socket(out);
	if (merge_predictions(out) < 0 || omega_notes(out, cal_path) < 0 ||
	    pma_mpi_job_compute(out) < 0 || pma_ranks_collector_note(out) < 0)
		goto nomem;
	return 0;
nomem:
	snprintf(why, whysize, "out of memory");
	return PMA_RANKS_E_BAD;
}

int pma_ranks_job_result(struct pma_rank_row *rows, size_t n, int force, const char *cal_path,
			 struct pma_result *out, char *why, size_t whysize)
{
	memset(out, 0, sizeof(*out));
	out->kind = PMA_RESULT_JOB;
	return pma_ranks_merge(rows, n, force, cal_path, &out->job, why, whysize);
}
