/* SPDX-License-Identifier: MIT */
/* allande.h: the thread count and per-socket placement of each parallel region, estimated from
 * single-socket runs (Allande, Jorba, Sikora, César, §3, eq. 2-9). Pure computation: no I/O. */
#ifndef PMA_ALLANDE_H
#define PMA_ALLANDE_H

#include <stddef.h>
#include <stdint.h>

/* Largest NC (cores per socket) the factor arrays hold. */
#define PMA_ALLANDE_MAX_NC 256

/* The two overhead bounds of eq. 8: serialized memory access across sockets (SUM of the sockets'
 * overheads, worst case) and fully parallel access (MAX of them, best case). */
enum pma_allande_bound {
	PMA_ALLANDE_SUM = 0,
	PMA_ALLANDE_MAX = 1,
};

/* The characterization of one region from NC runs on one socket, the i-th with threads 0..i-1
 * (Allande et al. §3.1, Table 1). Index i of every array is the run with i threads (i = 1..NC);
 * index 0 is unused. */
struct pma_allande_factors {
	uint32_t NC;
	int time_only;          /* 1: no LLC counts; cf, beta and TCM are NAN and the overhead is
				   estimated from time alone (see pma_allande_estimate) */
	double T_ns[PMA_ALLANDE_MAX_NC + 1];      /* mmTime_i, measured */
	double TCM[PMA_ALLANDE_MAX_NC + 1];       /* TCM_i, measured LLC misses (NAN: time-only) */
	double idealTime_ns[PMA_ALLANDE_MAX_NC + 1]; /* T_1 / i */
	double cf[PMA_ALLANDE_MAX_NC + 1];        /* cf_i = TCM_i / TCM_1 (eq. 2) */
	double beta_ns[PMA_ALLANDE_MAX_NC + 1];   /* beta_i = (mmTime_i - idealTime_i) / TCM_i (eq. 4),
						     ns per miss */
};

/* Computes cf_i (eq. 2) and beta_i (eq. 4) of one region. T_ns[NC]: the region's measured time with
 * 1..NC threads on one socket (T_ns[0] is the 1-thread run), ns, all > 0. TCM[NC]: its total LLC
 * misses in the same runs, all > 0, or NULL for the time-only variant (machines without LLC
 * counters, such as the project's VMs: f->time_only is set and cf, beta, TCM are NAN).
 * Note: eq. 4 as printed gives beta in time per miss; the beta column of the paper's Table 3 is
 * that value divided by the 77 ns memory latency of Table 2 (a worst-case latency per miss as the
 * unit). The time estimates are the same either way; we keep ns per miss.
 * Returns 0, or -1 with a one-line reason in why: NC outside 1..PMA_ALLANDE_MAX_NC, a T or TCM
 * that is not > 0. */
int pma_allande_factors(const double *T_ns, const double *TCM, uint32_t NC,
			struct pma_allande_factors *f, char *why, size_t whysize);

/* The estimate for one affinity configuration AFF (eq. 5). */
struct pma_allande_est {
	uint32_t NT;             /* NT(AFF) = sum of aff_s */
	double estTCM;           /* sum over sockets of estTCM(AFF, aff_s) (eq. 6), the paper's
				    "ECTCM"; NAN when time-only */
	double idealTime_ns;     /* T_1 / NT(AFF) */
	double TOvhd_sum_ns;     /* sum over sockets of TOvhd(AFF, aff_s) (eq. 9) */
	double TOvhd_max_ns;     /* max over sockets */
	double estTime_sum_ns;   /* eq. 7 with the SUM bound (eq. 8) */
	double estTime_max_ns;   /* eq. 7 with the MAX bound */
};

/* Estimates the region's time for AFF = aff[NS] (threads per socket, each 0..f->NC, not all 0):
 *   estTCM(AFF, aff_s)  = TCM_1 / NT(AFF) * aff_s * cf_{aff_s}                       (eq. 6)
 *   idealTCM_{aff_s}    = TCM_1 / NT(AFF) * aff_s
 *   TOvhd(AFF, aff_s)   = (estTCM(AFF, aff_s) - idealTCM_{aff_s}) * beta_{aff_s}     (eq. 9)
 *   estTime(AFF)        = TOvhd(AFF) + idealTime(AFF), TOvhd = SUM or MAX over s     (eq. 7, 8)
 * Time-only variant (flagged by f->time_only): eq. 9 equals
 *   aff_s / NT * (mmTime_a - idealTime_a) * (1 - 1/cf_a),  a = aff_s;
 * without counters cf_a is unknown and the factor (1 - 1/cf_a) is taken as 1: the socket's whole
 * single-socket excess time, scaled by its share of the work. For cf_a >= 1 this bounds the
 * counted estimate from above, and a one-socket AFF = {a, 0, ...} reproduces the measured T_a.
 * Returns 0, or -1 when NS is 0, an aff_s > NC or every aff_s is 0. */
int pma_allande_estimate(const struct pma_allande_factors *f, const uint32_t *aff, uint32_t NS,
			 struct pma_allande_est *out);

/* The configuration choice for a program of R regions on NS sockets of NC cores. */
struct pma_allande_plan {
	uint32_t NS, NC;
	enum pma_allande_bound bound;
	size_t nconf;            /* binomial(NC + NS, NS) - 1 (Allande et al. §3.1.2) */
	uint32_t *aff;           /* [nconf][NS], row-major, each row non-increasing (eq. 5) */
	size_t R;
	double *estTime_ns;      /* [R][nconf]: eq. 7 with the plan's bound */
	size_t *best;            /* [R]: per region, the configuration of least estimated time
				    (ties: the one with fewer threads, then the earlier row) */
	size_t best_single;      /* the one configuration of least total time over all regions */
	double per_region_total_ns; /* sum over regions of their best estTime */
	double single_total_ns;  /* sum over regions of estTime at best_single */
	double gain_ns;          /* single_total_ns - per_region_total_ns (>= 0): what choosing per
				    region saves over the best single setting */
	int time_only;           /* some region had no LLC counts */
};

/* Estimates every configuration of eq. 5 for each of the R regions (factors[R], all with the same
 * NC) under `bound`, and chooses the best per region and the best single configuration for the
 * whole program (Allande et al. §4.3, Table 6: per-region selection). The plan owns its arrays;
 * release them with pma_allande_plan_free. Returns 0, or -1 with a reason in why: R or NS is 0,
 * the regions' NC differ, out of memory. */
int pma_allande_plan(const struct pma_allande_factors *factors, size_t R, uint32_t NS,
		     enum pma_allande_bound bound, struct pma_allande_plan *out, char *why,
		     size_t whysize);

/* Frees a plan's arrays (accepts NULL and a plan that failed). */
void pma_allande_plan_free(struct pma_allande_plan *p);

#endif
