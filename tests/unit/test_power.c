/* SPDX-License-Identifier: MIT */
/* test_power.c: analyzer/model/power.c on synthetic runs of known P_static, P_core and T(n), and the
 * power series of the energy plot on synthetic ENERGY readings of known watts. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "power.h"

#define P_STATIC_W 40.0
#define P_CORE_W 5.0

/* Amdahl time with 5% serial work and T(1) = 100 s */
static double T_amdahl_s(uint32_t n)
{
	return 100.0 * (0.05 + 0.95 / n);
}

/* Runs at 1, 2, 4, 8 cores, twice each, whose energy is the model's with a measurement error of
 * 0.4% sin(2.4 i + 1) on run i (between -0.37% and +0.38%, not cancelling at any n), so that the
 * fit has something to average; least squares gives P_static 39.9956 W, P_core 5.0013 W. */
static void make_runs(struct pma_power_run *r, int with_core_zone)
{
	static const uint32_t n[] = { 1, 2, 4, 8, 1, 2, 4, 8 };

	for (size_t i = 0; i < 8; i++) {
		double noise = 1.0 + 0.004 * sin(2.4 * (double)i + 1.0);
		double T_s = T_amdahl_s(n[i]);

		r[i].n = n[i];
		r[i].busy_cores = 0.0;
		r[i].T_s = T_s;
		r[i].E_j = (P_STATIC_W + n[i] * P_CORE_W) * T_s * noise;
		/* the core zone: 1.5 W of idle core power plus the busy cores */
		r[i].E_core_j = with_core_zone ? (1.5 + n[i] * P_CORE_W) * T_s * noise : -1.0;
	}
}

/* Fits make_runs' runs (with or without a core zone, zones asked for or not) and checks that the
 * method is the expected one and P_static, P_core are within 1% of 40 W and 5 W. */
static void check_fit(int with_core_zone, int zones, enum pma_power_method method)
{
	struct pma_power_run r[8];
	struct pma_power_model m;
	char why[256] = "";

	make_runs(r, with_core_zone);
	assert_int_equal(pma_power_fit(r, 8, zones, &m, why, sizeof(why)), 0);
	assert_int_equal(m.method, method);
	assert_true(fabs(m.P_static_w / P_STATIC_W - 1.0) < 0.01);
	assert_true(fabs(m.P_core_w / P_CORE_W - 1.0) < 0.01);
	assert_true(m.R2 > 0.99 && m.R2 < 1.0);
	assert_int_equal(m.ncounts, 4);
	print_message("# fit (core zone %d, zones %d): P_static %.4f W, P_core %.4f W, R2 %.6f\n",
		      with_core_zone, zones, m.P_static_w, m.P_core_w, m.R2);
}

static void test_fit_total(void **state)
{
	(void)state;
	check_fit(0, 1, PMA_POWER_FIT_TOTAL); /* no core zone: zones ignored */
	check_fit(1, 0, PMA_POWER_FIT_TOTAL); /* core zone present but not asked for */
}

static void test_fit_zones(void **state)
{
	(void)state;
	check_fit(1, 1, PMA_POWER_FIT_ZONES);
}

/* Busy cores instead of the given n: a run given 8 cores that kept 3.5 busy draws 3.5 P_core. */
static void test_fit_busy_cores(void **state)
{
	static const double busy[] = { 1.0, 1.8, 3.5, 6.0 };
	struct pma_power_run r[4];
	struct pma_power_model m;
	char why[256] = "";

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		r[i].n = 1u << i;
		r[i].busy_cores = busy[i];
		r[i].T_s = 10.0;
		r[i].E_j = (P_STATIC_W + busy[i] * P_CORE_W) * 10.0;
		r[i].E_core_j = -1.0;
	}
	assert_int_equal(pma_power_fit(r, 4, 0, &m, why, sizeof(why)), 0);
	assert_float_equal(m.P_static_w, P_STATIC_W, 1e-9);
	assert_float_equal(m.P_core_w, P_CORE_W, 1e-9);
	assert_float_equal(m.R2, 1.0, 1e-12);
}

