// SPDX-License-Identifier: MIT
// report_learn.c: the views of --learn, --toep and --predict as a table, JSON or CSV (report_learn.h).

#include "report_learn.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "notes/notes.h"
#include "render_util.h"

/* TOEP's eight methods (Methods 1 and 2 are the paper's baselines, 3-8 its training sets). */
static const char *const toep_names[PMA_TOEP_NMETHODS] = {
	"1 all features + SD", "2 three features + SD", "3 TRSet1+SD", "4 TRSet2+SD",
	"5 TRSet3+SD", "6 TRSet4+SD", "7 TRSet5+SD", "8 TRSet6+SD",
};

static const char *target_name(enum pma_learn_target t)
{
	return t == PMA_TARGET_ENERGY ? "energy" : "time";
}

static const char *target_unit(enum pma_learn_target t)
{
	return t == PMA_TARGET_ENERGY ? "J" : "s";
}

/* key: v, or null when v is not finite */
static void add_num(cJSON *o, const char *key, double v)
{
	cJSON_AddItemToObject(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static void print_json(FILE *out, cJSON *root)
{
	char *text = cJSON_Print(root);

	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

static cJSON *importance_json(const double *imp, size_t n)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t k = 0; k < n; k++)
		add_num(o, pma_learn_feature_name((int)k), imp[k]);
	return o;
}

/* ---- predictions ---- */

/* A prediction's number in the table's %12.5g column; "-" when refused (NAN). */
static void num12(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %12s", "-");
	else
		fprintf(out, " %12.5g", v);
}

/* The marks of a row the training set does not back (pma_predictions_check), none when it does. */
static void predict_mark(FILE *out, const struct pma_predictions *ps, const struct pma_predict_row *r)
{
	if (r->outside)
		fprintf(out, "  [outside the training runs: threads %u-%u, cores %u-%u; p5-p95 widened]",
			ps->threads_min, ps->threads_max, ps->cores_min, ps->cores_max);
	if (r->widened)
		fprintf(out, "  [no predictor beats the mean: p5-p95 widened to the training range]");
}

static void predict_table(FILE *out, const struct pma_predictions *ps)
{
	const struct pma_predict_row *p = ps->row;

	fprintf(out, "%8s %6s %12s %12s %12s %12s  %s\n", "threads", "cores", "prediction", "p5", "p95",
		"T_model_s", "program (size)");
	for (size_t i = 0; i < ps->n; i++) {
		fprintf(out, "%8u %6u", p[i].threads, p[i].cores);
		num12(out, p[i].mean);
		num12(out, p[i].p5);
		num12(out, p[i].p95);
		fprintf(out, " %12.5g  %s", p[i].T_model_s, p[i].program ? p[i].program : "-");
		if (isfinite(p[i].size))
			fprintf(out, " (%g)", p[i].size);
		predict_mark(out, ps, &p[i]);
		fputc('\n', out);
	}
}

/* x, or nothing when NAN (CSV's empty field) */
static void csv_num(FILE *out, double x)
{
	if (!isnan(x))
		fprintf(out, "%.17g", x);
}

static void predict_csv(FILE *out, const struct pma_predictions *ps)
{
	const struct pma_predict_row *p = ps->row;

	fprintf(out, "threads,cores,prediction,p5,p95,T_model_s,program,size%s\n",
		ps->checked ? ",outside_training,widened" : "");
	for (size_t i = 0; i < ps->n; i++) {
		fprintf(out, "%u,%u,", p[i].threads, p[i].cores);
		csv_num(out, p[i].mean);
		fputc(',', out);
		csv_num(out, p[i].p5);
		fputc(',', out);
		csv_num(out, p[i].p95);
		fprintf(out, ",%.17g,", p[i].T_model_s);
		pma_csv_field(out, p[i].program ? p[i].program : "");
		fputc(',', out);
		if (isfinite(p[i].size))
			fprintf(out, "%.17g", p[i].size);
		if (ps->checked)
			fprintf(out, ",%d,%d", p[i].outside, p[i].widened);
		fputc('\n', out);
	}
}

static cJSON *predict_json(const struct pma_predictions *ps)
{
	const struct pma_predict_row *p = ps->row;
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < ps->n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "threads", p[i].threads);
		cJSON_AddNumberToObject(o, "cores", p[i].cores);
		add_num(o, "prediction", p[i].mean);
		add_num(o, "p5", p[i].p5);
		add_num(o, "p95", p[i].p95);
		add_num(o, "T_model_s", p[i].T_model_s);
		if (p[i].program)
			cJSON_AddStringToObject(o, "program", p[i].program);
		else
			cJSON_AddNullToObject(o, "program");
		add_num(o, "size", p[i].size);
		if (ps->checked) {
			cJSON_AddBoolToObject(o, "outside_training", p[i].outside);
			cJSON_AddBoolToObject(o, "widened", p[i].widened);
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static void render_predict(FILE *out, const struct pma_predictions *p, enum pma_format fmt)
{
	cJSON *root;

	if (fmt == PMA_FMT_TABLE) {
		predict_table(out, p);
		return;
	}
	if (fmt == PMA_FMT_CSV) {
		predict_csv(out, p);
		return;
	}
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", "pmanalyze-predict/1");
	cJSON_AddItemToObject(root, "predictions", predict_json(p));
	print_json(out, root);
}

/* ---- --learn ---- */

static const char *model_name(enum pma_learn_target t)
{
	return t == PMA_TARGET_ENERGY ? "analytical model (E = P(n) T(n))" : "analytical model (T(n), eq. 1)";
}

static void learn_table(FILE *out, const struct pma_learn_result *v)
{
	const struct pma_learn_eval *ev = &v->ev;
	const char *unit = target_unit(v->target), *name = model_name(v->target);

	fprintf(out, "training table: %zu runs, %u configurations, target %s (%s); %u trees; "
		"held out: whole configurations, %u folds\n", v->rows, v->nconfigs,
		target_name(v->target), unit, v->trees, ev->folds);
	fprintf(out, "  %-34s %8s %14s %6s\n", "predictor", "R2", "mean |err|", "rows");
	if (ev->model.n)
		fprintf(out, "  %-34s %8.4f %12.4g %s %6zu\n", name, ev->model.R2,
			ev->model.mean_abs_err, unit, ev->model.n);
	else
		fprintf(out, "  %-34s %8s %14s %6s  (%s)\n", name, "-", "-", "-", ev->model_why);
	fprintf(out, "  %-34s %8.4f %12.4g %s %6zu\n", "forest, configuration features",
		ev->forest_base.R2, ev->forest_base.mean_abs_err, unit, ev->forest_base.n);
	fprintf(out, "  %-34s %8.4f %12.4g %s %6zu\n", "forest, + model features",
		ev->forest_model.R2, ev->forest_model.mean_abs_err, unit, ev->forest_model.n);
	fprintf(out, "importances (forest + model features, all rows):");
	for (int k = 0; k < PMA_LEARN_NFEAT; k++)
		fprintf(out, " %s %.3f%s", pma_learn_feature_name(k), v->importance[k],
			k + 1 < PMA_LEARN_NFEAT ? "," : "\n");
}

/* The training table's notes into l: the energy gap, the runs left out because they did not
 * exit 0. Returns 0, or -1 when memory runs out (l holds those added before). */
static int table_notes(const struct pma_learn_result *v, struct pma_notes *l)
{
	const struct pma_learn_failed *f = &v->failed;

	if (v->energy_gap_runs &&
	    pma_note_add_energy_gap(l, &(struct pma_note_energy_gap){ .runs = v->energy_gap_runs,
			.gap_s = v->energy_gap_max_s, .run_id = v->energy_gap_run_id }) < 0)
		return -1;
	if (f->runs && pma_note_add_learn_failed_runs(l, &(struct pma_note_learn_failed_runs){
			.runs = f->runs, .run_id = f->run_id, .status = f->status, .code = f->code,
			.trace = f->trace }) < 0)
		return -1;
	return 0;
}

/* Each note of the training table as a line: "note: " and its text into out, or into the JSON
 * array a (out NULL). */
static void put_notes(const struct pma_learn_result *v, FILE *out, cJSON *a)
{
	struct pma_notes l = { 0 };
	int oom = table_notes(v, &l) < 0;

	for (size_t i = 0; i < l.n + (size_t)oom; i++) {
		char *text = i < l.n ? pma_note_alloc(&l.v[i]) : NULL;
		const char *line = text ? text : "out of memory";
		if (out)
			fprintf(out, "note: %s\n", line);
		else
			cJSON_AddItemToArray(a, cJSON_CreateString(line));
		free(text);
	}
	pma_notes_free(&l);
}

static cJSON *fit_json(const char *name, const struct pma_fit_quality *q, const char *why)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "predictor", name);
	if (q->n) {
		add_num(o, "R2", q->R2);
		add_num(o, "mean_abs_err", q->mean_abs_err);
	} else {
		cJSON_AddNullToObject(o, "R2");
		cJSON_AddNullToObject(o, "mean_abs_err");
	}
	cJSON_AddNumberToObject(o, "rows", (double)q->n);
	if (why && !q->n)
		cJSON_AddStringToObject(o, "why", why);
	return o;
}

