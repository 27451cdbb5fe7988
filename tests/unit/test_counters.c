/* SPDX-License-Identifier: MIT */
/* test_counters.c: unit tests of collector/sources/counters.c. Each test first asks PAPI whether the
 * perf_event component has hardware counters, and the kernel whether it counts cycles, and
 * asserts the behaviour for that case: a clean, explained failure without a PMU (VMs, CI), real
 * counts with one. */
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
 * (inheritance), and cycles grow between reads. Without one: every entry point fails cleanly
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_defaults),
		cmocka_unit_test(test_attach_counts_forked_busy_tree),
		cmocka_unit_test(test_null_handle_is_safe),
		cmocka_unit_test(test_bogus_event_fails_with_reason),
		cmocka_unit_test(test_second_open_behaves_the_same),
	};

	return cmocka_run_group_tests_name("counters", tests, NULL, NULL);
}
