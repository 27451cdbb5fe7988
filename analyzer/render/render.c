/* SPDX-License-Identifier: MIT */
/* render.c: the render entry of every kind of result (render.h). */
#include "render.h"

#include "report_learn.h"

int pma_render_result(FILE *out, const struct pma_result *r, enum pma_format format)
{
	switch (r->kind) {
	case PMA_RESULT_LEARN:
	case PMA_RESULT_TOEP:
	case PMA_RESULT_PREDICT:
		return pma_render_learned(out, r, format);
	default:
		return pma_render(out, r, format);
	}
}
