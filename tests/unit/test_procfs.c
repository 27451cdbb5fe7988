/* SPDX-License-Identifier: MIT */
/* test_procfs.c: the /proc parsers of collector/sources/procfs.c on files captured from real threads of
 * the project's machine (tests/fixtures/proc/, made by capture.c there) and on broken buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "procfs.h"

/* Reads tests/fixtures/proc/<name> (relative to $PMT_TOP, else the current directory). */
static char *fixture(const char *name, size_t *len)
{
	const char *top = getenv("PMT_TOP");
	char path[4096];
	char *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/proc/%s", top ? top : ".", name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open '%s'", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static void test_schedstat_fixtures(void **state)
{
	struct pmc_schedstat s;
	size_t len;
	char *b;

	(void)state;
	b = fixture("schedstat-running", &len);
	assert_int_equal(pmc_parse_schedstat(b, len, &s), 0);
	assert_int_equal(s.run_ns, 198853814u);
	assert_int_equal(s.wait_ns, 28899u);
	assert_int_equal(s.timeslices, 3u);
	free(b);

	b = fixture("schedstat-a-paren-b", &len);
	assert_int_equal(pmc_parse_schedstat(b, len, &s), 0);
	assert_int_equal(s.run_ns, 14161u);
	assert_int_equal(s.wait_ns, 0u);
	assert_int_equal(s.timeslices, 1u);
	free(b);

	b = fixture("schedstat-zombie", &len);
	assert_int_equal(pmc_parse_schedstat(b, len, &s), 0);
	assert_int_equal(s.run_ns, 214160u);
	assert_int_equal(s.wait_ns, 206027u);
	assert_int_equal(s.timeslices, 1u);
	free(b);
}

static void test_schedstat_edges(void **state)
{
	struct pmc_schedstat s = { 7, 7, 7 };
	size_t len;
	char *b;

	(void)state;
	/* no trailing newline is fine; the largest u64 fits */
	assert_int_equal(pmc_parse_schedstat("18446744073709551615 1 2", 24, &s), 0);
	assert_true(s.run_ns == UINT64_MAX);

	s.run_ns = 7;
	b = fixture("schedstat-garbage", &len);
	assert_int_equal(pmc_parse_schedstat(b, len, &s), PMT_E_CORRUPT);
	free(b);
	b = fixture("schedstat-overflow", &len);
	assert_int_equal(pmc_parse_schedstat(b, len, &s), PMT_E_CORRUPT);
	free(b);
	assert_int_equal(s.run_ns, 7u); /* unchanged on error */

	assert_int_equal(pmc_parse_schedstat("", 0, &s), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_schedstat(NULL, 0, &s), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_schedstat("1 2 3 4\n", 8, &s), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_schedstat("1  2 3\n", 7, &s), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_schedstat("1 2 3\n\n", 7, &s), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_schedstat("1 -2 3\n", 7, &s), PMT_E_CORRUPT);
	/* the length is honoured: bytes past len are not read */
	assert_int_equal(pmc_parse_schedstat("1 2 3 garbage", 5, &s), 0);
	assert_int_equal(s.timeslices, 3u);

	/* every cut before the third number starts is rejected */
	b = fixture("schedstat-running", &len);
	for (size_t cut = 0; cut < len; cut++) {
		if (cut <= (size_t)(strrchr(b, ' ') - b) + 0)
			assert_int_equal(pmc_parse_schedstat(b, cut, &s), PMT_E_CORRUPT);
		else
			(void)pmc_parse_schedstat(b, cut, &s); /* a shorter number, but no crash */
	}
	free(b);
}

static void test_stat_a_paren_b(void **state)
{
	struct pmc_stat st;
	size_t len;
	char *b;

	(void)state;
	b = fixture("stat-a-paren-b", &len);
	assert_int_equal(pmc_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 5273);
	assert_string_equal(st.comm, "a) b");
	assert_int_equal(st.comm_len, 4);
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 5263);
	assert_int_equal(st.utime_ticks, 0);
	assert_int_equal(st.stime_ticks, 0);
	assert_int_equal(st.num_threads, 3);
	assert_int_equal(st.starttime_ticks, 35326);
	assert_int_equal(st.processor, 1);
	free(b);
}

