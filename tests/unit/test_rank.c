/* SPDX-License-Identifier: MIT */
/* test_rank.c: cmocka tests of rank detection, output name templates and output creation
 * (collector/sources/rank.c), with environments built by the test and 16 forked "ranks". */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rank.h"

#define NRANKS 16

/* An environment array as environ has it (char *const[]) from string literals, which
 * -Wwrite-strings makes const: copied into static storage, valid until the next call. */
static char *const *env_of(const char *const *list)
{
	static char store[16][128];
	static char *envp[17];
	size_t n = 0;

	for (; list[n]; n++) {
		assert_true(n < 16 && strlen(list[n]) < sizeof(store[n]));
		strcpy(store[n], list[n]);
		envp[n] = store[n];
	}
	envp[n] = NULL;
	return envp;
}

static void detect_ok(char *const envp[], struct pmc_rank *r)
{
	char why[256] = "";

	assert_int_equal(pmc_rank_detect(envp, r, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

static void test_detect_nothing(void **state)
{
	static const char *const envp[] = { "PATH=/usr/bin", "RANK=3", NULL };
	struct pmc_rank r;
	(void)state;

	detect_ok(env_of(envp), &r);
	assert_int_equal(r.rank, -1);
	assert_null(r.rank_var);
	assert_int_equal(r.local_rank, -1);
	assert_null(r.local_rank_var);
	assert_int_equal(r.size, -1);
	assert_null(r.size_var);
	assert_string_equal(r.job, "");
	assert_null(r.job_var);
}

/* Open MPI's mpirun under a Slurm allocation sets both families; Open MPI's names come first. */
static void test_detect_ompi_over_slurm(void **state)
{
	static const char *const envp[] = { "SLURM_PROCID=0",	 "SLURM_LOCALID=0",	 "SLURM_NTASKS=1",
			 "OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_LOCAL_RANK=1",
			 "OMPI_COMM_WORLD_SIZE=8", "SLURM_JOB_ID=4242",	 NULL };
	struct pmc_rank r;
	(void)state;

	detect_ok(env_of(envp), &r);
	assert_int_equal(r.rank, 5);
	assert_string_equal(r.rank_var, "OMPI_COMM_WORLD_RANK");
	assert_int_equal(r.local_rank, 1);
	assert_string_equal(r.local_rank_var, "OMPI_COMM_WORLD_LOCAL_RANK");
	assert_int_equal(r.size, 8);
	assert_string_equal(r.size_var, "OMPI_COMM_WORLD_SIZE");
	assert_string_equal(r.job, "4242");
	assert_string_equal(r.job_var, "SLURM_JOB_ID");
}

/* Each variable of a list alone is found, and each one beats all those after it. */
static void test_detect_each_variable_in_order(void **state)
{
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
						 "SLURM_PROCID", "MV2_COMM_WORLD_RANK" };
	static const char *const local_vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
						  "MPI_LOCALRANKID" };
	static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE" };
	char buf[3][5][64];
	char *envp[16];
	struct pmc_rank r;
	(void)state;

	for (size_t first = 0; first < 5; first++) {
		size_t n = 0;
		/* variables first..4 set, each to a value that names its position */
		for (size_t i = first; i < 5; i++) {
			snprintf(buf[0][i], sizeof(buf[0][i]), "%s=%zu", rank_vars[i], 10 + i);
			envp[n++] = buf[0][i];
			if (i < 3) {
				snprintf(buf[1][i], sizeof(buf[1][i]), "%s=%zu", local_vars[i], 20 + i);
				snprintf(buf[2][i], sizeof(buf[2][i]), "%s=%zu", size_vars[i], 30 + i);
				envp[n++] = buf[1][i];
				envp[n++] = buf[2][i];
			}
		}
		envp[n] = NULL;
		detect_ok(envp, &r);
		assert_int_equal(r.rank, 10 + first);
		assert_string_equal(r.rank_var, rank_vars[first]);
		if (first < 3) {
			assert_int_equal(r.local_rank, 20 + first);
			assert_string_equal(r.local_rank_var, local_vars[first]);
			assert_int_equal(r.size, 30 + first);
			assert_string_equal(r.size_var, size_vars[first]);
		} else {
			assert_int_equal(r.local_rank, -1);
			assert_int_equal(r.size, -1);
		}
	}
}

/* Job ids: Slurm's with its step, the batch systems in order, an empty step ignored. */
static void test_detect_jobs(void **state)
{
	static const struct {
		const char *env[4];
		const char *job, *var;
	} cases[] = {
		{ { "PBS_JOBID=9.pbs", "SLURM_JOB_ID=1234", "SLURM_STEP_ID=0", NULL }, "1234.0",
		  "SLURM_JOB_ID+SLURM_STEP_ID" },
		{ { "SLURM_JOB_ID=1234", "SLURM_STEP_ID=", NULL }, "1234", "SLURM_JOB_ID" },
		{ { "LSB_JOBID=77", "PBS_JOBID=9.pbs-server", NULL }, "9.pbs-server", "PBS_JOBID" },
		{ { "LSB_JOBID=77", NULL }, "77", "LSB_JOBID" },
	};
	struct pmc_rank r;
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		detect_ok(env_of(cases[i].env), &r);
		assert_string_equal(r.job, cases[i].job);
		assert_string_equal(r.job_var, cases[i].var);
	}
}

