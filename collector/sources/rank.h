/* SPDX-License-Identifier: MIT */
/* rank.h: what pmcollect needs to run as one rank of an MPI or Slurm job: the rank, local rank,
 * size and job id read from the launchers' environment variables, output names expanded from a
 * template (%r %l %h %j %p %%), race-free creation of the output file, and recognition of a
 * launcher wrapped by mistake (docs/cluster.md). No printing; errors come back with a one-line reason. */
#ifndef PMC_RANK_H
#define PMC_RANK_H

#include <stddef.h>

#define PMC_RANK_JOB_MAX 128 /* bytes of a job id we keep, with "." and the Slurm step */

/* The job context of this process. A field that no variable gave is -1 (numbers) or "" (job), and
 * its *_var is NULL; otherwise *_var names the variable it came from (a static string, e.g.
 * "OMPI_COMM_WORLD_RANK"), for META. */
struct pmc_rank {
	long rank;               /* global rank, 0 .. size-1 */
	const char *rank_var;
	long local_rank;         /* rank among the ranks of this node */
	const char *local_rank_var;
	long size;               /* number of ranks of the job (MPI_COMM_WORLD size) */
	const char *size_var;
	char job[PMC_RANK_JOB_MAX]; /* job id as the batch system prints it: "1234", "1234.0" */
	const char *job_var;     /* "SLURM_JOB_ID", "SLURM_JOB_ID+SLURM_STEP_ID", "PBS_JOBID",
				    "PMIX_NAMESPACE", ... */
};

/* Reads the job context from envp (a NULL-terminated "NAME=value" array such as environ, so tests
 * pass their own). For each field the first variable that is set wins, in this order (docs/cluster.md):
 *   rank:       OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, MV2_COMM_WORLD_RANK
 *   local rank: OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, MPI_LOCALRANKID
 *   size:       OMPI_COMM_WORLD_SIZE, SLURM_NTASKS, PMI_SIZE
 *   job:        SLURM_JOB_ID (+ "." SLURM_STEP_ID when that is set), PBS_JOBID, LSB_JOBID,
 *               PMIX_NAMESPACE (Open MPI / PRRTE, Slurm's PMIx plugin), OMPI_MCA_ess_base_jobid
 *               (Open MPI 4); MPICH Hydra exports none (docs/cluster.md)
 * Sources: Open MPI mpirun(1) "Exported Environment Variables"; PMIx standard (PMIX_RANK); MPICH
 * Hydra (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID); srun(1) "OUTPUT ENVIRONMENT VARIABLES"; MVAPICH2
 * user guide (MV2_COMM_WORLD_RANK); qsub(1B) PBS_JOBID; LSF bsub LSB_JOBID; PMIx standard
 * (PMIX_NAMESPACE); the environment Open MPI 4.1's mpirun gives its ranks (OMPI_MCA_ess_base_jobid).
 * A variable that is set but is not a whole decimal number in [0, 2^31) (ranks, size), or an
 * empty or too long job id, is an error rather than skipped: a launcher that sets it means it.
 * Returns 0 with *out filled (no variable at all is not an error: every field is then unset), or -1
 * with a one-line reason in why (e.g. "PMI_RANK='x' is not a rank number"). */
int pmc_rank_detect(char *const envp[], struct pmc_rank *out, char *why, size_t whysize);

/* Expands an output name template into out (size outsize, NUL-terminated):
 *   %r global rank   %l local rank   %h host   %j job id   %p pid   %% a literal '%'
 * like likwid-mpirun's and srun's own filename patterns. A placeholder whose value is unknown (no
 * launcher variable set) is an error naming the variables looked for, not LIKWID's "X": with "X"
 * every rank would write the same file and all but one fail on O_EXCL, further from the cause.
 * host is the caller's gethostname(); in %h and %j every byte other than [A-Za-z0-9._+-] becomes
 * '_', so a value cannot add a directory level or a control character to the path. pid >= 0.
 * Returns 0, or -1 with a reason in why: unknown placeholder ("%x"), a '%' at the end, an unknown
 * value, or a result longer than outsize - 1 bytes. */
int pmc_output_name(const char *tmpl, const struct pmc_rank *r, const char *host, long pid,
		    char *out, size_t outsize, char *why, size_t whysize);

/* Creates the missing directories of path's parent (mode 0777 less the umask) and creates the file
 * itself with O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode 0666 less the umask: an existing file
 * is never overwritten or truncated. Directories that appear meanwhile (EEXIST, e.g. made by another
 * rank at the same moment) are fine. Returns the new descriptor (the caller closes it), or -1 with
 * errno kept and a reason in why: "'pm-1/trace.0.zst' already exists (pmcollect never overwrites a
 * trace)" for EEXIST, "cannot create directory 'pm-1': <strerror>" and so on. */
int pmc_output_create(const char *path, char *why, size_t whysize);

/* When argv0 (the command pmcollect is asked to run) is an MPI or Slurm launcher, returns the
 * launcher's name as matched ("mpirun", "srun", ...), else NULL. Compares the last path component
 * with mpirun, mpiexec, srun, orterun, prterun, and their Debian alternatives' suffixed forms
 * ("mpirun.openmpi", "mpiexec.hydra"). For a warning: wrapping a launcher records the launcher,
 * not the ranks (docs/cluster.md); `srun pmcollect -- ./app` is the right order. */
const char *pmc_launcher_name(const char *argv0);

/* The job context of one pmcollect session (pmc_cli_job_context): the rank, whether a launcher
 * variable was set, who takes the whole-node readings, and the trace name expanded from -o's
 * template. */
struct pmc_job {
	struct pmc_rank rank;
	int in_job;                 /* a launcher variable was set */
	int node_readings;          /* this process takes the whole-node readings (local rank 0) */
	int output_template;        /* -o had a placeholder: output holds the expanded name */
	char output[4096];          /* the expanded trace name (a path) */
};

#endif