static void learn_json(FILE *out, const struct pma_learn_result *v, const struct pma_predictions *p)
{
	cJSON *root = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(root, "schema", "pmanalyze-learn/1");
	cJSON_AddNumberToObject(root, "runs", (double)v->rows);
	cJSON_AddNumberToObject(root, "configurations", v->nconfigs);
	cJSON_AddStringToObject(root, "target", target_name(v->target));
	cJSON_AddStringToObject(root, "unit", target_unit(v->target));
	cJSON_AddNumberToObject(root, "trees", v->trees);
	cJSON_AddNumberToObject(root, "folds", v->ev.folds);
	a = cJSON_AddArrayToObject(root, "predictors");
	cJSON_AddItemToArray(a, fit_json(model_name(v->target), &v->ev.model, v->ev.model_why));
	cJSON_AddItemToArray(a, fit_json("forest, configuration features", &v->ev.forest_base, NULL));
	cJSON_AddItemToArray(a, fit_json("forest, + model features", &v->ev.forest_model, NULL));
	cJSON_AddItemToObject(root, "importance", importance_json(v->importance, PMA_LEARN_NFEAT));
	if (v->model_out) {
		cJSON *m = cJSON_AddObjectToObject(root, "model");
		cJSON_AddStringToObject(m, "path", v->model_out);
		cJSON_AddNumberToObject(m, "bytes", (double)v->model_bytes);
	}
	if (p->n) {
		cJSON *tr = cJSON_AddObjectToObject(root, "training_range");
		cJSON *th = cJSON_AddArrayToObject(tr, "threads"), *co = cJSON_AddArrayToObject(tr, "cores");
		cJSON_AddItemToArray(th, cJSON_CreateNumber(p->threads_min));
		cJSON_AddItemToArray(th, cJSON_CreateNumber(p->threads_max));
		cJSON_AddItemToArray(co, cJSON_CreateNumber(p->cores_min));
		cJSON_AddItemToArray(co, cJSON_CreateNumber(p->cores_max));
		add_num(tr, "best_R2", p->best_R2);
		cJSON_AddItemToObject(root, "predictions", predict_json(p));
	}
	put_notes(v, NULL, cJSON_AddArrayToObject(root, "notes"));
	print_json(out, root);
}

