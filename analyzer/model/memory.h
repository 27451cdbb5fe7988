/* SPDX-License-Identifier: MIT */
/* memory.h: memory contention omega(n) from cycle counts (Tudor & Teo, eq. 7-10), the optimal core
 * count (eq. 11) and per-socket thread placement (Allande et al.). Pure computation: no I/O. */
#ifndef PMA_MEMORY_H
#define PMA_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Which of the paper's models a fit or a prediction uses. */
enum pma_mem_model {
	PMA_MEM_NONE = 0,   /* no usable calibration: omega unknown */
	PMA_MEM_SINGLE,     /* one socket: M/M/1, eq. 8 */
	PMA_MEM_UMA,        /* several sockets, one memory controller: eq. 9 (Delta C) */
	PMA_MEM_NUMA,       /* several sockets, one controller each: eq. 10 (delta) */
};

/* Memory policies (Tudor & Teo §III-A-3; numactl --localalloc / --interleave=all). */
enum pma_mem_policy {
	PMA_POL_LOCAL = 0,          /* each socket's threads use their own node (first touch) */
	PMA_POL_INTERLEAVE,         /* pages round robin over every node */
	PMA_POL_LOCAL_THEN_REMOTE,  /* node of the first socket; other sockets reach it remotely */
};

const char *pma_mem_model_name(enum pma_mem_model m);   /* "none", "single-socket", "uma", "numa" */
const char *pma_mem_policy_name(enum pma_mem_policy p); /* "local", "interleave", "local-then-remote" */
/* Returns the policy for a name, or -1. */
int pma_mem_policy_parse(const char *name);

/* One calibration run: the program on `cores` CPUs, `n_first` of them on the most used socket,
 * took C cycles in total (or ns of CPU time, the proxy; the unit is the caller's, the same for
 * every point), with r last-level cache misses (NAN unknown). */
struct pma_mem_point {
	uint32_t cores;
	uint32_t n_first;
	double C;
	double r;
	double C_se;        /* standard error of C (same unit): the spread of repeated runs over
			       sqrt(K); 0 = unknown (one run), then PMA_MEM_C_REL_SD C is assumed */
};

/* A single run's relative standard deviation of C(n) when no repetition measures it: on the
 * shared VMs the CPU time of identical 1-CPU runs of NPB CG varied by +-15% (FIELD-NOTES), so one
 * run is taken to be known to 10% (1 sigma). Only the uncertainty uses it, never omega. */
#define PMA_MEM_C_REL_SD 0.10

/* A fitted memory model. Symbols of Tudor & Teo §II-B. */
struct pma_mem_params {
	enum pma_mem_model model;
	uint32_t c;         /* cores per socket of the calibration machine */
	double C1;          /* C(1), measured */
	/* eq. 8 as a line: 1/C(n) = alpha - beta n, with alpha = mu/r and beta = L/r */
	double alpha, beta;
	double r;           /* LLC misses (mean over the points that have them), NAN unknown */
	double mu, L;       /* service rate and per-core arrival rate: alpha r and beta r when r is
			       known (requests per unit of C), else alpha and beta (per miss) */
	double n_sat;       /* mu / L: the core count at which mu = nL (saturation); INFINITY
			       when L <= 0 */
	double dC;          /* Delta C of eq. 9 (units of C), NAN when not calibrated */
	double r_delta;     /* r delta of eq. 10 (units of C per remote core), NAN when not
			       calibrated */
	uint32_t socket_points, cross_points; /* points behind the two parts of the fit */
	uint32_t cross_skipped; /* points beyond one socket left out of the cross term: a socket of
				   theirs at or past saturation (omega_s infinite) */
	/* the fit's uncertainty (docs/memory-model.md): the covariance of the least-squares (alpha, beta) of
	 * eq. 8, (X'X)^-1 X' V X (X'X)^-1 with V the variances of the points' 1/C(n) (C_se / C^2,
	 * or the residual variance when the points scatter more than their spreads say); and the
	 * standard errors of Delta C and r delta from their points' C_se (NAN when not
	 * calibrated) */
	double cov_aa, cov_ab, cov_bb;
	double dC_err, r_delta_err;
};

