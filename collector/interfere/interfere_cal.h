/* SPDX-License-Identifier: MIT */
/* interfere_cal.h: calibration of the machine for active interference (Casas & Bronevetsky §3):
 * BW1, B, the shared-cache capacity left with k CSThrs measured by a probe of known footprint, the
 * orthogonality check of Fig. 11, and the machine file that keeps the result. */
#ifndef PMC_INTERFERE_CAL_H
#define PMC_INTERFERE_CAL_H

#include <hwloc.h>
#include <stddef.h>
#include <stdint.h>

#define PMC_CAL_MAX_FOOTPRINTS 16
#define PMC_CAL_MAX_K 15
/* A probe point says something about capacity only when part of its footprint is cached and part
 * is not (the paper's eq. 4 assumes a buffer larger than the cache, §3.2.1): hit rates in
 * [PMC_CAL_H_MIN, PMC_CAL_H_MAX]. Below, C_eff = h·F is the noise of h times a large F. */
#define PMC_CAL_H_MIN 0.10
#define PMC_CAL_H_MAX 0.90

/* How the probe's hit rate was obtained. */
enum pmc_cal_method {
	PMC_CAL_TIMING,   /* capacity: from time per access between an L2- and a DRAM-resident
			   * reference; BW1: eq. 1 with misses = accesses ("accesses" in the file) */
	PMC_CAL_COUNTERS, /* from the thread's own LLC miss counter (PAPI): capacity C_eff =
			   * (1 - miss rate)·F, BW1 = 2·line·misses / time (eq. 1) */
};

struct pmc_cal_point {
	uint64_t F_bytes;     /* the probe's footprint */
	double ns_per_access; /* median over the point's repetitions */
	double miss_rate;     /* counted LLC misses per timed access, median over the repetitions;
			       * NAN when not counted */
	double hit_rate;      /* h in [0, 1]: 1 - miss_rate (counters) or from ns_per_access */
	double C_eff_bytes;   /* h·F: the capacity the probe had (eq. 4 for a uniform pattern) */
};

/* The capacity left with k CSThrs (one row of the capacity-left table). */
struct pmc_cal_capacity {
	uint32_t k;
	double t_l2_ns, t_dram_ns;   /* the references of this level's run, ns per access */
	size_t npoints;
	struct pmc_cal_point points[PMC_CAL_MAX_FOOTPRINTS];
	double C_bytes;              /* pmc_cal_capacity_summary (timing) or
				      * pmc_cal_capacity_from_misses (counters); 0 when !valid */
	int valid;                   /* some point had PMC_CAL_H_MIN <= h <= PMC_CAL_H_MAX */
	int counted;                 /* h from counted LLC misses (every point counted) */
};

/* What to measure and where. Zero fields take the defaults named. */
struct pmc_cal_params {
	int probe_cpu;                 /* the program's CPU during calibration */
	int interferer_cpus[PMC_CAL_MAX_K]; /* interferer j runs on interferer_cpus[j] */
	size_t ninterferers;           /* K: levels k = 0..K */
	size_t csthr_bytes;            /* [PMC_CSTHR_DEFAULT_BYTES] */
	uint64_t F_bytes[PMC_CAL_MAX_FOOTPRINTS]; /* footprints [1, 2, 4, ..., 128 MiB] */
	size_t nF;
	uint64_t l2_ref_bytes;         /* L2-resident reference [256 KiB] */
	uint64_t dram_ref_bytes;       /* DRAM-resident reference [256 MiB] */
	uint64_t accesses;             /* timed probe accesses per point [1 << 20] */
	unsigned probe_reps;           /* repetitions per point, median kept [3] */
	uint64_t bw1_ms;               /* how long BWThr runs for BW1 [1000] */
	uint64_t triad_array_bytes;    /* per array of the triad [32 MiB; pmcollect raises it to
					* the last-level cache's size, pmc_llc_bytes] */
	unsigned triad_reps;           /* best of [60] */
	int counters;                  /* 1: count LLC misses in the probe and the BW1 thread when
					* PAPI can (pmc_counters_threads_init), else time; 0: time
					* only [1] */
	/* called before each step of pmc_cal_run (1-based step of nsteps = K + 4: BW1, B, capacity
	 * with k = 0..K CSThrs, orthogonality), e.g. for a [k/N] line; NULL: none [NULL] */
	void (*progress)(void *arg, unsigned step, unsigned nsteps, const char *what);
	void *progress_arg;
};

/* Who wrote a machine file, and when: pmc_cal_write fills it in (absent from files written
 * before it existed: id[0] == '\0'). The id changes with every calibration, so a trace that
 * copies the file (META "interference") names the calibration it used. */
struct pmc_cal_written {
	char id[40];                  /* "<host>-<pid>-<unix ns>", unique per calibration */
	char user[64];                /* getpwuid(uid)->pw_name, or the uid in decimal */
	long uid;
	char host[128];
	char time_utc[32];            /* ISO 8601, e.g. 2026-11-26T22:30:01Z */
	int64_t time_unix_s;
};

