/* SPDX-License-Identifier: MIT */
/* procfs.c: bounds-checked parsers of /proc/<tgid>/task/<tid>/{schedstat,stat,status} buffers. */
#include "procfs.h"

#include <string.h>

/* A cursor over a buffer that is not NUL-terminated: every read checks p < end. */
struct cur {
	const char *p;
	const char *end;
};

/* Parses an unsigned decimal number of at least one digit; -1 on no digit or overflow of max. */
static int get_u64(struct cur *c, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (v > (max - d) / 10)
			return PMT_E_CORRUPT;
		v = v * 10 + d;
		c->p++;
	}
	if (c->p == start)
		return PMT_E_CORRUPT;
	*out = v;
	return 0;
}

/* Parses an optionally negative decimal number within [min, max]. */
static int get_i64(struct cur *c, int64_t min, int64_t max, int64_t *out)
{
	uint64_t mag;
	int neg = 0;

	if (c->p < c->end && *c->p == '-') {
		neg = 1;
		c->p++;
	}
	if (get_u64(c, (uint64_t)INT64_MAX + (uint64_t)neg, &mag) < 0)
		return PMT_E_CORRUPT;
	if (neg) {
		/* -INT64_MIN does not exist; handle the magnitude 2^63 without overflow */
		int64_t v = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
		if (v < min)
			return PMT_E_CORRUPT;
		*out = v;
	} else {
		if ((int64_t)mag > max)
			return PMT_E_CORRUPT;
		*out = (int64_t)mag;
	}
	return 0;
}

/* Skips an optionally negative number of 1 to 20 digits (u64 fields such as rsslim exceed
 * INT64_MAX, so the value is not range-checked: the caller does not use it). */
static int skip_num(struct cur *c)
{
	const char *start;

	if (c->p < c->end && *c->p == '-')
		c->p++;
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	return c->p > start && c->p - start <= 20 ? 0 : -1;
}

static int expect_char(struct cur *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return PMT_E_CORRUPT;
	c->p++;
	return 0;
}

/* Accepts the end of the buffer, or one newline that ends it. */
static int expect_end(struct cur *c)
{
	if (c->p < c->end && *c->p == '\n')
		c->p++;
	return c->p == c->end ? 0 : -1;
}

int pmc_parse_schedstat(const char *buf, size_t len, struct pmc_schedstat *out)
{
	struct cur c = { buf, buf + len };
	uint64_t v[3];

	if (!buf)
		return PMT_E_CORRUPT;
	for (int i = 0; i < 3; i++) {
		if (i > 0 && expect_char(&c, ' ') < 0)
			return PMT_E_CORRUPT;
		if (get_u64(&c, UINT64_MAX, &v[i]) < 0)
			return PMT_E_CORRUPT;
	}
	if (expect_end(&c) < 0)
		return PMT_E_CORRUPT;
	out->run_ns = v[0];
	out->wait_ns = v[1];
	out->timeslices = v[2];
	return 0;
}

