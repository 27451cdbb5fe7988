/* SPDX-License-Identifier: MIT */
/* report.c: pmcollect's own messages besides errors: warnings (not with -q) and the [k/N]
 * progress lines of long work. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "pm_cli.h"
#include "pm_util.h"
#include "session/run.h"

int pmc_cli_quiet;
int pmc_cli_progress_forced;

void pmc_cli_warn(const char *msg)
{
	if (!pmc_cli_quiet)
		pm_cli_warning("%s", msg);
}

int pmc_cli_show_progress(void)
{
	return !pmc_cli_quiet && (pmc_cli_progress_forced || isatty(STDERR_FILENO));
}

void pmc_cli_progress(size_t k, size_t n, uint64_t start_ns, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	if (!pmc_cli_show_progress())
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr, "pmcollect: [%zu/%zu] %s, elapsed %.1f s\n", k, n, what,
		(double)(pmc_now_ns() - start_ns) / 1e9);
}
