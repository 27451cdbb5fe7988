/* SPDX-License-Identifier: MIT */
/* test_records.c: the analyzer's typed trace model (records.h: META, RUN_BEGIN, RUN_END, SUMMARY,
 * WARNING parsed once), its structured notes (notes.h) and the run wall-time helper, on JSON texts
 * written here, so every expected value is known by construction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "notes.h"
#include "records.h"

static void test_meta(void **state)
{
	static const char text[] =
		"{\"command\":[\"./app\",\"-t\",8,\"a\\u001bb\"],\"cwd\":\"/w\",\"hostname\":\"h\","
		"\"kernel\":{\"release\":\"6.1\"},\"interval_ms\":2.5,\"cpus\":\"0-3,8\","
		"\"env\":{\"OMP_WAIT_POLICY\":\"active\",\"X\":1},"
		"\"sources\":{\"schedstat\":{\"recorded\":true},\"papi\":{\"recorded\":false,"
		"\"reason\":\"no PMU\"}},\"mempolicy\":{\"mode\":\"interleave\"},"
		"\"topology\":{\"packages\":2,\"cores\":16,\"pus\":32,\"numa_nodes\":2,"
		"\"hwloc_xml\":\"<x/>\"},\"cpufreq\":{\"governor\":\"schedutil\","
		"\"cur_khz\":[2000000,0,3500000,\"x\"]}}";
	struct pma_meta m;

	(void)state;
	assert_int_equal(pma_meta_parse(text, &m), 0);
	/* a non-string word keeps its place as NULL; control characters are replaced */
	assert_int_equal(m.ncommand, 4);
	assert_string_equal(m.command[0], "./app");
	assert_null(m.command[2]);
	assert_string_equal(m.command[3], "a?b");
	assert_string_equal(m.cwd, "/w");
	assert_string_equal(m.kernel_release, "6.1");
	assert_null(m.start_utc);
	assert_true(m.interval_ms == 2.5);
	assert_string_equal(m.cpus, "0-3,8");
	assert_true(m.collector_cpu == -1); /* absent */
	/* only string values are environment variables */
	assert_int_equal(m.nenv, 1);
	assert_string_equal(m.env[0].name, "OMP_WAIT_POLICY");
	assert_string_equal(m.env[0].value, "active");
	assert_int_equal(m.nsources, 2);
	assert_string_equal(m.sources[0].name, "schedstat");
	assert_true(m.sources[0].recorded);
	assert_null(m.sources[0].reason);
	assert_false(m.sources[1].recorded);
	assert_string_equal(m.sources[1].reason, "no PMU");
	assert_non_null(strstr(m.sources_json, "\"reason\":\"no PMU\""));
	assert_string_equal(m.mempolicy_mode, "interleave");
	assert_true(m.topo.present);
	assert_true(m.topo.packages == 2 && m.topo.cores == 16 && m.topo.pus == 32);
	assert_true(m.topo.numa_nodes == 2);
	assert_string_equal(m.topo.hwloc_xml, "<x/>");
	/* the range of the positive numbers among cur_khz */
	assert_true(m.cpufreq.present);
	assert_string_equal(m.cpufreq.governor, "schedutil");
	assert_true(m.cpufreq.lo_khz == 2000000 && m.cpufreq.hi_khz == 3500000);
	pma_meta_free(&m);

	assert_int_equal(pma_meta_parse("[1,2]", &m), -1);
	pma_meta_free(&m);
	assert_int_equal(pma_meta_parse("{}", &m), 0);
	assert_false(m.topo.present);
	assert_false(m.cpufreq.present);
	assert_int_equal(m.ncommand, 0);
	assert_null(m.sources_json);
	pma_meta_free(&m);
}

static void test_run(void **state)
{
	struct pma_run_info ri;

	(void)state;
	memset(&ri, 0, sizeof(ri));
	assert_int_equal(pma_run_begin_parse("{\"role\":\"calibration\",\"pid\":4782,\"cpus\":\"0-1\"}",
					     &ri), 0);
	assert_int_equal(pma_run_end_parse("{\"exit\":{\"kind\":\"signaled\",\"code\":0,\"signal\":9},"
					   "\"sched_events\":{\"lost\":12},\"C\":{\"source\":\"cycles\","
					   "\"value\":1e9,\"cpu_time_ns\":5e8,\"llc_misses\":1000,"
					   "\"stall_cycles\":null},\"cpufreq\":null}", &ri), 0);
	assert_true(ri.has_begin && ri.has_end);
	assert_int_equal(ri.role, PMA_ROLE_CALIBRATION);
	assert_int_equal(ri.pid, 4782);
	assert_string_equal(ri.cpus, "0-1");
	assert_int_equal(ri.exit_kind, PMA_EXIT_SIGNALED);
	assert_string_equal(ri.exit_kind_name, "signaled");
	assert_true(ri.exit_code == 0 && ri.exit_signal == 9);
	assert_int_equal(ri.sched_lost, 12);
	assert_true(ri.C.present);
	assert_int_equal(ri.C.unit, PMA_COST_CYCLES);
	assert_true(ri.C.value == 1e9 && ri.C.cpu_time_ns == 5e8 && ri.C.llc_misses == 1000);
	assert_true(isnan(ri.C.stall_cycles)); /* null: not counted */
	assert_false(ri.cpufreq.present);
	pma_run_info_free(&ri);

	/* a pid that is no process id, no role, CPU time as C, no exit */
	memset(&ri, 0, sizeof(ri));
	assert_int_equal(pma_run_begin_parse("{\"pid\":-3}", &ri), 0);
	assert_int_equal(pma_run_end_parse("{\"C\":{\"source\":\"cpu_time\",\"value\":7}}", &ri), 0);
	assert_int_equal(ri.role, PMA_ROLE_UNKNOWN);
	assert_int_equal(ri.pid, 0);
	assert_int_equal(ri.exit_kind, PMA_EXIT_UNKNOWN);
	assert_true(isnan(ri.exit_code));
	assert_int_equal(ri.C.unit, PMA_COST_NS);
	assert_true(ri.C.value == 7 && isnan(ri.C.cpu_time_ns));
	pma_run_info_free(&ri);

	/* text that is not JSON: the record counts as absent */
	memset(&ri, 0, sizeof(ri));
	assert_int_equal(pma_run_end_parse("{not json", &ri), 0);
	assert_false(ri.has_end);
	pma_run_info_free(&ri);
}

