/* SPDX-License-Identifier: MIT */
/* pm_util.c: array growth, the `why` buffer and the tid hash map shared by every layer. */
#include "pm_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int pm_grow_capacity(size_t cap, size_t need, size_t elem_size, size_t *out)
{
	size_t max_elems, ncap;

	if (elem_size == 0)
		return -EOVERFLOW;
	max_elems = PM_GROW_MAX_BYTES / elem_size;
	if (need <= cap) {
		*out = cap;
		return 0;
	}
	if (need > max_elems)
		return -EOVERFLOW;
	ncap = cap < 16 ? 16 : cap;
	/* doubling past max_elems (or past SIZE_MAX) clamps to max_elems, which holds need */
	while (ncap < need)
		ncap = ncap > max_elems / 2 ? max_elems : ncap * 2;
	*out = ncap > max_elems ? max_elems : ncap;
	return 0;
}

int pm_grow_array(void **p, size_t *cap, size_t need, size_t elem_size)
{
	size_t ncap;
	void *np;
	int r = pm_grow_capacity(*cap, need, elem_size, &ncap);

	if (r < 0)
		return r;
	if (ncap == *cap)
		return 0;
	np = realloc(*p, ncap * elem_size); /* ncap * elem_size <= PTRDIFF_MAX: no overflow */
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

uint64_t pm_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pm_set_why(char *why, size_t whysize, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || whysize == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whysize, fmt, ap);
	va_end(ap);
}

/* ---- tid map ---- */

/* Fibonacci hashing (Knuth, TAOCP 6.4): multiplying by an odd constant permutes the low bits, so
 * consecutive tids, the common case, land in distinct slots. */
static size_t tidmap_home(const struct pm_tidmap *m, uint32_t tid)
{
	return (size_t)((tid * 2654435761u) & (uint32_t)(m->cap - 1));
}

/* Slot holding tid, or the empty slot ending its probe run. Requires m->cap > 0. */
static size_t tidmap_find_slot(const struct pm_tidmap *m, uint32_t tid)
{
	size_t i = tidmap_home(m, tid);

	while (m->key[i] != 0 && m->key[i] != tid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int tidmap_resize(struct pm_tidmap *m, size_t ncap)
{
	struct pm_tidmap nm = { NULL, NULL, ncap, 0 };

	if (ncap > UINT32_MAX || ncap > SIZE_MAX / sizeof(uint32_t))
		return -EOVERFLOW;
	nm.key = calloc(ncap, sizeof(*nm.key));
	nm.val = calloc(ncap, sizeof(*nm.val));
	if (!nm.key || !nm.val) {
		free(nm.key);
		free(nm.val);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->key[i]) {
			size_t s = tidmap_find_slot(&nm, m->key[i]);
			nm.key[s] = m->key[i];
			nm.val[s] = m->val[i];
			nm.count++;
		}
	}
	free(m->key);
	free(m->val);
	*m = nm;
	return 0;
}

void pm_tidmap_init(struct pm_tidmap *m)
{
	memset(m, 0, sizeof(*m));
}

void pm_tidmap_free(struct pm_tidmap *m)
{
	if (!m)
		return;
	free(m->key);
	free(m->val);
	pm_tidmap_init(m);
}

int pm_tidmap_get(const struct pm_tidmap *m, uint32_t tid, uint32_t *index)
{
	size_t i;

	if (tid == 0 || m->cap == 0)
		return 0;
	i = tidmap_find_slot(m, tid);
	if (m->key[i] == 0)
		return 0;
	*index = m->val[i];
	return 1;
}

int pm_tidmap_put(struct pm_tidmap *m, uint32_t tid, uint32_t index)
{
	size_t i;

	if (tid == 0)
		return -EINVAL;
	if (m->cap) {
		i = tidmap_find_slot(m, tid);
		if (m->key[i] == tid) {
			m->val[i] = index;
			return 0;
		}
	}
	if ((m->count + 1) * 2 > m->cap) {
		int r = tidmap_resize(m, m->cap ? m->cap * 2 : 64);
		if (r < 0)
			return r;
	}
	i = tidmap_find_slot(m, tid);
	m->key[i] = tid;
	m->val[i] = index;
	m->count++;
	return 0;
}

int pm_tidmap_remove(struct pm_tidmap *m, uint32_t tid)
{
	size_t i, j, mask;

	if (tid == 0 || m->cap == 0)
		return 0;
	mask = m->cap - 1;
	i = tidmap_find_slot(m, tid);
	if (m->key[i] == 0)
		return 0;
	/* backward shift: move each later entry of the probe run whose home is not between the hole
	 * and itself into the hole, so no lookup meets an empty slot before its key */
	for (j = (i + 1) & mask; m->key[j]; j = (j + 1) & mask) {
		size_t home = tidmap_home(m, m->key[j]);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->key[i] = 0;
	m->count--;
	return 1;
}

void pm_tidmap_clear(struct pm_tidmap *m)
{
	if (m->cap)
		memset(m->key, 0, m->cap * sizeof(*m->key));
	m->count = 0;
}

char *pm_str_replace(const char *s, const char *from, const char *to)
{
	size_t plen = strlen(from), nlen = strlen(to), count = 0;

	for (const char *q = s; (q = strstr(q, from)); q += plen)
		count++;
	char *r = malloc(strlen(s) + count * nlen + 1), *o = r;
	if (!r)
		return NULL;
	for (const char *q = s, *hit; ; q = hit + plen) {
		hit = strstr(q, from);
		size_t keep = hit ? (size_t)(hit - q) : strlen(q);
		memcpy(o, q, keep);
		o += keep;
		if (!hit)
			break;
		memcpy(o, to, nlen);
		o += nlen;
	}
	*o = '\0';
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pm_median_finite(double *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}
