/* SPDX-License-Identifier: MIT */
/* training.c: the free functions of the learned results' bodies (training.h). */
#include "training.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pma_predictions_free(struct pma_predictions *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->row[i].program);
	free(p->row);
	memset(p, 0, sizeof(*p));
}

void pma_learn_result_free(struct pma_learn_result *l)
{
	if (!l)
		return;
	free(l->model);
	pma_predictions_free(&l->pred);
	memset(l, 0, sizeof(*l));
}

void pma_toep_study_free(struct pma_toep_study *s)
{
	if (!s)
		return;
	pma_toep_result_free(&s->r);
	memset(s, 0, sizeof(*s));
}

/* The larger of best and q's R2 when q has rows. */
static double better_R2(double best, const struct pma_fit_quality *q)
{
	if (!q->n || !isfinite(q->R2))
		return best;
	return isnan(best) || q->R2 > best ? q->R2 : best;
}

void pma_predictions_check(struct pma_predictions *p, const struct pma_learn_table *t,
			   const struct pma_learn_eval *ev)
{
	p->checked = 1;
	p->threads_min = p->cores_min = 0;
	p->threads_max = p->cores_max = 0;
	p->y_min = p->y_max = NAN;
	for (size_t i = 0; i < t->rows; i++) {
		double m = t->X[i * PMA_LEARN_NFEAT + PMA_F_THREADS];
		double n = t->X[i * PMA_LEARN_NFEAT + PMA_F_CORES];
		if (isfinite(m) && (!p->threads_min || m < p->threads_min))
			p->threads_min = (unsigned)m;
		if (isfinite(m) && m > p->threads_max)
			p->threads_max = (unsigned)m;
		if (isfinite(n) && (!p->cores_min || n < p->cores_min))
			p->cores_min = (unsigned)n;
		if (isfinite(n) && n > p->cores_max)
			p->cores_max = (unsigned)n;
		if (isnan(p->y_min) || t->y[i] < p->y_min)
			p->y_min = t->y[i];
		if (isnan(p->y_max) || t->y[i] > p->y_max)
			p->y_max = t->y[i];
	}
	p->best_R2 = better_R2(better_R2(better_R2(NAN, &ev->model), &ev->forest_base),
			       &ev->forest_model);
	p->noutside = p->nwidened = p->noutside_nomodel = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct pma_predict_row *r = &p->row[i];
		int skill = p->best_R2 > 0 || isnan(p->y_min);
		if (r->threads < p->threads_min || r->threads > p->threads_max ||
		    r->cores < p->cores_min || r->cores > p->cores_max) {
			/* the forest answers with its nearest trained configuration; the model
			 * extrapolates: the interval spans both (or, without the model, the targets) */
			double lo = isfinite(r->T_model_s) ? r->T_model_s : p->y_min;
			double hi = isfinite(r->T_model_s) ? r->T_model_s : p->y_max;
			r->outside = 1;
			r->p5 = fmin(r->p5, lo);
			r->p95 = fmax(r->p95, hi);
			p->noutside++;
			p->noutside_nomodel += !isfinite(r->T_model_s);
		}
		if (!skill) {
			r->widened = 1;
			r->p5 = fmin(r->p5, p->y_min);
			r->p95 = fmax(r->p95, p->y_max);
			p->nwidened++;
		}
	}
}
