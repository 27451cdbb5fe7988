/* SPDX-License-Identifier: MIT */
/* forest.c: random forests over run configurations with xgboost 1.7's C API. */
#include "forest.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <xgboost/c_api.h>

struct pma_forest {
	BoosterHandle booster;
	size_t cols;
	uint32_t ntrees;
	double base_score;
	float **leaf;        /* leaf[t][node]: stored leaf value of node in tree t (JSON split_conditions) */
	size_t *nnodes;
};

#define XGB_TRY(call) do { if ((call) != 0) { xgb_why(why, whysize, #call); goto out; } } while (0)

static void xgb_why(char *why, size_t whysize, const char *call)
{
	const char *msg = XGBGetLastError();
	const char *paren = strchr(call, '(');
	const char *rest;

	/* xgboost's messages start with "[time] file:line: "; the reason is what follows */
	if (msg && msg[0] == '[' && (rest = strstr(msg, "] ")) && (rest = strstr(rest + 2, ": ")))
		msg = rest + 2;
	snprintf(why, whysize, "xgboost %.*s: %s", paren ? (int)(paren - call) : (int)strlen(call), call,
		 msg && *msg ? msg : "failed");
}

void pma_forest_params_default(struct pma_forest_params *p)
{
	p->num_parallel_tree = 300;
	p->max_depth = 8;
	p->subsample = 0.632;
	p->colsample_bynode = 0.67;
	p->seed = 1;
	p->nthread = 1;
}

void pma_forest_free(struct pma_forest *f)
{
	if (!f)
		return;
	if (f->booster)
		XGBoosterFree(f->booster);
	for (uint32_t t = 0; f->leaf && t < f->ntrees; t++)
		free(f->leaf[t]);
	free(f->leaf);
	free(f->nnodes);
	free(f);
}

size_t pma_forest_cols(const struct pma_forest *f)
{
	return f->cols;
}

uint32_t pma_forest_trees(const struct pma_forest *f)
{
	return f->ntrees;
}

/* Reads the trees' leaf values and base_score from xgboost's JSON model (learner.
 * gradient_booster.model.trees[t].split_conditions holds a leaf's value at a leaf node;
 * learner.learner_model_param.base_score is a string). The C API has no per-tree prediction in
 * random-forest mode (iteration ranges select whole rounds, and the forest is one round), so
 * per-tree predictions are leaf indices (prediction type 6) looked up here. */
static int load_leaves(struct pma_forest *f, char *why, size_t whysize)
{
	const char *buf = NULL, *base;
	bst_ulong len = 0;
	cJSON *root = NULL, *learner, *trees, *tree;
	int rc = -1;
	uint32_t t = 0;

	XGB_TRY(XGBoosterSaveModelToBuffer(f->booster, "{\"format\": \"json\"}", &len, &buf));
	root = cJSON_ParseWithLength(buf, len);
	learner = cJSON_GetObjectItemCaseSensitive(root, "learner");
	base = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(learner, "learner_model_param"), "base_score"));
	trees = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(learner, "gradient_booster"), "model"), "trees");
	if (!base || !cJSON_IsArray(trees) || cJSON_GetArraySize(trees) < 1) {
		snprintf(why, whysize, "xgboost model has no trees or no base_score");
		goto out;
	}
	f->base_score = strtod(base, NULL);
	f->ntrees = (uint32_t)cJSON_GetArraySize(trees);
	f->leaf = calloc(f->ntrees, sizeof(*f->leaf));
	f->nnodes = calloc(f->ntrees, sizeof(*f->nnodes));
	if (!f->leaf || !f->nnodes) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	cJSON_ArrayForEach(tree, trees) {
		cJSON *sc = cJSON_GetObjectItemCaseSensitive(tree, "split_conditions"), *v;
		size_t i = 0;

		if (!cJSON_IsArray(sc)) {
			snprintf(why, whysize, "xgboost model: tree %" PRIu32 " has no split_conditions", t);
			goto out;
		}
		f->nnodes[t] = (size_t)cJSON_GetArraySize(sc);
		f->leaf[t] = malloc((f->nnodes[t] ? f->nnodes[t] : 1) * sizeof(float));
		if (!f->leaf[t]) {
			snprintf(why, whysize, "out of memory");
			goto out;
		}
		cJSON_ArrayForEach(v, sc)
			f->leaf[t][i++] = (float)cJSON_GetNumberValue(v);
		t++;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

static int make_dmatrix(DMatrixHandle *d, const double *X, size_t rows, size_t cols, char *why,
			size_t whysize)
{
	float *Xf = malloc(rows * cols * sizeof(*Xf) + 1);
	int rc = -1;

	*d = NULL;
	if (!Xf) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < rows * cols; i++)
		Xf[i] = (float)X[i];
	XGB_TRY(XGDMatrixCreateFromMat(Xf, (bst_ulong)rows, (bst_ulong)cols, NAN, d));
	rc = 0;
out:
	free(Xf);
	return rc;
}

