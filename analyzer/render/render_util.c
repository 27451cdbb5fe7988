/* SPDX-License-Identifier: MIT */
/* render_util.c: the helpers the report's sections and --info share (render_util.h). */
#include "render_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"

/* The command line from META "command" as one sanitized string. */
void pma_render_command_string(const struct pma_meta *meta, char *buf, size_t size)
{
	char raw[1024];
	size_t o = 0;

	raw[0] = '\0';
	for (size_t i = 0; i < meta->ncommand; i++) {
		if (meta->command[i] && o < sizeof(raw))
			o += snprintf(raw + o, sizeof(raw) - o, "%s%s", o ? " " : "", meta->command[i]);
	}
	if (o >= sizeof(raw))
		o = sizeof(raw) - 1;
	pm_cli_sanitize(buf, size, raw, o);
}

/* Note x as a JSON string, whole (never truncated). */
cJSON *pma_render_note_string(const struct pma_note *x)
{
	char *text = pma_note_alloc(x);
	cJSON *j = cJSON_CreateString(text ? text : "out of memory");

	free(text);
	return j;
}

/* The JSON arrays and object one note's arguments go to (note_value). */
struct note_json {
	cJSON *numbers, *strings, *values;
};

static void note_value(const struct pma_note_field *f, void *ctx)
{
	struct note_json *j = ctx;
	cJSON *v;

	if (f->kind == PMA_NOTE_STR) {
		const char *s = *f->str;
		cJSON_AddItemToArray(j->strings, s ? cJSON_CreateString(s) : cJSON_CreateNull());
		v = s ? cJSON_CreateString(s) : cJSON_CreateNull();
	} else {
		double x = f->kind == PMA_NOTE_NUM ? *f->num : *f->choice;
		cJSON_AddItemToArray(j->numbers,
				     isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull());
		v = isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
	}
	cJSON_AddItemToObject(j->values, f->name, v);
}

/* Note x as a JSON object for scripts (docs/pmanalyze-json.md): {"code", "severity", "text",
 * "numbers", "strings", "values"}: its stable code name, "info" or "warning", the whole text, its
 * numbers and its strings in the order notes/notes.def declares them, and the same values by
 * their names in notes.def (a NaN or infinite number as null, an absent string as null). */
static cJSON *note_object(const struct pma_note *x)
{
	cJSON *o = cJSON_CreateObject();
	struct note_json j;

	cJSON_AddStringToObject(o, "code", pma_note_code_name(x->code));
	cJSON_AddStringToObject(o, "severity", pma_note_severity_name(pma_note_severity_of(x->code)));
	cJSON_AddItemToObject(o, "text", pma_render_note_string(x));
	j.numbers = cJSON_AddArrayToObject(o, "numbers");
	j.strings = cJSON_AddArrayToObject(o, "strings");
	j.values = cJSON_AddObjectToObject(o, "values");
	pma_note_each(x, note_value, &j);
	return o;
}

/* The notes of l under key (their texts: pmanalyze/1 as it was) and under key_coded (the
 * objects of note_object). */
void pma_render_notes_json(cJSON *root, const char *key, const char *key_coded, const struct pma_notes *l)
{
	cJSON *t = cJSON_AddArrayToObject(root, key), *c = cJSON_AddArrayToObject(root, key_coded);

	for (size_t i = 0; i < l->n; i++) {
		cJSON_AddItemToArray(t, pma_render_note_string(&l->v[i]));
		cJSON_AddItemToArray(c, note_object(&l->v[i]));
	}
}

/* "note: <text>" lines of a list, whole. */
void pma_render_print_notes(FILE *out, const struct pma_notes *l, const char *prefix)
{
	for (size_t i = 0; i < l->n; i++) {
		char *text = pma_note_alloc(&l->v[i]);
		fprintf(out, "%s%s\n", prefix, text ? text : "out of memory");
		free(text);
	}
}

void pma_render_print_sources(FILE *out, const struct pma_meta *meta)
{
	char clean[300];
	int first = 1;

	fprintf(out, "%-13s", "sources");
	for (size_t i = 0; i < meta->nsources; i++) {
		if (meta->sources[i].recorded) {
			fprintf(out, "%s%s", first ? "" : ", ", meta->sources[i].name);
			first = 0;
		}
	}
	fprintf(out, "%s\n", first ? "none" : "");
	for (size_t i = 0; i < meta->nsources; i++) {
		const char *reason = meta->sources[i].reason ? meta->sources[i].reason :
				     "no reason recorded";
		if (!meta->sources[i].recorded) {
			pm_cli_sanitize(clean, sizeof(clean), reason, strlen(reason));
			fprintf(out, "%-13s%s: not recorded: %s\n", "", meta->sources[i].name, clean);
		}
	}
}

void pma_render_machine_line(FILE *out, const struct pma_meta *meta)
{
	const struct pma_topology *topo = &meta->topo;
	const char *host = meta->hostname, *rel = meta->kernel_release;
	char h[128], k[128];

	pm_cli_sanitize(h, sizeof(h), host ? host : "?", strlen(host ? host : "?"));
	pm_cli_sanitize(k, sizeof(k), rel ? rel : "?", strlen(rel ? rel : "?"));
	fprintf(out, "%-13s%s: %.0f packages, %.0f cores, %.0f PUs, %.0f NUMA nodes; Linux %s\n",
		"machine", h, topo->packages, topo->cores, topo->pus, topo->numa_nodes, k);
}

/* A number, or "?" when unknown (NAN) and "sat" when saturated (INFINITY). */
void pma_render_fmt_num(char *buf, size_t size, int prec, double v, const char *suffix)
{
	if (isnan(v))
		snprintf(buf, size, "?");
	else if (isinf(v))
		snprintf(buf, size, "sat");
	else
		snprintf(buf, size, "%.*f%s", prec, v, suffix);
}

cJSON *pma_render_trace_json(const struct pma_trace *t, const struct pma_run *run)
{
	cJSON *o = cJSON_CreateObject(), *cmd;

	cJSON_AddStringToObject(o, "path", t->path);
	cmd = cJSON_AddArrayToObject(o, "command");
	for (size_t i = 0; i < t->meta.ncommand; i++)
		cJSON_AddItemToArray(cmd, t->meta.command[i] ? cJSON_CreateString(t->meta.command[i]) :
				     cJSON_CreateNull());
	if (run)
		cJSON_AddNumberToObject(o, "wall_s", pma_run_wall_s(run));
	cJSON_AddNumberToObject(o, "samples", (double)t->samples);
	cJSON_AddNumberToObject(o, "thread_samples", (double)t->thread_samples);
	cJSON_AddNumberToObject(o, "runs", t->nruns);
	/* the recorded object, its fields per source (docs/pmanalyze-json.md); a source that recorded
	 * nothing after all says so (pma_meta_source_unrecorded) */
	cJSON_AddItemToObject(o, "sources", t->meta.sources_json ? cJSON_Parse(t->meta.sources_json) :
			      cJSON_CreateObject());
	pma_render_notes_json(o, "warnings", "coded_warnings", &t->warnings);
	cJSON_AddBoolToObject(o, "truncated", t->rst.truncated || (run && !run->info.has_end));
	return o;
}

/* key: v, or null when v is not finite (unknown or saturated) */
void pma_render_add_finite(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* Quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180). */
void pma_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
