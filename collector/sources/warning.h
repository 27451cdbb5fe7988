/* SPDX-License-Identifier: MIT */
/* warning.h: pmcollect's WARNING records (formats/FORMAT.md WARNING): their codes, declared in
 * warnings.def, and the one function that writes a record. */
#ifndef PMC_WARNING_H
#define PMC_WARNING_H

#include <stdint.h>

#include "pmt.h"

enum pmc_warning {
#define PMC_WARNING(CODE, name, doc) PMC_WARN_##CODE,
#include "warnings.def"
#undef PMC_WARNING
	PMC_WARN_END /* one past the last */
};

/* The code's stable name, the record's "code" ("sched-lost"), or NULL for a value that is no
 * code. Static. */
const char *pmc_warning_name(enum pmc_warning code);

/* Writes a WARNING record of run_id at t_ns (CLOCK_MONOTONIC ns): {"what": what, "code": the
 * code's name}. Returns 0, PMT_E_NOMEM when the JSON cannot be built (nothing written),
 * PMT_E_INVAL for an unknown code, or the writer's error (pmt_writer_json). */
int pmc_warning_write(struct pmt_writer *w, uint32_t run_id, uint64_t t_ns, enum pmc_warning code,
		      const char *what);

#endif
