/* SPDX-License-Identifier: MIT */
/* toep.c: TOEP's shaping, variable reduction, six training fractions and eq. (1) selection,
 * with the random forest of forest.c and linear regression (GSL) side by side. */
#include "toep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_vector.h>

#include "pm_util.h"

const uint32_t pma_toep_denominator[PMA_TOEP_NSETS] = { 2000, 1000, 100, 10, 4, 3 };

int pma_toep_select(const double *selection, size_t n, double *threshold)
{
	double T = 0.0; /* §III-A-4a: "Initially, it is set to zero" */
	int best = -1;

	for (size_t i = 0; i < n; i++)
		if (selection[i] > T) { /* NAN compares false */
			T = selection[i];
			best = (int)i;
		}
	if (threshold)
		*threshold = T;
	return best;
}

void pma_toep_result_free(struct pma_toep_result *r)
{
	free(r->importance);
	r->importance = NULL;
}

static double now_s(void)
{
	return (double)pm_mono_ns() / 1e9;
}

/* The shaped table (§III-A-2): row order by decreasing y, ties by original index. */
static const double *sort_y;
static int cmp_desc(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (sort_y[i] != sort_y[j])
		return sort_y[i] < sort_y[j] ? 1 : -1;
	return (i > j) - (i < j);
}

/* Copies the columns cols[0..k-1] of the rows idx[0..n-1] of X (width w) into out (n x k). */
static void gather(const double *X, size_t w, const size_t *idx, size_t n, const size_t *cols,
		   size_t k, double *out)
{
	for (size_t r = 0; r < n; r++)
		for (size_t c = 0; c < k; c++)
			out[r * k + c] = X[idx[r] * w + cols[c]];
}

/* Least squares y = b0 + sum b_c x_c over the training rows (n x k), missing values replaced by
 * the training column's mean (a column without any finite value is left out); predicts the test
 * rows into yhat. Returns 0, or -1 when there are not more rows than coefficients. */
static int lrm_fit_predict(const double *Xtr, const double *ytr, size_t n, size_t k,
			   const double *Xte, size_t nte, double *yhat)
{
	double mean[PMA_TOEP_NKEEP + 64] = { 0 }, chisq;
	size_t use[PMA_TOEP_NKEEP + 64], p = 1;
	gsl_multifit_linear_workspace *ws;
	gsl_matrix *A, *cov;
	gsl_vector *b, *yv;
	int rc = -1;

	if (k > 64)
		return -1;
	for (size_t c = 0; c < k; c++) {
		size_t cnt = 0;
		for (size_t r = 0; r < n; r++)
			if (isfinite(Xtr[r * k + c])) {
				mean[c] += Xtr[r * k + c];
				cnt++;
			}
		if (cnt) {
			mean[c] /= (double)cnt;
			use[p++] = c;
		}
	}
	if (n <= p)
		return -1;
	A = gsl_matrix_alloc(n, p);
	cov = gsl_matrix_alloc(p, p);
	b = gsl_vector_alloc(p);
	yv = gsl_vector_alloc(n);
	ws = gsl_multifit_linear_alloc(n, p);
	if (!A || !cov || !b || !yv || !ws)
		goto out;
	for (size_t r = 0; r < n; r++) {
		gsl_matrix_set(A, r, 0, 1.0);
		for (size_t j = 1; j < p; j++) {
			double v = Xtr[r * k + use[j]];
			gsl_matrix_set(A, r, j, isfinite(v) ? v : mean[use[j]]);
		}
		gsl_vector_set(yv, r, ytr[r]);
	}
	/* SVD solution: collinear or constant columns get the minimum-norm coefficients */
	if (gsl_multifit_linear(A, yv, b, cov, &chisq, ws) != GSL_SUCCESS)
		goto out;
	for (size_t r = 0; r < nte; r++) {
		double v = gsl_vector_get(b, 0);
		for (size_t j = 1; j < p; j++) {
			double x = Xte[r * k + use[j]];
			v += gsl_vector_get(b, j) * (isfinite(x) ? x : mean[use[j]]);
		}
		yhat[r] = v;
	}
	rc = 0;
out:
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(A);
	gsl_matrix_free(cov);
	gsl_vector_free(b);
	gsl_vector_free(yv);
	return rc;
}

/* Working memory of one run. */
struct work {
	size_t *order;         /* shaped row order */
	size_t *tr, *te;       /* indices (into X) of training and test rows */
	double *Xtr, *Xte, *ytr, *yte, *pred;
	double *Xf;            /* [rows x cols]: what the held-out line's fx wrote for a fold */
};