/* RUN_END energy of a source none of whose zones advanced (a perf power PMU whose energy-psys
 * reads 0, kernel 6.18 guests; issue 29), as traces before the fix recorded it: no energy, with
 * pmcollect's reason; a zone that advanced keeps the source working. */
static void test_energy_did_not_advance(void **state)
{
	struct pma_run_info ri;

	(void)state;
	memset(&ri, 0, sizeof(ri));
	assert_int_equal(pma_run_end_parse("{\"wall_ns\":600000000,\"energy\":{\"source\":\"perf\","
					   "\"zones\":[{\"name\":\"energy-psys@cpu0\",\"id\":\"energy-psys\","
					   "\"kind\":\"psys\",\"energy_uj\":0}],\"package_uj\":null,"
					   "\"psys_uj\":0,\"readings\":6,\"max_gap_ns\":1e8}}", &ri), 0);
	assert_false(ri.energy.present);
	assert_null(ri.energy.source);
	assert_true(isnan(ri.energy.package_uj) && isnan(ri.energy.max_gap_ns));
	assert_string_equal(ri.energy.reason, "energy unavailable: the counter did not advance "
			    "(7 readings over 0.6 s, perf power PMU)");
	pma_run_info_free(&ri);

	/* one zone of two advanced: the source works */
	memset(&ri, 0, sizeof(ri));
	assert_int_equal(pma_run_end_parse("{\"wall_ns\":1e9,\"energy\":{\"source\":\"powercap\","
					   "\"zones\":[{\"id\":\"intel-rapl:0\",\"energy_uj\":5e6},"
					   "{\"id\":\"intel-rapl:0:0\",\"energy_uj\":0}],"
					   "\"package_uj\":5e6,\"readings\":10}}", &ri), 0);
	assert_true(ri.energy.present);
	assert_string_equal(ri.energy.source, "powercap");
	assert_true(ri.energy.package_uj == 5e6);
	assert_null(ri.energy.reason);
	pma_run_info_free(&ri);

	/* energy null with pmcollect's own reason: kept as recorded */
	memset(&ri, 0, sizeof(ri));
	assert_int_equal(pma_run_end_parse("{\"energy\":null,\"energy_reason\":\"no powercap\"}", &ri), 0);
	assert_false(ri.energy.present);
	assert_string_equal(ri.energy.reason, "no powercap");
	pma_run_info_free(&ri);
}

static void test_summary_warning(void **state)
{
	struct pma_summary s;
	char *what, *code;

	(void)state;
	pma_summary_parse("{\"samples\":83,\"late_samples\":2,\"collector_cpu_ns\":7.3e7}", &s);
	assert_true(s.present);
	assert_true(s.samples == 83 && s.late_samples == 2 && s.lost_samples == 0);
	assert_true(s.collector_cpu_ns == 7.3e7);
	pma_summary_parse("", &s);
	assert_false(s.present);
	what = pma_warning_parse("{\"what\":\"late \\u001b[31m\"}", &code);
	assert_string_equal(what, "late ?[31m");
	assert_null(code); /* a trace written before the codes */
	free(what);
	what = pma_warning_parse("{\"what\":\"lost\",\"code\":\"sched-lost\"}", &code);
	assert_string_equal(what, "lost");
	assert_string_equal(code, "sched-lost");
	free(what);
	free(code);
	assert_null(pma_warning_parse("{\"other\":1,\"code\":\"x\"}", &code));
	assert_null(code);
}

/* SUMMARY "sources" (FORMAT.md §6 SUMMARY): META's energy source, opened (recorded true with its
 * zones), becomes not recorded with SUMMARY's reason, in the typed sources and in the JSON object
 * the reports copy (its other keys kept); an entry without a reason, a source META lacks and a
 * source SUMMARY calls recorded leave META alone. */
