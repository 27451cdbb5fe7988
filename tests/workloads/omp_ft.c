// SPDX-License-Identifier: MIT
// Test workload: the shape of NPB FT: 2-D FFTs by rows with transposes (all-to-all memory), OpenMP.

/*
 * Usage: omp_ft [LOG2N [ITERS]]   [10 4]
 *
 * An N x N complex array (N = 2^LOG2N, 16 N^2 bytes: 16 MiB at 10): ITERS times a forward 2-D
 * FFT (radix-2 FFTs of the rows, a transpose, the rows again, a transpose back), a pointwise
 * evolution by exp(-k^2 t) as NPB FT's, and the inverse. Each phase is a `#pragma omp for
 * schedule(static)` over rows ending in a barrier; a transpose reads every other thread's rows,
 * so the memory traffic is all-to-all, like NPB FT's. No schedule truth (balanced rows); the last
 * line of stdout is {"workload":"omp_ft", ...} with a checksum (the same at any thread or CPU
 * count, up to rounding).
 */

#include <complex.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PROG "omp_ft"
#include "workload.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [LOG2N [ITERS]]   (log2 of the side [10], iterations [4])\n");
}

/* In-place radix-2 FFT of x[0 .. n) (n = 2^lg), sign -1 forward, +1 inverse (unscaled). */
static void fft(double complex *x, int lg, int sign)
{
	long n = 1L << lg;

	for (long i = 1, j = 0; i < n; i++) { /* bit reversal */
		long bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double complex t = x[i];
			x[i] = x[j], x[j] = t;
		}
	}
	for (long len = 2; len <= n; len <<= 1) {
		double complex wl = cexp(sign * 2 * M_PI * I / (double)len);
		for (long i = 0; i < n; i += len) {
			double complex w = 1;
			for (long k = 0; k < len / 2; k++, w *= wl) {
				double complex u = x[i + k], v = x[i + k + len / 2] * w;
				x[i + k] = u + v, x[i + k + len / 2] = u - v;
			}
		}
	}
}

/* Rows of a by FFT, then b = a transposed: one pass of the 2-D transform (inside a team). */
static void rows_then_transpose(double complex *a, double complex *b, int lg, int sign)
{
	long n = 1L << lg;

#pragma omp for schedule(static)
	for (long r = 0; r < n; r++)
		fft(a + r * n, lg, sign);
#pragma omp for schedule(static)
	for (long r = 0; r < n; r++)
		for (long c = 0; c < n; c++)
			b[r * n + c] = a[c * n + r];
}

int main(int argc, char **argv)
{
	long lg = 10, iters = 4, n;
	double complex *a, *b;
	double sum = 0;
	int64_t t0;

	if (argc > 3 || (argc > 1 && parse_long(argv[1], 2, 14, &lg)))
		return usage_error("invalid LOG2N", argc > 1 ? argv[1] : "");
	if (argc > 2 && parse_long(argv[2], 1, 100000, &iters))
		return usage_error("invalid ITERS", argv[2]);
	n = 1L << lg;
	a = malloc((size_t)(n * n) * sizeof(*a));
	b = malloc((size_t)(n * n) * sizeof(*b));
	if (!a || !b) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	t0 = mono_ns();
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (long i = 0; i < n * n; i++)
			a[i] = sin((double)i * 1e-3) + I * cos((double)i * 7e-4);
		for (long it = 0; it < iters; it++) {
			rows_then_transpose(a, b, (int)lg, -1);
			rows_then_transpose(b, a, (int)lg, -1);
#pragma omp for schedule(static)
			for (long r = 0; r < n; r++) /* evolve: exp(-k^2 t), k the wave numbers */
				for (long c = 0; c < n; c++) {
					long kr = r < n / 2 ? r : r - n, kc = c < n / 2 ? c : c - n;
					a[r * n + c] *= exp(-1e-6 * (double)(kr * kr + kc * kc)) /
							(double)(n * n);
				}
			rows_then_transpose(a, b, (int)lg, 1);
			rows_then_transpose(b, a, (int)lg, 1);
		}
#pragma omp for schedule(static) reduction(+:sum)
		for (long i = 0; i < n * n; i++)
			sum += creal(a[i]) + cimag(a[i]);
	}
	printf("{\"workload\":\"omp_ft\",\"m\":%d,\"n\":%ld,\"iters\":%ld,\"checksum\":%.6e,"
	       "\"wall_ms\":%.3f,\"program\":\"" PROG "\"}\n",
	       omp_get_max_threads(), n, iters, sum, (double)(mono_ns() - t0) / 1e6);
	return 0;
}
