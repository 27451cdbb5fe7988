/* SPDX-License-Identifier: MIT */
/* learn.c: the TOEP training table (runs x configuration features + the model's prediction) and
 * the held-out comparison of the analytical model and the two forests. */
#include "learn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "energy_eval.h"
#include "model/model.h"

const char *pma_learn_feature_name(int f)
{
	static const char *const names[PMA_LEARN_NFEAT] = {
		"threads", "cores", "sockets", "placement", "mempolicy", "size", "llc_misses",
		"stall_cycles",
		"A_model", "omega_model", "T_model_s",
	};
	return f >= 0 && f < PMA_LEARN_NFEAT ? names[f] : "?";
}

/* One candidate row: the run and what groups it with its baseline. */
struct row_src {
	const struct pma_trace *t;
	const struct pma_run *run;
	double threads, size;
};

static double label_size(const struct pma_meta *m)
{
	for (size_t i = 0; i < m->nlabels; i++)
		if (strcmp(m->labels[i].name, "size") == 0) {
			char *end;
			double v = strtod(m->labels[i].value, &end);
			return end != m->labels[i].value && *end == '\0' ? v : NAN;
		}
	return NAN;
}

static int same_command(const struct pma_meta *a, const struct pma_meta *b)
{
	if (a->ncommand != b->ncommand)
		return 0;
	for (size_t i = 0; i < a->ncommand; i++)
		if (strcmp(a->command[i], b->command[i]) != 0)
			return 0;
	return 1;
}

/* NAN-aware equality of a configuration's numbers. */
static int same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static double mempol_code(const char *mode)
{
	return !mode || strcmp(mode, "default") == 0 ? 0 : strcmp(mode, "bind") == 0 ? 1 :
	       strcmp(mode, "interleave") == 0 ? 2 : 3;
}

/* The memory model's policy for a recorded one (as pma_mem_eval reads it). */
static int mem_policy(const char *mode)
{
	return mode && strcmp(mode, "interleave") == 0 ? PMA_POL_INTERLEAVE :
	       mode && strcmp(mode, "bind") == 0 ? PMA_POL_LOCAL_THEN_REMOTE : PMA_POL_LOCAL;
}

static enum pma_mem_model machine_model(const struct pma_machine *m)
{
	return m->sockets <= 1 ? PMA_MEM_SINGLE : m->numa_nodes > 1 ? PMA_MEM_NUMA : PMA_MEM_UMA;
}

int pma_learn_model_x(const struct pma_learn_table *t, uint32_t g, uint32_t n, uint32_t n_first,
		      const uint32_t *fold, uint32_t k, double *x, double *T_s)
{
	const struct pma_learn_row *base = NULL;
	struct pma_mem_point *pts = NULL;
	struct pma_mem_params mp;
	struct pma_prediction q;
	double omega = NAN;
	size_t npts = 0;
	char why[300];

	x[PMA_F_A] = x[PMA_F_OMEGA] = x[PMA_F_T_MODEL] = NAN;
	if (T_s)
		*T_s = NAN;
	for (size_t i = 0; i < t->rows; i++) {
		if (t->group[i] != g || (fold && fold[i] == k))
			continue;
		if (!base || t->row[i].run->cpus_n < base->run->cpus_n)
			base = &t->row[i];
		npts++;
	}
	if (!base)
		return 0;
	/* omega(n) from the group's usable runs (Tudor & Teo eq. 7-10), when they allow a fit */
	pts = malloc(npts * sizeof(*pts));
	if (pts) {
		npts = 0;
		for (size_t i = 0; i < t->rows; i++)
			if (t->group[i] == g && !(fold && fold[i] == k) && t->row[i].pt.C > 0)
				pts[npts++] = t->row[i].pt;
	}
	/* n beyond the recording machine's PUs cannot be placed: no omega (eq. 8-10 are per socket) */
	if (pts && npts && n <= t->machine[base->machine].pus) {
		const struct pma_machine *m = &t->machine[base->machine];
		uint32_t per[2] = { n_first < n ? n_first : n, n_first < n ? n - n_first : 0 };
		struct pma_mem_omega o;
		if (pma_mem_fit(pts, npts, m->c, machine_model(m), &mp, why, sizeof(why)) == 0 &&
		    pma_mem_predict(&mp, per, 2, m->numa_nodes, (enum pma_mem_policy)base->pol,
				    &o) == 0 && isfinite(o.omega) && o.omega > -1)
			omega = o.omega;
	}
	free(pts);
	/* The T(n) column leaves omega out (it has a column of its own): held out, omega(n) is an
	 * extrapolation of the fit, and a T(n) with it differed between training and held-out
	 * rows enough to lower the forest's R² on the synthetic set (docs/energy.md §3). */
	if (pma_profile_predict(pma_run_profile(base->run, PMA_EST_RUNNABLE), &n, 1, NULL, &q) < 0)
		return 1;
	x[PMA_F_A] = q.A;
	x[PMA_F_OMEGA] = omega;
	x[PMA_F_T_MODEL] = q.T_ns / 1e9;
	if (T_s && !isnan(omega) &&
	    pma_profile_predict(pma_run_profile(base->run, PMA_EST_RUNNABLE), &n, 1, &omega, &q) < 0)
		return 1;
	if (T_s)
		*T_s = q.T_ns / 1e9;
	return 1;
}

