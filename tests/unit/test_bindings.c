/* SPDX-License-Identifier: MIT */
/* test_bindings.c: the collector's CPU beside a bound rank (collector/session/bindings.c) on a fixture
 * sysfs tree written here (4 cores x 2 SMT threads: cpuN and cpuN+4 are siblings), and the job
 * note of what the sampling cost the ranks (analyzer/result/collector_cost.c). Issue 31. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"
#include "bindings.h"
#include "ranks.h"

static char root[] = "/tmp/test_bindings.XXXXXX";

/* <root>/devices/system/cpu/cpuN/topology/thread_siblings_list for 8 PUs, or for 2 without SMT */
static void make_sysfs(int smt)
{
	char path[512];

	for (int cpu = 0; cpu < (smt ? 8 : 2); cpu++) {
		FILE *f;
		snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu/cpu%d/topology", root, cpu);
		assert_int_equal(system(path), 0);
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 root, cpu);
		f = fopen(path, "w");
		assert_non_null(f);
		if (smt)
			fprintf(f, "%d,%d\n", cpu % 4, cpu % 4 + 4);
		else
			fprintf(f, "%d\n", cpu);
		fclose(f);
	}
}

static void list(struct pm_intlist *l, const char *text)
{
	char why[128];
	assert_int_equal(pm_intlist_parse(text, 0, 1023, l, why, sizeof(why)), 0);
}

static void test_sibling(void **state)
{
	struct pm_intlist online;
	cpu_set_t prog;
	char cmd[600];
	(void)state;

	assert_non_null(mkdtemp(root));
	make_sysfs(1);
	list(&online, "0-7");
	CPU_ZERO(&prog);
	CPU_SET(1, &prog); /* mpirun --bind-to hwthread: rank on PU 1, its sibling 5 free */
	assert_int_equal(pmc_binding_sibling(&prog, &online, NULL, root), 5);
	assert_int_equal(pmc_binding_sibling(&prog, &online, cpulist("0-3"), root), -1); /* cgroup excludes 5 */
	assert_int_equal(pmc_binding_sibling(&prog, &online, cpulist("0-3,5"), root), 5);
	CPU_SET(5, &prog); /* --bind-to core: both threads are the rank's */
	assert_int_equal(pmc_binding_sibling(&prog, &online, NULL, root), -1);
	CPU_SET(2, &prog); /* a second core: its sibling 6 */
	assert_int_equal(pmc_binding_sibling(&prog, &online, NULL, root), 6);
	pm_intlist_free(&online);
	list(&online, "0-5"); /* 6 offline */
	assert_int_equal(pmc_binding_sibling(&prog, &online, NULL, root), -1);
	pm_intlist_free(&online);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	/* no SMT (this VM): nothing to move to */
	strcpy(root, "/tmp/test_bindings.XXXXXX");
	assert_non_null(mkdtemp(root));
	make_sysfs(0);
	list(&online, "0-1");
	CPU_ZERO(&prog);
	CPU_SET(0, &prog);
	assert_int_equal(pmc_binding_sibling(&prog, &online, NULL, root), -1);
	pm_intlist_free(&online);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

static void row(struct pma_rank_row *w, long rank, double busy_s, double ccpu, double coll_s)
{
	memset(w, 0, sizeof(*w));
	w->path = strdup("t.zst");
	w->rank = rank;
	w->size = 3;
	w->job = strdup("9");
	w->host = strdup("h");
	w->complete = w->analyzed = 1;
	w->m = 1;
	w->A_inf = 1;
	w->busy_s = w->T_cp_s = w->wall_s = busy_s;
	w->begin_realtime_s = w->drift_ppm = NAN;
	w->collector_cpu = ccpu;
	w->collector_s = coll_s;
}

/* Ranks 0 and 2 sampled on their own CPUs (0.02 s of 2 s: 1%; 0.03 s of 1 s: 3%), rank 1 had a
 * sibling: one note with 2 ranks, 0.05 s, 3% on rank 2, 1 with a CPU of its own. */
static void test_job_note(void **state)
{
	struct pma_rank_row *rows = calloc(3, sizeof(*rows));
	struct pma_ranks_result r;
	const struct pma_note *n;
	char why[128];
	(void)state;

	row(&rows[0], 0, 2, -1, 0.02);
	row(&rows[1], 1, 2, 5, 0.04);
	row(&rows[2], 2, 1, -1, 0.03);
	assert_int_equal(pma_ranks_merge(rows, 3, 0, NULL, &r, why, sizeof(why)), 0);
	n = pma_notes_find(&r.notes, PMA_NOTE_RANKS_COLLECTOR_ON_RANK);
	assert_non_null(n);
	assert_double_equal(n->arg.ranks_collector_on_rank.ranks, 2, 0);
	assert_double_equal(n->arg.ranks_collector_on_rank.cpu_s, 0.05, 1e-12);
	assert_double_equal(n->arg.ranks_collector_on_rank.worst_pct, 3, 1e-9);
	assert_double_equal(n->arg.ranks_collector_on_rank.worst_rank, 2, 0);
	assert_double_equal(n->arg.ranks_collector_on_rank.own_cpu, 1, 0);
	pma_ranks_free(&r);

	/* every rank on a CPU of its own: no note */
	rows = calloc(2, sizeof(*rows));
	row(&rows[0], 0, 2, 3, 0.02);
	row(&rows[1], 1, 2, 2, 0.02);
	rows[0].size = rows[1].size = 2;
	assert_int_equal(pma_ranks_merge(rows, 2, 0, NULL, &r, why, sizeof(why)), 0);
	assert_null(pma_notes_find(&r.notes, PMA_NOTE_RANKS_COLLECTOR_ON_RANK));
	pma_ranks_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sibling),
		cmocka_unit_test(test_job_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
