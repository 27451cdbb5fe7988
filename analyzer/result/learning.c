/* SPDX-License-Identifier: MIT */
/* learning.c: --learn, --toep and --predict computed into results (learning.h). */
#include "learning.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"

int pma_predict_configs_parse(const char *list, struct pma_predict_configs *c, char *why,
			      size_t whysize)
{
	char buf[4096], *save = NULL, *tok;
	int k = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char end;
		if (k == PMA_PREDICT_MAX) {
			snprintf(why, whysize, "too many configurations in --predict (at most %d)",
				 PMA_PREDICT_MAX);
			return -1;
		}
		if (sscanf(tok, "%u:%u%c", &c->threads[k], &c->cores[k], &end) != 2 ||
		    c->threads[k] == 0 || c->cores[k] == 0 || c->threads[k] > 1000000 ||
		    c->cores[k] > 1000000) {
			snprintf(why, whysize, "invalid configuration '%s' in --predict: want "
				 "<threads>:<cores>", tok);
			return -1;
		}
		k++;
	}
	c->n = k;
	if (!k)
		snprintf(why, whysize, "--predict: no configuration given");
	return k ? k : -1;
}

/* The forest's predictions for cfg into p: per configuration, one row per program family of t
 * that ran its thread count (with the model's T(n)), else one row of the last family (without);
 * t->rows 0: features from the configuration alone. Returns 0 or -1 with a reason. */
static int predict_rows(const struct pma_forest *f, const struct pma_learn_table *t,
			const struct pma_predict_configs *cfg, struct pma_predictions *p, char *why,
			size_t whysize)
{
	double x[PMA_LEARN_NFEAT], T_s;
	size_t cap = 0;

	for (int i = 0; i < cfg->n; i++) {
		unsigned m = cfg->threads[i], c = cfg->cores[i];
		uint32_t nfam = t->rows ? t->nfamilies : 1, shown = 0;
		/* the families that ran m threads; when none did, the last one (without model columns) */
		for (uint32_t fam = 0; fam < nfam; fam++) {
			struct pma_predict_row r = { .threads = m, .cores = c, .size = NAN };
			const char *program = "-";
			if (t->rows) {
				int has = pma_learn_config_x(t, fam, m, c, x, &T_s);
				if (!has && (shown || fam + 1 < nfam))
					continue;
				pma_learn_family(t, fam, &program, &r.size);
			} else {
				for (int col = 0; col < PMA_LEARN_NFEAT; col++)
					x[col] = NAN;
				x[PMA_F_THREADS] = m;
				x[PMA_F_CORES] = c;
				x[PMA_F_MEMPOL] = 0;
				T_s = NAN;
			}
			r.T_model_s = T_s;
			if (pma_forest_predict(f, x, 1, &r.mean, &r.p5, &r.p95, why, whysize) < 0)
				return -1;
			if (PM_GROW(p->row, cap, p->n + 1) < 0 ||
			    !(r.program = strdup(program ? program : "-"))) {
				snprintf(why, whysize, "out of memory");
				return -1;
			}
			p->row[p->n++] = r;
			shown++;
		}
	}
	return 0;
}

/* The common header of a learned result over traces. */
static void header(struct pma_result *r, enum pma_result_kind kind, const struct pma_trace *traces,
		   int ntraces)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->traces = ntraces ? traces : NULL;
	r->ntraces = ntraces;
	r->t = ntraces ? &traces[0] : NULL;
}

int pma_learn_compute(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		      const struct pma_predict_configs *cfg, int save_model, struct pma_result *r,
		      char *why, size_t whysize)
{
	struct pma_learn_result *l = &r->learn;
	struct pma_forest_params fp;
	struct pma_learn_table t;
	struct pma_forest *f = NULL;
	int rc = -1;

	header(r, PMA_RESULT_LEARN, traces, ntraces);
	pma_forest_params_default(&fp);
	if (pma_learn_table(traces, ntraces, target, &t, why, whysize) < 0) {
		pma_result_free(r);
		return -1;
	}
	if (pma_learn_evaluate(&t, &fp, &l->ev, why, whysize) < 0 ||
	    pma_forest_train(&f, t.X, t.y, t.rows, PMA_LEARN_NFEAT, &fp, why, whysize) < 0 ||
	    pma_forest_importance(f, l->importance, why, whysize) < 0 ||
	    (save_model && pma_forest_save(f, &l->model, &l->model_bytes, why, whysize) < 0) ||
	    (cfg && predict_rows(f, &t, cfg, &l->pred, why, whysize) < 0))
		goto done;
	if (cfg)
		pma_predictions_check(&l->pred, &t, &l->ev);
	l->rows = t.rows;
	l->nconfigs = t.nconfigs;
	l->trees = pma_forest_trees(f);
	l->target = target;
	l->energy_gap_runs = t.energy_gap_runs;
	l->energy_gap_max_s = t.energy_gap_max_s;
	l->energy_gap_run_id = (double)t.energy_gap_run_id;
	l->failed = t.failed;
	rc = 0;
done:
	if (rc < 0)
		pma_result_free(r);
	pma_forest_free(f);
	pma_learn_table_free(&t);
	return rc;
}

int pma_toep_compute(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		     struct pma_result *r, char *why, size_t whysize)
{
	struct pma_forest_params fp;
	struct pma_learn_table t;
	struct pma_learn_fold_ctx ctx = { &t, NULL };
	struct pma_fold_x fx = { pma_learn_fold_x, &ctx };
	int rc = -1;

	header(r, PMA_RESULT_TOEP, traces, ntraces);
	pma_forest_params_default(&fp);
	if (pma_learn_table(traces, ntraces, target, &t, why, whysize) < 0 ||
	    pma_learn_check(&t, why, whysize) < 0 ||
	    pma_toep_run(t.X, &fx, t.y, t.config, t.rows, PMA_LEARN_NFEAT, &fp, &r->toep.r, why,
			 whysize) < 0)
		goto done;
	r->toep.rows = t.rows;
	r->toep.nconfigs = t.nconfigs;
	r->toep.trees = fp.num_parallel_tree;
	r->toep.target = target;
	rc = 0;
done:
	if (rc < 0)
		pma_result_free(r);
	pma_learn_table_free(&t);
	return rc;
}

int pma_predict_compute(const struct pma_forest *f, const struct pma_trace *traces, int ntraces,
			const struct pma_predict_configs *cfg, struct pma_result *r, char *why,
			size_t whysize)
{
	struct pma_learn_table t = { 0 };
	int rc = -1;

	header(r, PMA_RESULT_PREDICT, traces, ntraces);
	if ((ntraces && pma_learn_table(traces, ntraces, PMA_TARGET_TIME, &t, why, whysize) < 0) ||
	    predict_rows(f, &t, cfg, &r->predict, why, whysize) < 0)
		goto done;
	rc = 0;
done:
	if (rc < 0)
		pma_result_free(r);
	pma_learn_table_free(&t);
	return rc;
}