static void detect_fails(char *const envp[], const char *needle)
{
	struct pmc_rank r = { .rank = 99 };
	char why[256] = "";

	assert_int_equal(pmc_rank_detect(envp, &r, why, sizeof(why)), -1);
	assert_int_equal(r.rank, 99); /* *out untouched */
	if (!strstr(why, needle))
		fail_msg("reason '%s' does not mention '%s'", why, needle);
}

static void test_detect_bad_values(void **state)
{
	static const char *const word[] = { "PMI_RANK=x", NULL };
	static const char *const negative[] = { "SLURM_LOCALID=-1", NULL };
	static const char *const trailing[] = { "PMI_SIZE=4 ", NULL };
	static const char *const empty_job[] = { "PBS_JOBID=", NULL };
	static const char *const huge[] = { "OMPI_COMM_WORLD_RANK=2147483648", NULL };
	(void)state;

	detect_fails(env_of(word), "PMI_RANK='x' is not a rank number");
	detect_fails(env_of(negative), "SLURM_LOCALID='-1' is not a local rank number");
	detect_fails(env_of(trailing), "PMI_SIZE='4 ' is not a job size number");
	detect_fails(env_of(empty_job), "PBS_JOBID is empty");
	detect_fails(env_of(huge), "OMPI_COMM_WORLD_RANK");
}

/* Issue 31: the launchers' own job ids where no batch system gives one, from the environments
 * the launchers really set (Open MPI 4.1.4's mpirun -n 2, captured on this machine; Open MPI 5 /
 * PRRTE's namespace form; MPICH Hydra's PMI variables), and the README's template over them. */