struct pmc_interference_cal {
	char topology[512];           /* pmc_cal_topology_signature of the machine measured */
	struct pmc_cal_written written; /* set by pmc_cal_write, read back by pmc_cal_read */
	enum pmc_cal_method method;   /* capacity: COUNTERS when every row was counted */
	enum pmc_cal_method bw1_method; /* BW1: COUNTERS when the BWThr's misses were counted */
	char counters_why[256];       /* why counters were not used, "" when both used them */
	int probe_cpu;
	int interferer_cpus[PMC_CAL_MAX_K];
	size_t ninterferers;
	uint64_t csthr_bytes;
	double BW1_bytes_per_s;       /* one BWThr's own bytes/s (eq. 1, counted misses or
				       * misses = accesses, bw1_method) */
	double B_bytes_per_s;         /* triad on probe CPU + interferer CPUs */
	size_t ncap;                  /* levels k = 0..ncap-1 */
	struct pmc_cal_capacity cap[PMC_CAL_MAX_K + 1];
	size_t north;                 /* orthogonality: j = 0..north-1 BWThrs */
	double orth_C_bytes[PMC_CAL_MAX_K + 1]; /* capacity with j BWThrs, 0 when not valid */
	int orth_bwthrs;              /* Fig. 11: the most BWThrs leaving capacity unchanged; -1 unknown */
};

/* Fills p with the defaults above for probe_cpu and the K interferer CPUs cpus[0..K-1]. */
void pmc_cal_params_default(struct pmc_cal_params *p, int probe_cpu, const int *cpus, size_t K);

/* Fits p to the machine: each of the triad's three arrays at least the last-level cache above
 * p->probe_cpu (pmc_llc_bytes; up to 1 GiB), so B streams from memory. */
void pmc_cal_params_topology(struct pmc_cal_params *p, hwloc_topology_t topo);

/* BW1 (Casas & Bronevetsky §3.1): runs one BWThr alone on `cpu` for duration_ms and returns its
 * own bytes per second of its CPU time (CPU time, not wall time, so other load on a shared CPU
 * does not lower it): eq. 1, BW = 2·line·misses / time, with the misses the thread counted
 * (PAPI, "computed based on the number of L3 cache misses it incurs") when count_llc is set and
 * they can be counted (*counted = 1), else with misses = accesses (interfere.h; *counted = 0 and,
 * when count_llc was set, the reason in why). Returns 0, or -1 with why. */
int pmc_cal_bw1(int cpu, uint64_t duration_ms, int count_llc, double *BW1_bytes_per_s, int *counted,
		char *why, size_t whysize);

/* Capacity from counted misses (Casas & Bronevetsky §3.2.3, "measuring the resulting L3 miss rate"
 * and inverting eq. 4 for the uniform pattern, EHR = C/F): for each point with a finite
 * miss_rate, hit_rate = 1 - miss_rate (clamped to [0, 1]) and C_eff_bytes = hit_rate·F; returns
 * the median C_eff over the points with PMC_CAL_H_MIN <= h <= PMC_CAL_H_MAX with *valid = 1, or 0
 * with *valid = 0. E.g. F = 32 MiB with half the accesses missing gives C_eff = 16 MiB. */
double pmc_cal_capacity_from_misses(struct pmc_cal_point *pts, size_t n, int *valid);

/* B (§3.1, "according to the STREAM benchmark"): a STREAM triad a[i] = b[i] + s·c[i] over three
 * arrays of array_bytes each, split among n threads pinned to cpus[0..n-1] (first touch by their
 * owner), best of reps; bytes counted as STREAM does, 3 · array_bytes per pass (no
 * write-allocate). Returns 0 with *B_bytes_per_s, or -1 with why. */
int pmc_cal_triad(const int *cpus, size_t n, uint64_t array_bytes, unsigned reps, double *B_bytes_per_s,
		  char *why, size_t whysize);

/* Runs the probe on `cpu`: a buffer of max(F_bytes[], refs) bytes of 64-byte lines, touched once;
 * for each footprint F_bytes[i] in turn, accesses/2 warm-up then `accesses` timed reads of one word
 * of a uniformly random line among the first F/64 (i.i.d. uniform, the "Uni" pattern of Table 2,
 * whose eq. 4 gives hit rate C/F), each address depending on the previous load's value so the time
 * is latency, not memory parallelism. Writes ns of the probe thread's CPU time per access to ns[i]
 * (time other programs hold the CPU is not counted). With miss_rate not NULL it also counts the
 * probe thread's LLC misses over each timed part (PAPI, pmc_counters_open_thread_llc after
 * pmc_counters_threads_init, done here) into miss_rate[i] = misses / accesses; when they cannot
 * be counted every miss_rate[i] is NAN and why holds the reason (the call still returns 0).
 * Returns 0 or -1 with why. */
int pmc_cal_probe(int cpu, const uint64_t *F_bytes, size_t nF, uint64_t accesses, double *ns,
		  double *miss_rate, char *why, size_t whysize);