/* E(n) = (40 + 5n)(5 + 95/n) = 675 + 3800/n + 25n J is least at n = sqrt(3800/25) = 12.3:
 * E(12) = 1291.67 J < E(13) = 1292.31 J; T(n) falls all the way to n = 16, and so does
 * E(n) T(n) (14355 J s at 16, 14771 at 15). */
static void test_energy_optimum(void **state)
{
	struct pma_power_model m = { PMA_POWER_FIT_TOTAL, P_STATIC_W, P_CORE_W, 1.0, 0, 0 };
	struct pma_energy_point pts[16];
	struct pma_energy_optimum o;
	uint32_t n[16];
	double T[16];

	(void)state;
	for (uint32_t i = 0; i < 16; i++) {
		n[i] = i + 1;
		T[i] = T_amdahl_s(i + 1);
	}
	assert_int_equal(pma_energy_predict(&m, n, T, NULL, 16, pts), 0);
	assert_float_equal(pts[11].P_w, 100.0, 1e-12);
	assert_float_equal(pts[11].E_j, 1291.6666666666667, 1e-9);
	assert_float_equal(pts[15].EDP_js, 1312.5 * 10.9375, 1e-9);
	assert_int_equal(pma_energy_optimum(pts, 16, &o), 0);
	assert_int_equal(o.n_time, 16);
	assert_int_equal(o.n_energy, 12);
	assert_int_equal(o.n_edp, 16);
	assert_float_equal(o.E_min_j, 1291.6666666666667, 1e-9);
	assert_float_equal(o.E_at_time_opt_j, 1312.5, 1e-9);

	/* with A(m,n) = min(n, 4) busy cores (idle given cores cost nothing extra), P(n) is flat
	 * beyond 4 cores, so E falls with T and the fastest count is also the cheapest */
	{
		double A[16];
		for (uint32_t i = 0; i < 16; i++)
			A[i] = i + 1 < 4 ? i + 1 : 4;
		assert_int_equal(pma_energy_predict(&m, n, T, A, 16, pts), 0);
		assert_int_equal(pma_energy_optimum(pts, 16, &o), 0);
		assert_int_equal(o.n_energy, 16);
	}
}

static void test_bad_input(void **state)
{
	struct pma_power_run r[8];
	struct pma_power_model m;
	struct pma_energy_point pts[2];
	struct pma_energy_optimum o;
	const uint32_t n_back[] = { 4, 2 };
	const double T[] = { 1.0, 2.0 };
	char why[256] = "";

	(void)state;
	make_runs(r, 0);
	r[1].n = r[2].n = r[3].n = 1;
	assert_int_equal(pma_power_fit(r, 4, 0, &m, why, sizeof(why)), -1);
	assert_string_equal(why, "energy at two or more core counts is needed (1 given)");
	make_runs(r, 0);
	r[2].E_j = 0.0;
	assert_int_equal(pma_power_fit(r, 8, 0, &m, why, sizeof(why)), -1);
	assert_string_equal(why, "run 2 (n = 4) has no usable time or energy");
	make_runs(r, 0);
	r[0].T_s = NAN;
	assert_int_equal(pma_power_fit(r, 8, 0, &m, why, sizeof(why)), -1);
	assert_int_equal(pma_energy_predict(&m, n_back, T, NULL, 2, pts), -1);
	assert_int_equal(pma_energy_optimum(pts, 0, &o), -1);
}

/* The audit's case on a busy machine: power that falls with busy cores (74.34 W static and
 * -82.46 W per core fitted) must be refused with the fitted numbers kept for the note; a
 * negative P_static too. */
