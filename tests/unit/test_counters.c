/* SPDX-License-Identifier: MIT */
/* test_counters.c: unit tests of collector/sources/counters.c. Each test first asks PAPI whether the
 * perf_event component has hardware counters, and the kernel whether it counts cycles, and
 * asserts the behaviour for that case: a clean, explained failure without a PMU (VMs, CI), real
 * counts with one. The per-thread sums of pmcollect -p (pmc_counts_sum, pmc_counts_since,
 * pmc_thread_counters_cap) are pure and checked on numbers everywhere. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"

/* State of the perf_event component as PAPI reports it, asked independently of counters.c. */
struct pmu_state {
	int usable;               /* enabled, has hardware counters, and the kernel counts cycles */
	int component_enabled;    /* PAPI's perf_event component is enabled with counters */
	char disabled_reason[PAPI_HUGE_STR_LEN];
};

static void pmu_state(struct pmu_state *s)
{
	const PAPI_component_info_t *info;
	char why[512];
	int cidx;

	memset(s, 0, sizeof(*s));
	if (PAPI_is_initialized() == PAPI_NOT_INITED)
		assert_int_equal(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	cidx = PAPI_get_component_index("perf_event");
	if (cidx < 0) {
		snprintf(s->disabled_reason, sizeof(s->disabled_reason), "no perf_event component");
		return;
	}
	info = PAPI_get_component_info(cidx);
	assert_non_null(info);
	if (info->disabled)
		snprintf(s->disabled_reason, sizeof(s->disabled_reason), "%s", info->disabled_reason);
	s->component_enabled = !info->disabled && info->num_cntrs > 0;
	s->usable = s->component_enabled && pmc_kernel_counts_hardware(why, sizeof(why)) == 0;
	if (s->component_enabled && !s->usable)
		snprintf(s->disabled_reason, sizeof(s->disabled_reason), "kernel has no hardware PMU");
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Without a PMU the default open fails, says why (naming perf_event and PAPI's own reason),
 * returns no handle; with one it resolves named events and reads nothing before attach. */
static void test_open_defaults(void **state)
{
	struct pmu_state s;
	struct pmc_counters *c = (struct pmc_counters *)&s; /* must be reset to NULL on failure */
	char why[512] = "";
	int64_t v[64];
	uint32_t i;

	(void)state;
	pmu_state(&s);
	if (!s.usable) {
		char want[PAPI_HUGE_STR_LEN + 64];

		print_message("# no hardware counters here (%s): expecting a clean failure\n", s.disabled_reason);
		assert_int_equal(pmc_counters_open(&c, NULL, why, sizeof(why)), PMT_E_IO);
		assert_null(c);
		assert_non_null(strstr(why, "perf_event"));
		if (s.component_enabled) {
			assert_non_null(strstr(why, "the kernel counts no hardware event"));
		} else if (s.disabled_reason[0] != '\0') {
			snprintf(want, sizeof(want), "PAPI perf_event component disabled: %s", s.disabled_reason);
			assert_string_equal(why, want);
		}
		assert_null(strchr(why, '\n'));
		return;
	}
	assert_int_equal(pmc_counters_open(&c, NULL, why, sizeof(why)), 0);
	assert_non_null(c);
	assert_true(pmc_counters_count(c) >= 1);
	assert_true(pmc_counters_count(c) <= 4);
	for (i = 0; i < pmc_counters_count(c); i++)
		assert_true(strlen(pmc_counters_name(c, i)) > 0);
	assert_null(pmc_counters_name(c, pmc_counters_count(c)));
	/* Not attached yet: nothing counted, every value is "not read". */
	assert_int_equal(pmc_counters_read(c, v), PMT_E_IO);
	for (i = 0; i < pmc_counters_count(c); i++)
		assert_true(v[i] == INT64_MIN);
	pmc_counters_close(c);
}

/* Forks a child that waits on a pipe, then forks a grandchild that spins and waits for it; the
 * child itself does not run. Both are in a new process group so one kill ends them. */
static pid_t spawn_spinning_tree(int *go_fd)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b;
		pid_t g;

		setpgid(0, 0);
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(1);
		g = fork();
		if (g == 0) {
			volatile uint64_t x = 0;

			for (;;)
				x++;
		}
		waitpid(g, NULL, 0);
		_exit(0);
	}
	setpgid(pid, pid);
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

/* With a PMU: counters attached to a waiting child count the busy grandchild it forks afterwards
 * (inheritance), and cycles grow between reads; attached again to another child (the next run)
 * they count that one. Without one: every entry point fails cleanly
 * for the handle a failed open leaves (NULL). */
static void test_attach_counts_forked_busy_tree(void **state)
{
	struct pmu_state s;
	struct pmc_counters *c = NULL;
	char why[512] = "";
	int64_t v1[64], v2[64];
	int go, status;
	pid_t pid;
	const char *name0;

	(void)state;
	pmu_state(&s);
	if (!s.usable) {
		print_message("# no hardware counters here (%s): checking the degraded path\n", s.disabled_reason);
		assert_int_equal(pmc_counters_open(&c, "PAPI_TOT_CYC", why, sizeof(why)), PMT_E_IO);
		assert_null(c);
		why[0] = '\0';
		assert_int_equal(pmc_counters_attach(c, getpid(), why, sizeof(why)), PMT_E_INVAL);
		assert_true(strlen(why) > 0);
		v1[0] = 0;
		assert_int_equal(pmc_counters_read(c, v1), PMT_E_INVAL);
		assert_int_equal(pmc_counters_count(c), 0);
		pmc_counters_close(c);
		return;
	}
	assert_int_equal(pmc_counters_open(&c, NULL, why, sizeof(why)), 0);
	name0 = pmc_counters_name(c, 0);
	assert_non_null(name0);
	assert_true(strcmp(name0, "PAPI_TOT_CYC") == 0 || strcmp(name0, "perf::PERF_COUNT_HW_CPU_CYCLES") == 0);
	pid = spawn_spinning_tree(&go);
	if (pmc_counters_attach(c, pid, why, sizeof(why)) != 0)
		print_message("# attach: %s\n", why);
	assert_int_equal(write(go, "g", 1), 1);
	sleep_ms(100);
	assert_int_equal(pmc_counters_read(c, v1), 0);
	sleep_ms(100);
	assert_int_equal(pmc_counters_read(c, v2), 0);
	kill(-pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(go);
	print_message("# %s: %lld then %lld\n", name0, (long long)v1[0], (long long)v2[0]);
	/* The grandchild spins for ~100 ms between the reads: far more than 10^6 cycles. */
	assert_true(v1[0] > 0);
	assert_true(v2[0] - v1[0] > 1000000);
	/* the next run of a plan: the same set moves to the next child, counting from 0 again */
	pid = spawn_spinning_tree(&go);
	assert_int_equal(pmc_counters_attach(c, pid, why, sizeof(why)), 0);
	assert_int_equal(write(go, "g", 1), 1);
	sleep_ms(100);
	assert_int_equal(pmc_counters_read(c, v1), 0);
	kill(-pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(go);
	print_message("# %s after the second attach: %lld\n", name0, (long long)v1[0]);
	assert_true(v1[0] > 1000000);
	pmc_counters_close(c);
}

/* close(NULL) and the accessors accept the NULL a failed open leaves. */
static void test_null_handle_is_safe(void **state)
{
	int64_t v[1] = {0};
	char why[128] = "";

	(void)state;
	pmc_counters_close(NULL);
	assert_int_equal(pmc_counters_count(NULL), 0);
	assert_null(pmc_counters_name(NULL, 0));
	assert_int_equal(pmc_counters_read(NULL, v), PMT_E_INVAL);
	assert_int_equal(pmc_counters_attach(NULL, 1, why, sizeof(why)), PMT_E_INVAL);
	assert_true(strlen(why) > 0);
	assert_int_equal(pmc_counters_open(NULL, NULL, why, sizeof(why)), PMT_E_INVAL);
}

/* An explicitly requested event that does not exist fails and is named (with a PMU); without
 * one the component is checked first, so the reason is the disabled component. */
static void test_bogus_event_fails_with_reason(void **state)
{
	struct pmu_state s;
	struct pmc_counters *c = NULL;
	char why[512] = "";

	(void)state;
	pmu_state(&s);
	assert_int_equal(pmc_counters_open(&c, "PAPI_TOT_CYC,NOT_AN_EVENT", why, sizeof(why)), PMT_E_IO);
	assert_null(c);
	if (s.usable) {
		assert_non_null(strstr(why, "'NOT_AN_EVENT'"));
	} else {
		print_message("# no hardware counters here: the reason is the component's or the kernel's\n");
		assert_non_null(strstr(why, s.component_enabled ? "the kernel counts no hardware event"
								: "PAPI perf_event component disabled"));
		assert_null(strstr(why, "NOT_AN_EVENT"));
	}
}

/* A failed (or closed) open leaves PAPI usable: the next open in the same process behaves the
 * same, so the collector can retry per run. */
static void test_second_open_behaves_the_same(void **state)
{
	struct pmu_state s;
	struct pmc_counters *c = NULL;
	char why1[512] = "", why2[512] = "";
	int r1, r2;

	(void)state;
	pmu_state(&s);
	r1 = pmc_counters_open(&c, NULL, why1, sizeof(why1));
	pmc_counters_close(c);
	c = NULL;
	r2 = pmc_counters_open(&c, NULL, why2, sizeof(why2));
	assert_int_equal(r1, r2);
	assert_string_equal(why1, why2);
	assert_int_equal(r2, s.usable ? 0 : PMT_E_IO);
	assert_int_equal(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED);
	pmc_counters_close(c);
}

/* pmc_counts_sum: the per-thread counts of a -p window summed per event; an event one thread's
 * set did not read (INT64_MIN), or a negative or overflowing count, sums to "not read" rather
 * than to a part of the whole; the other events still sum. No thread: 0. */
static void test_counts_sum(void **state)
{
	const int64_t rows[] = { 100, 7, 200, 8, 300, 9 }; /* 3 threads x (cycles, instructions) */
	const int64_t bad[] = { 100, 7, INT64_MIN, 8, 300, 9 };
	const int64_t neg[] = { 100, -1, 200, 8 };
	const int64_t big[] = { INT64_MAX - 5, 1, 10, 1 };
	int64_t sum[2] = { -1, -1 };

	(void)state;
	pmc_counts_sum(rows, 3, 2, sum);
	assert_true(sum[0] == 600 && sum[1] == 24);
	pmc_counts_sum(bad, 3, 2, sum);
	assert_true(sum[0] == INT64_MIN && sum[1] == 24);
	pmc_counts_sum(neg, 2, 2, sum);
	assert_true(sum[0] == 300 && sum[1] == INT64_MIN);
	pmc_counts_sum(big, 2, 2, sum);
	assert_true(sum[0] == INT64_MIN && sum[1] == 2);
	pmc_counts_sum(rows, 0, 2, sum);
	assert_true(sum[0] == 0 && sum[1] == 0);
}

/* pmc_counts_since: a window's counts from its start; "not read" at either end, or a count
 * that went backwards, is "not read"; no start values: unchanged. */
static void test_counts_since(void **state)
{
	int64_t v[4] = { 500, 40, INT64_MIN, 10 };
	const int64_t v0[4] = { 100, INT64_MIN, 5, 11 };

	(void)state;
	pmc_counts_since(v, v0, 4);
	assert_true(v[0] == 400 && v[1] == INT64_MIN && v[2] == INT64_MIN && v[3] == INT64_MIN);
	v[0] = 7;
	pmc_counts_since(v, NULL, 1);
	assert_true(v[0] == 7);
}

/* pmc_thread_counters_cap: half the free descriptors, nevents per thread, at most
 * PMC_THREAD_COUNTERS_MAX; none when nothing is free or no event. */
static void test_thread_cap(void **state)
{
	(void)state;
	assert_int_equal(pmc_thread_counters_cap(1024, 24, 2), 250);   /* (1024 - 24) / 2 / 2 */
	assert_int_equal(pmc_thread_counters_cap(1024, 24, 1), 500);
	assert_int_equal(pmc_thread_counters_cap(1048576, 30, 2), PMC_THREAD_COUNTERS_MAX);
	assert_int_equal(pmc_thread_counters_cap(UINT64_MAX, 30, 2), PMC_THREAD_COUNTERS_MAX);
	assert_int_equal(pmc_thread_counters_cap(64, 64, 2), 0);
	assert_int_equal(pmc_thread_counters_cap(64, 100, 2), 0);
	assert_int_equal(pmc_thread_counters_cap(1024, 24, 0), 0);
}

/* pmc_snapshot_every: a -p window's snapshots thinned to PMC_SNAPSHOT_READS reads per sample,
 * but never below 8 per quarter of the window (its duration, else PMC_SNAPSHOT_MAX_NS apart). */
static void test_snapshot_every(void **state)
{
	(void)state;
	assert_int_equal(pmc_snapshot_every(8, 2, 10000000, 0), 1);            /* 16 reads */
	assert_int_equal(pmc_snapshot_every(128, 2, 10000000, 0), 1);          /* 256 reads */
	assert_int_equal(pmc_snapshot_every(129, 2, 10000000, 0), 2);
	assert_int_equal(pmc_snapshot_every(1000, 2, 10000000, 0), 8);         /* 2000 reads */
	assert_int_equal(pmc_snapshot_every(4096, 2, 10000000, 0), 10);        /* 100 ms at most */
	assert_int_equal(pmc_snapshot_every(4096, 2, 10000000, 60000000000ull), 32); /* 60 s */
	assert_int_equal(pmc_snapshot_every(1000, 2, 10000000, 1000000000), 3); /* 1 s: 32 in it */
	assert_int_equal(pmc_snapshot_every(1000, 2, 10000000, 100000000), 1); /* shorter: all */
	assert_int_equal(pmc_snapshot_every(1000, 2, 0, 0), 1);
}

/* Per-thread counters (pmcollect -p) without a session set: a clean refusal with a reason, no
 * handle; every other entry point accepts the NULL it leaves. With a PMU: an opened default set
 * gives cycles then instructions; the calling thread counted reads > 0 for both, and a second
 * add of the same tid is refused. */
static void test_thread_counters(void **state)
{
	struct pmu_state s;
	struct pmc_thread_counters *t = (struct pmc_thread_counters *)&s;
	struct pmc_counters *c = NULL;
	int64_t v[2] = { 0, 0 };
	char why[512] = "";
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)state;
	assert_int_equal(pmc_thread_counters_open(&t, NULL, why, sizeof(why)), PMT_E_INVAL);
	assert_null(t);
	assert_true(strlen(why) > 0);
	assert_int_equal(pmc_thread_counters_add(NULL, 1, why, sizeof(why)), PMT_E_INVAL);
	assert_int_equal(pmc_thread_counters_read(NULL, v), PMT_E_INVAL);
	assert_int_equal(pmc_thread_counters_count(NULL), 0);
	assert_int_equal(pmc_thread_counters_threads(NULL), 0);
	assert_null(pmc_thread_counters_name(NULL, 0));
	assert_false(pmc_thread_counters_has(NULL, 1));
	pmc_thread_counters_close(NULL);
	pmu_state(&s);
	if (!s.usable) {
		print_message("# no hardware counters here (%s): no set to count threads with\n", s.disabled_reason);
		return;
	}
	assert_int_equal(pmc_counters_open(&c, NULL, why, sizeof(why)), 0);
	assert_int_equal(pmc_thread_counters_open(&t, c, why, sizeof(why)), 0);
	assert_int_equal(pmc_thread_counters_count(t), 2);
	assert_int_equal(pmc_counter_kind(pmc_thread_counters_name(t, 0)), PMC_KIND_CYCLES);
	assert_int_equal(pmc_counter_kind(pmc_thread_counters_name(t, 1)), PMC_KIND_INSTRUCTIONS);
	if (pmc_thread_counters_add(t, tid, why, sizeof(why)) != 0) {
		print_message("# attach to this thread: %s\n", why);
	} else {
		volatile uint64_t x = 0;
		for (int i = 0; i < 10000000; i++)
			x += (uint64_t)i;
		assert_true(pmc_thread_counters_has(t, tid));
		assert_int_equal(pmc_thread_counters_add(t, tid, why, sizeof(why)), PMT_E_INVAL);
		assert_int_equal(pmc_thread_counters_read(t, v), 0);
		print_message("# this thread: %lld cycles, %lld instructions\n", (long long)v[0], (long long)v[1]);
		assert_true(v[0] > 0 && v[1] > 1000000);
	}
	pmc_thread_counters_close(t);
	pmc_counters_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_defaults),
		cmocka_unit_test(test_attach_counts_forked_busy_tree),
		cmocka_unit_test(test_null_handle_is_safe),
		cmocka_unit_test(test_bogus_event_fails_with_reason),
		cmocka_unit_test(test_second_open_behaves_the_same),
		cmocka_unit_test(test_counts_sum),
		cmocka_unit_test(test_counts_since),
		cmocka_unit_test(test_thread_cap),
		cmocka_unit_test(test_snapshot_every),
		cmocka_unit_test(test_thread_counters),
	};

	return cmocka_run_group_tests_name("counters", tests, NULL, NULL);
}
