/* SPDX-License-Identifier: MIT */
/* omp.h: `pmcollect --omp-regions`: loads the OMPT tool libpmompt.so into the traced program,
 * receives its region records while the run goes on and writes them as OMP_REGION records
 * (formats/FORMAT.md §5.7), with the mapped objects and the tool's counts (or why nothing came) in
 * RUN_END "omp_regions". One struct pmc_omp per run. */
#ifndef PMC_OMP_H
#define PMC_OMP_H

#include <stddef.h>
#include <stdint.h>

#include "ompt/pmompt.h"
#include "pmt.h"

struct cJSON;
struct pmc_omp;

/* What --omp-regions / --omp-runtime resolved to, for every run. */
struct pmc_omp_opts {
	char tool[4096];        /* absolute path of libpmompt.so */
	char preload[4096];     /* LLVM's libomp to preload (--omp-runtime llvm), "" = none */
	/* per-thread PAPI counters of each implicit task (PMT_OMPT_EVENTS, pmompt.h): comma-separated
	 * event names (--omp-events, else pmcollect's own counters), "" = none, and why none */
	char events[PMOMPT_MAX_EVENTS * 128];
	char events_why[640];
};

/* Finds libpmompt.so: $PMT_OMPT_TOOL when set, else beside the pmcollect executable
 * (<bindir>/../lib/pmtools/libpmompt.so when installed, <B>/lib/libpmompt.so in the build tree:
 * bin/../build/lib or build-<san>/bin/../lib). Writes the absolute path to out. Returns 0, or -1
 * with the places looked at in why. */
int pmc_omp_find_tool(char *out, size_t size, char *why, size_t whysize);

/* The same search for any library pmcollect loads into the program (name, e.g. "libpmmpi.so"):
 * $env_var when set, else beside the pmcollect executable as above. Returns 0 with the absolute
 * path in out, or -1 with the places looked at in why. */
int pmc_find_helper_lib(const char *name, const char *env_var, char *out, size_t size, char *why,
			size_t whysize);

/* Finds LLVM's OpenMP runtime for --omp-runtime llvm: $PMT_LIBOMP when set, else
 * /usr/lib/llvm-N/lib/libomp.so.5 (highest N) or the multiarch libomp.so.5 of Debian's libomp5
 * packages. Returns 0, or -1 with a reason in why. */
int pmc_omp_find_libomp(char *out, size_t size, char *why, size_t whysize);

/* Opens the run's socket (ompt_reader.h) for run run_id. Returns 0, or -1 with why. */
int pmc_omp_open(struct pmc_omp **out, const struct pmc_omp_opts *opts, uint32_t run_id,
		 char *why, size_t whysize);

/* In the child between fork and exec: keeps the tool's socket open across exec and sets
 * PMT_OMPT_FD, OMP_TOOL_LIBRARIES, PMT_OMPT_EVENTS (unset when no events) and, with a preload, LD_PRELOAD (prepended to the inherited
 * one). Async-signal-unsafe calls (setenv) only: the parent is single-threaded. Returns 0, or -1
 * with errno. */
int pmc_omp_child(const struct pmc_omp *o);

/* In the parent after fork: closes its copy of the child's end. */
void pmc_omp_after_fork(struct pmc_omp *o);

/* The descriptor to poll (POLLIN). */
int pmc_omp_fd(const struct pmc_omp *o);

/* Reads the waiting batches (at most 1024, never blocks) and writes each region as an
 * OMP_REGION record and each implicit task's counter deltas as an OMP_COUNTERS record; remembers the objects, the runtime's version and the tool's counts.
 * Memory is bounded: regions go straight to w, objects are kept up to PMC_OMP_MAX_OBJECTS.
 * Returns batches read (>= 0), or a negative PMT_E_* from the writer. */
int pmc_omp_drain(struct pmc_omp *o, struct pmt_writer *w);
#define PMC_OMP_MAX_OBJECTS 1024

/* While no tool answered: looks at /proc/<pid>/maps for an OpenMP runtime (libomp, libiomp5,
 * libgomp), so that RUN_END can say why no region came. Probes on calls 1, 2, 4, 8, ... only. */
void pmc_omp_probe(struct pmc_omp *o, uint32_t pid);

/* After the run's last pmc_omp_drain: writes the regions the program never ended (still open on
 * the tool's board: killed inside them) as OMP_REGION records flagged PMT_OMP_OPEN, ending at
 * end_ns (the run's end), team unknown. Returns 0 or a negative PMT_E_* from the writer. */
int pmc_omp_finish(struct pmc_omp *o, struct pmt_writer *w, uint64_t end_ns);

/* Adds RUN_END "omp_regions" (FORMAT.md §6) to the run's JSON object. */
void pmc_omp_run_end(const struct pmc_omp *o, struct cJSON *run_end);

/* The run's region count and whether a tool answered, for pmcollect's messages. */
uint64_t pmc_omp_regions(const struct pmc_omp *o, int *answered);
/* After the run: works out why no tool answered (a sentence; "" when one did), kept for
 * pmc_omp_run_end. */
const char *pmc_omp_reason(struct pmc_omp *o);

void pmc_omp_close(struct pmc_omp *o);

/* --omp-regions in one session: the tool and runtime found (pmc_omp_find_tool,
 * pmc_omp_find_libomp) and why regions cannot be recorded at all ("" when they can). */
struct pmc_omp_state {
	struct pmc_omp_opts omp;
	char omp_why[1024];
};

#endif