/* Evaluates one method: the sample 1/m->denominator of the shaped rows, features cols[0..k-1].
 * With imp not NULL, the forest's importances (per used column) go there. */
static int eval_method(const double *X, const double *y, size_t rows, size_t w, const size_t *cols,
		       size_t k, const struct pma_forest_params *p, struct work *wk,
		       struct pma_toep_method *m, double *imp, char *why, size_t whysize)
{
	struct pma_forest *f = NULL;
	size_t ntr = rows / m->denominator, nte = 0, j = 0;
	double t0;

	if (ntr < 2)
		ntr = 2;
	m->ncols = k;
	m->ntrain = ntr;
	for (size_t r = 0, next = 0; r < rows; r++) {
		/* equidistant: the j-th training row is floor(j rows / ntr) of the shaped order */
		if (j < ntr && r == next) {
			wk->tr[j++] = wk->order[r];
			next = j * rows / ntr;
		} else {
			wk->te[nte++] = wk->order[r];
		}
	}
	m->ntest = nte;
	if (nte < 2) {
		snprintf(m->why, sizeof(m->why), "%zu test rows", nte);
		return 0;
	}
	gather(X, w, wk->tr, ntr, cols, k, wk->Xtr);
	gather(X, w, wk->te, nte, cols, k, wk->Xte);
	for (size_t r = 0; r < ntr; r++)
		wk->ytr[r] = y[wk->tr[r]];
	for (size_t r = 0; r < nte; r++)
		wk->yte[r] = y[wk->te[r]];
	t0 = now_s();
	if (pma_forest_train(&f, wk->Xtr, wk->ytr, ntr, k, p, why, whysize) < 0 ||
	    pma_forest_predict(f, wk->Xte, nte, wk->pred, NULL, NULL, why, whysize) < 0) {
		pma_forest_free(f);
		return -1;
	}
	m->toep_t_s = now_s() - t0;
	if (imp && pma_forest_importance(f, imp, why, whysize) < 0) {
		pma_forest_free(f);
		return -1;
	}
	pma_forest_free(f);
	if (pma_fit_quality(wk->yte, wk->pred, nte, &m->rfm) < 0) {
		snprintf(m->why, sizeof(m->why), "the test rows' target does not vary");
		return 0;
	}
	m->ok = 1;
	m->lrm_ok = lrm_fit_predict(wk->Xtr, wk->ytr, ntr, k, wk->Xte, nte, wk->pred) == 0 &&
		    pma_fit_quality(wk->yte, wk->pred, nte, &m->lrm) == 0;
	return 0;
}

/* Whether column c has two distinct finite values (a feature a tree can split on). */
static int varies(const double *X, size_t rows, size_t w, size_t c)
{
	double first = NAN;

	for (size_t r = 0; r < rows; r++) {
		double v = X[r * w + c];
		if (!isfinite(v))
			continue;
		if (isnan(first))
			first = v;
		else if (v != first)
			return 1;
	}
	return 0;
}

/* pma_fold_x for the held-out line: the caller's features for the fold, kept columns only. */
struct kept_x {
	const struct pma_fold_x *fx;
	const size_t *keep;
	size_t nkeep, cols;
	double *full;          /* [rows x cols] */
	size_t rows;
};

static int kept_fold_x(void *arg, const uint32_t *fold, uint32_t k, double *X, char *why,
		       size_t whysize)
{
	struct kept_x *a = arg;

	if (a->fx->fn(a->fx->arg, fold, k, a->full, why, whysize) < 0)
		return -1;
	for (size_t r = 0; r < a->rows; r++)
		for (size_t c = 0; c < a->nkeep; c++)
			X[r * a->nkeep + c] = a->full[r * a->cols + a->keep[c]];
	return 0;
}

