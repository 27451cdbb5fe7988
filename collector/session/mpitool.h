/* SPDX-License-Identifier: MIT */
/* mpitool.h: `pmcollect --mpi` (docs/mpi.md): preloads the PMPI library libpmmpi.so
 * (collector/mpi/pmmpi.c) into the traced program, collects the per-thread, per-call totals each
 * process of the run leaves in the run's private directory, and writes them as RUN_END "mpi"
 * (formats/FORMAT.md, docs/mpi.md). One struct pmc_mpi per run. No printing. */
#ifndef PMC_MPITOOL_H
#define PMC_MPITOOL_H

#include <stddef.h>
#include <sys/types.h>

struct cJSON;
struct pmc_mpi;

/* Finds libpmmpi.so: $PMT_MPI_TOOL, else beside pmcollect (pmc_find_helper_lib). Returns 0 with the
 * absolute path in out (size bytes), or -1 with why. */
int pmc_mpi_find_tool(char *out, size_t size, char *why, size_t whysize);

/* 1 when the program cmd (a path, or a name looked up in $PATH like execvp) names an MPI library
 * among its dynamic dependencies (the bytes "libmpi.so", "libmpich.so" or "libmpi_" in the file:
 * DT_NEEDED names live in .dynstr), else 0 (also when it cannot be read). For --mpi's default: on
 * when the program links libmpi, as mpiP's users preload it. */
int pmc_mpi_program_links_mpi(const char *cmd);

/* Whether the runs preload the library: asked is 1 (--mpi), 0 (--no-mpi) or -1 (default: on when
 * pmc_mpi_program_links_mpi(cmd)). Returns 1 with the library's path in tool, or 0: off, with why
 * "" (not asked, or the program does not link MPI) or why the library cannot be used (not found). */
int pmc_mpi_decide(int asked, const char *cmd, char *tool, size_t toolsize, char *why,
		   size_t whysize);

/* Makes the run's private directory (mkdtemp under $TMPDIR or /tmp, mode 0700, given to uid/gid
 * when uid != (uid_t)-1: the program runs as that user) for the library at tool. Returns 0, or -1
 * with why. */
int pmc_mpi_open(struct pmc_mpi **out, const char *tool, uid_t uid, gid_t gid, char *why,
		 size_t whysize);

/* In the child between fork and exec: sets PMT_MPI_DIR and prepends the library to LD_PRELOAD.
 * setenv only (the parent is single-threaded). Returns 0, or -1 with errno. */
int pmc_mpi_child(const struct pmc_mpi *m);

/* Parses one process's file (pmmpi.h: text of len bytes) and appends it to procs (a cJSON array) as
 * {"pid", "rank", "size", "init_end_ns", "finalize_begin_ns", "calls": [{"tid", "name", "count",
 * "ns", "cpu_ns", "missed"}], "complete"}; adds its calls' ns and cpu_ns to *ns and *cpu_ns. A file cut
 * short (no "end" line: the process was killed while writing) keeps the lines before the cut and
 * "complete": false. Returns 0, or -1 with why (not a pmmpi file, bad line N, out of memory). */
int pmc_mpi_parse(const char *text, size_t len, struct cJSON *procs, double *ns, double *cpu_ns,
		  char *why, size_t whysize);

/* After the run: reads every process's file and adds RUN_END "mpi" to run_end: {"recorded",
 * "reason" (when nothing came), "tool", "processes": [...], "ns", "cpu_ns", "bad_files"}. */
void pmc_mpi_run_end(struct pmc_mpi *m, struct cJSON *run_end);

/* RUN_END "mpi" of a run whose program links libmpi but was not measured: {"recorded": false,
 * "reason": why} ("--no-mpi", or why the library could not be used), so that pmanalyze can say
 * the rank's busy time includes MPI polling. */
void pmc_mpi_run_end_off(const char *why, struct cJSON *run_end);

/* Removes the directory and its files; accepts NULL. */
void pmc_mpi_close(struct pmc_mpi *m);

/* --mpi in one session (pmc_mpi_decide): whether the runs preload the tool, its path, and why not. */
struct pmc_mpi_state {
	int mpi_on;                 /* --mpi: the runs preload mpi_tool */
	char mpi_tool[4096];        /* path of libpmmpi.so */
	char mpi_why[1024];         /* why --mpi is off or limited ("" otherwise) */
	const char *mpi_off;        /* off though the program links libmpi: why (mpi_why, or a
				       static string), NULL otherwise */
};

#endif