static void learn_csv(FILE *out, const struct pma_learn_result *v)
{
	const struct pma_fit_quality *q[3] = { &v->ev.model, &v->ev.forest_base, &v->ev.forest_model };
	const char *names[3] = { model_name(v->target), "forest, configuration features",
				 "forest, + model features" };

	fprintf(out, "predictor,R2,mean_abs_err,unit,rows\n");
	for (int i = 0; i < 3; i++) {
		pma_csv_field(out, names[i]);
		if (q[i]->n)
			fprintf(out, ",%.17g,%.17g,%s,%zu\n", q[i]->R2, q[i]->mean_abs_err,
				target_unit(v->target), q[i]->n);
		else
			fprintf(out, ",,,%s,0\n", target_unit(v->target));
	}
}

static void render_learn(FILE *out, const struct pma_learn_result *v, enum pma_format fmt)
{
	const struct pma_predictions *p = &v->pred;

	if (fmt == PMA_FMT_JSON) {
		learn_json(out, v, p);
		return;
	}
	if (fmt == PMA_FMT_CSV) {
		learn_csv(out, v);
		if (p->n) {
			fputc('\n', out);
			predict_csv(out, p);
		}
		return;
	}
	learn_table(out, v);
	put_notes(v, out, NULL);
	if (v->model_out)
		fprintf(out, "model written to %s (%zu bytes)\n", v->model_out, v->model_bytes);
	if (p->n)
		predict_table(out, p);
}

