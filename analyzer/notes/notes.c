/* SPDX-License-Identifier: MIT */
/* notes.c: the list of structured notes and the one place that words them. */
#include "notes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"
#include "topics.h"

static void note_free(struct pma_note *x)
{
	for (size_t i = 0; i < PMA_NOTE_STRS; i++)
		free(x->s[i]);
}

int pma_notes_add(struct pma_notes *l, enum pma_note_code code, const double *nums, size_t nnums,
		  const char *const *strs, size_t nstrs)
{
	struct pma_note x = { .code = code, .nn = nnums < PMA_NOTE_NUMS ? nnums : PMA_NOTE_NUMS,
			      .ns = nstrs < PMA_NOTE_STRS ? nstrs : PMA_NOTE_STRS };

	if (PM_GROW(l->v, l->cap, l->n + 1) < 0)
		return -1;
	for (size_t i = 0; i < nnums && i < PMA_NOTE_NUMS; i++)
		x.n[i] = nums[i];
	for (size_t i = 0; i < nstrs && i < PMA_NOTE_STRS; i++) {
		if (strs[i] && !(x.s[i] = strdup(strs[i]))) {
			note_free(&x);
			return -1;
		}
	}
	l->v[l->n++] = x;
	return 0;
}

int pma_notes_append(struct pma_notes *l, const struct pma_notes *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct pma_note *x = &src->v[i];
		if (pma_notes_add(l, x->code, x->n, x->nn, (const char *const *)x->s, x->ns) < 0)
			return -1;
	}
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

