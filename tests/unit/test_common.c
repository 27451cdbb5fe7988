/* SPDX-License-Identifier: MIT */
/* test_common.c: cmocka tests of common/pm_util.c (array growth, set_why, the tid map) and
 * common/pm_sysfs.c (one-line attributes). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pm_sysfs.h"
#include "pm_util.h"

static void test_array_size(void **state)
{
	int seven[7];
	struct { char c; double d; } three[3];
	static const char abc[] = "abc";

	(void)state;
	(void)seven;
	(void)three;
	assert_int_equal(PM_ARRAY_SIZE(seven), 7);
	assert_int_equal(PM_ARRAY_SIZE(three), 3);
	assert_int_equal(PM_ARRAY_SIZE(abc), 4); /* the NUL counts */
}

static void test_grow_capacity(void **state)
{
	const size_t max8 = PM_GROW_MAX_BYTES / 8;
	size_t out = 12345;

	(void)state;
	assert_int_equal(pm_grow_capacity(0, 1, 8, &out), 0);
	assert_int_equal(out, 16); /* minimum 16 */
	assert_int_equal(pm_grow_capacity(16, 16, 8, &out), 0);
	assert_int_equal(out, 16); /* already enough: unchanged */
	assert_int_equal(pm_grow_capacity(16, 17, 8, &out), 0);
	assert_int_equal(out, 32); /* doubling */
	assert_int_equal(pm_grow_capacity(0, 100, 1, &out), 0);
	assert_int_equal(out, 128); /* 16, 32, 64, 128 */
	assert_int_equal(pm_grow_capacity(20, 21, 4, &out), 0);
	assert_int_equal(out, 40);
	assert_int_equal(pm_grow_capacity(0, 1000, 8, &out), 0);
	assert_int_equal(out, 1024);

	/* doubling past the largest object clamps to it, which still holds need */
	assert_int_equal(pm_grow_capacity(max8 / 2 + 1, max8 / 2 + 2, 8, &out), 0);
	assert_int_equal(out, max8);
	assert_int_equal(pm_grow_capacity(max8 - 1, max8, 8, &out), 0);
	assert_int_equal(out, max8);

	/* need * elem_size beyond PTRDIFF_MAX (or beyond SIZE_MAX) overflows; out untouched */
	out = 777;
	assert_int_equal(pm_grow_capacity(16, max8 + 1, 8, &out), -EOVERFLOW);
	assert_int_equal(pm_grow_capacity(0, SIZE_MAX, 8, &out), -EOVERFLOW);
	assert_int_equal(pm_grow_capacity(0, SIZE_MAX / 2 + 1, 2, &out), -EOVERFLOW);
	assert_int_equal(pm_grow_capacity(0, 1, 0, &out), -EOVERFLOW);
	assert_int_equal(out, 777);
}

static void test_grow_macro(void **state)
{
	uint64_t *v = NULL, *before;
	size_t cap = 0;

	(void)state;
	assert_int_equal(PM_GROW(v, cap, 1), 0);
	assert_non_null(v);
	assert_int_equal(cap, 16);
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(PM_GROW(v, cap, i + 1), 0);
		assert_true(cap >= i + 1);
		v[i] = i * i + 7;
	}
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < 1000; i++) /* realloc kept the contents */
		assert_int_equal(v[i], i * i + 7);

	/* enough room already: no reallocation */
	before = v;
	assert_int_equal(PM_GROW(v, cap, 1024), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);

	/* overflow fails before realloc: array, capacity and contents unchanged */
	assert_int_equal(PM_GROW(v, cap, SIZE_MAX), -1);
	assert_int_equal(PM_GROW(v, cap, PM_GROW_MAX_BYTES / sizeof(*v) + 1), -1);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);
	assert_int_equal(v[999], 999 * 999 + 7);
	free(v);
}

/* The element type comes from *ptr: a struct array grows by the struct's size. */
static void test_grow_struct(void **state)
{
	struct wide {
		char name[100];
		uint32_t id;
	} *w = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(PM_GROW(w, cap, 40), 0);
	assert_int_equal(cap, 64);
	for (size_t i = 0; i < 64; i++) { /* every element writable: ASan checks the size */
		snprintf(w[i].name, sizeof(w[i].name), "thread %zu", i);
		w[i].id = (uint32_t)i;
	}
	assert_string_equal(w[63].name, "thread 63");
	free(w);
}

static void test_set_why(void **state)
{
	char why[8];

	(void)state;
	pm_set_why(why, sizeof(why), "%s %d", "run", 3);
	assert_string_equal(why, "run 3");
	pm_set_why(why, sizeof(why), "event '%s' not found", "PAPI_TOT_CYC");
	assert_string_equal(why, "event '"); /* truncated to 7 bytes + NUL */
	memcpy(why, "keepme", 7);
	pm_set_why(why, 0, "%s", "overwritten");
	assert_string_equal(why, "keepme");
	pm_set_why(NULL, 100, "%s", "nowhere"); /* must not crash */
}

