/* SPDX-License-Identifier: MIT */
/* test_symbols.c: outlined-name rules, and symbolization of return addresses in this very test
 * binary (built with -g), whose lines and functions are known from __LINE__ and __func__. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <link.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "symbols.h"

static void test_outlined_names(void **state)
{
	char p[64];

	(void)state;
	assert_int_equal(pma_symbol_outlined_parent("main._omp_fn.0", p, sizeof(p)), 1);
	assert_string_equal(p, "main");
	assert_int_equal(pma_symbol_outlined_parent("x_solve._omp_fn.12", p, sizeof(p)), 1);
	assert_string_equal(p, "x_solve");
	assert_int_equal(pma_symbol_outlined_parent("rhs.omp_outlined", p, sizeof(p)), 1);
	assert_string_equal(p, "rhs");
	assert_int_equal(pma_symbol_outlined_parent("rhs.omp_outlined_debug__", p, sizeof(p)), 1);
	assert_string_equal(p, "rhs");
	assert_int_equal(pma_symbol_outlined_parent(".omp_outlined.", p, sizeof(p)), 0);
	assert_int_equal(pma_symbol_outlined_parent(".omp_outlined._debug__.14", p, sizeof(p)), 0);
	assert_int_equal(pma_symbol_outlined_parent("main", p, sizeof(p)), -1);
	assert_int_equal(pma_symbol_outlined_parent("omp_outlined", p, sizeof(p)), -1);
	assert_int_equal(pma_symbol_outlined_parent(NULL, p, sizeof(p)), -1);
	/* cut to the buffer */
	assert_int_equal(pma_symbol_outlined_parent("abcdefgh._omp_fn.1", p, 4), 1);
	assert_string_equal(p, "abc");
}

static __attribute__((noinline)) void *return_address(void)
{
	void *ra = __builtin_return_address(0);

	__asm__ volatile("" : : "r"(ra) : "memory"); /* keep the call a call */
	return ra;
}

static inline __attribute__((always_inline)) void *inlined_site(int *line)
{
	void *ra = return_address(); *line = __LINE__;
	return ra;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	*(uint64_t *)ctx = info->dlpi_addr;
	return 1; /* the first object is the executable */
}

static struct pma_symbols *self_symbols(void)
{
	struct pma_symbols *s;
	uint64_t load = 0;
	char why[256], exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = 0;
	dl_iterate_phdr(first_object, &load);
	assert_int_equal(pma_symbols_open(&s, why, sizeof(why)), 0);
	assert_int_equal(pma_symbols_add(s, exe, load, NULL, 0, why, sizeof(why)), 0);
	return s;
}

/* A return address names the calling function and the line of the call; an always-inline helper
 * is named itself, not the function it was inlined into. */
static void test_lookup_self(void **state)
{
	struct pma_symbols *s = self_symbols();
	struct pma_symbol y;
	int line, inl_line;
	void *ra, *inl;

	(void)state;
	ra = return_address(); line = __LINE__;
	inl = inlined_site(&inl_line);
	assert_int_equal(pma_symbols_lookup(s, (uint64_t)(uintptr_t)ra, 1, &y), 0);
	assert_string_equal(y.function, __func__);
	assert_int_equal(y.line, line);
	assert_non_null(strstr(y.file, "test_symbols.c"));
	assert_false(y.outlined);
	assert_true(y.offset > 0);
	assert_int_equal(pma_symbols_lookup(s, (uint64_t)(uintptr_t)inl, 1, &y), 0);
	assert_string_equal(y.function, "inlined_site");
	assert_int_equal(y.line, inl_line);
	/* no object there */
	assert_int_equal(pma_symbols_lookup(s, 16, 0, &y), -1);
	assert_string_equal(y.object, "");
	pma_symbols_close(s);
}

/* A file whose build-id differs from the recorded one is refused; a missing file too. */
static void test_add_refused(void **state)
{
	struct pma_symbols *s;
	static const uint8_t wrong[20] = {1, 2, 3};
	char why[256];

	(void)state;
	assert_int_equal(pma_symbols_open(&s, why, sizeof(why)), 0);
	assert_int_equal(pma_symbols_add(s, "/proc/self/exe", 0, wrong, sizeof(wrong), why, sizeof(why)), -1);
	assert_string_equal(why, "'/proc/self/exe' is not the file that was traced: its build-id differs");
	assert_int_equal(pma_symbols_add(s, "/nonexistent/x", 0, NULL, 0, why, sizeof(why)), -1);
	assert_string_equal(why, "cannot read '/nonexistent/x' as an ELF file");
	pma_symbols_close(s);
	pma_symbols_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outlined_names),
		cmocka_unit_test(test_lookup_self),
		cmocka_unit_test(test_add_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
