/* SPDX-License-Identifier: MIT */
/* model.h: Tudor & Teo's speedup model over a parallelism profile: A(m,inf), T_cp, D(m), A(m,n),
 * T(n), S(m,n), R(m,n) (eq. 1-6). Pure computation over plain structs: no I/O. */
#ifndef PMA_MODEL_H
#define PMA_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Streaming accumulator of a parallelism profile. The profile is a sequence of pieces, each with
 * A(m,inf,t) active threads for a critical-path time dT_cp (Tudor & Teo, §II-B). Pieces are kept
 * in bins k = ceil(A(m,inf,t)), which is enough to evaluate eq. 6 exactly for every integer n
 * afterwards: a piece with A <= n takes dT_cp on n cores, one with A > n takes dT_cp A / n.
 * Memory is O(largest A), independent of the number of pieces. */
/* The profile along the critical-path time axis, for plots: PMA_SERIES_BUCKETS buckets of equal
 * critical-path width, each with sum A dT_cp and sum dT_cp of the pieces (split at bucket edges).
 * When a piece would pass the last bucket, neighbouring buckets merge pairwise and the width
 * doubles, so memory stays fixed and a 10-minute profile still has about 256..512 buckets. */
#define PMA_SERIES_BUCKETS 512
struct pma_series {
	double width_ns;                         /* critical-path time per bucket, 0 before the first piece */
	size_t n;                                /* buckets used (the last may be partial) */
	double AdT_ns[PMA_SERIES_BUCKETS];       /* sum A(m,inf,t) dT_cp in the bucket */
	double dT_ns[PMA_SERIES_BUCKETS];        /* sum dT_cp in the bucket */
};

struct pma_profile {
	size_t nbins;
	double *bin_dT_ns;        /* bin k: sum of dT_cp of pieces with ceil(A) == k */
	double *bin_AdT_ns;       /* bin k: sum of A dT_cp of those pieces */
	double T_cp_ns;           /* sum of dT_cp (eq. 4 denominator) */
	double work_ns;           /* sum of A(m,inf,t) dT_cp = total service time U */
	double idle_ns;           /* wall time with no active thread (not part of T_cp) */
	uint64_t pieces;
	struct pma_series *series; /* A(m,inf,t) over T_cp for plots; NULL when memory ran out */
};
#define PMA_MAX_PARALLELISM 1000000.0 /* a piece claiming more active threads is refused */

/* Initializes an empty profile. */
void pma_profile_init(struct pma_profile *p);
void pma_profile_free(struct pma_profile *p);

/* Adds one piece of the profile, in critical-path time order (the series assumes it): A_t = A(m,inf,t) >= 0 active threads during dT_cp_ns of critical
 * path time. A piece with A_t == 0 is idle time: it adds dT_cp_ns to idle_ns only.
 * Returns 0, or -1 when A_t > PMA_MAX_PARALLELISM or memory runs out. */
int pma_profile_add(struct pma_profile *p, double A_t, double dT_cp_ns);

/* Headline numbers of a profile. */
struct pma_parallelism {
	double A_inf;     /* A(m,inf) = sum A dT_cp / T_cp (eq. 4); 0 when T_cp is 0 */
	double D;         /* D(m) = m - A(m,inf) (eq. 2, eq. 5) */
	double T_cp_ns;   /* critical-path time */
	double work_ns;   /* U = T(1) without idle time */
};
void pma_profile_parallelism(const struct pma_profile *p, double m, struct pma_parallelism *out);

/* One prediction for n cores. */
struct pma_prediction {
	uint32_t cores;   /* n */
	double A;         /* A(m,n) (eq. 6) */
	double omega;     /* omega(n) used (memory contention, eq. 7); 0 when unknown */
	double S;         /* S(m,n) = A(m,n) / (1 + omega(n)) (eq. 1) */
	double R;         /* R(m,n) = A(m,n) omega(n) / (1 + omega(n)) (eq. 3) */
	double T_ns;      /* predicted time T(n) = (U + M(n)) / A(m,n) = T(1) / S, plus idle time */
};

/* Fills out[i] for n = cores[i] (>= 1) given omega[i] (NULL = all 0): on n cores a piece takes
 * dT(n) = dT_cp A / min(n, A) with A(m,n,t) = min(n, A) active threads (Tudor & Teo, §II-B, the
 * equations before eq. 6), A(m,n) = sum A(m,n,t) dT(n) / sum dT(n) (eq. 6). Returns 0, or -1 when
 * an omega <= -1 (eq. 1 requires 1 + omega > 0) or a core count is 0. */
int pma_profile_predict(const struct pma_profile *p, const uint32_t *cores, size_t ncores,
			const double *omega, struct pma_prediction *out);

/* T_cp time spent at each level k = ceil(A(m,inf,t)), k = 1..nbins-1 (the concurrency histogram):
 * returns bin_dT_ns[k], 0 outside the range. */
double pma_profile_level_ns(const struct pma_profile *p, size_t k);

/* eq. 1 and eq. 3 on their own, for callers with A(m,n) from elsewhere. */
double pma_speedup(double A_mn, double omega);
double pma_speedup_loss(double A_mn, double omega);

#endif
