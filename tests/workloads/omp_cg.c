// SPDX-License-Identifier: MIT
// Test workload: the shape of NPB CG: conjugate gradient over a sparse matrix, OpenMP.

/*
 * Usage: omp_cg [N [ITERS]]   [150000 60]
 *
 * An N x N symmetric positive definite sparse matrix in CSR form (the diagonal 16, and 14
 * off-diagonal entries -0.5 per row at pseudo-random columns, mirrored, so rows hold about 28):
 * ITERS conjugate gradient iterations on A x = 1, each a sparse matrix-vector product (irregular
 * reads of p, memory bound like NPB CG's), two dot products (reductions) and three vector updates,
 * each a `#pragma omp for schedule(static)` ending in a barrier (about 6 per iteration).
 * No schedule truth: the rows are balanced, so what S(m,n) loses is the barriers' wake-ups and
 * the memory bandwidth the threads share. The last line of stdout is {"workload":"omp_cg", ...}
 * with the residual norm (the same at any thread or CPU count, up to rounding).
 */

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PROG "omp_cg"
#include "workload.h"

#define OFFDIAG 14

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [N [ITERS]]   (rows [150000], CG iterations [60])\n");
}

/* The CSR matrix: row r's entries col[rowptr[r] .. rowptr[r + 1]), values val[]. Built
 * serially from a fixed seed (xorshift), so every run solves the same system. */
struct csr {
	long n;
	long *rowptr;
	int *col;
	double *val;
};

static int build(struct csr *a, long n)
{
	long *deg = calloc((size_t)n + 1, sizeof(*deg));
	int *pairs = malloc((size_t)n * OFFDIAG * sizeof(*pairs));
	uint64_t x = 88172645463325252ull;

	if (!deg || !pairs)
		return -1;
	for (long r = 0; r < n; r++)
		for (int k = 0; k < OFFDIAG; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			long c = (long)(x % (uint64_t)n);
			pairs[r * OFFDIAG + k] = (int)(c == r ? (r + 1) % n : c);
			deg[r]++, deg[pairs[r * OFFDIAG + k]]++;
		}
	a->n = n;
	a->rowptr = malloc(((size_t)n + 1) * sizeof(*a->rowptr));
	a->col = malloc(((size_t)n * (2 * OFFDIAG + 1)) * sizeof(*a->col));
	a->val = malloc(((size_t)n * (2 * OFFDIAG + 1)) * sizeof(*a->val));
	if (!a->rowptr || !a->col || !a->val)
		return -1;
	a->rowptr[0] = 0;
	for (long r = 0; r < n; r++)
		a->rowptr[r + 1] = a->rowptr[r] + deg[r] + 1;
	for (long r = 0; r < n; r++) { /* deg[r] becomes the next free slot */
		a->col[a->rowptr[r]] = (int)r, a->val[a->rowptr[r]] = 16.0;
		deg[r] = a->rowptr[r] + 1;
	}
	for (long r = 0; r < n; r++)
		for (int k = 0; k < OFFDIAG; k++) {
			long c = pairs[r * OFFDIAG + k];
			a->col[deg[r]] = (int)c, a->val[deg[r]++] = -0.5;
			a->col[deg[c]] = (int)r, a->val[deg[c]++] = -0.5;
		}
	free(deg);
	free(pairs);
	return 0;
}

int main(int argc, char **argv)
{
	long n = 150000, iters = 60;
	struct csr a;
	double *xv, *r, *p, *q, rho = 0, pq = 0, rr = 0;
	int64_t t0;

	if (argc > 3 || (argc > 1 && parse_long(argv[1], 100, 10000000, &n)))
		return usage_error("invalid N", argc > 1 ? argv[1] : "");
	if (argc > 2 && parse_long(argv[2], 1, 1000000, &iters))
		return usage_error("invalid ITERS", argv[2]);
	xv = calloc((size_t)n, sizeof(*xv));
	r = malloc((size_t)n * sizeof(*r));
	p = malloc((size_t)n * sizeof(*p));
	q = malloc((size_t)n * sizeof(*q));
	if (!xv || !r || !p || !q || build(&a, n) < 0) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	t0 = mono_ns();
#pragma omp parallel
	{
#pragma omp for schedule(static) reduction(+:rho)
		for (long i = 0; i < n; i++) {
			r[i] = p[i] = 1.0;
			rho += 1.0;
		}
		for (long it = 0; it < iters; it++) {
#pragma omp single
			pq = 0;
#pragma omp for schedule(static) reduction(+:pq)
			for (long i = 0; i < n; i++) { /* q = A p, pq = p.q */
				double s = 0;
				for (long k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
					s += a.val[k] * p[a.col[k]];
				q[i] = s;
				pq += p[i] * s;
			}
			double alpha = rho / pq;
#pragma omp single
			rr = 0;
#pragma omp for schedule(static) reduction(+:rr)
			for (long i = 0; i < n; i++) {
				xv[i] += alpha * p[i];
				r[i] -= alpha * q[i];
				rr += r[i] * r[i];
			}
			double beta = rr / rho;
#pragma omp for schedule(static)
			for (long i = 0; i < n; i++)
				p[i] = r[i] + beta * p[i];
#pragma omp single
			rho = rr;
		}
	}
	printf("{\"workload\":\"omp_cg\",\"m\":%d,\"n\":%ld,\"nnz\":%ld,\"iters\":%ld,"
	       "\"residual\":%.6e,\"wall_ms\":%.3f,\"program\":\"" PROG "\"}\n",
	       omp_get_max_threads(), n, a.rowptr[n], iters, sqrt(rho),
	       (double)(mono_ns() - t0) / 1e6);
	return 0;
}