/* omega(n) = C(n) / C(1) - 1 (eq. 7). C1 > 0. */
double pma_mem_omega_measured(double C_n, double C1);

/* Fits the model to calibration points (any order; several points with the same core count are
 * averaged first). Needs a point with cores == 1 and at least one other point on one socket
 * (n_first == cores <= c): alpha and beta are the least-squares line through (n, 1/C(n)) of the
 * one-socket points (Tudor & Teo: "regressed using eq. 8 and at least two points of 1/C(n)"); with
 * two points the line passes through both. Points with cores > n_first calibrate the second
 * socket's term: for model PMA_MEM_UMA, Delta C = mean of C(1) (omega(n) - omega_s(n_1) -
 * omega_s(n - n_1)) (eq. 9; with n = c + 1 this is C(c+1) - C(c), the paper's definition); for
 * PMA_MEM_NUMA, r delta is the least-squares slope through the origin of C(1) (omega(n) -
 * omega_s(n_1)) against n - n_1 (eq. 10; with n = c + 1 it is C(c+1) - C(c)); a point whose
 * socket is at or past the fitted saturation (omega_s infinite) is left out of that term and
 * counted in cross_skipped. model is the
 * calibration machine's (PMA_MEM_SINGLE when it has one socket). Returns 0, or -1 with a one-line
 * reason in why: no point at 1 core, fewer than two core counts on one socket, a C <= 0. */
int pma_mem_fit(const struct pma_mem_point *pts, size_t npts, uint32_t c, enum pma_mem_model model,
		struct pma_mem_params *out, char *why, size_t whysize);

/* omega_s(k) = C_s(k) / C_s(1) - 1 for k cores on one socket, C_s(k) = 1 / (alpha - beta k)
 * (eq. 8 with eq. 7). k may be fractional (interleave). Returns INFINITY when the socket is
 * saturated (alpha - beta k <= 0, i.e. mu <= kL). */
double pma_mem_omega_socket(const struct pma_mem_params *p, double k);

/* The prediction for one placement. */
struct pma_mem_omega {
	double omega;       /* omega(n) (eq. 7 through eq. 8-10); INFINITY when saturated */
	double cross;       /* the part of omega that comes from the second socket's term (Delta C,
			       delta); 0 on one socket; NAN when needed but not calibrated (omega
			       then leaves it out and is a lower bound) */
	uint32_t saturated_socket; /* 1-based socket whose load reached mu <= kL, 0 none */
	double omega_err;   /* standard error of omega: the fit's covariance propagated through
			       eq. 8-10 (delta method) plus the cross term's; NAN when omega is not
			       finite. Grows with every busy core added (k - 1 >= 0 per socket) */
};

/* omega for per_socket[0..nsockets-1] busy threads per socket (per_socket[0] is the socket the
 * memory starts on; idle cores are not counted: Tudor & Teo, "when only c cores from the total of
 * n are active ... we consider them not to contend for memory") on a target with numa_nodes
 * memory nodes, under policy pol:
 *   one active socket: omega_s(n_1) (eq. 8).
 *   numa_nodes == 1 (UMA, eq. 9): sum over active sockets of omega_s(n_s) + (k - 1) Delta C / C(1),
 *     k active sockets (the paper's two-socket eq. 9 read on contention cycles M = C - C(1), so
 *     that C(c+1) is reproduced; one Delta C per extra socket is our extension). Policy ignored.
 *   NUMA, local-then-remote (eq. 10): omega_s(n_1) + r delta (n - n_1) / C(1); the cross term is
 *     0, not unknown, when every thread is on the first socket (n = n_1).
 *   NUMA, local: sum of omega_s(n_s), no remote term (each socket its own controller).
 *   NUMA, interleave (our extension): each of the N controllers serves n/N cores' requests and
 *     (N - 1)/N of them are remote: C_s(n/N) / C_s(1/N) - 1 + r delta (n - 1) (N - 1) / N / C(1),
 *     which is 0 at n = 1 (eq. 7 with C(1) under the same policy; its cross term 0, known) and
 *     grows with n.
 * Delta C and r delta below 0 (noise of the calibration: a second socket cannot make memory
 * faster) count as 0, so omega never falls as busy cores are added. out->omega_err from the
 * fit's covariance (see struct pma_mem_params).
 * Returns 0, or -1 when p has no model or nsockets is 0. */