/* ---- --toep ---- */

static void toep_row(FILE *out, const char *name, const struct pma_toep_method *m, const char *unit,
		     int elected)
{
	char share[16], lrm[16];

	snprintf(share, sizeof(share), "1/%u", m->denominator);
	if (!m->ok) {
		fprintf(out, "  %-24s %6s %6zu %6zu  skipped: %s\n", name, share, m->ntrain, m->ntest, m->why);
		return;
	}
	if (m->lrm_ok)
		snprintf(lrm, sizeof(lrm), "%8.4f", m->lrm.R2);
	else
		snprintf(lrm, sizeof(lrm), "%8s", "-");
	fprintf(out, "  %-24s %6s %6zu %6zu %8.4f %s %10.4g %s %9.3f", name, share, m->ntrain,
		m->ntest, m->rfm.R2, lrm, m->rfm.mean_abs_err, unit, m->toep_t_s);
	if (isnan(m->selection))
		fprintf(out, " %10s\n", "-");
	else
		fprintf(out, " %10.2f%s\n", m->selection, elected ? "  <- elected" : "");
}

static void toep_table(FILE *out, const struct pma_toep_result *r, size_t rows, unsigned nconfigs,
		       unsigned trees, enum pma_learn_target target)
{
	const char *unit = target_unit(target);

	fprintf(out, "TOEP: %zu runs, %u configurations, target %s (%s); rows sorted by decreasing "
		"target (SD); %u trees\n", rows, nconfigs, target_name(target), unit, trees);
	fprintf(out, "importances (method 1):");
	for (int k = 0; k < PMA_LEARN_NFEAT; k++)
		fprintf(out, " %s %.3f%s", pma_learn_feature_name(k), r->importance[k],
			k + 1 < PMA_LEARN_NFEAT ? "," : "\n");
	fprintf(out, "features kept:");
	for (size_t k = 0; k < r->nkeep; k++)
		fprintf(out, " %s%s", pma_learn_feature_name((int)r->keep[k]), k + 1 < r->nkeep ? "," : "\n");
	fprintf(out, "  %-24s %6s %6s %6s %8s %8s %12s %9s %10s\n", "method", "share", "train", "test",
		"R2 RFM", "R2 LRM", "|err| RFM", "TOEP_t s", "Selection");
	for (int m = 0; m < PMA_TOEP_NMETHODS; m++)
		toep_row(out, toep_names[m], &r->method[m], unit, m == r->selected);
	if (r->selected >= 0)
		fprintf(out, "elected: %s (Selection = 100 R2 / TOEP_t = %.2f, the final threshold)\n",
			toep_names[r->selected] + 2, r->threshold);
	else
		fprintf(out, "elected: none (no method has a positive R2)\n");
	if (r->holdout_folds)
		fprintf(out, "held-out whole configurations, the kept features, %u folds: R2 %.4f, mean "
			"|err| %.4g %s (TOEP's test rows neighbour its training rows in the sorted table)\n",
			r->holdout_folds, r->holdout.R2, r->holdout.mean_abs_err, unit);
}

static void toep_csv(FILE *out, const struct pma_toep_result *r, enum pma_learn_target target)
{
	fprintf(out, "method,share,train,test,R2_RFM,R2_LRM,mean_abs_err_RFM,unit,TOEP_t_s,selection,"
		"elected,skipped\n");
	for (int k = 0; k < PMA_TOEP_NMETHODS; k++) {
		const struct pma_toep_method *m = &r->method[k];
		pma_csv_field(out, toep_names[k]);
		fprintf(out, ",1/%u,%zu,%zu,", m->denominator, m->ntrain, m->ntest);
		if (m->ok) {
			fprintf(out, "%.17g,", m->rfm.R2);
			if (m->lrm_ok)
				fprintf(out, "%.17g", m->lrm.R2);
			fprintf(out, ",%.17g,%s,%.6f,", m->rfm.mean_abs_err, target_unit(target), m->toep_t_s);
			if (!isnan(m->selection))
				fprintf(out, "%.17g", m->selection);
			fprintf(out, ",%d,\n", k == r->selected);
		} else {
			fprintf(out, ",,,%s,,,0,", target_unit(target));
			pma_csv_field(out, m->why);
			fputc('\n', out);
		}
	}
}