static void test_stat_running(void **state)
{
	struct pmc_stat st;
	size_t len;
	char *b;

	(void)state;
	b = fixture("stat-running", &len);
	assert_int_equal(pmc_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 5274);
	assert_string_equal(st.comm, "spinner");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 5263);
	assert_int_equal(st.utime_ticks, 19);
	assert_int_equal(st.stime_ticks, 0);
	assert_int_equal(st.num_threads, 3);
	assert_int_equal(st.starttime_ticks, 35326);
	assert_int_equal(st.processor, 0);
	free(b);
}

static void test_stat_zombie_and_kthread(void **state)
{
	struct pmc_stat st;
	size_t len;
	char *b;

	(void)state;
	b = fixture("stat-zombie", &len);
	assert_int_equal(pmc_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 5275);
	assert_string_equal(st.comm, "capture");
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.ppid, 5272);
	assert_int_equal(st.utime_ticks, 0);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.starttime_ticks, 35346);
	assert_int_equal(st.processor, 1);
	free(b);

	b = fixture("stat-kthreadd", &len);
	assert_int_equal(pmc_parse_stat(b, len, &st), 0);
	assert_int_equal(st.pid, 2);
	assert_string_equal(st.comm, "kthreadd");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 0);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.starttime_ticks, 24);
	assert_int_equal(st.processor, 1);
	free(b);
}

/* Offset just past field 39 (processor) in a stat line, counting fields after the last ')'. */
static size_t end_of_field39(const char *b)
{
	const char *p = strrchr(b, ')') + 1;
	int field = 2;

	while (*p) {
		if (*p == ' ')
			field++;
		if (field == 40)
			return (size_t)(p - b);
		p++;
	}
	return strlen(b);
}

static void test_stat_broken(void **state)
{
	static const char *const names[] = { "stat-a-paren-b", "stat-running", "stat-zombie",
					     "stat-kthreadd" };
	struct pmc_stat st;
	size_t len;
	char *b;

	(void)state;
	b = fixture("stat-truncated", &len);
	assert_int_equal(pmc_parse_stat(b, len, &st), PMT_E_CORRUPT);
	free(b);
	b = fixture("stat-garbage", &len);
	assert_int_equal(pmc_parse_stat(b, len, &st), PMT_E_CORRUPT);
	free(b);
	assert_int_equal(pmc_parse_stat("", 0, &st), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_stat(NULL, 0, &st), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_stat("1 (x", 4, &st), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_stat("1 x) R 0", 8, &st), PMT_E_CORRUPT);

	/* every cut of a real line that loses part of fields 1..39 is rejected (a cut inside the
	 * digits of field 39 itself would read a shorter number, so stop one digit earlier) */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t end;
		b = fixture(names[i], &len);
		end = end_of_field39(b);
		for (size_t cut = 0; cut + 1 < end; cut++) {
			if (pmc_parse_stat(b, cut, &st) != PMT_E_CORRUPT)
				fail_msg("%s cut at %zu of %zu accepted", names[i], cut, len);
		}
		/* cuts after field 39 inside later fields parse or fail, never crash */
		for (size_t cut = end; cut <= len; cut++)
			(void)pmc_parse_stat(b, cut, &st);
		free(b);
	}
}

static void test_stat_comm_edges(void **state)
{
	const char *tail = " 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 "
			   "31 32 33 34 35 36\n";
	char line[512], longname[100];
	struct pmc_stat st;

	(void)state;
	/* comm that ends with ')' and one that holds "(": the last ')' wins */
	snprintf(line, sizeof(line), "42 ()) R%s", tail);
	assert_int_equal(pmc_parse_stat(line, strlen(line), &st), 0);
	assert_string_equal(st.comm, ")");
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.utime_ticks, 11);
	assert_int_equal(st.stime_ticks, 12);
	assert_int_equal(st.num_threads, 17);
	assert_int_equal(st.starttime_ticks, 19);
	assert_int_equal(st.processor, 36);
	snprintf(line, sizeof(line), "42 (( ) R ) D%s", tail);
	assert_int_equal(pmc_parse_stat(line, strlen(line), &st), 0);
	assert_string_equal(st.comm, "( ) R ");
	assert_int_equal(st.state, 'D');
	/* empty comm */
	snprintf(line, sizeof(line), "42 () t%s", tail);
	assert_int_equal(pmc_parse_stat(line, strlen(line), &st), 0);
	assert_int_equal(st.comm_len, 0);
	assert_int_equal(st.state, 't');
	/* a name longer than PMC_COMM_MAX is cut, not overflowed */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(line, sizeof(line), "42 (%s) S%s", longname, tail);
	assert_int_equal(pmc_parse_stat(line, strlen(line), &st), 0);
	assert_int_equal(st.comm_len, PMC_COMM_MAX);
	assert_int_equal(strlen(st.comm), PMC_COMM_MAX);
	/* a negative processor is a number, a letter state is required */
	snprintf(line, sizeof(line), "42 (x) 5%s", tail);
	assert_int_equal(pmc_parse_stat(line, strlen(line), &st), PMT_E_CORRUPT);
	snprintf(line, sizeof(line), "42 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 "
		 "23 24 25 26 27 28 29 30 31 32 33 34 35 x\n");
	assert_int_equal(pmc_parse_stat(line, strlen(line), &st), PMT_E_CORRUPT);
	/* ppid beyond 32 bits */
	snprintf(line, sizeof(line), "42 (x) S 4294967296 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 "
		 "20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36\n");
	assert_int_equal(pmc_parse_stat(line, strlen(line), &st), PMT_E_CORRUPT);
}