/* The hit rate of a probe that took t_ns per access, linear between t_l2_ns (every access a hit)
 * and t_dram_ns (every access a miss): h = (t_dram - t) / (t_dram - t_l2), clamped to [0, 1];
 * 0 when t_dram <= t_l2 (the references do not separate). Counts a hit in a slower cache level as
 * a partial hit, so capacities come out low by up to (t_LLC - t_L2)/(t_dram - t_L2). */
double pmc_cal_hit_rate(double t_ns, double t_l2_ns, double t_dram_ns);

/* Fills pts[i].hit_rate and C_eff_bytes = h·F (Casas & Bronevetsky eq. 4 for the uniform pattern,
 * EHR = C·Σ f(i)² = C/F, inverted) from their ns_per_access, and returns the capacity: the median of
 * C_eff over the points with PMC_CAL_H_MIN <= h <= PMC_CAL_H_MAX, with *valid = 1; or 0 with
 * *valid = 0 when no point is in that range (the cache is larger than every F, or smaller than
 * H_MIN of the smallest). */
double pmc_cal_capacity_summary(struct pmc_cal_point *pts, size_t n, double t_l2_ns, double t_dram_ns,
				int *valid);

/* One row of the capacity-left table: starts k CSThrs (p->csthr_bytes) on interferer_cpus[0..k-1],
 * measures the two references and every footprint with the probe on p->probe_cpu (p->probe_reps
 * times, medians), stops them. Returns 0 or -1 with why. Source: §3.2.3 (capacity left with 0..5
 * CSThrs), with the time-based hit rate instead of counters. */
int pmc_cal_capacity(const struct pmc_cal_params *p, uint32_t k, struct pmc_cal_capacity *out, char *why,
		     size_t whysize);

/* Capacity with j = 0..jmax BWThrs instead of CSThrs (Fig. 11's question, asked of the probe: does
 * BWThr take cache capacity?). Writes C_by_j[0..jmax] (0 when not valid). Returns 0 or -1 with why. */
int pmc_cal_orthogonality(const struct pmc_cal_params *p, uint32_t jmax, double *C_by_j, char *why,
			  size_t whysize);

/* The most BWThrs j such that every j' <= j leaves the capacity within rel_tol of C_by_j[0]
 * (Fig. 11: "up to 2 BWThr" on Xeon20MB). Returns -1 when C_by_j[0] is 0 (no valid capacity). */
int pmc_cal_orthogonal_bwthrs(const double *C_by_j, size_t n, double rel_tol);

/* Whole calibration: BW1 on interferer_cpus[0], B on the probe CPU plus the interferer CPUs (each
 * once), capacity for k = 0..K, orthogonality for j = 0..K (tolerance 10%). With p->counters,
 * BW1 and the capacity rows use counted LLC misses where PAPI counts them (method, bw1_method),
 * else timing, with the reason in counters_why. Fills *cal; topology from topo. Returns 0 or -1
 * with why. */
int pmc_cal_run(hwloc_topology_t topo, const struct pmc_cal_params *p, struct pmc_interference_cal *cal,
		char *why, size_t whysize);

/* A one-line description of the machine a calibration holds for: CPU model, packages, cores, PUs,
 * NUMA nodes and every cache (level, size, how many), from hwloc. Returns 0, or -1 when buf is
 * too small. */
int pmc_cal_topology_signature(hwloc_topology_t topo, char *buf, size_t size);

/* *cal as the JSON object of the machine file (every field below, "format":
 * "pmtools-interference/1"), also META "interference" of a trace (formats/FORMAT.md). NULL when
 * memory runs out; the caller frees it with cJSON_Delete. */
struct cJSON;
struct cJSON *pmc_cal_to_json(const struct pmc_interference_cal *cal);

/* Writes *cal to path as JSON ("format": "pmtools-interference/1"), first stamping cal->written
 * with this process's user, host, the time and a new id. Atomic: the JSON goes to a temporary
 * file beside path (mkstemp), is flushed with fsync and renamed over path, so a reader never sees
 * half a file and two calibrations writing at once leave one whole file, the later one's.
 * Returns 0 or -1 with why (the temporary file removed). */
int pmc_cal_write(const char *path, struct pmc_interference_cal *cal, char *why, size_t whysize);

/* When the machine file's calibration was made by another user than the caller's real uid, a
 * sentence saying by whom, where and when (in buf, for a warning), and 1; else 0 (buf ""). A file
 * without provenance (written before it was recorded) returns 0. */
int pmc_cal_foreign(const struct pmc_interference_cal *cal, char *buf, size_t size);

/* Reads a machine file written by pmc_cal_write into *cal. When its topology differs from
 * topology_now (NULL: not checked), returns -1 with why when strict, else 1 with the difference
 * in why (a warning for the caller to print). Returns 0 when it matches, -1 on a missing file,
 * bad JSON, another format or a missing or mistyped field, naming it. */
int pmc_cal_read(const char *path, const char *topology_now, int strict, struct pmc_interference_cal *cal,
		 char *why, size_t whysize);

#endif
