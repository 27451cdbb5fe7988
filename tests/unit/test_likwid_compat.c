/* SPDX-License-Identifier: MIT */
/* test_likwid_compat.c: pm_cpuexpr_parse against likwid-pin 5.2.2 on hwloc's Linux test
 * topologies. tests/fixtures/likwid/likwid-pin.tsv holds likwid-pin's answer for each
 * (topology, expression), recorded by tests/likwid/record.sh (method there); each topology is
 * tests/fixtures/likwid/<topology>.xml. Every row must agree (same CPUs in the same order, or
 * both refuse), or be one of the refusals docs/cpu-expressions.md lists under "Where pmtools
 * differs from LIKWID": LIKWID repeating a CPU, wrapping an index past a domain's end, running
 * E: past the end, or giving fewer CPUs than a COUNT asks for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuexpr.h"

/* Whether LIKWID's answer (a comma-separated list) names one CPU twice. */
static int repeats(const char *list)
{
	unsigned seen[4096] = { 0 };
	char *end;
	for (const char *p = list; *p; p = *end == ',' ? end + 1 : end) {
		unsigned long c = strtoul(p, &end, 10);
		if (end == p)
			return 0;
		if (c < 4096 && seen[c]++)
			return 1;
	}
	return 0;
}

/* Whether pmtools' refusal is one docs/cpu-expressions.md lists as a difference from LIKWID. */
static int documented_refusal(const char *why, const char *likwid)
{
	if (strcmp(likwid, "!") == 0)
		return 0;
	return repeats(likwid) || strstr(why, "is selected twice") || strstr(why, "is outside") ||
	       strstr(why, "runs past the end") || strstr(why, "asks for") ||
	       strstr(why, "needs") || strstr(why, "the topology has");
}

/* Topologies LIKWID reads differently from hwloc (its own thread-to-core and socket mapping), so
 * that no expression can be compared: 96em64t-4n4d3ca2co (LIKWID's S0 is 0,1,4,5,8,9, hwloc's
 * package 0 holds 0,4,8,12,16,20), fakecpuid1f-64intel64-2p4d2n2c2t (LIKWID takes CPUs 0 and 1
 * as two cores, hwloc as the two threads of one). Their XML is not kept. */
static int likwid_misreads(const char *name)
{
	return strcmp(name, "96em64t-4n4d3ca2co") == 0 ||
	       strcmp(name, "fakecpuid1f-64intel64-2p4d2n2c2t") == 0;
}

/* pmtools' extension: "L:" with an index list and no domain means domain N (LIKWID 5.2.2
 * refuses it). */
static int extension(const char *expr, const char *likwid)
{
	return strcmp(likwid, "!") == 0 && expr[0] == 'L' && expr[1] == ':' && expr[2] >= '0' &&
	       expr[2] <= '9';
}

static hwloc_topology_t load(const char *top, const char *name)
{
	hwloc_topology_t topo;
	char path[1024];

	assert_int_equal(hwloc_topology_init(&topo), 0);
	snprintf(path, sizeof(path), "%s/tests/fixtures/likwid/%s.xml", top, name);
	if (hwloc_topology_set_xml(topo, path) != 0)
		fail_msg("cannot read %s", path);
	assert_int_equal(hwloc_topology_load(topo), 0);
	return topo;
}

static void test_against_likwid(void **state)
{
	const char *top = getenv("PMT_TOP") ? getenv("PMT_TOP") : ".";
	char path[1024], line[4096], loaded[128] = "";
	hwloc_topology_t topo = NULL;
	unsigned same = 0, both_refuse = 0, documented = 0, differ = 0, misread = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/fixtures/likwid/likwid-pin.tsv", top);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *name = strtok(line, "\t\n"), *expr = strtok(NULL, "\t\n"),
		     *want = strtok(NULL, "\t\n");
		struct pm_cpuexpr e;
		char why[256] = "", got[4096] = "";
		size_t pos = 0;

		if (!name || name[0] == '#' || !expr || !want)
			continue;
		if (likwid_misreads(name)) {
			misread++;
			continue;
		}
		if (strcmp(name, loaded) != 0) {
			if (topo)
				hwloc_topology_destroy(topo);
			topo = load(top, name);
			snprintf(loaded, sizeof(loaded), "%s", name);
		}
		if (pm_cpuexpr_parse(topo, expr, &e, why, sizeof(why)) != 0) {
			if (strcmp(want, "!") == 0) {
				both_refuse++;
			} else if (documented_refusal(why, want)) {
				documented++;
			} else {
				differ++;
				printf("# differ %s %s: likwid %s, pmtools refuses: %s\n", name, expr,
				       want, why);
			}
			continue;
		}
		for (size_t i = 0; i < e.ncpus && pos < sizeof(got) - 16; i++)
			pos += (size_t)snprintf(got + pos, sizeof(got) - pos, "%s%u", i ? "," : "",
						e.cpus[i]);
		pm_cpuexpr_free(&e);
		if (strcmp(got, want) == 0) {
			same++;
		} else if (extension(expr, want)) {
			documented++;
		} else {
			differ++;
			printf("# differ %s %s: likwid %s, pmtools %s\n", name, expr, want, got);
		}
	}
	fclose(f);
	if (topo)
		hwloc_topology_destroy(topo);
	printf("# likwid-pin compared: %u same, %u refused by both, %u documented differences, %u "
	       "differ; %u on topologies LIKWID misreads\n", same, both_refuse, documented, differ,
	       misread);
	assert_true(same > 0);
	assert_int_equal(differ, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_likwid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
