/* SPDX-License-Identifier: MIT */
/* learn.c: the TOEP training table (runs x configuration features + the model's prediction) and
 * the held-out comparison of the analytical model and the two forests. */
#include "learn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

const char *pma_learn_feature_name(int f)
{
	static const char *const names[PMA_LEARN_NFEAT] = {
		"threads", "cores", "sockets", "mempolicy", "size", "llc_misses", "stall_cycles",
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

/* The model's columns for row i: the baseline of its group predicts its core count. */
static void model_features(const struct row_src *src, size_t nsrc, size_t i, double *x)
{
	const struct row_src *r = &src[i], *base = NULL;
	struct pma_prediction q;
	uint32_t n = r->run->cpus_n;

	for (size_t j = 0; j < nsrc; j++) {
		const struct row_src *c = &src[j];
		if (same_command(&c->t->meta, &r->t->meta) && same_num(c->size, r->size) &&
		    same_num(c->threads, r->threads) && (!base || c->run->cpus_n < base->run->cpus_n))
			base = c;
	}
	x[PMA_F_A] = x[PMA_F_OMEGA] = x[PMA_F_T_MODEL] = NAN;
	if (!base || pma_profile_predict(pma_run_profile(base->run, PMA_EST_RUNNABLE), &n, 1, NULL,
					 &q) < 0)
		return;
	x[PMA_F_A] = q.A;
	x[PMA_F_T_MODEL] = q.T_ns / 1e9;
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

int pma_learn_table(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		    struct pma_learn_table *t, char *why, size_t whysize)
{
	struct row_src *src;
	size_t all = 0, k = 0;
	const char *energy_reason = NULL;

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
			if (!ri->has_end || run->st.intervals == 0 || run->cpus_n == 0 ||
			    pma_run_wall_s(run) <= 0 || !pma_run_profile(run, PMA_EST_RUNNABLE))
				continue;
			if (target == PMA_TARGET_ENERGY && !(ri->energy.present && isfinite(ri->energy.package_uj))) {
				if (!energy_reason)
					energy_reason = ri->energy.reason;
				continue;
			}
			src[k].t = &traces[i];
			src[k].run = run;
			src[k].threads = isfinite(ri->threads) && ri->threads > 0 ? ri->threads : run->m;
			src[k].size = label_size(&traces[i].meta);
			k++;
		}
	if (k == 0) {
		if (target == PMA_TARGET_ENERGY)
			snprintf(why, whysize, "--target energy: no run has energy readings (%s)",
				 energy_reason ? energy_reason : "no finished run");
		else
			snprintf(why, whysize, "no finished run with samples in the traces");
		free(src);
		return -1;
	}
	t->X = calloc(k * PMA_LEARN_NFEAT, sizeof(double));
	t->y = calloc(k, sizeof(double));
	t->config = calloc(k, sizeof(uint32_t));
	t->program = calloc(k, sizeof(uint32_t));
	t->program_name = calloc(k, sizeof(char *));
	if (!t->X || !t->y || !t->config || !t->program || !t->program_name) {
		free(src);
		pma_learn_table_free(t);
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	t->rows = k;
	t->target = target;
	for (size_t i = 0; i < k; i++) {
		const struct pma_run *run = src[i].run;
		const struct pma_meta *m = &src[i].t->meta;
		double *x = &t->X[i * PMA_LEARN_NFEAT];
		double per_pkg = m->topo.packages > 0 && m->topo.pus > 0 ? m->topo.pus / m->topo.packages : 0;
		const struct pma_run_energy *e = &run->info.energy;

		x[PMA_F_THREADS] = src[i].threads;
		x[PMA_F_CORES] = run->cpus_n;
		x[PMA_F_SOCKETS] = per_pkg > 0 ? ceil(run->cpus_n / per_pkg) : NAN;
		x[PMA_F_MEMPOL] = mempol_code(run->info.mem_mode);
		x[PMA_F_SIZE] = src[i].size;
		x[PMA_F_LLC] = run->info.C.llc_misses;
		x[PMA_F_STALLS] = run->info.C.stall_cycles;
		model_features(src, k, i, x);
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
			pma_learn_table_free(t);
			snprintf(why, whysize, "out of memory");
			return -1;
		}
	}
	free(src);
	return 0;
}

void pma_learn_table_free(struct pma_learn_table *t)
{
	for (uint32_t i = 0; t->program_name && i < t->nprograms; i++)
		free(t->program_name[i]);
	free(t->program_name);
	free(t->program);
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

int pma_learn_evaluate(const struct pma_learn_table *t, const struct pma_forest_params *p,
		       struct pma_learn_eval *out, char *why, size_t whysize)
{
	double *Xb = NULL, *Tm = NULL, *ym = NULL;
	size_t nm = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (pma_learn_check(t, why, whysize) < 0)
		return -1;
	out->folds = t->nconfigs < 5 ? t->nconfigs : 5;
	Xb = calloc(t->rows * PMA_LEARN_NBASE, sizeof(double));
	Tm = calloc(t->rows, sizeof(double));
	ym = calloc(t->rows, sizeof(double));
	if (!Xb || !Tm || !ym) {
		snprintf(why, whysize, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < t->rows; i++) {
		memcpy(&Xb[i * PMA_LEARN_NBASE], &t->X[i * PMA_LEARN_NFEAT], PMA_LEARN_NBASE * sizeof(double));
		if (isfinite(t->X[i * PMA_LEARN_NFEAT + PMA_F_T_MODEL])) {
			Tm[nm] = t->X[i * PMA_LEARN_NFEAT + PMA_F_T_MODEL];
			ym[nm++] = t->y[i];
		}
	}
	/* the model predicts time; its energy prediction needs the power model (energy_eval.h) */
	if (t->target == PMA_TARGET_TIME && nm && pma_fit_quality(ym, Tm, nm, &out->model) < 0)
		out->model.n = 0;
	if (pma_forest_holdout(Xb, t->y, t->config, t->rows, PMA_LEARN_NBASE, out->folds, p, NULL,
			       &out->forest_base, why, whysize) < 0 ||
	    pma_forest_holdout(t->X, t->y, t->config, t->rows, PMA_LEARN_NFEAT, out->folds, p, NULL,
			       &out->forest_model, why, whysize) < 0)
		goto done;
	rc = 0;
done:
	free(Xb);
	free(Tm);
	free(ym);
	return rc;
}
