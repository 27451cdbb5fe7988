/* SPDX-License-Identifier: MIT */
/* sources.h: the data sources one pmcollect session opens before its runs (cli/record.c
 * pmc_cli_open_sources) and closes at its end (session/session.c pmc_session_close): counters,
 * tracefs scheduler events, perf context switches, energy, the proc connector and taskstats. */
#ifndef PMC_SOURCES_H
#define PMC_SOURCES_H

#include <stdint.h>

struct pmc_counters;
struct pmc_sched;
struct pmc_pswitch;
struct pmc_energy;

/* The opened sources; NULL or -1: not opened (the *_why say why, "" when not asked for). */
struct pmc_sources {
	struct pmc_counters *counters; /* PAPI/perf counters (counters.h) */
	struct pmc_sched *sched;       /* the tracefs instance (schedtrace.h) */
	struct pmc_pswitch *pswitch;   /* perf context switches (perfswitch.h); NULL: pswitch_why */
	char pswitch_why[512];
	struct pmc_energy *energy;     /* RAPL energy (energy.h); NULL: energy_why says why */
	char energy_why[1024];
	int pc_fd, ts_fd;              /* proc connector and taskstats sockets (netlink.h) */
	uint16_t ts_family;            /* taskstats' generic netlink family */
};

#endif
