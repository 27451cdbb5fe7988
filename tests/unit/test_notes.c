/* SPDX-License-Identifier: MIT */
/* test_notes.c: the notes' codes, severities and wording (analyzer/notes/, issue 27): every code
 * has a stable name, one of two severities and a wording in its topic's file; the values a note
 * was made with are kept and copied. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notes.h"

/* the last code of enum pma_note_code (notes.h): new codes go after it */
#define LAST_CODE PMA_NOTE_LEARN_FAILED_RUNS

/* Every code from 1 to the last is worded by its topic's function (pma_note_text falls back to
 * "note N" when none takes it) and has a name of lower-case words joined by '-', unique. */
static void test_every_code_named_and_worded(void **state)
{
	char buf[2048], fallback[32];

	(void)state;
	for (int c = 1; c <= LAST_CODE; c++) {
		struct pma_note x = { .code = (enum pma_note_code)c };
		const char *name = pma_note_code_name(x.code);

		snprintf(fallback, sizeof(fallback), "note %d", c);
		pma_note_text(&x, buf, sizeof(buf));
		if (strcmp(buf, fallback) == 0)
			fail_msg("code %d (%s) has no wording", c, name);
		assert_string_not_equal(name, "unknown");
		assert_true(strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(name));
		for (int d = 1; d < c; d++)
			assert_string_not_equal(name, pma_note_code_name((enum pma_note_code)d));
	}
	assert_string_equal(pma_note_code_name((enum pma_note_code)(LAST_CODE + 1)), "unknown");
}

/* The names scripts match are the enum's; trace notes are warnings, memory notes info. */
static void test_names_and_severities(void **state)
{
	(void)state;
	assert_string_equal(pma_note_code_name(PMA_NOTE_OMEGA_UNKNOWN), "omega-unknown");
	assert_string_equal(pma_note_code_name(PMA_NOTE_SCHED_LOST), "sched-lost");
	assert_string_equal(pma_note_code_name(PMA_NOTE_INV_OMEGA1), "inv-omega1");
	assert_int_equal(pma_note_severity_of(PMA_NOTE_SCHED_LOST), PMA_SEV_WARNING);
	assert_int_equal(pma_note_severity_of(PMA_NOTE_INV_S_CAP), PMA_SEV_WARNING);
	assert_int_equal(pma_note_severity_of(PMA_NOTE_OMEGA_UNKNOWN), PMA_SEV_INFO);
	assert_string_equal(pma_note_severity_name(PMA_SEV_WARNING), "warning");
	assert_string_equal(pma_note_severity_name(PMA_SEV_INFO), "info");
}

/* A note keeps the counts of values it was made with, through pma_notes_append too; each topic
 * file words its own codes (one code per topic, with the values in the text). */
static void test_values_kept_and_worded(void **state)
{
	struct pma_notes a = { 0 }, b = { 0 };
	char buf[1024];

	(void)state;
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_NO_PID, (double[]){ 7 }, 1, NULL, 0), 0);
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_RECORDED, NULL, 0, (const char *[]){ "disk full" }, 1), 0);
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_POWER_TWO_COUNTS, (double[]){ 4, 0.5 }, 2, NULL, 0), 0);
	assert_int_equal(pma_notes_append(&b, &a), 0);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.v[0].nn, 1);
	assert_int_equal(b.v[0].ns, 0);
	assert_int_equal(b.v[1].nn, 0);
	assert_int_equal(b.v[1].ns, 1);
	assert_int_equal(b.v[2].nn, 2);
	pma_note_text(&b.v[0], buf, sizeof(buf));
	assert_non_null(strstr(buf, "run 7: scheduler events ignored"));
	pma_note_text(&b.v[1], buf, sizeof(buf));
	assert_string_equal(buf, "recorded: disk full");
	pma_note_text(&b.v[2], buf, sizeof(buf));
	assert_non_null(strstr(buf, "two core counts"));
	pma_notes_free(&a);
	pma_notes_free(&b);
}

