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
#include "testlib.h"

#define LAST_CODE (PMA_NOTE_CODES_END - 1)

/* notes.def's three spellings of each code, for the check that they agree */
static const struct spelling {
	enum pma_note_code code;
	const char *CODE, *name, *stable;
} spellings[] = {
#define PMA_NOTE(CODE, name, str, sev, topic, args) { PMA_NOTE_##CODE, #CODE, #name, str },
#define PMA_NOTE_BARE(CODE, name, str, sev, topic) { PMA_NOTE_##CODE, #CODE, #name, str },
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
};

/* Every code from 1 to the last is worded (pma_note_text falls back to "note N" when none takes
 * it) and has a name of lower-case words joined by '-', unique; in notes.def, the name is CODE in
 * lower case and the stable name the same with '-' for '_'. */
static void test_every_code_named_and_worded(void **state)
{
	char buf[2048], fallback[32];

	(void)state;
	assert_int_equal(sizeof(spellings) / sizeof(spellings[0]), LAST_CODE);
	for (int c = 1; c <= LAST_CODE; c++) {
		struct pma_note x = { .code = (enum pma_note_code)c };
		const char *name = pma_note_code_name(x.code);
		const struct spelling *sp = &spellings[c - 1];

		snprintf(fallback, sizeof(fallback), "note %d", c);
		pma_note_text(&x, buf, sizeof(buf));
		if (strcmp(buf, fallback) == 0)
			fail_msg("code %d (%s) has no wording", c, name);
		assert_string_not_equal(name, "unknown");
		assert_true(strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(name));
		for (int d = 1; d < c; d++)
			assert_string_not_equal(name, pma_note_code_name((enum pma_note_code)d));
		assert_int_equal(sp->code, c);
		assert_string_equal(sp->stable, name);
		assert_int_equal(strlen(sp->CODE), strlen(name));
		for (size_t i = 0; sp->CODE[i]; i++) {
			char lower = (char)(sp->CODE[i] == '_' ? '_' : sp->CODE[i] - 'A' + 'a');
			if (sp->CODE[i] >= '0' && sp->CODE[i] <= '9')
				lower = sp->CODE[i];
			if (sp->name[i] != lower || name[i] != (lower == '_' ? '-' : lower))
				fail_msg("notes.def spells %s as %s and \"%s\"", sp->CODE, sp->name, name);
		}
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

/* A note keeps its values and strings (copies), through pma_notes_append too; the walk over
 * its arguments gives them by name in notes.def's order. */
static void test_values_kept_and_worded(void **state)
{
	struct pma_notes a = { 0 }, b = { 0 };
	char buf[1024], what[] = "disk full";

	(void)state;
	assert_int_equal(pma_note_add_no_pid(&a, &(struct pma_note_no_pid){ .run_id = 7 }), 0);
	assert_int_equal(pma_note_add_recorded(&a, &(struct pma_note_recorded){ .what = what }), 0);
	assert_int_equal(pma_note_add_power_two_counts(&a, &(struct pma_note_power_two_counts){
				.runs = 4, .R2 = 0.5 }), 0);
	assert_int_equal(pma_note_add_incomplete(&a), 0);
	what[0] = 'D'; /* the note has its own copy */
	assert_int_equal(pma_notes_append(&b, &a), 0);
	pma_notes_free(&a);
	assert_int_equal(b.n, 4);
	assert_double_equal(b.v[0].arg.no_pid.run_id, 7, 0);
	assert_string_equal(b.v[1].arg.recorded.what, "disk full");
	assert_null(b.v[1].arg.recorded.code);
	assert_double_equal(b.v[2].arg.power_two_counts.R2, 0.5, 0);
	pma_note_text(&b.v[0], buf, sizeof(buf));
	assert_non_null(strstr(buf, "run 7: scheduler events ignored"));
	pma_note_text(&b.v[1], buf, sizeof(buf));
	assert_string_equal(buf, "recorded: disk full");
	pma_note_text(&b.v[2], buf, sizeof(buf));
	assert_non_null(strstr(buf, "two core counts"));
	pma_note_text(&b.v[3], buf, sizeof(buf));
	assert_non_null(strstr(buf, "incomplete: "));
	pma_notes_free(&b);
}

/* The names of a note's arguments, one string "name:kind name:kind ..." (pma_note_each). */
static void field_names(const struct pma_note_field *f, void *ctx)
{
	char *out = ctx;
	size_t o = strlen(out);

	snprintf(out + o, 256 - o, "%s%s:%s", o ? " " : "", f->name,
		 f->kind == PMA_NOTE_NUM ? "num" : f->kind == PMA_NOTE_CHOICE ? "choice" : "str");
}

static void test_fields_by_name(void **state)
{
	struct pma_notes a = { 0 };
	char names[256] = "";

	(void)state;
	assert_int_equal(pma_note_add_est_disagree(&a, &(struct pma_note_est_disagree){ .A = 3.9,
				.A_other = 2.1, .ratio = 1.86, .covered = 2, .estimator = "sched-exact",
				.other = "runnable" }), 0);
	pma_note_each(&a.v[0], field_names, names);
	assert_string_equal(names, "A:num A_other:num ratio:num covered:choice estimator:str "
				   "other:str");
	names[0] = '\0';
	pma_note_each(&(struct pma_note){ .code = PMA_NOTE_INCOMPLETE }, field_names, names);
	assert_string_equal(names, "");
	assert_string_equal(pma_note_topic(PMA_NOTE_EST_DISAGREE), "model");
	pma_notes_free(&a);
}

/* The omega-noise note of an n no calibration run had (measured 0, the fit's extrapolation)
 * says so instead of "the spread of the repeated calibration runs"; a measured n keeps the
 * spread of its runs. */
static void test_omega_noise_extrapolated(void **state)
{
	struct pma_notes a = { 0 };
	char buf[1024];

	(void)state;
	assert_int_equal(pma_note_add_omega_noise(&a, &(struct pma_note_omega_noise){ .n = 5,
				.omega = -0.01, .omega_err = 0.02 }), 0);
	assert_int_equal(pma_note_add_omega_noise(&a, &(struct pma_note_omega_noise){ .n = 2,
				.omega = -0.01, .omega_err = 0.02, .measured = 1 }), 0);
	assert_int_equal(pma_note_add_omega_noise(&a, &(struct pma_note_omega_noise){ .n = 5,
				.omega = -0.01, .omega_err = NAN }), 0);
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
	char buf[1024];

	(void)state;
	assert_int_equal(pma_note_add_learn_failed_runs(&a, &(struct pma_note_learn_failed_runs){
				.runs = 1, .run_id = 1, .status = PMA_RUNST_EXIT_CODE, .code = 1,
				.trace = "cal.zst" }), 0);
	assert_int_equal(pma_note_add_learn_failed_runs(&a, &(struct pma_note_learn_failed_runs){
				.runs = 3, .run_id = 2, .status = PMA_RUNST_SIGNAL, .code = 9,
				.trace = "cal.zst" }), 0);
	assert_int_equal(pma_note_add_learn_failed_runs(&a, &(struct pma_note_learn_failed_runs){
				.runs = 2, .run_id = 4, .status = PMA_RUNST_NO_END, .code = 0,
				.trace = "cal.zst" }), 0);
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

/* Where each named argument lands in the wording. Every note is worded with distinct values,
 * number k of a note (111, 222, 333, ...) and each string "{its name}", once per combination of
 * its CHOICE values; each printed number equal to an argument is then replaced by "{its name}",
 * which gives a template such as "run {run_id}: {lost} scheduler events lost ({gaps} gaps in
 * {events} recorded) ...". The templates of every note are compared with
 * tests/golden/notes-wording.txt: an argument swapped in a wording, or one that no longer shows,
 * changes its line. PMT_GOLDEN_UPDATE=1 rewrites the file (review the diff). */
#define MAX_ARGS 16
struct fill {
	int nchoice, choice_at[MAX_ARGS], value[MAX_ARGS], lo[MAX_ARGS], hi[MAX_ARGS];
	const char *num_name[MAX_ARGS];
	double num_value[MAX_ARGS];
	int nnum, k;
	char str[MAX_ARGS][40];
	int nstr;
};

/* the CHOICE fields of a note, their ranges */
static void find_choices(const struct pma_note_field *f, void *ctx)
{
	struct fill *F = ctx;

	if (f->kind == PMA_NOTE_CHOICE) {
		F->lo[F->nchoice] = f->lo;
		F->hi[F->nchoice] = f->hi;
		F->value[F->nchoice++] = f->lo;
	}
}

/* the distinct values: numbers 111 k, strings "{name}", choices as the combination says */
static void fill_values(const struct pma_note_field *f, void *ctx)
{
	struct fill *F = ctx;

	if (f->kind == PMA_NOTE_NUM) {
		F->num_name[F->nnum] = f->name;
		F->num_value[F->nnum] = 111.0 * (F->nnum + 1);
		*f->num = F->num_value[F->nnum++];
	} else if (f->kind == PMA_NOTE_STR) {
		snprintf(F->str[F->nstr], sizeof(F->str[0]), "{%s}", f->name);
		*f->str = F->str[F->nstr++];
	} else {
		*f->choice = F->value[F->k++];
	}
}

/* text with every number that equals an argument replaced by {its name}, appended to out */
static void templatize(const char *text, const struct fill *F, char *out, size_t size)
{
	size_t o = strlen(out);

	for (const char *p = text; *p && o + 1 < size;) {
		int starts = (*p >= '0' && *p <= '9') ||
			     ((*p == '+' || *p == '-') && p[1] >= '0' && p[1] <= '9' &&
			      (p == text || !strchr("0123456789.", p[-1])));
		char *end;
		double v = starts ? strtod(p, &end) : 0;
		int hit = -1;

		for (int i = 0; starts && i < F->nnum; i++)
			if (v == F->num_value[i])
				hit = i;
		if (hit >= 0) {
			o += (size_t)snprintf(out + o, size - o, "{%s}", F->num_name[hit]);
			p = end;
		} else if (starts) {
			while (p < end && o + 1 < size)
				out[o++] = *p++;
			out[o] = '\0';
		} else {
			out[o++] = *p++;
			out[o] = '\0';
		}
		if (o >= size)
			o = size - 1;
	}
}

static void test_wording_templates(void **state)
{
	const char *top = getenv("PMT_TOP"), *update = getenv("PMT_GOLDEN_UPDATE");
	char path[1024], text[4096];
	size_t size = 1 << 20, o = 0;
	char *got = malloc(size), *want;
	FILE *f;

	(void)state;
	assert_non_null(got);
	got[0] = '\0';
	snprintf(path, sizeof(path), "%s%stests/golden/notes-wording.txt", top ? top : "",
		 top ? "/" : "");
	for (int c = 1; c <= LAST_CODE; c++) {
		struct fill F = { 0 };
		struct pma_note x = { .code = (enum pma_note_code)c };
		int done = 0;

		pma_note_fields(&x, find_choices, &F);
		while (!done) {
			F.nnum = F.nstr = F.k = 0;
			pma_note_fields(&x, fill_values, &F);
			pma_note_text(&x, text, sizeof(text));
			o += (size_t)snprintf(got + o, size - o, "%s %s %s", pma_note_topic(x.code),
					      pma_note_code_name(x.code),
					      pma_note_severity_name(pma_note_severity_of(x.code)));
			for (int i = 0; i < F.nchoice; i++)
				o += (size_t)snprintf(got + o, size - o, " [%d of %d..%d]", F.value[i],
						      F.lo[i], F.hi[i]);
			o += (size_t)snprintf(got + o, size - o, ": ");
			templatize(text, &F, got, size);
			o = strlen(got);
			o += (size_t)snprintf(got + o, size - o, "\n");
			/* the next combination of the CHOICE values, or done */
			done = 1;
			for (int i = 0; i < F.nchoice && done; i++) {
				if (F.value[i] < F.hi[i]) {
					F.value[i]++;
					done = 0;
				} else {
					F.value[i] = F.lo[i];
				}
			}
		}
	}
	assert_true(o + 1 < size);
	if (update && strcmp(update, "1") == 0) {
		assert_non_null(f = fopen(path, "w"));
		fputs(got, f);
		assert_int_equal(fclose(f), 0);
		free(got);
		return;
	}
	if (!(f = fopen(path, "r")))
		fail_msg("cannot open '%s' (run with PMT_TOP=the source tree)", path);
	want = calloc(1, size);
	assert_non_null(want);
	(void)!fread(want, 1, size - 1, f);
	fclose(f);
	if (strcmp(want, got) != 0) {
		const char *w = want, *g = got;
		while (*w && *w == *g)
			w++, g++;
		while (w > want && w[-1] != '\n')
			w--, g--;
		fail_msg("a note's wording differs from %s (PMT_GOLDEN_UPDATE=1 rewrites it):\n"
			 "expected: %.*s\ngot:      %.*s", path, (int)strcspn(w, "\n"), w,
			 (int)strcspn(g, "\n"), g);
	}
	free(want);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code_named_and_worded),
		cmocka_unit_test(test_names_and_severities),
		cmocka_unit_test(test_values_kept_and_worded),
		cmocka_unit_test(test_fields_by_name),
		cmocka_unit_test(test_omega_noise_extrapolated),
		cmocka_unit_test(test_learn_failed_runs_worded),
		cmocka_unit_test(test_wording_templates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