double pma_learn_model_y(const struct pma_learn_table *t, double A, double T,
			 const struct pma_power_model *pm)
{
	if (t->target == PMA_TARGET_TIME)
		return T;
	if (!pm || !isfinite(T) || !isfinite(A))
		return NAN;
	return (pm->P_static_w + A * pm->P_core_w) * T; /* E(n) = P(n) T(n), power.h */
}

/* The power model of the rows outside fold k (all rows when fold is NULL). Returns 0, or -1 when
 * it cannot be fitted or is not physical (why says which). */
static int fold_power(const struct pma_learn_table *t, const uint32_t *fold, uint32_t k,
		      struct pma_power_model *pm, char *why, size_t whysize)
{
	struct pma_power_run *pw = malloc((t->rows ? t->rows : 1) * sizeof(*pw));
	size_t n = 0;
	int zones = 1, rc;

	if (!pw) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < t->rows; i++)
		if (t->row[i].has_power && !(fold && fold[i] == k)) {
			pw[n] = t->row[i].pw;
			zones &= pw[n].E_core_j >= 0;
			n++;
		}
	rc = pma_power_fit(pw, n, zones, pm, why, whysize);
	free(pw);
	return rc == 0 ? 0 : -1;
}

/* Row i's program: the basename of the command's executable, numbered in order of appearance.
 * Returns 0, or -1 when memory runs out. */
static int program_id(struct pma_learn_table *t, const struct pma_meta *m, size_t i)
{
	const char *exe = m->ncommand && m->command[0] ? m->command[0] : "?";
	const char *slash = strrchr(exe, '/');
	uint32_t p;

	exe = slash ? slash + 1 : exe;
	for (p = 0; p < t->nprograms; p++)
		if (strcmp(t->program_name[p], exe) == 0)
			break;
	if (p == t->nprograms) {
		if (!(t->program_name[p] = strdup(exe)))
			return -1;
		t->nprograms++;
	}
	t->program[i] = p;
	return 0;
}

/* The machine of trace tr: one per distinct recorded topology (hwloc XML or counts), so that a
 * training set of hundreds of traces from one machine loads its XML once. Returns its index, or
 * -1 with a reason (no topology: a machine of one socket is assumed then, see below). */
static int machine_of(struct pma_learn_table *t, const struct pma_trace *traces, int tr,
		      const struct pma_trace **first)
{
	const struct pma_topology *a = &traces[tr].meta.topo;
	char why[400];

	for (uint32_t i = 0; i < t->nmachines; i++) {
		const struct pma_topology *b = &first[i]->meta.topo;
		if (a->packages == b->packages && a->cores == b->cores && a->pus == b->pus &&
		    a->numa_nodes == b->numa_nodes &&
		    (a->hwloc_xml && b->hwloc_xml ? strcmp(a->hwloc_xml, b->hwloc_xml) == 0
						  : !a->hwloc_xml && !b->hwloc_xml))
			return (int)i;
	}
	if (pma_machine_from_meta(&traces[tr].meta, traces[tr].path, &t->machine[t->nmachines], why,
				  sizeof(why)) < 0) {
		/* no topology recorded: one socket of the run's CPUs, as the report assumes */
		struct pma_machine *m = &t->machine[t->nmachines];
		memset(m, 0, sizeof(*m));
		m->sockets = m->numa_nodes = 1;
		m->cores = m->pus = m->c = 1u << 20;
	}
	first[t->nmachines] = &traces[tr];
	return (int)t->nmachines++;
}

