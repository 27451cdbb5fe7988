/* SPDX-License-Identifier: MIT */
/* notes.c: the list of structured notes and the one place that words them; the per-note code
 * (constructors, the walk over arguments, the table, the wording's dispatch) is generated from
 * notes.def. */
#include "notes.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"
#include "topics.h"

/* The walk over one note's arguments: fields_<name> calls fn for each, in notes.def's order. */
static void field_num(pma_note_field_fn *fn, void *ctx, const char *name, double *v)
{
	fn(&(struct pma_note_field){ .name = name, .kind = PMA_NOTE_NUM, .num = v }, ctx);
}

static void field_choice(pma_note_field_fn *fn, void *ctx, const char *name, int *v, int lo, int hi)
{
	fn(&(struct pma_note_field){ .name = name, .kind = PMA_NOTE_CHOICE, .choice = v, .lo = lo,
				     .hi = hi }, ctx);
}

static void field_str(pma_note_field_fn *fn, void *ctx, const char *name, const char **v)
{
	fn(&(struct pma_note_field){ .name = name, .kind = PMA_NOTE_STR, .str = v }, ctx);
}

#define NUM(n, doc) field_num(fn, ctx, #n, &a->n);
#define CHOICE(n, lo, hi, doc) field_choice(fn, ctx, #n, &a->n, lo, hi);
#define STR(n, doc) field_str(fn, ctx, #n, &a->n);
#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	static void fields_##name(struct pma_note_##name *a, pma_note_field_fn *fn, void *ctx) \
	{ \
		args \
	}
#define PMA_NOTE_BARE(CODE, name, str, sev, topic)
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
#undef NUM
#undef CHOICE
#undef STR

void pma_note_fields(struct pma_note *x, pma_note_field_fn *fn, void *ctx)
{
	switch (x->code) {
#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	case PMA_NOTE_##CODE: \
		fields_##name(&x->arg.name, fn, ctx); \
		break;
#define PMA_NOTE_BARE(CODE, name, str, sev, topic)
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
	default:
		break;
	}
}

void pma_note_each(const struct pma_note *x, pma_note_field_fn *fn, void *ctx)
{
	struct pma_note copy = *x;

	pma_note_fields(&copy, fn, ctx);
}

/* a string the note owns: const for the producers that fill the struct, freed here */
static void free_str(const struct pma_note_field *f, void *ctx)
{
	(void)ctx;
	if (f->str) {
		free((void *)(uintptr_t)*f->str);
		*f->str = NULL;
	}
}

/* replaces each string by a copy; *ctx set when one could not be made (that one is NULL) */
static void dup_str(const struct pma_note_field *f, void *ctx)
{
	if (f->str && *f->str && !(*f->str = strdup(*f->str)))
		*(int *)ctx = 1;
}

static void note_free(struct pma_note *x)
{
	pma_note_fields(x, free_str, NULL);
}

/* Appends x with copies of its strings. Returns 0, or -1 (out of memory: l unchanged). */
static int note_push(struct pma_notes *l, struct pma_note x)
{
	int failed = 0;

	if (PM_GROW(l->v, l->cap, l->n + 1) < 0)
		return -1;
	pma_note_fields(&x, dup_str, &failed);
	if (failed) {
		note_free(&x);
		return -1;
	}
	l->v[l->n++] = x;
	return 0;
}