/* Keys whose home slot in a 64-slot map is the same: they form one probe run. */
static size_t colliding_tids(uint32_t *out, size_t n)
{
	uint32_t home0 = (1u * 2654435761u) & 63u;
	size_t k = 0;

	for (uint32_t t = 1; k < n; t++)
		if (((t * 2654435761u) & 63u) == home0)
			out[k++] = t;
	return k;
}

static void test_tidmap_basic(void **state)
{
	struct pm_tidmap m = PM_TIDMAP_INIT;
	uint32_t idx = 99;

	(void)state;
	assert_int_equal(pm_tidmap_get(&m, 5, &idx), 0); /* empty, nothing allocated */
	assert_int_equal(idx, 99);
	assert_int_equal(pm_tidmap_remove(&m, 5), 0);
	assert_int_equal(pm_tidmap_put(&m, 0, 1), -EINVAL);
	assert_int_equal(m.count, 0);

	for (uint32_t t = 1; t <= 1000; t++)
		assert_int_equal(pm_tidmap_put(&m, t * 7919u, t - 1), 0);
	assert_int_equal(m.count, 1000);
	assert_true(m.cap >= 2000); /* load factor at most 1/2 */
	assert_int_equal(m.cap & (m.cap - 1), 0);
	for (uint32_t t = 1; t <= 1000; t++) {
		assert_int_equal(pm_tidmap_get(&m, t * 7919u, &idx), 1);
		assert_int_equal(idx, t - 1);
	}
	assert_int_equal(pm_tidmap_get(&m, 7919u * 1001u, &idx), 0);
	assert_int_equal(pm_tidmap_get(&m, 0, &idx), 0);

	/* replacing changes the index, not the count */
	assert_int_equal(pm_tidmap_put(&m, 7919u * 5u, 4242), 0);
	assert_int_equal(m.count, 1000);
	assert_int_equal(pm_tidmap_get(&m, 7919u * 5u, &idx), 1);
	assert_int_equal(idx, 4242);

	/* the largest tid is a key like any other */
	assert_int_equal(pm_tidmap_put(&m, UINT32_MAX, 1), 0);
	assert_int_equal(pm_tidmap_get(&m, UINT32_MAX, &idx), 1);
	assert_int_equal(idx, 1);

	pm_tidmap_free(&m);
	assert_null(m.key);
	assert_int_equal(m.cap, 0);
	assert_int_equal(m.count, 0);
	assert_int_equal(pm_tidmap_put(&m, 3, 30), 0); /* usable again after free */
	assert_int_equal(pm_tidmap_get(&m, 3, &idx), 1);
	assert_int_equal(idx, 30);
	pm_tidmap_free(&m);
	pm_tidmap_free(NULL);
}

/* A replacement never grows the slots, so it cannot fail even when the map is full to 1/2. */
static void test_tidmap_replace_no_growth(void **state)
{
	struct pm_tidmap m;
	uint32_t idx;

	(void)state;
	pm_tidmap_init(&m);
	for (uint32_t t = 1; t <= 32; t++)
		assert_int_equal(pm_tidmap_put(&m, t, t), 0);
	assert_int_equal(m.cap, 64);
	uint32_t *slots = m.key;
	assert_int_equal(pm_tidmap_put(&m, 17, 170), 0);
	assert_int_equal(m.cap, 64);
	assert_ptr_equal(m.key, slots);
	assert_int_equal(pm_tidmap_get(&m, 17, &idx), 1);
	assert_int_equal(idx, 170);
	assert_int_equal(pm_tidmap_put(&m, 33, 33), 0); /* a new key does grow */
	assert_int_equal(m.cap, 128);
	pm_tidmap_free(&m);
}

/* Removing from the middle of one probe run must keep every later key of the run reachable
 * (backward shift), and the hole must be reusable. */
static void test_tidmap_remove_in_run(void **state)
{
	struct pm_tidmap m = PM_TIDMAP_INIT;
	uint32_t run[12], idx;

	(void)state;
	assert_int_equal(colliding_tids(run, 12), 12);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(pm_tidmap_put(&m, run[i], (uint32_t)i), 0);
	assert_int_equal(m.cap, 64); /* all 12 share one home slot */
	for (size_t r = 0; r < 12; r += 3) {
		assert_int_equal(pm_tidmap_remove(&m, run[r]), 1);
		assert_int_equal(pm_tidmap_remove(&m, run[r]), 0);
		assert_int_equal(pm_tidmap_get(&m, run[r], &idx), 0);
		for (size_t i = r + 1; i < 12; i++) { /* later keys of the run: all still there */
			assert_int_equal(pm_tidmap_get(&m, run[i], &idx), 1);
			assert_int_equal(idx, i);
		}
	}
	assert_int_equal(m.count, 8);
	for (size_t i = 0; i < 12; i += 3) /* back in */
		assert_int_equal(pm_tidmap_put(&m, run[i], (uint32_t)(100 + i)), 0);
	for (size_t i = 0; i < 12; i++) {
		assert_int_equal(pm_tidmap_get(&m, run[i], &idx), 1);
		assert_int_equal(idx, (i % 3) ? i : 100 + i);
	}
	pm_tidmap_free(&m);
}