static void test_status_fixtures(void **state)
{
	struct pmc_ctxt c;
	size_t len;
	char *b;

	(void)state;
	b = fixture("status-a-paren-b", &len);
	assert_int_equal(pmc_parse_status_ctxt(b, len, &c), 0);
	assert_int_equal(c.nvcsw, 1);
	assert_int_equal(c.nivcsw, 0);
	free(b);
	b = fixture("status-running", &len);
	assert_int_equal(pmc_parse_status_ctxt(b, len, &c), 0);
	assert_int_equal(c.nvcsw, 0);
	assert_int_equal(c.nivcsw, 2);
	free(b);
	b = fixture("status-zombie", &len);
	assert_int_equal(pmc_parse_status_ctxt(b, len, &c), 0);
	assert_int_equal(c.nvcsw, 1);
	assert_int_equal(c.nivcsw, 0);
	/* cut before the last line: the nonvoluntary line is missing or incomplete */
	assert_int_equal(pmc_parse_status_ctxt(b, (size_t)(strstr(b, "nonvol") - b) + 27, &c), PMT_E_CORRUPT);
	free(b);

	b = fixture("status-no-ctxt", &len);
	assert_int_equal(pmc_parse_status_ctxt(b, len, &c), PMT_E_CORRUPT);
	free(b);
	b = fixture("status-garbage", &len);
	assert_int_equal(pmc_parse_status_ctxt(b, len, &c), PMT_E_CORRUPT);
	free(b);
	assert_int_equal(pmc_parse_status_ctxt("", 0, &c), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_status_ctxt(NULL, 0, &c), PMT_E_CORRUPT);
	/* "nonvoluntary_ctxt_switches" must not satisfy the "voluntary_ctxt_switches" key */
	assert_int_equal(pmc_parse_status_ctxt("nonvoluntary_ctxt_switches:\t3\n", 30, &c), PMT_E_CORRUPT);
	assert_int_equal(pmc_parse_status_ctxt("voluntary_ctxt_switches:\t5\n"
					       "nonvoluntary_ctxt_switches:\t6", 56, &c), 0);
	assert_int_equal(c.nvcsw, 5);
	assert_int_equal(c.nivcsw, 6);
}

/* Random byte flips and cuts of every fixture: the parsers may accept or reject, never crash or
 * read outside the buffer (run under AddressSanitizer with exact-size heap copies). */
static void test_mutations_do_not_crash(void **state)
{
	static const char *const names[] = { "stat-a-paren-b", "stat-running", "stat-zombie",
					     "stat-kthreadd", "schedstat-running", "status-running",
					     "status-zombie" };
	uint32_t rng = 12345;
	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len;
		char *b = fixture(names[i], &len);
		for (int round = 0; round < 2000; round++) {
			size_t cut;
			char *m;
			rng = rng * 1103515245u + 12345u;
			cut = (rng >> 8) % (len + 1);
			m = malloc(cut ? cut : 1);
			assert_non_null(m);
			memcpy(m, b, cut);
			for (int k = 0; k < 3 && cut; k++) {
				rng = rng * 1103515245u + 12345u;
				m[(rng >> 8) % cut] = (char)(rng >> 24);
			}
			{
				struct pmc_schedstat s;
				struct pmc_stat st;
				struct pmc_ctxt c;
				(void)pmc_parse_schedstat(m, cut, &s);
				(void)pmc_parse_stat(m, cut, &st);
				(void)pmc_parse_status_ctxt(m, cut, &c);
			}
			free(m);
		}
		free(b);
	}
}