/* The base columns of a configuration: m threads on the CPUs `cpus` (n of them) of machine mc,
 * memory policy mode, size label. */
static void base_x(const struct pma_machine *mc, double m, uint32_t n, const char *cpus,
		   const char *mode, double size, double *x)
{
	uint32_t sockets = pma_machine_sockets_used(mc, cpus, n);

	x[PMA_F_THREADS] = m;
	x[PMA_F_CORES] = n;
	x[PMA_F_SOCKETS] = sockets ? sockets : NAN;
	x[PMA_F_PLACEMENT] = n ? (double)pma_machine_first_socket(mc, cpus, n) / n : NAN;
	x[PMA_F_MEMPOL] = mempol_code(mode);
	x[PMA_F_SIZE] = size;
	x[PMA_F_LLC] = x[PMA_F_STALLS] = NAN;
}

/* Numbers the rows' families (command and size) and groups (family and threads) in order of
 * appearance. */
static void number_groups(struct pma_learn_table *t, const struct row_src *src)
{
	for (size_t i = 0; i < t->rows; i++) {
		size_t j;
		for (j = 0; j < i; j++)
			if (same_command(&src[j].t->meta, &src[i].t->meta) &&
			    same_num(src[j].size, src[i].size))
				break;
		t->family[i] = j < i ? t->family[j] : t->nfamilies++;
		for (j = 0; j < i; j++)
			if (t->family[j] == t->family[i] && same_num(src[j].threads, src[i].threads))
				break;
		t->group[i] = j < i ? t->group[j] : t->ngroups++;
	}
}

/* Counts in f a run of trace tr that did not exit 0; the first one counted is described. */
static void count_failed(struct pma_learn_failed *f, const struct pma_trace *tr,
			 const struct pma_run *run)
{
	const struct pma_run_info *ri = &run->info;

	if (f->runs++)
		return;
	f->run_id = run->run_id;
	f->trace = tr->path;
	f->status = PMA_RUNST_NO_END;
	f->code = 0;
	if (ri->has_end && ri->exit_kind == PMA_EXIT_SIGNALED && isfinite(ri->exit_signal)) {
		f->status = PMA_RUNST_SIGNAL;
		f->code = ri->exit_signal;
	} else if (ri->has_end && ri->exit_kind == PMA_EXIT_EXITED && isfinite(ri->exit_code)) {
		f->status = PMA_RUNST_EXIT_CODE;
		f->code = ri->exit_code;
	}
}