int pma_mem_predict(const struct pma_mem_params *p, const uint32_t *per_socket, uint32_t nsockets,
		    uint32_t numa_nodes, enum pma_mem_policy pol, struct pma_mem_omega *out);

/* ---- optimal core count (Tudor & Teo, eq. 11 and §III-B-2) ---- */

#define PMA_OPT_MAX_INTERVALS 16

/* How the optimum was chosen (pma_optimal_in_noise). */
enum pma_opt_rule {
	PMA_OPT_LARGEST = 0,    /* the largest S: no fewer cores come within the noise of it */
	PMA_OPT_WITHIN_REL,     /* the fewest cores whose S is within PMA_OPT_REL of the largest */
	PMA_OPT_WITHIN_ERR,     /* the fewest cores whose S is within the uncertainty of the
				   difference from the largest (larger than PMA_OPT_REL of it) */
};

/* A gain in S below this share of the largest S does not pay for more cores. */
#define PMA_OPT_REL 0.01

struct pma_optimal {
	uint32_t n_best;     /* the optimum: n maximizing S (the smallest such n), then, after
				pma_optimal_in_noise, the fewest cores within the noise of it; 0
				when no finite S */
	double S_best;       /* S at n_best */
	uint32_t n_max;      /* n maximizing S (the smallest such n) */
	double S_max;        /* S at n_max */
	double gap_err;      /* uncertainty of S_max - S_best (0 when n_best = n_max) */
	enum pma_opt_rule rule;
	uint32_t n_95;       /* smallest n with S >= 0.95 S_best */
	size_t nintervals;   /* maximal intervals [lo, hi] of n over which S increases */
	uint32_t interval[PMA_OPT_MAX_INTERVALS][2];
};

/* From S(m, n[i]) for increasing n[0..k-1] (non-finite S = saturated, skipped): the finite
 * differences (S[i+1] - S[i]) / (n[i+1] - n[i]) give the intervals where S increases (eq. 11 by
 * numerical differentiation; a rise of less than 1e-9 S counts as flat); the optimum is the upper
 * end n_max,j of the interval with the largest S, which is the argmax of S (ties: the smaller n),
 * and n_95 what a user paying per core wants. Returns 0, or -1 when no S is finite. */
int pma_optimal_cores(const uint32_t *n, const double *S, size_t k, struct pma_optimal *out);

/* The optimum a user can act on: the smallest n[i] < out->n_max with a finite S[i] within
 * max(rel S_max, gap_err[i]) of S_max, where gap_err[i] is the uncertainty of S_max - S[i] (NAN
 * or 0: none); it becomes out->n_best with its S, gap_err and rule. A gain inside the noise (zstd
 * -T8: S(8) = 6.1985, S(10) = 6.2014) does not make n_max the answer. out comes from
 * pma_optimal_cores over the same n and S; unchanged when out->n_best is 0. */
void pma_optimal_in_noise(const uint32_t *n, const double *S, const double *gap_err, size_t k,
			  double rel, struct pma_optimal *out);

/* ---- placement (Allande et al., §3.1.1 and §4) ---- */

/* Per-socket thread counts of `threads` threads on `sockets` sockets of c cores each, handed out
 * round robin in chunks of `chunk` threads, skipping full sockets (Allande et al.'s AFF_chunk;
 * chunk 1 = scatter, chunk >= c = compact, AFF0, fill a socket first). per_socket[sockets] is
 * written. Returns 0, or -1 when threads > sockets c or an argument is 0. */
int pma_place(uint32_t sockets, uint32_t c, uint32_t threads, uint32_t chunk, uint32_t *per_socket);

/* Enumerates the distinct affinity vectors AFF of Allande et al. (eq. 5): per-socket counts in
 * 0..c, sockets interchangeable (written non-increasing), not all zero. There are
 * binomial(c + sockets, sockets) - 1 of them (27 for 2 x 6, 1000 for 4 x 10). Writes up to max
 * vectors of `sockets` counts each to out (row-major; out may be NULL) and returns how many exist. */
size_t pma_place_enumerate(uint32_t sockets, uint32_t c, uint32_t *out, size_t max);

#endif