static void test_unphysical(void **state)
{
	struct pma_power_run r[2] = {
		{ .n = 1, .T_s = 2.0, .E_j = 2.0 * (74.34 - 82.46 * 0.5), .E_core_j = -1 },
		{ .n = 2, .T_s = 1.0, .E_j = 1.0 * (74.34 - 82.46 * 0.8), .E_core_j = -1 },
	};
	struct pma_power_model m;
	char why[256] = "";

	(void)state;
	r[0].busy_cores = 0.5;
	r[1].busy_cores = 0.8;
	assert_int_equal(pma_power_fit(r, 2, 0, &m, why, sizeof(why)), PMA_POWER_E_UNPHYSICAL);
	assert_float_equal(m.P_static_w, 74.34, 1e-9);
	assert_float_equal(m.P_core_w, -82.46, 1e-9);
	assert_float_equal(m.R2, 1.0, 1e-12); /* two points: any line fits */
	assert_string_equal(why, "the power fit is not physical: P_core < 0, power falls as more cores "
			    "are busy (P_static 74.34 W, P_core -82.46 W, R2 1.000 over 2 runs at 2 core "
			    "counts)");
	/* P(x) = -5 + 30 x: positive power at x = 1 and 2, negative static power */
	r[0] = (struct pma_power_run){ .n = 1, .busy_cores = 1, .T_s = 1, .E_j = 25, .E_core_j = -1 };
	r[1] = (struct pma_power_run){ .n = 2, .busy_cores = 2, .T_s = 1, .E_j = 55, .E_core_j = -1 };
	assert_int_equal(pma_power_fit(r, 2, 0, &m, why, sizeof(why)), PMA_POWER_E_UNPHYSICAL);
	assert_float_equal(m.P_static_w, -5, 1e-9);
	assert_non_null(strstr(why, "P_static < 0"));
}

/* Readings every 100 ms of a package zone at 20 W and a dram zone at 10 W, cumulative µJ since
 * the first reading of 0 µJ at t_start (pmcollect's, just after RUN_BEGIN): W = ΔµJ / Δns × 1e3. */
static void test_series_constant(void **state)
{
	(void)state;
	const uint64_t t0 = 5000000000ull;
	uint64_t t_ns[5], uj[10];
	struct pma_power_series s;

	for (size_t k = 0; k < 5; k++) {
		t_ns[k] = t0 + (k + 1) * 100000000ull;
		uj[2 * k] = (k + 1) * 2000000ull;     /* 20 W x 0.1 s = 2 J */
		uj[2 * k + 1] = (k + 1) * 1000000ull; /* 10 W x 0.1 s = 1 J */
	}
	assert_int_equal(pma_power_series(t_ns, uj, 5, 2, t0, 1, &s), 0);
	assert_int_equal(s.nzones, 2);
	assert_int_equal(s.n, 5); /* the first interval starts at RUN_BEGIN's zero reading */
	assert_float_equal(s.t0_s[0], 0, 1e-12);
	assert_float_equal(s.t1_s[0], 0.1, 1e-12);
	assert_float_equal(s.t1_s[4], 0.5, 1e-12);
	for (size_t k = 0; k < 5; k++) {
		assert_float_equal(s.w[0 * s.n + k], 20, 1e-9);
		assert_float_equal(s.w[1 * s.n + k], 10, 1e-9);
	}
	assert_float_equal(s.mean_w[0], 20, 1e-9);
	assert_float_equal(s.mean_w[1], 10, 1e-9);
	assert_float_equal(s.max_w, 20, 1e-9);
	pma_power_series_free(&s);

	/* without the zero reading (no RUN_BEGIN): the first record only starts the first interval */
	assert_int_equal(pma_power_series(t_ns, uj, 5, 2, t_ns[0], 0, &s), 0);
	assert_int_equal(s.n, 4);
	assert_float_equal(s.t0_s[0], 0, 1e-12);
	assert_float_equal(s.t1_s[3], 0.4, 1e-12);
	assert_float_equal(s.w[1 * s.n + 3], 10, 1e-9);
	assert_float_equal(s.mean_w[0], 20, 1e-9);
	pma_power_series_free(&s);
}

/* Uneven readings and a change of power: 20 W for 0.2 s (two readings), then 40 W for 0.2 s in one
 * reading 0.2 s later (a late reading); a repeated time is skipped. Mean 30 W, time-weighted. */