int pma_learn_table(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		    struct pma_learn_table *t, char *why, size_t whysize)
{
	struct row_src *src;
	const struct pma_trace **first = NULL;
	size_t all = 0, k = 0;
	const char *energy_reason = NULL;
	int all_cycles = 1, *machine_idx = NULL;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < ntraces; i++)
		all += traces[i].nruns;
	src = calloc(all ? all : 1, sizeof(*src));
	if (!src) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	for (int i = 0; i < ntraces; i++)
		for (uint32_t j = 0; j < traces[i].nruns; j++) {
			const struct pma_run *run = &traces[i].runs[j];
			const struct pma_run_info *ri = &run->info;
			/* a run that failed measured its failure, not the program */
			if (!pma_run_exited_ok(run)) {
				count_failed(&t->failed, &traces[i], run);
				continue;
			}
			if (run->st.intervals == 0 || run->cpus_n == 0 ||
			    pma_run_wall_s(run) <= 0 || !pma_run_profile(run, PMA_EST_RUNNABLE))
				continue;
			if (target == PMA_TARGET_ENERGY && !(ri->energy.present && isfinite(ri->energy.package_uj))) {
				if (!energy_reason)
					energy_reason = ri->energy.reason ? ri->energy.reason :
						ri->energy.present ? "no package zone" : NULL;
				continue;
			}
			src[k].t = &traces[i];
			src[k].run = run;
			src[k].threads = isfinite(ri->threads) && ri->threads > 0 ? ri->threads : run->m;
			src[k].size = label_size(&traces[i].meta);
			all_cycles &= ri->C.present && ri->C.unit == PMA_COST_CYCLES;
			k++;
		}
	if (k == 0) {
		if (target == PMA_TARGET_ENERGY)
			snprintf(why, whysize, "--target energy: no run has energy readings (%s)",
				 energy_reason ? energy_reason : "no run that exited 0");
		else
			snprintf(why, whysize, "no run that exited 0 with samples in the traces");
		free(src);
		return -1;
	}
	t->X = calloc(k * PMA_LEARN_NFEAT, sizeof(double));
	t->y = calloc(k, sizeof(double));
	t->config = calloc(k, sizeof(uint32_t));
	t->program = calloc(k, sizeof(uint32_t));
	t->program_name = calloc(k, sizeof(char *));
	t->family = calloc(k, sizeof(uint32_t));
	t->group = calloc(k, sizeof(uint32_t));
	t->row = calloc(k, sizeof(*t->row));
	t->machine = calloc((size_t)ntraces, sizeof(*t->machine));
	first = calloc((size_t)ntraces, sizeof(*first));
	machine_idx = malloc((size_t)ntraces * sizeof(*machine_idx));
	if (!t->X || !t->y || !t->config || !t->program || !t->program_name || !t->family ||
	    !t->group || !t->row || !t->machine || !first || !machine_idx) {
		free(src);
		free(first);
		free(machine_idx);
		pma_learn_table_free(t);
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	for (int i = 0; i < ntraces; i++)
		machine_idx[i] = -1;
	t->rows = k;
	t->target = target;
	number_groups(t, src);
	for (size_t i = 0; i < k; i++) {
		const struct pma_run *run = src[i].run;
		const struct pma_meta *m = &src[i].t->meta;
		const struct pma_run_energy *e = &run->info.energy;
		struct pma_learn_row *r = &t->row[i];
		int tr = (int)(src[i].t - traces);
		const struct pma_machine *mc;
		double *x = &t->X[i * PMA_LEARN_NFEAT];
		int cyc;

		if (machine_idx[tr] < 0)
			machine_idx[tr] = machine_of(t, traces, tr, first);
		r->run = run;
		r->machine = (uint32_t)machine_idx[tr];
		mc = &t->machine[r->machine];
		r->pt.cores = run->cpus_n;
		r->pt.n_first = pma_machine_first_socket(mc, run->cpus, run->cpus_n);
		r->pt.C = pma_mem_run_C(run, all_cycles, &r->pt.r, &cyc);
		r->pol = mem_policy(run->info.mem_mode);
		r->has_power = pma_power_run_from(run, &r->pw);
		if (e->present && e->max_gap_ns > PMA_ENERGY_MAX_GAP_NS) {
			t->energy_gap_runs++;
			if (e->max_gap_ns / 1e9 > t->energy_gap_max_s) {
				t->energy_gap_max_s = e->max_gap_ns / 1e9;
				t->energy_gap_run_id = run->run_id;
			}
		}
		base_x(mc, src[i].threads, run->cpus_n, run->cpus, run->info.mem_mode, src[i].size, x);
		x[PMA_F_LLC] = run->info.C.llc_misses;
		x[PMA_F_STALLS] = run->info.C.stall_cycles;
		t->y[i] = target == PMA_TARGET_ENERGY
			? (e->package_uj + (isfinite(e->dram_uj) ? e->dram_uj : 0)) / 1e6
			: pma_run_wall_s(run);
		/* configuration id: the first row with the same threads, cores, policy and size */
		t->config[i] = t->nconfigs;
		for (size_t j = 0; j < i; j++) {
			const double *xj = &t->X[j * PMA_LEARN_NFEAT];
			if (same_num(xj[PMA_F_THREADS], x[PMA_F_THREADS]) &&
			    same_num(xj[PMA_F_CORES], x[PMA_F_CORES]) &&
			    same_num(xj[PMA_F_MEMPOL], x[PMA_F_MEMPOL]) &&
			    same_num(xj[PMA_F_SIZE], x[PMA_F_SIZE]) && same_command(m, &src[j].t->meta)) {
				t->config[i] = t->config[j];
				break;
			}
		}
		if (t->config[i] == t->nconfigs)
			t->nconfigs++;
		if (program_id(t, m, i) < 0) {
			free(src);
			free(first);
			free(machine_idx);
			pma_learn_table_free(t);
			snprintf(why, whysize, "out of memory");
			return -1;
		}
	}
	/* the model's columns from every row: the table a forest on all runs is trained on */
	for (size_t i = 0; i < k; i++)
		pma_learn_model_x(t, t->group[i], t->row[i].run->cpus_n, t->row[i].pt.n_first, NULL, 0,
				  &t->X[i * PMA_LEARN_NFEAT], NULL);
	free(src);
	free(first);
	free(machine_idx);
	return 0;
}