static void toep_json(FILE *out, const struct pma_toep_result *r, size_t rows, unsigned nconfigs,
		      unsigned trees, enum pma_learn_target target)
{
	cJSON *root = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(root, "schema", "pmanalyze-toep/1");
	cJSON_AddNumberToObject(root, "runs", (double)rows);
	cJSON_AddNumberToObject(root, "configurations", nconfigs);
	cJSON_AddStringToObject(root, "target", target_name(target));
	cJSON_AddStringToObject(root, "unit", target_unit(target));
	cJSON_AddNumberToObject(root, "trees", trees);
	cJSON_AddItemToObject(root, "importance", importance_json(r->importance, PMA_LEARN_NFEAT));
	a = cJSON_AddArrayToObject(root, "features_kept");
	for (size_t k = 0; k < r->nkeep; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(pma_learn_feature_name((int)r->keep[k])));
	a = cJSON_AddArrayToObject(root, "methods");
	for (int k = 0; k < PMA_TOEP_NMETHODS; k++) {
		const struct pma_toep_method *m = &r->method[k];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "method", toep_names[k]);
		cJSON_AddNumberToObject(o, "share_denominator", m->denominator);
		cJSON_AddNumberToObject(o, "train", (double)m->ntrain);
		cJSON_AddNumberToObject(o, "test", (double)m->ntest);
		if (m->ok) {
			add_num(o, "R2_RFM", m->rfm.R2);
			add_num(o, "R2_LRM", m->lrm_ok ? m->lrm.R2 : NAN);
			add_num(o, "mean_abs_err_RFM", m->rfm.mean_abs_err);
			add_num(o, "TOEP_t_s", m->toep_t_s);
			add_num(o, "selection", m->selection);
		} else {
			cJSON_AddStringToObject(o, "skipped", m->why);
		}
		cJSON_AddBoolToObject(o, "elected", k == r->selected);
		cJSON_AddItemToArray(a, o);
	}
	if (r->selected >= 0)
		cJSON_AddStringToObject(root, "elected", toep_names[r->selected] + 2);
	else
		cJSON_AddNullToObject(root, "elected");
	add_num(root, "threshold", r->selected >= 0 ? r->threshold : NAN);
	if (r->holdout_folds) {
		cJSON *h = cJSON_AddObjectToObject(root, "holdout");
		cJSON_AddNumberToObject(h, "folds", r->holdout_folds);
		add_num(h, "R2", r->holdout.R2);
		add_num(h, "mean_abs_err", r->holdout.mean_abs_err);
	}
	print_json(out, root);
}

static void render_toep(FILE *out, const struct pma_toep_result *r, size_t rows, unsigned nconfigs,
			unsigned trees, enum pma_learn_target target, enum pma_format fmt)
{
	if (fmt == PMA_FMT_JSON)
		toep_json(out, r, rows, nconfigs, trees, target);
	else if (fmt == PMA_FMT_CSV)
		toep_csv(out, r, target);
	else
		toep_table(out, r, rows, nconfigs, trees, target);
}

int pma_render_learned(FILE *out, const struct pma_result *r, enum pma_format fmt)
{
	switch (r->kind) {
	case PMA_RESULT_LEARN:
		render_learn(out, &r->learn, fmt);
		break;
	case PMA_RESULT_TOEP:
		render_toep(out, &r->toep.r, r->toep.rows, r->toep.nconfigs, r->toep.trees,
			    r->toep.target, fmt);
		break;
	case PMA_RESULT_PREDICT:
		render_predict(out, &r->predict, fmt);
		break;
	default:
		return -1;
	}
	return ferror(out) ? -1 : 0;
}
