// SPDX-License-Identifier: MIT
// extrap.c: writers of Extra-P's text and JSON Lines input formats.

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "extrap.h"
#include "studies/scaling.h"
#include "pmt.h"

/* Output to a FILE * or a caller's buffer, counting what the whole text needs (as snprintf). */
struct sink {
	const struct pma_extrap_out *o;
	long total;
};

__attribute__((format(printf, 2, 3)))
static void put(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	if (s->o->f) {
		len = vfprintf(s->o->f, fmt, ap);
	} else {
		size_t used = (size_t)s->total;
		size_t room = used < s->o->size ? s->o->size - used : 0;
		len = vsnprintf(room ? s->o->buf + used : NULL, room, fmt, ap);
	}
	va_end(ap);
	if (len > 0)
		s->total += len;
}

char *pma_extrap_format_number(double v, int fixed, char *buf, size_t size)
{
	char tmp[40];
	int p;

	for (p = 1; p < 17; p++) {
		snprintf(tmp, sizeof(tmp), "%.*g", p, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	snprintf(tmp, sizeof(tmp), "%.*g", p, v);
	const char *e = strchr(tmp, 'e');
	if (fixed && e) {
		/* p significant digits without an exponent: p - 1 - e10 after the point */
		int e10 = atoi(e + 1), prec = p - 1 - e10;
		snprintf(buf, size, "%.*f", prec > 0 ? prec : 0, v);
	} else {
		snprintf(buf, size, "%s", tmp);
	}
	return buf;
}

/* NULL when s is a usable name; otherwise why not. word: no spaces at all (PARAMETER names are
 * split at spaces by the reader, and the JSON key is written unescaped). */
static const char *bad_name(const char *s, int word)
{
	if (!s || !*s)
		return "is empty";
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			return "has a control character";
		if (word && (*c == ' ' || *c == '"' || *c == '\\'))
			return "must be one word without quotes or backslashes";
		if (*c == ' ' && (c == (const unsigned char *)s || c[1] == ' ' || c[1] == '\0'))
			return "has a leading, trailing or doubled space (Extra-P collapses whitespace)";
	}
	return NULL;
}

static int validate(const struct pma_extrap_data *d, char *why, size_t whysize)
{
	const char *bad;

	if ((bad = bad_name(d->parameter, 1))) {
		snprintf(why, whysize, "parameter name %s", bad);
		return PMT_E_INVAL;
	}
	if (!d->npoints || !d->nseries) {
		snprintf(why, whysize, "no %s: Extra-P needs at least one",
			 d->npoints ? "series" : "points");
		return PMT_E_INVAL;
	}
	for (size_t k = 0; k < d->npoints; k++) {
		if (!isfinite(d->points[k])) {
			snprintf(why, whysize, "point %zu is not a finite number", k);
			return PMT_E_INVAL;
		}
		for (size_t l = 0; l < k; l++)
			if (d->points[l] == d->points[k]) {
				snprintf(why, whysize, "point %g appears twice", d->points[k]);
				return PMT_E_INVAL;
			}
	}
	for (size_t s = 0; s < d->nseries; s++) {
		const struct pma_extrap_series *se = &d->series[s];
		if ((bad = bad_name(se->region, 0)) || (bad = bad_name(se->metric, 0))) {
			snprintf(why, whysize, "series %zu: region or metric name %s", s, bad);
			return PMT_E_INVAL;
		}
		for (size_t t = 0; t < s; t++)
			if (!strcmp(d->series[t].region, se->region) &&
			    !strcmp(d->series[t].metric, se->metric)) {
				snprintf(why, whysize, "region '%s' metric '%s' given twice", se->region,
					 se->metric);
				return PMT_E_INVAL;
			}
		size_t v = 0;
		for (size_t k = 0; k < d->npoints; k++) {
			if (!se->nreps[k]) {
				snprintf(why, whysize, "metric '%s' has no value at point %g (Extra-P "
					 "needs one DATA line per point)", se->metric, d->points[k]);
				return PMT_E_INVAL;
			}
			for (size_t r = 0; r < se->nreps[k]; r++, v++)
				if (!isfinite(se->values[v])) {
					snprintf(why, whysize, "metric '%s' at point %g: value %zu is "
						 "not finite", se->metric, d->points[k], r);
					return PMT_E_INVAL;
				}
		}
	}
	return 0;
}

static long finish(const struct sink *s, char *why, size_t whysize)
{
	if (s->o->f && (ferror(s->o->f) || fflush(s->o->f))) {
		snprintf(why, whysize, "cannot write the Extra-P file");
		return PMT_E_IO;
	}
	return s->total;
}

/* The DATA lines of one series: one per point, its repetitions. */
static void put_data(struct sink *s, const struct pma_extrap_data *d,
		     const struct pma_extrap_series *se)
{
	char num[360];
	size_t v = 0;

	for (size_t k = 0; k < d->npoints; k++) {
		put(s, "DATA");
		for (size_t r = 0; r < se->nreps[k]; r++)
			put(s, " %s", pma_extrap_format_number(se->values[v++], 1, num, sizeof(num)));
		put(s, "\n");
	}
}

long pma_extrap_write_text(const struct pma_extrap_out *out, const struct pma_extrap_data *d,
			   const char *comment, char *why, size_t whysize)
{
	struct sink s = { out, 0 };
	char num[360];
	int rc;

	if ((rc = validate(d, why, whysize)))
		return rc;
	for (const char *c = comment; c && *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t') {
			snprintf(why, whysize, "comment has a control character");
			return PMT_E_INVAL;
		}
	if (out->buf && out->size)
		out->buf[0] = '\0';
	for (const char *c = comment; c && *c;) {
		size_t len = strcspn(c, "\n");
		put(&s, "# %.*s\n", (int)len, c);
		c += len + (c[len] == '\n');
	}
	put(&s, "PARAMETER %s\nPOINTS", d->parameter);
	for (size_t k = 0; k < d->npoints; k++)
		put(&s, " (%s)", pma_extrap_format_number(d->points[k], 1, num, sizeof(num)));
	put(&s, "\n");

	int one_region = 1;
	for (size_t t = 1; t < d->nseries; t++)
		one_region &= !strcmp(d->series[t].region, d->series[0].region);
	if (one_region) {
		put(&s, "REGION %s\n", d->series[0].region);
		for (size_t t = 0; t < d->nseries; t++) {
			put(&s, "METRIC %s\n", d->series[t].metric);
			put_data(&s, d, &d->series[t]);
		}
		return finish(&s, why, whysize);
	}
	for (size_t m = 0; m < d->nseries; m++) {
		int first = 1;
		for (size_t t = 0; t < m && first; t++)
			first = strcmp(d->series[t].metric, d->series[m].metric) != 0;
		if (!first)
			continue;
		put(&s, "METRIC %s\n", d->series[m].metric);
		for (size_t t = m; t < d->nseries; t++) {
			if (strcmp(d->series[t].metric, d->series[m].metric))
				continue;
			put(&s, "REGION %s\n", d->series[t].region);
			put_data(&s, d, &d->series[t]);
		}
	}
	return finish(&s, why, whysize);
}

/* A JSON string: names carry no control characters (validate), so only " and \ need escaping. */
static void put_json_string(struct sink *s, const char *str)
{
	put(s, "\"");
	for (const char *c = str; *c; c++)
		put(s, "%s%c", *c == '"' || *c == '\\' ? "\\" : "", *c);
	put(s, "\"");
}

long pma_extrap_write_jsonl(const struct pma_extrap_out *out, const struct pma_extrap_data *d,
			    char *why, size_t whysize)
{
	struct sink s = { out, 0 };
	char x[40], num[40];
	int rc;

	if ((rc = validate(d, why, whysize)))
		return rc;
	if (out->buf && out->size)
		out->buf[0] = '\0';
	for (size_t t = 0; t < d->nseries; t++) {
		const struct pma_extrap_series *se = &d->series[t];
		size_t v = 0;
		for (size_t k = 0; k < d->npoints; k++) {
			pma_extrap_format_number(d->points[k], 0, x, sizeof(x));
			for (size_t r = 0; r < se->nreps[k]; r++) {
				put(&s, "{\"params\":{\"%s\":%s},\"callpath\":", d->parameter, x);
				put_json_string(&s, se->region);
				put(&s, ",\"metric\":");
				put_json_string(&s, se->metric);
				put(&s, ",\"value\":%s}\n",
				    pma_extrap_format_number(se->values[v++], 0, num, sizeof(num)));
			}
		}
	}
	return finish(&s, why, whysize);
}

void pma_scaling_extrap_data(const struct pma_scaling *s, struct pma_extrap_series *series,
			     struct pma_extrap_data *d)
{
	memset(d, 0, sizeof(*d));
	d->parameter = s->parameter;
	d->npoints = s->npoints;
	d->points = s->points;
	d->series = series;
	for (int k = 0; k < PMA_SM_COUNT; k++) {
		if (!s->measured[k])
			continue;
		series[d->nseries].region = "main";
		series[d->nseries].metric = pma_scaling_metric_name((enum pma_scaling_metric)k);
		series[d->nseries].nreps = s->nreps;
		series[d->nseries].values = s->values[k];
		d->nseries++;
	}
}
