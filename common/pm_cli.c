/* SPDX-License-Identifier: MIT */
/* pm_cli.c: error reporter, string sanitizing and list parsing shared by both front ends. */
#include "pm_cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog_name = "pmtools";

void pm_cli_set_prog(const char *prog)
{
	prog_name = prog;
}

const char *pm_cli_prog(void)
{
	return prog_name;
}

/* Length of the valid UTF-8 sequence starting at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong encodings, surrogates and values past U+10FFFF are not valid UTF-8 */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

char *pm_cli_sanitize(char *dst, size_t dstsize, const char *src, size_t srclen)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0, i = 0;

	while (i < srclen && s[i] && o + 1 < dstsize) {
		size_t l = utf8_len(s + i, srclen - i);
		/* C1 controls U+0080-U+009F (UTF-8 c2 80..c2 9f) are controls too: U+009B is CSI to
		 * terminals that decode UTF-8 before interpreting controls */
		if (l == 0 || (l == 1 && (s[i] < 0x20 || s[i] == 0x7f)) ||
		    (l == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			dst[o++] = '?';
			i += l ? l : 1;
			continue;
		}
		if (o + l >= dstsize)
			break;
		memcpy(dst + o, s + i, l);
		o += l;
		i += l;
	}
	dst[o] = '\0';
	return dst;
}

void pm_cli_report(const char *level, const char *fmt, ...)
{
	char small[1024], *raw = small, *clean;
	va_list ap;
	int len;

	/* never truncated: a long message gets a buffer of its own */
	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(small) && (raw = malloc((size_t)len + 1)) != NULL) {
		va_start(ap, fmt);
		vsnprintf(raw, (size_t)len + 1, fmt, ap);
		va_end(ap);
	}
	if (!raw) { /* out of memory: the first 1023 bytes */
		raw = small;
		len = (int)strlen(small);
	}
	clean = malloc((size_t)len + 1);
	if (clean)
		pm_cli_sanitize(clean, (size_t)len + 1, raw, (size_t)len);
	fprintf(stderr, "%s: %s: %s\n", prog_name, level, clean ? clean : "out of memory");
	free(clean);
	if (raw != small)
		free(raw);
}

int pm_cli_usage_error(const char *usage, const char *fmt, ...)
{
	char msg[1024];
	size_t len = strlen(usage);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pm_cli_report("error", "%s", msg);
	fputs(usage, stderr);
	if (len == 0 || usage[len - 1] != '\n')
		fputc('\n', stderr);
	return PMT_EXIT_USAGE;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Parses a decimal number at *p (advancing it); -1 when there is none or it overflows. */
static long long parse_num(const char **p)
{
	const char *s = *p;
	long long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > 0xffffffffLL)
			return -1;
		s++;
	}
	*p = s;
	return v;
}

#define MAX_LIST_VALUES 1000000u

int pm_intlist_parse(const char *s, uint32_t min_value, uint32_t max_value,
		      struct pm_intlist *out, char *why, size_t whysize)
{
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = s;

	if (!why)
		whysize = 0;
	out->v = NULL;
	out->n = 0;
	if (!s || !*s) {
		snprintf(why, whysize, "empty list");
		return -1;
	}
	for (;;) {
		const char *item = p;
		long long lo, hi, step = 1;
		size_t itemlen;
		int range = 0;

		lo = parse_num(&p);
		hi = lo;
		if (lo >= 0 && *p == '-') {
			p++;
			hi = parse_num(&p);
			range = 1;
		}
		/* a stride only makes sense after a range: "1-64:4", not "3:2" */
		if (range && lo >= 0 && hi >= 0 && *p == ':') {
			p++;
			step = parse_num(&p);
		}
		itemlen = strcspn(item, ",");
		if (lo < 0 || hi < 0 || step <= 0 || (*p != ',' && *p != '\0')) {
			snprintf(why, whysize, "'%.*s' is not a number or range like 0-3 or 1-64:4",
				 (int)(itemlen > 40 ? 40 : itemlen), item);
			goto fail;
		}
		if (hi < lo) {
			snprintf(why, whysize, "range '%.*s' runs backwards", (int)itemlen, item);
			goto fail;
		}
		if (lo < min_value || hi > max_value) {
			snprintf(why, whysize, "'%.*s' is outside %u-%u", (int)itemlen, item,
				 min_value, max_value);
			goto fail;
		}
		for (long long x = lo; x <= hi; x += step) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				uint32_t *nv;
				/* the limit is on values, not on the doubled capacity: 1,000,000 must fit */
				if (n == MAX_LIST_VALUES) {
					snprintf(why, whysize, "more than %u values", MAX_LIST_VALUES);
					goto fail;
				}
				if (ncap > MAX_LIST_VALUES)
					ncap = MAX_LIST_VALUES;
				nv = realloc(v, ncap * sizeof(*v));
				if (!nv) {
					snprintf(why, whysize, "%s", strerror(ENOMEM));
					goto fail;
				}
				v = nv;
				cap = ncap;
			}
			v[n++] = (uint32_t)x;
		}
		if (*p == '\0')
			break;
		p++;
	}
	qsort(v, n, sizeof(*v), cmp_u32);
	{
		size_t o = 0;
		for (size_t i = 0; i < n; i++)
			if (o == 0 || v[o - 1] != v[i])
				v[o++] = v[i];
		n = o;
	}
	out->v = v;
	out->n = n;
	return 0;
fail:
	free(v);
	return -1;
}

char *pm_intlist_format(const struct pm_intlist *l, char *buf, size_t bufsize)
{
	size_t o = 0;

	if (bufsize == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < l->n;) {
		size_t j = i;
		char item[32];
		int k;
		while (j + 1 < l->n && l->v[j + 1] == l->v[j] + 1)
			j++;
		if (j == i)
			k = snprintf(item, sizeof(item), "%s%u", o ? "," : "", l->v[i]);
		else
			k = snprintf(item, sizeof(item), "%s%u-%u", o ? "," : "", l->v[i], l->v[j]);
		/* A cut item would still parse, as a different list ("0-31,100" -> "0-31,1"):
		 * end with "..." after the last whole item that leaves room for it instead. */
		if (o + (size_t)k >= bufsize) {
			for (;;) {
				const char *ell = o ? ",..." : "...";
				const char *comma;
				if (o + strlen(ell) < bufsize) {
					memcpy(buf + o, ell, strlen(ell) + 1);
					break;
				}
				if (o == 0) {
					buf[0] = '\0';
					break;
				}
				comma = memrchr(buf, ',', o);
				o = comma ? (size_t)(comma - buf) : 0;
			}
			break;
		}
		memcpy(buf + o, item, (size_t)k + 1);
		o += (size_t)k;
		i = j + 1;
	}
	return buf;
}

void pm_intlist_free(struct pm_intlist *l)
{
	if (!l)
		return;
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int pm_cli_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int pm_cli_parse_time_ns(const char *s, const char *end, double *ns)
{
	char *e;
	double v = strtod(s, &e);
	size_t u = (size_t)(end - e);

	if (e == s || e > end || !(v >= 0) || !isfinite(v))
		return -1;
	if (u == 2 && strncmp(e, "us", 2) == 0)
		*ns = v * 1e3;
	else if (u == 2 && strncmp(e, "ms", 2) == 0)
		*ns = v * 1e6;
	else if (u == 1 && *e == 's')
		*ns = v * 1e9;
	else
		return -1;
	return 0;
}
