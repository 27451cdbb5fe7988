/* SPDX-License-Identifier: MIT */
/* assert_near.h: floating-point asserts for the cmocka unit tests (cmocka 1.1.5, Debian 12, has no
 * assert_double_equal). Include after <cmocka.h>. test_model.c and test_memory.c still carry
 * their own copy of assert_near_impl; they can switch to this header. */
#ifndef PMT_TEST_ASSERT_NEAR_H
#define PMT_TEST_ASSERT_NEAR_H

#include <math.h>

/* |a - b| <= tol; prints both values and the expression on failure. */
#define assert_double_equal(a, b, tol) assert_near_impl((a), (b), (tol), #a, __FILE__, __LINE__)
/* relative: |a - b| <= rel |b| */
#define assert_rel(a, b, rel) assert_double_equal((a), (b), (rel) * fabs(b))

static inline void assert_near_impl(double a, double b, double tol, const char *expr,
				    const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s = %.9g, want %.9g (tolerance %g)\n", expr, a, b, tol);
		_fail(file, line);
	}
}

#endif