int pma_toep_run(const double *X, const struct pma_fold_x *fx, const double *y,
		 const uint32_t *config, size_t rows, size_t cols, const struct pma_forest_params *p,
		 struct pma_toep_result *out, char *why, size_t whysize)
{
	struct work wk = { 0 };
	size_t *all = NULL;
	double sel[PMA_TOEP_NSETS];
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->rows = rows;
	out->cols = cols;
	out->selected = -1;
	if (rows < 6 || !cols) {
		snprintf(why, whysize, "TOEP needs at least 6 runs (its smallest test set is 2 runs "
			 "beside a training sample of 1/3 of them); the traces have %zu", rows);
		return -1;
	}
	for (size_t r = 0; r < rows; r++)
		if (!isfinite(y[r])) {
			snprintf(why, whysize, "run %zu has no target value", r);
			return -1;
		}
	wk.order = malloc(rows * sizeof(size_t));
	wk.tr = malloc(rows * sizeof(size_t));
	wk.te = malloc(rows * sizeof(size_t));
	wk.Xtr = malloc(rows * cols * sizeof(double));
	wk.Xte = malloc(rows * cols * sizeof(double));
	wk.ytr = malloc(rows * sizeof(double));
	wk.yte = malloc(rows * sizeof(double));
	wk.pred = malloc(rows * sizeof(double));
	wk.Xf = fx ? malloc(rows * cols * sizeof(double)) : NULL;
	all = malloc(cols * sizeof(size_t));
	out->importance = calloc(cols, sizeof(double));
	if (!wk.order || !wk.tr || !wk.te || !wk.Xtr || !wk.Xte || !wk.ytr || !wk.yte || !wk.pred ||
	    !all || !out->importance || (fx && !wk.Xf)) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	/* Shaping Data (§III-A-2): decreasing target */
	for (size_t r = 0; r < rows; r++)
		wk.order[r] = r;
	sort_y = y;
	qsort(wk.order, rows, sizeof(size_t), cmp_desc);
	for (size_t c = 0; c < cols; c++)
		all[c] = c;

	/* Method 1: every feature (TRSet6's sample); its importances reduce the variables */
	out->method[0].denominator = pma_toep_denominator[PMA_TOEP_NSETS - 1];
	if (eval_method(X, y, rows, cols, all, cols, p, &wk, &out->method[0], out->importance, why,
			whysize) < 0)
		goto out;
	for (size_t k = 0; k < PMA_TOEP_NKEEP; k++) {
		size_t best = cols;
		for (size_t c = 0; c < cols; c++) {
			int taken = 0;
			for (size_t j = 0; j < out->nkeep; j++)
				taken |= out->keep[j] == c;
			if (!taken && varies(X, rows, cols, c) &&
			    (best == cols || out->importance[c] > out->importance[best]))
				best = c;
		}
		if (best == cols)
			break;
		out->keep[out->nkeep++] = best;
	}
	if (!out->nkeep) {
		snprintf(why, whysize, "no feature varies across the runs");
		goto out;
	}
	/* Method 2: the kept features, the same sample; Methods 3-8: TRSet1..6 */
	for (int m = 1; m < PMA_TOEP_NMETHODS; m++) {
		struct pma_toep_method *me = &out->method[m];
		me->denominator = pma_toep_denominator[m == 1 ? PMA_TOEP_NSETS - 1 : m - 2];
		if (eval_method(X, y, rows, cols, out->keep, out->nkeep, p, &wk, me, NULL, why,
				whysize) < 0)
			goto out;
	}
	/* eq. (1) in the paper's scale: R² in percent (Selection 6.37 = 83.3 / 13.06 s, §IV-D) */
	out->method[0].selection = out->method[1].selection = NAN;
	for (int k = 0; k < PMA_TOEP_NSETS; k++) {
		struct pma_toep_method *me = &out->method[k + 2];
		me->selection = me->ok && me->toep_t_s > 0 ? 100.0 * me->rfm.R2 / me->toep_t_s : NAN;
		sel[k] = me->selection;
	}
	out->selected = pma_toep_select(sel, PMA_TOEP_NSETS, &out->threshold);
	if (out->selected >= 0)
		out->selected += 2;
	/* the kept features on held-out whole configurations: what TOEP's sampled test rows,
	 * neighbours of training rows in the shaped order, do not measure */
	if (config) {
		size_t distinct = 0;
		for (size_t r = 0; r < rows; r++) {
			size_t q = 0;
			while (q < r && config[q] != config[r])
				q++;
			distinct += q == r;
		}
		if (distinct >= 2) {
			struct kept_x ka = { fx, out->keep, out->nkeep, cols, wk.Xf, rows };
			struct pma_fold_x kfx = { kept_fold_x, &ka };
			out->holdout_folds = distinct < 5 ? (uint32_t)distinct : 5;
			for (size_t r = 0; r < rows; r++)
				for (size_t c = 0; c < out->nkeep; c++)
					wk.Xtr[r * out->nkeep + c] = X[r * cols + out->keep[c]];
			if (pma_forest_holdout(wk.Xtr, fx ? &kfx : NULL, y, config, rows, out->nkeep,
					       out->holdout_folds, p, NULL, &out->holdout, why,
					       whysize) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	free(wk.order);
	free(wk.tr);
	free(wk.te);
	free(wk.Xtr);
	free(wk.Xte);
	free(wk.ytr);
	free(wk.yte);
	free(wk.pred);
	free(wk.Xf);
	free(all);
	if (rc < 0)
		pma_toep_result_free(out);
	return rc;
}
