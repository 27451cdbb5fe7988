/* SPDX-License-Identifier: MIT */
/* notes.h: what the analyzer tells the user besides the numbers (trace warnings and report notes)
 * as structured notes: a code plus its named arguments, kept in one growable list type and
 * turned into text in one place (pma_note_text). Every note is declared once, in notes.def; the
 * enum, the argument structs and the constructors here are generated from it. */
#ifndef PMA_NOTES_H
#define PMA_NOTES_H

#include <stddef.h>

/* A superlinear effect, omega(n) < 0 beyond its uncertainty, is kept only when the calibration
 * runs show it consistently (docs/scaling.md): at least PMA_SUPERLIN_MIN_REPS runs on 1 core and on n
 * cores, and every C(n) below every C(1). Disjoint groups of 5 and 5 runs happen by chance with
 * probability 1/252 when the two have the same distribution (the one-sided Mann-Whitney test at its
 * extreme; 3 and 3: 1/20), which guards against what the half range of 3 runs misses: five triad
 * traces on this VM gave omega(2) = -0.325 +- 0.033 and +0.057 +- 0.056, which do not overlap.
 * Runs of several traces analyzed together are pooled. */
#define PMA_SUPERLIN_MIN_REPS 5
enum {
	PMA_SUPERLIN_FEW_REPS = 1,     /* fewer than PMA_SUPERLIN_MIN_REPS runs on 1 or on n cores */
	PMA_SUPERLIN_NOT_MEASURED,     /* no calibration run on n cores: omega(n) is extrapolated */
	PMA_SUPERLIN_OVERLAP,          /* a run on n cores took as many C as a run on 1 core */
};

/* The codes, one per entry of notes.def (the list of every note: its name, severity, topic and
 * arguments). 0 is no note. */
enum pma_note_code {
	PMA_NOTE_NONE = 0,
#define PMA_NOTE(CODE, name, str, sev, topic, args) PMA_NOTE_##CODE,
#define PMA_NOTE_BARE(CODE, name, str, sev, topic) PMA_NOTE_##CODE,
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
	PMA_NOTE_CODES_END /* one past the last code */
};

/* Each note's arguments as a struct pma_note_<name>, fields named and typed as notes.def
 * declares them: NUM a double, CHOICE an int, STR a string. Filled by name only: a positional
 * initializer is a warning (GCC and Clang -Wdesignated-init), an error with -Werror, so no
 * argument lands in another's place by its position. */
#define NUM(n, doc) double n;
#define CHOICE(n, lo, hi, doc) int n;
#define STR(n, doc) const char *n;
#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	struct __attribute__((designated_init)) pma_note_##name { args };
#define PMA_NOTE_BARE(CODE, name, str, sev, topic)
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
#undef NUM
#undef CHOICE
#undef STR

/* How much a note matters: a warning says a number may be wrong or was brought back
 * to a bound (the trace lost data, an invariant was enforced); info explains a number. */
enum pma_note_severity { PMA_SEV_INFO, PMA_SEV_WARNING };

/* The code's stable name for scripts ("omega-unknown": PMA_NOTE_OMEGA_UNKNOWN in lower case with
 * '-'), "unknown" for a code without one. Static. */
const char *pma_note_code_name(enum pma_note_code code);
/* The code's severity (trace and model-invariant notes are warnings, the others info). */
enum pma_note_severity pma_note_severity_of(enum pma_note_code code);
/* "info" or "warning". Static. */
const char *pma_note_severity_name(enum pma_note_severity sev);

/* Run status of the analyzed run (run_failed.status, learn_failed_runs.status). */
enum { PMA_RUNST_EXIT_CODE = 1, PMA_RUNST_SIGNAL, PMA_RUNST_NO_END };

/* A note: its code and the arguments of that code (arg.<name>, the member its notes.def entry
 * names; none for a PMA_NOTE_BARE). Its strings are owned by the note. */
struct pma_note {
	enum pma_note_code code;
	union {
#define PMA_NOTE(CODE, name, str, sev, topic, args) struct pma_note_##name name;
#define PMA_NOTE_BARE(CODE, name, str, sev, topic)
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE
	} arg;
};

/* A growable list of notes (zero-initialized is empty). */
struct pma_notes {
	struct pma_note *v;
	size_t n, cap;
};

/* The typed constructors, one per note: pma_note_add_<name>(l, &(struct pma_note_<name>){
 * .field = value, ... }) appends the note with a copy of its strings (NULL stays NULL); a bare
 * note's takes l alone. Each returns 0, or -1 when memory runs out (the list is unchanged). */
#define PMA_NOTE(CODE, name, str, sev, topic, args) \
	int pma_note_add_##name(struct pma_notes *l, const struct pma_note_##name *a);
#define PMA_NOTE_BARE(CODE, name, str, sev, topic) int pma_note_add_##name(struct pma_notes *l);
#include "notes.def"
#undef PMA_NOTE
#undef PMA_NOTE_BARE

/* Appends copies of every note of src. Returns 0 or -1 (out of memory). */
int pma_notes_append(struct pma_notes *l, const struct pma_notes *src);
/* The first note with code, or NULL. */
const struct pma_note *pma_notes_find(const struct pma_notes *l, enum pma_note_code code);
void pma_notes_free(struct pma_notes *l);

/* One argument of a note, as pma_note_fields hands it over: its name (notes.def's, the JSON
 * key), its kind, and where its value is: num for NUM, choice (and its range lo..hi) for
 * CHOICE, str for STR; the other pointers are NULL. */
enum pma_note_kind { PMA_NOTE_NUM, PMA_NOTE_CHOICE, PMA_NOTE_STR };
struct pma_note_field {
	const char *name;
	enum pma_note_kind kind;
	double *num;
	int *choice, lo, hi;
	const char **str;
};
typedef void pma_note_field_fn(const struct pma_note_field *f, void *ctx);
/* Calls fn for each argument of x in notes.def's order, with pointers into x (fn may change the
 * values; a string it replaces is not freed). Nothing for a bare note or an unknown code. */
void pma_note_fields(struct pma_note *x, pma_note_field_fn *fn, void *ctx);
/* The same over a const note: the pointers are into a copy, valid during the call only. */
void pma_note_each(const struct pma_note *x, pma_note_field_fn *fn, void *ctx);
/* The code's topic ("trace", "memory", ...: its wording is in notes/text_<topic>.c), or
 * "unknown". Static. */
const char *pma_note_topic(enum pma_note_code code);

/* Writes the note as one line of English for the user (no trailing newline; truncated to size).
 * The only place that turns a note into text. Returns buf. */
char *pma_note_text(const struct pma_note *note, char *buf, size_t size);

/* What the user can do about the note, as one imperative sentence for the report's "what to do
 * next" list ("Record calibration runs: pmcollect --calibrate ..."), written to buf (truncated to
 * size). Returns buf, or NULL when the note asks for nothing (the note's text then stands alone). */
char *pma_note_action(const struct pma_note *note, char *buf, size_t size);

/* The whole note as a malloc'ed line, never truncated (pma_note_text into a buffer grown until
 * the text fits). Returns NULL when memory runs out; the caller frees it. */
char *pma_note_alloc(const struct pma_note *note);
/* The whole action (pma_note_action) as a malloc'ed line, never truncated. Returns NULL when the
 * note asks for nothing or memory runs out; the caller frees it. */
char *pma_note_action_alloc(const struct pma_note *note);

#endif