/* The omega-noise note of an n no calibration run had (n4 = 0, the fit's extrapolation) says so
 * instead of "the spread of the repeated calibration runs" (issue 29: "omega(5) = ... below 0 only
 * within its uncertainty (the spread of the repeated calibration runs)" for an uncalibrated 5);
 * a measured n (n4 = 1) keeps the spread of its runs. */
static void test_omega_noise_extrapolated(void **state)
{
	struct pma_notes a = { 0 };
	char buf[1024];

	(void)state;
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_OMEGA_NOISE, (double[]){ 5, -0.01, 0.02, 0, 0 }, 5,
				       NULL, 0), 0);
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_OMEGA_NOISE, (double[]){ 2, -0.01, 0.02, 0, 1 }, 5,
				       NULL, 0), 0);
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_OMEGA_NOISE, (double[]){ 5, -0.01, NAN, 0, 0 }, 5,
				       NULL, 0), 0);
	pma_note_text(&a.v[0], buf, sizeof(buf));
	assert_non_null(strstr(buf, "omega(5) = -0.010 ± 0.020 (extrapolated: no calibration run has 5 "
				    "cores, the value is the fit of eq. 8) is below 0 only within its "
				    "uncertainty (the spread of the repeated calibration runs, carried "
				    "through the fit)"));
	pma_note_text(&a.v[1], buf, sizeof(buf));
	assert_null(strstr(buf, "extrapolated"));
	assert_non_null(strstr(buf, "omega(2) = -0.010 ± 0.020 is below 0 only within its uncertainty "
				    "(the spread of the repeated calibration runs)"));
	pma_note_text(&a.v[2], buf, sizeof(buf));
	assert_non_null(strstr(buf, "omega(5) = -0.010 (extrapolated: no calibration run has 5 cores"));
	pma_notes_free(&a);
}

/* The runs --learn left out of its training table: the count, and the first run's status as it
 * ended (exited N, killed by signal N, no exit status recorded). */
static void test_learn_failed_runs_worded(void **state)
{
	struct pma_notes a = { 0 };
	const char *trace = "cal.zst";
	char buf[1024];

	(void)state;
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_LEARN_FAILED_RUNS,
				       (double[]){ 1, 1, PMA_RUNST_EXIT_CODE, 1 }, 4, &trace, 1), 0);
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_LEARN_FAILED_RUNS,
				       (double[]){ 3, 2, PMA_RUNST_SIGNAL, 9 }, 4, &trace, 1), 0);
	assert_int_equal(pma_notes_add(&a, PMA_NOTE_LEARN_FAILED_RUNS,
				       (double[]){ 2, 4, PMA_RUNST_NO_END, 0 }, 4, &trace, 1), 0);
	pma_note_text(&a.v[0], buf, sizeof(buf));
	assert_string_equal(buf, "left out of the training table: 1 run that did not exit 0 (run 1 "
				 "of 'cal.zst' exited 1): a failed run measures its failure, not the "
				 "program");
	pma_note_text(&a.v[1], buf, sizeof(buf));
	assert_non_null(strstr(buf, ": 3 runs that did not exit 0 (run 2 of 'cal.zst' was killed by "
				    "signal 9): "));
	pma_note_text(&a.v[2], buf, sizeof(buf));
	assert_non_null(strstr(buf, ": 2 runs that did not exit 0 (run 4 of 'cal.zst' recorded no "
				    "exit status): "));
	assert_int_equal(pma_note_severity_of(PMA_NOTE_LEARN_FAILED_RUNS), PMA_SEV_INFO);
	assert_string_equal(pma_note_code_name(PMA_NOTE_LEARN_FAILED_RUNS), "learn-failed-runs");
	pma_notes_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code_named_and_worded),
		cmocka_unit_test(test_names_and_severities),
		cmocka_unit_test(test_values_kept_and_worded),
		cmocka_unit_test(test_omega_noise_extrapolated),
		cmocka_unit_test(test_learn_failed_runs_worded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