int pmc_parse_stat(const char *buf, size_t len, struct pmc_stat *out)
{
	struct cur c = { buf, buf + len };
	const char *open, *close = NULL;
	uint64_t u;
	int64_t i;
	size_t n;

	if (!buf || len == 0)
		return PMT_E_CORRUPT;
	/* field 1: pid */
	if (get_u64(&c, UINT32_MAX, &u) < 0 || expect_char(&c, ' ') < 0)
		return PMT_E_CORRUPT;
	out->pid = (uint32_t)u;
	/* field 2: "(comm)"; the last ')' ends it since comm itself may hold ')' */
	open = c.p;
	if (expect_char(&c, '(') < 0)
		return PMT_E_CORRUPT;
	for (const char *q = c.end; q > c.p; q--) {
		if (q[-1] == ')') {
			close = q - 1;
			break;
		}
	}
	if (!close)
		return PMT_E_CORRUPT;
	n = (size_t)(close - (open + 1));
	if (n > PMC_COMM_MAX)
		n = PMC_COMM_MAX;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	out->comm_len = n;
	c.p = close + 1;

	/* field 3: state, one letter */
	if (expect_char(&c, ' ') < 0 || c.p >= c.end)
		return PMT_E_CORRUPT;
	if (!((*c.p >= 'A' && *c.p <= 'Z') || (*c.p >= 'a' && *c.p <= 'z')))
		return PMT_E_CORRUPT;
	out->state = *c.p++;

	/* fields 4..39, each preceded by one space; some are negative (priority, nice, tty_nr) */
	for (int field = 4; field <= 39; field++) {
		if (expect_char(&c, ' ') < 0)
			return PMT_E_CORRUPT;
		switch (field) {
		case 4: /* ppid */
			if (get_u64(&c, UINT32_MAX, &u) < 0)
				return PMT_E_CORRUPT;
			out->ppid = (uint32_t)u;
			break;
		case 14: /* utime, ticks */
			if (get_u64(&c, UINT64_MAX, &out->utime_ticks) < 0)
				return PMT_E_CORRUPT;
			break;
		case 15: /* stime, ticks */
			if (get_u64(&c, UINT64_MAX, &out->stime_ticks) < 0)
				return PMT_E_CORRUPT;
			break;
		case 20: /* num_threads */
			if (get_i64(&c, 0, UINT32_MAX, &i) < 0)
				return PMT_E_CORRUPT;
			out->num_threads = (uint32_t)i;
			break;
		case 22: /* starttime, ticks */
			if (get_u64(&c, UINT64_MAX, &out->starttime_ticks) < 0)
				return PMT_E_CORRUPT;
			break;
		case 39: /* processor */
			if (get_i64(&c, INT32_MIN, INT32_MAX, &i) < 0)
				return PMT_E_CORRUPT;
			out->processor = (int32_t)i;
			break;
		default:
			/* fields we skip still have to be numbers, or the buffer is not a stat line */
			if (skip_num(&c) < 0)
				return PMT_E_CORRUPT;
			break;
		}
	}
	/* fields 40..52 follow on current kernels; they are not needed, but must not be garbage */
	while (c.p < c.end && *c.p != '\n') {
		if (expect_char(&c, ' ') < 0)
			return PMT_E_CORRUPT;
		if (skip_num(&c) < 0)
			return PMT_E_CORRUPT;
	}
	return expect_end(&c);
}

/* Finds "key:" at the start of a line and parses the number after it. */
static int status_value(const char *buf, size_t len, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;

		if ((size_t)(line_end - p) > klen && memcmp(p, key, klen) == 0 && p[klen] == ':') {
			struct cur c = { p + klen + 1, line_end };
			while (c.p < c.end && (*c.p == '\t' || *c.p == ' '))
				c.p++;
			if (get_u64(&c, UINT64_MAX, out) < 0 || c.p != c.end)
				return PMT_E_CORRUPT;
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return PMT_E_CORRUPT;
}

int pmc_parse_status_ctxt(const char *buf, size_t len, struct pmc_ctxt *out)
{
	struct pmc_ctxt v;

	if (!buf)
		return PMT_E_CORRUPT;
	if (status_value(buf, len, "voluntary_ctxt_switches", &v.nvcsw) < 0 ||
	    status_value(buf, len, "nonvoluntary_ctxt_switches", &v.nivcsw) < 0)
		return PMT_E_CORRUPT;
	*out = v;
	return 0;
}

int pmc_sample_schedstat(struct pmt_thread_sample *v, const char *buf, size_t len)
{
	struct pmc_schedstat ss;

	if (pmc_parse_schedstat(buf, len, &ss) < 0)
		return PMT_E_CORRUPT;
	v->run_ns = ss.run_ns;
	v->wait_ns = ss.wait_ns;
	v->timeslices = ss.timeslices;
	v->flags |= PMT_TS_SCHEDSTAT_OK;
	return 0;
}

int pmc_sample_stat(struct pmt_thread_sample *v, const char *buf, size_t len, struct pmc_stat *st)
{
	if (pmc_parse_stat(buf, len, st) < 0)
		return PMT_E_CORRUPT;
	v->state = st->state;
	v->cpu = st->processor >= 0 && st->processor < (int32_t)PMT_CPU_UNKNOWN ? (uint16_t)st->processor
										  : PMT_CPU_UNKNOWN;
	v->flags |= PMT_TS_STAT_FRESH;
	return 0;
}

int pmc_sample_status(struct pmt_thread_sample *v, const char *buf, size_t len)
{
	struct pmc_ctxt c;

	if (pmc_parse_status_ctxt(buf, len, &c) < 0)
		return PMT_E_CORRUPT;
	v->nvcsw = (uint32_t)c.nvcsw;
	v->nivcsw = (uint32_t)c.nivcsw;
	v->flags |= PMT_TS_STATUS_FRESH;
	return 0;
}
