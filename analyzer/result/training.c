/* SPDX-License-Identifier: MIT */
/* training.c: the free functions of the learned results' bodies (training.h). */
#include "training.h"

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