/* a note's string i, "" when absent (topics.h) */
const char *pma_note_str(const struct pma_note *x, size_t i)
{
	return x->s[i] ? x->s[i] : "";
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

/* The topics a note's wording is split by: one file notes/text_<topic>.c each. */
enum note_topic {
	TOPIC_TRACE, TOPIC_MODEL, TOPIC_MEMORY, TOPIC_REGIONS, TOPIC_ENERGY, TOPIC_SCALING, TOPIC_JOB,
};

static int (*const text_by_topic[])(const struct pma_note *, char *, size_t) = {
	[TOPIC_TRACE] = pma_note_text_trace,
	[TOPIC_MODEL] = pma_note_text_model,
	[TOPIC_MEMORY] = pma_note_text_memory,
	[TOPIC_REGIONS] = pma_note_text_regions,
	[TOPIC_ENERGY] = pma_note_text_energy,
	[TOPIC_SCALING] = pma_note_text_scaling,
	[TOPIC_JOB] = pma_note_text_job,
};

/* Each code's stable name (scripts match it: never rename one, add new codes at the end),
 * severity and topic. */
struct note_info {
	const char *name;
	enum pma_note_severity severity;
	enum note_topic topic;
};
static const struct note_info note_infos[] = {
	[PMA_NOTE_RECORDED] = { "recorded", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_NO_PID] = { "no-pid", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_SCHED_LOST] = { "sched-lost", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_EXACT_REFUSED] = { "exact-refused", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_RUN_TRUNCATED] = { "run-truncated", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_FILE_TRUNCATED] = { "file-truncated", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_SALVAGED] = { "salvaged", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_SEQ_GAPS] = { "seq-gaps", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_INCOMPLETE] = { "incomplete", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_OMEGA_UNKNOWN] = { "omega-unknown", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_FREQ_UNKNOWN] = { "freq-unknown", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_FREQ_VARIES] = { "freq-varies", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_CAL_SKIPPED] = { "cal-skipped", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_OTHER_MACHINE] = { "other-machine", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_SATURATED] = { "saturated", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_SPIN_ACTIVE_SEEN] = { "spin-active-seen", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_SPIN_ACTIVE] = { "spin-active", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_SPIN_SEEN] = { "spin-seen", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_UNPLACED_WAIT] = { "unplaced-wait", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_CORES_CAPPED] = { "cores-capped", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_INV_OMEGA1] = { "inv-omega1", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_INV_S_CAP] = { "inv-s-cap", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_INV_T_FLOOR] = { "inv-t-floor", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_INV_OPT_CAP] = { "inv-opt-cap", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_INV_L_NEG] = { "inv-l-neg", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_C1_SPREAD] = { "c1-spread", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_RUN_FAILED] = { "run-failed", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_LATE_SAMPLES] = { "late-samples", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_STOLEN] = { "stolen", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_EST_DISAGREE] = { "est-disagree", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_FINE_INTERVAL] = { "fine-interval", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_MERGED_WINDOWS] = { "merged-windows", PMA_SEV_INFO, TOPIC_TRACE },
	[PMA_NOTE_OMEGA_NOISE] = { "omega-noise", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_SUPERLINEAR] = { "superlinear", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_COLLECTOR_SHARED] = { "collector-shared", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_RANKS_OMEGA_UNKNOWN] = { "ranks-omega-unknown", PMA_SEV_INFO, TOPIC_JOB },
	[PMA_NOTE_RANKS_CAL_FILE] = { "ranks-cal-file", PMA_SEV_INFO, TOPIC_JOB },
	[PMA_NOTE_REGION_A_CAPPED] = { "region-a-capped", PMA_SEV_INFO, TOPIC_REGIONS },
	[PMA_NOTE_ALLANDE_NC_CAPPED] = { "allande-nc-capped", PMA_SEV_INFO, TOPIC_REGIONS },
	[PMA_NOTE_ALLANDE_SPAN] = { "allande-span", PMA_SEV_INFO, TOPIC_REGIONS },
	[PMA_NOTE_POWER_UNPHYSICAL] = { "power-unphysical", PMA_SEV_INFO, TOPIC_ENERGY },
	[PMA_NOTE_POWER_TWO_COUNTS] = { "power-two-counts", PMA_SEV_INFO, TOPIC_ENERGY },
	[PMA_NOTE_ENERGY_GAP] = { "energy-gap", PMA_SEV_INFO, TOPIC_ENERGY },
	[PMA_NOTE_SUPERLINEAR_UNCONFIRMED] = { "superlinear-unconfirmed", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_OVERHEAD_OVERSUBSCRIBED] = { "overhead-oversubscribed", PMA_SEV_INFO, TOPIC_SCALING },
	[PMA_NOTE_LATE_WARNING] = { "late-warning", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_OPT_KNOWN_OMEGA] = { "opt-known-omega", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_CROSS_SATURATED] = { "cross-saturated", PMA_SEV_INFO, TOPIC_MEMORY },
	[PMA_NOTE_WAKE_NOT_CHARGED] = { "wake-not-charged", PMA_SEV_INFO, TOPIC_MODEL },
	[PMA_NOTE_RUNS_DISAGREE] = { "runs-disagree", PMA_SEV_WARNING, TOPIC_MODEL },
	[PMA_NOTE_RANKS_MPI_UNMEASURED] = { "ranks-mpi-unmeasured", PMA_SEV_WARNING, TOPIC_JOB },
	[PMA_NOTE_RANKS_COLLECTOR_ON_RANK] = { "ranks-collector-on-rank", PMA_SEV_INFO, TOPIC_JOB },
	[PMA_NOTE_INTERF_CAL_LATER] = { "interf-cal-later", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_INTERF_CAL_OTHER] = { "interf-cal-other", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_INTERF_CAL_DISTURBED] = { "interf-cal-disturbed", PMA_SEV_WARNING, TOPIC_TRACE },
	[PMA_NOTE_LEARN_FAILED_RUNS] = { "learn-failed-runs", PMA_SEV_INFO, TOPIC_ENERGY },
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

char *pma_note_text(const struct pma_note *x, char *buf, size_t size)
{
	const struct note_info *info = note_info(x->code);

	if (!info || text_by_topic[info->topic](x, buf, size) < 0)
		snprintf(buf, size, "note %d", (int)x->code);
	return buf;
}

char *pma_note_action(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_OMEGA_UNKNOWN: {
		char t[32] = ""; /* -t only when the threads were recorded (as in the note's text) */
		if (n[3] > 0)
			snprintf(t, sizeof(t), "-t %.0f ", n[3]);
		snprintf(buf, size, "Record calibration runs for the memory model: 'pmcollect "
			 "--calibrate %s-o calib.zst -- %s', then 'pmanalyze %s calib.zst'.", t,
			 s(x, 3), s(x, 4));
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
			 "bandwidth saturates there.", floor(n[0]));
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
		snprintf(buf, size, "Give '--cores 1-%.0f' for predictions up to every CPU.", n[1]);
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
			 "traces together: their runs are pooled).", PMA_SUPERLIN_MIN_REPS, n[0]);
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
