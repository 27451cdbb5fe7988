/* SPDX-License-Identifier: MIT */
/* warning.c: pmcollect's WARNING records: the names of their codes (warnings.def) and the
 * writer of one record. */
#include "warning.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

static const char *const names[] = {
#define PMC_WARNING(CODE, name, doc) [PMC_WARN_##CODE] = name,
#include "warnings.def"
#undef PMC_WARNING
};

const char *pmc_warning_name(enum pmc_warning code)
{
	return (unsigned)code < PMC_WARN_END ? names[code] : NULL;
}

int pmc_warning_write(struct pmt_writer *w, uint32_t run_id, uint64_t t_ns, enum pmc_warning code,
		      const char *what)
{
	const char *name = pmc_warning_name(code);
	cJSON *o;
	char *text = NULL;
	int rc;

	if (!name || !what)
		return PMT_E_INVAL;
	o = cJSON_CreateObject();
	if (o && cJSON_AddStringToObject(o, "what", what) && cJSON_AddStringToObject(o, "code", name))
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		return PMT_E_NOMEM;
	rc = pmt_writer_json(w, PMT_REC_WARNING, run_id, t_ns, text);
	free(text);
	return rc;
}