int pma_learn_config_x(const struct pma_learn_table *t, uint32_t f, uint32_t m, uint32_t n,
		       double *x, double *T_s)
{
	const struct pma_learn_row *like = NULL;
	const double *xl = NULL;
	uint32_t g = UINT32_MAX;
	char cpus[32];

	for (int c = 0; c < PMA_LEARN_NFEAT; c++)
		x[c] = NAN;
	*T_s = NAN;
	for (size_t i = 0; i < t->rows; i++) {
		if (t->family[i] != f)
			continue;
		if (!like) {
			like = &t->row[i];
			xl = &t->X[i * PMA_LEARN_NFEAT];
		}
		if (t->X[i * PMA_LEARN_NFEAT + PMA_F_THREADS] == m) {
			g = t->group[i];
			break;
		}
	}
	if (!like)
		return 0;
	if (n == 1)
		snprintf(cpus, sizeof(cpus), "0");
	else
		snprintf(cpus, sizeof(cpus), "0-%u", n - 1);
	base_x(&t->machine[like->machine], m, n, cpus, like->run->info.mem_mode, xl[PMA_F_SIZE], x);
	if (g == UINT32_MAX)
		return 0;
	return pma_learn_model_x(t, g, n, pma_machine_first_socket(&t->machine[like->machine], cpus, n),
				 NULL, 0, x, T_s);
}

void pma_learn_family(const struct pma_learn_table *t, uint32_t f, const char **program,
		      double *size)
{
	*program = "?";
	*size = NAN;
	for (size_t i = 0; i < t->rows; i++)
		if (t->family[i] == f) {
			*program = t->program_name[t->program[i]];
			*size = t->X[i * PMA_LEARN_NFEAT + PMA_F_SIZE];
			return;
		}
}

void pma_learn_table_free(struct pma_learn_table *t)
{
	for (uint32_t i = 0; t->program_name && i < t->nprograms; i++)
		free(t->program_name[i]);
	for (uint32_t i = 0; t->machine && i < t->nmachines; i++)
		pma_machine_free(&t->machine[i]);
	free(t->machine);
	free(t->program_name);
	free(t->program);
	free(t->family);
	free(t->group);
	free(t->row);
	free(t->X);
	free(t->y);
	free(t->config);
	memset(t, 0, sizeof(*t));
}

int pma_learn_check(const struct pma_learn_table *t, char *why, size_t whysize)
{
	size_t len;

	if (t->nconfigs < 2) {
		snprintf(why, whysize, "one configuration only: held-out evaluation needs runs of at least "
			 "two configurations (thread count, cores, memory policy, size)");
		return -1;
	}
	if (t->nprograms < 2)
		return 0;
	for (uint32_t p = 0; p < t->nprograms; p++) {
		uint32_t first = UINT32_MAX;
		for (size_t i = 0; i < t->rows; i++) {
			if (t->program[i] != p)
				continue;
			if (first == UINT32_MAX)
				first = t->config[i];
			else if (t->config[i] != first)
				return 0; /* program p ran in two configurations */
		}
	}
	len = (size_t)snprintf(why, whysize, "no runs in common: the traces hold %u programs (",
			       t->nprograms);
	for (uint32_t p = 0; p < t->nprograms && len < whysize; p++)
		len += (size_t)snprintf(why + len, whysize - len, "%s%s", p ? ", " : "",
					t->program_name[p]);
	if (len < whysize)
		snprintf(why + len, whysize - len, ") and each ran in one configuration only: every "
			 "configuration would be predicted from other programs' runs; record one program "
			 "at two or more thread, CPU or size settings");
	return -1;
}