#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	int pma_note_add_##name(struct pma_notes *l, const struct pma_note_##name *a) \
	{ \
		return note_push(l, (struct pma_note){ .code = PMA_NOTE_##CODE, .arg.name = *a }); \
	}
#define PMA_NOTE_BARE(CODE, name, str, sev, topic) \
	int pma_note_add_##name(struct pma_notes *l) \
	{ \
		return note_push(l, (struct pma_note){ .code = PMA_NOTE_##CODE }); \
	}
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE

int pma_notes_append(struct pma_notes *l, const struct pma_notes *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (note_push(l, src->v[i]) < 0)
			return -1;
	return 0;
}

const struct pma_note *pma_notes_find(const struct pma_notes *l, enum pma_note_code code)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].code == code)
			return &l->v[i];
	return NULL;
}

void pma_notes_free(struct pma_notes *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		note_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* a note's string, "" when absent (topics.h) */
const char *pma_note_str(const char *str)
{
	return str ? str : "";
}

/* "a 3.20 ms interval" or "a 3.20 ms interval (pmcollect lengthened it from the 0.10 ms asked
 * for)": the interval actually used, and the requested one when they differ (0: the same). */
void pma_note_interval_text(char *buf, size_t size, double used_ms, double requested_ms)
{
	if (!(used_ms > 0))
		snprintf(buf, size, "an unrecorded interval");
	else if (requested_ms > 0)
		snprintf(buf, size, "a %.2f ms interval (pmcollect lengthened it from the %.2f ms "
			 "asked for)", used_ms, requested_ms);
	else
		snprintf(buf, size, "a %.2f ms interval", used_ms);
}

/* Each code's stable name (scripts match it: never rename one), severity and topic, from
 * notes.def. */
struct note_info {
	const char *name;
	enum pma_note_severity severity;
	const char *topic;
};
static const struct note_info note_infos[] = {
#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	[PMA_NOTE_##CODE] = { str, PMA_SEV_##sev, #topic },
#define PMA_NOTE_BARE(CODE, name, str, sev, topic) \
	[PMA_NOTE_##CODE] = { str, PMA_SEV_##sev, #topic },
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
};

static const struct note_info *note_info(enum pma_note_code code)
{
	if ((size_t)code >= sizeof(note_infos) / sizeof(note_infos[0]) || !note_infos[code].name)
		return NULL;
	return &note_infos[code];
}

const char *pma_note_code_name(enum pma_note_code code)
{
	const struct note_info *info = note_info(code);
	return info ? info->name : "unknown";
}

enum pma_note_severity pma_note_severity_of(enum pma_note_code code)
{
	const struct note_info *info = note_info(code);
	return info ? info->severity : PMA_SEV_INFO;
}

const char *pma_note_severity_name(enum pma_note_severity sev)
{
	return sev == PMA_SEV_WARNING ? "warning" : "info";
}

const char *pma_note_topic(enum pma_note_code code)
{
	const struct note_info *info = note_info(code);
	return info ? info->topic : "unknown";
}

char *pma_note_text(const struct pma_note *x, char *buf, size_t size)
{
	switch (x->code) {
#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	case PMA_NOTE_##CODE: \
		pma_note_text_##name(&x->arg.name, buf, size); \
		break;
#define PMA_NOTE_BARE(CODE, name, str, sev, topic) \
	case PMA_NOTE_##CODE: \
		pma_note_text_##name(buf, size); \
		break;
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
	default:
		snprintf(buf, size, "note %d", (int)x->code);
		break;
	}
	return buf;
}

char *pma_note_action(const struct pma_note *x, char *buf, size_t size)
{
	switch (x->code) {
	case PMA_NOTE_OMEGA_UNKNOWN: {
		char t[32] = ""; /* -t only when the threads were recorded (as in the note's text) */
		const struct pma_note_omega_unknown *a = &x->arg.omega_unknown;
		if (a->omp_threads > 0)
			snprintf(t, sizeof(t), "-t %.0f ", a->omp_threads);
		snprintf(buf, size, "Record calibration runs for the memory model%s: 'pmcollect "
			 "--calibrate %s-o calib.zst -- %s', then 'pmanalyze %s calib.zst'.",
			 a->attached ? " (runs of the program on the same input: windows of a running "
				       "process cannot give C(n))" : "", t, s(a->command), s(a->trace));
		break;
	}
	case PMA_NOTE_FREQ_UNKNOWN:
		snprintf(buf, size, "Take omega as approximate, or calibrate where hardware cycle "
			 "counters (PAPI) or cpufreq are available.");
		break;
	case PMA_NOTE_FREQ_VARIES:
		snprintf(buf, size, "Fix the clock ('cpupower frequency-set -g performance') and record "
			 "the calibration runs again.");
		break;
	case PMA_NOTE_SATURATED:
		snprintf(buf, size, "Do not give the program more than %.0f cores per socket: memory "
			 "bandwidth saturates there.", floor(x->arg.saturated.n_sat));
		break;
	case PMA_NOTE_SPIN_ACTIVE_SEEN:
	case PMA_NOTE_SPIN_ACTIVE:
	case PMA_NOTE_SPIN_SEEN:
		snprintf(buf, size, "Record again with OMP_WAIT_POLICY=passive (or --sched for the exact "
			 "mode) to see the real dependencies.");
		break;
	case PMA_NOTE_UNPLACED_WAIT:
	case PMA_NOTE_WAKE_NOT_CHARGED:
	case PMA_NOTE_SCHED_LOST:
		snprintf(buf, size, "Record again with scheduler events ('pmcollect --sched', as root, "
			 "a larger --sched-buffer-kb when events were lost).");
		break;
	case PMA_NOTE_CORES_CAPPED:
		snprintf(buf, size, "Give '--cores 1-%.0f' for predictions up to every CPU.",
			 x->arg.cores_capped.max_n);
		break;
	case PMA_NOTE_OTHER_MACHINE:
		snprintf(buf, size, "Record calibration runs on the target machine for a measured omega.");
		break;
	case PMA_NOTE_RANKS_OMEGA_UNKNOWN:
		snprintf(buf, size, "Record a calibration trace outside the launcher on one node "
			 "('pmcollect --calibrate -t M -o cal.zst -- ./app args') and merge with "
			 "'pmanalyze --calibration cal.zst'.");
		break;
	case PMA_NOTE_SUPERLINEAR_UNCONFIRMED:
		snprintf(buf, size, "To confirm a superlinear effect, record 'pmcollect --calibrate "
			 "--repeat %d' with %.0f in its core counts (or analyze several calibration "
			 "traces together: their runs are pooled).", PMA_SUPERLIN_MIN_REPS,
			 x->arg.superlinear_unconfirmed.n);
		break;
	case PMA_NOTE_RUN_TRUNCATED:
	case PMA_NOTE_FILE_TRUNCATED:
	case PMA_NOTE_INCOMPLETE:
		snprintf(buf, size, "Record the run again to its end for complete numbers.");
		break;
	default:
		return NULL;
	}
	return buf;
}

/* The text fn writes for note in a malloc'ed buffer grown until it fits (snprintf fills it up to
 * size - 1 only when it truncated, or when the text fits exactly, which costs one more round).
 * NULL when fn gives no text or memory runs out. */
static char *alloc_text(const struct pma_note *note,
			char *(*fn)(const struct pma_note *, char *, size_t))
{
	size_t size = 512;

	for (;;) {
		char *buf = malloc(size);
		if (!buf)
			return NULL;
		if (!fn(note, buf, size)) {
			free(buf);
			return NULL;
		}
		if (strlen(buf) + 1 < size)
			return buf;
		free(buf);
		size *= 2;
	}
}

char *pma_note_alloc(const struct pma_note *note)
{
	return alloc_text(note, pma_note_text);
}

char *pma_note_action_alloc(const struct pma_note *note)
{
	return alloc_text(note, pma_note_action);
}