/* 200,000 random puts, removes and gets over 1..3000 against a plain array: the map must agree
 * at every step, through growth and many backward shifts. */
static void test_tidmap_random_vs_reference(void **state)
{
	enum { MAXTID = 3000 };
	static uint32_t ref[MAXTID + 1]; /* 0 = absent, else index + 1 */
	struct pm_tidmap m = PM_TIDMAP_INIT;
	uint64_t x = 88172645463325252ull; /* xorshift64 seed (Marsaglia 2003) */
	size_t count = 0;

	(void)state;
	memset(ref, 0, sizeof(ref));
	for (int step = 0; step < 200000; step++) {
		uint32_t tid, idx = 0;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* tids clustered on multiples of 64 too, so probe runs get long */
		tid = (uint32_t)(x % MAXTID) + 1;
		if ((x >> 40) % 4 == 0)
			tid = (uint32_t)(((x >> 20) % (MAXTID / 64)) * 64) + 1;
		switch ((x >> 32) % 3) {
		case 0:
			assert_int_equal(pm_tidmap_put(&m, tid, (uint32_t)step), 0);
			count += ref[tid] == 0;
			ref[tid] = (uint32_t)step + 1;
			break;
		case 1:
			assert_int_equal(pm_tidmap_remove(&m, tid), ref[tid] != 0);
			count -= ref[tid] != 0;
			ref[tid] = 0;
			break;
		default:
			assert_int_equal(pm_tidmap_get(&m, tid, &idx), ref[tid] != 0);
			if (ref[tid])
				assert_int_equal(idx, ref[tid] - 1);
		}
		assert_int_equal(m.count, count);
	}
	for (uint32_t t = 1; t <= MAXTID; t++) {
		uint32_t idx = 0;
		assert_int_equal(pm_tidmap_get(&m, t, &idx), ref[t] != 0);
		if (ref[t])
			assert_int_equal(idx, ref[t] - 1);
	}
	pm_tidmap_free(&m);
}

/* clear empties the map and keeps its slots (estimate.c rebuilds after compacting its array). */
static void test_tidmap_clear(void **state)
{
	struct pm_tidmap m = PM_TIDMAP_INIT;
	uint32_t idx;
	size_t cap;

	(void)state;
	pm_tidmap_clear(&m); /* on an empty map: nothing to do */
	for (uint32_t t = 1; t <= 100; t++)
		assert_int_equal(pm_tidmap_put(&m, t, t), 0);
	cap = m.cap;
	pm_tidmap_clear(&m);
	assert_int_equal(m.count, 0);
	assert_int_equal(m.cap, cap);
	for (uint32_t t = 1; t <= 100; t++)
		assert_int_equal(pm_tidmap_get(&m, t, &idx), 0);
	assert_int_equal(pm_tidmap_put(&m, 50, 0), 0);
	assert_int_equal(pm_tidmap_get(&m, 50, &idx), 1);
	assert_int_equal(idx, 0);
	assert_int_equal(m.count, 1);
	pm_tidmap_free(&m);
}

/* Writes text into a new temporary file; returns its path (static, one at a time). */
static const char *attr_file(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_common.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* pm_sysfs_read_line: the first line without its newline and trailing spaces, a long line cut,
 * the errors as negative errno codes. */
static void test_sysfs_read_line(void **state)
{
	char buf[8];
	const char *p;

	(void)state;
	p = attr_file("0-3,8\n");
	assert_int_equal(pm_sysfs_read_line(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3,8");
	unlink(p);
	p = attr_file("2 \nsecond line\n"); /* cgroup files end "0-1 \n" */
	assert_int_equal(pm_sysfs_read_line(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2");
	unlink(p);
	p = attr_file("performance\n");
	assert_int_equal(pm_sysfs_read_line(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "perform"); /* cut at bufsize - 1 */
	assert_int_equal(pm_sysfs_read_line(p, buf, 1), -EINVAL);
	unlink(p);
	p = attr_file("");
	assert_int_equal(pm_sysfs_read_line(p, buf, sizeof(buf)), -ENODATA);
	assert_string_equal(buf, "");
	unlink(p);
	assert_int_equal(pm_sysfs_read_line("/nonexistent/pmtools/attr", buf, sizeof(buf)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_size),
		cmocka_unit_test(test_grow_capacity),
		cmocka_unit_test(test_grow_macro),
		cmocka_unit_test(test_grow_struct),
		cmocka_unit_test(test_set_why),
		cmocka_unit_test(test_tidmap_basic),
		cmocka_unit_test(test_tidmap_replace_no_growth),
		cmocka_unit_test(test_tidmap_remove_in_run),
		cmocka_unit_test(test_tidmap_random_vs_reference),
		cmocka_unit_test(test_tidmap_clear),
		cmocka_unit_test(test_sysfs_read_line),
	};

	return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