static void test_summary_sources(void **state)
{
	struct pma_meta m;
	const struct pma_source *e = NULL, *papi = NULL;

	(void)state;
	assert_int_equal(pma_meta_parse("{\"sources\":{\"energy\":{\"recorded\":true,\"source\":"
		"\"perf\",\"zones\":[\"energy-psys@cpu0\"]},\"papi\":{\"recorded\":true}}}", &m), 0);
	assert_int_equal(pma_summary_sources_apply("{\"samples\":3,\"sources\":{\"energy\":"
		"{\"recorded\":false,\"reason\":\"energy unavailable: the counter did not advance\"},"
		"\"papi\":{\"recorded\":false},\"nosuch\":{\"recorded\":false,\"reason\":\"x\"},"
		"\"stat\":{\"recorded\":true,\"reason\":\"y\"}}}", &m), 0);
	for (size_t i = 0; i < m.nsources; i++) {
		if (strcmp(m.sources[i].name, "energy") == 0)
			e = &m.sources[i];
		if (strcmp(m.sources[i].name, "papi") == 0)
			papi = &m.sources[i];
	}
	assert_int_equal(m.nsources, 2);
	assert_non_null(e);
	assert_non_null(papi);
	assert_false(e->recorded);
	assert_string_equal(e->reason, "energy unavailable: the counter did not advance");
	assert_true(papi->recorded);
	assert_null(papi->reason);
	assert_string_equal(m.sources_json, "{\"energy\":{\"source\":\"perf\",\"zones\":"
		"[\"energy-psys@cpu0\"],\"recorded\":false,\"reason\":\"energy unavailable: the "
		"counter did not advance\"},\"papi\":{\"recorded\":true}}");
	/* not JSON, or no sources: nothing changes */
	assert_int_equal(pma_summary_sources_apply("not json", &m), 0);
	assert_int_equal(pma_summary_sources_apply("{\"sources\":[1]}", &m), 0);
	assert_false(e->recorded);
	pma_meta_free(&m);
}

static void test_notes(void **state)
{
	struct pma_notes l = { 0 }, copy = { 0 };
	char buf[512];

	(void)state;
	/* no cap: the old lists kept 32 warnings, 16 report notes and 6 memory notes */
	for (int i = 0; i < 100; i++)
		assert_int_equal(pma_note_add_seq_gaps(&l, &(struct pma_note_seq_gaps){ .chunks = i }), 0);
	assert_int_equal(pma_note_add_recorded(&l, &(struct pma_note_recorded){ .what = "x" }), 0);
	assert_int_equal(l.n, 101);
	assert_string_equal(pma_note_text(&l.v[99], buf, sizeof(buf)),
			    "chunks missing, repeated or out of order: 99");
	assert_string_equal(pma_note_text(pma_notes_find(&l, PMA_NOTE_RECORDED), buf, sizeof(buf)),
			    "recorded: x");
	assert_null(pma_notes_find(&l, PMA_NOTE_SATURATED));
	assert_int_equal(pma_notes_append(&copy, &l), 0);
	assert_int_equal(copy.n, 101);
	/* a copy, not a shared string */
	assert_ptr_not_equal(copy.v[100].arg.recorded.what, l.v[100].arg.recorded.what);
	pma_notes_free(&l);
	assert_string_equal(pma_note_text(&copy.v[100], buf, sizeof(buf)), "recorded: x");
	pma_notes_free(&copy);

	/* a note's numbers worded as before the notes were structured */
	assert_int_equal(pma_note_add_sched_lost(&l, &(struct pma_note_sched_lost){ .run_id = 3,
				.lost = 0, .gaps = 5, .events = 995 }), 0);
	assert_int_equal(pma_note_add_file_truncated(&l, &(struct pma_note_file_truncated){
				.chunks = 1 }), 0);
	assert_string_equal(pma_note_text(&l.v[0], buf, sizeof(buf)),
			    "run 3: 0 scheduler events lost (5 gaps in 995 recorded): the exact "
			    "estimate is uncertain by about 0.5%");
	assert_string_equal(pma_note_text(&l.v[1], buf, sizeof(buf)),
			    "truncated: the file ends inside a chunk; analyzed the 1 complete chunk");
	pma_notes_free(&l);
}

static void test_wall(void **state)
{
	struct pma_run r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.t_begin_ns = 1000000000;
	r.st.first_t_ns = 1010000000;
	r.st.last_t_ns = 3000000000;
	r.t_end_ns = 3500000000;
	assert_true(pma_run_wall_s(&r) == 2.5);    /* RUN_BEGIN to RUN_END */
	r.t_end_ns = 0;
	assert_true(pma_run_wall_s(&r) == 2.0);    /* cut short: to the last sample */
	r.t_begin_ns = 0;
	assert_true(pma_run_wall_s(&r) == 1.99);   /* no RUN_BEGIN: the samples' span */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_energy_did_not_advance),
		cmocka_unit_test(test_summary_warning),
		cmocka_unit_test(test_summary_sources),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_wall),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