/* tests/fixtures/proc/<file>-<thread>: one file of one captured thread. */
static char *thread_fixture(const char *file, const char *thread, size_t *len)
{
	char name[64];

	snprintf(name, sizeof(name), "%s-%s", file, thread);
	return fixture(name, len);
}

/* The sampler's mapping of the files into a thread's SAMPLE entry (pmc_sample_*), on the files of
 * two captured threads: schedstat's field 1 is run_ns and field 2 wait_ns (a swap passes every
 * parse test above and every check of a busy machine), stat's field 39 the CPU, status's two
 * lines nvcsw and nivcsw; a file that does not parse leaves the entry as it was. */
static void test_sample_mapping(void **state)
{
	static const struct {
		const char *thread;
		uint64_t run_ns, wait_ns, timeslices;
		char state;
		uint16_t cpu;
		uint32_t nvcsw, nivcsw;
	} want[] = {
		{ "running", 198853814u, 28899u, 3u, 'R', 0, 0, 2 },
		{ "a-paren-b", 14161u, 0u, 1u, 'S', 1, 1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct pmt_thread_sample v = { .cpu = PMT_CPU_UNKNOWN, .state = '?' };
		struct pmc_stat st;
		size_t len;
		char *b;

		b = thread_fixture("schedstat", want[i].thread, &len);
		assert_int_equal(pmc_sample_schedstat(&v, b, len), 0);
		free(b);
		assert_int_equal(v.run_ns, want[i].run_ns);
		assert_int_equal(v.wait_ns, want[i].wait_ns);
		assert_int_equal(v.timeslices, want[i].timeslices);
		assert_int_equal(v.flags, PMT_TS_SCHEDSTAT_OK);
		assert_int_equal(v.state, '?'); /* stat not read yet */
		assert_int_equal(v.cpu, PMT_CPU_UNKNOWN);

		b = thread_fixture("stat", want[i].thread, &len);
		assert_int_equal(pmc_sample_stat(&v, b, len, &st), 0);
		free(b);
		assert_int_equal(v.state, want[i].state);
		assert_int_equal(v.cpu, want[i].cpu);
		assert_int_equal(v.flags, PMT_TS_SCHEDSTAT_OK | PMT_TS_STAT_FRESH);

		b = thread_fixture("status", want[i].thread, &len);
		assert_int_equal(pmc_sample_status(&v, b, len), 0);
		free(b);
		assert_int_equal(v.nvcsw, want[i].nvcsw);
		assert_int_equal(v.nivcsw, want[i].nivcsw);
		assert_int_equal(v.flags, PMT_TS_SCHEDSTAT_OK | PMT_TS_STAT_FRESH | PMT_TS_STATUS_FRESH);
		assert_int_equal(v.run_ns, want[i].run_ns); /* untouched by stat and status */
		assert_int_equal(v.wait_ns, want[i].wait_ns);
	}
	{
		struct pmt_thread_sample v = { .run_ns = 5, .wait_ns = 6, .cpu = 7, .state = 'S' }, was = v;
		struct pmc_stat st;
		size_t len;
		char *b;

		b = fixture("schedstat-garbage", &len);
		assert_int_equal(pmc_sample_schedstat(&v, b, len), PMT_E_CORRUPT);
		free(b);
		b = fixture("stat-garbage", &len);
		assert_int_equal(pmc_sample_stat(&v, b, len, &st), PMT_E_CORRUPT);
		free(b);
		b = fixture("status-garbage", &len);
		assert_int_equal(pmc_sample_status(&v, b, len), PMT_E_CORRUPT);
		free(b);
		assert_true(v.run_ns == was.run_ns && v.wait_ns == was.wait_ns && v.cpu == was.cpu &&
			    v.state == was.state && v.nvcsw == was.nvcsw && v.flags == 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedstat_fixtures),
		cmocka_unit_test(test_schedstat_edges),
		cmocka_unit_test(test_stat_a_paren_b),
		cmocka_unit_test(test_stat_running),
		cmocka_unit_test(test_stat_zombie_and_kthread),
		cmocka_unit_test(test_stat_broken),
		cmocka_unit_test(test_stat_comm_edges),
		cmocka_unit_test(test_status_fixtures),
		cmocka_unit_test(test_sample_mapping),
		cmocka_unit_test(test_mutations_do_not_crash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