static void test_detect_launcher_jobs(void **state)
{
	static const char *const ompi4[] = {
		"OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2",
		"OMPI_MCA_ess_base_jobid=1553203201", "OMPI_MCA_ess_base_vpid=1",
		"PMIX_ID=1553203201.1", "PMIX_NAMESPACE=1553203201", "PMIX_RANK=1", NULL
	};
	static const char *const ompi4_no_pmix[] = { "OMPI_COMM_WORLD_RANK=0",
						     "OMPI_MCA_ess_base_jobid=77", NULL };
	static const char *const prrte[] = { "PMIX_RANK=3", "PMIX_NAMESPACE=prterun-vm-4321@1",
					     "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", NULL };
	static const char *const slurm_pmix[] = { "PMIX_NAMESPACE=slurm.pmix.99.0", "PMIX_RANK=0",
						  "SLURM_JOB_ID=99", "SLURM_STEP_ID=0",
						  "SLURM_PROCID=0", NULL };
	static const char *const hydra[] = { "PMI_RANK=2", "PMI_SIZE=4", "PMI_FD=9",
					     "MPI_LOCALRANKID=0", "MPI_LOCALNRANKS=2", NULL };
	struct pmc_rank r;
	char out[256], why[256];
	(void)state;

	detect_ok(env_of(ompi4), &r);
	assert_int_equal(r.rank, 1);
	assert_string_equal(r.rank_var, "OMPI_COMM_WORLD_RANK");
	assert_string_equal(r.job, "1553203201");
	assert_string_equal(r.job_var, "PMIX_NAMESPACE");
	/* the README's own form (issue 31 failed here) */
	assert_int_equal(pmc_output_name("pm-%j/trace.%r.zst", &r, "vm", 1, out, sizeof(out), why,
					 sizeof(why)), 0);
	assert_string_equal(out, "pm-1553203201/trace.1.zst");

	detect_ok(env_of(ompi4_no_pmix), &r);
	assert_string_equal(r.job, "77");
	assert_string_equal(r.job_var, "OMPI_MCA_ess_base_jobid");

	detect_ok(env_of(prrte), &r);
	assert_string_equal(r.job, "prterun-vm-4321@1");
	assert_string_equal(r.job_var, "PMIX_NAMESPACE");
	assert_int_equal(pmc_output_name("pm-%j/trace.%r.zst", &r, "vm", 1, out, sizeof(out), why,
					 sizeof(why)), 0);
	assert_string_equal(out, "pm-prterun-vm-4321_1/trace.3.zst");

	/* the batch system's id wins over the launcher's: one job of several steps stays one job */
	detect_ok(env_of(slurm_pmix), &r);
	assert_string_equal(r.job, "99.0");
	assert_string_equal(r.job_var, "SLURM_JOB_ID+SLURM_STEP_ID");

	detect_ok(env_of(hydra), &r);
	assert_int_equal(r.rank, 2);
	assert_string_equal(r.rank_var, "PMI_RANK");
	assert_int_equal(r.size, 4);
	assert_string_equal(r.size_var, "PMI_SIZE");
	assert_int_equal(r.local_rank, 0);
	assert_string_equal(r.local_rank_var, "MPI_LOCALRANKID");
	assert_string_equal(r.job, "");
	assert_null(r.job_var);
}

/* Every placeholder in one template, with the values known by construction. */
static void test_name_every_placeholder(void **state)
{
	static const char *const envp[] = { "SLURM_PROCID=12", "SLURM_LOCALID=3", "SLURM_JOB_ID=777",
			 "SLURM_STEP_ID=2", NULL };
	struct pmc_rank r;
	char out[256], why[256] = "";
	(void)state;

	detect_ok(env_of(envp), &r);
	assert_int_equal(pmc_output_name("pm-%j/%h.r%r.l%l.p%p.100%%.zst", &r, "node07", 4321, out,
					 sizeof(out), why, sizeof(why)),
			 0);
	assert_string_equal(out, "pm-777.2/node07.r12.l3.p4321.100%.zst");
	assert_string_equal(why, "");
	/* no placeholder at all: the template itself */
	assert_int_equal(pmc_output_name("trace.zst", &r, "h", 1, out, sizeof(out), why, sizeof(why)),
			 0);
	assert_string_equal(out, "trace.zst");
}

/* %h and %j cannot add a directory level or a control character. */
static void test_name_cleans_host_and_job(void **state)
{
	struct pmc_rank r = { .rank = 0, .local_rank = 0, .size = 1, .job = "12/../x\n" };
	char out[256], why[256] = "";
	(void)state;

	assert_int_equal(pmc_output_name("%j-%h", &r, "a/b c", 1, out, sizeof(out), why, sizeof(why)),
			 0);
	assert_string_equal(out, "12_.._x_-a_b_c");
}

static void name_fails(const char *tmpl, const struct pmc_rank *r, size_t outsize,
		       const char *needle)
{
	char out[256], why[256] = "";

	assert_true(outsize <= sizeof(out));
	assert_int_equal(pmc_output_name(tmpl, r, "node", 1, out, outsize, why, sizeof(why)), -1);
	if (!strstr(why, needle))
		fail_msg("reason for '%s' is '%s', want it to mention '%s'", tmpl, why, needle);
}