static void test_series_steps(void **state)
{
	(void)state;
	const uint64_t t_ns[] = { 100000000, 200000000, 200000000, 400000000 };
	const uint64_t uj[] = { 2000000, 4000000, 4000000, 12000000 };
	struct pma_power_series s;

	assert_int_equal(pma_power_series(t_ns, uj, 4, 1, 0, 1, &s), 0);
	assert_int_equal(s.n, 3);
	assert_float_equal(s.w[0], 20, 1e-9);
	assert_float_equal(s.w[1], 20, 1e-9);
	assert_float_equal(s.w[2], 40, 1e-9);
	assert_float_equal(s.t0_s[2], 0.2, 1e-12);
	assert_float_equal(s.t1_s[2], 0.4, 1e-12);
	assert_float_equal(s.mean_w[0], 30, 1e-9);
	assert_float_equal(s.max_w, 40, 1e-9);
	pma_power_series_free(&s);
}

/* ENERGY values are cumulative and already wrap-corrected (pmcollect adds max_energy_range_uj at
 * each wrap, FORMAT.md §5.8): across package-0's wrap at 262,143,328,850 µJ the series keeps
 * counting up in 64 bits, and the power stays 100 W. A value that goes down (a hand-made or
 * corrupt trace) has no power for that interval (NAN), and the mean leaves it out. */
static void test_series_wrap_and_decrease(void **state)
{
	const uint64_t max_uj = 262143328850ull;
	/* the raw counter: max - 25 J at the zero reading (t = 0), then every 0.1 s max - 15 J,
	 * max - 5 J, 5 J after the wrap, 15 J: 10 J per 0.1 s */
	const uint64_t raw[] = { max_uj - 25000000, max_uj - 15000000, max_uj - 5000000, 5000000,
				 15000000 };
	uint64_t t_ns[4], uj[4];
	struct pma_power_series s;

	(void)state;
	for (size_t k = 0; k < 4; k++) {
		/* what pmcollect records: d = e1 >= e0 ? e1 - e0 : e1 + max - e0, summed */
		uint64_t e0 = raw[k], e1 = raw[k + 1], d = e1 >= e0 ? e1 - e0 : e1 + max_uj - e0;
		t_ns[k] = (k + 1) * 100000000ull;
		uj[k] = (k ? uj[k - 1] : 0) + d;
	}
	/* readings: 10 J at 0.1 s, 20 J at 0.2 s, 30 J at 0.3 s (across the wrap), 40 J at 0.4 s */
	assert_int_equal(uj[2], 30000000);
	assert_int_equal(pma_power_series(t_ns, uj, 4, 1, 0, 1, &s), 0);
	assert_int_equal(s.n, 4);
	for (size_t k = 0; k < 4; k++)
		assert_float_equal(s.w[k], 100, 1e-9);
	pma_power_series_free(&s);

	/* the third reading goes down: its interval is NAN, the next counts from it again */
	uj[2] = 15000000;
	assert_int_equal(pma_power_series(t_ns, uj, 4, 1, 0, 1, &s), 0);
	assert_true(isnan(s.w[2]));
	assert_float_equal(s.w[3], 250, 1e-9); /* 25 J in 0.1 s */
	assert_float_equal(s.mean_w[0], (10 + 10 + 25) / 0.3, 1e-9);
	pma_power_series_free(&s);

	/* fewer than two readings without a zero reading: no interval; no zone: an error */
	assert_int_equal(pma_power_series(t_ns, uj, 1, 1, t_ns[0], 0, &s), 0);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean_w[0]));
	pma_power_series_free(&s);
	assert_int_equal(pma_power_series(t_ns, uj, 4, 0, 0, 1, &s), -1);
	pma_power_series_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_total),
		cmocka_unit_test(test_fit_zones),
		cmocka_unit_test(test_fit_busy_cores),
		cmocka_unit_test(test_energy_optimum),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_unphysical),
		cmocka_unit_test(test_series_constant),
		cmocka_unit_test(test_series_steps),
		cmocka_unit_test(test_series_wrap_and_decrease),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