int pma_forest_train(struct pma_forest **out, const double *X, const double *y, size_t rows,
		     size_t cols, const struct pma_forest_params *p, char *why, size_t whysize)
{
	char trees[32], sub[32], col[32], depth[32], seed[32], base[48], nthread[32];
	struct pma_forest *f = NULL;
	DMatrixHandle d = NULL;
	float *yf = NULL;
	double mean = 0.0;
	int rc = -1;

	*out = NULL;
	if (rows < 2 || !cols) {
		snprintf(why, whysize, "a forest needs at least 2 runs and 1 feature (%zu runs, %zu "
			 "features)", rows, cols);
		return -1;
	}
	for (size_t i = 0; i < rows; i++) {
		if (!isfinite(y[i])) {
			snprintf(why, whysize, "run %zu has no target value", i);
			return -1;
		}
		mean += y[i] / (double)rows;
	}
	f = calloc(1, sizeof(*f));
	yf = malloc(rows * sizeof(*yf));
	if (!f || !yf) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	f->cols = cols;
	for (size_t i = 0; i < rows; i++)
		yf[i] = (float)y[i];
	if (make_dmatrix(&d, X, rows, cols, why, whysize) < 0)
		goto out;
	XGB_TRY(XGDMatrixSetFloatInfo(d, "label", yf, (bst_ulong)rows));
	/* xgboost logs warnings to stderr unless told not to; library code does not print */
	XGB_TRY(XGBSetGlobalConfig("{\"verbosity\": 0}"));
	XGB_TRY(XGBoosterCreate(&d, 1, &f->booster));
	snprintf(trees, sizeof(trees), "%" PRIu32, p->num_parallel_tree);
	snprintf(sub, sizeof(sub), "%.17g", p->subsample);
	snprintf(col, sizeof(col), "%.17g", p->colsample_bynode);
	snprintf(depth, sizeof(depth), "%" PRIu32, p->max_depth);
	snprintf(seed, sizeof(seed), "%" PRIu64, p->seed);
	snprintf(base, sizeof(base), "%.17g", mean);
	snprintf(nthread, sizeof(nthread), "%" PRIu32, p->nthread);
	{
		/* Random forest = one boosting round of num_parallel_tree trees with eta 1 and no
		 * L2 shrinkage of the leaves; base_score = mean(y) because the default (0.5) leaves
		 * each tree to fit y - 0.5 from a small table, which it does poorly. */
		const char *kv[][2] = {
			{ "booster", "gbtree" }, { "objective", "reg:squarederror" },
			{ "tree_method", "exact" }, { "num_parallel_tree", trees },
			{ "subsample", sub }, { "colsample_bynode", col }, { "max_depth", depth },
			{ "eta", "1" }, { "lambda", "0" }, { "base_score", base }, { "seed", seed },
			{ "nthread", nthread }, { "verbosity", "0" },
		};
		for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
			XGB_TRY(XGBoosterSetParam(f->booster, kv[i][0], kv[i][1]));
	}
	XGB_TRY(XGBoosterUpdateOneIter(f->booster, 0, d));
	if (load_leaves(f, why, whysize) < 0)
		goto out;
	*out = f;
	f = NULL;
	rc = 0;
out:
	if (d)
		XGDMatrixFree(d);
	free(yf);
	pma_forest_free(f);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of sorted v[n] by linear interpolation between order statistics. */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;

	return i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

int pma_forest_predict(const struct pma_forest *f, const double *X, size_t rows, double *mean,
		       double *lo, double *hi, char *why, size_t whysize)
{
	static const char cfg_value[] = "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, "
					"\"iteration_end\": 0, \"strict_shape\": false}";
	static const char cfg_leaf[] = "{\"type\": 6, \"training\": false, \"iteration_begin\": 0, "
				       "\"iteration_end\": 0, \"strict_shape\": false}";
	const bst_ulong *shape;
	bst_ulong dim;
	const float *res;
	DMatrixHandle d = NULL;
	double *tree = NULL;
	int rc = -1;

	if (!rows)
		return 0;
	if (make_dmatrix(&d, X, rows, f->cols, why, whysize) < 0)
		return -1;
	XGB_TRY(XGBoosterPredictFromDMatrix(f->booster, d, cfg_value, &shape, &dim, &res));
	for (size_t r = 0; r < rows; r++)
		mean[r] = res[r];
	if (!lo && !hi) {
		rc = 0;
		goto out;
	}
	XGB_TRY(XGBoosterPredictFromDMatrix(f->booster, d, cfg_leaf, &shape, &dim, &res));
	if (dim != 2 || shape[0] != rows || shape[1] != f->ntrees) {
		snprintf(why, whysize, "xgboost leaf prediction has an unexpected shape");
		goto out;
	}
	tree = malloc(f->ntrees * sizeof(*tree));
	if (!tree) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	for (size_t r = 0; r < rows; r++) {
		double sum = 0.0;

		for (uint32_t t = 0; t < f->ntrees; t++) {
			size_t node = (size_t)res[r * f->ntrees + t];

			if (node >= f->nnodes[t]) {
				snprintf(why, whysize, "xgboost leaf %zu is not in tree %" PRIu32, node, t);
				goto out;
			}
			tree[t] = f->base_score + (double)f->ntrees * f->leaf[t][node];
			sum += tree[t];
		}
		/* The trees' mean must be the forest's prediction: if a later xgboost scaled leaves
		 * differently, say so rather than print a wrong interval. */
		if (fabs(sum / f->ntrees - mean[r]) > 1e-4 * (fabs(mean[r]) + 1.0)) {
			snprintf(why, whysize, "per-tree predictions (mean %g) do not add up to the "
				 "forest's (%g): unsupported xgboost leaf scaling", sum / f->ntrees, mean[r]);
			goto out;
		}
		qsort(tree, f->ntrees, sizeof(*tree), cmp_double);
		if (lo)
			lo[r] = quantile(tree, f->ntrees, 0.05);
		if (hi)
			hi[r] = quantile(tree, f->ntrees, 0.95);
	}
	rc = 0;
out:
	free(tree);
	XGDMatrixFree(d);
	return rc;
}

int pma_forest_importance(const struct pma_forest *f, double *importance, char *why, size_t whysize)
{
	const char **names;
	const bst_ulong *shape;
	const float *score;
	bst_ulong n, dim;
	double total = 0.0;
	int rc = -1;

	for (size_t c = 0; c < f->cols; c++)
		importance[c] = 0.0;
	XGB_TRY(XGBoosterFeatureScore(f->booster, "{\"importance_type\": \"total_gain\"}", &n, &names,
				      &dim, &shape, &score));
	/* features are named f0, f1, ... (no names were set); unused ones are left out */
	for (bst_ulong i = 0; i < n; i++) {
		unsigned long c;
		char *end;

		if (names[i][0] != 'f')
			continue;
		c = strtoul(names[i] + 1, &end, 10);
		if (*end || c >= f->cols)
			continue;
		importance[c] = score[i];
		total += score[i];
	}
	if (total > 0.0)
		for (size_t c = 0; c < f->cols; c++)
			importance[c] /= total;
	rc = 0;
out:
	return rc;
}

int pma_forest_save(const struct pma_forest *f, unsigned char **buf, size_t *len, char *why,
		    size_t whysize)
{
	const char *model;
	bst_ulong mlen;
	char head[128];
	int major, minor, patch, n, rc = -1;

	*buf = NULL;
	*len = 0;
	XGB_TRY(XGBoosterSaveModelToBuffer(f->booster, "{\"format\": \"ubj\"}", &mlen, &model));
	XGBoostVersion(&major, &minor, &patch);
	n = snprintf(head, sizeof(head), "PMTFOREST %d %zu %d.%d.%d %" PRIu64 "\n", PMA_FOREST_VERSION,
		     f->cols, major, minor, patch, (uint64_t)mlen);
	*buf = malloc((size_t)n + mlen);
	if (!*buf) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	memcpy(*buf, head, (size_t)n);
	memcpy(*buf + n, model, mlen);
	*len = (size_t)n + mlen;
	rc = 0;
out:
	return rc;
}

int pma_forest_load(struct pma_forest **out, const unsigned char *buf, size_t len, char *why,
		    size_t whysize)
{
	char head[128], xgb[32];
	const unsigned char *nl;
	struct pma_forest *f = NULL;
	unsigned long long cols, mlen;
	bst_ulong nfeat;
	int version, rc = -1;
	size_t hlen;

	*out = NULL;
	nl = memchr(buf, '\n', len < sizeof(head) ? len : sizeof(head));
	if (len < 10 || memcmp(buf, "PMTFOREST ", 10) || !nl) {
		snprintf(why, whysize, "not a pmtools forest model");
		return -1;
	}
	hlen = (size_t)(nl - buf) + 1;
	memcpy(head, buf, hlen - 1);
	head[hlen - 1] = '\0';
	if (sscanf(head, "PMTFOREST %d", &version) != 1) {
		snprintf(why, whysize, "not a pmtools forest model");
		return -1;
	}
	if (version != PMA_FOREST_VERSION) {
		snprintf(why, whysize, "forest model version %d is not supported (this build reads "
			 "version %d)", version, PMA_FOREST_VERSION);
		return -1;
	}
	if (sscanf(head, "PMTFOREST %*d %llu %31s %llu", &cols, xgb, &mlen) != 3 || !cols ||
	    mlen != len - hlen) {
		snprintf(why, whysize, "forest model header does not match its length (%zu bytes)", len);
		return -1;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	f->cols = (size_t)cols;
	XGB_TRY(XGBSetGlobalConfig("{\"verbosity\": 0}"));
	XGB_TRY(XGBoosterCreate(NULL, 0, &f->booster));
	XGB_TRY(XGBoosterLoadModelFromBuffer(f->booster, buf + hlen, (bst_ulong)mlen));
	XGB_TRY(XGBoosterGetNumFeature(f->booster, &nfeat));
	if (nfeat != cols) {
		snprintf(why, whysize, "forest model header says %llu features, its trees %llu", cols,
			 (unsigned long long)nfeat);
		goto out;
	}
	if (load_leaves(f, why, whysize) < 0)
		goto out;
	*out = f;
	f = NULL;
	rc = 0;
out:
	pma_forest_free(f);
	return rc;
}

int pma_fit_quality(const double *y, const double *yhat, size_t n, struct pma_fit_quality *out)
{
	double mean = 0.0, ss_res = 0.0, ss_tot = 0.0, abs_err = 0.0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++)
		mean += y[i] / (double)n;
	for (size_t i = 0; i < n; i++) {
		ss_res += (y[i] - yhat[i]) * (y[i] - yhat[i]);
		ss_tot += (y[i] - mean) * (y[i] - mean);
		abs_err += fabs(y[i] - yhat[i]);
	}
	if (!(ss_tot > 0.0))
		return -1;
	out->R2 = 1.0 - ss_res / ss_tot;
	out->mean_abs_err = abs_err / (double)n;
	out->n = n;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int pma_forest_folds(const uint32_t *config, size_t rows, uint32_t folds, uint32_t *fold,
		     char *why, size_t whysize)
{
	uint32_t *ids = malloc(rows * sizeof(*ids) + 1);
	size_t nids = 0, i;

	if (!ids) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	memcpy(ids, config, rows * sizeof(*ids));
	qsort(ids, rows, sizeof(*ids), cmp_u32);
	for (i = 0; i < rows; i++)
		if (!nids || ids[nids - 1] != ids[i])
			ids[nids++] = ids[i];
	if (nids < 2 || folds < 2 || folds > nids) {
		snprintf(why, whysize, "held-out evaluation needs at least 2 configurations and 2 to "
			 "%zu folds (%zu configurations, %u folds)", nids, nids, folds);
		free(ids);
		return -1;
	}
	for (i = 0; i < rows; i++) {
		uint32_t *at = bsearch(&config[i], ids, nids, sizeof(*ids), cmp_u32);
		fold[i] = (uint32_t)((size_t)(at - ids) % folds);
	}
	free(ids);
	return 0;
}

int pma_forest_holdout(const double *X, const struct pma_fold_x *fx, const double *y,
		       const uint32_t *config, size_t rows, size_t cols, uint32_t folds,
		       const struct pma_forest_params *p, double *yhat, struct pma_fit_quality *out,
		       char *why, size_t whysize)
{
	uint32_t *fold = NULL;
	double *Xtr = NULL, *ytr = NULL, *Xte = NULL, *Xk = NULL, *pred = NULL, *all = NULL;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	fold = malloc(rows * sizeof(*fold) + 1);
	Xtr = malloc(rows * cols * sizeof(*Xtr) + 1);
	Xte = malloc(rows * cols * sizeof(*Xte) + 1);
	Xk = fx ? malloc(rows * cols * sizeof(*Xk) + 1) : NULL;
	ytr = malloc(rows * sizeof(*ytr) + 1);
	pred = malloc(rows * sizeof(*pred) + 1);
	all = malloc(rows * sizeof(*all) + 1);
	if (!fold || !Xtr || !Xte || (fx && !Xk) || !ytr || !pred || !all) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	if (pma_forest_folds(config, rows, folds, fold, why, whysize) < 0)
		goto out;
	for (uint32_t k = 0; k < folds; k++) {
		struct pma_forest *f = NULL;
		const double *Xf = X;
		size_t ntr = 0, nte = 0;

		if (fx) {
			if (fx->fn(fx->arg, fold, k, Xk, why, whysize) < 0)
				goto out;
			Xf = Xk;
		}
		for (i = 0; i < rows; i++) {
			if (fold[i] == k) {
				memcpy(Xte + nte++ * cols, Xf + i * cols, cols * sizeof(*Xf));
			} else {
				memcpy(Xtr + ntr * cols, Xf + i * cols, cols * sizeof(*Xf));
				ytr[ntr++] = y[i];
			}
		}
		if (pma_forest_train(&f, Xtr, ytr, ntr, cols, p, why, whysize) < 0 ||
		    pma_forest_predict(f, Xte, nte, pred, NULL, NULL, why, whysize) < 0) {
			pma_forest_free(f);
			goto out;
		}
		pma_forest_free(f);
		nte = 0;
		for (i = 0; i < rows; i++)
			if (fold[i] == k)
				all[i] = pred[nte++];
	}
	if (pma_fit_quality(y, all, rows, out) < 0) {
		snprintf(why, whysize, "the target does not vary: R² is undefined");
		goto out;
	}
	if (yhat)
		memcpy(yhat, all, rows * sizeof(*all));
	rc = 0;
out:
	free(fold);
	free(Xtr);
	free(Xte);
	free(Xk);
	free(ytr);
	free(pred);
	free(all);
	return rc;
}