/* A missing variable is an error that names what was looked for (rank.h says why not "X"). */
static void test_name_missing_variables(void **state)
{
	static const char *const envp[] = { "HOME=/root", NULL };
	struct pmc_rank r;
	(void)state;

	detect_ok(env_of(envp), &r);
	name_fails("trace.%r.zst", &r, 256,
		   "'%r' in 'trace.%r.zst' needs a rank, but none of OMPI_COMM_WORLD_RANK, PMIX_RANK, "
		   "PMI_RANK, SLURM_PROCID or MV2_COMM_WORLD_RANK is set");
	name_fails("t.%l", &r, 256, "none of OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID or "
				    "MPI_LOCALRANKID is set");
	name_fails("pm-%j/t", &r, 256, "none of SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, PMIX_NAMESPACE or "
				       "OMPI_MCA_ess_base_jobid is set");
	name_fails("t.%r", NULL, 256, "needs a rank");
}

static void test_name_bad_templates(void **state)
{
	struct pmc_rank r = { .rank = 1, .local_rank = 1, .size = 2, .job = "5" };
	(void)state;

	name_fails("t.%x.zst", &r, 256, "unknown placeholder '%x'");
	name_fails("t.zst%", &r, 256, "ends with a lone '%'");
	name_fails("", &r, 256, "empty output name");
	/* "t.1" needs 4 bytes with its NUL */
	name_fails("t.%r", &r, 3, "longer than 2 bytes");
	name_fails("abc", &r, 3, "longer than 2 bytes");
	char out[4], why[128];
	assert_int_equal(pmc_output_name("t.%r", &r, "h", 1, out, sizeof(out), why, sizeof(why)), 0);
	assert_string_equal(out, "t.1");
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Makes a fresh temporary directory under $PMT_TMP (run-tests.sh) or /tmp into dir. */
static void make_tmpdir(char *dir, size_t size)
{
	const char *base = getenv("PMT_TMP");

	snprintf(dir, size, "%s/test_rank.XXXXXX", base && base[0] ? base : "/tmp");
	assert_non_null(mkdtemp(dir));
}

static void remove_tree(const char *dir)
{
	assert_int_equal(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Creates path, asserting success without a reason; returns the descriptor. */
static int create_ok(const char *path)
{
	char why[512] = "";
	int fd = pmc_output_create(path, why, sizeof(why));

	assert_true(fd >= 0);
	assert_string_equal(why, "");
	return fd;
}

/* An existing file is refused with EEXIST and left as it was. */
static void test_create_refuses_existing(void **state)
{
	char dir[256], path[300], why[512] = "", buf[16] = "";
	int fd;
	(void)state;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/new/deeper/trace.0.zst", dir);
	fd = create_ok(path);
	assert_int_equal(write(fd, "first", 5), 5);
	assert_int_equal(close(fd), 0);

	errno = 0;
	assert_int_equal(pmc_output_create(path, why, sizeof(why)), -1);
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(why, "already exists (pmcollect never overwrites a trace)"));
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "first");
	close(fd);
	remove_tree(dir);
}

/* A file where a directory should be: the reason names the level that failed. */
static void test_create_blocked_by_file(void **state)
{
	char dir[256], path[300], why[512] = "";
	(void)state;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	close(create_ok(path));
	snprintf(path, sizeof(path), "%s/f/sub/trace.zst", dir);
	assert_int_equal(pmc_output_create(path, why, sizeof(why)), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_non_null(strstr(why, "cannot create directory '"));
	assert_non_null(strstr(why, "/f/sub': Not a directory"));
	remove_tree(dir);
}

/* Forks NRANKS children that wait on a pipe, then all call pmc_output_create at once on a path
 * of their rank's (same_file == 0) or the same path (same_file == 1). Returns how many created
 * their file; each child's exit status is 0 (created), 1 (EEXIST) or 2 (other failure). */
static int race(const char *dir, int same_file, int *n_eexist)
{
	int gate[2], created = 0;
	pid_t pids[NRANKS];

	*n_eexist = 0;
	assert_int_equal(pipe(gate), 0);
	for (int i = 0; i < NRANKS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char path[512], why[600], c;
			close(gate[1]);
			/* the gate opens for everyone at once: the parent closes its write end */
			if (read(gate[0], &c, 1) != 0)
				_exit(2);
			snprintf(path, sizeof(path), "%s/pm-1234/a/b/trace.%d.zst", dir,
				 same_file ? 0 : i);
			int fd = pmc_output_create(path, why, sizeof(why));
			if (fd >= 0)
				_exit(close(fd) == 0 ? 0 : 2);
			_exit(errno == EEXIST ? 1 : 2);
		}
	}
	close(gate[0]);
	close(gate[1]);
	for (int i = 0; i < NRANKS; i++) {
		int status;
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_true(WEXITSTATUS(status) <= 1);
		created += WEXITSTATUS(status) == 0;
		*n_eexist += WEXITSTATUS(status) == 1;
	}
	return created;
}

/* 16 ranks create the same missing directories at the same moment: all succeed. */
static void test_create_concurrent_directories(void **state)
{
	char dir[256], path[512];
	int n_eexist;
	struct stat st;
	(void)state;

	make_tmpdir(dir, sizeof(dir));
	assert_int_equal(race(dir, 0, &n_eexist), NRANKS);
	assert_int_equal(n_eexist, 0);
	for (int i = 0; i < NRANKS; i++) {
		snprintf(path, sizeof(path), "%s/pm-1234/a/b/trace.%d.zst", dir, i);
		assert_int_equal(stat(path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
	}
	remove_tree(dir);
}

/* 16 ranks given the same name (a template without %r): exactly one wins, 15 get EEXIST. */
static void test_create_concurrent_same_file(void **state)
{
	char dir[256];
	int n_eexist;
	(void)state;

	make_tmpdir(dir, sizeof(dir));
	assert_int_equal(race(dir, 1, &n_eexist), 1);
	assert_int_equal(n_eexist, NRANKS - 1);
	remove_tree(dir);
}

static void test_launcher_names(void **state)
{
	(void)state;
	assert_string_equal(pmc_launcher_name("mpirun"), "mpirun");
	assert_string_equal(pmc_launcher_name("/usr/bin/mpiexec"), "mpiexec");
	assert_string_equal(pmc_launcher_name("srun"), "srun");
	assert_string_equal(pmc_launcher_name("/usr/bin/mpirun.openmpi"), "mpirun");
	assert_string_equal(pmc_launcher_name("mpiexec.hydra"), "mpiexec");
	assert_string_equal(pmc_launcher_name("orterun"), "orterun");
	assert_string_equal(pmc_launcher_name("prterun"), "prterun");
	assert_null(pmc_launcher_name("./app"));
	assert_null(pmc_launcher_name("mpirun-wrapper"));
	assert_null(pmc_launcher_name("/opt/srun/bin/app"));
	assert_null(pmc_launcher_name("xsrun"));
	assert_null(pmc_launcher_name(""));
	assert_null(pmc_launcher_name(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_nothing),
		cmocka_unit_test(test_detect_ompi_over_slurm),
		cmocka_unit_test(test_detect_each_variable_in_order),
		cmocka_unit_test(test_detect_jobs),
		cmocka_unit_test(test_detect_launcher_jobs),
		cmocka_unit_test(test_detect_bad_values),
		cmocka_unit_test(test_name_every_placeholder),
		cmocka_unit_test(test_name_cleans_host_and_job),
		cmocka_unit_test(test_name_missing_variables),
		cmocka_unit_test(test_name_bad_templates),
		cmocka_unit_test(test_create_refuses_existing),
		cmocka_unit_test(test_create_blocked_by_file),
		cmocka_unit_test(test_create_concurrent_directories),
		cmocka_unit_test(test_create_concurrent_same_file),
		cmocka_unit_test(test_launcher_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