int pma_learn_fold_x(void *ctx, const uint32_t *fold, uint32_t k, double *X, char *why,
		     size_t whysize)
{
	struct pma_learn_fold_ctx *c = ctx;
	const struct pma_learn_table *t = c->t;
	struct pma_power_model pm;
	int have_pm = 0;

	if (c->model_y && t->target == PMA_TARGET_ENERGY) {
		char pwhy[300];
		have_pm = fold_power(t, fold, k, &pm, pwhy, sizeof(pwhy)) == 0;
	}
	(void)why;
	(void)whysize;
	for (size_t i = 0; i < t->rows; i++) {
		double *x = &X[i * PMA_LEARN_NFEAT], T_s;
		memcpy(x, &t->X[i * PMA_LEARN_NFEAT], PMA_LEARN_NBASE * sizeof(double));
		pma_learn_model_x(t, t->group[i], t->row[i].run->cpus_n, t->row[i].pt.n_first, fold, k,
				  x, &T_s);
		if (c->model_y && fold[i] == k)
			c->model_y[i] = pma_learn_model_y(t, x[PMA_F_A], T_s, have_pm ? &pm : NULL);
	}
	return 0;
}

int pma_learn_evaluate(const struct pma_learn_table *t, const struct pma_forest_params *p,
		       struct pma_learn_eval *out, char *why, size_t whysize)
{
	double *Xb = NULL, *My = NULL, *ym = NULL, *Mm = NULL;
	struct pma_learn_fold_ctx ctx = { t, NULL };
	struct pma_fold_x fx = { pma_learn_fold_x, &ctx };
	size_t nm = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (pma_learn_check(t, why, whysize) < 0)
		return -1;
	out->folds = t->nconfigs < 5 ? t->nconfigs : 5;
	Xb = calloc(t->rows * PMA_LEARN_NBASE, sizeof(double));
	My = calloc(t->rows, sizeof(double));
	ym = calloc(t->rows, sizeof(double));
	Mm = calloc(t->rows, sizeof(double));
	if (!Xb || !My || !ym || !Mm) {
		snprintf(why, whysize, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < t->rows; i++) {
		memcpy(&Xb[i * PMA_LEARN_NBASE], &t->X[i * PMA_LEARN_NFEAT], PMA_LEARN_NBASE * sizeof(double));
		My[i] = NAN;
	}
	ctx.model_y = My;
	if (pma_forest_holdout(Xb, NULL, t->y, t->config, t->rows, PMA_LEARN_NBASE, out->folds, p,
			       NULL, &out->forest_base, why, whysize) < 0 ||
	    pma_forest_holdout(NULL, &fx, t->y, t->config, t->rows, PMA_LEARN_NFEAT, out->folds, p,
			       NULL, &out->forest_model, why, whysize) < 0)
		goto done;
	for (size_t i = 0; i < t->rows; i++)
		if (isfinite(My[i])) {
			Mm[nm] = My[i];
			ym[nm++] = t->y[i];
		}
	if (!nm || pma_fit_quality(ym, Mm, nm, &out->model) < 0) {
		struct pma_power_model pm;
		char pwhy[300] = "";
		out->model.n = 0;
		if (t->target == PMA_TARGET_ENERGY && fold_power(t, NULL, 0, &pm, pwhy, sizeof(pwhy)) < 0)
			snprintf(out->model_why, sizeof(out->model_why), "no power model: %s", pwhy);
		else
			snprintf(out->model_why, sizeof(out->model_why), nm ? "the runs' target does not "
				 "vary" : "no held-out run has a baseline in the training folds");
	}
	rc = 0;
done:
	free(Xb);
	free(My);
	free(ym);
	free(Mm);
	return rc;
}
